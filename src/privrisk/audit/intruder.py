"""The intruder's audit of noise scaled to a data-dependent sensitivity (Sarathy and Muralidhar 2009).

Sarathy and Muralidhar (2009) take a provider who answers a query f with Laplace noise whose scale comes from the
data at hand, b_n = Δf_n(X)/ε with Δf_n(X) = maxᵢ |f(X) − f(X₋ᵢ)| (:mod:`privrisk.audit.leave_out`), and
look at it from the side of an intruder who holds every record but one. The intruder computes the scale the
provider would have used without the missing record, b_{n−1}(X₋ᵢ), and compares the probability of the answer
r seen under the full data (p1) with its probability under X₋ᵢ and b_{n−1} (p3ᵢ). When the missing record is
the outlier that set b_n, p3 is nearly zero and p1/p3 breaks e^ε by orders of magnitude (their Tables 2 and 3);
noise calibrated to a global sensitivity does not (|f(X) − f(X₋ᵢ)| ≤ Δf, so every ratio stays within e^ε).

How the quantities of Sarathy and Muralidhar (2009) are defined here (each checked against their printed numbers)
--------------------------------------------------------------------------------------------------------------
- b_{n−1}(X₋ᵢ) = Δf_{n−1}(X₋ᵢ)/ε (their b_{n−1} = 0.058 for X*, the claims without Terry Gross's).
- The answer is r = f(X) + F⁻¹(u) with F⁻¹ the Laplace(0, b_n) quantile function. The event (``"tail"``) is the
  answer's tail on the side where r fell: p1 = P[f(X) + Lap(b_n) ≥ r] = 1 − u for u ≥ 1/2 (their 0.25), and the
  lower tail for u < 1/2. p2 uses X* with the provider's b_n (their 0.0338); p3ᵢ uses X₋ᵢ with b_{n−1}(X₋ᵢ).
  ``event="density"`` compares the two densities at r instead of the tails.
- A record is marked as breaking differential privacy when p1/p3ᵢ > e^ε or p3ᵢ/p1 > e^ε: the definition bounds
  both directions, their Table 2 prints only the first.
- The hypothesis test's standard error divides the standard deviation of the 29 known claims by √29 (the
  sample the intruder holds), not √30, as Sarathy and Muralidhar do (§"A statistical perspective"). Their
  errata that touch this module (Table 3 at x₃₀ = 40; the figures' numbers) are in docs/errata.md.

Example:
    >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
    >>> res.star, res.violations
    (6, 1)
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy.special import ndtr

from privrisk._validation import Query, check_epsilon, check_query, check_whole
from privrisk.audit._inference import BoundKind, missing_bound, sampling_distribution
from privrisk.audit._laplace import breaks, exp_text, laplace_quantile, log_event, log_p_ratio, safe_exp
from privrisk.audit.leave_out import _check_records, _leave_out, _provider
from privrisk.errors import PrivriskError
from privrisk.sensitivity import Universe, as_universe, evaluate, global_sensitivity

__all__ = [
    "EVENTS",
    "TOP_RECORDS",
    "AuditResult",
    "BoundKind",
    "Event",
    "GlobalAudit",
    "Tail",
    "audit_data_dependent",
    "audit_sweep",
    "check_alpha",
    "check_event",
]

Event = Literal["tail", "density"]
"""What the intruder compares: the answer's tail beyond r (as Sarathy and Muralidhar) or the densities at r."""
Tail = Literal["upper", "lower"]
"""The side of f(X) where the answer fell; the tail event looks beyond r on that side."""
EVENTS: tuple[Event, ...] = ("tail", "density")
TOP_RECORDS = 20
"""How many of the riskiest records a JSON document carries (every record is in the records table)."""
_CHUNK = 1 << 20
"""Records per chunk of the per-record computation: temporaries stay at a few MiB whatever n is."""


def check_event(event: object) -> Event:
    """The event of the audit, ``"tail"`` or ``"density"``.

    Example:
        >>> check_event("density")
        'density'
    """
    for choice in EVENTS:
        if event == choice:
            return choice
    raise PrivriskError(f"event: must be 'tail' or 'density', got {event!r}", param="event")


def check_alpha(alpha: float) -> float:
    """1 − the confidence of a bound or a noise range, in (0, 1/2) (Sarathy and Muralidhar take 0.0001).

    Example:
        >>> check_alpha(1e-4)
        0.0001
    """
    value = _number(alpha, "alpha")
    if not (0 < value < 0.5):
        raise PrivriskError(f"alpha: must lie in (0, 0.5), got {value:g}", param="alpha")
    return value


def _number(value: Any, name: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name) from None


def _check_u(u: float | None, response: float | None, seed: int | None) -> float | None:
    """u as given, or drawn with ``seed`` when neither u nor the response is given; None with a response."""
    if u is not None and response is not None:
        raise PrivriskError(
            "u: give either u (the uniform draw) or response (the answer), not both", param="u"
        )
    if response is not None:
        if not math.isfinite(_number(response, "response")):
            raise PrivriskError(f"response: must be a finite number, got {response!r}", param="response")
        return None
    if u is None:
        rng = np.random.default_rng(None if seed is None else check_whole(seed, name="seed"))
        draw = 0.0
        while draw == 0.0:  # F⁻¹(0) is −∞
            draw = float(rng.uniform())
        return draw
    value = _number(u, "u")
    if not (0 < value < 1):
        raise PrivriskError(f"u: must lie strictly between 0 and 1, got {value:g}", param="u")
    return value


# --------------------------------------------------------------------------------------------------------------
# The audit
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class GlobalAudit:
    """The same audit with noise calibrated to a global sensitivity Δf over a universe."""

    universe: str
    sensitivity: float
    scale: float
    response: float
    p1: float
    records: pd.DataFrame = field(repr=False)

    @property
    def max_ratio(self) -> float:
        """The largest of p1/p3ᵢ and p3ᵢ/p1 over all records."""
        return float(safe_exp(np.max(np.abs(self.records["log_ratio"].to_numpy()))))

    @property
    def violations(self) -> int:
        """How many possible missing records break e^ε (none, up to rounding)."""
        return int(self.records["violates"].sum())

    def summary(self) -> dict[str, Any]:
        """The headline numbers as plain JSON-able values."""
        return {
            "universe": self.universe,
            "sensitivity": self.sensitivity,
            "scale": self.scale,
            "response": self.response,
            "p1": self.p1,
            "max_ratio": self.max_ratio,
            "violations": self.violations,
        }


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit_data_dependent` finds: the provider's view, the intruder's view of every record.

    Scalars follow the names of Sarathy and Muralidhar (2009): ``f_n`` = f(X), ``delta_n`` = Δf_n(X), ``b_n``,
    ``response`` = r, ``p1``, ``p2``, ``star`` (the record X* leaves out, numbered from 1), ``f_star`` =
    f_{n−1}(X*), ``f_star2`` = f_{n−2}(X*), ``delta_star`` = Δf_{n−1}(X*), ``b_star`` = b_{n−1}(X*),
    ``quantile`` (the (1 − α) quantile of the answer under X* and b_{n−1}) and ``bound`` (what the intruder may
    state about the missing record, ``bound_kind``). ``records`` is their Table 2 (one row per possible missing
    record), ``hypothesis`` the z-test for X* (§"A statistical perspective").
    """

    query: Query
    epsilon: float
    n: int
    event: Event
    tail: Tail
    alpha: float
    u: float | None
    f_n: float
    delta_n: float
    b_n: float
    response: float
    p1: float
    p2: float
    star: int
    f_star: float
    f_star2: float
    delta_star: float
    b_star: float
    quantile: float
    bound: float
    bound_kind: BoundKind
    records: pd.DataFrame = field(repr=False)
    hypothesis: dict[str, Any] = field(repr=False)
    global_audit: GlobalAudit | None = field(default=None, repr=False)

    @property
    def violations(self) -> int:
        """How many possible missing records break e^ε."""
        return int(self.records["violates"].sum())

    @property
    def bound_learned(self) -> bool:
        """True when the answer lies beyond the quantile, so the intruder may state the bound at 1 − α."""
        if self.bound_kind == "none":
            return False
        return self.response > self.quantile if self.tail == "upper" else self.response < self.quantile

    def summary(self) -> dict[str, Any]:
        """The headline numbers as plain JSON-able values."""
        keys = ("query", "epsilon", "n", "event", "tail", "alpha", "u", "f_n", "delta_n", "b_n", "response")
        doc = {k: getattr(self, k) for k in keys}
        doc.update(
            p1=self.p1,
            p2=self.p2,
            provider_ratio=self.p1 / self.p2 if self.p2 > 0 else math.inf,
            star=self.star,
            f_star=self.f_star,
            f_star2=self.f_star2,
            delta_star=self.delta_star,
            b_star=self.b_star,
            quantile=self.quantile,
            bound=self.bound,
            bound_kind=self.bound_kind,
            bound_learned=self.bound_learned,
            violations=self.violations,
            e_epsilon=float(safe_exp(self.epsilon)),
            max_log10_ratio=float(np.max(np.abs(self.records["log10_ratio"].to_numpy()))),
        )
        return doc

    def riskiest(self, top: int = TOP_RECORDS) -> pd.DataFrame:
        """The ``top`` records with the largest |ln(p1/p3)| (ties: the earlier record), in file order.

        Example:
            >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
            >>> res.riskiest(2)["record"].tolist()
            [2, 6]
        """
        k = check_whole(top, name="top")
        rec = self.records
        if k >= len(rec):
            return rec
        score = np.abs(rec["log_ratio"].to_numpy())
        score = np.where(np.isnan(score), -np.inf, score)
        # The k largest scores; stable on ties so that the earlier record wins (O(n), no n-sized sort of rows).
        cut = np.partition(score, score.size - k)[score.size - k] if k > 0 else np.inf
        above = np.flatnonzero(score > cut)
        tied = np.flatnonzero(score == cut)[: k - above.size]
        return rec.iloc[np.sort(np.concatenate([above, tied]))]

    def to_dict(
        self, noun: str = "record", plural: str | None = None, *, top: int = TOP_RECORDS
    ) -> dict[str, Any]:
        """The audit as one JSON-able document: the summary, the z-test, the sentence, the riskiest records, the GS audit.

        ``records`` holds the ``top`` records with the largest ratio (in either direction), in file order, so the
        document stays small whatever n is; ``records_total`` and ``records_shown`` count them. Every record is in
        :attr:`records` (and in ``records.csv`` of an output folder).

        Example:
            >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
            >>> doc = res.to_dict("claim")
            >>> doc["violations"], len(doc["records"]), sorted(doc["hypothesis_test"])[:3]
            (1, 6, ['applies', 'centre', 'mean'])
        """
        shown = self.riskiest(top)
        doc = {
            **self.summary(),
            "hypothesis_test": self.hypothesis,
            "sentence": self.sentence(noun, plural),
            "records_total": self.n,
            "records_shown": len(shown),
            "records": shown.drop(columns=["log_ratio"]).to_dict(orient="records"),
        }
        if self.global_audit is not None:
            doc["global"] = {**self.global_audit.summary(), "sentence": self.global_sentence()}
        return doc

    def bound_text(self, digits: int = 4) -> str:
        """The bound on the missing record in words: "is at least 25.08", or "" when there is none."""
        if self.bound_kind == "none":
            return ""
        v = f"{self.bound:.{digits}g}"
        return {
            "at least": f"is at least {v}",
            "at most": f"is at most {v}",
            "distance at least": f"lies at least {v} from the mean of the others",
            "distance at most": f"lies within {v} of the mean of the others",
        }[self.bound_kind]

    def sentence(self, noun: str = "record", plural: str | None = None) -> str:
        """One plain sentence on what a single answer tells the intruder.

        Example:
            >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75)
            >>> res.sentence("claim")
            'An intruder holding the other 5 claims learns from one answer that the missing claim is at least 17.48 (99.99 % confidence).'
        """
        plural = plural or noun + "s"
        others = f"the other {self.n - 1:,} {plural}"
        conf = _confidence(self.alpha)
        if self.violations == 0:
            return (
                f"No single answer tells an intruder holding {others} more than e^ε = "
                f"{exp_text(self.epsilon)} times about the missing {noun}, whichever {noun} is missing."
            )
        if self.bound_learned:
            what = self.bound_text()
            return (
                f"An intruder holding {others} learns from one answer that the missing {noun} {what} "
                f"({conf} confidence)."
            )
        log10 = self.records["log10_ratio"].to_numpy()
        worst = int(np.nanargmax(np.abs(log10)))
        lr = float(log10[worst])
        how = "more" if lr > 0 else "less"
        return (
            f"An intruder holding {others} finds one answer {_times(lr)} {how} likely with {noun} "
            f"{int(self.records['record'].iloc[worst])} in the data than without it: beyond the e^ε = "
            f"{exp_text(self.epsilon)} that ε promises."
        )

    def global_sentence(self) -> str | None:
        """What the same answer tells with noise calibrated to the global sensitivity; None without a universe.

        Example:
            >>> res = audit_data_dependent([9.91, 9.16, 10.59, 11.27, 10.50, 100.0], "mean", 2, u=0.75,
            ...                            universe=(0, 100))
            >>> res.global_sentence()
            'With noise calibrated to the global sensitivity Δf = 50 over [0, 100] (scale 25), no ratio exceeds e^ε = 7.389 (largest 1.819).'
        """
        g = self.global_audit
        if g is None:
            return None
        e = exp_text(self.epsilon)
        if g.violations == 0:
            return (
                f"With noise calibrated to the global sensitivity Δf = {g.sensitivity:.4g} over {g.universe} "
                f"(scale {g.scale:.4g}), no ratio exceeds e^ε = {e} (largest {g.max_ratio:.4g})."
            )
        return f"With noise calibrated to the global sensitivity, {g.violations} ratios exceed e^ε = {e}."

    def quantile_sentence(self) -> str:
        """The intruder's numbers for X* and the (1 − α) quantile of the answer, with the bound it implies."""
        text = (
            f"Without record {self.star}: f_n−1(X*) = {self.f_star:.6g}, f_n−2(X*) = {self.f_star2:.6g}, "
            f"Δf_n−1(X*) = {self.delta_star:.4g}, b_n−1 = {self.b_star:.4g}; the {100 * (1 - self.alpha):.10g} % "
            f"quantile of the answer is {self.quantile:.7g}"
        )
        if self.bound_kind != "none":
            return text + f"; an answer beyond it means the missing value {self.bound_text(6)}."
        return text + "; no value of the missing record moves the query that far."

    def test_sentence(self) -> str:
        """The intruder's z-test in words (Sarathy and Muralidhar, §"A statistical perspective")."""
        h = self.hypothesis
        if not h["applies"]:
            return f"z-test of the intruder: not applicable to the {self.query} (no normal sampling distribution)."
        return (
            f"z-test of the intruder (Sarathy and Muralidhar 2009): the other {self.n - 1:,} records have mean {h['mean']:.4g} and "
            f"standard deviation {h['sd']:.4g}; the {self.query} from them is {h['centre']:.4g} with standard "
            f"error {h['se']:.3g}; z = {h['z']:.4g}, p = {h['p_value']:.3g}."
        )

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables an output folder holds: the intruder's Table 2, the provider's numbers, the GS audit."""
        out = {"records": self.records, "provider": pd.DataFrame([self.summary()])}
        if self.global_audit is not None:
            out["global"] = self.global_audit.records
        return out


def _confidence(alpha: float) -> str:
    return f"{100 * (1 - alpha):.10g} %"


def _times(log10_value: float) -> str:
    v = abs(float(log10_value))
    if v >= 6:
        return f"10^{v:.1f} times"
    return f"{10**v:,.3g} times"


def _frame(columns: dict[str, np.ndarray]) -> pd.DataFrame:
    """A table over the given vectors without copying them into one consolidated block (which doubles the peak)."""
    return pd.DataFrame(columns, copy=False)


def _response_for(f_n: float, b: float, u: float | None, response: float | None) -> float:
    if response is not None:
        return float(response)
    assert u is not None
    return f_n + laplace_quantile(u, b)


def _tail(r: float, f_n: float) -> Tail:
    return "upper" if r >= f_n else "lower"


def audit_data_dependent(
    values: ArrayLike,
    query: str,
    epsilon: float,
    *,
    u: float | None = None,
    response: float | None = None,
    event: Event = "tail",
    alpha: float = 1e-4,
    universe: Universe | tuple[float, float] | None = None,
    seed: int | None = None,
) -> AuditResult:
    """The intruder's audit of Laplace noise scaled to Δf_n(X) (Sarathy and Muralidhar 2009).

    Their Table 2, the bound on the missing record, the z-test and Figures 1a/1b and 2a/2b (which their text
    numbers 3a/3b; docs/errata.md). The provider answers r = f(X) + F⁻¹(u) with F⁻¹ the quantile
    function of Laplace(0, b_n), b_n = Δf_n(X)/ε. For every record i that an intruder might be missing, the
    intruder computes b_{n−1}(X₋ᵢ) from X₋ᵢ alone and compares p1 = P[f(X) + Lap(b_n) ≥ r] with
    p3ᵢ = P[f(X₋ᵢ) + Lap(b_{n−1}(X₋ᵢ)) ≥ r]; the record breaks differential privacy when p1/p3ᵢ or p3ᵢ/p1
    exceeds e^ε. Their z-test (§"A statistical perspective") and the bound on the missing record
    (n·q − (n − 1)·f(X*) for the mean; q − sum(X*) for the sum) come with it. With ``universe`` the same answer
    is audited with noise Δf/ε of the global sensitivity, where no ratio exceeds e^ε.

    Args:
        values: the records (at least three).
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        epsilon: ε > 0.
        u: the uniform draw behind the answer (Sarathy and Muralidhar take 0.75), in (0, 1).
        response: the answer r itself, instead of u.
        event: ``"tail"`` (as Sarathy and Muralidhar: the probability of an answer at least as far out as r) or
            ``"density"`` (the ratio of densities at r).
        alpha: 1 − confidence of the bound on the missing record (theirs: 0.0001, the 99.99th percentile).
        universe: a :class:`privrisk.Universe` or ``(lo, hi)``: also audit global-sensitivity noise.
        seed: draws u when neither u nor response is given (an audit, not a release: numpy's generator).

    Returns:
        An :class:`AuditResult`; ``records`` holds one row per possible missing record (numbered from 1).

    Raises:
        PrivriskError: fewer than three records, ε ≤ 0, u outside (0, 1), both u and response, an unknown query
            or event, α outside (0, 1/2), a seed that is not a whole number ≥ 0, values outside the universe.

    Example:
        >>> claims = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18,
        ...           9.45, 12.65, 9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08,
        ...           10.38, 12.32, 9.92, 100.0]               # Table 1 of Sarathy and Muralidhar (2009)
        >>> res = audit_data_dependent(claims, "mean", 2, u=0.75)
        >>> [round(v, 3) for v in (res.f_n, res.f_star, res.delta_n, res.b_n, res.response)]
        [13.312, 10.323, 2.989, 1.495, 14.348]
        >>> round(res.p1, 2), round(res.p2, 4), res.star, round(res.b_star, 3), round(res.bound, 3)
        (0.25, 0.0338, 30, 0.058, 25.075)
        >>> res.records["ratio"].round(2).tolist()[:3], res.violations
        ([0.91, 0.89, 0.92], 1)
    """
    q = cast(Query, check_query(query))
    x = _check_records(values)
    eps = check_epsilon(epsilon)
    ev = check_event(event)
    a = check_alpha(alpha)
    u = _check_u(u, response, seed)
    n = x.size

    lo = _leave_out(q, x)
    f_n, _, delta_n, star = _provider(q, x, lo)
    b_n = delta_n / eps
    r = _response_for(f_n, b_n, u, response)
    tail = _tail(r, f_n)

    f_without = lo.f
    b_without = lo.delta / eps
    lp1 = float(log_event(r, f_n, b_n, event=ev, tail=tail))
    p1 = float(safe_exp(lp1))
    lp2 = float(log_event(r, f_without[star], b_n, event=ev, tail=tail))

    centre, se = sampling_distribution(q, x, f_without)
    # Every per-record column is filled chunk by chunk: the temporaries of the log-space formulas stay at a few
    # MiB, and the table holds one vector per column (no n × k stacks, no copies).
    names = ("p3", "ratio", "log10_ratio", "log_ratio", "z", "p_test")
    cols = {name: np.empty(n) for name in names}
    violates = np.empty(n, dtype=bool)
    for start in range(0, n, _CHUNK):
        sl = slice(start, start + _CHUNK)
        lp3 = log_event(r, f_without[sl], b_without[sl], event=ev, tail=tail)
        log_ratio = log_p_ratio(lp1, lp3)
        cols["p3"][sl] = safe_exp(lp3)
        cols["ratio"][sl] = safe_exp(log_ratio)
        cols["log10_ratio"][sl] = log_ratio / math.log(10)
        cols["log_ratio"][sl] = log_ratio
        violates[sl] = breaks(log_ratio, eps)
        with np.errstate(divide="ignore", invalid="ignore"):
            z = (r - centre[sl]) / se[sl]
        cols["z"][sl] = z
        cols["p_test"][sl] = ndtr(-z) if tail == "upper" else ndtr(z)
    z, p_test = cols["z"], cols["p_test"]

    records = _frame(
        {
            "record": np.arange(1, n + 1),
            "value": x,
            "f_without": f_without,
            "delta_without": lo.delta,
            "b_without": b_without,
            "p3": cols["p3"],
            "ratio": cols["ratio"],
            "log10_ratio": cols["log10_ratio"],
            "log_ratio": cols["log_ratio"],
            "violates": violates,
            "test_centre": centre,
            "test_se": se,
            "z": z,
            "p_test": p_test,
        }
    )

    f_star, b_star = float(f_without[star]), float(b_without[star])
    level = 1 - a if tail == "upper" else a
    quantile = f_star + (laplace_quantile(level, b_star) if b_star > 0 else 0.0)
    rest = np.delete(x, star)
    bound, bound_kind = missing_bound(q, rest, quantile, tail)
    hypothesis = {
        "record": star + 1,
        "mean": float(np.mean(rest)),
        "sd": float(np.std(rest, ddof=1)),
        "centre": float(centre[star]),
        "se": float(se[star]),
        "z": float(z[star]),
        "p_value": float(p_test[star]),
        "applies": bool(np.isfinite(se[star])),
    }

    global_audit = None
    if universe is not None:
        global_audit = _global_audit(q, x, eps, universe, u, response, f_n, f_without, ev)

    return AuditResult(
        query=q,
        epsilon=eps,
        n=n,
        event=ev,
        tail=tail,
        alpha=a,
        u=u,
        f_n=f_n,
        delta_n=delta_n,
        b_n=b_n,
        response=r,
        p1=p1,
        p2=float(safe_exp(lp2)),
        star=star + 1,
        f_star=f_star,
        f_star2=float(lo.f2[star]),
        delta_star=float(lo.delta[star]),
        b_star=b_star,
        quantile=float(quantile),
        bound=float(bound),
        bound_kind=bound_kind,
        records=records,
        hypothesis=hypothesis,
        global_audit=global_audit,
    )


def _global_audit(
    q: str,
    x: np.ndarray,
    eps: float,
    universe: Universe | tuple[float, float],
    u: float | None,
    response: float | None,
    f_n: float,
    f_without: np.ndarray,
    event: Event,
) -> GlobalAudit:
    uni = as_universe(universe)
    uni.check_sample(x, name="values")
    gs = global_sensitivity(q, uni)
    if gs <= 0:
        raise PrivriskError(
            f"universe: the global sensitivity of the {q} over {uni.describe()} is 0", param="universe"
        )
    b = gs / eps
    r = _response_for(f_n, b, u, response)
    tail = _tail(r, f_n)
    lp1 = float(log_event(r, f_n, b, event=event, tail=tail))
    n = x.size
    p3, ratio, log_ratio = np.empty(n), np.empty(n), np.empty(n)
    violates = np.empty(n, dtype=bool)
    for start in range(0, n, _CHUNK):
        sl = slice(start, start + _CHUNK)
        lp3 = log_event(r, f_without[sl], b, event=event, tail=tail)
        lr = log_p_ratio(lp1, lp3)
        p3[sl], ratio[sl], log_ratio[sl] = safe_exp(lp3), safe_exp(lr), lr
        violates[sl] = breaks(lr, eps)
    records = _frame(
        {
            "record": np.arange(1, n + 1),
            "value": x,
            "f_without": f_without,
            "p3": p3,
            "ratio": ratio,
            "log_ratio": log_ratio,
            "violates": violates,
        }
    )
    return GlobalAudit(uni.describe(), float(gs), float(b), float(r), float(safe_exp(lp1)), records)


def audit_sweep(
    values: ArrayLike,
    query: str,
    epsilon: float,
    record: int,
    sweep_values: ArrayLike,
    *,
    u: float | None = None,
    response: float | None = None,
    event: Event = "tail",
    seed: int | None = None,
) -> pd.DataFrame:
    """The intruder's ratio for one missing record as its value varies (Sarathy and Muralidhar 2009, Table 3).

    For every value v the record (numbered from 1) is set to v, the provider's answer is recomputed with the same
    u (or the same response), and the intruder who lacks that record computes p3 from the other records. At
    x₃₀ = 40 the formulas give 5239075290.9 where their Table 3 prints 5239083064 (docs/errata.md).

    Args:
        values: the records (at least three).
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        epsilon: ε > 0.
        record: the record whose value varies, numbered from 1.
        sweep_values: the values it takes, at least one, finite.
        u: the uniform draw behind the answer, in (0, 1).
        response: the answer r itself, instead of u.
        event: ``"tail"`` or ``"density"``, as in :func:`audit_data_dependent`.
        seed: draws u when neither u nor response is given.

    Returns:
        One row per value: ``value``, ``f_n``, ``b_n``, ``response``, ``p1``, ``p3``, ``ratio``,
        ``log10_ratio``, ``violates``.

    Raises:
        PrivriskError: as :func:`audit_data_dependent`; a record number outside 1 … n; no sweep values.

    Example:
        >>> claims = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18,
        ...           9.45, 12.65, 9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08,
        ...           10.38, 12.32, 9.92, 100.0]
        >>> audit_sweep(claims, "mean", 2, 30, [14, 20, 30], u=0.75)["ratio"].round().tolist()    # Table 3
        [9.0, 925.0, 2201886.0]
    """
    q = check_query(query)
    x = _check_records(values)
    eps = check_epsilon(epsilon)
    ev = check_event(event)
    if int(record) != record or not (1 <= record <= x.size):
        raise PrivriskError(
            f"record: there is no record {record}; records are numbered 1 to {x.size}", param="record"
        )
    idx = int(record) - 1
    vs = np.asarray(sweep_values, dtype=float).ravel()
    if vs.size == 0 or np.any(~np.isfinite(vs)):
        raise PrivriskError("sweep_values: give at least one finite number", param="sweep_values")
    u = _check_u(u, response, seed)
    rest = np.delete(x, idx)
    # The intruder's side does not depend on the swept value.
    f_rest = float(evaluate(q, rest))
    b_rest = _provider(q, rest).delta / eps
    rows = []
    for v in vs:
        y = x.copy()
        y[idx] = v
        f_n, _, delta_n, _ = _provider(q, y)
        b_n = delta_n / eps
        r = _response_for(f_n, b_n, u, response)
        tail = _tail(r, f_n)
        lp1 = float(log_event(r, f_n, b_n, event=ev, tail=tail))
        lp3 = float(log_event(r, f_rest, b_rest, event=ev, tail=tail))
        lr = float(log_p_ratio(lp1, lp3))
        rows.append(
            {
                "value": float(v),
                "f_n": f_n,
                "b_n": b_n,
                "response": r,
                "p1": float(safe_exp(lp1)),
                "p3": float(safe_exp(lp3)),
                "ratio": float(safe_exp(lr)),
                "log10_ratio": lr / math.log(10),
                "violates": bool(breaks(lr, eps)),
            }
        )
    return pd.DataFrame(rows)
