"""The guarantee constructors by name, for the modules that build a guarantee from words (``spec``, ``interop``).

They import these from their home modules rather than from ``privrisk.accounting``, whose ``__init__`` imports
them back: that would be an import circle (``tests/test_layers.py``).
"""

from __future__ import annotations

from privrisk.accounting.concentrated import renyi_dp, zcdp
from privrisk.accounting.dpsgd import dpsgd
from privrisk.accounting.guarantees import approximate_dp, gaussian_dp, pure_dp
from privrisk.accounting.kary import kary_randomized_response
from privrisk.accounting.mechanisms import (
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    gaussian_mechanism,
    laplace_mechanism,
    randomized_response,
)

__all__ = [
    "approximate_dp",
    "discrete_gaussian_mechanism",
    "discrete_laplace_mechanism",
    "dpsgd",
    "gaussian_dp",
    "gaussian_mechanism",
    "kary_randomized_response",
    "laplace_mechanism",
    "pure_dp",
    "randomized_response",
    "renyi_dp",
    "zcdp",
]
