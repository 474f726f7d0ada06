"""One way into the sampling study: :class:`StudySettings`, :func:`run_study` and its :class:`StudyRun`.

:class:`StudySettings` holds everything ``privrisk study``, ``privrisk demo`` and the app's Study page take: the
data (a file, a table, the variables' values, or the demo's public survey data) and its columns, the study's
arguments (Allmann et al. 2024, §4), the query and ε its figures show, and whether Lee and Clifton's (2011)
attacker runs on the very same samples. It is frozen and checks every field and combination when made, each error
naming its field (``attack_trials: only meaningful with the attack``), so that a bad setting fails before any file
is read. Fields may be given as a command's option or a page's text field holds them (``"0.5,1,ln3"``,
``"0,100"``, ``"auto"``).

:func:`run_study` reads the variables (each column's valid values are its universe, §4.2), runs the study (and
the attack), and returns a :class:`StudyRun`: its JSON document (:meth:`StudyRun.to_dict`), its verdict in plain
words (:meth:`StudyRun.sentence`) and its report folder (:meth:`StudyRun.write`). Progress is the one protocol of
every run, :class:`privrisk.progress.Progress`.

Example:
    >>> import numpy as np, tempfile
    >>> s = StudySettings(data={"x": np.arange(40) % 9}, queries=["max"], epsilons="1", proportions="0.5,1",
    ...                   repetitions=3)
    >>> run = run_study(s)
    >>> run.rows, run.key_figures["query"].tolist()
    (6, ['max'])
    >>> sorted(p.name for p in run.write(tempfile.mkdtemp()))[:3]
    ['figure1_risk_by_query.png', 'figure1_risk_by_query.svg', 'figure2_risk_by_proportion.png']
    >>> StudySettings(data="survey.csv", column=["hours"], attack_trials=500)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: attack_trials: only meaningful with the attack
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np

from privrisk._validation import (
    check_bounds,
    check_epsilons,
    check_number,
    check_whole,
    is_blank,
    parse_bounds,
    parse_epsilons,
    parse_numbers,
    read_number,
    set_checked,
)
from privrisk.errors import PrivriskError, deprecation_message
from privrisk.progress import Progress, part, report
from privrisk.study._figures import figure_choices, pick_epsilon
from privrisk.study._samples import (
    DEFAULT_ATTACK_MAX_N,
    DEFAULT_ATTACK_TRIALS,
    DEFAULT_EPSILONS,
    DEFAULT_QUERIES,
    check_max_n,
    check_proportions,
    check_queries,
    check_trials,
)
from privrisk.study.sampling import LsMethod

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.study.report import StudyBundle

__all__ = [
    "StudyRun",
    "StudySettings",
    "figure_choices",
    "pick_epsilon",
    "run_study",
    "study_question",
]

_STEPS = ("Sampling study", "Attacking the samples", "Writing the report, the figures and the tables")


def _names(value: Any) -> tuple[str, ...]:
    """Column names from a list or one text separated by commas, each once, in the order given."""
    given = value.split(",") if isinstance(value, str) else list(value or ())
    return tuple(dict.fromkeys(str(c).strip() for c in given if str(c).strip()))


def _labels(value: Any, columns: Sequence[str]) -> dict[str, str]:
    """``{column: label}`` from a mapping or ``COLUMN=LABEL`` texts; every column named, no two names alike."""
    pairs: list[tuple[str, str]] = []
    if isinstance(value, Mapping):
        pairs = [(str(k).strip(), str(v).strip()) for k, v in value.items()]
    else:
        for item in [value] if isinstance(value, str) else list(value or ()):
            column, sep, label = str(item).partition("=")
            if not sep or not column.strip() or not label.strip():
                raise PrivriskError(f"variables: write COLUMN=LABEL, got {item!r}", param="variables")
            pairs.append((column.strip(), label.strip()))
    labels: dict[str, str] = {}
    for column, label in pairs:
        if column not in columns:
            raise PrivriskError(f"variables: {column!r} is not one of the columns", param="variables")
        labels[column] = label
    names = [labels.get(c, c) for c in columns]
    if len(set(names)) != len(names):
        raise PrivriskError("variables: two variables would have the same name", param="variables")
    return labels


def _optional_whole(value: Any, name: str) -> Any:
    """None for nothing or empty text; whole numbers typed as text (``"1,000"``) read; the rest as given."""
    return None if is_blank(value) else read_number(value, name=name, thousands=True)


@dataclass(frozen=True)
class StudySettings:
    """What a sampling study is asked for: the data, the study's arguments, what the figures show, and the attack.

    Checked and normalised when made, each error naming its field, so that a bad setting fails before the long
    computation. :meth:`sample_arguments` are the keyword arguments of :func:`~privrisk.sampling_study` and
    :func:`~privrisk.study_attack` (the same samples for both); :meth:`parameters` is what the page, the
    manifest and the JSON document record.

    Args:
        data: a data file (CSV, Parquet, Stata, SPSS) or a DataFrame, with ``column``; or the variables' values
            ``{name: values}`` (missing values already dropped); None with ``demo``.
        column: the numeric columns to study (a list, or one text separated by commas), as ``--column`` repeated.
        variables: a name in the report for a column's variable (``{column: name}`` or ``COLUMN=NAME`` texts, as
            ``--label``); the others are named after their column.
        missing: missing codes to drop: ``"negative"`` or ``"-1,-3"`` (a file or a table only).
        name: what the report calls the data file (default: its path as given), e.g. the name of an upload.
        title: the report's title (default: "Sampling study of" the file's name, or the demo's).
        demo: study the demo's public survey data (Allmann et al.'s SOEP is not public): its universe is each
            variable's valid values with the minimum lowered to 0 (§4.2).
        queries, epsilons, proportions, repetitions, seed, universe, universe_min, ls_method: as for
            :func:`~privrisk.sampling_study` (``universe`` here is ``"data"`` or bounds ``(lo, hi)`` or
            ``"lo,hi"``; proportions keep the order given, or ``"auto"``).
        figure_query: the query of Figure 2 and of the findings (default: max, or the first query).
        figure_epsilon: the ε of Figure 1, the key table and the findings; one of ``epsilons`` (default: the
            one nearest 1 on a log scale).
        attack: whether Lee and Clifton's attacker runs on the samples (:func:`~privrisk.study_attack`).
        attack_trials, attack_max_n: its ``trials`` (default 1,000) and ``max_n``; only with the attack.

    Example:
        >>> s = StudySettings(queries=["mean", "max"], epsilons=[1.0986122886681098, 5], proportions=[0.5, 1])
        >>> s.figure_query, s.figure_epsilon, s.parameters()["epsilons"]
        ('max', 1.0986122886681098, [1.0986122886681098, 5.0])
        >>> StudySettings(repetitions=0)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: repetitions: must be a whole number ≥ 1, got 0
    """

    data: Any = field(default=None, repr=False, compare=False)
    column: Sequence[str] | str = ()
    variables: Mapping[str, str] | Sequence[str] = field(default_factory=dict)
    missing: str | None = None
    name: str | None = None
    title: str | None = None
    demo: bool = False
    queries: Sequence[str] = DEFAULT_QUERIES
    epsilons: Sequence[float] | str = DEFAULT_EPSILONS
    proportions: Sequence[float] | str = "auto"
    repetitions: int = 100
    seed: int = 1
    universe: Literal["data"] | tuple[float, float] | str = "data"
    universe_min: float | str | None = None
    ls_method: LsMethod = "exact"
    figure_query: str | None = None
    figure_epsilon: float | str | None = None
    attack: bool = False
    attack_trials: int | str | None = None
    attack_max_n: int | str | None = DEFAULT_ATTACK_MAX_N

    def __post_init__(self) -> None:
        checked: dict[str, Any] = self._data_fields()
        queries = tuple(check_queries(self.queries))
        eps = self.epsilons
        eps = parse_epsilons(eps, name="epsilons") if isinstance(eps, str) else eps
        epsilons = tuple(float(e) for e in check_epsilons(eps, name="epsilons", allow_zero=True))
        given = self.proportions
        proportions: tuple[float, ...] | str = ()
        if isinstance(given, str) and given.strip().lower() in ("auto", ""):
            proportions = "auto"
        else:
            if isinstance(given, str):
                try:
                    given = parse_numbers(given, name="proportions")
                except PrivriskError as exc:
                    why = str(exc).removeprefix("proportions: ")
                    raise PrivriskError(
                        f"proportions: a list of numbers in (0, 1] or 'auto'; {why}", param="proportions"
                    ) from None
            check_proportions(given)
            proportions = tuple(float(p) for p in np.atleast_1d(np.asarray(given, dtype=float)))
        if isinstance(self.repetitions, bool) or isinstance(self.seed, bool):
            name = "repetitions" if isinstance(self.repetitions, bool) else "seed"
            raise PrivriskError(f"{name}: must be a whole number, got {getattr(self, name)!r}", param=name)
        universe = self.universe
        if isinstance(universe, str) and universe.strip().lower() in ("data", ""):
            universe = "data"
        elif isinstance(universe, str):
            universe = parse_bounds(universe, name="universe")
        if self.demo and universe != "data":
            raise PrivriskError("universe: the demo's universe is its data's; leave it out", param="universe")
        universe_min = self.universe_min
        if isinstance(universe_min, str):
            universe_min = (
                parse_numbers(universe_min, name="universe_min")[0] if universe_min.strip() else None
            )
        if self.demo and universe_min is None:
            universe_min = 0.0  # 0 hours and 0 income are valid answers (Allmann et al., §4.2)
        trials, max_n = _optional_whole(self.attack_trials, "attack_trials"), self.attack_max_n
        max_n = _optional_whole(max_n, "attack_max_n") if isinstance(max_n, str) else max_n
        checked.update({
            "queries": queries,
            "epsilons": epsilons,
            "proportions": proportions,  # as given: the order the user wrote is what the report repeats
            "repetitions": check_whole(self.repetitions, name="repetitions", minimum=1),
            "attack_trials": check_trials(DEFAULT_ATTACK_TRIALS if trials is None else trials, name="attack_trials"),
            "attack_max_n": check_max_n(max_n, name="attack_max_n"),
            "seed": check_whole(self.seed, name="seed"),
            "universe": _check_universe(universe),
            "universe_min": _check_universe_min(universe_min, universe),
        })  # fmt: skip
        if self.ls_method not in ("exact", "paper"):
            raise PrivriskError(
                f"ls_method: must be 'exact' or 'paper', got {self.ls_method!r}", param="ls_method"
            )
        if not isinstance(self.attack, bool):
            raise PrivriskError(f"attack: must be True or False, got {self.attack!r}", param="attack")
        # The attack's settings alone are a mistake (the user meant to attack), not something silently ignored.
        if not self.attack:
            if trials is not None:
                raise PrivriskError("attack_trials: only meaningful with the attack",
                                    param="attack_trials")  # fmt: skip
            if checked["attack_max_n"] != DEFAULT_ATTACK_MAX_N:
                raise PrivriskError("attack_max_n: only meaningful with the attack",
                                    param="attack_max_n")  # fmt: skip
        figure_epsilon = None if is_blank(self.figure_epsilon) else self.figure_epsilon
        figure_query = None if is_blank(self.figure_query) else self.figure_query
        query, fig_eps = figure_choices(queries, epsilons, figure_query, figure_epsilon)
        checked.update(figure_query=query, figure_epsilon=fig_eps, attack=self.attack)
        set_checked(self, checked)  # a frozen dataclass normalises itself once, while it is made

    def _data_fields(self) -> dict[str, Any]:
        """The data, its columns, their variables' names and missing codes, checked together (the order a user fills a form in)."""
        columns = _names(self.column)
        missing = None if is_blank(self.missing) else str(self.missing).strip()
        out: dict[str, Any] = {"column": columns, "missing": missing, "demo": bool(self.demo)}
        if self.demo:
            if self.data is not None:
                raise PrivriskError("demo: runs on its own data; leave out the data", param="demo")
            for name, value in (("column", columns), ("variables", self.variables), ("missing", missing)):
                if value:
                    raise PrivriskError(
                        f"{name}: not with the demo, which studies its own variables", param=name
                    )
        elif isinstance(self.data, Mapping):
            for name, value in (("column", columns), ("variables", self.variables), ("missing", missing)):
                if value:
                    raise PrivriskError(
                        f"{name}: only with a file or a table; the values are given", param=name
                    )
        elif self.data is not None and not columns:
            raise PrivriskError("column: choose at least one numeric column", param="column")
        out["variables"] = _labels(self.variables, columns)
        return out

    def sample_arguments(self) -> dict[str, Any]:
        """The arguments that choose the samples, the same for the study and its attack."""
        return {
            "queries": list(self.queries),
            "epsilons": list(self.epsilons),
            "proportions": self.proportions if isinstance(self.proportions, str) else list(self.proportions),
            "repetitions": self.repetitions,
            "seed": self.seed,
            "universe": self.universe,
            "universe_min": self.universe_min,
        }

    def parameters(self) -> dict[str, Any]:
        """The settings as plain JSON values, in the order the report lists them."""
        out = self.sample_arguments()
        if not isinstance(self.universe, str):
            out["universe"] = list(self.universe)
        out.update(
            ls_method=self.ls_method, figure_query=self.figure_query, figure_epsilon=self.figure_epsilon
        )
        if self.attack:
            out.update(attack_trials=self.attack_trials, attack_max_n=self.attack_max_n)
        return out


def _check_universe(universe: Any) -> Literal["data"] | tuple[float, float]:
    if isinstance(universe, str) and universe == "data":
        return "data"
    return check_bounds(universe, name="universe")


def _check_universe_min(universe_min: Any, universe: Any) -> float | None:
    """A finite number, and with bounds (lo, hi) at most lo: it lowers the universe's minimum, never raises it."""
    if universe_min is None:
        return None
    value = check_number(universe_min, name="universe_min")
    bounds = _check_universe(universe)
    if not isinstance(bounds, str) and value > bounds[0]:
        raise PrivriskError(
            f"universe_min: {value:g} is above the universe's lower bound {bounds[0]:g}; it can only lower it",
            param="universe_min",
        )
    return value


def _import_the_writers_meanwhile() -> None:
    """Import Matplotlib and the report's writers in a second thread while the study computes.

    Their import is about a third of a second of Python that the report needs only at the end; the study's
    shuffles and array operations mostly run without the GIL, so on two cores the import costs no wall time.
    Python's import locks make a later ``import`` of the same module wait for this one, never run it twice.
    """
    if (os.cpu_count() or 1) < 2 or "matplotlib.backends.backend_agg" in sys.modules:
        return

    def load() -> None:
        for name in ("matplotlib.figure", "matplotlib.backends.backend_agg", "privrisk.reports.plots.study",
                     "pyarrow.parquet"):  # fmt: skip
            try:
                importlib.import_module(name)
            except Exception:  # it fails again, with its message, where the report needs it
                return

    threading.Thread(target=load, name="privrisk-import", daemon=True).start()


def study_question(queries: Sequence[str], variables: Sequence[str]) -> str:
    """The question a study of a user's file answers: its page's first paragraph.

    Example:
        >>> study_question(["mean", "max"], ["income"])
        'How large are the many-worlds, two-worlds and global risks of mean, max on income, and how do they move with ε and the size of the sample?'
    """
    return (
        f"How large are the many-worlds, two-worlds and global risks of {', '.join(queries)} on "
        f"{', '.join(variables)}, and how do they move with ε and the size of the sample?"
    )


@dataclass(frozen=True)
class StudyRun:
    """What :func:`run_study` found: the study's rows (with the attack's columns when it ran), their summary, the
    findings and key tables; the JSON document with :meth:`to_dict`, the verdict with :meth:`sentence`, the
    report folder with :meth:`write`."""

    settings: StudySettings
    results: pd.DataFrame = field(repr=False)
    summary: pd.DataFrame = field(repr=False)
    title: str
    intro: str
    variables: list[dict[str, Any]]
    parameters: dict[str, Any]
    seconds: float
    findings: list[str]
    key_figures: pd.DataFrame = field(repr=False)
    attack: dict[str, Any] | None
    read: list[dict[str, Any]] = field(repr=False)
    extra_parameters: dict[str, Any] = field(repr=False)

    @property
    def rows(self) -> int:
        """The number of result rows (one per sample, query and ε)."""
        return len(self.results)

    def to_dict(self, folder: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The JSON document ``privrisk study --json`` prints (``kind: "study"``); with ``folder``, the one
        :meth:`write` wrote into, its ``files``."""
        from privrisk.study.report import study_document

        return study_document(self, None if folder is None else _folder_files(Path(folder)))

    def sentence(self) -> str:
        """The verdict first, in plain words: how often an attacker would tell who is in the data, at worst."""
        from privrisk.study.report import study_verdict

        _, sentence, where = study_verdict(
            cast("list[dict[str, Any]]", self.key_figures.to_dict(orient="records")),
            cast(float, self.settings.figure_epsilon),
            self.settings.repetitions,
        )
        return f"{sentence} {where}"

    def write(
        self,
        folder: str | os.PathLike[str],
        *,
        progress: Progress | None = None,
        figure_formats: tuple[str, ...] = ("png", "svg"),
    ) -> list[Path]:
        """Write the report folder (results.parquet, summary.csv, figures/, report.html, manifest.json), whole or
        not at all, and return its files; ``figure_formats=("svg",)`` leaves out the PNGs (a page that shows the
        SVG)."""
        from privrisk.study.report import bundle_parts, write_bundle

        tick = _counter(progress, bundle_parts(self.settings), _STEPS[2])
        bundle = write_bundle(
            folder, self.results, self.summary, settings=self.settings, title=self.title, intro=self.intro,
            variables=self.read, extra_parameters=self.extra_parameters, seconds=self.seconds, progress=tick,
            figure_formats=figure_formats,
        )  # fmt: skip
        files = bundle.files
        return [Path(files[k]) for k in ("results", "summary", "report", "manifest")] + [
            Path(f) for f in files["figures"]
        ]


def _folder_files(folder: Path) -> dict[str, Any]:
    """The files of a study's folder, as its manifest lists its figures."""
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    figures = [
        str(folder / f[ext]) for f in manifest.get("figures", []) for ext in ("png", "svg") if ext in f
    ]
    return {
        "results": str(folder / "results.parquet"),
        "summary": str(folder / "summary.csv"),
        "report": str(folder / "report.html"),
        "manifest": str(folder / "manifest.json"),
        "figures": figures,
    }


def _counter(progress: Progress | None, total: int, message: str) -> Callable[..., None]:
    """``advance(k=1)`` for a step of ``total`` units: ``progress`` hears the share done with ``message``."""
    count = 0

    def advance(k: int = 1) -> None:
        nonlocal count
        count += k
        if total > 0:
            report(progress, count / total, message)

    return advance


def _read(
    s: StudySettings,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]], str, str | None, dict[str, Any]]:
    """The variables' values and descriptions, the title, the intro (None: the question) and what to record."""
    if s.demo:
        from privrisk.datasets.survey import SURVEY_INTRO, SURVEY_SOURCE, SURVEY_TITLE, survey_values

        values, variables = survey_values()
        return values, variables, s.title or SURVEY_TITLE, SURVEY_INTRO, {"data": SURVEY_SOURCE}
    if isinstance(s.data, Mapping):
        values = {str(k): np.asarray(v, dtype=float) for k, v in s.data.items()}
        return values, [], s.title or "Sampling study", None, {}
    from privrisk.study.variables import read_variables

    where = s.name or (str(s.data) if isinstance(s.data, str | os.PathLike) else "table")
    values, variables = read_variables(
        s.data, list(s.column), labels=cast("dict[str, str]", s.variables), missing=s.missing,
        universe=cast("Literal['data'] | tuple[float, float]", s.universe),
        universe_min=cast("float | None", s.universe_min), source=where,
    )  # fmt: skip
    shown = Path(where).name if isinstance(s.data, str | os.PathLike) or s.name else where
    return (
        values,
        variables,
        s.title or f"Sampling study of {shown}",
        None,
        {"file": where, "missing": s.missing},
    )


def run_study(settings: StudySettings, *args: Any, progress: Progress | None = None, **old: Any) -> Any:
    """Read the variables, run the study (and its attack) on the very same samples, and return a :class:`StudyRun`.

    Args:
        settings: the checked settings, the data's location among them.
        progress: ``progress(done, message)`` as the work advances (:class:`privrisk.progress.Progress`); it may
            raise to stop the run (the app's Cancel).

    Returns:
        The :class:`StudyRun`; its ``seconds`` time the computation (the study and the attack), not the reading.

    Raises:
        PrivriskError: no data (``data``), a file or column unfit for the study.

    The earlier call ``run_study(settings, values, folder, *, title, …, on_step=…)``, which also wrote the folder
    and returned a :class:`~privrisk.study.report.StudyBundle`, still works for one release (it warns).
    """
    if args or old:
        return _run_and_write(settings, *args, progress=progress, **old)
    s = settings
    if s.data is None and not s.demo:
        raise PrivriskError("data: give the data file (or a table, the values, or the demo)", param="data")
    report(progress, 0.0, "Reading the data")
    values, read, title, intro, extra = _read(s)
    return _compute(s, values, read, title, intro, extra, progress)


def _compute(
    s: StudySettings,
    values: Mapping[str, np.ndarray],
    read: Sequence[Mapping[str, Any]],
    title: str,
    intro: str | None,
    extra: Mapping[str, Any] | None,
    progress: Progress | None,
) -> StudyRun:
    from privrisk.study.report import bundle_contents
    from privrisk.study.sampling import sampling_study, study_summary

    _import_the_writers_meanwhile()
    samples = s.sample_arguments()
    total = len(values) * s.repetitions
    middle = 0.5 if s.attack else 0.95
    started = time.perf_counter()
    tick = _counter(part(progress, 0.05, middle), total, _STEPS[0])
    results = sampling_study(dict(values), **samples, ls_method=s.ls_method, progress=tick)
    if s.attack:
        from privrisk.study.attack import merge_attack, study_attack

        tick = _counter(part(progress, middle, 0.95), total, _STEPS[1])
        trials, max_n = cast(int, s.attack_trials), cast("int | None", s.attack_max_n)
        attack = study_attack(dict(values), **samples, trials=trials, max_n=max_n, progress=tick)
        results = merge_attack(results, attack)
    seconds = time.perf_counter() - started
    summary = study_summary(results)
    found = bundle_contents(results, summary, s, read, extra)
    report(progress, 1.0, "Summarising the study")
    return StudyRun(
        settings=s, results=results, summary=summary, title=title,
        intro=study_question(s.queries, list(values)) if intro is None else intro, variables=found.variables,
        parameters=found.parameters, seconds=seconds, findings=found.findings, key_figures=found.key_figures,
        attack=found.attack, read=[dict(v) for v in read], extra_parameters=dict(extra or {}),
    )  # fmt: skip


def _run_and_write(
    settings: StudySettings,
    values: Mapping[str, np.ndarray],
    folder: str | os.PathLike[str],
    *,
    title: str,
    intro: str | None = None,
    variables: Sequence[Mapping[str, Any]] = (),
    extra_parameters: Mapping[str, Any] | None = None,
    on_step: Callable[..., Callable[..., None] | None] | None = None,
    figure_formats: tuple[str, ...] = ("png", "svg"),
    progress: Progress | None = None,
) -> StudyBundle:
    """The earlier ``run_study(settings, values, folder, …)``: study, attack and folder in one call (deprecated)."""
    from privrisk.study.report import bundle_parts, write_bundle
    from privrisk.study.sampling import sampling_study, study_summary

    warnings.warn(
        deprecation_message("run_study(settings, values, folder, …)", "run_study(settings).write(folder)"),
        DeprecationWarning,
        stacklevel=3,
    )

    def step(name: str, total: int | None) -> Callable[..., None] | None:
        return None if on_step is None else on_step(name, total=total)

    samples = settings.sample_arguments()
    total = len(values) * settings.repetitions
    started = time.perf_counter()
    results = sampling_study(
        dict(values), **samples, ls_method=settings.ls_method, progress=step(_STEPS[0], total)
    )
    if settings.attack:
        from privrisk.study.attack import merge_attack, study_attack

        attack = study_attack(dict(values), **samples, trials=cast(int, settings.attack_trials),
                              max_n=cast("int | None", settings.attack_max_n), progress=step(_STEPS[1], total))  # fmt: skip
        results = merge_attack(results, attack)
    seconds = time.perf_counter() - started
    return write_bundle(
        folder, results, study_summary(results), settings=settings, title=title,
        intro=study_question(settings.queries, list(values)) if intro is None else intro, variables=variables,
        extra_parameters=extra_parameters, seconds=seconds, progress=step(_STEPS[2], bundle_parts(settings)),
        figure_formats=figure_formats,
    )  # fmt: skip


def __getattr__(name: str) -> Any:
    """The earlier progress of :func:`run_study`, kept one release: ``STEPS`` and ``OnStep`` (they warn)."""
    if name in ("STEPS", "OnStep"):
        warnings.warn(
            deprecation_message(f"privrisk.study.run.{name}", "privrisk.progress.Progress"),
            DeprecationWarning,
            stacklevel=2,
        )
        return _STEPS if name == "STEPS" else Callable[..., Callable[..., None] | None]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
