"""The tight composition of the answers a ledger records, and its risk, beside the plain sums.

A ledger records each answer as ``{column, query, epsilon}`` (Laplace noise, pure ε-DP) or ``{column, query,
mechanism: "gaussian", rho}`` (OpenDP's Gaussian noise, ρ-zCDP). Together they spend

- the **plain sum** of ε of the Laplace answers (sequential composition, Mehner et al., §3.4) and of ρ of the
  Gaussian ones (Bun and Steinke 2016, Lemma 2.3);
- the **composed guarantee**, tight: every answer as its exact mechanism (a Laplace mechanism of scale Δ/ε, a
  Gaussian mechanism with σ/Δ = 1/√(2ρ)), composed by :func:`privrisk.accounting.compose` (the privacy loss
  distribution of Laplace and Gaussian answers; ρ summed when every answer is Gaussian).

The risk of the composed guarantee is that of the best attacker (:func:`privrisk.accounting.risk_summary`).

Example:
    >>> c = composition_statement([{"epsilon": 1.0}])
    >>> round(c["success"], 3), c["plain_epsilon"]
    (0.697, 1.0)
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk._format import below_certainty, percent
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.accounting import Guarantee

__all__ = [
    "DEFAULT_DELTA",
    "composed_guarantee",
    "composition_sentence",
    "composition_statement",
    "plain_epsilon",
    "plain_rho",
    "tradeoff_figure",
]

#: δ at which the ε of a composed guarantee is stated when no (ε, δ) budget names one.
DEFAULT_DELTA = 1e-6


def _number(x: float) -> str:
    return f"{x:.6g}"


def _is_gaussian(record: Mapping[str, Any]) -> bool:
    return record.get("mechanism", "laplace") == "gaussian"


def plain_epsilon(records: Iterable[Mapping[str, Any]]) -> float:
    """The plain sum of ε of the Laplace answers (sequential composition).

    Example:
        >>> plain_epsilon([{"epsilon": 0.1}, {"epsilon": 0.2}, {"mechanism": "gaussian", "rho": 0.5}])
        0.30000000000000004
    """
    return math.fsum(float(r["epsilon"]) for r in records if not _is_gaussian(r))


def plain_rho(records: Iterable[Mapping[str, Any]], *, with_pure: bool = False) -> float:
    """The sum of ρ of the Gaussian answers; with ``with_pure`` also ε²/2 for each Laplace answer (Bun and
    Steinke 2016, Prop. 1.4: ε-DP implies ε²/2-zCDP).

    Example:
        >>> plain_rho([{"epsilon": 1.0}, {"mechanism": "gaussian", "rho": 0.25}], with_pure=True)
        0.75
    """
    parts = []
    for r in records:
        if _is_gaussian(r):
            parts.append(float(r["rho"]))
        elif with_pure:
            parts.append(float(r["epsilon"]) ** 2 / 2)
    return math.fsum(parts)


def composed_guarantee(records: Sequence[Mapping[str, Any]]) -> Guarantee:
    """Every recorded answer as its exact mechanism, composed tightly (:func:`privrisk.accounting.compose`).

    A Laplace answer of ε is a Laplace mechanism of scale 1/ε at sensitivity 1 (the release adds scale Δf/ε, a
    few ulps more at most); a Gaussian answer of ρ is a Gaussian mechanism with σ = 1/√(2ρ) at sensitivity 1.

    Example:
        >>> g = composed_guarantee([{"mechanism": "gaussian", "rho": 0.125}] * 4)
        >>> round(g.delta_at(0.0), 4)  # four Gaussians with μ = 1/2 are one with μ = 1: 2Φ(1/2) − 1
        0.3829
    """
    if not records:
        raise PrivriskError("records: nothing was released yet", param="records")
    return _composed(
        tuple(
            ("rho", float(r["rho"])) if _is_gaussian(r) else ("epsilon", float(r["epsilon"])) for r in records
        )
    )


@functools.lru_cache(maxsize=16)
def _composed(parts: tuple[tuple[str, float], ...]) -> Guarantee:
    """One guarantee object per ledger: a release asks it several questions, and its privacy loss distribution is
    built once (the guarantee caches it)."""
    from privrisk import accounting as A

    mechanisms = [
        A.gaussian_guarantee(sigma=1 / math.sqrt(2 * value))
        if kind == "rho"
        else A.laplace_guarantee(epsilon=value)
        for kind, value in parts
    ]
    return mechanisms[0] if len(mechanisms) == 1 else A.compose(mechanisms)


def composition_statement(
    records: Sequence[Mapping[str, Any]], n: int | None = None, *, delta: float | None = None
) -> dict[str, Any]:
    """The tight composition of recorded answers and its risk, beside the plain sums.

    Every answer is its exact mechanism (:func:`privrisk.release.budget.composed_guarantee`: the privacy loss
    distribution of Laplace and Gaussian answers, ρ summed when all are Gaussian); the risk is that of the best
    attacker against the composed guarantee (:func:`privrisk.accounting.risk_summary`): advantage, success
    (prior ½) and, for a published n, the risk of singling out one of n people (ρ_mw for a pure ε, the f-DP
    bound 1 − β(1/n) otherwise).

    Returns:
        ``answers``, ``plain_epsilon`` (the sum of ε of the Laplace answers), ``plain_rho`` (the sum of ρ of
        the Gaussian ones, or None), ``guarantee``, ``conversion``, ``delta`` (the δ of ``epsilon_at_delta``:
        an (ε, δ) budget's or 10⁻⁶), ``epsilon_at_delta``, ``advantage``, ``success``, ``n`` and
        ``many_worlds``.

    Example:
        >>> c = composition_statement([{"epsilon": 1.0}])
        >>> round(c["success"], 3), c["plain_epsilon"]
        (0.697, 1.0)
    """
    g = composed_guarantee(records)
    d = DEFAULT_DELTA if delta is None else float(delta)
    summary = _summary(g, n, d)
    gaussian = any(r.get("mechanism") == "gaussian" for r in records)
    return {
        "answers": len(records),
        "plain_epsilon": plain_epsilon(records),
        "plain_rho": plain_rho(records) if gaussian else None,
        "guarantee": g.label,
        "conversion": g.conversion,
        "delta": d,
        "epsilon_at_delta": summary["epsilon_at_delta"],
        "advantage": summary["advantage"],
        "success": summary["success"],
        "n": n,
        "many_worlds": summary["reconstruction"],
    }


@functools.lru_cache(maxsize=16)
def _summary(g: Guarantee, n: int | None, delta: float) -> dict[str, Any]:
    """The risks of a composed guarantee; a release states those of one ledger more than once."""
    from privrisk import accounting as A

    return A.risk_summary(g, n=n, at_delta=delta)


def composition_sentence(c: Mapping[str, Any], what: str) -> str:
    """The tight composition in one sentence, next to the plain sum.

    Its risks are those of the noise actually added (each answer as its exact mechanism), which may be below the
    global risk ρ_gl that the total ε allows any noise: the sentence says so, so that the two numbers answer two
    questions that the reader can tell apart.

    Example:
        >>> composition_sentence(composition_statement([{"epsilon": 1.0}]), "this release")
        'Composed tightly, this release is ε = 0.999998 at δ = 1e-06 (plain sum: ε = 1); against the noise actually added, the best attacker is right 69.7% of the time (advantage 39.3%) (conversion: exact (Laplace mechanism)).'
    """
    sums = [f"ε = {_number(c['plain_epsilon'])}"] if c["plain_rho"] is None or c["plain_epsilon"] > 0 else []
    if c["plain_rho"] is not None:
        sums.append(f"ρ = {_number(c['plain_rho'])}")
    eps = c["epsilon_at_delta"]
    at = "no finite ε" if eps is None or not math.isfinite(eps) else f"ε = {_number(eps)}"
    # Every risk of noise with δ < 1 is below certainty, even where double precision rounds it to 1.
    text = (
        f"Composed tightly, {what} {'is' if what.startswith('this') else 'are'} {at} at δ = {_number(c['delta'])} "
        f"(plain sum: {' and '.join(sums)}); against the noise actually added, the best attacker is right "
        f"{percent(below_certainty(c['success']))} of the time (advantage {percent(below_certainty(c['advantage']))})"
    )
    if c["n"] is not None and c["many_worlds"] is not None:
        text += (
            f", and the risk of singling out one of n = {c['n']:,} people is "
            f"{percent(below_certainty(c['many_worlds']))}"
        )
    return text + f" (conversion: {c['conversion']})."


def tradeoff_figure(records: Sequence[Mapping[str, Any]], stem: Path) -> dict[str, str]:
    """The trade-off curve of the composed guarantee beside the worst case, as ``stem.png`` and ``stem.svg``."""
    from privrisk import accounting as A
    from privrisk.reports.plots.tradeoff import alpha_grid, tradeoff_figures

    g = composed_guarantee(records)
    worst = A.worst_case(g, DEFAULT_DELTA)
    a = alpha_grid()
    curves = [(g.label, a, g.tradeoff(a)), (f"worst case: {worst.label}", a, worst.tradeoff(a))]
    return tradeoff_figures(curves, stem.parent, stem.name, title="Every answer released, composed tightly")
