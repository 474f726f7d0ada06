"""One way in to the sensitivity of a query on a column: :class:`SensitivitySettings`, :func:`run_sensitivity` and
its :class:`SensitivityRun`.

``privrisk sensitivity`` and the app's page "Data and sensitivity" both map their inputs onto a
:class:`SensitivitySettings` (the data inside it), call :func:`run_sensitivity` and format the
:class:`SensitivityRun` it returns. Every rule about the inputs lives here; a bad one raises
:class:`~privrisk.errors.PrivriskError` whose ``param`` names the field (``universe``, ``max_risk``, …), so the
command line names its option and the app its input.

The run reads the column, chooses the universe (:func:`~privrisk.sensitivity.universe.choose_universe`), and gives
Δf (Allmann et al. 2024, eq. 2), Δv (eq. 3), their ratio and, with ε, the risks ρ_mw (eq. 4, n the number of
values), ρ_tw (eq. 6) and ρ_gl (eq. 5).

Example (Allmann et al., Table 1: Δf = (675 − 1)/2 = 337; removing 675 moves the mean from 141.2 to 7.75):
    >>> run = run_sensitivity(SensitivitySettings(data=[1, 3, 10, 17, 675], column="distance", query="mean",
    ...                                           universe="1,675", epsilon=1))
    >>> run.global_sensitivity, round(run.local_sensitivity, 2), round(run.ratio, 4), round(run.two_worlds, 4)
    (337.0, 133.45, 0.396, 0.5977)
    >>> run.sentence()[:76]
    'At a privacy loss of 1, an attacker who knows every other record would tell '
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from numpy.typing import ArrayLike

from privrisk._validation import check_bounds, check_choice, check_number, check_query, is_blank, set_checked
from privrisk.errors import PrivriskError, ThresholdExceeded, deprecation_message
from privrisk.progress import Progress, report
from privrisk.sensitivity.column import checked_column, column_values
from privrisk.sensitivity.global_ import global_sensitivity
from privrisk.sensitivity.local import local_sensitivity, sensitivity_ratio
from privrisk.sensitivity.queries import METHODS, NEIGHBOURS, Neighbours, SensitivityMethod
from privrisk.sensitivity.universe import Universe, choose_universe

if TYPE_CHECKING:
    from privrisk.io.data import NumericColumn

__all__ = [
    "OUT_FILES",
    "SCHEMA_VERSION",
    "SensitivityRun",
    "SensitivitySettings",
    "run_sensitivity",
    "verdict",
]

SCHEMA_VERSION = 1
OUT_FILES = ("sensitivity.json", "manifest.json")
"""What :meth:`SensitivityRun.write` puts into its folder."""


@dataclass(frozen=True, kw_only=True)
class SensitivitySettings:
    """What ``privrisk sensitivity`` and the app's page ask: the data, a query, a universe, neighbours, a method, ε.

    Checked and normalised when made; every error names its field (``param``), so the command line shows the
    option and the app the input. The universe is one of: the column's own values (the default), ``universe``
    bounds (``"LO,HI"`` or a pair), or the distinct values of ``universe_column`` in ``universe_file``;
    ``universe_min`` then lowers its minimum (Allmann et al., §3.2 and §4.2). ``max_risk`` (a threshold on the
    two-worlds risk) needs ε.

    Args:
        data: a data file (CSV, Parquet, Stata, SPSS) or a table, whose ``column`` is read; a column read already
            (:class:`~privrisk.io.data.NumericColumn`); or the values themselves (missing codes are dropped from
            them as from a file).
        column: the numeric column the query runs on (required for a file or a table).
        name: what the messages call the data (default: the file's path); the app gives the upload's name.
        query: one of ``count, sum, mean, median, min, max, variance, std`` (``var`` for ``variance``).
        universe_file_name: what the messages call the universe file (default: its path).

    Example:
        >>> s = SensitivitySettings(data="distance_work.csv", column="distance", query="MEAN", universe="1,675",
        ...                         epsilon="ln3")
        >>> s.query, s.universe, round(s.epsilon, 4)
        ('mean', (1.0, 675.0), 1.0986)
        >>> SensitivitySettings(data=[1, 3], query="mean", max_risk=0.6)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: max_risk: needs epsilon (the risk is computed at an ε)
    """

    data: Any = field(default=None, repr=False, compare=False)
    column: str | None = None
    name: str | None = None
    query: str
    universe: str | tuple[float, float] | None = None
    universe_file: str | os.PathLike[str] | None = None
    universe_column: str | None = None
    universe_file_name: str | None = None
    universe_min: float | str | None = None
    neighbours: Neighbours | str = "unbounded"
    method: SensitivityMethod | str = "exact"
    epsilon: float | str | None = None
    max_risk: float | None = None
    missing: str | None = None

    def __post_init__(self) -> None:
        from privrisk._validation import check_epsilon, check_probability, parse_epsilon

        column = checked_column(self.data, self.column, settings="SensitivitySettings")
        checked: dict[str, Any] = {
            "column": column,
            "query": check_query(self.query),
            "neighbours": check_choice(self.neighbours, NEIGHBOURS, name="neighbours"),
            "method": check_choice(self.method, METHODS, name="method"),
        }
        if checked["neighbours"] == "bounded" and checked["method"] == "paper":
            raise PrivriskError("method: the paper's four-case rule is defined for unbounded neighbours only",
                                param="method")  # fmt: skip
        universe = None if is_blank(self.universe) else check_bounds(self.universe, name="universe")
        universe_file = None if is_blank(self.universe_file) else self.universe_file
        if universe is not None and universe_file is not None:
            raise PrivriskError(
                "universe: give either the bounds LO,HI or a universe file, not both", param="universe"
            )
        if universe_file is not None and not self.universe_column:
            raise PrivriskError(
                "universe_column: name the column of the universe file that holds the universe",
                param="universe_column",
            )
        if self.universe_column and universe_file is None:
            raise PrivriskError(
                "universe_column: only meaningful with a universe file", param="universe_column"
            )
        universe_min = None if is_blank(self.universe_min) else self.universe_min
        if universe_min is not None:
            universe_min = check_number(universe_min, name="universe_min")
            if universe is not None and universe_min > universe[0]:
                raise PrivriskError(
                    f"universe_min: {universe_min:g} is above the universe's lower bound {universe[0]:g}",
                    param="universe_min",
                )
        epsilon = self.epsilon
        if isinstance(epsilon, str):
            epsilon = parse_epsilon(epsilon, name="epsilon") if epsilon.strip() else None
        elif epsilon is not None:
            epsilon = check_epsilon(epsilon, name="epsilon")
        if self.max_risk is not None:
            if epsilon is None:
                raise PrivriskError(
                    "max_risk: needs epsilon (the risk is computed at an ε)", param="max_risk"
                )
            check_probability(self.max_risk, name="max_risk")
        missing = self.missing.strip() or None if isinstance(self.missing, str) else self.missing
        if missing is not None:
            from privrisk.io.data import parse_missing

            parse_missing(missing)
        checked.update(
            name=None if is_blank(self.name) else str(self.name),
            universe=universe,
            universe_file=universe_file,
            universe_column=self.universe_column or None,
            universe_file_name=None if is_blank(self.universe_file_name) else str(self.universe_file_name),
            universe_min=universe_min,
            epsilon=epsilon,
            max_risk=None if self.max_risk is None else float(self.max_risk),
            missing=missing,
        )
        set_checked(self, checked)  # a frozen dataclass normalises itself once, while it is made

    def universe_for(
        self, values: ArrayLike, *, universe_file_name: str | None = None, name: str | None = None
    ) -> tuple[Universe, str]:
        """The universe these settings choose for ``values`` (:func:`choose_universe`) and its description.

        ``universe_file_name`` (default the field of that name) replaces the universe file's path in the
        description and the messages (the app's uploads live under a temporary path the user never saw). With
        ``name`` (``"data.csv: column 'x'"``) the values are checked to lie in the universe; a value outside is an
        error of parameter ``universe``.

        Example:
            >>> SensitivitySettings(data=[3, 5, 9], query="max", universe_min=0).universe_for([3, 5, 9])[1]
            "the column's own 3 distinct values (as Allmann et al., §3.2 do), with its minimum set to 0"
        """
        file = self.universe_file
        shown = universe_file_name or self.universe_file_name
        low = cast("float | None", self.universe_min)
        try:
            u, how = choose_universe(values, self.universe, file, self.universe_column, low, self.missing)
        except PrivriskError as exc:
            if shown is None or file is None:
                raise
            raise PrivriskError(str(exc).replace(str(file), shown), param=exc.param) from None
        if shown is not None and file is not None:
            how = how.replace(str(file), shown)
        if name is not None:
            try:
                u.check_sample(np.asarray(values, dtype=float), name=name)
            except PrivriskError as exc:
                raise PrivriskError(str(exc), param="universe") from None
        return u, how


def verdict(doc: dict[str, Any]) -> tuple[str, str]:
    """The first number and sentence, in plain words, of a :meth:`SensitivityRun.to_dict` document.

    With ε: the two-worlds risk ρ_tw (Allmann et al., eq. 6), how often an attacker who knows every other record
    would tell from the answer whether one person is in the data, beside guessing, as natural frequencies.
    Without ε: the ratio Δv/Δf, how much of the worst case one record moves the answer on this data.

    Example:
        >>> doc = {"query": "mean", "column": "distance", "n": 5, "global_sensitivity": 337.0,
        ...        "local_sensitivity": 133.46, "ratio": 0.396, "epsilon": 1.0, "two_worlds": 0.5977}
        >>> verdict(doc)
        ('59.8 %', 'At a privacy loss of 1, an attacker who knows every other record would tell from the mean of distance whether one person is in the data right about 60 times in 100; guessing, about 50 in 100.')
        >>> verdict({**doc, "epsilon": None})[1]
        'One record moves the mean of distance by at most 133.5 on your data: 39.6 % of the 337 the universe allows, which lowers the risk of releasing it.'
    """
    from privrisk._format import epsilon_text, natural_frequencies, number, percent_3g

    what = f"the {doc['query']} of {doc['column']}"
    if doc.get("epsilon") is None:
        return percent_3g(doc["ratio"]), (
            f"One record moves {what} by at most {number(doc['local_sensitivity'])} on your data: "
            f"{percent_3g(doc['ratio'])} of the {number(doc['global_sensitivity'])} the universe allows, which lowers "
            "the risk of releasing it."
        )
    attacker, guess = natural_frequencies(doc["two_worlds"], 0.5)
    base = f"{attacker.base:,}"
    return percent_3g(doc["two_worlds"]), (
        f"At a privacy loss of {epsilon_text(doc['epsilon'])}, an attacker who knows every other record would tell "
        f"from {what} "
        f"whether one person is in the data right {attacker.text()} times in {base}; guessing, {guess.text()} "
        f"in {base}."
    )


@dataclass(frozen=True)
class SensitivityRun:
    """What :func:`run_sensitivity` found: Δf, Δv, their ratio and, with ε, the risks; JSON with :meth:`to_dict`,
    words with :meth:`sentence`, files with :meth:`write`.

    Attributes:
        settings: what was asked.
        data: the column as read (its values, and what was dropped).
        universe: the universe chosen, and ``universe_description`` the sentence saying which it is.
        column: the column's name in the document.
        file: the data file read, if one was.
        global_sensitivity: Δf (Allmann et al., eq. 2); ``local_sensitivity``: Δv (eq. 3); ``ratio``: Δv/Δf.
        many_worlds, two_worlds, global_risk: ρ_mw, ρ_tw, ρ_gl at the settings' ε (None without ε).
    """

    settings: SensitivitySettings
    data: NumericColumn = field(repr=False)
    universe: Universe = field(repr=False)
    universe_description: str
    column: str
    global_sensitivity: float
    local_sensitivity: float
    ratio: float
    many_worlds: float | None = None
    two_worlds: float | None = None
    global_risk: float | None = None
    file: str | None = None

    @property
    def n(self) -> int:
        """How many values the query runs on, missing values dropped."""
        return int(self.data.values.size)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk sensitivity --json`` prints, ``schema_version`` first.

        Example:
            >>> run = run_sensitivity(SensitivitySettings(data=[1, 3, 10, 17, 675], query="median"))
            >>> doc = run.to_dict()
            >>> doc["schema_version"], doc["column"], doc["local_sensitivity"], doc["universe"]["kind"]
            (1, 'values', 3.5, 'values')
        """
        s, u = self.settings, self.universe
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            "query": s.query,
            "column": self.column,
            "n": self.n,
            "universe": {
                "kind": "interval" if u.is_interval else "values",
                "lo": u.lo,
                "hi": u.hi,
                "description": self.universe_description,
            },
            "neighbours": s.neighbours,
            "method": s.method,
            "global_sensitivity": self.global_sensitivity,
            "local_sensitivity": self.local_sensitivity,
            "ratio": self.ratio,
            "data": self.data.to_dict(),
        }
        if s.epsilon is not None:
            doc.update(epsilon=s.epsilon, many_worlds=self.many_worlds, two_worlds=self.two_worlds,
                       global_risk=self.global_risk)  # fmt: skip
        return doc

    def verdict(self) -> tuple[str, str]:
        """The first number and sentence (:func:`verdict`)."""
        return verdict(self.to_dict())

    def exceeded(self, name: Callable[[str], str] | None = None) -> ThresholdExceeded | None:
        """``max_risk`` exceeded by the two-worlds risk (None when not, or not set).

        Args:
            name: names the parameter ``max_risk`` in the message (a front end's option or label).
        """
        limit = self.settings.max_risk
        if limit is None or self.two_worlds is None or self.two_worlds <= limit:
            return None
        shown = name("max_risk") if name is not None else "max_risk"
        return ThresholdExceeded(f"two-worlds risk {self.two_worlds:.4f} exceeds {shown} {limit:g}",
                                 param="max_risk")  # fmt: skip

    def sentence(self) -> str:
        """The verdict in plain words, first; then, with ``max_risk``, whether the risk stays within it."""
        said = self.verdict()[1]
        limit = self.settings.max_risk
        if limit is None:
            return said
        if self.exceeded() is not None:
            return f"{said} The two-worlds risk exceeds the largest acceptable risk of {limit:g}."
        return f"{said} The two-worlds risk stays within the largest acceptable risk of {limit:g}."

    def title(self) -> str:
        """The title of the manifest."""
        return f"Sensitivity of the {self.settings.query} of {self.column!r} (n = {self.n:,})"

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``sensitivity.json`` (the :meth:`to_dict` document) and ``manifest.json``, whole or not at all.

        Returns:
            The paths written, ``manifest.json`` last.
        """
        from privrisk.io.files import atomic_dir, write_json
        from privrisk.reports.manifest import write_manifest

        doc = self.to_dict()
        parameters: dict[str, Any] = {} if self.file is None else {"file": self.settings.name or self.file}
        parameters.update({k: doc[k] for k in ("column", "query", "neighbours", "method")},
                          universe=self.universe_description)  # fmt: skip
        if self.settings.epsilon is not None:
            parameters["epsilon"] = self.settings.epsilon
        summary_keys = ["n", "global_sensitivity", "local_sensitivity", "ratio"]
        summary_keys += (
            ["many_worlds", "two_worlds", "global_risk"] if self.settings.epsilon is not None else []
        )
        with atomic_dir(folder) as tmp:
            write_json(tmp / "sensitivity.json", doc)
            write_manifest(tmp, kind="sensitivity", title=self.title(), parameters=parameters,
                           summary={k: doc[k] for k in summary_keys}, findings=[self.sentence()])  # fmt: skip
        return [Path(folder) / "sensitivity.json", Path(folder) / "manifest.json"]


def run_sensitivity(settings: SensitivitySettings, *, progress: Progress | None = None) -> SensitivityRun:
    """Read the column, choose the universe, and give Δf, Δv, their ratio and, with ε, the risks.

    Args:
        settings: what to compute (:class:`SensitivitySettings`, the data among it).
        progress: ``progress(done, message)`` as the steps start (:class:`privrisk.progress.Progress`).

    Raises:
        PrivriskError: a file or column that cannot be read, a value outside the universe (parameter
            ``universe``), or a sensitivity that overflows a float (parameter ``query``).
    """
    s = settings
    if s.data is None:
        raise PrivriskError("data: give a data file (with its column) or the values", param="data")
    report(progress, 0.0, "reading the column")
    col, file = column_values(s.data, s.column, missing=s.missing, name=s.name)
    source = s.name or file
    column = s.column or col.name
    return _measure(s, col, column=column, source=source, file=file, progress=progress)


def _measure(
    s: SensitivitySettings,
    col: NumericColumn,
    *,
    column: str,
    source: str | None,
    file: str | None = None,
    universe_file_name: str | None = None,
    progress: Progress | None = None,
) -> SensitivityRun:
    from privrisk import risk as R

    x = np.asarray(col.values, dtype=float)
    where = f"{source}: column {column!r}" if source else f"column {column!r}"
    report(progress, 0.2, "choosing the universe")
    u, how = s.universe_for(x, universe_file_name=universe_file_name, name=where)
    n = int(x.size)
    # Checked words, normalised when the settings were made.
    nb, rule = cast(Neighbours, s.neighbours), cast(SensitivityMethod, s.method)
    report(progress, 0.5, "computing the sensitivities")
    gs = global_sensitivity(s.query, u, neighbours=nb, n=n if nb == "bounded" else None)
    ls = float(local_sensitivity(s.query, x, u, neighbours=nb, method=rule))
    if not (np.isfinite(gs) and np.isfinite(ls)):
        raise PrivriskError(
            f"query: the sensitivity of the {s.query} over {u.describe()} overflows a float; rescale the values",
            param="query",
        )
    ratio = float(sensitivity_ratio(ls, gs))
    risks: dict[str, float] = {}
    if s.epsilon is not None:
        eps = cast(float, s.epsilon)
        risks = {"many_worlds": float(R.many_worlds(eps, n, ratio)), "two_worlds": float(R.two_worlds(eps, ratio)),
                 "global_risk": float(R.global_risk(eps))}  # fmt: skip
    report(progress, 1.0, "done")
    return SensitivityRun(s, col, u, how, column, gs, ls, ratio, file=file, **risks)


def run_sensitivity_either(settings: Any, *legacy: Any, **keywords: Any) -> Any:
    """:func:`run_sensitivity`, as ``privrisk.sensitivity.run_sensitivity``: it also takes the old call
    ``run_sensitivity(values, settings, column=…, source=…, data=…, universe_file_name=…)``, which returns the
    document (without ``schema_version``) and warns with a :class:`DeprecationWarning` (one release)."""
    if not legacy:
        return run_sensitivity(settings, **keywords)
    from privrisk.io.data import NumericColumn

    warnings.warn(deprecation_message("run_sensitivity(values, settings, column=…)",
                                      "run_sensitivity(SensitivitySettings(data=values, column=…))"),
                  DeprecationWarning, stacklevel=2)  # fmt: skip
    (s,) = legacy
    column = keywords.pop("column")
    source, data = keywords.pop("source", None), keywords.pop("data", None)
    universe_file_name = keywords.pop("universe_file_name", None)
    x = np.asarray(settings, dtype=float)
    col = NumericColumn(name=column, values=x, n_read=int(x.size))
    run = _measure(replace(s, data=col, column=column), col, column=column, source=source,
                   universe_file_name=universe_file_name, **keywords)  # fmt: skip
    doc = run.to_dict()
    del doc["schema_version"]
    doc["data"] = data if data is not None else {}
    return doc
