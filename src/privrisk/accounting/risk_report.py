"""ε → risk, one way in: the settings and run functions that ``privrisk risk``, ``epsilon`` and ``table`` and the
app's Risk page all call.

- :class:`RiskSettings` and :func:`run_risk`: the risks of one guarantee (a :class:`GuaranteeSpec`, or a
  :class:`~privrisk.accounting.Guarantee` already built). For a pure ε, and for ε or (ε, δ) as stated, Lee and
  Clifton's risks come first (the many-worlds risk ρ_mw = e^(εΔv/Δf)/(e^(εΔv/Δf) + n − 1), Mehner et al.,
  eq. (1); the two-worlds risk ρ_tw; the global risk ρ_gl = (e^ε + δ)/(1 + e^ε), eq. (3); the leaks Γ and γ,
  §3.4), then the accountant's (:func:`~privrisk.accounting.risk_summary`: membership, TPR at FPR, singling
  out among n, the worst case with the same (ε, δ)). :meth:`RiskRun.to_dict` is ``privrisk risk --json``.
- :class:`EpsilonSettings` and :func:`run_epsilon`: the largest ε that keeps ρ_mw at or below a target
  (``privrisk epsilon``).
- :class:`TableSettings` and :func:`run_table`: risk and leak for several ε and n, Table 1 of Mehner et al.
  (``privrisk table``).

Every rule about which fields go together lives here: a settings object checks its fields when it is made and
raises :class:`~privrisk.errors.PrivriskError` whose ``param`` is the field (the command line names its option,
the app its label, each from its own table). The one rule that needs the built guarantee, "Δv/Δf applies to
a pure ε only", is checked by :func:`run_risk`.

Example:
    >>> from privrisk.accounting import GuaranteeSpec
    >>> run = run_risk(RiskSettings(GuaranteeSpec(epsilon="ln3"), n=10))
    >>> doc = run.to_dict()
    >>> round(doc["many_worlds"], 4), round(doc["global_risk"], 4)     # Mehner et al., Table 1
    (0.25, 0.75)
    >>> RiskSettings(GuaranteeSpec(epsilon=1.0), n=1)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: n: must be a whole number ≥ 2, got 1
"""

from __future__ import annotations

import copy
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, cast

import numpy as np
from numpy.typing import ArrayLike

from privrisk import risk as R
from privrisk._validation import (
    check_choice,
    check_epsilon,
    check_probability,
    check_whole,
    parse_epsilons,
    parse_numbers,
)
from privrisk.accounting.guarantees import Guarantee
from privrisk.accounting.risks import DEFAULT_FPR
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.errors import PrivriskError
from privrisk.progress import Progress, report

__all__ = [
    "EpsilonRun",
    "EpsilonSettings",
    "RiskRun",
    "RiskSettings",
    "TableRun",
    "TableSettings",
    "lee_clifton",
    "run_epsilon",
    "run_risk",
    "run_table",
]

#: The languages of the words for a census user (privrisk.reports.census_words).
LANGUAGES = ("en", "de")
#: n when none is given: two possible worlds, the worst case (Mehner et al., §3.3).
DEFAULT_N = 2
#: The version of the JSON documents of :meth:`RiskRun.to_dict`, :meth:`EpsilonRun.to_dict` and
#: :meth:`TableRun.to_dict` (``privrisk risk``, ``epsilon`` and ``table --json``).
SCHEMA_VERSION = 1
#: The modifiers after which a stated ε is no longer the ε the risks are about.
_MODIFIERS = ("sample_rate", "compose", "group")


def _number(value: Any, param: str) -> float:
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PrivriskError(f"{param}: {value!r} is not a number", param=param) from None


def _sensitivity_ratio(ratio: Any, dv: Any, df: Any) -> float:
    """Δv/Δf from ``ratio`` or from ``dv`` and ``df`` (not both); 1 when none is given (the worst case)."""
    if ratio is not None and (dv is not None or df is not None):
        raise PrivriskError(
            "ratio: give Δv/Δf either as the ratio or as the sensitivities Δv and Δf, not both", param="ratio"
        )
    if dv is not None and df is None:
        raise PrivriskError(
            "dv: the local sensitivity Δv needs the global sensitivity Δf as well", param="dv"
        )
    if df is not None and dv is None:
        raise PrivriskError(
            "df: the global sensitivity Δf needs the local sensitivity Δv as well", param="df"
        )
    if dv is not None:
        local, overall = _number(dv, "dv"), _number(df, "df")
        if not (math.isfinite(overall) and overall > 0):
            raise PrivriskError(
                f"df: the global sensitivity must be greater than 0, got {overall:g}", param="df"
            )
        if not (math.isfinite(local) and local >= 0):
            raise PrivriskError(f"dv: the local sensitivity must be at least 0, got {local:g}", param="dv")
        return local / overall
    value = 1.0 if ratio is None else _number(ratio, "ratio")
    if not (math.isfinite(value) and value >= 0):
        raise PrivriskError(f"ratio: must be a finite number at least 0, got {value:g}", param="ratio")
    return value


def lee_clifton(epsilon: float, delta: float = 0.0, n: int = DEFAULT_N, ratio: float = 1.0) -> dict[str, Any]:
    """Lee and Clifton's risks of one ε (with δ for the global risk), as ``privrisk risk --json`` writes them.

    Keys: ``epsilon``, ``n``, ``ratio``, ``delta``, ``many_worlds`` (ρ_mw, Mehner et al. eq. (1)),
    ``two_worlds`` (ρ_tw, Allmann et al. eq. (6)), ``global_risk`` (ρ_gl, Mehner et al. eq. (3)),
    ``global_leak`` (Γ = 2ρ_gl − 1), ``local_leak`` (γ = (ρ_mw − 1/n)/(1 − 1/n)), ``guess`` (1/n) and
    ``description`` (the sentences for a data subject).

    Example:
        >>> doc = lee_clifton(math.log(3), n=10)
        >>> round(doc["many_worlds"], 4), round(doc["local_leak"], 4), doc["guess"]   # Mehner et al., Table 1
        (0.25, 0.1667, 0.1)
    """
    mw = float(R.many_worlds(epsilon, n, ratio))
    return {
        "epsilon": epsilon,
        "n": n,
        "ratio": ratio,
        "delta": delta,
        "many_worlds": mw,
        "two_worlds": float(R.two_worlds(epsilon, ratio)),
        "global_risk": float(R.global_risk(epsilon, delta)),
        "global_leak": float(R.global_leak(epsilon, delta)),
        # −expm1(−εr)·ρ_mw: (ρ_mw − 1/n)/(1 − 1/n) lost every digit at ε = 10⁻¹², n = 10⁹.
        "local_leak": float(R.local_leak(epsilon, n, ratio)),
        "guess": 1.0 / n,
        "description": _description(epsilon, delta, n, ratio),
    }


def _description(epsilon: float, delta: float, n: int, ratio: float) -> str:
    """:func:`privrisk.describe`'s sentences; with δ > 0 they count ε alone, and a last sentence says what δ adds
    (the global risk with δ, Mehner et al., eq. 3), so that the sentences and the table's ρ_gl agree."""
    text = R.describe(epsilon, n if n > 2 else None, ratio)
    if delta > 0:
        from privrisk._format import below_certainty, number, percent

        with_delta = below_certainty(float(R.global_risk(epsilon, delta)))
        text += (
            f" These sentences count ε alone; with δ = {number(delta)} an attacker may be right up to "
            f"{percent(with_delta)} of the time (the global risk ρ_gl with δ)."
        )
    return text


# ------------------------------------------------------------------------------------------------------ risk
@dataclass(frozen=True)
class RiskSettings:
    """What ``privrisk risk`` (and the app's Risk page) is asked for, checked as a whole when made.

    Args:
        guarantee: the guarantee as stated (:class:`GuaranteeSpec`, built by :func:`run_risk`), or built.
        prior: the attacker's prior p that a person is in the data, in (0, 1).
        fpr: the false-positive rates α for the TPR (numbers, or one text separated by commas).
        n: the possible worlds (candidates) the attacker picks among, ≥ 2; None: 2 for Lee and Clifton's risks
            and no singling-out risk among n.
        at_delta: also give ε at this δ ∈ [0, 1).
        at_epsilon: also give δ at this ε ≥ 0 (a number or ``ln3``).
        ratio: Δv/Δf, local over global sensitivity, for Lee and Clifton's risks of a pure ε (default 1).
        dv, df: the local and the global sensitivity, instead of ``ratio`` (both or neither).
        max_risk: the largest acceptable risk among n (:attr:`RiskRun.risk_for_threshold`), in [0, 1].
        lang: the language of the words for a census user, ``"en"`` or ``"de"`` (German: for a perturbation
            table, ``cell_key``, whose words :mod:`privrisk.reports.census_words` has in both).

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = RiskSettings(GuaranteeSpec(mu=1.0), fpr="0.01, 0.1", at_epsilon="ln3")
        >>> s.fpr, round(s.at_epsilon, 4), s.sensitivity_ratio
        ((0.01, 0.1), 1.0986, 1.0)
        >>> RiskSettings(GuaranteeSpec(epsilon=1.0), ratio=0.5, dv=1, df=2)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: ratio: give Δv/Δf either as the ratio or as the sensitivities Δv and Δf, not both
    """

    guarantee: GuaranteeSpec | Guarantee
    prior: float = 0.5
    fpr: Sequence[float] | str = DEFAULT_FPR
    n: int | None = None
    at_delta: float | None = None
    at_epsilon: float | str | None = None
    ratio: float | None = None
    dv: float | None = None
    df: float | None = None
    max_risk: float | None = None
    lang: str = "en"

    def __post_init__(self) -> None:
        if not isinstance(self.guarantee, GuaranteeSpec | Guarantee):
            raise PrivriskError(
                f"guarantee: give a GuaranteeSpec or a Guarantee, got {type(self.guarantee).__name__}",
                param="guarantee",
            )
        self._set("lang", check_choice(self.lang, LANGUAGES, name="lang"))
        if self.lang != "en" and not (
            isinstance(self.guarantee, GuaranteeSpec) and self.guarantee.cell_key is not None
        ):
            raise PrivriskError("lang: words in German are given for a cell-key perturbation table only; the other "
                                "methods are described in English", param="lang")  # fmt: skip
        if self.max_risk is not None:
            self._set(
                "max_risk", float(check_probability(_number(self.max_risk, "max_risk"), name="max_risk"))
            )
        self._set(
            "prior",
            float(
                check_probability(_number(self.prior, "prior"), name="prior", open_low=True, open_high=True)
            ),
        )
        rates = parse_numbers(self.fpr, name="fpr") if isinstance(self.fpr, str) else list(self.fpr)
        checked = np.atleast_1d(check_probability(rates, name="fpr")).ravel()
        if checked.size == 0:
            raise PrivriskError("fpr: give at least one false-positive rate", param="fpr")
        self._set("fpr", tuple(float(a) for a in checked))
        if self.at_delta is not None:
            d = _number(self.at_delta, "at_delta")
            if not (math.isfinite(d) and 0 <= d < 1):
                raise PrivriskError(f"at_delta: must be in [0, 1), got {d:g}", param="at_delta")
            self._set("at_delta", d)
        if self.at_epsilon is not None:
            self._set("at_epsilon", check_epsilon(self.at_epsilon, name="at_epsilon", allow_zero=True))
        if self.n is not None:
            self._set("n", check_whole(self.n, name="n", minimum=2))
        _sensitivity_ratio(self.ratio, self.dv, self.df)

    def _set(self, name: str, value: Any) -> None:
        object.__setattr__(self, name, value)  # frozen: the checked value replaces the one given, once

    @property
    def sensitivity_ratio(self) -> float:
        """Δv/Δf: ``ratio``, or ``dv``/``df``, or 1 (Δv = Δf, the worst case)."""
        return _sensitivity_ratio(self.ratio, self.dv, self.df)

    @property
    def ratio_given(self) -> str | None:
        """The field that set Δv/Δf (``ratio`` or ``dv``), or None when it is the default."""
        if self.ratio is not None:
            return "ratio"
        return "dv" if self.dv is not None else None

    @property
    def stated_epsilon(self) -> bool:
        """True if the guarantee is stated as ε or (ε, δ) with no mechanism and no modifier: Lee and Clifton's
        risks are then those of that ε (with δ in the global risk) even when it is not pure."""
        g = self.guarantee
        if not isinstance(g, GuaranteeSpec) or g.epsilon is None or g.mechanism is not None:
            return False
        others = (g.renyi, g.dpsgd, g.releases, g.opacus_history)
        # A modifier of 1 (compose 1, group 1, rate 1) counts too, as the command line always counted it.
        return all(x is None for x in others) and not any(getattr(g, m) for m in _MODIFIERS)


@dataclass(frozen=True, eq=False)
class RiskRun:
    """What :func:`run_risk` found.

    Attributes:
        settings: the settings run.
        guarantee: the guarantee built.
        lee_clifton: Lee and Clifton's risks (:func:`lee_clifton`) for a pure or a stated ε; else None.
        summary: the accountant's risks (:func:`~privrisk.accounting.risk_summary`).
        census: a statistical office's method's own numbers (:func:`~privrisk.accounting.census_facts.
            census_facts`), or None for any other guarantee.
        spec: the guarantee as stated, its files read (None when the settings gave a built guarantee).
    """

    settings: RiskSettings
    guarantee: Guarantee
    lee_clifton: Mapping[str, Any] | None
    summary: Mapping[str, Any]
    census: Mapping[str, Any] | None = None
    spec: GuaranteeSpec | None = None

    def to_dict(self) -> dict[str, Any]:
        """``privrisk risk --json``: ``schema_version``, Lee and Clifton's keys (when there are), then
        ``prior``, :func:`~privrisk.accounting.risk_summary`'s keys and ``risk_judged``: the one risk that
        ``max_risk`` judges (:attr:`risk_for_threshold`), as ``{"key", "n", "value", "what"}``, where ``key``
        names the key of this document that holds the same value (``many_worlds``, or ``reconstruction``, which
        is None when no n was given: the value judged is then the risk among n = 2), and for a statistical office's
        method ``census``, its own numbers (:func:`~privrisk.accounting.census_facts.census_facts`)."""
        doc: dict[str, Any] = {"schema_version": SCHEMA_VERSION, **(self.lee_clifton or {})}
        doc.update({"prior": self.settings.prior, **copy.deepcopy(dict(self.summary))})
        if self.census is not None:
            doc["census"] = copy.deepcopy(dict(self.census))
        value, what = self.risk_for_threshold
        doc["risk_judged"] = {"key": self.judged_key, "n": self.settings.n or DEFAULT_N, "value": value,
                              "what": what}  # fmt: skip
        return doc

    def sentence(self) -> str:
        """The verdict first, in plain words: the risk judged against ``max_risk`` (when set), then what the best
        attacker achieves.

        Example:
            >>> run_risk(RiskSettings(GuaranteeSpec(epsilon="ln3"), n=10, max_risk=0.2)).sentence()
            'Too risky: with ε = 1.099 (pure differential privacy), the many-worlds risk ρ_mw among n = 10 (Δv/Δf = 1) is 25.0%, above the largest acceptable risk of 20.0%.'
        """
        from privrisk._format import below_certainty, percent

        value, what = self.risk_for_threshold
        said = f"with {self.guarantee.label}, {what} is {percent(below_certainty(value))}"
        limit = self.settings.max_risk
        if limit is not None and self.exceeds():
            return f"Too risky: {said}, above the largest acceptable risk of {percent(limit)}."
        if limit is not None:
            return f"Within the limit: {said}, at or below the largest acceptable risk of {percent(limit)}."
        success = percent(below_certainty(float(self.summary["success"])))
        return (
            f"{said[:1].upper()}{said[1:]}; the best attacker tells whether one person is in the data with success "
            f"{success}."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``risk.json`` (:meth:`to_dict`) and ``manifest.json`` into ``folder``, whole or not at all.

        Returns:
            The paths written, ``manifest.json`` last.
        """
        from privrisk.accounting._folder import write_run_folder

        doc = self.to_dict()
        s = self.settings
        parameters = {"guarantee": self.guarantee.label, "prior": s.prior, "fpr": list(cast(Sequence[float], s.fpr)),
                      "n": s.n, "max_risk": s.max_risk}  # fmt: skip
        summary: dict[str, Any] = {k: doc[k] for k in ("advantage", "success", "risk_judged") if k in doc}
        return write_run_folder(folder, kind="risk", title=f"The risks of {self.guarantee.label}", document=doc,
                                parameters=parameters, summary=summary, findings=[self.sentence()])  # fmt: skip

    @property
    def judged_key(self) -> str:
        """The key of :meth:`to_dict` whose value ``max_risk`` judges: ``many_worlds`` (Lee and Clifton's ρ_mw, for
        a pure ε) or ``reconstruction`` (the risk among n of the whole guarantee)."""
        if self.guarantee.pure_epsilon is not None and self.lee_clifton is not None:
            return "many_worlds"
        return "reconstruction"

    @cached_property
    def risk_for_threshold(self) -> tuple[float, str]:
        """The risk ``max_risk`` is compared with, and what it is in words.

        Lee and Clifton's ρ_mw (with Δv/Δf) for a pure ε; otherwise the f-DP risk among n, 1 − β(1/n)
        (:func:`~privrisk.accounting.reconstruction_risk`), which counts δ (their ρ_mw of an (ε, δ) guarantee
        would ignore it). n is 2 when the settings give none.
        """
        n = self.settings.n or DEFAULT_N
        if self.judged_key == "many_worlds":
            assert self.lee_clifton is not None
            ratio = float(self.lee_clifton["ratio"])
            return (
                float(self.lee_clifton["many_worlds"]),
                f"the many-worlds risk ρ_mw among n = {n:,} (Δv/Δf = {ratio:.4g})",
            )
        if self.summary.get("reconstruction") is not None:
            # The value shown, held at or below the worst case's.
            value = float(self.summary["reconstruction"])
        else:
            from privrisk.accounting.risks import reconstruction_risk

            value = reconstruction_risk(self.guarantee, n)
        return value, f"the risk among n = {n:,} (the whole guarantee, δ included)"

    def exceeds(self) -> bool:
        """True if ``max_risk`` is set and :attr:`risk_for_threshold` is above it."""
        limit = self.settings.max_risk
        return limit is not None and self.risk_for_threshold[0] > limit

    def curves(self, epsilons: ArrayLike) -> dict[str, np.ndarray]:
        """Lee and Clifton's risks of this run's n, Δv/Δf and δ at each ε (the page's risk against ε).

        Keys: ``many_worlds`` (ρ_mw), ``global_risk`` (ρ_gl with δ) and, for δ = 0, ``posterior`` (the largest
        belief p·e^ε/(p·e^ε + 1 − p) for the prior p; with δ > 0 it is 1 at every ε).

        Raises:
            PrivriskError: (param ``guarantee``) when the run has no Lee and Clifton risks.
        """
        if self.lee_clifton is None:
            raise PrivriskError(
                "guarantee: Lee and Clifton's risks need a pure ε or a stated ε", param="guarantee"
            )
        lc = self.lee_clifton
        grid = np.asarray(epsilons, dtype=float)
        out = {
            "many_worlds": np.asarray(R.many_worlds(grid, lc["n"], lc["ratio"]), dtype=float),
            "global_risk": np.asarray(R.global_risk(grid, lc["delta"]), dtype=float),
        }
        if lc["delta"] == 0:
            out["posterior"] = np.asarray(R.posterior_bound(grid, self.settings.prior), dtype=float)
        return out


def run_risk(
    settings: RiskSettings, *, progress: Progress | None = None, names: Mapping[str, str] | None = None
) -> RiskRun:
    """Build the guarantee and compute its risks.

    Args:
        settings: what to compute (checked when it was made).
        progress: told when the guarantee is built and when its risks are computed.
        names: deprecated (a front end names an error's ``param`` itself); messages name the fields.

    Raises:
        PrivriskError: a guarantee that does not hold (its field), or Δv/Δf given for a guarantee that is not
            pure ε (``ratio`` or ``dv``).

    Example:
        >>> run = run_risk(RiskSettings(GuaranteeSpec(mu=1.0), n=10, max_risk=0.2))
        >>> run.lee_clifton is None, run.exceeds(), run.risk_for_threshold[1]
        (True, True, 'the risk among n = 10 (the whole guarantee, δ included)')
        >>> run_risk(RiskSettings(GuaranteeSpec(rho=1.0), ratio=0.5))
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: ratio: Δv/Δf applies to a pure ε guarantee only (Lee and Clifton's risks)
    """
    from privrisk.accounting.census_facts import census_facts, loaded_spec
    from privrisk.accounting.risks import risk_summary

    if names is not None:
        warnings.warn(
            "run_risk(names=...) is deprecated: errors carry the field as param, which a front end names itself",
            DeprecationWarning,
            stacklevel=2,
        )
    s = settings
    report(progress, 0.0, "Building the guarantee")
    spec = loaded_spec(s.guarantee) if isinstance(s.guarantee, GuaranteeSpec) else s.guarantee
    g = spec.build(names=names) if isinstance(spec, GuaranteeSpec) else spec
    pure = g.pure_epsilon
    stated = s.stated_epsilon
    given = s.ratio_given
    if pure is None and not stated and given is not None:
        raise PrivriskError(
            f"{given}: Δv/Δf applies to a pure ε guarantee only (Lee and Clifton's risks)", param=given
        )
    at_epsilon = None if s.at_epsilon is None else float(s.at_epsilon)
    report(progress, 0.5, "Computing the risks")
    summary = risk_summary(
        g,
        prior=s.prior,
        fpr=tuple(cast(Sequence[float], s.fpr)),
        n=s.n,
        at_delta=s.at_delta,
        at_epsilon=at_epsilon,
    )
    keys = None
    if pure is not None:
        keys = lee_clifton(pure, 0.0, s.n or DEFAULT_N, s.sensitivity_ratio)
    elif stated and isinstance(spec, GuaranteeSpec):
        # ε as stated with its δ: Lee and Clifton's ρ_mw ignores δ, the global risk counts it (Mehner et al.).
        eps = check_epsilon(spec.epsilon)
        keys = lee_clifton(eps, float(spec.delta or 0.0), s.n or DEFAULT_N, s.sensitivity_ratio)
    if isinstance(spec, GuaranteeSpec):
        run = RiskRun(s, g, keys, summary, census_facts(spec), spec)
    else:
        run = RiskRun(s, g, keys, summary)
    report(progress, 1.0, "Done")
    return run


# --------------------------------------------------------------------------------------------------- epsilon
@dataclass(frozen=True)
class EpsilonSettings:
    """What ``privrisk epsilon`` is asked for: the largest ε that keeps ρ_mw at or below ``risk``.

    Args:
        risk: the target ρ, strictly between 1/n (what guessing achieves) and 1.
        n: the possible worlds, ≥ 2 (2: the worst case).
        ratio: Δv/Δf > 0 (default 1); or ``dv`` and ``df``, the local and the global sensitivity.

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> EpsilonSettings(risk=0.05, n=10)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: risk: must exceed 1/n = 0.1, what guessing alone achieves; no ε > 0 keeps the risk lower
    """

    risk: float
    n: int = DEFAULT_N
    ratio: float | None = None
    dv: float | None = None
    df: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "n", check_whole(self.n, name="n", minimum=2))
        if self.risk is None:
            raise PrivriskError("risk: required, a number between 1/n and 1", param="risk")
        rho = float(check_probability(_number(self.risk, "risk"), name="risk"))
        object.__setattr__(self, "risk", rho)
        # The closed form's own checks (Δv/Δf > 0, 1/n < ρ < 1), once here so that settings that are made run.
        R.epsilon_for_risk(rho, self.n, _sensitivity_ratio(self.ratio, self.dv, self.df))

    @property
    def sensitivity_ratio(self) -> float:
        """Δv/Δf: ``ratio``, or ``dv``/``df``, or 1."""
        return _sensitivity_ratio(self.ratio, self.dv, self.df)


@dataclass(frozen=True)
class EpsilonRun:
    """The largest ε for the target: ε = ln((n − 1)·ρ/(1 − ρ)) / (Δv/Δf) (Lee and Clifton 2011)."""

    settings: EpsilonSettings
    epsilon: float

    def to_dict(self) -> dict[str, Any]:
        """``privrisk epsilon --json``."""
        s = self.settings
        return {"schema_version": SCHEMA_VERSION, "risk": s.risk, "n": s.n, "ratio": s.sensitivity_ratio,
                "epsilon": self.epsilon}  # fmt: skip

    def sentence(self) -> str:
        """The answer first: the largest ε, and the risk it keeps.

        Example:
            >>> run_epsilon(EpsilonSettings(risk=0.75)).sentence()
            'ε ≤ 1.09861 keeps the many-worlds risk at or below 75.0% for an attacker choosing among 2 possible worlds (Δv/Δf = 1).'
        """
        from privrisk._format import percent

        s = self.settings
        return (
            f"ε ≤ {self.epsilon:.6g} keeps the many-worlds risk at or below {percent(s.risk)} for an attacker "
            f"choosing among {s.n:,} possible worlds (Δv/Δf = {s.sensitivity_ratio:.4g})."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``epsilon.json`` (:meth:`to_dict`) and ``manifest.json`` into ``folder``, whole or not at all."""
        from privrisk.accounting._folder import write_run_folder

        doc = self.to_dict()
        return write_run_folder(folder, kind="epsilon", title="The largest ε for a target risk", document=doc,
                                parameters={k: doc[k] for k in ("risk", "n", "ratio")},
                                summary={"epsilon": self.epsilon}, findings=[self.sentence()])  # fmt: skip


def run_epsilon(settings: EpsilonSettings, *, progress: Progress | None = None) -> EpsilonRun:
    """The largest ε that keeps ρ_mw at or below the target.

    Raises:
        PrivriskError: (param ``ratio``) when Δv/Δf is so small that this ε is not finite.

    Example:
        >>> round(run_epsilon(EpsilonSettings(risk=0.25, n=10)).epsilon, 6) == round(math.log(3), 6)
        True
    """
    s = settings
    r = s.sensitivity_ratio
    report(progress, 0.0, "Solving for ε")
    eps = float(R.epsilon_for_risk(s.risk, s.n, r))
    if not math.isfinite(eps):
        raise PrivriskError(
            f"ratio: {r:.4g} is so small that the ε for risk {s.risk:g} is not finite; give a larger ratio",
            param="ratio",
        )
    report(progress, 1.0, "Done")
    return EpsilonRun(s, eps)


# ----------------------------------------------------------------------------------------------------- table
@dataclass(frozen=True)
class TableSettings:
    """What ``privrisk table`` is asked for: risk and leak for every ε and n (Table 1 of Mehner et al.).

    Args:
        epsilons: the ε values, each finite and > 0 (numbers or ``ln3``; or one text separated by commas).
        ns: the numbers of possible worlds, each a whole number ≥ 2 (or one text separated by commas).

    Example:
        >>> s = TableSettings("ln2, ln3", "2,10")
        >>> [round(e, 4) for e in s.epsilons], s.ns
        ([0.6931, 1.0986], (2, 10))
    """

    epsilons: Sequence[float | str] | str = ("ln2", "ln3", "ln7")
    ns: Sequence[int] | str = (2, 10, 100)

    def __post_init__(self) -> None:
        e = self.epsilons
        if isinstance(e, str):
            eps = parse_epsilons(e, name="epsilons")
        else:
            eps = [check_epsilon(x, name="epsilons") for x in e]
            if not eps:
                raise PrivriskError("epsilons: give at least one value", param="epsilons")
        object.__setattr__(self, "epsilons", tuple(eps))
        ns = self.ns
        if isinstance(ns, str):
            try:
                values = [int(x) for x in ns.split(",") if x.strip()]
            except ValueError:
                raise PrivriskError(f"ns: {ns!r} is not a list of whole numbers", param="ns") from None
        else:
            values = list(ns)
        if not values:
            raise PrivriskError("ns: give whole numbers of at least 2", param="ns")
        for value in values:
            try:
                check_whole(value, name="ns", minimum=2)
            except PrivriskError:
                raise PrivriskError(
                    f"ns: give whole numbers of at least 2, got {value!r}", param="ns"
                ) from None
        object.__setattr__(self, "ns", tuple(int(v) for v in values))


@dataclass(frozen=True)
class TableRun:
    """What :func:`run_table` found.

    Attributes:
        settings: the settings run.
        epsilons, ns: the ε values and the numbers of possible worlds, as checked.
        rows: one ``{"epsilon", "n", "risk", "leak"}`` per (ε, n), ε varying slowest; for n = 2 the risk is ρ_gl
            and the leak Γ, for n > 2 ρ_mw (Δv = Δf) and γ.
    """

    settings: TableSettings
    epsilons: tuple[float, ...]
    ns: tuple[int, ...]
    rows: tuple[Mapping[str, float | int], ...]

    def to_dict(self) -> dict[str, Any]:
        """``privrisk table --json``."""
        return {"schema_version": SCHEMA_VERSION, "rows": [dict(row) for row in self.rows]}

    def sentence(self) -> str:
        """The range of the risks first, then what the table holds.

        Example:
            >>> run_table(TableSettings("ln3", "2,10")).sentence()
            'The risk ranges from 25.0% to 75.0% over 1 ε and 2 numbers of possible worlds (n = 2: the global risk ρ_gl; n > 2: the many-worlds risk ρ_mw).'
        """
        from privrisk._format import percent

        risks = [float(r["risk"]) for r in self.rows]
        return (
            f"The risk ranges from {percent(min(risks))} to {percent(max(risks))} over {len(self.epsilons)} ε and "
            f"{len(self.ns)} numbers of possible worlds (n = 2: the global risk ρ_gl; n > 2: the many-worlds risk "
            "ρ_mw)."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``table.json`` (:meth:`to_dict`) and ``manifest.json`` into ``folder``, whole or not at all."""
        from privrisk.accounting._folder import write_run_folder

        risks = [float(r["risk"]) for r in self.rows]
        return write_run_folder(folder, kind="table", title="Risk and leak per ε and n", document=self.to_dict(),
                                parameters={"epsilons": list(self.epsilons), "ns": list(self.ns)},
                                summary={"least_risk": min(risks), "largest_risk": max(risks)},
                                findings=[self.sentence()])  # fmt: skip

    def row(self, epsilon: float, n: int) -> Mapping[str, float | int]:
        """The row of one ε and n."""
        return next(r for r in self.rows if r["epsilon"] == epsilon and r["n"] == n)


def run_table(settings: TableSettings, *, progress: Progress | None = None) -> TableRun:
    """Risk and leak for every ε and n (:func:`privrisk.risk.risk_rows`).

    Example:
        >>> [f"{row['risk']:.1%}" for row in run_table(TableSettings("ln3", "2,10")).rows]   # Mehner et al.
        ['75.0%', '25.0%']
    """
    # The settings hold the checked values (floats and whole numbers) in place of the text given.
    epsilons = tuple(cast(Sequence[float], settings.epsilons))
    ns = tuple(cast(Sequence[int], settings.ns))
    report(progress, 0.0, "Computing the table")
    run = TableRun(settings, epsilons, ns, tuple(R.risk_rows(list(epsilons), list(ns))))
    report(progress, 1.0, "Done")
    return run
