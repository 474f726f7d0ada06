"""Every measure of one sample file: :func:`measure_microdata` reads it and measures its risks
(:class:`MicrodataResult`); :func:`~privrisk.microdata.run.run_microdata` measures, reduces and measures again."""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import pandas as pd

from privrisk._format import number, percent_for_people
from privrisk.errors import PrivriskError
from privrisk.microdata._repeated import repeated_max, repeated_mean, repeated_median, repeated_sum
from privrisk.microdata.diversity import Diversity, diversity
from privrisk.microdata.frequencies import Cells, cell_frequencies, first_rows, key_codes, matching_cells
from privrisk.microdata.risk import individual_risk
from privrisk.microdata.settings import MicrodataSettings
from privrisk.microdata.suda import Suda, suda2
from privrisk.microdata.uniqueness import sample_population_uniqueness
from privrisk.progress import Progress, report

__all__ = ["K_LEVELS", "Failure", "MicrodataResult", "Namer", "measure_microdata"]

K_LEVELS = (2, 3, 5)
"""The k of the k-anonymity violations every measurement counts."""

SCHEMA_VERSION = 1

Namer = Callable[[str], "str | None"]
"""A front end's name for a library parameter (an option, a label), or None to keep the parameter's own."""


class Failure(NamedTuple):
    """A threshold exceeded: the parameter that set it (``k``, ``max_risk``, ``l``, ``t``) and what happened.

    Example:
        >>> f = Failure("k", "1 record(s) share their key combination with fewer than 2")
        >>> f.line(), f.line(lambda param: "--" + param)
        ('k: 1 record(s) share their key combination with fewer than 2', '--k: 1 record(s) share their key combination with fewer than 2')
    """

    param: str
    text: str

    def line(self, name: Namer | None = None) -> str:
        """One line, led by the parameter as ``name`` names it (a front end's option or label) or as it is."""
        return f"{(name(self.param) if name is not None else None) or self.param}: {self.text}"

MAX_WEIGHT_SUM = 1e12
"""The largest sum of weights accepted: a population of at most 10¹² people (the estimators stay exact)."""


@dataclass(frozen=True, eq=False)
class MicrodataResult:
    """The risks of a sample file (:func:`measure_microdata`).

    Attributes:
        settings: what was measured.
        source: the file's name (or ``"data frame"``).
        frame: the key, weight, household and sensitive columns as read.
        cells: the distinct key combinations and their f_k, F_k.
        risk: the individual risk of each record.
        household: the household risk of each record, or None.
        diversity: ℓ and t of each sensitive variable.
        suda: SUDA2, or None.
        measures: the file's measures as plain JSON.
    """

    settings: MicrodataSettings
    source: str
    frame: pd.DataFrame
    cells: Cells
    risk: np.ndarray
    household: np.ndarray | None
    diversity: tuple[Diversity, ...]
    suda: Suda | None
    measures: dict[str, Any]

    @property
    def n(self) -> int:
        """The number of records."""
        return len(self.frame)

    def combinations(self) -> pd.DataFrame:
        """One row per distinct key combination: its values, records, f_k, F_k and individual risk, riskiest first."""
        c = self.cells
        first = first_rows(c.cell, len(c.count))
        table = self.frame.iloc[first][list(self.settings.keys)].reset_index(drop=True)
        table["records"] = c.count
        table["f_k"] = c.fk
        table["F_k"] = c.Fk
        table["risk"] = self.risk[first]
        return table.sort_values(["risk", "f_k"], ascending=[False, True], kind="stable").reset_index(drop=True)

    def records_per_risk(self) -> np.ndarray | None:
        """How many records hold each value of ``risk``: None, each is one record's (a file grouped by an engine
        holds one risk per combination: its records)."""
        return None

    def top_combinations(self, rows: int | None) -> pd.DataFrame:
        """The ``rows`` riskiest combinations, the head of :meth:`combinations` (all of them for None)."""
        combos = self.combinations()
        return combos if rows is None else combos.head(rows)

    def records(self) -> pd.DataFrame:
        """One row per record (in file order): its row number, keys, f_k, F_k, risks and SUDA scores."""
        s = self.settings
        table = self.frame[list(s.keys)].copy()
        table.insert(0, "row", np.arange(1, self.n + 1))
        table["f_k"] = self.cells.record_fk
        table["F_k"] = self.cells.record_Fk
        table["risk"] = self.risk
        if self.household is not None:
            table["household_risk"] = self.household
        if self.suda is not None:
            table["suda_score"] = self.suda.score
            table["dis_suda_score"] = self.suda.dis_score
        return table

    def top_records(self, top: int | None = None) -> pd.DataFrame:
        """The ``top`` riskiest records (default: the settings' ``top``)."""
        count = self.settings.top if top is None else top
        table = self.records()
        return table.sort_values(["risk", "row"], ascending=[False, True], kind="stable").head(count)

    def failures(self, name: Namer | None = None) -> list[str]:
        """Each threshold of the settings that the file exceeds, in one line each, led by its parameter (as
        ``name`` names it for a front end: its option or label)."""
        return [f.line(name) for f in self.exceeded()]

    def exceeded(self) -> list[Failure]:
        """Each threshold of the settings that the file exceeds, with its parameter."""
        return self._exceeded(self.settings.k, self.settings.max_risk, self.settings.l, self.settings.t)

    def _exceeded(self, k: float | None, max_risk: float | None, l: float | None, t: float | None) -> list[Failure]:  # noqa: E741
        m, out = self.measures, []
        if max_risk is not None and m["individual_risk"]["max"] > max_risk:
            above = self._records_above(max_risk)
            out.append(Failure("max_risk", f"{above:,} record(s) have an individual risk above "
                       f"{percent_for_people(max_risk)} (highest {percent_for_people(m['individual_risk']['max'])})"))  # fmt: skip
        if max_risk is not None and "household_risk" in m and m["household_risk"]["max"] > max_risk:
            above = self._household_records_above(max_risk)
            out.append(Failure("max_risk", f"{above:,} record(s) live in a household whose risk (someone in it "
                       f"re-identified) is above {percent_for_people(max_risk)} (highest "
                       f"{percent_for_people(m['household_risk']['max'])})"))  # fmt: skip
        if k is not None and m["k_anonymity"]["k"] < k:
            below = self._records_below(k)
            out.append(Failure("k", f"{below:,} record(s) share their key combination with fewer than {k:g} "
                       f"(smallest f_k {m['k_anonymity']['k']})"))  # fmt: skip
        for d in m["diversity"]:
            if l is not None and d["l_distinct"] < l:
                out.append(Failure("l", f"{d['variable']} takes only {d['l_distinct']} distinct value(s) in some "
                           f"class (ℓ = {l:g} asked)"))  # fmt: skip
            if t is not None and d["t"] > t:
                out.append(Failure("t", f"{d['variable']} is {number(d['t'])} from its distribution in the file in "
                           f"some class (t = {t:g} allowed)"))  # fmt: skip
        return out

    def _records_above(self, risk: float) -> int:
        """The records whose individual risk is above ``risk``."""
        return int((self.risk > risk).sum())

    def _records_below(self, k: float) -> int:
        """The records whose f_k is below ``k``."""
        return int((self.cells.record_fk < k).sum())

    def _household_records_above(self, risk: float) -> int:
        """The records in a household whose risk is above ``risk``."""
        return int((self.household > risk).sum()) if self.household is not None else 0

    def _write_records(self, path: Path) -> None:
        from privrisk.io.files import write_csv

        write_csv(self.records(), path)

    def _write_combinations(self, path: Path) -> None:
        from privrisk.io.files import write_csv

        write_csv(self.combinations(), path)

    def verdict(self, name: Namer | None = None) -> dict[str, Any]:
        """The verdict on the file, never green by absence: judged against the thresholds set or, when none is
        set, against the defaults (k = 3, individual risk ≤ 10 %), named as such.

        Returns ``{"targets", "default", "met", "failures", "text"}``; ``failures`` judged against the defaults do
        not make the command line exit 1 (that is only for a threshold the user set). ``name`` as for
        :meth:`failures`.
        """
        s = self.settings
        targets = s.targets
        exceeded = self._exceeded(targets.get("k"), targets.get("max_risk"), targets.get("l"), targets.get("t"))
        failures = [f.line(name) for f in exceeded]
        named = ", ".join(_target_text(name, v) for name, v in targets.items())
        if s.default_targets:
            text = (f"No threshold was set; judged against the default targets ({named}): "
                    + ("met." if not failures else "NOT met."))  # fmt: skip
        else:
            text = f"Judged against the thresholds set ({named}): " + ("met." if not failures else "NOT met.")
        return {"targets": targets, "default": s.default_targets, "met": not failures, "failures": failures,
                "text": text}  # fmt: skip

    def findings(self) -> list[str]:
        """What the measures mean for a person in the file, one sentence each."""
        m = self.measures
        ir, k = m["individual_risk"], m["k_anonymity"]
        # One number format for people (privrisk._format): percentages that never read 0 % for a risk above 0,
        # no e-notation.
        out = [
            f"Expected re-identifications: {number(ir['expected_reidentifications'])} of {self.n:,} records "
            f"({percent_for_people(ir['global_risk'])}), the sum over the records of the chance that an intruder "
            "who knows a person's key values picks the right record.",
            f"The riskiest record is picked correctly with probability {percent_for_people(ir['max'])}; "
            f"{ir['records_above_threshold']:,} record(s) are above {percent_for_people(ir['threshold'])}.",
            f"{k['violations']['2']:,} record(s) are unique in the file on their keys (f_k = 1); "
            f"{k['violations']['5']:,} share their combination with fewer than 4 others.",
        ]
        if "household_risk" in m:
            out.append(f"Counting households (1 − Π(1 − r)): {number(m['household_risk']['expected_reidentifications'])} "
                       "expected re-identifications of a household member.")  # fmt: skip
        for d in m["diversity"]:
            if d["l_distinct"] <= 1:
                first = (f"{d['variable']}: some people's value is disclosed: in some class every record has the same "
                         f"{d['variable']} (distinct ℓ = {d['l_distinct']}), so whoever finds a person's class learns it")  # fmt: skip
            else:
                first = (f"{d['variable']}: every class shows at least {d['l_distinct']} different values (distinct ℓ; "
                         f"entropy ℓ {number(d['l_entropy'], 3)})")  # fmt: skip
            out.append(f"{first}; the largest distance of a class from the file's distribution is "
                       f"t = {number(d['t'], 3)}.")  # fmt: skip
        if "suda2" in m and m["suda2"]["records_with_msu"]:
            top = self.suda_top(3)
            shown = "; ".join(f"record {int(r['row'])} (score {number(float(r['suda_score']))}, DIS-SUDA "
                              f"{number(float(r['dis_suda_score']), 3)})" for r in top.to_dict(orient="records"))  # fmt: skip
            out.append(f"SUDA2: {m['suda2']['records_with_msu']:,} record(s) are unique on a small set of keys; the "
                       f"highest scores: {shown}.")  # fmt: skip
        return out

    def suda_top(self, top: int | None = None) -> pd.DataFrame:
        """The records with the highest SUDA scores (empty without SUDA2), riskiest first."""
        count = self.settings.top if top is None else top
        table = self.records()
        if "suda_score" not in table:
            return table.head(0)
        table = table[table["suda_score"] > 0]
        return table.sort_values(["suda_score", "row"], ascending=[False, True], kind="stable").head(count)

    def to_dict(self, *, rows: int | None = 200) -> dict[str, Any]:
        """One JSON document: settings, measures, findings, the riskiest ``rows`` combinations and top records."""
        shown = self.top_combinations(rows)
        return {
            "schema_version": SCHEMA_VERSION,
            "source": self.source,
            "settings": self.settings.to_dict(),
            "measures": self.measures,
            "failures": self.failures(),
            "verdict": self.verdict(),
            "findings": self.findings(),
            "combinations": {"total": len(self.cells.count), "rows": shown.to_dict(orient="records")},
            "top_records": self.top_records().to_dict(orient="records"),
            "suda_top_records": self.suda_top().to_dict(orient="records"),
        }

    def write(self, folder: str | os.PathLike[str], *, records: bool = True, extra_tables: list[dict[str, str]] | None = None,
              extra_summary: dict[str, Any] | None = None, after: Any = None) -> list[str]:  # fmt: skip
        """Write ``combinations.csv``, ``records.csv``, ``report.html`` and ``manifest.json`` into ``folder``, whole.

        ``extra_tables`` (files already in the folder), ``extra_summary`` and ``after`` (the run, whose reduction
        the report shows) come from :meth:`privrisk.microdata.run.MicrodataRun.write`.
        """
        from privrisk.io.files import atomic_dir, write_text
        from privrisk.microdata.report import report_html
        from privrisk.reports.manifest import write_manifest

        tables = [{"title": "Key combinations, riskiest first", "path": "combinations.csv"}]
        if records:
            tables.append({"title": "Records and their risks", "path": "records.csv"})
        with atomic_dir(Path(folder)) as tmp:
            self._write_combinations(tmp / "combinations.csv")
            if records:
                self._write_records(tmp / "records.csv")
            write_text(tmp / "report.html", report_html(self, run=after))
            tables += list(extra_tables or [])
            write_manifest(tmp, kind="microdata", title=f"Re-identification risk of {self.source}",
                           parameters=self.settings.to_dict(), tables=tables, findings=self.findings(),
                           summary={**self.measures, "verdict": self.verdict(), **(extra_summary or {})})  # fmt: skip
        return [t["path"] for t in tables[:2 if records else 1]] + ["report.html"] + [t["path"] for t in extra_tables or []]


def _target_text(name: str, value: float) -> str:
    return {"k": f"k = {value:g}", "max_risk": f"individual risk ≤ {percent_for_people(value)}",
            "l": f"distinct ℓ ≥ {value:g}", "t": f"t ≤ {value:g}"}[name]  # fmt: skip


def _read(data: Any, settings: MicrodataSettings) -> tuple[pd.DataFrame, str]:
    if data is None:
        raise PrivriskError("data: give the sample file to measure (a file's name or a pandas DataFrame)",
                            param="data")  # fmt: skip
    columns = list(dict.fromkeys([*settings.keys, *(c for c in (settings.weights, settings.household) if c),
                                  *settings.sensitive]))  # fmt: skip
    if isinstance(data, pd.DataFrame):
        missing = [c for c in columns if c not in data.columns]
        if missing:
            shown = ", ".join(map(str, list(data.columns)[:20]))
            raise PrivriskError(f"data: no column {missing[0]!r}; the columns are: {shown}", param="data")
        return data[columns].reset_index(drop=True), "data frame"
    if isinstance(data, (str, os.PathLike)):
        from privrisk.io.data import read_table

        return read_table(data, columns), str(data)
    raise PrivriskError(f"data: expected a file name or a pandas DataFrame, got {type(data).__name__}", param="data")


def _weights(frame: pd.DataFrame, column: str | None) -> np.ndarray | None:
    if column is None:
        return None
    values = pd.to_numeric(frame[column], errors="coerce").to_numpy(dtype=float)
    bad = ~np.isfinite(values)
    if bad.any():
        row = int(np.flatnonzero(bad)[0]) + 1
        raise PrivriskError(f"weights: {column!r} is missing or not a number in {int(bad.sum()):,} record(s) "
                            f"(first: record {row})", param="weights")  # fmt: skip
    if (values < 0).any():
        row = int(np.flatnonzero(values < 0)[0]) + 1
        raise PrivriskError(f"weights: {column!r} is negative in {int((values < 0).sum()):,} record(s) "
                            f"(first: record {row}, {values[row - 1]:g})", param="weights")  # fmt: skip
    with np.errstate(over="ignore"):
        total = float(values.sum())
    if not np.isfinite(total) or total > MAX_WEIGHT_SUM:
        raise PrivriskError(f"weights: {column!r} sums to more than {MAX_WEIGHT_SUM:g} people; a sampling weight "
                            "is the number of people a record stands for", param="weights")  # fmt: skip
    return values


def _households(frame: pd.DataFrame, column: str | None) -> np.ndarray | None:
    if column is None:
        return None
    ids, _ = pd.factorize(frame[column], use_na_sentinel=True)
    if (ids < 0).any():
        row = int(np.flatnonzero(ids < 0)[0]) + 1
        raise PrivriskError(f"household: {column!r} is missing in {int((ids < 0).sum()):,} record(s) "
                            f"(first: record {row}); every member needs its household's id", param="household")  # fmt: skip
    return np.asarray(ids, dtype=np.int64)


def cell_measures(settings: MicrodataSettings, cells: Cells, cell_risk: np.ndarray) -> dict[str, Any]:
    """The measures that the key combinations decide: records, f_k, F_k, individual risk, k-anonymity, the attacker
    models and population uniqueness, from the cells (in order of first appearance) and their risks.

    Every sum over the records runs over the cells' values repeated by their counts, in the cells' order, so a
    file grouped elsewhere (:mod:`privrisk.microdata._spark`) gives the same numbers to the last bit as the file
    read here.
    """
    count = cells.count
    n = int(count.sum())
    threshold = settings.risk_threshold
    weighted = settings.weights is not None
    missing_cells = np.zeros(len(count), dtype=bool)
    for j in range(cells.codes.shape[1]):  # a key at a time: no (combinations × keys) array of booleans
        missing_cells |= cells.codes[:, j] < 0
    # Sums over the records from the combinations (values repeated by counts, never built: a census has 10⁸)
    expected = repeated_sum(cell_risk, count)
    measures: dict[str, Any] = {
        "records": n,
        "combinations": len(count),
        "records_with_missing_keys": int(count[missing_cells].sum()),
        "missing": settings.missing,
        "weighted": weighted,
        "sum_of_weights": float(cells.weight.sum()) if weighted else float(n),
        "individual_risk": {
            "method": settings.method,
            "expected_reidentifications": expected,
            "global_risk": float(np.float64(expected) / n),
            "max": repeated_max(cell_risk, count),
            "mean": repeated_mean(cell_risk, count),
            "median": repeated_median(cell_risk, count),
            "threshold": threshold,
            "records_above_threshold": int(count[cell_risk > threshold].sum()),
        },
        "k_anonymity": {
            "k": int(cells.fk.min()),
            "violations": {str(k): int(count[cells.fk < k].sum()) for k in K_LEVELS},
            "sample_uniques": int(count[cells.fk == 1].sum()),
        },
    }
    partition = settings.missing == "category" or not bool(missing_cells.any())
    measures["attacker_models"] = _attacker_models(cells, count, threshold, partition)
    if partition:
        sizes = count
    else:
        values, at = np.unique(cells.fk, return_inverse=True)  # class_sizes of the records' f_k
        records = np.bincount(at.reshape(-1), weights=count, minlength=values.size).astype(np.int64)
        sizes = np.repeat(values, np.maximum(np.rint(records / values), 1).astype(np.int64))
    population = settings.population_size or (float(cells.weight.sum()) if weighted else None)
    if population is not None:
        if population < n:
            raise PrivriskError(f"population_size: {population:g} is smaller than the file ({n:,} records)",
                                param="population_size")  # fmt: skip
        # With a missing value matching any value the classes overlap, and the class sizes behind the records'
        # f_k may add up to more records than the file has (and than a population as large as the file): the
        # models then see the population as at least those classes, never a refusal of the user's figure.
        measures["population_uniqueness"] = sample_population_uniqueness(
            sizes, population if partition else max(population, float(sizes.sum()))
        )
        if not partition:
            measures["population_uniqueness"]["classes"] = ("from the records' f_k: a missing key value matches "
                                                            "any value, so the classes overlap")  # fmt: skip
    return measures


def _attacker_models(cells: Cells, count: np.ndarray, threshold: float, partition: bool) -> dict[str, Any]:
    """ARX's prosecutor, journalist and marketer risks (:mod:`~privrisk.microdata.uniqueness`) from each
    combination's f_k, F_k and records: 1/f_k and 1/max(F_k, f_k) of every record, summed from the combinations."""
    # one array of the combinations at a time, each computed in place (a census has millions of combinations)
    prosecutor = cells.fk.astype(float)
    np.divide(1.0, prosecutor, out=prosecutor)
    out: dict[str, Any] = {"prosecutor": {"highest": repeated_max(prosecutor, count)}}
    # on a partition ARX's average prosecutor risk is (number of classes)/n, exactly
    out["prosecutor"]["average"] = float(count.size / count.sum() if partition else repeated_mean(prosecutor, count))
    out["prosecutor"]["records_above_threshold"] = int(count[prosecutor > threshold].sum())
    del prosecutor
    journalist = cells.Fk.astype(float)
    np.maximum(journalist, cells.fk.astype(float), out=journalist)
    np.divide(1.0, journalist, out=journalist)
    out["journalist"] = {"highest": repeated_max(journalist, count),
                         "records_above_threshold": int(count[journalist > threshold].sum())}  # fmt: skip
    out["marketer"] = repeated_mean(journalist, count)
    out["threshold"] = threshold
    return out


def household_cells_risk(cell_risk: np.ndarray, household: np.ndarray, cell: np.ndarray, members: np.ndarray,
                         households: int) -> np.ndarray:  # fmt: skip
    """1 − Π(1 − r_j) over the members of each household (sdcMicro ``hier_risk``), from its combinations.

    ``household``, ``cell`` and ``members`` list each household's combinations (sorted by household, then
    combination) and how many of its members have each; the household's Σ log1p(−r_j) is summed in that order, so
    a file grouped elsewhere gives the same risks to the last bit.

    Example:
        >>> household_cells_risk(np.array([0.5, 0.1]), np.array([0, 1]), np.array([0, 1]), np.array([2, 1]), 2).round(6).tolist()
        [0.75, 0.1]
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.log1p(-cell_risk[cell]) * members
    return -np.expm1(np.bincount(household, weights=logs, minlength=households))


def add_household_measures(measures: dict[str, Any], per_household: np.ndarray, size: np.ndarray,
                           threshold: float) -> None:  # fmt: skip
    """Add ``household_risk`` to ``measures``, before the attacker models (the document's order since version 1);
    every sum over the records runs over the households' risks repeated by their sizes, households in order."""
    n = int(size.sum())
    expected = repeated_sum(per_household, size)
    models: dict[str, Any] = {k: measures.pop(k) for k in ("attacker_models", "population_uniqueness") if k in measures}
    measures["household_risk"] = {
        "households": int(per_household.size),
        "expected_reidentifications": expected,
        "global_risk": float(np.float64(expected) / n),
        "max": repeated_max(per_household, size),
        "records_above_threshold": int(size[per_household > threshold].sum()),
    }
    measures.update(models)


def measure_microdata(data: Any, settings: MicrodataSettings, *, progress: Progress | None = None) -> MicrodataResult:
    """Every established risk measure of a sample file of microdata, with weights and households.

    Frequencies f_k and F_k (:mod:`~privrisk.microdata.frequencies`), individual, global and household risk
    (:mod:`~privrisk.microdata.risk`), k-anonymity violations at k = 2, 3, 5, ℓ-diversity and t-closeness of
    each sensitive variable (:mod:`~privrisk.microdata.diversity`), SUDA2 (:mod:`~privrisk.microdata.suda`),
    population uniqueness and ARX's attacker models (:mod:`~privrisk.microdata.uniqueness`).

    Args:
        data: a file (CSV, Parquet, Stata, SPSS) or a pandas DataFrame; None for the settings' own ``data``.
        settings: a :class:`~privrisk.microdata.settings.MicrodataSettings`.
        progress: told the share done and each stage as it begins (:class:`privrisk.progress.Progress`), or None.

    The file is read on this machine whatever ``settings.engine`` says;
    :func:`~privrisk.microdata.run.run_microdata` groups it in Spark for ``engine="spark"``.

    Example:
        >>> frame = pd.DataFrame({"sex": list("mmfff"), "age": [30, 30, 40, 40, 50], "w": [10.0] * 5})
        >>> result = measure_microdata(frame, MicrodataSettings(keys="sex,age", weights="w", k=2))
        >>> result.measures["k_anonymity"]["k"], result.failures()
        (1, ['k: 1 record(s) share their key combination with fewer than 2 (smallest f_k 1)'])
    """
    if not isinstance(settings, MicrodataSettings):
        raise PrivriskError("settings: expected a MicrodataSettings", param="settings")
    report(progress, 0.0, "reading the file")
    frame, source = _read(settings.data if data is None else data, settings)
    if len(frame) == 0:
        raise PrivriskError(f"data: {source} has no records", param="data")
    w = _weights(frame, settings.weights)
    hh = _households(frame, settings.household)
    codes = key_codes(frame, settings.keys)
    report(progress, 0.3, "frequencies and individual risk")
    cells = cell_frequencies(codes, w, missing=settings.missing)
    cell_risk = individual_risk(cells.fk, cells.Fk, method=settings.method)
    risk = cell_risk[cells.cell]
    threshold = settings.risk_threshold
    measures = cell_measures(settings, cells, cell_risk)
    household = None
    if hh is not None:
        size = int(cells.count.size)
        pairs, members = np.unique(hh * size + cells.cell, return_counts=True)  # by household, then combination
        per_household = household_cells_risk(cell_risk, pairs // size, pairs % size, members, int(hh.max()) + 1)
        household = per_household[hh]
        add_household_measures(measures, per_household, np.bincount(hh), threshold)
    # one reading of a missing key value for every measure (settings.missing): the same records match
    partition = settings.missing == "category" or not bool((codes < 0).any())
    if partition:
        classes, rows = cells.cell, None
    else:
        a, b = matching_cells(cells.codes)
        # each cell's class holds the records of every cell it matches: records repeated, one class per cell
        order = np.argsort(cells.cell, kind="stable")
        starts = np.r_[0, np.cumsum(cells.count)]
        take = cells.count[b]
        rows = order[np.repeat(starts[b], take) + (np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take))]
        classes = np.repeat(a, take)
    div = []
    if settings.sensitive:
        report(progress, 0.5, "ℓ-diversity and t-closeness")
    for sv in settings.sensitive:
        values = frame[sv] if rows is None else frame[sv].iloc[rows].reset_index(drop=True)
        div.append(diversity(classes, values, c=settings.c, name=sv, missing_sensitive=settings.missing_sensitive,
                             reference=frame[sv]))  # fmt: skip
    measures["diversity"] = [d.summary() for d in div]
    suda = None
    if settings.suda_max_size:
        report(progress, 0.6, "SUDA2")
        suda = suda2(codes, list(settings.keys), max_size=settings.suda_max_size, dis_fraction=settings.dis_fraction,
                     missing=settings.missing, original_scores=settings.suda_scores == "elliot")  # fmt: skip
        measures["suda2"] = suda.summary()
    report(progress, 1.0, "measured")
    return MicrodataResult(settings, source, frame, cells, risk, household, tuple(div), suda, measures)
