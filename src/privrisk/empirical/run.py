"""One way in to empirical differential privacy: :class:`EmpiricalSettings`, :func:`run_empirical` and its
:class:`EmpiricalRun` (``privrisk.empirical.settings`` is this module's old name).

``privrisk empirical`` and the app's page Empirical DP both map their inputs onto an :class:`EmpiricalSettings`,
call :func:`run_empirical` and format the :class:`EmpiricalRun`: which options go together, the defaults (the
Chicago preset's among them, :data:`CHICAGO`) and the steps of a run (read, clean, measure, rolling windows, the
noise search) live here once. A bad setting raises :class:`~privrisk.errors.PrivriskError` whose ``param`` names
the field, so the command line can name its option and the app its input.

Example:
    >>> s = EmpiricalSettings.chicago("inspections.csv")
    >>> s.period, s.individual, s.query, s.value, s.epsilons
    ('month', 'License #', 'rate', 'failed', (0.03, 0.1, 0.3))
    >>> EmpiricalSettings(data="x.csv", period="m", individual="id", query="count", noise=0.5, target_delta=0.1)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: target_delta: finds the noise scale itself; leave out noise
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from privrisk._format import Verdict, count, number, percent_3g
from privrisk._validation import (
    check_choice,
    check_epsilons,
    check_probability,
    is_blank,
    optional_whole,
    parse_epsilons,
    take_old_data,
    text_or_none,
)
from privrisk.empirical.density import DENSITIES
from privrisk.empirical.inputs import EMPIRICAL_QUERIES, check_query_columns, query_spec
from privrisk.empirical.measure import ENGINES, empirical_privacy
from privrisk.empirical.periods import check_period_unit
from privrisk.empirical.result import EmpiricalPrivacy
from privrisk.errors import DependenceWarning, PrivacyLeakWarning, PrivriskError, deprecation_message
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "CHICAGO",
    "DEFAULT_EPSILONS",
    "PRESETS",
    "EmpiricalRun",
    "EmpiricalSettings",
    "Stages",
    "Verdict",
    "chance_words",
    "run_empirical",
]

DEFAULT_EPSILONS: tuple[float, ...] = (0.03, 0.1, 0.3)
"""The ε of Burchard and Daoud's Chicago example (§5)."""

CHICAGO: Mapping[str, str] = {
    "period": "month",
    "individual": "License #",
    "query": "rate",
    "value": "failed",
}
"""The Chicago preset's columns: the monthly failure rate per establishment, after
:func:`~privrisk.datasets.chicago.chicago_clean` (Burchard and Daoud 2022, §5)."""

PRESETS: tuple[str, ...] = ("chicago",)

Stages = Callable[[str], Callable[[int], None]]
"""Deprecated progress (``run_empirical(…, stages=…)``; use ``progress``, :class:`privrisk.progress.Progress`):
``stage(text)`` starts a step of the run and returns ``advance(steps=1)`` for its units."""


def _noise(value: Any) -> float | None:
    """The Laplace scale of ``noise``: a number, or ``laplace:SCALE`` as the command line writes it."""
    if is_blank(value):
        return None
    if isinstance(value, str):
        kind, _, scale = value.partition(":")
        if kind.strip().lower() != "laplace" or not scale.strip():
            raise PrivriskError(f"noise: write laplace:SCALE, got {value!r}", param="noise")
        try:
            b = float(scale)
        except ValueError:
            raise PrivriskError(f"noise: {scale!r} is not a number", param="noise") from None
    else:
        b = float(value)
    if not (b >= 0 and math.isfinite(b)):
        raise PrivriskError(f"noise: the scale must be a finite number ≥ 0, got {b:g}", param="noise")
    return b


@dataclass(frozen=True, kw_only=True)
class EmpiricalSettings:
    """Everything ``privrisk empirical`` and the page Empirical DP take, checked together when made.

    Fields may be given as the command line parses them or as a page's text fields hold them (``"0.03,0.1"``,
    ``"auto"``, ``"laplace:0.5"``; empty text is "not given"); they are stored normalised. With ``preset``
    ``"chicago"`` the columns not given are the preset's (:data:`CHICAGO`), and ``period_unit`` applies only to a
    period column given.

    Args:
        data: the data: a file (CSV, Parquet, Stata, SPSS; with ``engine="spark"`` also a folder or URI) or a
            DataFrame. ``file=`` and ``table=`` are its old names, kept one release (they warn).
        name: what the documents call the data file (default: its path as given), e.g. the name of an upload.
        preset: ``"chicago"``: the Chicago Food Inspections file, cleaned as Burchard and Daoud §5 do.
        period: the period column. It and ``individual``, ``query``, ``value``, ``weight``, ``period_unit``,
            ``density``, ``k`` (which may be ``"auto"``), ``aggregate``, ``lags``, ``joint``, ``condition_on``,
            ``buckets``, ``draws``, ``seed``, ``engine``, ``spark_master`` and ``deltas_path`` are as for
            :func:`~privrisk.empirical.measure.empirical_privacy`.
        epsilons: the ε at which δ is measured (a list or ``"0.03,0.1,ln2"``).
        noise: a Laplace scale (or ``"laplace:SCALE"``) added to the answers.
        window, step: also measure rolling windows of ``window`` periods, ``step`` apart.
        target_delta: also find the smallest Laplace scale that brings δ under this (not with ``noise``).
        top: how many of the riskiest individuals a document lists.

    Example:
        >>> EmpiricalSettings(data="x.csv", period="m", individual="id", query="sum")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: value: the sum query needs a value column
    """

    data: Any = field(default=None, repr=False, compare=False)
    name: str | None = None
    preset: str | None = None
    period: str | None = None
    individual: str | None = None
    query: str | None = None
    value: str | None = None
    weight: str | None = None
    period_unit: str | None = None
    epsilons: Sequence[float] | str = DEFAULT_EPSILONS
    density: str = "kde-box"
    k: int | str | None = None
    aggregate: int | str = 1
    window: int | str | None = None
    step: int | str | None = None
    lags: int | str | None = None
    joint: str | None = None
    condition_on: str | None = None
    buckets: int | str = 4
    noise: float | str | None = None
    draws: int | str = 20
    seed: int | str = 0
    target_delta: float | str | None = None
    top: int | str = 10
    engine: str = "duckdb"
    spark_master: str | None = None
    deltas_path: str | None = None
    file: InitVar[str | os.PathLike[str] | None] = None
    table: InitVar[Any] = None

    @classmethod
    def chicago(cls, data: Any = None, **overrides: Any) -> EmpiricalSettings:
        """The Chicago preset on ``data``: the failure rate per establishment and month (Burchard and Daoud §5)."""
        return cls(data=data, preset="chicago", **overrides)

    def __post_init__(self, file: str | os.PathLike[str] | None, table: Any) -> None:
        take_old_data(self, {"file": file, "table": table})
        c: dict[str, Any] = {}
        if is_blank(self.data):
            raise PrivriskError("data: give the data file (or a table)", param="data")
        preset = text_or_none(self.preset)
        columns = {
            name: text_or_none(getattr(self, name))
            for name in ("period", "individual", "query", "value", "weight")
        }
        unit = check_period_unit(text_or_none(self.period_unit))
        if preset is not None:
            preset = check_choice(preset, PRESETS, name="preset")
            if columns["period"] is None:
                unit = None  # the preset's month is a period already
            columns = {k: v if v is not None or k not in CHICAGO else CHICAGO[k] for k, v in columns.items()}
        else:
            for name in ("period", "individual", "query"):
                if columns[name] is None:
                    raise PrivriskError(f"{name}: required (or use the preset chicago)", param=name)
        query = check_choice(columns["query"], EMPIRICAL_QUERIES, name="query")
        columns["query"] = query
        check_query_columns(query, columns["value"], columns["weight"])
        c.update(columns, preset=preset, period_unit=unit)
        eps = self.epsilons
        eps = parse_epsilons(eps, name="epsilons") if isinstance(eps, str) else eps
        c["epsilons"] = tuple(float(e) for e in check_epsilons(eps, name="epsilons"))
        density = check_choice(
            self.density if not is_blank(self.density) else "kde-box", DENSITIES, name="density"
        )
        c["density"] = density
        k = self.k
        if isinstance(k, str) and k.strip().lower() in ("", "auto"):
            k = None
        try:
            c["k"] = optional_whole(k, name="k", minimum=1)
        except PrivriskError:
            raise PrivriskError(f"k: give a whole number ≥ 1 or 'auto', got {self.k!r}", param="k") from None
        for name, default, least in (("aggregate", 1, 1), ("buckets", 4, 1), ("draws", 20, 1), ("seed", 0, 0),
                                     ("top", 10, 0)):  # fmt: skip
            found = optional_whole(getattr(self, name), name=name, minimum=least)
            c[name] = default if found is None else found
        c["window"] = optional_whole(self.window, name="window", minimum=3)
        c["step"] = optional_whole(self.step, name="step", minimum=1)
        c["lags"] = optional_whole(self.lags, name="lags", minimum=1)
        if c["step"] is not None and c["window"] is None:
            raise PrivriskError("step: give window as well (the periods per rolling window)", param="step")
        c["joint"], c["condition_on"] = text_or_none(self.joint), text_or_none(self.condition_on)
        if c["joint"] is not None:
            query_spec(c["joint"], "joint")
        c["noise"] = _noise(self.noise)
        target = self.target_delta
        if not is_blank(target):
            try:
                target = float(str(target).strip()) if isinstance(target, str) else float(cast(float, target))
            except ValueError:
                raise PrivriskError(
                    f"target_delta: {target!r} is not a number", param="target_delta"
                ) from None
            c["target_delta"] = float(
                check_probability(target, name="target_delta", open_low=True, open_high=True)
            )
        else:
            c["target_delta"] = None
        if c["target_delta"] is not None and c["noise"] is not None:
            raise PrivriskError(
                "target_delta: finds the noise scale itself; leave out noise", param="target_delta"
            )
        if c["joint"] is not None and density != "kde-box":
            raise PrivriskError(
                "joint: joint queries use two-dimensional box kernels; use density kde-box", param="joint"
            )
        if c["joint"] is not None and (c["noise"] is not None or c["condition_on"] is not None):
            raise PrivriskError("joint: cannot be combined with noise or condition_on", param="joint")
        engine = check_choice(self.engine if not is_blank(self.engine) else "duckdb", ENGINES, name="engine")
        c.update(
            engine=engine,
            spark_master=text_or_none(self.spark_master),
            deltas_path=text_or_none(self.deltas_path),
        )
        if engine != "spark":
            for name in ("spark_master", "deltas_path"):
                if c[name] is not None:
                    raise PrivriskError(f"{name}: only with engine spark", param=name)
        else:
            for name in ("window", "target_delta", "joint", "condition_on"):
                if c[name] is not None:
                    raise PrivriskError(f"{name}: not available with engine spark; use duckdb", param=name)
        for name, value in c.items():  # a frozen dataclass normalises itself once, while it is made
            object.__setattr__(self, name, value)

    @property
    def is_file(self) -> bool:
        """Whether the data is a file's location (read by the run), not a table."""
        return isinstance(self.data, str | os.PathLike)

    def measure_options(self) -> dict[str, Any]:
        """The keyword arguments of :func:`~privrisk.empirical.measure.empirical_privacy` (and of the windows and
        the noise search), without the engine's; what a manifest records as the parameters."""
        names = ("period", "individual", "query", "value", "weight", "epsilons", "density", "k", "period_unit",
                 "aggregate", "lags", "joint", "condition_on", "buckets", "noise", "draws", "seed")  # fmt: skip
        out = {name: getattr(self, name) for name in names}
        out["epsilons"] = list(self.epsilons)
        return out

    def columns(self) -> list[str]:
        """The columns a file must have (a preset reads the whole file: its cleaning needs more)."""
        names = (self.period, self.individual, self.value, self.weight)
        return [c for c in dict.fromkeys(names) if c]


def chance_words(p: float) -> str:
    """How likely ``p`` is, in words chosen from the number itself (never "more likely than not" for 1).

    Example:
        >>> [chance_words(p) for p in (1.0, 0.995, 0.93, 0.6, 0.5, 0.3, 0.05, 0.001, 0.0)]
        ['certain', 'almost certain', 'very likely', 'more likely than not', 'as likely as not', 'less likely than not', 'unlikely', 'very unlikely', 'not expected']
    """
    p = float(p)
    if p >= 1:
        return "certain"
    if p >= 0.99:
        return "almost certain"
    if p >= 0.9:
        return "very likely"
    if p > 0.5:
        return "more likely than not"
    if p == 0.5:
        return "as likely as not"
    if p >= 0.1:
        return "less likely than not"
    if p >= 0.01:
        return "unlikely"
    if p > 0:
        return "very unlikely"
    return "not expected"


@dataclass(frozen=True)
class EmpiricalRun:
    """What :func:`run_empirical` found: the measurement, the windows and the noise search when asked, the rows
    the preset's cleaning dropped and the warnings; JSON with :meth:`to_dict`, files with :meth:`write`."""

    settings: EmpiricalSettings
    result: EmpiricalPrivacy
    windows: pd.DataFrame | None = field(default=None, repr=False)
    smallest_noise: pd.DataFrame | None = field(default=None, repr=False)
    cleaning: dict[str, int] | None = None
    warnings: tuple[tuple[type[Warning], str], ...] = ()
    file: str | None = None

    def sentence(self) -> str:
        """The verdict first, in plain words (:meth:`verdict`'s sentence)."""
        return self.verdict().sentence

    def to_dict(self, *, out: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The JSON document ``privrisk empirical --json`` prints (without its ``schema_version``); ``out``: the
        folder the outputs were written to, if any."""
        s = self.settings
        return self.result.to_dict(
            top=cast(int, s.top),
            file=self.file,
            preset=s.preset,
            cleaning=self.cleaning,
            windows=self.windows,
            smallest_noise=self.smallest_noise,
            target_delta=cast("float | None", s.target_delta),
            out=None if out is None else str(out),
        )

    def write(self, folder: str | os.PathLike[str]) -> Path:
        """Write the tables, the figures and ``manifest.json`` into ``folder`` (whole or not at all)."""
        from privrisk.empirical.report import _write

        s = self.settings
        return _write(
            folder, self.result, windows=self.windows, file=self.file, preset=s.preset,
            parameters=s.measure_options(),
        )  # fmt: skip

    def warned(self, category: type[Warning]) -> list[str]:
        """The messages of the warnings of one category, once each, in the order they came."""
        return [text for kind, text in self.warnings if issubclass(kind, category)]

    def verdict(self) -> Verdict:
        """The finding in plain words: how likely it is that someone is exposed, at the most lenient ε set.

        The number is the total risk δ* (Burchard and Daoud, Definition 3) at the largest ε given; the words
        come from that number (:func:`chance_words`), and the tolerance is said as the factor e^ε.

        Example:
            >>> import numpy as np, pandas as pd
            >>> df = pd.DataFrame({"m": np.repeat(np.arange(12), 4), "id": np.tile([1, 2, 3, 4], 12)})
            >>> run = run_empirical(EmpiricalSettings(data=df, period="m", individual="id", query="count"))
            >>> v = run.verdict()   # 4 rows every month, 3 without anyone: each one shows in every count
            >>> v.headline, v.sentence[:40]
            ('100 % chance that someone is exposed', 'It is certain that publishing the count ')
        """
        r = self.result
        row = r.summary.iloc[int(r.summary["epsilon"].to_numpy().argmax())]
        eps, p, worst = float(row["epsilon"]), float(row["total_risk"]), float(row["delta"])
        factor = number(math.exp(eps), 3)
        who = f"{count(r.n_individuals)} individual{'s' if r.n_individuals != 1 else ''}"
        if p == 0:
            return Verdict(
                "No one exposed",
                f"Publishing the {r.query} every period exposes none of the {who} by more than the tolerance set "
                f"(a factor of {factor}): the answers with and without each of them look the same.",
            )
        sentence = (
            f"It is {chance_words(p)} that publishing the {r.query} every period exposes someone: the chance that "
            f"at least one of the {who} stands out by more than the most lenient tolerance set (a factor of "
            f"{factor}) is {percent_3g(p)}"
        )
        if p >= 0.5 and worst < 0.1:
            sentence += f", although for any single one it is at most {percent_3g(worst)}"
        return Verdict(f"{percent_3g(p)} chance that someone is exposed", sentence + ".")


def _nothing(steps: int = 1) -> None:
    """The advance function when nobody watches."""


#: Each step's share of the run where it starts; the units it counts (individuals, windows, measurements of δ,
#: whose number is not known before) show in its message as they are done.
_SHARES = {"Reading": 0.0, "Measuring the individuals": 0.1, "Measuring the rolling": 0.6, "Searching": 0.7}


def _stages(progress: Progress | None) -> Stages:
    """The steps of a run on the one progress protocol."""

    def stage(text: str) -> Callable[[int], None]:
        start = next((share for head, share in _SHARES.items() if text.startswith(head)), 0.0)
        report(progress, start, text)
        done = 0

        def advance(steps: int = 1) -> None:
            nonlocal done
            done += steps
            report(progress, start, f"{text}: {done:,} done")

        return advance if progress is not None else _nothing

    return stage


def run_empirical(
    settings: EmpiricalSettings,
    *,
    progress: Progress | None = None,
    stages: Stages | None = None,
    name: str | None = None,
) -> EmpiricalRun:
    """Read (and clean, with a preset), measure, and add the rolling windows and the noise search when asked.

    The library's :class:`~privrisk.errors.PrivacyLeakWarning` and :class:`~privrisk.errors.DependenceWarning`
    are collected in :attr:`EmpiricalRun.warnings` (each once), not issued: the command line and the page show
    them in their place.

    Args:
        settings: what to measure (:class:`EmpiricalSettings`), the data among it.
        progress: ``progress(done, message)`` (:class:`privrisk.progress.Progress`) as the steps start and count
            their units; it may raise to stop the run (the app's Cancel).
        stages, name: the earlier progress (:data:`Stages`) and the old place of ``settings.name`` (they warn).

    Returns:
        An :class:`EmpiricalRun`.
    """
    from privrisk.empirical.search import smallest_noise
    from privrisk.empirical.windows import rolling_privacy

    for old, given, new in (("stages", stages, "progress"), ("name", name, "EmpiricalSettings(name=…)")):
        if given is not None:
            warnings.warn(
                deprecation_message(f"run_empirical(…, {old}=…)", new), DeprecationWarning, stacklevel=2
            )
    stage = stages if stages is not None else _stages(progress)
    s = settings
    stage("Reading the data")
    cleaning: dict[str, int] | None = None
    tabular = s.is_file
    frame: Any = s.data  # Spark reads the file itself
    if tabular and (s.engine != "spark" or s.preset is not None):
        from privrisk.io.data import read_table

        frame = read_table(cast(str, s.data), None if s.preset is not None else s.columns())
    if s.preset is not None:
        from privrisk.datasets.chicago import chicago_clean

        frame, cleaning = chicago_clean(frame)
    options: dict[str, Any] = s.measure_options()
    engine: dict[str, Any] = {
        "engine": s.engine,
        "spark_master": s.spark_master,
        "deltas_path": s.deltas_path,
    }
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        warnings.simplefilter("always", DependenceWarning)
        result = empirical_privacy(frame, progress=stage("Measuring the individuals"), **options, **engine)
        windows = None
        if s.window is not None:
            windows = rolling_privacy(frame, window=cast(int, s.window), step=cast("int | None", s.step),
                                      progress=stage("Measuring the rolling windows"), **options)  # fmt: skip
        target = None
        if s.target_delta is not None:
            # each measurement of δ at a trial scale is one step of the search; how many depends on the data
            target = smallest_noise(frame, target_delta=cast(float, s.target_delta),
                                    progress=stage("Searching the noise scale (measurements of δ)"), **options)  # fmt: skip
    said = dict.fromkeys(
        (w.category, str(w.message))
        for w in caught
        if issubclass(w.category, (PrivacyLeakWarning, DependenceWarning))
    )
    label = name or s.name or (str(s.data) if s.is_file else None)
    return EmpiricalRun(s, result, windows, target, cleaning, tuple(said), label)
