"""Individual, global and household re-identification risk of a sample file (Benedetti and Franconi; sdcMicro).

The individual risk of a record in a combination with sample frequency f_k and estimated population frequency
F_k (sum of weights) is the expected value of 1/F, the chance that an intruder who knows the person's key values
and finds them in the file picks the right person, when the population frequency F given f_k follows the negative
binomial model of Benedetti and Franconi (1998) with p_k = f_k/F_k (Franconi and Polettini 2004, eq. 5):

    r_k = Σ_{h ≥ f_k} (1/h) · C(h−1, f_k−1) · p_k^{f_k} · (1−p_k)^{h−f_k}
        = (p_k / f_k) · ₂F₁(1, 1; f_k + 1; 1 − p_k)                     ("exact")

(the hypergeometric form follows from writing 1/h as ∫₀¹ t^{h−1} dt; it is the closed form sdcMicro's
``indivRisk(method = "exact")`` evaluates as an alternating sum, which loses all digits for large f_k). For
f_k = 1 it is p/(1−p)·log(1/p), for f_k = 2 p/(1−p) − (p/(1−p))²·log(1/p). sdcMicro's default ("approx") keeps
these two and uses r_k ≈ p_k/(f_k − (1 − p_k)) for f_k ≥ 3. Where F_k ≤ f_k (weights of 1, or below 1) the
record's combination is taken as fully observed and r_k = 1/f_k (sdcMicro does so only for F_k = f_k; below it
the formula leaves [0, 1]).

The global risk is the expected number of re-identifications Σ_i r_i and its share of the records (sdcMicro's
``global_risk_ER`` and ``global_risk``); the household risk of a record is 1 − Π(1 − r_j) over the members j of
its household (the chance that at least one member is re-identified, sdcMicro's ``hier_risk``).
"""

from __future__ import annotations

from typing import Literal

import numpy as np

__all__ = ["RISK_METHODS", "RiskMethod", "household_risk", "individual_risk"]

RiskMethod = Literal["approx", "exact"]
RISK_METHODS: tuple[RiskMethod, ...] = ("approx", "exact")


def individual_risk(fk, Fk, *, method: RiskMethod = "approx") -> np.ndarray:
    """Benedetti–Franconi individual risk r_k from f_k and F_k (sdcMicro ``indivRisk``; module docstring).

    Args:
        fk: sample frequencies f_k ≥ 1.
        Fk: estimated population frequencies F_k (sums of weights).
        method: ``"approx"`` (sdcMicro's default) or ``"exact"``.

    Returns:
        r_k in [0, 1], an array of the shape of the broadcast inputs.

    Example (sdcMicro ``test_indivRisk.R``: f_k = 3, 1, 2 with F_k = 108, 45.5, 100):
        >>> individual_risk([3, 1, 2], [108.0, 45.5, 100.0]).round(8).tolist()
        [0.01369863, 0.08579129, 0.01877883]
        >>> individual_risk([3], [108.0], method="exact").round(8).tolist()
        [0.01355297]
    """
    fk, Fk = np.asarray(fk), np.asarray(Fk)
    if fk.ndim == 1 and fk.shape == Fk.shape and fk.size > RISK_SLICE:
        # Element by element, so slices give the same floats; a dozen temporaries of 8 bytes per combination would
        # otherwise exceed the combinations' own memory at 10⁸ records (2.4·10⁷ combinations). Each slice is
        # converted to floats on its own: not a copy of every f_k.
        out = np.empty(fk.size)
        for start in range(0, fk.size, RISK_SLICE):
            part = slice(start, start + RISK_SLICE)
            out[part] = _individual_risk(fk[part].astype(float), Fk[part].astype(float), method)
        return out
    f = np.asarray(fk, dtype=float)
    F = np.asarray(Fk, dtype=float)
    f, F = np.broadcast_arrays(f, F)
    return _individual_risk(f, F, method)


RISK_SLICE = 1 << 18
"""Combinations per slice of :func:`individual_risk` (its temporaries: about 100 bytes each, 26 MB a slice)."""


def _individual_risk(f: np.ndarray, F: np.ndarray, method: RiskMethod) -> np.ndarray:
    full = F <= f
    p = np.where(full, 1.0, f / np.where(F > 0, F, 1.0))
    exact = _exact(f, p)
    if method == "exact":
        r = exact
    else:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(f >= 3, p / (f - (1.0 - p)), exact)
    r = np.where(full, 1.0 / f, r)
    return np.clip(r, 0.0, 1.0)


SERIES_FROM = 30
"""From this f_k on, ₂F₁(1, 1; f+1; q) is summed directly (scipy's hyp2f1 returns NaN there for small p)."""


def _exact(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(p/f)·₂F₁(1, 1; f+1; 1−p): closed form at f = 1, scipy below :data:`SERIES_FROM`, the series above.

    The series Σ_j q^j / C(f+j, j) has decreasing terms below 1/C(f+j, j), under 10⁻¹⁸ of the first after
    90 terms for f ≥ 30, whatever q.
    """
    from scipy.special import hyp2f1

    q = 1.0 - p
    out = np.empty(f.shape)
    one = f == 1
    with np.errstate(divide="ignore", invalid="ignore"):
        # f = 1: p/(1−p)·log(1/p), with log1p where p is near 1 and the limit 1 at p = 1
        logp = np.where(p > 0.5, np.log1p(-q), np.log(p))
        out[one] = np.where(q[one] > 0, -p[one] * logp[one] / np.where(q[one] > 0, q[one], 1), 1.0)
        mid = (f > 1) & (f < SERIES_FROM)
        out[mid] = p[mid] / f[mid] * hyp2f1(1.0, 1.0, f[mid] + 1.0, q[mid])
    big = f >= SERIES_FROM
    if big.any():
        fb, qb = f[big], q[big]
        term = np.ones(fb.shape)
        total = np.ones(fb.shape)
        for j in range(1, 200):
            term = term * qb * j / (fb + j)
            total += term
            if float(np.max(term / total)) < 1e-18:
                break
        out[big] = p[big] / fb * total
    return out


def household_risk(risk: np.ndarray, household: np.ndarray) -> np.ndarray:
    """1 − Π(1 − r_j) over the members j of each record's household (sdcMicro ``hier_risk``), per record.

    Computed as −expm1(Σ log1p(−r_j)) so that many small risks keep their digits.

    Args:
        risk: individual risks r_j of the records.
        household: dense household ids (0, 1, …) of the records.

    Example:
        >>> household_risk(np.array([0.5, 0.5, 0.1]), np.array([0, 0, 1])).round(6).tolist()
        [0.75, 0.75, 0.1]
    """
    r = np.asarray(risk, dtype=float)
    hh = np.asarray(household, dtype=np.int64)
    with np.errstate(divide="ignore"):
        logs = np.log1p(-r)
    total = np.bincount(hh, weights=logs, minlength=int(hh.max()) + 1 if hh.size else 0)
    return -np.expm1(total[hh])
