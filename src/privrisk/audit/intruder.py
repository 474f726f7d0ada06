"""The intruder's audit of noise scaled to a data-dependent sensitivity, and leakage through derived queries (003).

Sarathy and Muralidhar (003) take a provider who answers a query f with Laplace noise whose scale comes from the
data at hand, b_n = Δf_n(X)/ε with Δf_n(X) = maxᵢ |f(X) − f(X₋ᵢ)|, and look at it from the side of an intruder
who holds every record but one. The intruder computes the scale the provider would have used without the
missing record, b_{n−1}(X₋ᵢ), and compares the probability of the answer r seen under the full data (p1) with its
probability under X₋ᵢ and b_{n−1} (p3ᵢ). When the missing record is the outlier that set b_n, p3 is nearly zero
and p1/p3 breaks e^ε by orders of magnitude (Table 2 and Table 3 of 003); noise calibrated to a global
sensitivity does not (|f(X) − f(X₋ᵢ)| ≤ Δf, so every ratio stays within e^ε).

How the quantities of 003 are defined here (each checked against the paper's printed numbers)
-------------------------------------------------------------------------------------------
- Δf_n(X) is a *removal-only* local sensitivity: the largest change one record of X makes when it is left out
  (eq. 2 of Dwork 2006 as 003 reads it). It is not the local sensitivity of ``privrisk.local_sensitivity``,
  which also adds universe values. X* is X without the record that reaches it; ties go to the last record in
  file order (003's Table 4 takes X* = (1, …, 9) for X = (1, …, 10), where leaving out 1 or 10 changes the
  mean by the same 0.5).
- b_{n−1}(X₋ᵢ) = Δf_{n−1}(X₋ᵢ)/ε with Δf_{n−1}(X₋ᵢ) = maxⱼ≠ᵢ |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)| (003: f_{n−2}(X*) = 10.439
  is the mean without records 30 and 21, Δf_{n−1}(X*) = 0.115, b_{n−1} = 0.058).
- The answer is r = f(X) + F⁻¹(u) with F⁻¹ the Laplace(0, b_n) quantile function. The event ("tail") is the
  answer's tail on the side where r fell: p1 = P[f(X) + Lap(b_n) ≥ r] = 1 − u for u ≥ 1/2 (003: 0.25), and the
  lower tail for u < 1/2. p2 uses X* with the provider's b_n (003: 0.0338); p3ᵢ uses X₋ᵢ with b_{n−1}(X₋ᵢ).
  ``event="density"`` compares the two densities at r instead of the tails.
- A record is marked as breaking differential privacy when p1/p3ᵢ > e^ε or p3ᵢ/p1 > e^ε: the definition bounds
  both directions, 003's Table 2 prints only the first.

Why the leave-one-out and leave-two-out values take O(n log n)
-------------------------------------------------------------
For a fixed missing record i, every query here evaluated on X₋ᵢ₋ⱼ is monotone in xⱼ (count, sum, mean, median,
min, max) or a decreasing function of (xⱼ − mean(X₋ᵢ))² (variance, std). The largest |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)| is
therefore reached at the smallest or largest other record, or, for the spread, at the other record nearest the
mean of X₋ᵢ. After one sort every candidate and every leave-two-out value is an O(1) expression of order
statistics, prefix moments and the record's rank, so the whole per-record table is vectorised numpy. The tests
check it against brute-force leave-two-out enumeration.

Errata of 003 (the tests use the consistent values)
--------------------------------------------------
- Table 3, x₃₀ = 40: the formulas give p1/p3 = 5.23908·10⁹ (5239075291); 003 prints 5239083064. The first
  four digits agree (DESIGN.md).
- The hypothesis test's standard error divides the standard deviation of the 29 known claims by √29 (the
  sample the intruder holds), not √30; we follow 003.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
import pandas as pd
from scipy.special import ndtr

from privrisk.errors import PrivriskError
from privrisk.sensitivity import as_universe, check_query, evaluate, global_sensitivity

__all__ = [
    "AuditResult",
    "DerivedScale",
    "GlobalAudit",
    "audit_data_dependent",
    "audit_sweep",
    "data_dependent_sensitivity",
    "derived_scale",
    "leave_one_out",
]

Event = Literal["tail", "density"]

# Queries whose value on X ∪ {x} is monotone in x: the lower bound for the missing record exists for them.
_LINEAR = {"count", "sum", "mean"}


# --------------------------------------------------------------------------------------------------------------
# Leave-one-out and leave-two-out values, vectorised
# --------------------------------------------------------------------------------------------------------------


def _check_values(values, *, minimum: int = 3) -> np.ndarray:
    x = np.asarray(values, dtype=float).ravel()
    if np.any(~np.isfinite(x)):
        raise PrivriskError("values: contain NaN or infinite values; drop missing values first")
    if x.size < minimum:
        raise PrivriskError(
            f"values: the audit needs at least {minimum} records (the intruder's own data set leaves one "
            f"out and then one more), got {x.size}"
        )
    return x


def _order_stat(s: np.ndarray, j, removed: tuple[np.ndarray, ...]) -> np.ndarray:
    """The j-th smallest (0-based) of sorted s after removing the sorted positions in ``removed`` (ascending)."""
    idx = np.asarray(j, dtype=np.int64)
    for r in removed:
        idx = idx + (idx >= r)
    return s[idx]


def _median_removed(s: np.ndarray, removed: tuple[np.ndarray, ...]) -> np.ndarray:
    m = s.size - len(removed)
    return (_order_stat(s, (m - 1) // 2, removed) + _order_stat(s, m // 2, removed)) / 2


def _leave_out(query: str, x: np.ndarray) -> dict[str, np.ndarray]:
    """For every record i: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ), and f(X₋ᵢ₋ⱼ) and j for the j that reaches it.

    Returns a dict of arrays in file order: ``f`` (f(X₋ᵢ)), ``delta`` (Δf_{n−1}(X₋ᵢ)), ``f2`` (f(X₋ᵢ₋ⱼ*)),
    ``j`` (0-based index of the record j*), all of length n.
    """
    n = x.size
    order = np.argsort(x, kind="stable")
    s = x[order]
    k = np.empty(n, dtype=np.int64)
    k[order] = np.arange(n)  # sorted position of each record
    # The smallest and the largest of the other records, as sorted positions.
    lo_other = np.where(k == 0, 1, 0)
    hi_other = np.where(k == n - 1, n - 2, n - 1)
    cand = [lo_other, hi_other]

    if query == "count":
        f = np.full(n, n - 1.0)
        g = [np.full(n, n - 2.0), np.full(n, n - 2.0)]
    elif query == "sum":
        total = math.fsum(x)
        f = total - x
        g = [f - s[c] for c in cand]
    elif query == "mean":
        mu = float(np.mean(x))
        d = x - mu
        f = mu - d / (n - 1)
        g = [mu - (d + (s[c] - mu)) / (n - 2) for c in cand]
    elif query in ("min", "max"):
        # The min of X₋ᵢ and of X₋ᵢ₋ⱼ from the first three order statistics (max: the min of −x). Only removing
        # the smallest other record moves the min of X₋ᵢ; removing any other record leaves it.
        t = s if query == "min" else -s[::-1]
        kk = k if query == "min" else n - 1 - k
        first = np.where(kk == 0, t[1], t[0])
        second = np.where(kk <= 1, t[2], t[1])
        sign = 1.0 if query == "min" else -1.0
        lo_t = np.where(kk == 0, 1, 0)
        f = sign * first
        cand = [lo_t if query == "min" else n - 1 - lo_t]
        g = [sign * second]
    elif query == "median":
        f = _median_removed(s, (k,))
        g = []
        for c in cand:
            a, b = np.minimum(k, c), np.maximum(k, c)
            g.append(_median_removed(s, (a, b)))
    else:  # variance and std
        f, g, cand = _spread_leave_out(s, k, query)
    g_arr = np.stack(g)
    diff = np.abs(g_arr - f[None, :])
    best = np.argmax(diff, axis=0)
    cols = np.arange(n)
    c_arr = np.stack(cand)
    return {
        "f": f,
        "delta": diff[best, cols],
        "f2": g_arr[best, cols],
        "j": order[c_arr[best, cols]],
    }


def _spread_leave_out(s: np.ndarray, k: np.ndarray, query: str):
    """Variance (ddof = 0) or std of X₋ᵢ and of X₋ᵢ₋ⱼ for the three candidate records j of each i."""
    n = s.size
    mu = float(np.mean(s))
    d = s - mu
    ss = float(np.sum(d * d))
    m = n - 1
    di = d[k]
    mu_i = mu - di / m
    ss_i = np.maximum(ss - di * di * n / m, 0.0)
    # The other record nearest the mean of X₋ᵢ: among the sorted neighbours of that mean, skipping i itself.
    p = np.searchsorted(s, mu_i)
    near_pos = np.stack([np.clip(p + o, 0, n - 1) for o in (-2, -1, 0, 1)])
    dist = np.abs(s[near_pos] - mu_i[None, :])
    dist = np.where(near_pos == k[None, :], np.inf, dist)
    nearest = near_pos[np.argmin(dist, axis=0), np.arange(n)]
    cand = [np.where(k == 0, 1, 0), np.where(k == n - 1, n - 2, n - 1), nearest]
    # Removing j from X₋ᵢ (m records, mean μᵢ): SS falls by (xⱼ − μᵢ)²·m/(m − 1).
    ss_ij = [np.maximum(ss_i - (s[c] - mu_i) ** 2 * m / (m - 1), 0.0) for c in cand]
    ss_i, ss_ij = _recompute_cancelled(s, k, cand, ss, ss_i, ss_ij)
    var_i = ss_i / m
    var_ij = [v / (m - 1) for v in ss_ij]
    if query == "std":
        return np.sqrt(var_i), [np.sqrt(v) for v in var_ij], cand
    return var_i, var_ij, cand


def _exact_ss(s: np.ndarray, removed: list[np.ndarray], *, chunk: int = 256) -> np.ndarray:
    """Σ(x − mean)² of sorted s without the given positions, one row per entry of the position arrays."""
    n, rows = s.size, removed[0].size
    out = np.empty(rows)
    for start in range(0, rows, chunk):
        sl = slice(start, start + chunk)
        at = np.arange(min(chunk, rows - start))
        keep = np.ones((at.size, n), dtype=bool)
        for pos in removed:
            keep[at, pos[sl]] = False
        vals = np.broadcast_to(s, keep.shape)[keep].reshape(at.size, n - len(removed))
        out[sl] = np.sum((vals - vals.mean(axis=1, keepdims=True)) ** 2, axis=1)
    return out


def _recompute_cancelled(s, k, cand, ss, ss_i, ss_ij, *, max_unique: int = 4096):
    """Recompute exactly the sums of squares that the update formulas get by cancellation.

    Subtracting a record's share from a total leaves a rounding residue of about 1e−16 of that total: harmless
    for the variance, but the std's square root would turn an exact 0 into 1e−8·σ. Two cases are recomputed:

    - X₋ᵢ nearly constant (SS(X₋ᵢ) < 1e−4·SS): record i carries over 99.99 % of SS, so there is one such record
      (or a few when n is tiny); it and its leave-two-out values are recomputed directly, O(n) each.
    - X₋ᵢ₋ⱼ nearly constant (< 1e−9·SS(X₋ᵢ)). Rows that leave out the same two *values* have the same remainder,
      so each distinct pair is computed once: data such as 10⁵ zeros and a single 1 cost one O(n) pass, not n.
      Only if more than ``max_unique`` distinct pairs qualify (nearly constant but untied data) is the residue
      of at most 1e−8·σ kept.
    """
    rows = np.flatnonzero(ss_i < 1e-4 * ss)
    if rows.size:
        ss_i[rows] = _exact_ss(s, [k[rows]])
        for c, v in zip(cand, ss_ij, strict=True):
            v[rows] = _exact_ss(s, [k[rows], c[rows]])
    for c, v in zip(cand, ss_ij, strict=True):
        bad = np.flatnonzero(v < 1e-9 * ss_i)
        bad = bad[~np.isin(bad, rows)]
        if bad.size == 0:
            continue
        pairs = np.stack([s[k[bad]], s[c[bad]]], axis=1)
        _, first, inverse = np.unique(pairs, axis=0, return_index=True, return_inverse=True)
        if first.size > max_unique:
            continue
        reps = bad[first]
        v[bad] = _exact_ss(s, [k[reps], c[reps]])[np.ravel(inverse)]
    return ss_i, ss_ij


def leave_one_out(values, query: str) -> pd.DataFrame:
    """The intruder's view of every record: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ) and f_{n−2} (003, §"The correct perspective").

    One row per record (``record`` numbered from 1, as 003's tables): ``value``, ``f_without`` = f(X₋ᵢ),
    ``delta_without`` = Δf_{n−1}(X₋ᵢ) = maxⱼ≠ᵢ |f(X₋ᵢ) − f(X₋ᵢ₋ⱼ)|, ``f_without_two`` = f(X₋ᵢ₋ⱼ) and
    ``next_record`` = j for the record j that reaches it. O(n log n) for every query.

    Args:
        values: the records, at least three.
        query: one of ``count, sum, mean, median, min, max, variance, std``.

    Example:
        >>> t = leave_one_out([1, 2, 3, 4, 10], "mean")
        >>> t.loc[4, ["f_without", "delta_without", "f_without_two", "next_record"]].tolist()
        [2.5, 0.5, 3.0, 1.0]
    """
    q = check_query(query)
    x = _check_values(values)
    lo = _leave_out(q, x)
    return pd.DataFrame(
        {
            "record": np.arange(1, x.size + 1),
            "value": x,
            "f_without": lo["f"],
            "delta_without": lo["delta"],
            "f_without_two": lo["f2"],
            "next_record": lo["j"] + 1,
        }
    )


def _provider(q: str, x: np.ndarray, lo: dict | None = None) -> tuple[float, np.ndarray, float, int]:
    """f(X), |f(X) − f(X₋ᵢ)| for all i, Δf_n(X) and X*'s missing record (0-based; ties go to the last record)."""
    f_n = float(evaluate(q, x))
    if lo is None:
        lo = _leave_out(q, x)
    change = np.abs(lo["f"] - f_n)
    delta = float(change.max())
    star = int(x.size - 1 - np.argmax(change[::-1] >= delta))
    return f_n, change, delta, star


def data_dependent_sensitivity(values, query: str) -> float:
    """Δf_n(X) = maxᵢ |f(X) − f(X₋ᵢ)|, the data-dependent sensitivity 003 (eq. 2 of Dwork 2006) scales noise by.

    The largest change one record makes by leaving; unlike :func:`privrisk.local_sensitivity` it adds no
    universe values, so it needs no universe (and is why it leaks).

    Example:
        >>> round(data_dependent_sensitivity([9.91, 9.16, 10.59, 100.0], "mean"), 3)
        22.528
    """
    q = check_query(query)
    x = _check_values(values, minimum=2)
    f_n = float(evaluate(q, x))
    if x.size == 2:
        return float(max(abs(f_n - evaluate(q, x[:1])), abs(f_n - evaluate(q, x[1:]))))
    return _provider(q, x)[2]


# --------------------------------------------------------------------------------------------------------------
# Laplace tails and densities in log space
# --------------------------------------------------------------------------------------------------------------


def _laplace_quantile(u: float, b: float) -> float:
    """F⁻¹(u) of Laplace(0, b)."""
    return b * math.log(2 * u) if u < 0.5 else -b * math.log(2 * (1 - u))


def _log_upper(r, mu, b) -> np.ndarray:
    """log P[μ + Lap(b) ≥ r]; b = 0 is the point mass at μ."""
    r, mu, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (r, mu, b)))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        z = (r - mu) / b
        cont = np.where(z >= 0, math.log(0.5) - z, np.log1p(-0.5 * np.exp(np.minimum(z, 0.0))))
        point = np.where(mu >= r, 0.0, -np.inf)
    return np.where(b > 0, cont, point)


def _log_event(r, mu, b, *, event: str, tail: str) -> np.ndarray:
    """The log probability (tail) or log density of the answer r under μ + Lap(b)."""
    if event == "density":
        r, mu, b = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (r, mu, b)))
        with np.errstate(divide="ignore", invalid="ignore"):
            cont = -np.log(2 * b) - np.abs(r - mu) / b
            point = np.where(mu == r, np.inf, -np.inf)
        return np.where(b > 0, cont, point)
    if tail == "upper":
        return _log_upper(r, mu, b)
    return _log_upper(-np.asarray(r, dtype=float), -np.asarray(mu, dtype=float), b)


def _log_ratio(lp1, lp3) -> np.ndarray:
    """ln(p1/p3); equal logs (both impossible, both certain) give 0, never NaN."""
    with np.errstate(invalid="ignore"):
        return np.where(lp1 == lp3, 0.0, np.asarray(lp1) - np.asarray(lp3))


def _breaks(log_ratio, epsilon: float) -> np.ndarray:
    # A tolerance so that a ratio of exactly e^ε (the global-sensitivity mechanism at its bound) is not flagged.
    return np.abs(log_ratio) > epsilon * (1 + 1e-9) + 1e-12


def _exp(log_value) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.exp(log_value)


# --------------------------------------------------------------------------------------------------------------
# The hypothesis-test attack and the bound for the missing record
# --------------------------------------------------------------------------------------------------------------


def _sampling_distribution(q: str, x: np.ndarray, f_without: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Centre and standard error of the statistic the intruder expects from X₋ᵢ, for every i (NaN: no test).

    mean: mean(X₋ᵢ) and sd/√(n − 1) with the sample sd (ddof = 1), as 003 (10.32, 1.377, 0.256); sum: n times
    the mean's (sum = n·mean); median: √(π/2)·sd/√(n − 1) (its normal-theory standard error); variance:
    √((m₄ − s⁴)/(n − 1)) with the fourth central moment m₄ (distribution-free); std: the delta method,
    se(variance)/(2·std). count, min and max have no normal sampling distribution: NaN.
    """
    n = x.size
    m = n - 1
    if q in ("count", "min", "max"):
        nan = np.full(n, np.nan)
        return nan, nan
    mu = float(np.mean(x))
    d = x - mu
    p2, p3, p4 = (float(np.sum(d**e)) for e in (2, 3, 4))
    delta = -d / m  # mean(X₋ᵢ) − mean(X)
    s1 = -d  # Σ over the others of d
    s2 = p2 - d**2
    mean_i = mu + delta
    ss_i = np.maximum(s2 - m * delta**2, 0.0)
    sd_i = np.sqrt(ss_i / (m - 1))
    se_mean = sd_i / math.sqrt(m)
    if q == "mean":
        return mean_i, se_mean
    if q == "sum":
        return n * mean_i, n * se_mean
    if q == "median":
        return f_without, math.sqrt(math.pi / 2) * se_mean
    s3, s4 = p3 - d**3, p4 - d**4
    # Σ(d − δ)⁴ over the others, expanded.
    m4 = (s4 - 4 * delta * s3 + 6 * delta**2 * s2 - 4 * delta**3 * s1 + m * delta**4) / m
    var_i = ss_i / m
    se_var = np.sqrt(np.maximum(m4 - var_i**2, 0.0) / m)
    if q == "variance":
        return f_without, se_var
    with np.errstate(divide="ignore", invalid="ignore"):
        return f_without, np.where(var_i > 0, se_var / (2 * np.sqrt(var_i)), np.nan)


def _missing_bound(q: str, rest: np.ndarray, level: float, tail: str) -> tuple[float, str]:
    """The value of the missing record x at which f(rest ∪ {x}) reaches the quantile ``level``.

    Returns (bound, kind) with kind ``"at least"``, ``"at most"``, ``"distance at least"`` (|x − mean| for the
    variance and std), ``"distance at most"``, or (NaN, ``"none"``) when no value of x reaches it.
    """
    m = rest.size
    n = m + 1
    upper = tail == "upper"
    side = "at least" if upper else "at most"
    if q == "mean":
        return n * level - m * float(np.mean(rest)), side
    if q == "sum":
        return level - math.fsum(rest), side
    # max(rest ∪ {x}) ≥ max(rest) whatever x is: only a level above it says something about x (min: mirrored).
    if q == "max":
        top = float(np.max(rest))
        return (level, side) if (level > top if upper else level >= top) else (math.nan, "none")
    if q == "min":
        bottom = float(np.min(rest))
        return (level, side) if (level <= bottom if upper else level < bottom) else (math.nan, "none")
    if q == "median":
        s = np.concatenate([[-math.inf], np.sort(rest), [math.inf]])
        ja, jb = m // 2, (m + 1) // 2  # the middle order statistics of the m + 1 values, 0-based

        def med(v: float) -> float:
            # The j-th smallest of rest ∪ {v} is v clipped to [rest's (j−1)-th, rest's j-th].
            return (min(max(v, s[ja]), s[ja + 1]) + min(max(v, s[jb]), s[jb + 1])) / 2

        lo_v, hi_v = float(s[1]) - 1.0, float(s[-2]) + 1.0
        # No bound when no value of x reaches the level, or when every value does.
        if not (med(lo_v) <= level <= med(hi_v)) or (med(lo_v) >= level if upper else med(hi_v) <= level):
            return math.nan, "none"
        # Monotone and piecewise linear in x: bisection to the smallest (largest) x reaching the level.
        a, b = lo_v, hi_v
        for _ in range(200):
            mid = (a + b) / 2
            if (med(mid) >= level) if upper else (med(mid) > level):
                b = mid
            else:
                a = mid
        return (b if upper else a), side
    if q in ("variance", "std"):
        target = level * level if q == "std" else level
        var = float(np.var(rest))
        # var(rest ∪ {x}) = m/(m+1)·(var + (x − μ)²/(m + 1))
        need = (m + 1) * ((m + 1) * target / m - var)
        if need <= 0:  # every x reaches the level (upper) or none does (lower): nothing to state
            return math.nan, "none"
        return math.sqrt(need), ("distance at least" if upper else "distance at most")
    return math.nan, "none"


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
        return float(_exp(np.max(np.abs(self.records["log_ratio"]))))

    @property
    def violations(self) -> int:
        return int(self.records["violates"].sum())


@dataclass(frozen=True)
class AuditResult:
    """What :func:`audit_data_dependent` finds: the provider's view, the intruder's view of every record.

    Scalars follow 003's names: ``f_n`` = f(X), ``delta_n`` = Δf_n(X), ``b_n``, ``response`` = r, ``p1``, ``p2``,
    ``star`` (the record X* leaves out, numbered from 1), ``f_star`` = f_{n−1}(X*), ``f_star2`` = f_{n−2}(X*),
    ``delta_star`` = Δf_{n−1}(X*), ``b_star`` = b_{n−1}(X*), ``quantile`` (the (1 − α) quantile of the answer
    under X* and b_{n−1}) and ``bound`` (what the intruder may state about the missing record, ``bound_kind``).
    ``records`` is Table 2 (one row per possible missing record), ``hypothesis`` the z-test for X*.
    """

    query: str
    epsilon: float
    n: int
    event: str
    tail: str
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
    bound_kind: str
    records: pd.DataFrame = field(repr=False)
    hypothesis: dict = field(repr=False)
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

    def summary(self) -> dict:
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
            e_epsilon=math.exp(self.epsilon),
            max_log10_ratio=float(np.max(np.abs(self.records["log10_ratio"]))),
        )
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
                f"{math.exp(self.epsilon):.4g} times about the missing {noun}, whichever {noun} is missing."
            )
        if self.bound_learned:
            what = self.bound_text()
            return (
                f"An intruder holding {others} learns from one answer that the missing {noun} {what} "
                f"({conf} confidence)."
            )
        worst = self.records.loc[self.records["log10_ratio"].abs().idxmax()]
        lr = float(worst["log10_ratio"])
        how = "more" if lr > 0 else "less"
        return (
            f"An intruder holding {others} finds one answer {_times(lr)} {how} likely with {noun} "
            f"{int(worst['record'])} in the data than without it: beyond the e^ε = {math.exp(self.epsilon):.4g} "
            "that ε promises."
        )

    def tables(self) -> dict[str, pd.DataFrame]:
        """The tables an ``--out`` folder holds: the intruder's Table 2, the provider's numbers, the GS audit."""
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


def _response_for(f_n: float, b: float, u: float | None, response: float | None) -> float:
    if response is not None:
        return float(response)
    assert u is not None
    return f_n + _laplace_quantile(u, b)


def audit_data_dependent(
    values,
    query: str,
    epsilon: float,
    *,
    u: float | None = None,
    response: float | None = None,
    event: Event = "tail",
    alpha: float = 1e-4,
    universe=None,
    seed: int | None = None,
) -> AuditResult:
    """The intruder's audit of Laplace noise scaled to Δf_n(X) (003: Table 2, the bound, the z-test, Figures 1–2).

    The provider answers r = f(X) + F⁻¹(u) with F⁻¹ the quantile function of Laplace(0, b_n), b_n = Δf_n(X)/ε.
    For every record i that an intruder might be missing, the intruder computes b_{n−1}(X₋ᵢ) from X₋ᵢ alone
    and compares p1 = P[f(X) + Lap(b_n) ≥ r] with p3ᵢ = P[f(X₋ᵢ) + Lap(b_{n−1}(X₋ᵢ)) ≥ r]; the record
    breaks differential privacy when p1/p3ᵢ or p3ᵢ/p1 exceeds e^ε. The z-test of 003 (§"A statistical
    perspective") and the bound on the missing record (n·q − (n − 1)·f(X*) for the mean; q − sum(X*) for the
    sum) come with it. With ``universe`` the same answer is audited with noise Δf/ε of the global sensitivity,
    where no ratio exceeds e^ε.

    Args:
        values: the records (at least three).
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        epsilon: ε > 0.
        u: the uniform draw behind the answer (003 takes 0.75), in (0, 1).
        response: the answer r itself, instead of u.
        event: ``"tail"`` (003: the probability of an answer at least as far out as r) or ``"density"`` (the
            ratio of densities at r).
        alpha: 1 − confidence of the bound on the missing record (003: 0.0001, the 99.99th percentile).
        universe: a :class:`privrisk.Universe` or ``(lo, hi)``: also audit global-sensitivity noise.
        seed: draws u when neither u nor response is given (an audit, not a release: numpy's generator).

    Returns:
        An :class:`AuditResult`; ``records`` holds one row per possible missing record (numbered from 1).

    Raises:
        PrivriskError: fewer than three records, ε ≤ 0, u outside (0, 1), both u and response, an unknown query
            or event, α outside (0, 1/2), values outside the universe.

    Example:
        >>> claims = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18,
        ...           9.45, 12.65, 9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08,
        ...           10.38, 12.32, 9.92, 100.0]                                     # Table 1 of 003
        >>> res = audit_data_dependent(claims, "mean", 2, u=0.75)
        >>> [round(v, 3) for v in (res.f_n, res.f_star, res.delta_n, res.b_n, res.response)]
        [13.312, 10.323, 2.989, 1.495, 14.348]
        >>> round(res.p1, 2), round(res.p2, 4), res.star, round(res.b_star, 3), round(res.bound, 3)
        (0.25, 0.0338, 30, 0.058, 25.075)
        >>> res.records["ratio"].round(2).tolist()[:3], res.violations
        ([0.91, 0.89, 0.92], 1)
    """
    q = check_query(query)
    x = _check_values(values)
    eps = _check_epsilon(epsilon)
    if event not in ("tail", "density"):
        raise PrivriskError(f"event: must be 'tail' or 'density', got {event!r}")
    if not (0 < alpha < 0.5):
        raise PrivriskError(f"alpha: must lie in (0, 0.5), got {alpha:g}")
    u = _check_u(u, response, seed)
    n = x.size

    lo = _leave_out(q, x)
    f_n, _, delta_n, star = _provider(q, x, lo)
    b_n = delta_n / eps
    r = _response_for(f_n, b_n, u, response)
    tail = "upper" if r >= f_n else "lower"

    f_without = lo["f"]
    b_without = lo["delta"] / eps
    lp1 = float(_log_event(r, f_n, b_n, event=event, tail=tail))
    lp3 = _log_event(r, f_without, b_without, event=event, tail=tail)
    log_ratio = _log_ratio(lp1, lp3)
    p1 = float(_exp(lp1))
    lp2 = float(_log_event(r, f_without[star], b_n, event=event, tail=tail))

    centre, se = _sampling_distribution(q, x, f_without)
    with np.errstate(divide="ignore", invalid="ignore"):
        z = (r - centre) / se
    p_test = ndtr(-z) if tail == "upper" else ndtr(z)

    records = pd.DataFrame(
        {
            "record": np.arange(1, n + 1),
            "value": x,
            "f_without": f_without,
            "delta_without": lo["delta"],
            "b_without": b_without,
            "p3": _exp(lp3),
            "ratio": _exp(log_ratio),
            "log10_ratio": log_ratio / math.log(10),
            "log_ratio": log_ratio,
            "violates": _breaks(log_ratio, eps),
            "test_centre": centre,
            "test_se": se,
            "z": z,
            "p_test": p_test,
        }
    )

    f_star, b_star = float(f_without[star]), float(b_without[star])
    level = 1 - alpha if tail == "upper" else alpha
    quantile = f_star + (_laplace_quantile(level, b_star) if b_star > 0 else 0.0)
    bound, bound_kind = _missing_bound(q, np.delete(x, star), quantile, tail)
    rest = np.delete(x, star)
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
        global_audit = _global_audit(q, x, eps, universe, u, response, f_n, f_without, event)

    return AuditResult(
        query=q,
        epsilon=eps,
        n=n,
        event=event,
        tail=tail,
        alpha=float(alpha),
        u=u,
        f_n=f_n,
        delta_n=delta_n,
        b_n=b_n,
        response=r,
        p1=p1,
        p2=float(_exp(lp2)),
        star=star + 1,
        f_star=f_star,
        f_star2=float(lo["f2"][star]),
        delta_star=float(lo["delta"][star]),
        b_star=b_star,
        quantile=float(quantile),
        bound=float(bound),
        bound_kind=bound_kind,
        records=records,
        hypothesis=hypothesis,
        global_audit=global_audit,
    )


def _global_audit(q, x, eps, universe, u, response, f_n, f_without, event) -> GlobalAudit:
    uni = as_universe(universe)
    uni.check_sample(x, name="values")
    gs = global_sensitivity(q, uni)
    if gs <= 0:
        raise PrivriskError(f"universe: the global sensitivity of the {q} over {uni.describe()} is 0")
    b = gs / eps
    r = _response_for(f_n, b, u, response)
    tail = "upper" if r >= f_n else "lower"
    lp1 = float(_log_event(r, f_n, b, event=event, tail=tail))
    lp3 = _log_event(r, f_without, np.full(x.size, b), event=event, tail=tail)
    log_ratio = _log_ratio(lp1, lp3)
    records = pd.DataFrame(
        {
            "record": np.arange(1, x.size + 1),
            "value": x,
            "f_without": f_without,
            "p3": _exp(lp3),
            "ratio": _exp(log_ratio),
            "log_ratio": log_ratio,
            "violates": _breaks(log_ratio, eps),
        }
    )
    return GlobalAudit(uni.describe(), float(gs), float(b), float(r), float(_exp(lp1)), records)


def _check_epsilon(epsilon) -> float:
    eps = float(epsilon)
    if not math.isfinite(eps) or eps <= 0:
        raise PrivriskError(f"epsilon: must be a finite number greater than 0, got {epsilon!r}")
    return eps


def _check_u(u, response, seed) -> float | None:
    if u is not None and response is not None:
        raise PrivriskError("u: give either u (the uniform draw) or response (the answer), not both")
    if response is not None:
        if not math.isfinite(float(response)):
            raise PrivriskError(f"response: must be a finite number, got {response!r}")
        return None
    if u is None:
        rng = np.random.default_rng(seed)
        draw = 0.0
        while draw == 0.0:  # F⁻¹(0) is −∞
            draw = float(rng.uniform())
        return draw
    u = float(u)
    if not (0 < u < 1):
        raise PrivriskError(f"u: must lie strictly between 0 and 1, got {u:g}")
    return u


def audit_sweep(
    values,
    query: str,
    epsilon: float,
    record: int,
    sweep_values,
    *,
    u: float | None = None,
    response: float | None = None,
    event: Event = "tail",
    seed: int | None = None,
) -> pd.DataFrame:
    """The intruder's ratio for one missing record as its value varies (Table 3 of 003).

    For every value v the record (numbered from 1) is set to v, the provider's answer is recomputed with the same
    u (or the same response), and the intruder who lacks that record computes p3 from the other records.

    Returns:
        One row per value: ``value``, ``f_n``, ``b_n``, ``response``, ``p1``, ``p3``, ``ratio``,
        ``log10_ratio``, ``violates``.

    Example:
        >>> claims = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18,
        ...           9.45, 12.65, 9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08,
        ...           10.38, 12.32, 9.92, 100.0]
        >>> audit_sweep(claims, "mean", 2, 30, [14, 20, 30], u=0.75)["ratio"].round().tolist()    # Table 3
        [9.0, 925.0, 2201886.0]
    """
    q = check_query(query)
    x = _check_values(values)
    eps = _check_epsilon(epsilon)
    if event not in ("tail", "density"):
        raise PrivriskError(f"event: must be 'tail' or 'density', got {event!r}")
    if int(record) != record or not (1 <= record <= x.size):
        raise PrivriskError(f"record: must be a record number from 1 to {x.size}, got {record}")
    idx = int(record) - 1
    vs = np.asarray(sweep_values, dtype=float).ravel()
    if vs.size == 0 or np.any(~np.isfinite(vs)):
        raise PrivriskError("sweep values: give at least one finite number")
    u = _check_u(u, response, seed)
    rest = np.delete(x, idx)
    # The intruder's side does not depend on the swept value.
    f_rest = float(evaluate(q, rest))
    b_rest = _provider(q, rest)[2] / eps
    rows = []
    for v in vs:
        y = x.copy()
        y[idx] = v
        f_n, _, delta_n, _ = _provider(q, y)
        b_n = delta_n / eps
        r = _response_for(f_n, b_n, u, response)
        tail = "upper" if r >= f_n else "lower"
        lp1 = float(_log_event(r, f_n, b_n, event=event, tail=tail))
        lp3 = float(_log_event(r, f_rest, b_rest, event=event, tail=tail))
        lr = float(_log_ratio(lp1, lp3))
        rows.append(
            {
                "value": float(v),
                "f_n": f_n,
                "b_n": b_n,
                "response": r,
                "p1": float(_exp(lp1)),
                "p3": float(_exp(lp3)),
                "ratio": float(_exp(lr)),
                "log10_ratio": lr / math.log(10),
                "violates": bool(_breaks(lr, eps)),
            }
        )
    return pd.DataFrame(rows)


# --------------------------------------------------------------------------------------------------------------
# Derived queries
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DerivedScale:
    """Table 4 of 003: the scale an intruder faces for ``target`` when estimating it through ``via``."""

    target: str
    via: str
    n: int
    epsilon: float
    factor: float
    f: dict
    f_star: dict
    delta: dict
    scale: dict
    effective_scale: float
    effective_epsilon: float
    alpha: float

    def half_width(self, scale: float) -> float:
        """Half the (α, 1 − α) range of Laplace(0, b) noise: b·ln(1/(2α)) (003: ±42.59 for b = 5)."""
        return scale * math.log(1 / (2 * self.alpha))

    def table(self) -> pd.DataFrame:
        """Rows as Table 4 of 003; one column for the target and one for the released query."""
        cols = [self.target] if self.target == self.via else [self.target, self.via]
        rows = {
            "f_n(X)": [self.f[c] for c in cols],
            "f_n-1(X*)": [self.f_star[c] for c in cols],
            "Δf_n(X)": [self.delta[c] for c in cols],
            "ε": [self.epsilon for _ in cols],
            "b": [self.scale[c] for c in cols],
            "effective b": [self.effective_scale] + [math.nan] * (len(cols) - 1),
            "effective ε": [self.effective_epsilon] + [math.nan] * (len(cols) - 1),
        }
        return pd.DataFrame(rows, index=cols).T

    def summary(self) -> dict:
        return {
            "target": self.target,
            "via": self.via,
            "n": self.n,
            "epsilon": self.epsilon,
            "factor": self.factor,
            "f": self.f,
            "f_star": self.f_star,
            "delta": self.delta,
            "scale": self.scale,
            "effective_scale": self.effective_scale,
            "effective_epsilon": self.effective_epsilon,
            "alpha": self.alpha,
            "half_width": {
                self.target: self.half_width(self.scale[self.target]),
                "effective": self.half_width(self.effective_scale),
            },
        }


def _linear_factor(target: str, via: str, n: int) -> float:
    """a in target = a·via for the linear relations among count, sum and mean (n known to the intruder)."""
    if target == via:
        return 1.0
    if {target, via} == {"sum", "mean"}:
        return float(n) if target == "sum" else 1.0 / n
    if "count" in (target, via) and {target, via} <= _LINEAR:
        raise PrivriskError(
            f"--via: the {target} is not a linear function of the {via} (count = sum/mean is a ratio); "
            "supported: sum via mean, mean via sum, or a query via itself"
        )
    arg, bad = ("--target", target) if target not in _LINEAR else ("--via", via)
    raise PrivriskError(
        f"{arg}: no linear relation between the {target} and the {via} ({bad} is not one of count, sum, mean); "
        "supported: sum via mean, mean via sum, or a query via itself"
    )


def derived_scale(
    values, epsilon: float, *, target: str = "sum", via: str = "mean", alpha: float = 1e-4
) -> DerivedScale:
    """The effective scale and ε of ``target`` when the intruder derives it from the released ``via`` (Table 4, 003).

    Each query gets data-dependent noise b = Δf_n(X)/ε. Since sum = n·mean, the answer to the mean, scaled by n,
    is an estimate of the sum with effective scale n·b_mean; the effective ε of the sum is Δf_sum/(n·b_mean),
    which grows with the data's distance from 0 (003: 4, 44 and 20004 at ε = 2). Linear relations among
    count, sum and mean only; others raise.

    Example:
        >>> d = derived_scale(list(range(101, 111)), 2, target="sum", via="mean")   # 003 Table 4
        >>> d.scale["sum"], d.scale["mean"], d.effective_scale, d.effective_epsilon
        (55.0, 0.25, 2.5, 44.0)
    """
    t, v = check_query(target), check_query(via)
    x = _check_values(values)
    eps = _check_epsilon(epsilon)
    if not (0 < alpha < 0.5):
        raise PrivriskError(f"alpha: must lie in (0, 0.5), got {alpha:g}")
    factor = _linear_factor(t, v, x.size)
    f, f_star, delta, scale = {}, {}, {}, {}
    for q in dict.fromkeys((t, v)):
        f_n, _, d, star = _provider(q, x)
        f[q] = f_n
        f_star[q] = float(evaluate(q, np.delete(x, star)))
        delta[q] = d
        scale[q] = d / eps
    eff_b = abs(factor) * scale[v]
    with np.errstate(divide="ignore"):
        eff_eps = delta[t] / eff_b if eff_b > 0 else math.inf
    return DerivedScale(t, v, int(x.size), eps, factor, f, f_star, delta, scale, eff_b, eff_eps, float(alpha))
