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

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, reactive, render, ui

from privrisk.app._long_job import LongJob, data_inputs, upload_input
from privrisk.app._shared import preset_inputs, query_params
from privrisk.app.pages._hierarchy_editor import (
    HierarchyEditor,
    choice_from_inputs,
    editor_fieldset,
    preset_choices,
)
from privrisk.app.pages._presence_command import presence_command as _command
from privrisk.app.pages._presence_data import (
    EXAMPLE,
    EXAMPLE_INPUTS,
    SOURCES,
    PresenceTables,
    example_choices,
    preset_source,
    sources,
    suggest_count,
    suggest_qi,
)
from privrisk.app.pages._presence_errors import FIELDS, FieldErrors, field_of
from privrisk.app.pages._presence_results import results_ui
from privrisk.app.pages._runs import long_page_ui, named_error
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.app._shared import Job
    from privrisk.presence.run import PresenceSettings

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

_INTRO = (
    "When being in a data set is itself sensitive (a trial, a disease register), a release can reveal membership "
    "without re-identifying anyone. Give the research subset T and the population P an attacker can also see: "
    "both are generalised the same way, and for each class δ = |T class| / |P class| is the probability that a "
    "person of that class is in T. The search finds the least generalisation that meets the targets. Without a "
    "population table, give its size for estimated k-map."
)
LOSSES = ("precision", "height", "discernibility")
# The inputs that hold numbers, named like the settings' fields (which read them as typed).
NUMBERS = (
    "delta_max",
    "delta_min",
    "k",
    "kmap",
    "suppression",
    "population_size",
    "sampling_fraction",
    "alpha",
)


def _field_error(name: str) -> Any:
    return ui.output_ui(f"err_{name}")


def _field(make: Callable[..., Any], name: str, *args: Any, **kwargs: Any) -> Any:
    """The input ``make(name, …)`` and, below it, the error its settings field names (:class:`FieldErrors`)."""
    return ui.TagList(make(name, *args, **kwargs), _field_error(name))


def _table(name: str, label: str) -> Any:
    """A table's file input: the upload's own message below it (:func:`upload_input`), then the settings' error."""
    return ui.TagList(upload_input(name, label), _field_error(name))


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left; the verdict, then the folded detail, on the right."""
    models = {"poisson": "poisson", "zero-truncated-poisson": "zero-truncated-poisson"}
    estimate = ui.accordion(
        ui.accordion_panel(
            "No population table? Estimate k-map",
            _field(
                ui.input_text, "population_size", "Population size N (without a population table)", value=""
            ),
            _field(ui.input_text, "sampling_fraction", "or the sampling fraction f = n/N", value=""),
            _field(ui.input_select, "estimator", "Model", models),
            _field(ui.input_numeric, "alpha", "Significance level α", value=0.05, min=0, max=1, step=0.01),
        ),
        open=False,
    )
    targets = [("delta_max", "δ_max"), ("delta_min", "δ_min"), ("k", "k-anonymity k"), ("kmap", "k-map")]
    return long_page_ui(
        "δ-presence, k-anonymity and k-map",
        _INTRO,
        "Measure",
        *data_inputs(
            SOURCES,
            "example",
            _table("file", "Research subset T (CSV, Parquet, Stata, SPSS)"),
            _table("population", "Population P (rows, or counts per class)"),
            estimate,
            under_choice=[_field_error("source")],
        ),
        _field(
            ui.input_selectize,
            "qi",
            "Quasi-identifiers",
            choices=EXAMPLE_INPUTS["qi"],
            selected=EXAMPLE_INPUTS["qi"],
            multiple=True,
        ),
        _field(
            ui.input_selectize,
            "population_count",
            "P's column of counts per class (empty: P is rows)",
            choices=["", "n"],
            selected="n",
        ),
        editor_fieldset(_field_error("hierarchies")),
        _field(
            ui.input_text,
            "levels",
            "Measure this generalisation (age=1,zip=2; empty: the finest)",
            value="",
        ),
        ui.layout_columns(
            *(
                ui.div(_field(ui.input_text, name, label, value=EXAMPLE_INPUTS.get(name, "")))
                for name, label in targets
            ),
            col_widths=(6, 6, 6, 6),
        ),
        _field(
            ui.input_checkbox, "search", "Search the least generalisation meeting the targets", value=True
        ),
        ui.layout_columns(
            ui.div(
                _field(
                    ui.input_numeric,
                    "suppression",
                    "Suppression share",
                    value=0.0,
                    min=0,
                    max=1,
                    step=0.01,
                )
            ),
            ui.div(_field(ui.input_select, "loss", "Loss", {v: v for v in LOSSES})),
            col_widths=(6, 6),
        ),
        _field(
            ui.input_checkbox,
            "allow_inconsistent",
            "Warn instead of failing when T is not part of P",
            value=False,
        ),
        width=400,
    )


# ----------------------------------------------------------------------------------- the inputs, without Shiny


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
    from privrisk.presence.run import PresenceSettings

    demo = source == "demo"
    # The values as the form holds them (numbers as typed): the settings read and check them.
    given: dict[str, Any] = {name: values.get(name) for name in NUMBERS}
    return PresenceSettings(
        data=None if demo else data,
        population=None if demo else population,
        qi=[] if demo else [c for c in values.get("qi") or [] if c],
        population_count=None if demo else values.get("population_count"),
        hierarchies={k: v for k, v in (values.get("hierarchies") or {}).items() if v},
        levels=str(values.get("levels") or ""),
        search=bool(values.get("search")),
        loss=str(values.get("loss") or "precision"),  # type: ignore[arg-type]  # checked by the settings
        allow_inconsistent=bool(values.get("allow_inconsistent")),
        model=str(values.get("estimator") or "poisson"),  # type: ignore[arg-type]  # checked by the settings
        demo=demo,
        hierarchy_files=False,  # the server opens no path a user typed
        title=title,
        **given,
    )


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
        return {"error": exc.hinted("; tick “warn instead of failing” to continue", named=True)}
    except PrivriskError as exc:
        if field_of(exc) is None:
            raise
        return {"error": exc}
    job.advance(1.0, "Writing the tables and the chart")
    run.write(folder)
    return {"run": run}


# --------------------------------------------------------------------------------------------------- server

# The inputs a URL may preset, by kind.
KINDS = {
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
# The inputs the settings read besides the quasi-identifiers and the hierarchies.
VALUES = ("levels", *NUMBERS, "search", "loss", "allow_inconsistent", "population_count", "estimator")


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""

    def offered(profile: Any, names: list[str]) -> None:
        tables.offered(profile, names)

    job = LongJob(input, session, ID, max_upload=max_upload, sources=sources, offer=offered, header_only=True)
    folder, runner = job.folder, job.runner
    tables = PresenceTables(input, job, max_upload=max_upload)
    params = query_params(session)
    preset_inputs(session, KINDS)
    wanted_qi = [c.strip() for c in params.get("qi", "").split(",") if c.strip()]
    wanted_count = params.get("population_count")
    errors = FieldErrors(output, FIELDS.values())
    if wanted_qi:
        ui.update_selectize("qi", selected=[c for c in wanted_qi if c in EXAMPLE_INPUTS["qi"]])
    if wanted_count is not None:
        ui.update_selectize("population_count", selected=wanted_count)

    def qi_list() -> list[str]:
        return [c for c in (input.qi() or []) if c]

    # The editor's state per quasi-identifier; the example's hierarchy until the user changes it.
    editor = HierarchyEditor(
        input,
        session,
        columns=qi_list,
        values=tables.column_values,
        hidden=lambda: input.source() == "demo",
        initial=example_choices(),
    )
    if "hierarchy" in params:  # several specifications: separated by ';' or new lines in the URL
        preset, said = preset_choices(params["hierarchy"])
        if said is not None:
            errors.preset.set(named_error(said, "presence"))
        editor.choices.set(preset)

    def choose_columns() -> None:
        """After an upload: the example's settings cleared, sensible columns chosen (never an id or free text)."""
        tables.choose_columns(wanted_qi, wanted_count)
        if "hierarchy" not in params:
            editor.choices.set({})
            errors.preset.set(None)
            editor.renew()

    tables.serve(choose_columns)

    @reactive.effect
    @reactive.event(input.source, ignore_init=True)
    def _source() -> None:
        errors.at.set(None)
        if not preset_source(input.source(), editor):
            with reactive.isolate():
                choose_columns()
        editor.renew()

    # ----------------------------------------------------------------------------------------- the run

    def _values() -> dict[str, Any]:
        return {"qi": qi_list(), "hierarchies": editor.specs(), **{n: input[n]() for n in VALUES}}

    def checked() -> tuple[PresenceSettings | None, list[tuple[Path, str]]]:
        """The settings of the inputs as they stand; an error goes to its input (or the status line)."""
        uploads: list[tuple[Path, str]] = []
        try:
            data, population, uploads, title = tables.run_tables()
            if (bad := editor.error()) is not None and input.source() != "demo":
                raise bad
            settings = settings_from(
                _values(), source=input.source(), data=data, population=population, title=title
            )
        except Exception as exc:
            if errors.show(exc, uploads):
                runner.message.set(None)
            else:
                runner.fail(exc, uploads)
            return None, uploads
        errors.at.set(None)
        return settings, uploads

    @reactive.effect
    def _recheck() -> None:
        """Once Measure was pressed, an error follows the inputs: it moves or goes as the user corrects them."""
        if not errors.tried():
            return
        _values()
        input.source()
        job.uploads.current()
        input.population()
        with reactive.isolate():
            if runner.task.status() == "running":
                return
            checked()

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        errors.tried.set(True)
        with reactive.isolate():
            settings, uploads = checked()
        if settings is None:
            return
        runner.start(_work, settings, folder / "out", uploads=uploads)

    errors.serve(runner)
    # The buttons are drawn with the results (the release's only after a search that met the targets).
    job.downloads("out", {"release": ("release.csv", ""), "classes": ("classes.csv", "")}, "presence.zip")

    @render.ui
    def results() -> Any:
        done = runner.result()
        if done is None or "run" not in done:
            return ui.p("Press “Measure”: the example runs at once.", class_="privrisk-help")
        return results_ui(done["run"], folder / "out")

    @render.ui
    def command() -> Any:
        data_name, pop_name = tables.names()
        text = _command(_values(), source=input.source(), data_name=data_name, pop_name=pop_name)
        return ui.div(text, class_="privrisk-command", id="presence-command-line")
