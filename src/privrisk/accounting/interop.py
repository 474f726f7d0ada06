"""Guarantees stated by other libraries: an OpenDP measurement's privacy map, an Opacus accountant's history.

- :func:`from_opendp` reads what ``measurement.map(d_in)`` promises, by the measurement's output measure:
  ``MaxDivergence`` → pure ε; ``ZeroConcentratedDivergence`` → ρ-zCDP; ``Approximate(MaxDivergence)`` (and the
  older ``FixedSmoothedMaxDivergence``) → (ε, δ); ``RenyiDivergence`` → its curve at the library's orders;
  ``SmoothedMaxDivergence`` → its privacy profile δ(ε) itself.
- :func:`from_opacus` reads Opacus' ``accountant.history``: a list of ``(noise_multiplier, sample_rate,
  num_steps)``, each entry that many steps of the Poisson-subsampled Gaussian mechanism (DP-SGD), all composed.

Example:
    >>> g = from_opacus([(1.0, 1.0, 4)])        # 4 full-batch steps of σ = 1: μ = √4
    >>> g.mu
    2.0
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from privrisk._validation import check_probability
from privrisk.accounting.concentrated import RenyiDP, ZeroConcentratedDP
from privrisk.accounting.guarantees import DEFAULT_ORDERS, Guarantee
from privrisk.errors import PrivriskError

__all__ = ["OpenDPProfile", "from_opacus", "from_opendp"]


@dataclass(frozen=True)
class OpenDPProfile(Guarantee):
    """An OpenDP privacy profile (``SmoothedMaxDivergence``): δ(ε) and ε(δ) as OpenDP computes them."""

    profile: Any = field(compare=False)
    name: str = "OpenDP privacy profile"

    @property
    def label(self) -> str:
        return self.name

    @property
    def conversion(self) -> str:
        return "the privacy profile OpenDP's privacy map states (SmoothedMaxDivergence)"

    def _deltas(self, epsilon: np.ndarray) -> np.ndarray:
        e = np.asarray(epsilon, dtype=float)
        flat = [self._delta(float(x)) for x in e.ravel()]
        return np.clip(np.asarray(flat, dtype=float).reshape(e.shape), 0.0, 1.0)

    def _delta(self, epsilon: float) -> float:
        try:
            return float(self.profile.delta(epsilon))
        except Exception:  # OpenDP refuses some ε (e.g. beyond its range): promise nothing there
            return 1.0

    def epsilon_at(self, delta: float) -> float:
        d = float(check_probability(delta, name="delta"))
        try:
            value = float(self.profile.epsilon(d))
        except Exception:  # no finite ε reaches this δ (δ = 0 for a Gaussian profile)
            return math.inf
        return max(value, 0.0) if not math.isnan(value) else math.inf

    def _max_loss(self) -> float:
        return self.epsilon_at(0.0)


def _measure_name(measurement: Any) -> str:
    try:
        return str(measurement.output_measure)
    except Exception:
        raise PrivriskError(
            f"measurement: {type(measurement).__name__} is not an OpenDP measurement (it has no output_measure)",
            param="measurement",
        ) from None


def from_opendp(measurement: Any, d_in: Any) -> Guarantee:
    """The guarantee an OpenDP measurement gives for inputs at distance ``d_in`` (its privacy map).

    Args:
        measurement: an ``opendp.mod.Measurement``.
        d_in: the input distance (e.g. 1 for one record's change under a count's sensitivity), as OpenDP takes it.

    Raises:
        PrivriskError: for something that is not a measurement, a ``d_in`` OpenDP refuses, or an output measure
            other than the five of the module's docstring.

    Example:
        >>> import opendp.prelude as dp
        >>> dp.enable_features("contrib")
        >>> m = dp.m.make_laplace(dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=2.0)
        >>> from_opendp(m, 1.0).pure_epsilon
        0.5
    """

    measure = _measure_name(measurement)
    try:
        value = measurement.map(d_in)
    except Exception as exc:
        text = " ".join(str(exc).split())[:200]
        raise PrivriskError(f"d_in: OpenDP's privacy map refused {d_in!r}: {text}", param="d_in") from None
    g = _read(measure, value)
    if isinstance(g, OpenDPProfile):
        return g
    # Say where the numbers came from; zCDP and Rényi DP add their own conversion after the source.
    tag = f"read from OpenDP's privacy map ({measure} at d_in = {d_in!r})"
    own = isinstance(g, ZeroConcentratedDP | RenyiDP)
    return replace(g, source=tag if own else f"{tag}; {g.conversion}")  # type: ignore[type-var]


def _read(measure: str, value: Any) -> Guarantee:
    import privrisk.accounting._api as A

    source = f"OpenDP {measure}"
    if measure == "MaxDivergence":
        return A.pure_dp(_number(value, "ε", source))
    if measure == "ZeroConcentratedDivergence":
        return A.zcdp(_number(value, "ρ", source))
    if measure in ("Approximate(MaxDivergence)", "FixedSmoothedMaxDivergence"):
        try:
            eps, delta = (float(x) for x in value)
        except (TypeError, ValueError):
            raise PrivriskError(
                f"measurement: {source} gave {value!r}, not (ε, δ)", param="measurement"
            ) from None
        eps = _number(eps, "ε", source)
        return A.pure_dp(eps) if delta == 0 else A.approximate_dp(eps, delta)
    if measure == "RenyiDivergence":
        orders = [float(a) for a in DEFAULT_ORDERS if a > 1]
        curve = [(a, float(value(a))) for a in orders]
        finite = [(a, e) for a, e in curve if math.isfinite(e) and e >= 0]
        if not finite:
            raise PrivriskError(f"measurement: {source} gave no finite ε_α", param="measurement")
        return A.renyi_dp([a for a, _ in finite], [e for _, e in finite])
    if measure == "SmoothedMaxDivergence":
        return OpenDPProfile(value)
    raise PrivriskError(
        f"measurement: the output measure {measure} is not one privrisk reads (MaxDivergence, "
        "ZeroConcentratedDivergence, Approximate(MaxDivergence), RenyiDivergence, SmoothedMaxDivergence)",
        param="measurement",
    )


def _number(value: Any, symbol: str, source: str) -> float:
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise PrivriskError(
            f"measurement: {source} gave {value!r}, not a number {symbol}", param="measurement"
        ) from None
    if not (math.isfinite(x) and x > 0):
        raise PrivriskError(f"measurement: {source} gave {symbol} = {x:g}; privrisk needs a finite {symbol} > 0",
                            param="measurement")  # fmt: skip
    return x


def from_opacus(history: Sequence[Sequence[float]]) -> Guarantee:
    """The guarantee of an Opacus accountant's history: each ``(noise_multiplier, sample_rate, num_steps)`` is
    that many steps of the Gaussian mechanism with noise multiplier σ on a Poisson sample of rate q; all compose.

    Opacus (``accountant.history``) keeps one entry per run of equal steps; it is the same list whichever of its
    accountants (``rdp``, ``prv``, ``gdp``) was used, so the guarantee here is privrisk's tight one, not
    Opacus' number.

    Args:
        history: one or more triples.

    Raises:
        PrivriskError: (``param="history"``) naming the entry, for anything but σ > 0, q ∈ (0, 1] and a whole
            number of steps ≥ 1.

    Example:
        >>> g = from_opacus([(1.1, 256 / 60_000, 100), (1.1, 256 / 60_000, 50)])
        >>> g.epsilon_at(1e-5) > from_opacus([(1.1, 256 / 60_000, 100)]).epsilon_at(1e-5)
        True
    """
    from privrisk.accounting.composition import compose
    from privrisk.accounting.mechanisms import gaussian_guarantee
    from privrisk.accounting.subsampling import subsample

    if isinstance(history, str | bytes) or not isinstance(history, Sequence) or not history:
        raise PrivriskError(
            "history: give a list of (noise_multiplier, sample_rate, num_steps), as Opacus' accountant.history",
            param="history",
        )
    steps_of: dict[tuple[float, float], int] = {}
    for i, entry in enumerate(history, start=1):
        if isinstance(entry, str | bytes) or not isinstance(entry, Sequence) or len(entry) != 3:
            raise PrivriskError(
                f"history: entry {i} must be (noise_multiplier, sample_rate, num_steps), got {entry!r}",
                param="history",
            )
        values = []
        for value in entry:
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise PrivriskError(f"history: entry {i} holds {value!r}, not a number", param="history")
            values.append(float(value))
        sigma, rate, steps = values
        if not (math.isfinite(sigma) and sigma > 0):
            raise PrivriskError(
                f"history: entry {i}: the noise multiplier must be > 0, got {sigma:g}", param="history"
            )
        if not (math.isfinite(rate) and 0 < rate <= 1):
            raise PrivriskError(
                f"history: entry {i}: the sample rate must be in (0, 1], got {rate:g}", param="history"
            )
        if not (math.isfinite(steps) and steps >= 1 and steps == int(steps)):
            raise PrivriskError(f"history: entry {i}: the steps must be a whole number ≥ 1, got {steps:g}",
                                param="history")  # fmt: skip
        # Entries with the same σ and q are the same mechanism: their steps add up.
        steps_of[(sigma, rate)] = steps_of.get((sigma, rate), 0) + int(steps)
    parts = []
    for (sigma, rate), steps in steps_of.items():
        step = gaussian_guarantee(sigma=sigma)
        if rate < 1:
            step = subsample(step, rate)  # type: ignore[assignment]
        parts.append(step.compose(steps))
    return compose(parts)
