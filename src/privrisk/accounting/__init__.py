"""Accounting: a privacy guarantee from any definition, mechanism or combination, and what it means as risk.

- :mod:`~privrisk.accounting.guarantees` — pure ε, (ε, δ), zCDP, Gaussian DP, Rényi DP; every
  :class:`Guarantee` has its privacy profile δ(ε), ε(δ), its trade-off curve β(α) and the conversion it used.
- :mod:`~privrisk.accounting.mechanisms` — Laplace, Gaussian, randomized response, discrete Laplace and discrete
  Gaussian (OpenDP's samplers), with exact profiles.
- :mod:`~privrisk.accounting.composition` — composition (exact for GDP, zCDP, RDP; Kairouz–Oh–Viswanath for k
  pure-ε releases; dp_accounting's privacy loss distribution for mechanisms), subsampling, group privacy.
- :mod:`~privrisk.accounting.risks` — membership (success, advantage, posterior), TPR at FPR, singling out among
  n, the worst case with the same (ε, δ), and a JSON-ready summary.
- :mod:`~privrisk.accounting.calibration` — the least noise or largest ε, ρ, μ for a target risk.

Only numpy and privrisk's light modules are imported here; scipy and dp_accounting load when a Gaussian, zCDP or
composed guarantee first needs them.

Example:
    >>> from privrisk.accounting import laplace_mechanism, membership_risk, worst_case
    >>> g = laplace_mechanism(epsilon=1.0)
    >>> round(membership_risk(g).success, 3), round(membership_risk(worst_case(g)).success, 3)
    (0.697, 0.731)
"""

from privrisk.accounting.calibration import Calibration, calibrate
from privrisk.accounting.composition import compose, group, subsample
from privrisk.accounting.guarantees import (
    Guarantee,
    approximate_dp,
    gaussian_dp,
    pure_dp,
    renyi_dp,
    zcdp,
)
from privrisk.accounting.mechanisms import (
    discrete_gaussian_mechanism,
    discrete_laplace_mechanism,
    gaussian_mechanism,
    laplace_mechanism,
    randomized_response,
)
from privrisk.accounting.risks import (
    MembershipRisk,
    membership_risk,
    reconstruction_risk,
    risk_summary,
    tpr_at_fpr,
    worst_case,
)

__all__ = [
    "Calibration",
    "Guarantee",
    "MembershipRisk",
    "approximate_dp",
    "calibrate",
    "compose",
    "discrete_gaussian_mechanism",
    "discrete_laplace_mechanism",
    "gaussian_dp",
    "gaussian_mechanism",
    "group",
    "laplace_mechanism",
    "membership_risk",
    "pure_dp",
    "randomized_response",
    "reconstruction_risk",
    "renyi_dp",
    "risk_summary",
    "subsample",
    "tpr_at_fpr",
    "worst_case",
    "zcdp",
]
