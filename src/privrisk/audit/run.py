"""One way in to the intruder's audit: :class:`AuditSettings`, :func:`run_audit` and its :class:`AuditRun`
(``privrisk.audit.settings`` is this module's old name).

``privrisk audit`` and the app's page Audit both map their inputs onto an :class:`AuditSettings`, call
:func:`run_audit` and format the :class:`AuditRun` it returns: the rules about which settings go together, the
defaults and the turning of settings into a computation live here once. A bad setting raises
:class:`~privrisk.errors.PrivriskError` whose ``param`` names the field (``sweep_record``, ``u``, …), so the command
line can name its option and the app its input.

Example:
    >>> s = AuditSettings(data=[9.91, 9.16, 10.59, 11.27, 10.50, 100.0], epsilon="2", u="0.75")
    >>> run = run_audit(s)
    >>> run.violations, run.verdict().headline
    (1, '1 of 6 records exposed')
    >>> AuditSettings(data=[1, 2, 3], epsilon=2, u=0.5, response=3)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: u: give either u (the uniform draw) or response (the answer), not both
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Sequence
from dataclasses import InitVar, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from privrisk._format import Verdict, number, percent_3g
from privrisk._validation import (
    Query,
    check_bounds,
    check_query,
    is_blank,
    optional_number,
    optional_whole,
    parse_epsilon,
    parse_numbers,
    set_checked,
    take_old_data,
    text_or_none,
)
from privrisk.audit.intruder import (
    TOP_RECORDS,
    AuditResult,
    Event,
    audit_data_dependent,
    audit_sweep,
    check_alpha,
    check_event,
)
from privrisk.errors import PrivriskError, ThresholdExceeded, deprecation_message
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.io.data import NumericColumn

__all__ = ["DEFAULT_ALPHA", "AuditRun", "AuditSettings", "Progress", "Verdict", "run_audit"]

DEFAULT_ALPHA = 1e-4
"""1 − the confidence of the bound on the missing record: Sarathy and Muralidhar take the 99.99th percentile."""


@dataclass(frozen=True, kw_only=True)
class AuditSettings:
    """Everything ``privrisk audit`` and the page Audit take, checked together when made.

    Each field may be given as the command line parses it or as a page's text field holds it (``"0.75"``,
    ``"0,100"``, ``"14,20"``; empty text is "not given"); it is stored normalised (floats, tuples).

    Args:
        data: a data file (CSV, Parquet, Stata, SPSS) or a DataFrame, with ``column``; or the records' values
            themselves (at least three). ``file=`` and ``values=`` are its old names, kept one release (they warn).
        column: the numeric column the query runs on.
        missing: missing codes to drop from the column: ``"negative"`` or ``"-1,-3"`` (a file or a table only).
        name: what the documents call the data file (default: its path as given), e.g. the name of an upload.
        query: one of ``count, sum, mean, median, min, max, variance, std``.
        epsilon: ε > 0 of the data-dependent noise (``2``, ``"ln3"``).
        u: the uniform draw behind the answer, in (0, 1) (Sarathy and Muralidhar take 0.75).
        response: the answer r itself, instead of ``u``.
        event: ``"tail"`` (as Sarathy and Muralidhar) or ``"density"``.
        alpha: 1 − confidence of the bound on the missing record, in (0, 1/2).
        universe: bounds ``(lo, hi)`` or ``"lo,hi"``: also audit noise of the global sensitivity.
        seed: draws u when neither u nor response is given.
        sweep_record: the record (from 1) whose value ``sweep_values`` varies (their Table 3); both or neither.
        sweep_values: the values it takes.
        top: how many of the riskiest records the JSON document lists.

    Example:
        >>> s = AuditSettings(data="claims.csv", column="claims", epsilon="ln3", universe="0,100")
        >>> round(s.epsilon, 4), s.universe, s.alpha
        (1.0986, (0.0, 100.0), 0.0001)
        >>> AuditSettings(data="claims.csv", column="claims", epsilon=2, sweep_values="14")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: sweep_record: give the record N together with sweep_values V1,V2,…
    """

    data: Any = field(default=None, repr=False, compare=False)
    column: str | None = None
    missing: str | None = None
    name: str | None = None
    query: str = "mean"
    epsilon: float | str
    u: float | str | None = None
    response: float | str | None = None
    event: str = "tail"
    alpha: float | str | None = DEFAULT_ALPHA
    universe: tuple[float, float] | str | None = None
    seed: int | str | None = None
    sweep_record: int | str | None = None
    sweep_values: Sequence[float] | str | None = None
    top: int | str = TOP_RECORDS
    file: InitVar[str | os.PathLike[str] | None] = None
    values: InitVar[Any] = None

    def __post_init__(self, file: str | os.PathLike[str] | None, values: Any) -> None:
        take_old_data(self, {"file": file, "values": values})
        column = text_or_none(self.column)
        if is_blank(self.data):
            raise PrivriskError("data: give a data file (with column) or the values", param="data")
        if self.tabular and column is None:
            raise PrivriskError("column: choose the numeric column the query runs on", param="column")
        missing = text_or_none(self.missing)
        if missing is not None:
            from privrisk.io.data import parse_missing

            if not self.tabular:
                raise PrivriskError(
                    "missing: missing codes are dropped from a file's column only", param="missing"
                )
            parse_missing(missing)  # refuses a bad list now, not after the file is read
        query = check_query(self.query if not is_blank(self.query) else "mean")
        if is_blank(self.epsilon):
            raise PrivriskError("epsilon: required, e.g. 2 or ln3", param="epsilon")
        epsilon = parse_epsilon(self.epsilon, name="epsilon")
        u = optional_number(self.u, name="u")
        response = optional_number(self.response, name="response")
        if u is not None and response is not None:
            raise PrivriskError(
                "u: give either u (the uniform draw) or response (the answer), not both", param="u"
            )
        if u is not None and not 0 < u < 1:
            raise PrivriskError(f"u: must lie strictly between 0 and 1, got {u:g}", param="u")
        if response is not None and not math.isfinite(response):
            raise PrivriskError(f"response: must be a finite number, got {response!r}", param="response")
        alpha = optional_number(self.alpha, name="alpha")
        alpha = check_alpha(DEFAULT_ALPHA if alpha is None else alpha)
        universe = self._universe()
        seed = optional_whole(self.seed, name="seed")
        record = self.sweep_record
        if not is_blank(record):
            number_ = optional_number(record, name="sweep_record")
            if number_ is None or number_ != int(number_) or number_ < 1:
                raise PrivriskError(
                    f"sweep_record: there is no record {record}; records are numbered from 1",
                    param="sweep_record",
                )
            record = int(number_)
        else:
            record = None
        sweep = self._sweep_values()
        if (record is None) != (sweep is None):
            raise PrivriskError(
                "sweep_record: give the record N together with sweep_values V1,V2,…", param="sweep_record"
            )
        top = optional_whole(self.top, name="top")
        checked = {
            "column": column,
            "missing": missing,
            "query": query,
            "epsilon": epsilon,
            "u": u,
            "response": response,
            "event": check_event(self.event if not is_blank(self.event) else "tail"),
            "alpha": alpha,
            "universe": universe,
            "seed": seed,
            "sweep_record": record,
            "sweep_values": sweep,
            "top": TOP_RECORDS if top is None else top,
        }
        set_checked(self, checked)  # a frozen dataclass normalises itself once, while it is made

    @property
    def tabular(self) -> bool:
        """Whether the data is a file or a table (whose ``column`` is read), not the values themselves."""
        import pandas as pd

        return isinstance(self.data, str | os.PathLike | pd.DataFrame)

    def _universe(self) -> tuple[float, float] | None:
        u = self.universe
        if is_blank(u):
            return None
        return check_bounds(u, name="universe")

    def _sweep_values(self) -> tuple[float, ...] | None:
        v = self.sweep_values
        if is_blank(v):
            return None
        found: list[float] = (
            parse_numbers(v, name="sweep_values")
            if isinstance(v, str)
            else [float(x) for x in np.ravel(np.asarray(v, dtype=float))]
        )
        if not found or not all(math.isfinite(x) for x in found):
            raise PrivriskError("sweep_values: give at least one finite number", param="sweep_values")
        return tuple(found)


@dataclass(frozen=True)
class AuditRun:
    """What :func:`run_audit` found: the audit, the sweep, the column as read; JSON with :meth:`to_dict`, files
    with :meth:`write`."""

    settings: AuditSettings
    result: AuditResult
    sweep: pd.DataFrame | None = field(default=None, repr=False)
    data: NumericColumn | None = field(default=None, repr=False)
    file: str | None = None

    @property
    def violations(self) -> int:
        """How many possible missing records break e^ε."""
        return self.result.violations

    def nouns(self) -> tuple[str, str]:
        """The words for one record and many, from the column's name ('claims' → 'claim', 'claims')."""
        from privrisk.audit.report import record_nouns

        return record_nouns(self.settings.column)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk audit --json`` prints (without its ``schema_version``)."""
        from privrisk.audit.report import _document

        s = self.settings
        return _document(
            self.result,
            sweep=self.sweep,
            sweep_record=cast("int | None", s.sweep_record) if self.sweep is not None else None,
            file=self.file,
            column=s.column,
            data=None if self.data is None else self.data.to_dict(),
            top=cast(int, s.top),
        )

    def write(self, folder: str | os.PathLike[str], *, progress: Progress | None = None) -> Path:
        """Write the tables, the four figures and ``manifest.json`` into ``folder`` (whole or not at all).

        Returns:
            The path of ``manifest.json``.
        """
        from privrisk.audit.report import _write

        s = self.settings
        return _write(
            self.result,
            folder,
            sweep=self.sweep,
            sweep_record=cast("int | None", s.sweep_record) if self.sweep is not None else None,
            file=self.file,
            column=s.column,
            progress=progress,
        )

    def write_records(self, path: str | os.PathLike[str]) -> Path:
        """Every record's row of the audit as one CSV file (written atomically)."""
        from privrisk.audit.report import write_records

        return write_records(self.result, path)

    def leak(self) -> ThresholdExceeded | None:
        """The threshold ``fail_on_leak`` sets, exceeded: a record breaks e^ε (None when none does)."""
        from privrisk.audit._laplace import exp_text

        v = self.violations
        if not v:
            return None
        return ThresholdExceeded(
            f"fail_on_leak: {v:,} possible missing record{'s' if v > 1 else ''} break e^ε = "
            f"{exp_text(self.result.epsilon)}",
            param="fail_on_leak",
        )

    def global_finding(self) -> str | None:
        """What noise set for the whole universe would do instead, in plain words (None without a universe).

        Example:
            >>> run = run_audit(AuditSettings(data=[9.91, 9.16, 10.59, 11.27, 10.50, 100.0], epsilon=2, u=0.75,
            ...                               universe=(0, 100)))
            >>> run.global_finding()
            'With noise set for any values in [0, 100] instead, no record is exposed: one answer changes the odds by at most 1.82 times.'
        """
        g = self.result.global_audit
        if g is None:
            return None
        noun, plural = self.nouns()
        if g.violations == 0:
            return (
                f"With noise set for any values in {g.universe} instead, no {noun} is exposed: one answer changes "
                f"the odds by at most {number(g.max_ratio, 3)} times."
            )
        return (
            f"With noise set for any values in {g.universe} instead, {g.violations:,} "
            f"{plural if g.violations > 1 else noun} would still be exposed (rounding at the limit)."
        )

    def verdict(self) -> Verdict:
        """The finding in plain words, one number and one sentence (no symbols, no citations).

        Example:
            >>> claims = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18,
            ...           9.45, 12.65, 9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08,
            ...           10.38, 12.32, 9.92, 100.0]
            >>> v = run_audit(AuditSettings(data=claims, epsilon=2, u=0.75)).verdict()
            >>> v.headline
            '1 of 30 records exposed'
            >>> v.sentence
            'An intruder who holds the other 29 records learns from one answer that the missing record is at least 25.08 (99.99 % sure).'
        """
        return audit_verdict(self.result, *self.nouns())


def audit_verdict(res: AuditResult, noun: str = "record", plural: str | None = None) -> Verdict:
    """:meth:`AuditRun.verdict` for an :class:`~privrisk.audit.intruder.AuditResult`."""
    plural = plural or noun + "s"
    n, v = res.n, res.violations
    headline = f"{v:,} of {n:,} {plural if n != 1 else noun} exposed"
    limit = number(math.exp(min(res.epsilon, 700.0)), 4)
    if v == 0:
        return Verdict(
            headline,
            f"Whichever {noun} is missing, one answer changes an intruder's odds about it by at most {limit} "
            "times: the limit this privacy setting promises holds.",
        )
    if res.bound_learned:
        sure = percent_3g(1 - res.alpha)
        return Verdict(
            headline,
            f"An intruder who holds the other {n - 1:,} {plural} learns from one answer that the missing {noun} "
            f"{_bound_words(res)} ({sure} sure).",
        )
    most = float(np.max(np.abs(res.records["log10_ratio"].to_numpy())))
    times = "more than 10³⁰⁰" if most > 300 else number(10**most, 3)
    return Verdict(
        headline,
        f"When one of {'these' if v > 1 else 'them'} is missing, one answer changes an intruder's odds by up to "
        f"{times} times, far beyond the {limit} times this privacy setting promises.",
    )


def _bound_words(res: AuditResult) -> str:
    b = number(res.bound, 4)
    return {
        "at least": f"is at least {b}",
        "at most": f"is at most {b}",
        "distance at least": f"lies at least {b} from the mean of the others",
        "distance at most": f"lies within {b} of the mean of the others",
    }[res.bound_kind]


def run_audit(
    settings: AuditSettings, *, progress: Progress | None = None, name: str | None = None
) -> AuditRun:
    """Read the column, audit every possible missing record, and sweep one record when asked.

    Args:
        settings: what to audit (:class:`AuditSettings`), the data among it.
        progress: ``progress(done, message)`` as the steps start (:class:`privrisk.progress.Progress`; a page's
            progress bar); it may raise to stop the run (the app's Cancel).
        name: the old place of ``settings.name`` (it warns).

    Returns:
        An :class:`AuditRun`.

    Raises:
        PrivriskError: a file, column or values unfit for the audit (fewer than three values, values outside
            the universe, a sweep record beyond the last).
    """
    s = settings
    if name is not None:
        warnings.warn(deprecation_message("run_audit(…, name=…)", "AuditSettings(name=…)"), DeprecationWarning,
                      stacklevel=2)  # fmt: skip
    label = name or s.name or (str(s.data) if isinstance(s.data, str | os.PathLike) else None)
    col = None
    report(progress, 0.0, "Reading the column")
    if s.tabular:
        from privrisk.io.data import numeric_values, read_column

        if isinstance(s.data, str | os.PathLike):
            col = read_column(s.data, cast(str, s.column), missing=s.missing)
        else:
            col = numeric_values(s.data[s.column], name=cast(str, s.column), missing=s.missing, source=label)
        values = col.values
        where = f"{label or 'table'}: column {s.column!r}"
    else:
        values = np.asarray(s.data, dtype=float).ravel()
        where = "values"
    n = int(values.size)
    if n < 3:
        raise PrivriskError(
            f"{where} has {n} value{'s' if n != 1 else ''}; the audit needs at least 3 "
            "(the intruder leaves one record out, and then one more)",
            param=None if s.tabular else "data",
        )
    if s.universe is not None:
        from privrisk.sensitivity import Universe

        Universe.from_bounds(*cast(tuple[float, float], s.universe)).check_sample(values, name=where)
    if s.sweep_record is not None and int(cast(int, s.sweep_record)) > n:
        raise PrivriskError(
            f"sweep_record: there is no record {s.sweep_record}; records are numbered 1 to {n}",
            param="sweep_record",
        )
    report(progress, 0.1, f"Auditing every possible missing record ({n:,})")
    res = audit_data_dependent(
        values,
        cast(Query, s.query),
        cast(float, s.epsilon),
        u=cast("float | None", s.u),
        response=cast("float | None", s.response),
        event=cast(Event, s.event),
        alpha=cast(float, s.alpha),
        universe=cast("tuple[float, float] | None", s.universe),
        seed=cast("int | None", s.seed),
    )
    sweep = None
    if s.sweep_record is not None and s.sweep_values is not None:
        report(progress, 0.2, "Sweeping the record's value")
        sweep = audit_sweep(
            values,
            s.query,
            cast(float, s.epsilon),
            int(cast(int, s.sweep_record)),
            list(cast(tuple[float, ...], s.sweep_values)),
            u=res.u,
            response=cast("float | None", s.response),
            event=cast(Event, s.event),
        )
    return AuditRun(s, res, sweep, col, label)
