"""One way into calibration: the settings of ``privrisk calibrate``, checked once, and the function that runs them.

:class:`CalibrationSettings` holds what a calibration is asked for: the target (which risk, its bound, and the
false-positive rate or the number of candidates it needs), what to solve for (by default what the mechanism
needs: the Laplace scale b, the Gaussian σ, the ε of randomized response, else ε), the mechanism, the given
parameters of one release (to solve for the sample rate or the number of steps), δ, the sensitivity Δ and the
modifiers of a composition (sample rate, sampling, compose, group) and the attacker's prior. It is frozen and
checks every combination of its fields when it is made; an error is a :class:`~privrisk.errors.PrivriskError`
whose ``param`` is the field, with the fields named by ``names`` (the command line passes its options, so that
``--n: only with the target risk`` names what the user typed; default: the field's own name).

:func:`run_calibration` runs :func:`privrisk.accounting.calibrate` on them and returns a
:class:`CalibrationRun`, whose :meth:`~CalibrationRun.to_dict` is the JSON document of ``privrisk calibrate
--json``.

Example (the advantage of ε-DP is (e^ε − 1)/(e^ε + 1), so an advantage of ½ allows ε = ln 3):
    >>> run = run_calibration(CalibrationSettings(target="advantage", value=0.5))
    >>> round(run.calibration.parameter, 9) == round(math.log(3), 9)
    True
    >>> CalibrationSettings(target="success", value=0.6, n=10)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: n: only with the target risk
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from privrisk._validation import check_choice
from privrisk.accounting.calibration import MECHANISMS, TARGETS, Calibration, _arguments, calibrate
from privrisk.errors import PrivriskError
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    from privrisk.accounting.guarantees import Guarantee

__all__ = ["SAMPLINGS", "SOLVE_FOR", "CalibrationRun", "CalibrationSettings", "run_calibration"]

#: The version of :meth:`CalibrationRun.to_dict`'s document (``privrisk calibrate --json``).
SCHEMA_VERSION = 1
#: What can be solved for (a dash may stand for the underscore: ``sample-rate``).
SOLVE_FOR = ("epsilon", "rho", "mu", "scale", "sigma", "sample_rate", "steps")
#: How each release's sample is drawn (an underscore may stand for the dash), as :class:`GuaranteeSpec` spells it.
SAMPLINGS = ("poisson", "without-replacement")
#: The parameters of one release, for solving the sample rate or the number of steps.
RELEASE_FIELDS = ("epsilon", "rho", "mu", "scale", "sigma")
#: What each mechanism is solved for by default (None: a definition, solved for ε).
DEFAULT_SOLVE_FOR: Mapping[str | None, str] = MappingProxyType(
    {"laplace": "scale", "gaussian": "sigma", "rr": "epsilon", None: "epsilon"}
)


@dataclass(frozen=True)
class CalibrationSettings:
    """What a calibration is asked for, checked as a whole when made.

    Args:
        target: the risk bounded: ``"advantage"`` or ``"success"`` (membership, with ``prior``), ``"tpr"`` (the
            true-positive rate at ``fpr``), ``"risk"`` (singling out one of ``n``) or ``"epsilon"`` (ε at
            ``delta``); or a mapping of these names to bounds, of which exactly one is not None (a front end with
            one input per target passes them all; its bound becomes ``value``).
        value: the bound: a probability strictly between what guessing achieves and 1, or ε > 0 for
            ``"epsilon"`` (a number or ``ln3``); for ``"tpr"`` also the text ``"TPR@FPR"`` (``"0.1@0.01"``),
            which sets ``fpr``. None when ``target`` is a mapping.
        fpr: the false-positive rate of the target ``"tpr"`` (only there).
        n: the number of candidates of the target ``"risk"`` (only there).
        solve_for: ``"epsilon"``, ``"rho"``, ``"mu"``, ``"scale"``, ``"sigma"``, ``"sample_rate"`` or ``"steps"``;
            None for what ``mechanism`` needs (:data:`DEFAULT_SOLVE_FOR`). Stored with underscores.
        mechanism: ``"laplace"``, ``"gaussian"``, ``"rr"`` or None (a definition).
        epsilon, rho, mu, scale, sigma: a parameter of one release (with ``mechanism`` for scale and σ), given
            only to solve for the sample rate or the number of steps.
        delta: δ of the target ``"epsilon"``; else δ of (ε, δ)-DP (solving ε of a definition, or σ of one
            Gaussian release by the analytic Gaussian mechanism), or of the one release given.
        sensitivity: Δ of the query (None: 1).
        sample_rate: each release sees a sample of this rate (None: the whole data).
        sampling: ``"poisson"`` (None: the default) or ``"without-replacement"``, only with a sample rate.
        compose: how many releases compose (None: 1).
        group: protect groups of this size (None: 1).
        prior: p, the attacker's prior that a person is in the data.
        names: how messages name each field (the command line passes its options); not compared.

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = CalibrationSettings(target="advantage", value=0.2, mechanism="gaussian", compose=4)
        >>> s.solve_for, s.how
        ('sigma', 'poisson')
        >>> CalibrationSettings(target="epsilon", value="ln3", names={"delta": "δ"})
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: δ: the target epsilon (value) is ε at a δ; give δ
    """

    target: str | Mapping[str, float | str | None]
    value: float | str | None = None
    fpr: float | None = None
    n: int | None = None
    solve_for: str | None = None
    mechanism: str | None = None
    epsilon: float | str | None = None
    rho: float | None = None
    mu: float | None = None
    scale: float | None = None
    sigma: float | None = None
    delta: float | None = None
    sensitivity: float | None = None
    sample_rate: float | None = None
    sampling: str | None = None
    compose: int | None = None
    group: int | None = None
    prior: float = 0.5
    names: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)

    def _n(self, name: str) -> str:
        return self.names.get(name, name)

    def _fail(self, name: str, text: str) -> PrivriskError:
        return PrivriskError(f"{self._n(name)}: {text}", param=name)

    def __post_init__(self) -> None:
        object.__setattr__(self, "names", MappingProxyType(dict(self.names)))
        try:
            self._check()
        except PrivriskError as exc:
            raise self.named(exc) from None

    def named(self, exc: PrivriskError) -> PrivriskError:
        """``exc`` with its leading parameter named by :attr:`names` (as is, if it names no field)."""
        param, text = exc.param, str(exc)
        if param is None or param not in self.names or not text.startswith(f"{param}:"):
            return exc
        return PrivriskError(self._n(param) + text[len(param) :], param=param)

    def _one_target(self) -> None:
        """``target`` as a mapping of the targets a front end offers: exactly one is given, its bound is the value
        (and a ``"TPR@FPR"`` text sets ``fpr``); the names of ``target_<name>`` name the target and its value."""
        if isinstance(self.target, Mapping):
            given = [(str(k), v) for k, v in self.target.items() if v is not None]
            if len(given) != 1:
                n = self._n
                got = " and ".join(n(f"target_{k}") for k, _ in given) or "none"
                lead = f"target_{given[1][0] if given else 'advantage'}"
                raise PrivriskError(
                    f"{n(lead)}: give exactly one of {n('target_advantage')}, {n('target_success')}, "
                    f"{n('target_tpr')} A@FPR, {n('target_risk')} or {n('target_epsilon')}; got {got}",
                    param="target",
                )
            if self.value is not None:
                raise PrivriskError(
                    "value: give the bound in target, or target as a name; not both", param="value"
                )
            name, value = given[0]
            if f"target_{name}" in self.names:
                shown = self.names[f"target_{name}"]
                object.__setattr__(
                    self, "names", MappingProxyType({**self.names, "target": shown, "value": shown})
                )
            object.__setattr__(self, "target", name)
            object.__setattr__(self, "value", value)
        if self.target == "tpr" and isinstance(self.value, str):
            head, at, tail = self.value.partition("@")
            try:
                tpr, rate = float(head), float(tail) if at else math.nan
            except ValueError:
                raise self._fail("value", f"give TPR@FPR such as 0.1@0.01, got {self.value!r}") from None
            if at and self.fpr is not None:
                raise self._fail("fpr", f"given twice: in {self._n('value')} and as {self._n('fpr')}")
            object.__setattr__(self, "value", tpr)
            object.__setattr__(self, "fpr", rate if self.fpr is None else self.fpr)
        if self.value is None:
            raise self._fail("value", "give the bound of the target")

    def _check(self) -> None:
        n = self._n
        self._one_target()
        target = check_choice(self.target, TARGETS, name="target")
        object.__setattr__(self, "target", target)
        mechanism = (
            None if self.mechanism is None else check_choice(self.mechanism, MECHANISMS, name="mechanism")
        )
        object.__setattr__(self, "mechanism", mechanism)
        given = [f for f in RELEASE_FIELDS if getattr(self, f) is not None]
        if self.solve_for is None and given:
            raise self._fail(
                "solve_for", f"with {n(given[0])} given, say what to solve for: sample-rate or steps"
            )
        wanted = (
            DEFAULT_SOLVE_FOR[mechanism] if self.solve_for is None else str(self.solve_for).replace("-", "_")
        )
        solve = check_choice(wanted, SOLVE_FOR, name="solve_for")
        object.__setattr__(self, "solve_for", solve)
        if target == "risk" and self.n is None:
            raise self._fail("n", f"the target risk needs the number of candidates {n('n')}")
        if self.n is not None and target != "risk":
            raise self._fail("n", "only with the target risk")
        if target == "tpr" and self.fpr is None:
            raise self._fail("fpr", "the target tpr needs a false-positive rate")
        if self.fpr is not None and target != "tpr":
            raise self._fail("fpr", "only with the target tpr")
        if target == "epsilon" and self.delta is None:
            raise self._fail("delta", f"the target epsilon ({n('value')}) is ε at a δ; give {n('delta')}")
        if self.delta is not None and not (math.isfinite(self.delta) and 0 <= self.delta < 1):
            raise self._fail("delta", f"must be in [0, 1), got {self.delta:g}")
        if self.sampling is not None:
            how = check_choice(str(self.sampling).replace("_", "-"), SAMPLINGS, name="sampling")
            object.__setattr__(self, "sampling", how)
        if self.sampling is not None and self.sample_rate is None and solve != "sample_rate":
            raise self._fail("sampling", f"only with {n('sample_rate')} (or solving for sample-rate)")
        if solve in ("sample_rate", "steps"):
            if not given and mechanism is None:
                raise self._fail(
                    "solve_for",
                    "to solve for the sample rate or the steps, give one release: "
                    f"{n('epsilon')} E, {n('rho')} R, {n('mu')} M or {n('mechanism')} laplace|gaussian|rr with "
                    "its parameter",
                )
        elif given:
            raise self._fail(
                given[0], "a given parameter of one release is for solving for sample-rate or steps"
            )
        if self.sensitivity is not None and not (math.isfinite(self.sensitivity) and self.sensitivity > 0):
            raise self._fail(
                "sensitivity", f"must be a finite number greater than 0, got {self.sensitivity:g}"
            )
        # Every check calibrate() makes, before any search (a release given is built, which checks it).
        _arguments(**self._calibrate_arguments(self.release()))

    @property
    def how(self) -> str:
        """How each release's sample is drawn: ``sampling``, or Poisson when it is not set."""
        return self.sampling or "poisson"

    def release(self) -> Guarantee | None:
        """The guarantee of the one release given (solving for the sample rate or the steps); None otherwise.

        Example:
            >>> s = CalibrationSettings(target="success", value=0.6, epsilon="ln3", solve_for="sample-rate")
            >>> round(s.release().epsilon_at(0.0), 4)           # ε of the pure release: ln 3
            1.0986
        """
        if self.solve_for not in ("sample_rate", "steps"):
            return None
        from privrisk.accounting.spec import GuaranteeSpec

        # delta is the release's own (ε, δ) unless it is the δ of the target epsilon.
        spec = GuaranteeSpec(
            epsilon=self.epsilon,
            delta=None if self.target == "epsilon" else self.delta,
            rho=self.rho,
            mu=self.mu,
            mechanism=self.mechanism,
            scale=self.scale,
            sigma=self.sigma,
            sensitivity=self.sensitivity,
        )
        return spec.build(names=self.names)

    def _calibrate_arguments(self, release: Guarantee | None) -> dict[str, Any]:
        """The keyword arguments of :func:`privrisk.accounting.calibrate` (the release replaces mechanism and Δ)."""
        one = release is not None
        return {
            "target": self.target,
            "value": self.value,
            "solve_for": self.solve_for,
            "mechanism": None if one else self.mechanism,
            "delta": self.delta if not one or self.target == "epsilon" else None,
            "sensitivity": 1.0 if one or self.sensitivity is None else self.sensitivity,
            "fpr": self.fpr,
            "n": self.n,
            "prior": self.prior,
            "sample_rate": self.sample_rate,
            "compose": 1 if self.compose is None else self.compose,
            "group": 1 if self.group is None else self.group,
            "sampling": self.how.replace("-", "_"),
            "guarantee": release,
        }


@dataclass(frozen=True)
class CalibrationRun:
    """The result of :func:`run_calibration`: the settings and the :class:`~privrisk.accounting.Calibration`."""

    settings: CalibrationSettings
    calibration: Calibration

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of ``privrisk calibrate --json``.

        Example:
            >>> doc = run_calibration(CalibrationSettings(target="success", value=0.75)).to_dict()
            >>> doc["solve_for"], round(doc["parameter"], 4), doc["sampling"]
            ('epsilon', 1.0986, None)
        """
        s, c = self.settings, self.calibration
        return {"schema_version": SCHEMA_VERSION, "target": c.target, "target_value": c.target_value, "fpr": s.fpr, "n": s.n, "prior": s.prior,
                "delta": c.delta, "solve_for": c.solve_for, "parameter": c.parameter, "achieved": c.achieved,
                "sample_rate": c.sample_rate, "sampling": s.how if c.sample_rate is not None else None,
                "compose": c.compose, "group": c.group, "method": c.method, "guarantee": c.guarantee.label,
                "conversion": c.guarantee.conversion}  # fmt: skip

    def sentence(self) -> str:
        """The answer first: the parameter found, its guarantee, and the risk it gives against the target.

        Example:
            >>> run_calibration(CalibrationSettings(target="success", value=0.75)).sentence()
            'The largest ε is 1.09861 (ε = 1.099 (pure differential privacy)): it gives the best attacker a success of 0.75 (target 0.75).'
        """
        c = self.calibration
        best = "least" if c.solve_for in ("scale", "sigma") else "largest"
        symbol = {"epsilon": "ε", "rho": "ρ", "mu": "μ", "scale": "Laplace scale b", "sigma": "Gaussian σ",
                  "sample_rate": "sample rate", "steps": "number of steps"}[c.solve_for]  # fmt: skip
        shown = f"{int(c.parameter):,}" if c.solve_for == "steps" else f"{c.parameter:.6g}"
        what = {"advantage": "an advantage", "success": "a success", "tpr": "a true-positive rate",
                "risk": "a many-worlds risk", "epsilon": "ε at the δ given"}[c.target]  # fmt: skip
        given = "" if c.target == "epsilon" else "the best attacker "
        return (
            f"The {best} {symbol} is {shown} ({c.guarantee.label}): it gives {given}{what} of {c.achieved:.6g} "
            f"(target {c.target_value:.6g})."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``calibrate.json`` (:meth:`to_dict`) and ``manifest.json`` into ``folder``, whole or not at all."""
        from privrisk.accounting._folder import write_run_folder

        doc = self.to_dict()
        keys = (
            "target",
            "target_value",
            "fpr",
            "n",
            "prior",
            "delta",
            "solve_for",
            "sample_rate",
            "compose",
            "group",
        )
        return write_run_folder(folder, kind="calibrate", title=f"Calibration for the target {doc['target']}",
                                document=doc, parameters={k: doc[k] for k in keys},
                                summary={k: doc[k] for k in ("parameter", "achieved", "guarantee")},
                                findings=[self.sentence()])  # fmt: skip


def run_calibration(settings: CalibrationSettings, *, progress: Progress | None = None) -> CalibrationRun:
    """Calibrate: the least noise, or the largest ε, ρ, μ, sample rate or number of steps, for the settings.

    Raises:
        PrivriskError: a target no parameter reaches (``param="value"``), named by ``settings.names``.

    Example (the Laplace mechanism's advantage is the distance 1 − e^(−Δ/2b) between its two output laws, so a
    success of 75 %, an advantage of ½, needs b = Δ/(2 ln 2)):
        >>> run = run_calibration(CalibrationSettings(target="success", value=0.75, mechanism="laplace",
        ...                                           sensitivity=2.0))
        >>> round(run.calibration.parameter, 9) == round(2 / (2 * math.log(2)), 9)
        True
    """
    report(progress, 0.0, "Searching for the parameter")
    try:
        c = calibrate(**settings._calibrate_arguments(settings.release()))
    except PrivriskError as exc:
        raise settings.named(exc) from None
    report(progress, 1.0, "Done")
    return CalibrationRun(settings, c)
