"""The data of the app's page Presence: the built-in example (Desfontaines' trial and the census it is drawn from),
the TV16 demo, or two uploads: T, the research subset (the session's upload, from any page), and P, the population
(this page's own). :class:`PresenceTables` keeps the uploads' columns and a sample of their rows (for the choices and
the hierarchies' previews), pre-selects sensible columns after an upload (:func:`suggest_qi`,
:func:`suggest_count`: never an id, free text or a count) and gives the tables a run reads.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import reactive, render, ui

from privrisk.app._shared import KeptUpload, error_ui, id_like, upload_columns
from privrisk.app.pages._runs import checked_upload
from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import HierarchyChoice

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.app._long_job import LongJob
    from privrisk.app.pages._hierarchy_editor import HierarchyEditor

__all__ = [
    "EXAMPLE",
    "EXAMPLE_INPUTS",
    "EXAMPLE_NAMES",
    "SOURCES",
    "PresenceTables",
    "preset_source",
    "suggest_count",
    "suggest_qi",
]

# Desfontaines' clinical trial T (ZIP code and age) and the census P it is drawn from, as counts per age band.
EXAMPLE = {
    "trial.csv": "zip,age\n85535,10\n85535,12\n85535,13\n85535,13\n85535,16\n85535,43\n",
    "census.csv": "zip,age,n\n85535,10-19,5\n85535,20-29,5\n85535,30-39,10\n85535,40-49,10\n85535,50+,20\n",
}
# The same files in the repository, named in the command line the page shows.
EXAMPLE_NAMES = {"trial.csv": "examples/presence_trial.csv", "census.csv": "examples/presence_census.csv"}
EXAMPLE_INPUTS: dict[str, Any] = {
    "qi": ["zip", "age"],
    "population_count": "n",
    "hierarchies": {"age": "breaks:10,20,30,40,50,inf/10,40,50,inf"},
    "delta_max": "0.5",
    "search": True,
}
EXAMPLE_VALUES = {"zip": [85535], "age": [10, 12, 13, 16, 43]}
SOURCES = {
    "example": "the example: Desfontaines' trial and census",
    "demo": "real data: born-again respondents among all TV16 respondents",
    "file": "files I upload",
}


def sources(kept: KeptUpload | None) -> dict[str, str]:
    """The data choices: the examples, and the session's upload by name (as T) once there is one."""
    return SOURCES if kept is None else {**SOURCES, "file": f"{kept.label} as T"}


def preset_source(source: str, editor: HierarchyEditor) -> bool:
    """Set the form for the example or the demo (what ``--demo`` sets; the page's targets are then used as given);
    False for the user's files, whose columns are chosen from the uploads."""
    if source == "example":
        ui.update_selectize("qi", choices=EXAMPLE_INPUTS["qi"], selected=EXAMPLE_INPUTS["qi"])
        ui.update_selectize("population_count", choices=["", "n"], selected="n")
        editor.choices.set(example_choices())
        ui.update_text("kmap", value="")
        ui.update_numeric("suppression", value=0.0)
        return True
    if source == "demo":
        from privrisk.datasets.tv16 import QI, TARGETS

        ui.update_selectize("qi", choices=QI, selected=QI)
        ui.update_selectize("population_count", choices=[""], selected="")
        editor.choices.set({})
        ui.update_text("delta_max", value=f"{TARGETS['delta_max']:g}")
        ui.update_text("kmap", value=str(TARGETS["kmap"]))
        ui.update_numeric("suppression", value=TARGETS["suppression"])
        ui.update_checkbox("search", value=True)
        return True
    return False


def example_choices() -> dict[str, HierarchyChoice]:
    """The example's hierarchies, as the editor's choices."""
    return {k: HierarchyChoice.from_spec(v) for k, v in EXAMPLE_INPUTS["hierarchies"].items()}


COUNT_NAMES = ("n", "count", "counts", "freq", "frequency", "weight", "total", "population", "pop")


def _id_like(column: pd.Series, name: str) -> bool:
    """A record's identifier (:func:`~privrisk.app._shared.id_like`), or (from 20 values on) every value distinct:
    a quasi-identifier that singles out everyone is no class."""
    values = column.dropna()
    return id_like(name, values) or (len(values) >= 20 and values.nunique() == len(values))


def _free_text(column: pd.Series) -> bool:
    """Text that is not a code: long values, or (from 20 values on) mostly distinct ones."""
    import pandas as pd

    if pd.api.types.is_numeric_dtype(column) or pd.api.types.is_bool_dtype(column):
        return False
    values = column.dropna().astype(str)
    if values.empty:
        return False
    return bool(values.str.len().mean() > 30 or (len(values) >= 20 and values.nunique() > 0.5 * len(values)))


def suggest_qi(sample: pd.DataFrame, population_columns: Sequence[str] | None = None) -> list[str]:
    """Quasi-identifiers to pre-select after an upload: columns P holds too, never an id, free text or a count.

    Without the population's columns nothing is pre-selected (which of T's columns P holds is not known yet).

    Example:
        >>> import pandas as pd
        >>> T = pd.DataFrame({"id": range(30), "zip": [85535] * 30, "age": [20, 30, 40] * 10,
        ...                   "note": [f"free text number {i}" for i in range(30)]})
        >>> suggest_qi(T, ["zip", "age", "note", "n"]), suggest_qi(T)
        (['zip', 'age'], [])
    """
    if population_columns is None:
        return []
    shared = [c for c in sample.columns if c in set(population_columns)]
    return [
        c
        for c in shared
        if not _id_like(sample[c], str(c)) and not _free_text(sample[c]) and str(c).lower() not in COUNT_NAMES
    ]


def suggest_count(sample: pd.DataFrame, data_columns: Sequence[str] = ()) -> str:
    """P's column of counts per class to pre-select: a whole-number column T lacks, named like a count; else "".

    Example:
        >>> import pandas as pd
        >>> P = pd.DataFrame({"zip": [1, 2], "age": ["10-19", "20-29"], "n": [5, 7]})
        >>> suggest_count(P, ["zip", "age"]), suggest_count(P.rename(columns={"n": "income"}), ["zip", "age"])
        ('n', '')
    """
    import pandas as pd

    for c in sample.columns:
        column = sample[c]
        if (
            c not in set(data_columns)
            and str(c).lower() in COUNT_NAMES
            and pd.api.types.is_integer_dtype(column)
            and bool((column.dropna() >= 0).all())
        ):
            return str(c)
    return ""


def _sample(path: Path, rows: int = 5000) -> pd.DataFrame:
    """The first rows of a table (for the column choices and the hierarchies' previews), read as the run reads it."""
    import duckdb

    from privrisk.io.data import check_file, file_kind
    from privrisk.io.engine import duckdb_relation

    p = check_file(path)
    with duckdb.connect() as con:
        return duckdb_relation(con, p, file_kind(p)).limit(rows).df()


class PresenceTables:
    """T and P of the page in one session: create it in the page's server function (a Shiny module) on the page's
    :class:`~privrisk.app._long_job.LongJob`, which keeps T (the session's upload, input ``file``) and its message;
    hand :meth:`offered` to the job as its ``offer``, and call :meth:`serve` once the form can choose columns.

    Args:
        input: the page's inputs.
        job: the page's long job (its folder, its session upload, its file message).
        max_upload: the upload limit in bytes (P's).
    """

    def __init__(self, input: Any, job: LongJob, *, max_upload: int) -> None:
        self.input, self.job, self.folder, self.max_upload = input, job, job.folder, max_upload
        for name, text in EXAMPLE.items():
            (self.folder / name).write_text(text, encoding="utf-8")
        self.message: reactive.Value[str | None] = reactive.value(None)  # P's (T's is the job's)
        self.samples: dict[str, reactive.Value[pd.DataFrame | None]] = {
            "data": reactive.value(None),
            "population": reactive.value(None),
        }
        self.columns: dict[str, reactive.Value[list[str]]] = {
            "data": reactive.value([]),
            "population": reactive.value([]),
        }
        self._choose: Callable[[], None] = lambda: None

    def column_values(self, name: str) -> list[Any]:
        """A column's values in T (the example's, or a sample of the upload's rows), for the hierarchies' previews."""
        if self.input.source() == "example":
            return list(EXAMPLE_VALUES.get(name, []))
        sample = self.samples["data"]()
        if sample is None or name not in sample.columns:
            return []
        return sorted(sample[name].dropna().unique().tolist(), key=str)

    def offered(self, profile: Any, names: list[str]) -> None:
        """The job's ``offer``: T uploaded on any page of this session (``names`` empty: it cannot be read), a
        sample of its rows read and, on the page's own files, the form's columns chosen."""
        self.columns["data"].set(names)
        self.samples["data"].set(None)
        if names:
            self._sample("data", lambda: self.job.uploads.checked()[0])
        with reactive.isolate():
            if self.input.source() == "file":
                self._choose()

    def read_population(self) -> None:
        """Read the columns and a sample of the rows of P (this page's own upload); a refused upload's message is
        kept for its file input."""
        self.message.set(None)
        self.samples["population"].set(None)
        try:
            found = upload_columns(self.input.population(), max_bytes=self.max_upload)
        except PrivriskError as exc:
            self.message.set(self.job.message(exc))
            self.columns["population"].set([])
            return
        self.columns["population"].set(found)
        self._sample(
            "population", lambda: checked_upload(self.input.population(), max_bytes=self.max_upload)[0]
        )

    def _sample(self, which: str, path: Callable[[], Path]) -> None:
        try:
            self.samples[which].set(_sample(path()))
        except Exception:  # the columns are known; the choices and previews only fall back to none
            self.samples[which].set(None)

    def choose_columns(self, wanted_qi: Sequence[str], wanted_count: str | None) -> None:
        """After an upload: the quasi-identifiers and P's count column the URL names, else sensible ones."""
        data, pop = self.samples["data"](), self.samples["population"]()
        found = self.columns["data"]()
        if wanted_qi:
            selected = [c for c in wanted_qi if c in found]
        elif data is not None:
            selected = suggest_qi(data, self.columns["population"]() or None)
        else:
            selected = []
        ui.update_selectize("qi", choices=found, selected=selected)
        pop_found = self.columns["population"]()
        if wanted_count is not None and (wanted_count == "" or wanted_count in pop_found):
            count = wanted_count  # the URL's choice, an empty one too (P is rows)
        else:
            count = suggest_count(pop, found) if pop is not None else ""
        ui.update_selectize("population_count", choices=["", *pop_found], selected=count)

    def serve(self, choose: Callable[[], None]) -> None:
        """Read P's columns on each upload (``choose()`` then chooses the form's columns, as after T's) and show
        each file's message at its input."""
        input, self._choose = self.input, choose

        @reactive.effect
        @reactive.event(input.population)
        def _population_columns() -> None:
            self.read_population()
            with reactive.isolate():
                choose()

        @render.ui
        def file_error() -> Any:
            return error_ui(self.job.file_message())

        @render.ui
        def population_error() -> Any:
            return error_ui(self.message())

    def run_tables(self) -> tuple[Any, Any, list[tuple[Path, str]], str]:
        """The tables the run reads, the uploads (to name the user's files in messages) and the run's title."""
        source = self.input.source()
        if source == "example":
            trial, census = self.folder / "trial.csv", self.folder / "census.csv"
            given = [(trial, EXAMPLE_NAMES["trial.csv"]), (census, EXAMPLE_NAMES["census.csv"])]
            return trial, census, given, "Desfontaines' trial against its census"
        if source == "demo":
            return None, None, [], ""
        uploads: list[tuple[Path, str]] = []
        data: Path | None = None
        population: Path | None = None
        if self.job.uploads.current() is not None:
            data, name = self.job.uploads.checked(param="data")
            uploads.append((data, name))
        if self.input.population():
            population, pop_name = checked_upload(
                self.input.population(), max_bytes=self.max_upload, param="population"
            )
            uploads.append((population, pop_name))
        names = [n for _, n in uploads]
        return data, population, uploads, " against ".join(names) or "the uploads"

    def names(self) -> tuple[str, str | None]:
        """T's and P's names in the command line the page shows: the repository's example files, or the uploads'."""
        if self.input.source() == "example":
            return EXAMPLE_NAMES["trial.csv"], EXAMPLE_NAMES["census.csv"]
        kept, population = self.job.uploads.current(), self.input.population()
        return (kept.name if kept else "DATA"), (
            Path(str(population[0]["name"])).name if population else None
        )
