"""One way into δ-presence: the settings of a run, checked once, and the function that runs them.

:class:`PresenceSettings` holds everything ``privrisk presence`` and the app's Presence page take: the research
subset T and the population P (or P's size for an estimate of k-map), the quasi-identifiers and their hierarchies,
the generalisation to measure, the targets (δ_max, δ_min, k, k-map; Nergiz, Atzori and Clifton 2007, Def. 3:
δ_c = |T_c| / |P_c|), the search for the least generalisation meeting them, and where the grouping runs. It is
frozen and checks every combination of its fields when made, each error naming its field
(``suppression: only with the search``), so that a bad setting fails before any file is read.

:func:`run_presence` does the work both front ends used to do apart: it reads and groups both tables, measures,
searches, and returns a :class:`PresenceRun` that gives one JSON document (:meth:`PresenceRun.to_dict`), the report
folder (:meth:`PresenceRun.write`), the plain verdict (:meth:`PresenceRun.verdict`) and the reason a run misses
its targets (:meth:`PresenceRun.failure`). Progress is the one protocol of every run,
:class:`privrisk.progress.Progress`.

Example (Desfontaines' trial: the 10-19 band holds all 5 of its people, δ = 1; the search merges 10-39, δ = 0.25):
    >>> import pandas as pd
    >>> T = pd.DataFrame({"zip": [85535] * 6, "age": [10, 12, 13, 13, 16, 43]})
    >>> P = pd.DataFrame({"zip": [85535] * 5, "age": ["10-19", "20-29", "30-39", "40-49", "50+"],
    ...                   "n": [5, 5, 10, 10, 20]})
    >>> s = PresenceSettings(data=T, population=P, qi=["zip", "age"], population_count="n",
    ...                      hierarchies={"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"}, delta_max=0.5,
    ...                      search=True)
    >>> run = run_presence(s)
    >>> run.report.measured.summary["delta_max"], run.report.search.best.summary["delta_max"]
    (1.0, 0.25)
    >>> run.failure(applied=False)
    'δ_max 1 exceeds delta_max 0.5 at the measured generalisation; the search proposes levels zip=0,age=2, which meets the targets, and applies it only to the release the report folder holds'
    >>> print(run.sentence())
    Of the 50 people in the population, the most exposed could be identified as present in the research subset with probability 25 % in the release the search proposes; target at most 50 %: met.
    >>> PresenceSettings(data=T, population=P, qi=["zip"], suppression=0.1)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: suppression: only with the search
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Callable, Mapping, Sequence
from dataclasses import InitVar, dataclass, field
from typing import Any, cast

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.errors import PrivacyLeakWarning, PrivriskError, deprecation_message
from privrisk.generalisation.hierarchy import parse_hierarchies, typed_number
from privrisk.generalisation.kmap import KMAP_MODELS, KMapModel
from privrisk.io.engine import SPARK_ROLLUP_CLASSES, check_engine
from privrisk.presence.estimate import KMapEstimate
from privrisk.presence.measures import Targets
from privrisk.presence.prepare import Source
from privrisk.presence.report import PresenceReport, Verdict, estimate_verdict, levels_text, report_verdict
from privrisk.presence.search import LOSS_MEASURES, Loss
from privrisk.progress import Progress, part, report, steps

__all__ = ["PresenceRun", "PresenceSettings", "Steps", "parse_levels", "run_presence"]

Steps = Callable[..., Callable[..., object] | None]
"""Deprecated progress (``run_presence(…, steps=…)``; use ``progress``, :class:`privrisk.progress.Progress`): called
``steps(text)`` at each stage and ``steps(text, total=n)`` before the lattice search, whose return value (if not
None) is called once per node evaluated."""

DEMO_TITLE = "stevedata/TV16: born-again respondents (T) among all respondents (P)"


def parse_levels(text: str | None) -> dict[str, int] | None:
    """``{column: level}`` from ``age=1,zip=2`` (None for an empty text: the finest generalisation).

    Raises:
        PrivriskError: (``levels``) a part that is not ``COLUMN=LEVEL`` with a whole number.

    Example:
        >>> parse_levels("age=1, zip=2"), parse_levels("")
        ({'age': 1, 'zip': 2}, None)
        >>> parse_levels("age:1")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: levels: expected COLUMN=LEVEL pairs such as age=1,zip=2, got 'age:1'
    """
    levels: dict[str, int] = {}
    for pair in (p.strip() for p in (text or "").split(",") if p.strip()):
        name, eq, value = pair.partition("=")
        try:
            levels[name.strip()] = int(value if eq else "?")
        except ValueError:
            raise PrivriskError(
                f"levels: expected COLUMN=LEVEL pairs such as age=1,zip=2, got {pair!r}", param="levels"
            ) from None
    return levels or None


def _typed(value: Any, name: str) -> Any:
    """A number given as text (a form's field, as typed) read as a number; anything else as it is."""
    return typed_number(value, name) if isinstance(value, str) else value


def _hierarchies(given: Mapping[str, object] | Sequence[str] | None) -> dict[str, object]:
    """``{column: spec}``, from a mapping or from ``COLUMN=SPEC`` texts as the command takes them."""
    if given is None or isinstance(given, Mapping):
        return dict(given or {})
    return parse_hierarchies([given] if isinstance(given, str) else list(given))


def _is_file_spec(spec: object) -> bool:
    return isinstance(spec, str | os.PathLike) and str(spec).strip().lower().startswith("table:")


@dataclass(frozen=True)
class PresenceSettings:
    """What a δ-presence run is asked for, checked as a whole when made.

    Args:
        data: the research subset T (a file, a folder or URI with Spark, or a DataFrame); None with ``demo``.
            ``dataset=`` is its old name, kept one release (it warns).
        population: the population P (rows, or counts per class with ``population_count``); None to estimate
            k-map from ``population_size`` or ``sampling_fraction`` (El Emam and Dankar 2008).
        qi: the quasi-identifier columns (a list, or one text separated by commas).
        population_count: P's column of counts per class (P may then be coarser, e.g. age bands).
        hierarchies: ``{column: spec}`` (:mod:`privrisk.generalisation.hierarchy`), or ``COLUMN=SPEC`` texts;
            columns without one go raw → ``*``.
        levels: the generalisation to measure (``{column: level}``, or ``age=1,zip=2``); default the finest.
        delta_max, delta_min, k, kmap: the targets (inclusive); None for not asked.
            Every number may also be given as a form holds it: text as typed (``80,000``; decimals with a point),
            empty text or None for not given (:func:`privrisk.generalisation.hierarchy.typed_number`); the
            settings hold it as a number.
        search: search the least generalisation meeting the targets (needs one target and P).
        suppression: share of research records in failing classes the search may remove (needs ``search``).
        loss: the information loss the search minimises among the minimal nodes.
        allow_inconsistent: warn instead of failing when T is not part of P.
        population_size, sampling_fraction: without P, its size N or f = n/N (one of them).
        model, alpha: the estimate's model and significance level (without P).
        demo: run on stevedata/TV16 (born-again respondents among all respondents): its tables,
            quasi-identifiers and hierarchies (``hierarchies`` given are added), its targets where none are
            given, and the search.
        engine, spark_master, spark_rollup_classes: where the grouping pass runs (``duckdb`` or ``spark``).
        hierarchy_files: whether a hierarchy may name a file (``table:FILE.csv``); a server sets False, so that
            no typed path is opened.
        title: what the run measured, for the report folder's title (default: the two tables' names).

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = PresenceSettings(demo=True)
        >>> s.qi[:2], s.delta_max, s.kmap, s.search, s.suppression
        (('state', 'age'), 0.5, 10, True, 0.02)
        >>> PresenceSettings(data="t.csv", population="p.csv", qi=["a"], search=True)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: search: give at least one target (delta_max, delta_min, k or kmap)
    """

    data: Source | None = None
    population: Source | None = None
    qi: Sequence[str] = ()
    population_count: str | None = None
    hierarchies: Mapping[str, object] | Sequence[str] = field(default_factory=dict)
    levels: Mapping[str, int] | str | None = None
    delta_max: float | None = None
    delta_min: float | None = None
    k: int | None = None
    kmap: int | None = None
    search: bool = False
    suppression: float = 0.0
    loss: Loss = "precision"
    allow_inconsistent: bool = False
    population_size: float | None = None
    sampling_fraction: float | None = None
    model: KMapModel = "poisson"
    alpha: float = 0.05
    demo: bool = False
    engine: str = "duckdb"
    spark_master: str | None = None
    spark_rollup_classes: int = SPARK_ROLLUP_CLASSES
    hierarchy_files: bool = True
    title: str | None = None
    dataset: InitVar[Source | None] = None

    def __post_init__(self, dataset: Source | None) -> None:
        set_ = object.__setattr__  # a frozen dataclass normalises itself once, while it is made
        if dataset is not None:
            warnings.warn(deprecation_message("PresenceSettings(dataset=…)", "data=…"), DeprecationWarning,
                          stacklevel=3)  # fmt: skip
            if self.data is not None:
                raise PrivriskError("dataset: the old name of data; give one of them", param="dataset")
            set_(self, "data", dataset)
        # Numbers as a form holds them, text as typed (``80,000``; empty: not given), and ``levels`` as the command
        # takes them (``age=1,zip=2``): read once, here, each error naming its field.
        for name in ("delta_max", "delta_min", "k", "kmap", "population_size", "sampling_fraction"):
            set_(self, name, _typed(getattr(self, name), name))
        suppression, alpha = _typed(self.suppression, "suppression"), _typed(self.alpha, "alpha")
        set_(self, "suppression", 0.0 if suppression is None else suppression)
        set_(self, "alpha", 0.05 if alpha is None else alpha)
        if self.levels is None or isinstance(self.levels, str):
            set_(self, "levels", parse_levels(self.levels))
        hierarchies = _hierarchies(self.hierarchies)
        given = (
            self.qi.split(",") if isinstance(self.qi, str) else self.qi or ()
        )  # "zip,age" as the command has it
        qi = [str(c).strip() for c in given if str(c).strip()]
        if self.demo:
            from privrisk.datasets.tv16 import HIERARCHIES, QI, TARGETS

            if self.data is not None or self.population is not None:
                raise PrivriskError(
                    "demo: runs on its own data; leave out the research subset and the population",
                    param="demo",
                )
            qi = list(QI)
            hierarchies = {**HIERARCHIES, **hierarchies}
            set_(self, "delta_max", TARGETS["delta_max"] if self.delta_max is None else self.delta_max)
            set_(self, "kmap", TARGETS["kmap"] if self.kmap is None else self.kmap)
            set_(self, "suppression", self.suppression or TARGETS["suppression"])
            set_(self, "search", True)
        elif self.data is None:
            raise PrivriskError("data: give the research subset's table (or the demo)", param="data")
        # The order of the checks is the order a user fills the form in: tables, columns, hierarchies, targets.
        if not qi:
            raise PrivriskError("qi: name the quasi-identifier columns, e.g. zip,age,sex", param="qi")
        if len(set(qi)) != len(qi):
            raise PrivriskError(f"qi: a column is named twice: {', '.join(qi)}", param="qi")
        count = (self.population_count or "").strip() or None
        if count is not None and self.population is None:
            raise PrivriskError(
                "population_count: only with a population table (it names the table's column of counts)",
                param="population_count",
            )
        if count is not None and count in qi:
            raise PrivriskError(
                f"population_count: {count!r} is a quasi-identifier; name the column of P that holds the count of "
                "each class",
                param="population_count",
            )
        for name, spec in hierarchies.items():
            if name not in qi:
                raise PrivriskError(
                    f"hierarchies: {name!r} is not one of the quasi-identifiers ({', '.join(qi)})",
                    param="hierarchies",
                )
            if not self.hierarchy_files and _is_file_spec(spec):
                raise PrivriskError(
                    f"hierarchies: no file named in a hierarchy is read here ({name}={spec}); use intervals, "
                    "breaks, prefix or date",
                    param="hierarchies",
                )
        levels = None if self.levels is None else dict(cast("Mapping[str, int]", self.levels))
        for name, level in (levels or {}).items():
            if name not in qi:
                raise PrivriskError(
                    f"levels: {name!r} is not one of the quasi-identifiers ({', '.join(qi)})", param="levels"
                )
            check_whole(level, name="levels")
        engine = check_engine(self.engine)
        if self.spark_master is not None and engine != "spark":
            raise PrivriskError("spark_master: only with the spark engine", param="spark_master")
        check_whole(self.spark_rollup_classes, name="spark_rollup_classes")
        targets = Targets.checked(self.delta_max, self.delta_min, self.k, self.kmap, self.suppression)
        loss = check_choice(self.loss, LOSS_MEASURES, name="loss")
        model = check_choice(self.model, KMAP_MODELS, name="model")
        alpha = float(check_probability(self.alpha, name="alpha", open_low=True, open_high=True))
        self._check_population(targets)
        # Options that only one way of running reads are refused elsewhere rather than silently ignored.
        if self.estimates:
            if self.allow_inconsistent:
                raise PrivriskError(
                    "allow_inconsistent: only with a population table (T is checked against it)",
                    param="allow_inconsistent",
                )
        elif model != "poisson" or alpha != 0.05:
            which = "model" if model != "poisson" else "alpha"
            raise PrivriskError(
                f"{which}: only for the estimate of k-map without a population table", param=which
            )
        if loss != "precision" and not self.search:
            raise PrivriskError(
                "loss: only with the search (it chooses among the minimal nodes)", param="loss"
            )
        if self.spark_rollup_classes != SPARK_ROLLUP_CLASSES and engine != "spark":
            raise PrivriskError(
                "spark_rollup_classes: only with the spark engine", param="spark_rollup_classes"
            )
        if targets.suppression and not self.search:
            raise PrivriskError("suppression: only with the search", param="suppression")
        if self.search and not targets.any:
            raise PrivriskError(
                "search: give at least one target (delta_max, delta_min, k or kmap)", param="search"
            )
        for name, value in {
            "qi": tuple(qi),
            "hierarchies": hierarchies,
            "levels": levels,
            "population_count": count,
            "delta_max": targets.delta_max,
            "delta_min": targets.delta_min,
            "k": targets.k,
            "kmap": targets.kmap,
            "suppression": targets.suppression,
            "search": bool(self.search),
            "loss": loss,
            "model": model,
            "alpha": alpha,
            "engine": engine,
            "allow_inconsistent": bool(self.allow_inconsistent),
        }.items():
            set_(self, name, value)

    def _check_population(self, targets: Targets) -> None:
        """The population table, or its size for an estimate of k-map: one of them, with what each takes."""
        sized = self.population_size is not None or self.sampling_fraction is not None
        if self.population is not None or self.demo:
            if sized:
                which = "population_size" if self.population_size is not None else "sampling_fraction"
                raise PrivriskError(
                    f"{which}: only without a population table (the table gives the sizes)", param=which
                )
            return
        if not sized:
            raise PrivriskError(
                "population: give the population table, or its size (population_size) for an estimate of k-map",
                param="population",
            )
        if self.population_size is not None and self.sampling_fraction is not None:
            raise PrivriskError(
                "sampling_fraction: give the population size or the sampling fraction, not both",
                param="sampling_fraction",
            )
        if self.population_size is not None and not (
            isinstance(self.population_size, int | float) and math.isfinite(self.population_size)
        ):
            raise PrivriskError(
                f"population_size: must be a finite number, got {self.population_size!r}",
                param="population_size",
            )
        if self.sampling_fraction is not None:
            check_probability(self.sampling_fraction, name="sampling_fraction", open_low=True)
        if targets.kmap is None:
            raise PrivriskError(
                "kmap: the estimate without a population table needs the k of k-map", param="kmap"
            )
        # Without P only k-map can be estimated: a target or a search that needs P is refused, not ignored.
        for name in ("delta_max", "delta_min", "k"):
            if getattr(targets, name) is not None:
                raise PrivriskError(
                    f"{name}: needs the population table (without it only k-map is estimated)", param=name
                )
        if self.search:
            raise PrivriskError(
                "search: needs the population table (without it only k-map is estimated)", param="search"
            )

    @property
    def estimates(self) -> bool:
        """Whether the run estimates k-map from the population's size (no population table)."""
        return self.population is None and not self.demo

    @property
    def levels_read(self) -> dict[str, int] | None:
        """``levels`` as read (``{column: level}``; None for the finest)."""
        return cast("dict[str, int] | None", self.levels)

    @property
    def hierarchy_specs(self) -> dict[str, object]:
        """``hierarchies`` as read (``{column: spec}``)."""
        return dict(cast("Mapping[str, object]", self.hierarchies))

    @property
    def targets(self) -> Targets:
        """The thresholds, as the measures take them."""
        return Targets(self.delta_max, self.delta_min, self.k, self.kmap, self.suppression)


@dataclass(frozen=True, eq=False)
class PresenceRun:
    """What :func:`run_presence` found: the report of a run against a population, or the estimate without one.

    Attributes:
        settings: the settings run.
        report: the measured generalisation and the search (None for an estimate).
        estimate: the estimate of k-map without a population table (None otherwise).
        dataset: the research subset as read (the demo's table; else ``settings.data``), for the release.
        warnings: the warnings the run gave (a research subset not part of the population, allowed).
        title: what the run measured.
    """

    settings: PresenceSettings
    report: PresenceReport | None
    estimate: KMapEstimate | None
    dataset: Source
    warnings: tuple[str, ...] = ()
    title: str = ""

    def to_dict(self, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The run as one JSON document (``names`` renames the thresholds in the violations, as for
        :meth:`PresenceReport.to_dict`)."""
        if self.report is not None:
            return self.report.to_dict(names)
        assert self.estimate is not None
        return self.estimate.to_dict()

    def write(self, folder: str | os.PathLike[str]) -> list[str]:
        """Write the report folder (atomically): tables, the release after a successful search, the figure and
        ``manifest.json``; return the tables written."""
        if self.report is not None:
            return self.report.write(folder, self.dataset, title=self.title)
        assert self.estimate is not None
        return self.estimate.write(folder)

    def violated_param(self) -> str | None:
        """The target missed first (``delta_max``, ``delta_min``, ``k``, ``kmap``), if any."""
        if self.report is None:
            return None if self.estimate is None or self.estimate.met else "kmap"
        return next((v.param for v in self.report.measured.violations), None)

    def failure(self, names: Mapping[str, str] | None = None, *, applied: bool = True) -> str | None:
        """Why the run misses its targets, in one line, or None when what it leaves behind meets them.

        The search proposes a generalisation; it is applied only to the release of the report folder
        (``applied``: that folder was written). So a measured table that violates a target fails unless the
        proposed node's release was written; the message names the node that meets the targets.
        ``names`` renames the thresholds, and ``search``, ``levels`` and ``out`` in the proposal (the command line
        passes its options).
        """
        if self.estimate is not None:
            return self.estimate.failure()
        assert self.report is not None
        report = self.report
        if report.search is None or report.search.best is None:
            return report.failure(names)
        violated = report.violations(names)
        if not violated or applied:
            return None
        said = dict(names or {})
        node = levels_text(report.search.best.levels)
        return (
            f"{'; '.join(violated)} at the measured generalisation; {said.get('search', 'the search')} proposes "
            f"{said.get('levels', 'levels')} {node}, which meets the targets, and applies it only to the release "
            f"{said.get('out', 'the report folder holds')}"
        )

    def verdict(self) -> Verdict:
        """The run in one sentence and one number, in plain words (the app's first line)."""
        if self.report is not None:
            return report_verdict(self.report)
        assert self.estimate is not None
        return estimate_verdict(self.estimate)

    def sentence(self) -> str:
        """The verdict in plain words, first: how exposed the most exposed people are, against the targets."""
        return self.verdict().sentence


def run_presence(
    settings: PresenceSettings, *, progress: Progress | None = None, steps: Steps | None = None
) -> PresenceRun:
    """Run the settings: read and group both tables, measure, search; or estimate k-map without a population.

    Args:
        settings: what to run (checked when it was made).
        progress: told the share done and the stage (:class:`privrisk.progress.Progress`), or None.
        steps: deprecated (:data:`Steps`): the stages and a counter of the search's nodes; use ``progress``.

    Raises:
        PrivriskError: bad files, columns or hierarchies (each naming its parameter).
        InconsistentSubsetError: a research subset that is not part of the population, unless
            ``allow_inconsistent`` (then the warning is in :attr:`PresenceRun.warnings`).

    Example:
        >>> import pandas as pd
        >>> T = pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 2]})
        >>> seen = []
        >>> run = run_presence(PresenceSettings(data=T, qi=["a"], kmap=5, sampling_fraction=0.1),
        ...                    progress=lambda done, message: seen.append((done, message)))
        >>> run.estimate.derived_k, run.verdict().met, seen[-1]
        (4, False, (1.0, 'done'))
    """
    from privrisk.presence import estimate as _estimate
    from privrisk.presence.measures import delta_presence
    from privrisk.presence.prepare import prepare_presence
    from privrisk.presence.search import search_generalisation

    if steps is not None:
        warnings.warn(deprecation_message("run_presence(…, steps=…)", "progress=…"), DeprecationWarning,
                      stacklevel=2)  # fmt: skip
    s = settings
    show = _Stages(progress, steps)
    data: Source | None = s.data
    population: Source | None = s.population
    title = s.title
    if s.demo:
        from privrisk.datasets.tv16 import demo_inputs

        data, population, _, _, _ = demo_inputs()
        title = title or DEMO_TITLE
    assert data is not None
    qi, hier, levels = list(s.qi), s.hierarchy_specs, s.levels_read
    if population is None:
        show("Grouping the sample", 0.0)
        est = _estimate.estimate(data, qi, kmap=s.kmap, population_size=s.population_size,
                                 sampling_fraction=s.sampling_fraction, model=s.model, alpha=s.alpha,
                                 hierarchies=hier, levels=levels, engine=s.engine,
                                 spark_master=s.spark_master)  # fmt: skip
        report(progress, 1.0, "done")
        return PresenceRun(s, None, est, data, (), title or f"estimated k-map of {est.dataset}")
    show("Reading and grouping both tables", 0.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        prep = prepare_presence(data, population, qi, hierarchies=hier, population_count=s.population_count,
                                allow_inconsistent=s.allow_inconsistent, engine=s.engine,
                                spark_master=s.spark_master, spark_rollup_classes=s.spark_rollup_classes)  # fmt: skip
    said = tuple(str(w.message) for w in caught)
    show("Measuring δ, k and k-map", _MEASURED)
    t = s.targets
    before = delta_presence(prep, levels=levels, delta_max=t.delta_max, delta_min=t.delta_min, k=t.k,
                            kmap=t.kmap)  # fmt: skip
    found = None
    if s.search:
        advance = show("Searching the lattice (nodes evaluated)", _SEARCHED, total=prep.lattice_size)
        found = search_generalisation(prep, delta_max=t.delta_max, delta_min=t.delta_min, k=t.k, kmap=t.kmap,
                                      suppression=t.suppression, loss=s.loss, progress=advance)  # fmt: skip
    report(progress, 1.0, "done")
    title = title or f"{prep.dataset_label} against {prep.population_label}"
    return PresenceRun(s, PresenceReport(before, found), None, data, said, title)


# The shares of a run against a population done when measuring and searching begin: reading and grouping both
# tables is the one pass over the rows (the population's may be a census).
_MEASURED, _SEARCHED = 0.6, 0.7


class _Stages:
    """The stages of a run told to :class:`~privrisk.progress.Progress` (or to the deprecated :data:`Steps`)."""

    def __init__(self, progress: Progress | None, old: Steps | None) -> None:
        self.progress, self.old = progress, old

    def __call__(self, text: str, done: float, *, total: int | None = None) -> Callable[..., object] | None:
        if self.old is not None:
            return self.old(text) if total is None else self.old(text, total=total)
        report(self.progress, done, text)
        if total is None or self.progress is None:
            return None
        return steps(part(self.progress, done, 1.0), total, "lattice nodes evaluated:")
