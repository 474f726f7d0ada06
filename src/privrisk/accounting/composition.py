"""Composition, for one commit the whole of :mod:`privrisk.accounting.pld_composition` (the module is being split
by route; the next commit gives each route its own module)."""

from privrisk.accounting import pld_composition as _whole

globals().update({k: v for k, v in vars(_whole).items() if not k.startswith("__")})
__all__ = _whole.__all__
__getattr__ = _whole.__getattr__
