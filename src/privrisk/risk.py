"""ε → probabilities: the risk that an attacker tells whether a person is in the data, and back.

The formulas come from Lee and Clifton (2011) as used by Allmann et al. (2024; Allmann, Nuñez von Voigt and
Tschorsch) and Mehner et al. (2021; Mehner, Nuñez von Voigt and Tschorsch). All of them are logistic functions of
ε, so they are computed as ``expit(ε·r − ln(n − 1))`` rather than as quotients of exponentials: nothing overflows
at large ε, nothing is 0/0 at ε = 0, and every result lies in [0, 1].

Arguments broadcast like numpy: scalars in give floats out, arrays in give arrays out.

Example:
    >>> round(many_worlds(math.log(3), 10), 4), round(global_risk(math.log(3)), 4)   # Mehner et al., Table 1
    (0.25, 0.75)
"""

from __future__ import annotations

import math  # noqa: F401 - used by the doctests
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike

from privrisk._format import below_certainty, natural_frequencies, whole_percent
from privrisk._validation import check_epsilons, check_probability, check_whole
from privrisk.errors import PrivriskError, deprecated_alias

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "describe",
    "epsilon_for_risk",
    "expit",
    "global_leak",
    "global_risk",
    "leak",
    "local_leak",
    "logit",
    "many_worlds",
    "natural_frequency",
    "posterior_bound",
    "risk_rows",
    "risk_table",
    "truthful_answer_probability",
    "two_worlds",
]


def expit(x: ArrayLike) -> np.ndarray:
    """The logistic function 1/(1 + e^(−x)), as :func:`scipy.special.expit` computes it (without importing scipy).

    e^(−x) overflows to ∞ only where the result is 0 anyway, and for x → −∞ the quotient keeps its relative
    precision, so the one formula is stable on the whole line.

    Example:
        >>> float(expit(math.log(3))), float(expit(-1000.0)), float(expit(1000.0))
        (0.75, 0.0, 1.0)
    """
    with np.errstate(over="ignore"):
        return np.asarray(1.0 / (1.0 + np.exp(-np.asarray(x, dtype=float))))


def logit(p: ArrayLike) -> np.ndarray:
    """ln(p/(1 − p)), as :func:`scipy.special.logit` computes it: near p = 1/2 as ln(1 + s) − ln(1 − s), s = 2p − 1.

    The plain quotient loses digits where p/(1 − p) is close to 1; the log1p form keeps them. p = 0 and p = 1 give
    −∞ and ∞.

    Example:
        >>> round(float(logit(0.75)), 12) == round(math.log(3), 12), float(logit(0.0)), float(logit(1.0))
        (True, -inf, inf)
    """
    p = np.asarray(p, dtype=float)
    middle = (p >= 0.3) & (p <= 0.65)
    with np.errstate(divide="ignore", invalid="ignore"):
        s = 2.0 * (p - 0.5)
        return np.asarray(np.where(middle, np.log1p(s) - np.log1p(-s), np.log(p / (1.0 - p))))


def _out(value: ArrayLike) -> float | np.ndarray:
    """Scalars in, floats out; arrays in, arrays out."""
    array = np.asarray(value, dtype=float)
    return float(array) if array.ndim == 0 else array


def _epsilon(epsilon: ArrayLike) -> np.ndarray:
    return check_epsilons(epsilon, name="epsilon", allow_zero=True, keep_shape=True)


def _ratio(ratio: ArrayLike) -> np.ndarray:
    r = np.asarray(ratio, dtype=float)
    if np.any(~np.isfinite(r)) or np.any(r < 0):
        raise PrivriskError("ratio: Δv/Δf must be a finite number ≥ 0", param="ratio")
    return r


def _n(n: ArrayLike, *, minimum: int = 1, name: str = "n") -> np.ndarray:
    """Whole numbers ≥ minimum, element by element: :func:`~privrisk._validation.check_whole` for arrays too."""
    try:
        values = np.asarray(n, dtype=float)
    except (TypeError, ValueError):
        check_whole(n, name=name, minimum=minimum)  # raises: not a number
        raise
    bad = ~np.isfinite(values) | (values != np.floor(values)) | (values < minimum)
    if np.any(bad):
        first = float(values[bad].ravel()[0])
        check_whole(int(first) if first.is_integer() else first, name=name, minimum=minimum)  # raises
    return values


def _log_worlds(n: np.ndarray) -> np.ndarray:
    """ln(n − 1), with ln 0 = −∞ for a single world (the attacker then always knows)."""
    with np.errstate(divide="ignore"):
        return np.log(n - 1.0)


def many_worlds(epsilon: ArrayLike, n: ArrayLike, ratio: ArrayLike = 1.0) -> float | np.ndarray:
    """ρ_mw, the many-worlds risk of Lee and Clifton (2011): Allmann et al., eq. (4); Mehner et al., eq. (1).

    ρ_mw = 1 / (1 + (n − 1)·e^(−ε·Δv/Δf)), the probability that an attacker who knows all n possible worlds picks
    the true one after seeing one ε-DP answer. In the running example of Mehner et al. (§3.1; ε = ln 3, n = 21)
    it is 4.8 % for Δv = 0.2, Δf = 25 and 13.04 % for Δv = Δf, where their text says 11 % (docs/errata.md).

    Args:
        epsilon: ε ≥ 0.
        n: the number of possible worlds (in the sampling study of Allmann et al.: the sample size), a whole
            number ≥ 1.
        ratio: Δv/Δf, local over global sensitivity (may exceed 1: Lee and Clifton's Δv is a range over worlds
            of equal size; docs/architecture.md).

    Returns:
        ρ_mw in [1/n, 1].

    Example:
        >>> round(many_worlds(math.log(3), 10), 4)    # Mehner et al., Table 1: 25.0 %
        0.25
        >>> round(many_worlds(math.log(3), 21, 0.2 / 25), 3), round(many_worlds(math.log(3), 21), 4)
        (0.048, 0.1304)
        >>> many_worlds(1e4, 100)                     # no overflow
        1.0
    """
    eps, n_, r = _epsilon(epsilon), _n(n), _ratio(ratio)
    return _out(expit(eps * r - _log_worlds(n_)))


def two_worlds(epsilon: ArrayLike, ratio: ArrayLike = 1.0) -> float | np.ndarray:
    """ρ_tw, the two-worlds risk: Allmann et al., eq. (6).

    ρ_tw = 1 / (1 + e^(−ε·Δv/Δf)); the attacker only has to decide between presence and absence of one person.

    Example:
        >>> round(two_worlds(1.0), 4)
        0.7311
        >>> two_worlds(0.0)
        0.5
    """
    return many_worlds(epsilon, 2, ratio)


def global_risk(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> float | np.ndarray:
    """P, the global privacy risk: Mehner et al., eq. (3); ρ_gl of Allmann et al., eq. (5).

    P = (e^ε + δ) / (1 + e^ε). With δ = 0 this is the worst case of ρ_mw (n = 2, Δv = Δf). With δ > 0 it is the
    largest balanced success rate a hypothesis test can reach against an (ε, δ)-DP mechanism. For ε = ln 2,
    Mehner et al. (§4.2) give P ≈ 66.6 %; the value is 2/3 = 66.67 % (docs/errata.md).

    Example:
        >>> round(global_risk(1.0), 3)                # Allmann et al., §4.3: 0.731
        0.731
        >>> round(global_risk(math.log(3)), 4)        # Mehner et al., Table 1: 75.0 %
        0.75
    """
    eps = _epsilon(epsilon)
    d = check_probability(delta, name="delta")
    return _out(np.minimum(expit(eps) + d * expit(-eps), 1.0))


def leak(risk: ArrayLike, n: ArrayLike) -> float | np.ndarray:
    """γ, the local privacy leak: (ρ − 1/n)/(1 − 1/n), Mehner et al., §3.4.

    How far the release moved the attacker from guessing (0) towards certainty (1).

    Example:
        >>> round(leak(many_worlds(math.log(3), 10), 10), 4)   # Mehner et al., Table 1: 16.7 %
        0.1667
    """
    rho = check_probability(risk, name="risk")
    n_ = _n(n, minimum=2)
    guess = 1.0 / n_
    return _out(np.clip((rho - guess) / (1.0 - guess), 0.0, 1.0))


def global_leak(epsilon: ArrayLike, delta: ArrayLike = 0.0) -> float | np.ndarray:
    """Γ, the global privacy leak: Γ = 2ρ_gl − 1 = (e^ε − 1)/(e^ε + 1) for δ = 0, Mehner et al., §3.4.

    Example:
        >>> round(global_leak(math.log(3)), 4)         # Mehner et al., Table 1: 50.0 %
        0.5
        >>> round(global_leak(3.0), 2)                 # Mehner et al., §3.4: 0.91
        0.91
    """
    eps = _epsilon(epsilon)
    d = check_probability(delta, name="delta")
    # tanh(ε/2) is 2·expit(ε) − 1 without the cancellation at small ε.
    return _out(np.minimum(np.tanh(eps / 2.0) + 2.0 * d * expit(-eps), 1.0))


def epsilon_for_risk(risk: ArrayLike, n: ArrayLike = 2, ratio: ArrayLike = 1.0) -> float | np.ndarray:
    """The largest ε that keeps ρ_mw ≤ risk: ε = ln((n − 1)·ρ/(1 − ρ)) / (Δv/Δf) (Lee and Clifton 2011).

    Args:
        risk: the target ρ, strictly between 1/n (what guessing achieves) and 1.
        n: the number of possible worlds (2: the worst case).
        ratio: Δv/Δf > 0.

    Raises:
        PrivriskError: if ρ ≤ 1/n (no ε > 0 can reach it) or ρ ≥ 1, or the ratio is 0.

    Example:
        >>> round(epsilon_for_risk(0.75), 6) == round(math.log(3), 6)
        True
        >>> round(epsilon_for_risk(0.25, n=10), 6) == round(math.log(3), 6)
        True
    """
    rho = check_probability(risk, name="risk")
    n_ = _n(n, minimum=2)
    r = _ratio(ratio)
    if np.any(r == 0):
        raise PrivriskError(
            "ratio: must be greater than 0 (with Δv = 0 every ε keeps the risk at 1/n)", param="ratio"
        )
    if np.any(rho >= 1):
        raise PrivriskError("risk: must be below 1 (certainty is reached only as ε → ∞)", param="risk")
    if np.any(rho <= 1.0 / n_):
        worst = float(np.max(1.0 / n_))
        raise PrivriskError(
            f"risk: must exceed 1/n = {worst:.4g}, what guessing alone achieves; no ε > 0 keeps the risk lower",
            param="risk",
        )
    with np.errstate(over="ignore", divide="ignore"):  # a tiny ratio gives ε = inf; callers refuse it
        return _out((np.log(n_ - 1.0) + logit(rho)) / r)


def posterior_bound(epsilon: ArrayLike, prior: ArrayLike) -> float | np.ndarray:
    """The attacker's largest belief after one ε-DP answer: p·e^ε / (p·e^ε + 1 − p).

    Written as expit(ε + logit p), so a prior of 0 or 1 stays 0 or 1 and large ε does not overflow.

    Example:
        >>> round(posterior_bound(math.log(3), 0.5), 4)
        0.75
        >>> posterior_bound(2.0, 0.0)
        0.0
    """
    eps = _epsilon(epsilon)
    p = check_probability(prior, name="prior")
    with np.errstate(divide="ignore"):
        return _out(expit(eps + logit(p)))


def truthful_answer_probability(epsilon: ArrayLike, d: ArrayLike = 2) -> float | np.ndarray:
    """The probability of a truthful answer in d-ary randomized response: e^ε / (e^ε + d − 1), Mehner et al., §4.2.

    It equals the global risk ρ_gl for d = 2 and the many-worlds risk (ratio 1) for d = n: the narrative that
    explains a Laplace release to data subjects. A probability (the guarantee of randomized response is
    :func:`privrisk.accounting.randomised_response_guarantee`).

    Example:
        >>> round(truthful_answer_probability(math.log(3)), 4)
        0.75
    """
    return many_worlds(epsilon, _n(d, minimum=1, name="d"), 1.0)


#: The name before 0.2, kept one release: it read like the guarantee ``privrisk.accounting.randomized_response``.
randomized_response = deprecated_alias(truthful_answer_probability, "randomized_response")


def risk_rows(epsilons: ArrayLike, ns: ArrayLike = (2, 10, 100)) -> list[dict[str, float | int]]:
    """Risk and leak for every ε and n: the rows of Table 1 of Mehner et al., as plain dictionaries.

    For n = 2 the risk is the global risk ρ_gl and the leak the global leak Γ; for n > 2 they are ρ_mw (ratio 1)
    and γ. :func:`risk_table` gives the same rows as a DataFrame; this form needs no pandas (the ``table``
    command starts without it).

    Returns:
        One ``{"epsilon", "n", "risk", "leak"}`` per (ε, n), ε varying slowest.

    Example:
        >>> [f"{row['risk']:.1%}" for row in risk_rows([math.log(2)], [2, 10, 100])]
        ['66.7%', '18.2%', '2.0%']
    """
    eps = np.atleast_1d(_epsilon(epsilons)).ravel()
    n_ = np.atleast_1d(_n(ns, minimum=2)).ravel()
    e_grid, n_grid = np.meshgrid(eps, n_, indexing="ij")
    e_flat, n_flat = e_grid.ravel(), n_grid.ravel()
    risk = np.asarray(many_worlds(e_flat, n_flat), dtype=float)
    leaks = np.asarray(local_leak(e_flat, n_flat), dtype=float)  # γ without the cancellation of ρ − 1/n
    return [
        {"epsilon": float(e), "n": int(n), "risk": float(r), "leak": float(g)}
        for e, n, r, g in zip(e_flat, n_flat, risk, leaks, strict=True)
    ]


def risk_table(epsilons: ArrayLike, ns: ArrayLike = (2, 10, 100)) -> pd.DataFrame:
    """Risk and leak for every ε and n: Table 1 of Mehner et al., as a tidy DataFrame (the rows of :func:`risk_rows`).

    For n = 2 the risk is the global risk ρ_gl and the leak the global leak Γ; for n > 2 they are ρ_mw (ratio 1)
    and γ.

    Returns:
        Columns ``epsilon, n, risk, leak``, one row per (ε, n), ε varying slowest.

    Example:
        >>> t = risk_table([math.log(2)], [2, 10, 100])
        >>> [f"{x:.1%}" for x in t["risk"]]
        ['66.7%', '18.2%', '2.0%']
    """
    import pandas as pd

    return pd.DataFrame(risk_rows(epsilons, ns), columns=["epsilon", "n", "risk", "leak"]).astype(
        {"epsilon": float, "n": int, "risk": float, "leak": float}
    )


def natural_frequency(p: float, *, base: int = 100) -> tuple[str, int]:
    """Say a probability as "about N in BASE", rounded honestly.

    A probability strictly between 0 and 1 is never rounded to "0" or to "all" of them: it becomes
    "fewer than 1" or "more than BASE − 1". The base grows by tenfold steps (up to 1,000,000) until N is at
    least 1, so a small risk is still a count of people. To say a risk beside what guessing achieves, use
    :func:`privrisk._format.natural_frequencies`, which counts both out of one base.

    Returns:
        The phrase (e.g. ``"about 73"``) and the base it counts against.

    Example:
        >>> natural_frequency(0.7311)
        ('about 73', 100)
        >>> natural_frequency(0.0198)
        ('about 2', 100)
        >>> natural_frequency(0.00199)
        ('about 2', 1000)
        >>> natural_frequency(0.9991)
        ('more than 99', 100)
    """
    f, _ = natural_frequencies(float(check_probability(p, name="p")), base=base)
    return f.text(), f.base


def local_leak(epsilon: ArrayLike, n: ArrayLike, ratio: ArrayLike = 1.0) -> float | np.ndarray:
    """γ of one ε-DP answer among n people, without the cancellation of (ρ_mw − 1/n)/(1 − 1/n).

    With ρ_mw = 1/(1 + (n − 1)e^(−εr)) (r = Δv/Δf) the leak of Mehner et al. (§3.4) is
    γ = (1 − e^(−εr))/(1 + (n − 1)e^(−εr)) = −expm1(−εr)·ρ_mw: at ε = 10⁻¹² and n = 10⁹ the subtraction loses
    every digit, this form none. For n = 2 it is the global leak Γ = tanh(ε/2).

    Example:
        >>> round(local_leak(math.log(3), 10), 4)                 # Mehner et al., Table 1: 16.7 %
        0.1667
        >>> local_leak(1e-12, 10**9) > 0
        True
    """
    eps, n_, r = _epsilon(epsilon), _n(n, minimum=2), _ratio(ratio)
    return _out(-np.expm1(-eps * r) * expit(eps * r - _log_worlds(n_)))


def describe(epsilon: float | str, n: int | None = None, ratio: float = 1.0) -> str:
    """Plain sentences for a data subject about what an ε-DP answer reveals, with natural frequencies.

    Every number is true at every ε: a risk of a finite ε is never said to be certain ("more than 99 times",
    not "all 100"), and the leak is said "less than 1 %" rather than "0 %" when it is not zero.

    Args:
        epsilon: ε ≥ 0 of the release (or the total of all releases).
        n: the number of people who might be in the data, when the attacker must pick among them.
        ratio: Δv/Δf of the release, which the sentence about n people uses (1: the worst case).

    Example:
        >>> print(describe(1.0))  # doctest: +NORMALIZE_WHITESPACE
        Suppose an attacker knows everyone else's data and tries to tell whether you are in it. In 100 such
        attempts the attacker would be right about 73 times; guessing alone would be right 50 times. At best,
        the answer takes the attacker 46 % of the way from a coin toss to certainty.
        >>> print(describe(1e-6).split(". ")[-1])
        At best, the answer takes the attacker less than 1 % of the way from a coin toss to certainty.
    """
    eps = float(_epsilon(epsilon))
    finite = np.isfinite(eps)
    p = float(global_risk(eps))
    risk, guess = natural_frequencies(below_certainty(p) if finite and eps > 0 else p, 0.5)
    gamma = float(global_leak(eps))
    if finite and eps > 0:
        gamma = below_certainty(gamma)
    sentences = [
        "Suppose an attacker knows everyone else's data and tries to tell whether you are in it.",
        f"In {risk.base:,} such attempts the attacker would be right {risk.text()} times; "
        f"guessing alone would be right {guess.count:,} times.",
        f"At best, the answer takes the attacker {whole_percent(gamma)} of the way from a coin toss to certainty.",
    ]
    if n is not None:
        n_ = int(_n(n, minimum=2))
        rho = float(many_worlds(eps, n_, ratio))
        if finite and eps * float(ratio) > 0:
            rho = below_certainty(rho)
        # One base for both rates: counted in different bases, "about 1 of 1,000" beside a guess counted in
        # 10,000 ("about 2") made the attacker look worse than guessing.
        mw, mw_guess = natural_frequencies(rho, 1.0 / n_)
        sentences.append(
            f"If the attacker must instead pick who is in the data among {n_:,} possible people, "
            f"{mw.text()} of {mw.base:,} attempts would succeed; guessing alone would succeed "
            f"{mw_guess.text()} of them."
        )
    return " ".join(sentences)
