"""The disclosure risk of a synthetic file: the three attacks of the EU's anonymisation criteria (singling out,
linkability, inference) against a control set, membership inference with the ε it proves, the generator's claimed
guarantee beside the measurement, and the distance metrics with their warning.

One way in: :class:`SyntheticSettings` and :func:`run_synthetic` (``privrisk synthetic`` and the app's page
Synthetic call them). The parts: :mod:`~privrisk.synthetic.intervals` (exact intervals of the excess risk),
:mod:`~privrisk.synthetic.singling_out`, :mod:`~privrisk.synthetic.linkability`, :mod:`~privrisk.synthetic.inference`,
:mod:`~privrisk.synthetic.membership`, :mod:`~privrisk.synthetic.epsilon_bound`, :mod:`~privrisk.synthetic.claim`,
:mod:`~privrisk.synthetic.distances`, :mod:`~privrisk.synthetic.threat` (who knows what) and
:mod:`~privrisk.synthetic.generators` (small generators of known privacy).
"""

from __future__ import annotations

from privrisk.synthetic.claim import ClaimCheck, check_claim, parse_guarantee, plot_claim
from privrisk.synthetic.distances import DISTANCE_WARNING, Distances
from privrisk.synthetic.epsilon_bound import EpsilonBound, epsilon_lower_bound
from privrisk.synthetic.generators import GENERATORS, generate
from privrisk.synthetic.intervals import ExcessRisk, clopper_pearson, excess_risk, wilson
from privrisk.synthetic.membership import MembershipAttack
from privrisk.synthetic.outcome import AttackOutcome
from privrisk.synthetic.run import SyntheticRun, SyntheticSettings, Verdict, run_synthetic
from privrisk.synthetic.threat import THREAT_MODELS

__all__ = [
    "DISTANCE_WARNING",
    "GENERATORS",
    "THREAT_MODELS",
    "AttackOutcome",
    "ClaimCheck",
    "Distances",
    "EpsilonBound",
    "ExcessRisk",
    "MembershipAttack",
    "SyntheticRun",
    "SyntheticSettings",
    "Verdict",
    "check_claim",
    "clopper_pearson",
    "epsilon_lower_bound",
    "excess_risk",
    "generate",
    "parse_guarantee",
    "plot_claim",
    "run_synthetic",
    "wilson",
]
