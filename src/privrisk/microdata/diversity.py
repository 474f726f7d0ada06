"""Attribute disclosure: ℓ-diversity and t-closeness of a sensitive variable within each key combination.

- distinct ℓ-diversity: the number of distinct sensitive values in a class;
- entropy ℓ-diversity: exp(H) with H = −Σ p_s log p_s the entropy of the class's sensitive values
  (Machanavajjhala et al. 2007, Def. 4.1), computed as n / Π c_s^{c_s/n} from the counts c_s and rounded to 10
  decimals, so a class with three equally likely values has exactly 3 (pycanon truncates it to an integer);
- recursive (c, ℓ)-diversity: with the class's counts sorted r_1 ≥ r_2 ≥ … ≥ r_m, the largest ℓ for which
  r_1 < c · (r_ℓ + r_{ℓ+1} + … + r_m) (Machanavajjhala et al. 2007, Def. 4.3); 0 when not even ℓ = 1 holds;
- t-closeness: the earth mover's distance between the class's distribution of the sensitive values and the whole
  file's (Li, Li and Venkatasubramanian 2007): for a numeric variable the ordered distance over its m distinct
  values, (1/(m−1)) Σ_i |Σ_{j≤i} (p_j − q_j)| (their eq. for ordered distance), for a categorical one the equal
  distance ½ Σ_i |p_i − q_i|.

Classes are the records that match each key combination, a missing key value read as the frequencies read it
(with sdcMicro's reading a record missing a key belongs to the class of every combination it matches; the
measure builds those classes with :func:`privrisk.microdata.frequencies.matching_cells`). A missing sensitive
value is, as in sdcMicro's ``ldiversity``, a value of its own for distinct ℓ (``missing_sensitive="category"``,
the default), or left out of every distribution (``"drop"``); t always leaves it out, and it is counted.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

__all__ = ["Diversity", "diversity"]


@dataclass(frozen=True, eq=False)
class Diversity:
    """ℓ-diversity and t-closeness of one sensitive variable, per class and for the file.

    Attributes:
        variable: the sensitive variable.
        ordered: whether t used the ordered distance (numeric variable).
        distinct: distinct ℓ of each class (0 for a class without observed sensitive values).
        entropy: entropy ℓ of each class.
        recursive: recursive (c, ℓ) of each class.
        t: earth mover's distance of each class.
        c: the c of recursive (c, ℓ)-diversity.
        missing: records whose sensitive value is missing.
    """

    variable: str
    ordered: bool
    distinct: np.ndarray
    entropy: np.ndarray
    recursive: np.ndarray
    t: np.ndarray
    c: float
    missing: int

    def summary(self) -> dict[str, float | int | str | bool]:
        """The file's values: the smallest ℓ of each kind over the classes and the largest t."""
        seen = self.distinct > 0
        return {
            "variable": self.variable,
            "ordered_distance": self.ordered,
            "l_distinct": int(self.distinct[seen].min()) if seen.any() else 0,
            "l_entropy": float(self.entropy[seen].min()) if seen.any() else 0.0,
            "c": self.c,
            "l_recursive": int(self.recursive[seen].min()) if seen.any() else 0,
            "t": float(self.t[seen].max()) if seen.any() else 0.0,
            "missing_values": self.missing,
        }


def diversity(classes: np.ndarray, values: pd.Series, *, c: float = 2.0, name: str = "sensitive",
              missing_sensitive: str = "category", reference: pd.Series | None = None) -> Diversity:  # fmt: skip
    """ℓ-diversity (distinct, entropy, recursive (c, ℓ)) and t-closeness of ``values`` within ``classes``.

    Args:
        classes: dense class ids (0, 1, …) of the records.
        values: the sensitive variable (numeric: ordered distance; otherwise equal distance).
        c: the c of recursive (c, ℓ)-diversity (> 0).
        name: the variable's name.
        missing_sensitive: ``"category"`` (a missing value is a value of its own for ℓ, as sdcMicro) or
            ``"drop"``.
        reference: the file's values, when ``values`` repeats records (a record in several classes); the file's
            distribution for t and the count of missing values come from it. Default: ``values``.

    Example (Li, Li and Venkatasubramanian 2007, §4: salaries 3k…11k; a class holding 3k, 4k, 5k):
        >>> salary = pd.Series([3, 4, 5, 6, 7, 8, 9, 10, 11])
        >>> d = diversity(np.array([0, 0, 0, 1, 1, 1, 2, 2, 2]), salary)
        >>> round(float(d.t[0]), 4), d.distinct.tolist(), d.entropy.tolist()
        (0.375, [3, 3, 3], [3.0, 3.0, 3.0])
    """
    n_classes = int(classes.max()) + 1 if classes.size else 0
    ordered = pd.api.types.is_numeric_dtype(values) and not pd.api.types.is_bool_dtype(values)
    file_values = values if reference is None else reference
    both, uniques = pd.factorize(pd.concat([pd.Series(values).reset_index(drop=True),
                                            pd.Series(file_values).reset_index(drop=True)]),
                                 sort=True, use_na_sentinel=True)  # fmt: skip
    both = np.asarray(both, dtype=np.int64)
    codes, file_codes = both[: len(values)], both[len(values) :]
    m = len(uniques)
    if missing_sensitive == "category" and (codes < 0).any():
        codes = np.where(codes < 0, m, codes)  # a value of its own, after every observed value
    seen = codes >= 0
    g, s = classes[seen], codes[seen]
    width = m + 1
    pair, counts = np.unique(g * width + s, return_counts=True)
    pg, ps = pair // width, pair % width
    size = np.bincount(pg, weights=counts, minlength=n_classes)
    distinct = np.bincount(pg, minlength=n_classes).astype(np.int64)
    # exp(H) = n / Π c^(c/n): exact for equal counts up to rounding, which the rounding to 10 decimals removes
    clogc = np.bincount(pg, weights=counts * np.log(counts), minlength=n_classes)
    with np.errstate(divide="ignore", invalid="ignore"):
        entropy = np.where(size > 0, np.round(size / np.exp(clogc / np.where(size > 0, size, 1)), 10), 0.0)
    recursive = _recursive(pg, counts, n_classes, c)
    # t compares the observed values only: the missing ones leave the class's distribution and the file's
    obs = ps < m
    size_t = np.bincount(pg[obs], weights=counts[obs], minlength=n_classes)
    overall = np.bincount(file_codes[file_codes >= 0], minlength=m)
    t = _emd(pg[obs], ps[obs], counts[obs], np.where(size_t > 0, size_t, 1), overall, m, ordered)
    t = np.where(size_t > 0, t, 0.0)
    return Diversity(name, bool(ordered), distinct, entropy, recursive, t, float(c), int((file_codes < 0).sum()))


def _recursive(pg: np.ndarray, counts: np.ndarray, n_classes: int, c: float) -> np.ndarray:
    """Recursive (c, ℓ) of each class: how many ℓ satisfy r_1 < c·(r_ℓ + … + r_m) (a prefix of ℓ = 1, 2, …)."""
    order = np.lexsort((-counts, pg))
    g, r = pg[order], counts[order].astype(float)
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]]) if g.size else np.zeros(0, dtype=np.int64)
    first = np.repeat(r[starts], np.diff(np.r_[starts, g.size]))
    total = np.bincount(g, weights=r, minlength=n_classes)
    before = np.cumsum(r) - r - np.repeat(np.cumsum(r)[starts] - r[starts], np.diff(np.r_[starts, g.size]))
    tail = total[g] - before
    ok = first < c * tail
    return np.bincount(g, weights=ok, minlength=n_classes).astype(np.int64)


def _emd(pg, ps, counts, size, overall, m: int, ordered: bool) -> np.ndarray:
    """Earth mover's distance of each class to the file's distribution (Li, Li and Venkatasubramanian 2007)."""
    n_classes = size.size
    total = overall.sum()
    if m <= 1 or total == 0:
        return np.zeros(n_classes)
    q = overall / total
    p = counts / size[pg]
    if not ordered:
        # ½ Σ|p − q| = ½ (Σ_present |p − q| + Σ_absent q)
        present = np.bincount(pg, weights=np.abs(p - q[ps]) - q[ps], minlength=n_classes)
        return np.clip(0.5 * (present + 1.0), 0.0, 1.0)
    # ordered: Σ_i |P_i − Q_i| with P the class's CDF (a step at each present value) and Q the file's CDF
    Q = np.cumsum(overall) / total
    S = np.r_[0.0, np.cumsum(Q)]
    order = np.lexsort((ps, pg))
    g, v, cnt = pg[order], ps[order], counts[order]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    cum = np.cumsum(cnt)
    P = (cum - np.repeat(cum[starts] - cnt[starts], np.diff(np.r_[starts, g.size]))) / size[g]
    # segment [v, next v) carries P; the part before the first present value carries 0
    nxt = np.r_[v[1:], m]
    last = np.r_[g[1:] != g[:-1], True]
    nxt = np.where(last, m, nxt)
    total_dist = np.bincount(g, weights=_segment(v, nxt, P, Q, S), minlength=n_classes)
    total_dist += _segment(np.zeros(n_classes, dtype=np.int64), _first_value(g, v, starts, n_classes, m),
                           np.zeros(n_classes), Q, S)  # fmt: skip
    return np.clip(total_dist / (m - 1), 0.0, 1.0)


def _first_value(g, v, starts, n_classes: int, m: int) -> np.ndarray:
    out = np.full(n_classes, m, dtype=np.int64)
    out[g[starts]] = v[starts]
    return out


def _segment(a: np.ndarray, b: np.ndarray, P: np.ndarray, Q: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Σ_{i=a}^{b−1} |P − Q_i| for increasing Q, with S the prefix sums of Q."""
    j = np.clip(np.searchsorted(Q, P, side="right"), a, b)
    below = (j - a) * P - (S[j] - S[a])
    above = (S[b] - S[j]) - (b - j) * P
    return below + above
