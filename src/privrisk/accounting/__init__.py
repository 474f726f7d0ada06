"""Accounting: a privacy guarantee from any definition, mechanism or combination, and what it means as risk.

- :mod:`~privrisk.accounting.guarantees` — pure ε, (ε, δ), Gaussian DP; every :class:`Guarantee` has its
  privacy profile δ(ε), ε(δ), its trade-off curve β(α) and the conversion it used.
- :mod:`~privrisk.accounting.concentrated` — zCDP and Rényi DP, converted to (ε, δ).
- :mod:`~privrisk.accounting.mechanisms` — Laplace, Gaussian, randomized response, discrete Laplace and discrete
  Gaussian (OpenDP's samplers), with exact profiles.
- :mod:`~privrisk.accounting.composition` — composition (exact for GDP, zCDP, RDP; Kairouz–Oh–Viswanath for k
  pure-ε releases; dp_accounting's privacy loss distribution for mechanisms);
  :mod:`~privrisk.accounting.subsampling` — amplification by subsampling; :mod:`~privrisk.accounting.grouping` —
  group privacy.
- :mod:`~privrisk.accounting.risks` — membership (success, advantage, posterior), TPR at FPR, singling out among
  n, the worst case with the same (ε, δ), and a JSON-ready summary.
- :mod:`~privrisk.accounting.calibration` — the least noise or largest ε, ρ, μ for a target risk.
- :mod:`~privrisk.accounting.spec` — :class:`GuaranteeSpec`: a guarantee as a person states it (any of the above,
  a mixed composition of releases, DP-SGD), checked as a whole; the command line and the app build through it.
- :mod:`~privrisk.accounting.dpsgd`, :mod:`~privrisk.accounting.kary` and :mod:`~privrisk.accounting.interop` —
  DP-SGD in dataset size, batch size, epochs and noise multiplier; k-ary randomized response; OpenDP
  measurements and Opacus histories as guarantees.

Only numpy and privrisk's light modules are imported here; scipy and dp_accounting load when a Gaussian, zCDP or
composed guarantee first needs them.

Example:
    >>> from privrisk.accounting import laplace_guarantee, membership_risk, worst_case
    >>> g = laplace_guarantee(epsilon=1.0)
    >>> round(membership_risk(g).success, 3), round(membership_risk(worst_case(g)).success, 3)
    (0.697, 0.731)
"""

from privrisk.accounting.calibration import Calibration, calibrate
from privrisk.accounting.composition import compose
from privrisk.accounting.concentrated import renyi_dp, zcdp
from privrisk.accounting.dpsgd import dpsgd
from privrisk.accounting.grouping import group
from privrisk.accounting.guarantees import Guarantee, approximate_dp, gaussian_dp, pure_dp
from privrisk.accounting.interop import from_opacus, from_opendp

# With the guarantees' names before 0.2 (``laplace_mechanism``, ``randomized_response``, …) and their American
# spellings (``randomized_response_guarantee``, …), kept one release with a DeprecationWarning and left out of
# __all__.
from privrisk.accounting.kary import (
    kary_randomised_response_guarantee,
    kary_randomized_response,  # noqa: F401
    kary_randomized_response_guarantee,  # noqa: F401
)
from privrisk.accounting.mechanisms import (  # noqa: F401
    discrete_gaussian_guarantee,
    discrete_gaussian_mechanism,
    discrete_laplace_guarantee,
    discrete_laplace_mechanism,
    gaussian_guarantee,
    gaussian_mechanism,
    laplace_guarantee,
    laplace_mechanism,
    randomised_response_guarantee,
    randomized_response,
    randomized_response_guarantee,
)
from privrisk.accounting.risks import (
    MembershipRisk,
    membership_risk,
    reconstruction_risk,
    risk_summary,
    tpr_at_fpr,
    worst_case,
)
from privrisk.accounting.spec import GuaranteeSpec, releases_from_toml
from privrisk.accounting.subsampling import subsample

__all__ = [
    "Calibration",
    "Guarantee",
    "GuaranteeSpec",
    "MembershipRisk",
    "approximate_dp",
    "calibrate",
    "compose",
    "discrete_gaussian_guarantee",
    "discrete_laplace_guarantee",
    "dpsgd",
    "from_opacus",
    "from_opendp",
    "gaussian_dp",
    "gaussian_guarantee",
    "group",
    "kary_randomised_response_guarantee",
    "laplace_guarantee",
    "membership_risk",
    "pure_dp",
    "randomised_response_guarantee",
    "reconstruction_risk",
    "releases_from_toml",
    "renyi_dp",
    "risk_summary",
    "subsample",
    "tpr_at_fpr",
    "worst_case",
    "zcdp",
]
