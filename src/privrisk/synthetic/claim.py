"""The generator's claim beside the measurement: a DP guarantee bounds every membership attack's ROC curve.

A generator that is (ε, δ)-DP, or more generally f-DP with trade-off curve β(α), lets no membership test reach a
true-positive rate above 1 − β(α) at false-positive rate α (Dong, Roth and Su 2022, Def. 2.1; the accountant's
:func:`~privrisk.accounting.tpr_at_fpr`). So a measured point above the claimed curve, beyond its statistical error,
is a finding: the claim is wrong, or the generator leaks more than it says (a bug, a privacy budget spent twice,
the domain read from the data). It is tested at every threshold with a Clopper–Pearson lower bound on the TPR and an
upper bound on the FPR, the confidence shared over the thresholds. A measurement far below the claim is expected and
explained: attacks give lower bounds, and the claim is a worst case over every attacker and every dataset.

The guarantee is written as the accountant reads it (:class:`~privrisk.accounting.GuaranteeSpec`), in one text:
``epsilon=1``, ``epsilon=1,delta=1e-6``, ``rho=0.5``, ``mu=1``, ``mechanism=gaussian,sigma=2``,
``renyi=2:0.5,4:1.1``; a bare number is ε.

Example:
    >>> spec = parse_guarantee("epsilon=1,delta=1e-6")
    >>> spec.epsilon, spec.delta
    ('1', 1e-06)
    >>> parse_guarantee("ln3").build().pure_epsilon == math.log(3)
    True
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk._format import share as _pct
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.errors import PrivriskError
from privrisk.synthetic.intervals import lower_bound, upper_bound
from privrisk.synthetic.membership import LOW_FPR, MembershipAttack

if TYPE_CHECKING:
    from matplotlib.axes import Axes

    from privrisk.accounting.guarantees import Guarantee

__all__ = ["ClaimCheck", "check_claim", "parse_guarantee", "plot_claim"]

_FIELDS = {f.name for f in fields(GuaranteeSpec)} - {"releases", "opacus_history", "name"}
_NUMBERS = {"delta", "rho", "mu", "scale", "sigma", "sensitivity", "sample_rate"}
_WHOLE = {"categories", "compose", "group"}
# A comma starts a new field only before "name=": renyi's "2:0.5,4:1.1" and dpsgd's "N,B,E" keep theirs.
_SPLIT = re.compile(r"[;\s]+|,(?=\s*[a-z_]+\s*=)")


def parse_guarantee(text: str, *, name: str = "generator_guarantee") -> GuaranteeSpec:
    """The :class:`~privrisk.accounting.GuaranteeSpec` a text states (see the module); checked by ``build()``.

    Raises:
        PrivriskError: (``param`` = ``name``) an unknown field, a field twice, a value that is not a number.
    """
    raw = str(text).strip()
    if not raw:
        raise PrivriskError(f"{name}: give a guarantee, e.g. epsilon=1 or rho=0.5", param=name)
    if "=" not in raw:
        return GuaranteeSpec(epsilon=raw)
    given: dict[str, Any] = {}
    for part in (p for p in _SPLIT.split(raw) if p.strip()):
        key, sep, value = part.partition("=")
        key = key.strip().lower().replace("-", "_")
        value = value.strip()
        if not sep or key not in _FIELDS:
            known = ", ".join(sorted(_FIELDS))
            raise PrivriskError(f"{name}: unknown part {part!r}; write field=value with a field of: {known}",
                                param=name)  # fmt: skip
        if key in given:
            raise PrivriskError(f"{name}: {key} given twice", param=name)
        try:
            given[key] = float(value) if key in _NUMBERS else int(value) if key in _WHOLE else value
        except ValueError:
            raise PrivriskError(f"{name}: {key} must be a number, got {value!r}", param=name) from None
    return GuaranteeSpec(**given)


def build_guarantee(spec: GuaranteeSpec, *, name: str = "generator_guarantee") -> Guarantee:
    """``spec.build()`` with its errors carrying ``name`` (the one setting the text came from)."""
    try:
        return spec.build()
    except PrivriskError as exc:
        raise PrivriskError(f"{name}: {exc}", param=name) from None


@dataclass(frozen=True)
class ClaimCheck:
    """One membership attack held against the claimed guarantee.

    Attributes:
        attack: the attack's name.
        violated: whether some threshold's TPR lies above the claimed curve beyond its statistical error.
        worst: at that threshold (or the nearest to it): (FPR upper bound, TPR lower bound, claimed TPR there).
        claimed_advantage: the claim's largest advantage max(TPR − FPR) (δ(0) of its profile).
        measured_advantage: the attack's.
        claimed_tpr: the claimed TPR at each of :data:`~privrisk.synthetic.membership.LOW_FPR`.
    """

    attack: str
    violated: bool
    worst: tuple[float, float, float]
    claimed_advantage: float
    measured_advantage: float
    claimed_tpr: dict[str, float]

    def sentence(self) -> str:
        """The comparison in words."""
        fpr, tpr, claim = self.worst
        if self.violated:
            return (
                f"The {self.attack} attack finds members more often than the claimed guarantee allows: at a "
                f"false-positive rate of at most {_pct(fpr, 2)} it reaches a true-positive rate of at least {_pct(tpr, 2)}, "
                f"where the claim allows {_pct(claim, 2)}. Either the claim is wrong or the generator leaks."
            )
        ratio = self.measured_advantage / self.claimed_advantage if self.claimed_advantage > 0 else 0.0
        if ratio < 0.5:
            return (
                f"The {self.attack} attack stays far below the claim (advantage {_pct(self.measured_advantage)} of a "
                f"possible {_pct(self.claimed_advantage)}): expected, since an attack is a lower bound and the claim "
                "is the worst case over every attacker and every dataset."
            )
        return f"The {self.attack} attack stays within the claim (advantage {_pct(self.measured_advantage)} of {_pct(self.claimed_advantage)})."

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON, with the sentence."""
        fpr, tpr, claim = self.worst
        return {
            "attack": self.attack,
            "violated": self.violated,
            "fpr_upper": fpr,
            "tpr_lower": tpr,
            "claimed_tpr_there": claim,
            "claimed_advantage": self.claimed_advantage,
            "measured_advantage": self.measured_advantage,
            "claimed_tpr_at_fpr": self.claimed_tpr,
            "sentence": self.sentence(),
        }


def check_claim(g: Guarantee, attack: MembershipAttack) -> ClaimCheck:
    """Whether ``attack`` beats the guarantee ``g`` anywhere on its ROC curve (see the module)."""
    from privrisk.accounting.risks import membership_risk, tpr_at_fpr

    curve = attack.curve
    n_in, n_out = attack.member_scores.size, attack.non_member_scores.size
    rows = curve.iloc[1:]
    if len(rows) > 64:
        rows = rows.iloc[np.unique(np.linspace(0, len(rows) - 1, 64).astype(int))]
    alpha = (1.0 - attack.confidence) / (2 * max(1, len(rows)))
    worst, gap, violated = (0.0, 0.0, 0.0), -math.inf, False
    for tp, fp in zip(rows["true_positives"], rows["false_positives"], strict=True):
        fpr_up = upper_bound(int(fp), n_out, alpha)
        tpr_low = lower_bound(int(tp), n_in, alpha)
        claim = float(tpr_at_fpr(g, fpr_up))
        if tpr_low - claim > gap:
            gap, worst = tpr_low - claim, (fpr_up, tpr_low, claim)
            violated = violated or tpr_low > claim + 1e-12
    claimed = {str(f): float(tpr_at_fpr(g, f)) for f in LOW_FPR}
    advantage = membership_risk(g).advantage
    return ClaimCheck(attack.name, violated, worst, advantage, attack.advantage, claimed)


def plot_claim(g: Guarantee | None, attacks: list[MembershipAttack], *, ax: Axes | None = None,
               label: str = "claimed") -> Axes:  # fmt: skip
    """The measured ROC curves of the attacks and, with ``g``, the claimed curve 1 − β(α), on log-log axes.

    Args:
        g: the claimed guarantee (None: the measured curves alone).
        attacks: the membership attacks.
        ax: the axes to draw into (a new figure without them); nothing global is changed.
        label: the claimed curve's legend label.

    Returns:
        The axes.
    """
    from privrisk.reports.plots import axes_or_figure

    _, ax = axes_or_figure(ax, figsize=(5.5, 4.5), layout="constrained")
    grid = np.geomspace(1e-4, 1.0, 200)
    ax.plot(grid, grid, color="#777777", linestyle=":", linewidth=1, label="guessing")
    if g is not None:
        from privrisk.accounting.risks import tpr_at_fpr

        ax.plot(grid, np.asarray(tpr_at_fpr(g, grid)), color="#b2182b", linewidth=2, label=label)
    styles = {"distance": "#2166ac", "density": "#1b7837", "shadow": "#762a83"}
    for a in attacks:
        c = a.curve[a.curve["fpr"] > 0]
        ax.step(c["fpr"], np.maximum(c["tpr"], 1e-4), where="post", color=styles.get(a.name, "#333333"),
                linewidth=1.5, label=f"measured: {a.name}")  # fmt: skip
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlim(1e-4, 1)
    ax.set_ylim(1e-4, 1.05)
    ax.set_xlabel("false-positive rate")
    ax.set_ylabel("true-positive rate")
    ax.set_title("Membership inference: measured and claimed")
    ax.legend(loc="lower right", fontsize="small")
    return ax
