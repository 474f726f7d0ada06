"""The app's page "Presence": δ-presence, k-anonymity and k-map of a research subset against a population, and the
least generalisation meeting the targets, as ``privrisk presence`` computes them (Nergiz et al. 2007).

The page maps its inputs onto :class:`privrisk.presence.PresenceSettings` (:func:`settings_from`, which holds no
Shiny), runs :func:`privrisk.presence.run_presence` in a worker thread (progress over the lattice, Cancel) and
writes the command's folder with :meth:`privrisk.presence.PresenceRun.write`. The result leads with the verdict in
plain words (:meth:`privrisk.presence.PresenceRun.verdict`); the measures, classes and search are folded below it.
An error is shown at the input its field names. Hierarchies are chosen with controls (as is, intervals of a width,
breaks), each with a preview of its classes (:mod:`privrisk.app.pages._hierarchy_editor`); the command line the
page shows gives the equivalent ``-H`` syntax.
The built-in example is Desfontaines' clinical trial and the census it is drawn from (the files
examples/presence_trial.csv and examples/presence_census.csv of the repository).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, reactive, render, ui

from privrisk.app._shared import (
    KeptUpload,
    command_line,
    error_ui,
    id_like,
    keep_upload,
    preset_inputs,
    query_params,
    session_upload,
    upload_columns,
    warning_ui,
)
from privrisk.app.pages._hierarchy_editor import (
    HierarchyEditor,
    choice_from_inputs,
    editor_fieldset,
    hierarchy_options,
    preset_choices,
)
from privrisk.app.pages._hierarchy_editor import typed_number as _number
from privrisk.app.pages._presence_tables import classes_frame, estimate_frame, minimal_frame, summary_frame
from privrisk.app.pages._runs import (
    Runner,
    checked_upload,
    figures_ui,
    frame_ui,
    main_panel,
    named_error,
    session_folder,
    zip_bytes,
)
from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import HierarchyChoice

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.app._shared import Job
    from privrisk.presence.run import PresenceRun, PresenceSettings

ID = "presence"
TITLE = "Presence"

__all__ = [
    "EXAMPLE",
    "FIELDS",
    "ID",
    "TITLE",
    "choice_from_inputs",
    "field_of",
    "page_server",
    "page_ui",
    "settings_from",
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
_INTRO = (
    "When being in a data set is itself sensitive (a trial, a disease register), a release can reveal membership "
    "without re-identifying anyone. Give the research subset T and the population P an attacker can also see: "
    "both are generalised the same way, and for each class δ = |T class| / |P class| is the probability that a "
    "person of that class is in T. The search finds the least generalisation that meets the targets. Without a "
    "population table, give its size for estimated k-map."
)
LOSSES = ("precision", "height", "discernibility")

# Every input an error can stand beside: the settings' field → the page's input (its error shows under it).
FIELDS: dict[str, str] = {
    "dataset": "data",
    "population": "population",
    "qi": "qi",
    "population_count": "population_count",
    "hierarchies": "hierarchies",
    "levels": "levels",
    "delta_max": "delta_max",
    "delta_min": "delta_min",
    "k": "k",
    "kmap": "kmap",
    "search": "search",
    "suppression": "suppression",
    "loss": "loss",
    "allow_inconsistent": "allow_inconsistent",
    "population_size": "population_size",
    "sampling_fraction": "sampling_fraction",
    "model": "estimator",
    "alpha": "alpha",
    "demo": "source",
}


def _field_error(name: str) -> Any:
    return ui.output_ui(f"err_{name}")


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left; the verdict, then the folded detail, on the right."""
    population = ui.accordion(
        ui.accordion_panel(
            "No population table? Estimate k-map",
            ui.input_text("population_size", "Population size N (without a population table)", value=""),
            _field_error("population_size"),
            ui.input_text("sampling_fraction", "or the sampling fraction f = n/N", value=""),
            _field_error("sampling_fraction"),
            ui.input_select(
                "estimator",
                "Model",
                {"poisson": "poisson", "zero-truncated-poisson": "zero-truncated-poisson"},
            ),
            _field_error("estimator"),
            ui.input_numeric("alpha", "Significance level α", value=0.05, min=0, max=1, step=0.01),
            _field_error("alpha"),
        ),
        open=False,
    )
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_radio_buttons(
                "source",
                "Data",
                SOURCES,
                selected="example",
            ),
            _field_error("source"),
            ui.panel_conditional(
                "input.source === 'file'",
                ui.input_file(
                    "data",
                    "Research subset T (CSV, Parquet, Stata, SPSS)",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("data_error"),
                _field_error("data"),
                ui.input_file(
                    "population",
                    "Population P (rows, or counts per class)",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("population_error"),
                _field_error("population"),
                population,
            ),
            ui.input_selectize(
                "qi",
                "Quasi-identifiers",
                choices=EXAMPLE_INPUTS["qi"],
                selected=EXAMPLE_INPUTS["qi"],
                multiple=True,
            ),
            _field_error("qi"),
            ui.input_selectize(
                "population_count",
                "P's column of counts per class (empty: P is rows)",
                choices=["", "n"],
                selected="n",
            ),
            _field_error("population_count"),
            editor_fieldset(_field_error("hierarchies")),
            ui.input_text("levels", "Measure this generalisation (age=1,zip=2; empty: the finest)", value=""),
            _field_error("levels"),
            ui.layout_columns(
                ui.div(
                    ui.input_text("delta_max", "δ_max", value=EXAMPLE_INPUTS["delta_max"]),
                    _field_error("delta_max"),
                ),
                ui.div(ui.input_text("delta_min", "δ_min", value=""), _field_error("delta_min")),
                ui.div(ui.input_text("k", "k-anonymity k", value=""), _field_error("k")),
                ui.div(ui.input_text("kmap", "k-map", value=""), _field_error("kmap")),
                col_widths=(6, 6, 6, 6),
            ),
            ui.input_checkbox("search", "Search the least generalisation meeting the targets", value=True),
            _field_error("search"),
            ui.layout_columns(
                ui.div(
                    ui.input_numeric("suppression", "Suppression share", value=0.0, min=0, max=1, step=0.01),
                    _field_error("suppression"),
                ),
                ui.div(ui.input_select("loss", "Loss", {v: v for v in LOSSES}), _field_error("loss")),
                col_widths=(6, 6),
            ),
            ui.input_checkbox(
                "allow_inconsistent", "Warn instead of failing when T is not part of P", value=False
            ),
            _field_error("allow_inconsistent"),
            ui.input_action_button("run", "Measure", class_="btn-primary mt-2"),
            width=400,
        ),
        *main_panel("δ-presence, k-anonymity and k-map", _INTRO),
    )


# ----------------------------------------------------------------------------------- the inputs, without Shiny


def _whole(value: Any, name: str) -> int | None:
    text = str(value if value is not None else "").strip()
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a whole number", param=name) from None


def settings_from(
    values: Mapping[str, Any],
    *,
    source: str,
    data: Any = None,
    population: Any = None,
    title: str | None = None,
) -> PresenceSettings:
    """The page's inputs as :class:`~privrisk.presence.PresenceSettings` (checked there; errors name the field).

    Args:
        values: the inputs by name (``qi`` a list, ``hierarchies`` ``{column: spec}`` from the editor, numbers as
            typed).
        source: ``example``, ``demo`` or ``file``.
        data, population: the tables (the server's copies of the uploads; None where none was given).
        title: what the run measures, for the report folder (the user's file names, never a server path).

    Example:
        >>> s = settings_from({"qi": ["a"], "delta_max": "0.5", "search": True}, source="file", data="t.csv",
        ...                   population="p.csv")
        >>> s.delta_max, s.search, s.hierarchy_files
        (0.5, True, False)
    """
    from privrisk.presence.run import PresenceSettings, parse_levels

    demo = source == "demo"
    alpha = values.get("alpha")
    suppression = _number(values.get("suppression"), "suppression") or 0.0
    return PresenceSettings(
        data=None if demo else data,
        population=None if demo else population,
        qi=[] if demo else [c for c in values.get("qi") or [] if c],
        population_count=None if demo else (str(values.get("population_count") or "").strip() or None),
        hierarchies={k: v for k, v in (values.get("hierarchies") or {}).items() if v},
        levels=parse_levels(str(values.get("levels") or "")),
        delta_max=_number(values.get("delta_max"), "delta_max"),
        delta_min=_number(values.get("delta_min"), "delta_min"),
        k=_whole(values.get("k"), "k"),
        kmap=_whole(values.get("kmap"), "kmap"),
        search=bool(values.get("search")),
        suppression=suppression,
        loss=str(values.get("loss") or "precision"),  # type: ignore[arg-type]  # checked by the settings
        allow_inconsistent=bool(values.get("allow_inconsistent")),
        population_size=_number(values.get("population_size"), "population_size"),
        sampling_fraction=_number(values.get("sampling_fraction"), "sampling_fraction"),
        model=str(values.get("estimator") or "poisson"),  # type: ignore[arg-type]  # checked by the settings
        alpha=0.05 if alpha is None or alpha == "" else float(alpha),
        demo=demo,
        hierarchy_files=False,  # the server opens no path a user typed
        title=title,
    )


def field_of(exc: BaseException) -> str | None:
    """The input an error belongs beside (:data:`FIELDS`), or None for the page's status line.

    A hierarchy that cannot place a value names no field (``hierarchy 'age': …``): it belongs to the editor.

    Example:
        >>> field_of(PrivriskError("population_count: name it", param="population_count"))
        'population_count'
        >>> field_of(PrivriskError("hierarchy 'age': the value 'x' is not a number")), field_of(ValueError("x"))
        ('hierarchies', None)
    """
    if not isinstance(exc, PrivriskError):
        return None
    param = exc.param
    if param in ("hierarchy", "hierarchies") or (param is None and str(exc).startswith("hierarchy ")):
        return "hierarchies"
    return FIELDS.get(param or "")


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


def _command(values: Mapping[str, Any], *, source: str, data_name: str | None, pop_name: str | None) -> str:
    """The ``privrisk presence`` command that gives the page's result (``-H`` for the editor's hierarchies)."""
    hier = hierarchy_options(values.get("hierarchies") or {})
    if source == "demo":
        from privrisk.datasets.tv16 import TARGETS

        options: dict[str, Any] = {"demo": True}
        if str(values.get("delta_max") or "").strip() != f"{TARGETS['delta_max']:g}":
            options["delta_max"] = values.get("delta_max")
        if str(values.get("kmap") or "").strip() != str(TARGETS["kmap"]):
            options["kmap"] = values.get("kmap")
        options |= {
            "delta_min": values.get("delta_min"),
            "k": values.get("k"),
            "levels": values.get("levels"),
        }
        if float(values.get("suppression") or 0) not in (0.0, TARGETS["suppression"]):
            options["suppression"] = values.get("suppression")
        if values.get("loss", "precision") != "precision":
            options["loss"] = values.get("loss")
        options["out"] = "presence/"
        return command_line("presence", **options) + hier
    head = command_line(
        "presence",
        file=data_name or "DATA",
        population=pop_name,
        population_count=values.get("population_count") or None,
        qi=",".join(values.get("qi") or []) or None,
    )
    more: dict[str, Any] = {
        "levels": values.get("levels"),
        "delta_max": values.get("delta_max"),
        "delta_min": values.get("delta_min"),
        "k": values.get("k"),
        "kmap": values.get("kmap"),
        "search": bool(values.get("search")),
    }
    if values.get("search") and float(values.get("suppression") or 0):
        more["suppression"] = values.get("suppression")
    if values.get("search") and values.get("loss", "precision") != "precision":
        more["loss"] = values.get("loss")
    more["allow_inconsistent"] = bool(values.get("allow_inconsistent"))
    if pop_name is None:
        more |= {
            "population_size": values.get("population_size"),
            "sampling_fraction": values.get("sampling_fraction"),
        }
        if values.get("estimator", "poisson") != "poisson":
            more["estimator"] = values.get("estimator")
        alpha = values.get("alpha")
        if alpha is not None and alpha != "" and float(alpha) != 0.05:
            more["alpha"] = alpha
    more["out"] = "presence/"
    return head + hier + command_line("presence", **more)[len("privrisk presence") :]


# ----------------------------------------------------------------------------------------------- the work


def _work(job: Job, settings: PresenceSettings, folder: Path) -> dict[str, Any]:
    """Run the settings and write the command's folder (what ``privrisk presence --out`` does), in a worker thread.

    A bad input found while reading (a column, a hierarchy, a count column) comes back as ``{"error": exc}``, so
    that the page shows it at its input rather than as the run's failure.
    """
    from privrisk.presence.prepare import InconsistentSubsetError
    from privrisk.presence.run import run_presence

    try:
        run = run_presence(settings, progress=job.advance)
    except InconsistentSubsetError as exc:
        said = PrivriskError(
            f"allow_inconsistent: {exc.detail}; tick “warn instead of failing” to continue",
            param="allow_inconsistent",
        )
        return {"error": said}
    except PrivriskError as exc:
        if field_of(exc) is None:
            raise
        return {"error": exc}
    job.advance(1.0, "Writing the tables and the chart")
    run.write(folder)
    return {"run": run}


# The thresholds as the page names them (its labels), in the violations it lists.
TARGET_NAMES = {"delta_max": "δ_max allowed", "delta_min": "δ_min allowed", "k": "k", "kmap": "k-map allowed"}


def _results_ui(run: PresenceRun, out: Path) -> Any:
    """The verdict first; the measures, classes, search and figure folded below it."""
    verdict = run.verdict()
    tone = "success" if verdict.met else ("warning" if verdict.met is False else "secondary")
    parts: list[Any] = [
        ui.div(
            ui.p(verdict.sentence, class_="lead mb-1"),
            ui.p(verdict.detail, class_="mb-0 small") if verdict.detail else None,
            class_=f"alert alert-{tone} privrisk-verdict",
            id="presence-verdict",
            role="status",
        )
    ]
    failure = run.failure(TARGET_NAMES)
    if failure:
        parts.append(
            ui.p(f"Target missed: {failure} (the command line exits with code 1).", class_="privrisk-failure")
        )
    parts += [warning_ui(w, "presence") for w in run.warnings]
    buttons = [ui.download_button("download_classes", "classes.csv", class_="btn-sm me-2")]
    if (out / "release.csv").is_file():
        buttons.insert(
            0,
            ui.download_button(
                "download_release", "the release table (release.csv)", class_="btn-sm btn-success me-2"
            ),
        )
    buttons.append(ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"))
    parts.append(ui.div(*buttons, class_="mb-3"))
    detail: list[Any] = []
    if run.estimate is not None:
        e = run.estimate
        detail += [
            ui.p(e.finding()),
            frame_ui(
                estimate_frame(e),
                id="presence-estimate",
                caption=f"Estimated {e.kmap}-map (an estimate, {e.model} model; no population table)",
            ),
            ui.p("Assumptions: " + e.to_dict()["assumptions"] + ".", class_="privrisk-help"),
        ]
    else:
        assert run.report is not None
        report = run.report
        before, found = report.measured, report.search
        levels = ", ".join(f"{k}={v}" for k, v in before.summary["levels"].items())
        detail += [
            ui.p(f"violated: {v}", class_="privrisk-violation") for v in report.violations(TARGET_NAMES)
        ]
        detail.append(
            frame_ui(summary_frame(before.summary), id="presence-summary", caption=f"Measured at {levels}")
        )
        detail.append(frame_ui(classes_frame(before), id="presence-classes",
                               caption=f"Classes of highest δ ({len(before.classes):,} in all)"))  # fmt: skip
        if found is not None:
            detail.append(
                ui.p(
                    f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
                    f"{len(found.minimal):,} minimal node(s) meet the targets.",
                    id="presence-search-result",
                )
            )
            if len(found.minimal):
                detail.append(
                    frame_ui(minimal_frame(found), id="presence-minimal", caption="Minimal generalisations")
                )
            if found.best is not None:
                chosen = ", ".join(f"{k}={v}" for k, v in found.best.summary["levels"].items())
                detail += [
                    frame_ui(
                        summary_frame(found.best.summary), id="presence-chosen", caption=f"Chosen: {chosen}"
                    ),
                    frame_ui(
                        classes_frame(found.best),
                        id="presence-chosen-classes",
                        caption="Classes of highest δ after the search",
                    ),
                ]
        detail += [ui.h3("δ per class", class_="h4"), figures_ui(out)]
    parts.append(
        ui.tags.details(
            ui.tags.summary("The measures, the classes and the search (δ, k-anonymity, k-map)"),
            *detail,
            id="presence-detail",
            class_="mb-3",
        )
    )
    return ui.TagList(*parts)


# --------------------------------------------------------------------------------------------------- server


SOURCES = {
    "example": "the example: Desfontaines' trial and census",
    "demo": "real data: born-again respondents among all TV16 respondents",
    "file": "files I upload",
}


def _sources(kept: KeptUpload | None) -> dict[str, str]:
    """The data choices: the examples, and the session's upload by name (as T) once there is one."""
    return SOURCES if kept is None else {**SOURCES, "file": f"{kept.label} as T"}


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = session_folder(session, ID)
    for name, text in EXAMPLE.items():
        (folder / name).write_text(text, encoding="utf-8")
    runner = Runner("presence", "cancel", session, folder)
    params = query_params(session)
    kinds = {
        "source": "radio",
        "levels": "text",
        "delta_max": "text",
        "delta_min": "text",
        "k": "text",
        "kmap": "text",
        "search": "checkbox",
        "suppression": "numeric",
        "loss": "select",
        "allow_inconsistent": "checkbox",
        "population_size": "text",
        "sampling_fraction": "text",
        "estimator": "select",
        "alpha": "numeric",
    }
    preset_inputs(session, kinds)
    wanted_qi = [c.strip() for c in params.get("qi", "").split(",") if c.strip()]
    wanted_count = params.get("population_count")
    field_error: reactive.Value[tuple[str, str] | None] = reactive.value(None)
    tried = reactive.value(False)  # errors show once the user has pressed Measure, never before
    preset_error: reactive.Value[str | None] = reactive.value(None)  # a URL's hierarchy the form cannot build
    if wanted_qi:
        ui.update_selectize("qi", selected=[c for c in wanted_qi if c in EXAMPLE_INPUTS["qi"]])
    if wanted_count is not None:
        ui.update_selectize("population_count", selected=wanted_count)
    messages: dict[str, reactive.Value[str | None]] = {
        "data": reactive.value(None),
        "population": reactive.value(None),
    }
    samples: dict[str, reactive.Value[pd.DataFrame | None]] = {
        "data": reactive.value(None),
        "population": reactive.value(None),
    }
    columns: dict[str, reactive.Value[list[str]]] = {
        "data": reactive.value([]),
        "population": reactive.value([]),
    }

    def qi_list() -> list[str]:
        return [c for c in (input.qi() or []) if c]

    def column_values(name: str) -> list[Any]:
        if input.source() == "example":
            return list(EXAMPLE_VALUES.get(name, []))
        sample = samples["data"]()
        if sample is None or name not in sample.columns:
            return []
        return sorted(sample[name].dropna().unique().tolist(), key=str)

    # The editor's state per quasi-identifier; the example's hierarchy until the user changes it.
    editor = HierarchyEditor(
        input,
        session,
        columns=qi_list,
        values=column_values,
        hidden=lambda: input.source() == "demo",
        initial={k: HierarchyChoice.from_spec(v) for k, v in EXAMPLE_INPUTS["hierarchies"].items()},
    )
    if "hierarchy" in params:  # several specifications: separated by ';' or new lines in the URL
        preset, said = preset_choices(params["hierarchy"])
        if said is not None:
            preset_error.set(named_error(said, "presence"))
        editor.choices.set(preset)

    kept_upload = session_upload(session, max_bytes=max_upload)

    def read_columns(which: str) -> None:
        messages[which].set(None)
        samples[which].set(None)
        try:
            # T is the session's upload (from this page or another); P is this page's own.
            if which == "data":
                found = kept_upload.columns()
            else:
                found = upload_columns(input[which](), max_bytes=max_upload)
        except PrivriskError as exc:
            messages[which].set(named_error(exc, "presence"))
            columns[which].set([])
            return
        columns[which].set(found)
        try:
            if which == "data":
                path, _ = kept_upload.checked()
            else:
                path, _ = checked_upload(input[which](), max_bytes=max_upload)
            samples[which].set(_sample(path))
        except Exception:  # the columns are known; the choices and previews only fall back to none
            samples[which].set(None)

    def choose_columns() -> None:
        """After an upload: the example's settings cleared, sensible columns chosen (never an id or free text)."""
        data, pop = samples["data"](), samples["population"]()
        found = columns["data"]()
        if wanted_qi:
            selected = [c for c in wanted_qi if c in found]
        elif data is not None:
            selected = suggest_qi(data, columns["population"]() or None)
        else:
            selected = []
        ui.update_selectize("qi", choices=found, selected=selected)
        pop_found = columns["population"]()
        if wanted_count is not None and (wanted_count == "" or wanted_count in pop_found):
            count = wanted_count  # the URL's choice, an empty one too (P is rows)
        else:
            count = suggest_count(pop, found) if pop is not None else ""
        ui.update_selectize("population_count", choices=["", *pop_found], selected=count)
        if "hierarchy" not in params:
            editor.choices.set({})
            preset_error.set(None)
            editor.renew()

    keep_upload("data", input, kept_upload, messages["data"], lambda exc: named_error(exc, "presence"))

    @kept_upload.on_new
    def _data_columns(kept: KeptUpload) -> None:
        # A file uploaded on any page of this session is offered as T, with columns chosen and the example cleared.
        read_columns("data")
        with reactive.isolate():
            if input.source() == "file":
                choose_columns()
        ui.update_radio_buttons("source", choices=_sources(kept), selected="file")

    @reactive.effect
    @reactive.event(input.population)
    def _population_columns() -> None:
        read_columns("population")
        with reactive.isolate():
            choose_columns()

    @reactive.effect
    @reactive.event(input.source, ignore_init=True)
    def _source() -> None:
        field_error.set(None)
        if input.source() == "example":
            ui.update_selectize("qi", choices=EXAMPLE_INPUTS["qi"], selected=EXAMPLE_INPUTS["qi"])
            ui.update_selectize("population_count", choices=["", "n"], selected="n")
            editor.choices.set(
                {k: HierarchyChoice.from_spec(v) for k, v in EXAMPLE_INPUTS["hierarchies"].items()}
            )
            ui.update_text("kmap", value="")
            ui.update_numeric("suppression", value=0.0)
        elif input.source() == "demo":  # what --demo sets; the page's targets are then used as given
            from privrisk.datasets.tv16 import QI, TARGETS

            ui.update_selectize("qi", choices=QI, selected=QI)
            ui.update_selectize("population_count", choices=[""], selected="")
            editor.choices.set({})
            ui.update_text("delta_max", value=f"{TARGETS['delta_max']:g}")
            ui.update_text("kmap", value=str(TARGETS["kmap"]))
            ui.update_numeric("suppression", value=TARGETS["suppression"])
            ui.update_checkbox("search", value=True)
        else:
            with reactive.isolate():
                choose_columns()
        editor.renew()

    @render.ui
    def data_error() -> Any:
        return error_ui(messages["data"]())

    @render.ui
    def population_error() -> Any:
        return error_ui(messages["population"]())

    # ----------------------------------------------------------------------------------------- the run

    def _values() -> dict[str, Any]:
        names = ("levels", "delta_max", "delta_min", "k", "kmap", "search", "suppression", "loss",
                 "allow_inconsistent", "population_count", "population_size", "sampling_fraction", "estimator",
                 "alpha")  # fmt: skip
        return {"qi": qi_list(), "hierarchies": editor.specs(), **{n: input[n]() for n in names}}

    def tables() -> tuple[Any, Any, list[tuple[Path, str]], str]:
        """The tables the run reads, the uploads (to name the user's files in messages) and the run's title."""
        source = input.source()
        if source == "example":
            trial, census = folder / "trial.csv", folder / "census.csv"
            given = [(trial, EXAMPLE_NAMES["trial.csv"]), (census, EXAMPLE_NAMES["census.csv"])]
            return trial, census, given, "Desfontaines' trial against its census"
        if source == "demo":
            return None, None, [], ""
        uploads: list[tuple[Path, str]] = []
        data: Path | None = None
        population: Path | None = None
        if kept_upload.current() is not None:
            data, name = kept_upload.checked(param="dataset")
            uploads.append((data, name))
        if input.population():
            population, pop_name = checked_upload(
                input.population(), max_bytes=max_upload, param="population"
            )
            uploads.append((population, pop_name))
        names = [n for _, n in uploads]
        return data, population, uploads, " against ".join(names) or "the uploads"

    def checked() -> tuple[PresenceSettings | None, list[tuple[Path, str]]]:
        """The settings of the inputs as they stand; an error goes to its input (or the status line)."""
        uploads: list[tuple[Path, str]] = []
        try:
            data, population, uploads, title = tables()
            if (bad := editor.error()) is not None and input.source() != "demo":
                raise bad
            settings = settings_from(
                _values(), source=input.source(), data=data, population=population, title=title
            )
        except Exception as exc:
            where = field_of(exc)
            if where is not None:
                field_error.set((where, named_error(exc, "presence", uploads)))
                runner.message.set(None)
            else:
                field_error.set(None)
                runner.fail(exc, uploads)
            return None, uploads
        field_error.set(None)
        return settings, uploads

    @reactive.effect
    def _recheck() -> None:
        """Once Measure was pressed, an error follows the inputs: it moves or goes as the user corrects them."""
        if not tried():
            return
        _values()
        input.source()
        kept_upload.current()
        input.population()
        with reactive.isolate():
            if runner.task.status() == "running":
                return
            checked()

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        tried.set(True)
        with reactive.isolate():
            settings, uploads = checked()
        if settings is None:
            return
        runner.start(_work, settings, folder / "out", uploads=uploads)

    runner.serve_status(input)

    @reactive.effect
    def _error_from_the_run() -> None:
        """A bad input the run found while reading (a column, a hierarchy, the count column) goes to its input."""
        if runner.task.status() != "success":
            return
        done = runner.task.value.get()
        if isinstance(done, dict) and "error" in done:
            exc = done["error"]
            with reactive.isolate():
                field_error.set((field_of(exc) or "source", named_error(exc, "presence", runner.uploads)))

    def make_field_error(name: str) -> None:
        @output(id=f"err_{name}")
        @render.ui
        def _error() -> Any:
            found = field_error()
            if found and found[0] == name:
                return error_ui(found[1])
            return error_ui(preset_error()) if name == "hierarchies" else None

    for name in dict.fromkeys(FIELDS.values()):
        make_field_error(name)

    @render.ui
    def results() -> Any:
        done = runner.result()
        if done is None or "run" not in done:
            return ui.p("Press “Measure”: the example runs at once.", class_="privrisk-help")
        return _results_ui(done["run"], folder / "out")

    @render.download_button(filename="release.csv")
    def download_release() -> Any:
        yield (folder / "out" / "release.csv").read_bytes()

    @render.download_button(filename="classes.csv")
    def download_classes() -> Any:
        yield (folder / "out" / "classes.csv").read_bytes()

    @render.download_button(filename="presence.zip")
    def download_all() -> Any:
        yield zip_bytes(folder / "out")

    @render.ui
    def command() -> Any:
        source = input.source()
        example = source == "example"
        data_name = (
            EXAMPLE_NAMES["trial.csv"]
            if example
            else (kept.name if (kept := kept_upload.current()) else "DATA")
        )
        pop_name = EXAMPLE_NAMES["census.csv"] if example else _name(input.population(), None)
        text = _command(_values(), source=source, data_name=data_name, pop_name=pop_name)
        return ui.div(text, class_="privrisk-command", id="presence-command-line")


def _name(fileinfo: list[dict[str, Any]] | None, default: str | None) -> str | None:
    return Path(str(fileinfo[0]["name"])).name if fileinfo else default
