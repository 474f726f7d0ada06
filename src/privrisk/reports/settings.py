"""The earlier home of the pages' and the trade-off figure's one way in; it lives in :mod:`privrisk.reports.run`.

Every name is still importable from here, the same objects, for one release (``privrisk.ExplainSettings`` and the
command line's tradeoff still read them here: see docs/guide/explain.md).
"""

from __future__ import annotations

from privrisk.reports.run import *  # noqa: F403 - every public name, the same objects
from privrisk.reports.run import __all__ as __all__
