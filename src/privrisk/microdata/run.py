"""The one way in: :func:`run_microdata` measures a sample file, reduces its risk as the settings ask, and judges
the thresholds on the file as it will be released.

The command line (``privrisk microdata``) and the app's Microdata page both call it: they map their inputs onto
:class:`MicrodataSettings` (the file inside it; its home is :mod:`privrisk.microdata.settings`, below the measures
that read it) and format the :class:`MicrodataRun` it returns: :meth:`~MicrodataRun.sentence` first, then
:meth:`~MicrodataRun.to_dict` or :meth:`~MicrodataRun.write`. The rules of which inputs go together (suppression or
recoding, not both; an importance order only for suppression; a target for each) are the settings'. A threshold
exceeded carries its parameter (:class:`~privrisk.microdata.measure.Failure`), which a front end names as its
option or label; no text is parsed.

Where the records are measured: a CSV or Parquet file whose measures the key combinations decide (no reduction,
SUDA2 or sensitive variable) and that would take more memory read in than DuckDB's memory limit (records ×
columns measured × 32 bytes against ``PRIVRISK_DUCKDB_MEMORY_LIMIT``, 1 GB unless set:
:func:`~privrisk.microdata._duckdb.grouped_by_default`) is grouped by DuckDB where it lies, with the same document
to the last byte; any other input is read into memory.

Example:
    >>> frame = pd.DataFrame({"sex": list("mmmff"), "age": [30, 30, 40, 50, 50]})
    >>> run = run_microdata(MicrodataSettings(data=frame, keys="sex,age", k=2, reduction="suppress"))
    >>> run.measured.failures(lambda param: "--" + param)
    ['--k: 1 record(s) share their key combination with fewer than 2 (smallest f_k 1)']
    >>> run.sentence()
    'The released file. Judged against the thresholds set (k = 2): met.'
"""

from __future__ import annotations

import dataclasses
import os
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pandas as pd

from privrisk.errors import PrivriskError, deprecation_message
from privrisk.microdata.measure import Failure, MicrodataResult, Namer, measure_microdata
from privrisk.microdata.recoding import Recoding, recode_microdata
from privrisk.microdata.release import (
    RELEASED_NAMES,
    information_loss,
    released_frame,
    released_name,
    write_released,
)
from privrisk.microdata.settings import MicrodataSettings
from privrisk.microdata.suppression import Suppression, suppress_microdata
from privrisk.progress import Progress, part, report

__all__ = ["OUT_FILES", "MicrodataRun", "MicrodataSettings", "run_microdata"]

OUT_FILES = ("combinations.csv", "records.csv", "report.html", "manifest.json", *RELEASED_NAMES.values())
# How a local suppression was found, in the reduction's line.
_SEARCHES = {
    "exact": "exact search",
    "per-record": "search, then each record left solved exactly on its own",
    "greedy": "search with a greedy fallback",
}
"""Every file :meth:`MicrodataRun.write` may write into its folder (the released file only after a reduction,
named by the input's format: ``released.csv``, ``.parquet``, ``.dta`` or ``.sav``)."""

@dataclass(frozen=True, eq=False)
class MicrodataRun:
    """A sample file measured, its risk reduced as the settings ask, and the file as released judged.

    Attributes:
        settings: what was asked (:class:`~privrisk.microdata.settings.MicrodataSettings`).
        measured: the file as given, measured (:func:`~privrisk.microdata.measure.measure_microdata`).
        reduced: the file after suppression or recoding, measured again in full; None without a reduction, or
            when no recoding meets the targets.
        suppression: what local suppression set to missing, or None.
        recoding: the lattice of recodings measured and the one chosen, or None.
        original: the input as read, every column (after a reduction; the released file is made from it), or
            None.
    """

    settings: MicrodataSettings
    measured: MicrodataResult
    reduced: MicrodataResult | None = None
    suppression: Suppression | None = None
    recoding: Recoding | None = None
    original: pd.DataFrame | None = None

    @property
    def result(self) -> MicrodataResult:
        """The file as it will be released, measured: after the reduction if there was one, else as given."""
        return self.measured if self.reduced is None else self.reduced

    @property
    def released(self) -> pd.DataFrame | None:
        """The released file: the input, every column in its order and type, with only the reduced key values
        changed (:func:`~privrisk.microdata.release.released_frame`); None when nothing was reduced."""
        if self.reduced is None:
            return None
        base = self.original if self.original is not None else self.measured.frame
        return released_frame(base, self.reduced.frame, list(self.settings.keys))

    def information_loss(self) -> list[dict[str, Any]]:
        """Per key, what the reduction cost (:func:`~privrisk.microdata.release.information_loss`); empty without
        a reduction."""
        if self.reduced is None:
            return []
        recoded = [k for k, v in (self.recoding.levels or {}).items() if v] if self.recoding is not None else []
        return information_loss(self.measured.frame, self.reduced.frame, list(self.settings.keys), recoded)

    def lost_keys(self) -> list[str]:
        """The keys the released file shows nothing of (every value suppressed, or recoded to one value)."""
        return [d["key"] for d in self.information_loss() if d["lost"]]

    @property
    def reduction(self) -> str | None:
        """The reduction in a line (``12 key value(s) suppressed (greedy)``, ``levels age=2``), or None.

        When no recoding meets the targets the line is a failure that names ``hierarchies``.
        """
        return self._reduction()

    def _reduction(self, name: Namer | None = None) -> str | None:
        unmet = self._unmet_recoding()
        if unmet is not None:
            return unmet.line(name)
        lost = self.lost_keys()
        tail = f"; {', '.join(lost)} lost entirely (the released file shows nothing of it)" if lost else ""
        if self.suppression is not None:
            s = self.suppression
            how = "fewest possible" if s.optimal else f"the fewest possible is at least {s.bound:,}"
            search = _SEARCHES[s.method]
            return f"{len(s.cells):,} key value(s) suppressed ({search}, {how}){tail}"
        if self.recoding is not None and self.recoding.levels is not None:
            return "levels " + ", ".join(f"{k}={v}" for k, v in self.recoding.levels.items()) + tail
        return None

    def _unmet_recoding(self) -> Failure | None:
        if self.recoding is None or self.recoding.levels is not None:
            return None
        return Failure("hierarchies", f"none of the {len(self.recoding.nodes):,} recodings meets the targets")

    def exceeded(self) -> list[Failure]:
        """Each threshold the file as released exceeds, with its parameter; first, a recoding that found nothing
        (``hierarchies``)."""
        unmet = self._unmet_recoding()
        return ([] if unmet is None else [unmet]) + self.result.exceeded()

    def failures(self, name: Namer | None = None) -> list[str]:
        """Each threshold the file as released exceeds, one line each; first, a recoding that found nothing.

        Args:
            name: names each line's parameter for a front end (its option or label); None keeps the library's
                parameter names.
        """
        return [f.line(name) for f in self.exceeded()]

    def violated_param(self) -> str | None:
        """The parameter of the first threshold the file as released exceeds (what exit code 1 names), if any."""
        return next((f.param for f in self.exceeded()), None)

    def sentence(self) -> str:
        """The verdict in plain words, first: whether the file as released meets the thresholds (or the defaults).

        Example:
            >>> frame = pd.DataFrame({"sex": list("mmmff"), "age": [30, 30, 40, 50, 50]})
            >>> run_microdata(MicrodataSettings(data=frame, keys="sex,age")).sentence()
            'No threshold was set; judged against the default targets (k = 3, individual risk ≤ 10 %): NOT met.'
        """
        return ("The released file. " if self.reduced is not None else "") + self.result.verdict()["text"]

    def to_dict(self, *, name: Namer | None = None, rows: int | None = 200) -> dict[str, Any]:
        """One JSON document: the measured file's (:meth:`MicrodataResult.to_dict`) and, after a reduction,
        ``suppression`` or ``recoding``, ``reduction`` (its line), ``failures`` judged on the file as released
        and ``failures_before`` judged on the file as given.

        Args:
            name: as for :meth:`failures` (the command line's ``--json`` names its options).
            rows: the most key combinations listed.
        """
        doc = self.measured.to_dict(rows=rows)
        doc["failures"] = self.measured.failures(name)
        doc["before"] = {"measures": doc["measures"], "failures": doc["failures"], "verdict": doc["verdict"]}
        if self.suppression is not None:
            after = cast(MicrodataResult, self.reduced)
            doc["suppression"] = {**self.suppression.to_dict(), "measures_after": after.measures}
        if self.recoding is not None:
            doc["recoding"] = self.recoding.to_dict()
        reduction = self._reduction(name)
        if reduction is not None:
            doc["reduction"] = reduction
        if self.reduced is not None:  # the thresholds are judged on the file as it will be released
            verdict = self.reduced.verdict(name)
            doc["after"] = {"measures": self.reduced.measures, "failures": self.reduced.failures(name),
                            "verdict": verdict, "information_loss": self.information_loss()}  # fmt: skip
            doc["failures_before"] = doc["failures"]
            doc["failures"] = doc["after"]["failures"]
            doc["verdict"] = verdict
            doc["information_loss"] = doc["after"]["information_loss"]
        return doc

    def write(self, folder: str | os.PathLike[str], *, records: bool = True) -> list[str]:
        """Write the measured file's tables, report and manifest and, after a reduction, ``released.csv``, whole.

        Returns the names written besides ``manifest.json``. Nothing in ``folder`` changes if any of them fails.
        """
        from privrisk.io.files import atomic_dir

        with atomic_dir(Path(folder)) as tmp:
            released = self.released
            extra, summary = [], {}
            if released is not None:
                name = released_name(self.measured.source if self.original is not None
                                     and self.measured.source != "data frame" else None)  # fmt: skip
                write_released(released, tmp / name)
                extra.append({"title": "The released file: the input with only the reduced key values changed",
                              "path": name})  # fmt: skip
                summary = {"reduction": self.reduction, "after": cast(MicrodataResult, self.reduced).measures,
                           "verdict_after": cast(MicrodataResult, self.reduced).verdict(),
                           "information_loss": self.information_loss()}  # fmt: skip
            written = self.measured.write(tmp, records=records, extra_tables=extra, extra_summary=summary,
                                          after=self)  # fmt: skip
        return written


def run_microdata(
    settings: MicrodataSettings | Any,
    old_settings: MicrodataSettings | None = None,
    *,
    progress: Progress | Callable[[str], object] | None = None,
) -> MicrodataRun:
    """Measure the settings' sample file, reduce its risk as ``settings.reduction`` asks, and measure the result again.

    Local suppression (:func:`~privrisk.microdata.suppression.suppress_microdata`) sets the fewest key values to
    missing, least important keys first, until every record meets ``k`` and ``max_risk``; global recoding
    (:func:`~privrisk.microdata.recoding.recode_microdata`) chooses the least generalisation through the
    hierarchies that meets every target set. The thresholds are then judged on the released file
    (:meth:`MicrodataRun.failures`).

    Args:
        settings: a :class:`MicrodataSettings`, the file in its ``data``. The old call
            ``run_microdata(data, settings, progress=say)`` (``say(stage)``) still works for one release; it warns.
        progress: told the share done and each stage (:class:`privrisk.progress.Progress`), or None.

    Example:
        >>> frame = pd.DataFrame({"sex": list("mmmff"), "age": [30, 30, 40, 50, 50]})
        >>> run = run_microdata(MicrodataSettings(data=frame, keys="sex,age", k=2, reduction="suppress"))
        >>> run.measured.failures()
        ['k: 1 record(s) share their key combination with fewer than 2 (smallest f_k 1)']
        >>> run.reduction, run.failures(), run.released["age"].isna().sum()
        ('1 key value(s) suppressed (exact search, fewest possible)', [], np.int64(1))
    """
    if old_settings is not None:
        warnings.warn(deprecation_message("run_microdata(data, settings)", "run_microdata(settings) with "
                                          "MicrodataSettings(data=…)"), DeprecationWarning, stacklevel=2)  # fmt: skip
        if not isinstance(old_settings, MicrodataSettings):
            raise PrivriskError("settings: expected a MicrodataSettings", param="settings")
        return _run(dataclasses.replace(old_settings, data=settings), _stages(progress), ticks=False)
    if not isinstance(settings, MicrodataSettings):
        raise PrivriskError("settings: expected a MicrodataSettings", param="settings")
    return _run(settings, cast("Progress | None", progress), ticks=True)


def _stages(say: Any) -> Progress | None:
    """The old protocol, ``say(stage)`` as each stage began: the stages only, not the ends of the parts."""
    if say is None:
        return None

    def told(done: float, message: str, /) -> None:
        if message not in _ENDS:
            say(message)

    return told


_ENDS = ("measured", "done")


def _run(settings: MicrodataSettings, progress: Progress | None, *, ticks: bool) -> MicrodataRun:
    """:func:`run_microdata`; ``ticks``: whether the recoding's nodes are told one by one (not to the old
    protocol, which took stages only)."""
    reducing = settings.reduction != "none"
    if settings.engine == "spark":  # the group-bys in Spark; what needs every record is refused by the settings
        from privrisk.microdata._spark import measure_on_spark

        return MicrodataRun(settings, measure_on_spark(settings, progress=progress))
    from privrisk.microdata._duckdb import grouped_by_default, measure_in_duckdb

    # A CSV or Parquet file larger in memory than DuckDB's memory limit, measured only by its combinations, is
    # grouped where it lies: the same document, the records kept out of memory.
    if grouped_by_default(settings):
        return MicrodataRun(settings, measure_in_duckdb(settings, progress=progress))
    measured = measure_microdata(None, settings, progress=part(progress, 0.0, 0.5 if reducing else 1.0))
    if not reducing:
        return MicrodataRun(settings, measured)
    report(progress, 0.5, "reading every column for the released file")
    original = _whole(settings.data)
    if settings.reduction == "suppress":
        order = None if settings.importance is None else list(settings.importance)
        report(progress, 0.6, "local suppression")
        suppression, after = suppress_microdata(measured, importance=order)
        report(progress, 1.0, "done")
        return MicrodataRun(settings, measured, after, suppression=suppression, original=original)
    # The frame measured holds every column the recoding reads: the file is not read a second time.
    hierarchies = cast(Mapping[str, object], settings.hierarchies)
    report(progress, 0.6, "global recoding")
    recoding = recode_microdata(measured.frame, settings, hierarchies,
                                progress=part(progress, 0.6, 0.95) if ticks else None)  # fmt: skip
    report(progress, 1.0, "done")
    return MicrodataRun(settings, measured, recoding.result, recoding=recoding, original=original)


def _whole(data: Any) -> pd.DataFrame:
    """The input with every column, for the released file."""
    if isinstance(data, pd.DataFrame):
        return data.reset_index(drop=True)
    from privrisk.io.data import read_table

    return read_table(data)
