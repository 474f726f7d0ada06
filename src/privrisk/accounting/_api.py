"""The guarantee constructors by name, for the modules that build a guarantee from words (``spec``, ``interop``).

They import these from their home modules rather than from ``privrisk.accounting``, whose ``__init__`` imports
them back: that would be an import circle (``tests/test_layers.py``).
"""

from __future__ import annotations

from privrisk.accounting.concentrated import renyi_dp, zcdp
from privrisk.accounting.dpsgd import dpsgd
from privrisk.accounting.guarantees import approximate_dp, gaussian_dp, pure_dp
from privrisk.accounting.kary import kary_randomised_response_guarantee
from privrisk.accounting.mechanisms import (
    discrete_gaussian_guarantee,
    discrete_laplace_guarantee,
    gaussian_guarantee,
    laplace_guarantee,
    randomised_response_guarantee,
)

__all__ = [
    "approximate_dp",
    "discrete_gaussian_guarantee",
    "discrete_laplace_guarantee",
    "dpsgd",
    "gaussian_dp",
    "gaussian_guarantee",
    "kary_randomised_response_guarantee",
    "laplace_guarantee",
    "pure_dp",
    "randomised_response_guarantee",
    "renyi_dp",
    "zcdp",
]
