"""The app's page "Presence": δ-presence, k-anonymity and k-map of a research subset against a population, and the
least generalisation meeting the targets, as ``privrisk presence`` computes them (Nergiz et al. 2007).

The page passes the uploads (the server's own copies) to :func:`privrisk.presence.prepare_presence`, measures with
:func:`privrisk.presence.delta_presence`, searches with :func:`privrisk.presence.search_generalisation` in a worker
thread (progress over the lattice, Cancel), and writes the command's folder with
:meth:`privrisk.presence.PresenceReport.write_outputs`; without a population table it estimates k-map with
:func:`privrisk.presence.kmap.estimate`. The built-in example is Desfontaines' clinical trial and the census it
is drawn from (the files examples/presence_trial.csv and examples/presence_census.csv of the repository).
"""

from __future__ import annotations

import shlex
import warnings
from pathlib import Path
from typing import Any

from shiny import module, reactive, render, ui

from privrisk.app._shared import command_line, error_ui, preset_inputs, query_params, upload_columns
from privrisk.app.pages._presence_tables import classes_frame, estimate_frame, minimal_frame, summary_frame
from privrisk.app.pages._runs import (
    Runner,
    StepCounter,
    checked_upload,
    figures_ui,
    findings_ui,
    frame_ui,
    main_panel,
    named_error,
    session_folder,
    zip_bytes,
)
from privrisk.errors import PrivriskError

ID = "presence"
TITLE = "Presence"

__all__ = ["EXAMPLE", "ID", "TITLE", "PresenceInputs", "page_server", "page_ui", "run_presence"]

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
    "hierarchy": "age=breaks:10,20,30,40,50,inf/10,40,50,inf",
    "delta_max": "0.5",
    "search": True,
}
_INTRO = (
    "When being in a data set is itself sensitive (a trial, a disease register), a release can reveal membership "
    "without re-identifying anyone. Give the research subset T and the population P an attacker can also see: "
    "both are generalised the same way and for each class δ = |T class| / |P class|. The search finds the least "
    "generalisation that meets the targets. Without a population table, give its size for estimated k-map."
)
LOSSES = ("precision", "height", "discernibility")


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left, the measures, the search and the chart on the right."""
    population = ui.accordion(
        ui.accordion_panel(
            "No population table? Estimate k-map",
            ui.input_text("population_size", "Population size N (without a population table)", value=""),
            ui.input_text("sampling_fraction", "or the sampling fraction f = n/N", value=""),
            ui.input_select(
                "estimator",
                "Model",
                {"poisson": "poisson", "zero-truncated-poisson": "zero-truncated-poisson"},
            ),
            ui.input_numeric("alpha", "Significance level α", value=0.05, min=0, max=1, step=0.01),
        ),
        open=False,
    )
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_radio_buttons(
                "source",
                "Data",
                {
                    "example": "the example: Desfontaines' trial and census",
                    "demo": "real data: born-again respondents among all TV16 respondents",
                    "file": "files I upload",
                },
                selected="example",
            ),
            ui.panel_conditional(
                "input.source === 'file'",
                ui.input_file(
                    "data",
                    "Research subset T (CSV, Parquet, Stata, SPSS)",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("data_error"),
                ui.input_file(
                    "population",
                    "Population P (rows, or counts per class)",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("population_error"),
                population,
            ),
            ui.input_selectize(
                "qi",
                "Quasi-identifiers",
                choices=EXAMPLE_INPUTS["qi"],
                selected=EXAMPLE_INPUTS["qi"],
                multiple=True,
            ),
            ui.input_selectize(
                "population_count",
                "P's column of counts per class (empty: P is rows)",
                choices=["", "n"],
                selected="n",
            ),
            ui.input_text_area(
                "hierarchy",
                "Hierarchies, one COLUMN=SPEC a line (interval:10, breaks:0,18,30,inf, prefix, date)",
                value=EXAMPLE_INPUTS["hierarchy"],
                rows=2,
            ),
            ui.input_text("levels", "Measure this generalisation (age=1,zip=2; empty: the finest)", value=""),
            ui.layout_columns(
                ui.input_text("delta_max", "δ_max", value=EXAMPLE_INPUTS["delta_max"]),
                ui.input_text("delta_min", "δ_min", value=""),
                ui.input_text("k", "k-anonymity k", value=""),
                ui.input_text("kmap", "k-map", value=""),
                col_widths=(6, 6, 6, 6),
            ),
            ui.input_checkbox("search", "Search the least generalisation meeting the targets", value=True),
            ui.layout_columns(
                ui.input_numeric("suppression", "Suppression share", value=0.0, min=0, max=1, step=0.01),
                ui.input_select("loss", "Loss", {v: v for v in LOSSES}),
                col_widths=(6, 6),
            ),
            ui.input_checkbox(
                "allow_inconsistent", "Warn instead of failing when T is not part of P", value=False
            ),
            ui.input_action_button("run", "Measure", class_="btn-primary mt-2"),
            width=400,
        ),
        *main_panel("δ-presence, k-anonymity and k-map", _INTRO),
    )


class PresenceInputs:
    """The page's inputs, checked as ``privrisk presence`` checks its options (messages name the options)."""

    def __init__(self, values: dict[str, Any]) -> None:
        from privrisk._validation import check_choice
        from privrisk.presence.hierarchy import parse_hierarchies
        from privrisk.presence.kmap import KMAP_MODELS
        from privrisk.presence.search import LOSS_MEASURES

        def text(name: str) -> str:
            return str(values.get(name) or "").strip()

        self.qi = [c for c in values.get("qi") or [] if c]
        if not self.qi:
            raise PrivriskError("qi: name the quasi-identifier columns, e.g. zip,age,sex", param="qi")
        self.hierarchy_lines = [line.strip() for line in text("hierarchy").splitlines() if line.strip()]
        self.hierarchies = parse_hierarchies(self.hierarchy_lines)
        for name, spec in self.hierarchies.items():
            if str(spec).strip().lower().startswith("table:"):
                raise PrivriskError(
                    f"hierarchy: the app reads no file named in a hierarchy ({name}={spec}); use interval, breaks, "
                    "prefix or date",
                    param="hierarchy",
                )
        self.levels_text = text("levels")
        self.levels = _levels(self.levels_text)
        self.delta_max = _number(text("delta_max"), "delta_max")
        self.delta_min = _number(text("delta_min"), "delta_min")
        self.k = _whole(text("k"), "k")
        self.kmap = _whole(text("kmap"), "kmap")
        self.search = bool(values.get("search"))
        self.suppression = float(values.get("suppression") or 0.0)
        self.loss = check_choice(text("loss") or "precision", LOSS_MEASURES, name="loss")
        self.allow_inconsistent = bool(values.get("allow_inconsistent"))
        self.population_count = text("population_count") or None
        self.population_size = _number(text("population_size"), "population_size")
        self.sampling_fraction = _number(text("sampling_fraction"), "sampling_fraction")
        self.model = check_choice(text("estimator") or "poisson", KMAP_MODELS, name="model")
        alpha = values.get("alpha")
        self.alpha = 0.05 if alpha is None else float(alpha)

    def check(self, has_population: bool) -> None:
        """The command's checks of option combinations."""
        if not has_population:
            if self.population_size is None and self.sampling_fraction is None:
                raise PrivriskError(
                    "population: give the population table, or its size (population_size) for estimates",
                    param="population",
                )
            return
        if self.population_size is not None or self.sampling_fraction is not None:
            raise PrivriskError(
                "population_size: only without a population table (the table gives the sizes)",
                param="population_size",
            )
        if self.suppression and not self.search:
            raise PrivriskError("suppression: only with the search", param="suppression")
        if (
            self.search
            and self.delta_max is None
            and self.delta_min is None
            and self.k is None
            and self.kmap is None
        ):
            raise PrivriskError(
                "search: give at least one target (delta_max, delta_min, k or kmap)", param="search"
            )


def _number(text: str, name: str) -> float | None:
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a number", param=name) from None


def _whole(text: str, name: str) -> int | None:
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a whole number", param=name) from None


def _levels(text: str) -> dict[str, int] | None:
    levels: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, eq, value = part.partition("=")
        try:
            levels[name.strip()] = int(value if eq else "?")
        except ValueError:
            raise PrivriskError(
                f"levels: expected COLUMN=LEVEL pairs such as age=1,zip=2, got {part!r}", param="levels"
            ) from None
    return levels or None


# The thresholds named as the options of the equivalent command the page shows ("δ_max 1 exceeds --delta-max 0.5").
TARGET_NAMES = {name: "--" + name.replace("_", "-") for name in ("delta_max", "delta_min", "k", "kmap")}


def run_presence(
    job: Any, inputs: PresenceInputs, data: Any, population: Any, folder: Path
) -> dict[str, Any]:
    """Measure (and search), and write the command's folder: what ``privrisk presence --out`` does.

    ``data`` is a file, or ``"demo"`` for ``--demo``: stevedata/TV16's born-again respondents among all respondents
    (:func:`privrisk.datasets.tv16.demo_inputs`, its quasi-identifiers and hierarchies; the page's own hierarchies
    are added). Returns ``{"report": PresenceReport, "warnings": [...]}`` or, without a population,
    ``{"estimate": …}``.
    """
    from privrisk.errors import PrivacyLeakWarning
    from privrisk.presence import kmap as _kmap
    from privrisk.presence.measures import delta_presence
    from privrisk.presence.prepare import InconsistentSubsetError, prepare_presence
    from privrisk.presence.report import PresenceReport
    from privrisk.presence.search import search_generalisation

    job.advance(0.0, "Reading and grouping the tables")
    title = "the research subset against the population"
    if isinstance(data, str) and data == "demo":
        from privrisk.datasets.tv16 import demo_inputs

        data, population, inputs.qi, demo_hier, targets = demo_inputs()
        inputs.hierarchies = {**demo_hier, **inputs.hierarchies}
        inputs.delta_max = targets["delta_max"] if inputs.delta_max is None else inputs.delta_max
        inputs.kmap = targets["kmap"] if inputs.kmap is None else inputs.kmap
        inputs.suppression, inputs.search = inputs.suppression or targets["suppression"], True
        title = "stevedata/TV16: born-again respondents (T) among all respondents (P)"
    if population is None:
        est = _kmap.estimate(
            data,
            inputs.qi,
            kmap=inputs.kmap,
            population_size=inputs.population_size,
            sampling_fraction=inputs.sampling_fraction,
            model=inputs.model,
            alpha=inputs.alpha,
            hierarchies=inputs.hierarchies,
            levels=inputs.levels,
        )
        est.write_outputs(folder)
        return {"estimate": est, "failure": est.failure()}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        try:
            prep = prepare_presence(
                data,
                population,
                inputs.qi,
                hierarchies=inputs.hierarchies,
                population_count=inputs.population_count,
                allow_inconsistent=inputs.allow_inconsistent,
            )
        except InconsistentSubsetError as exc:
            raise PrivriskError(exc.detail + " (tick “warn instead of failing” to continue)") from None
    before = delta_presence(
        prep,
        levels=inputs.levels,
        delta_max=inputs.delta_max,
        delta_min=inputs.delta_min,
        k=inputs.k,
        kmap=inputs.kmap,
    )
    found = None
    if inputs.search:
        found = search_generalisation(
            prep,
            delta_max=inputs.delta_max,
            delta_min=inputs.delta_min,
            k=inputs.k,
            kmap=inputs.kmap,
            suppression=inputs.suppression,
            loss=inputs.loss,
            progress=StepCounter(job, prep.lattice_size, "Searching the lattice"),
        )
    job.advance(1.0, "Writing the tables and the chart")
    report = PresenceReport(before, found)
    report.write_outputs(folder, data, title=title)
    return {
        "report": report,
        "warnings": [str(w.message) for w in caught],
        "failure": report.failure(TARGET_NAMES),
        "violations": report.violations(TARGET_NAMES),
    }


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
        "hierarchy": "text",
    }
    preset_inputs(session, kinds)
    wanted_qi = [c.strip() for c in params.get("qi", "").split(",") if c.strip()]
    wanted_count = params.get("population_count")
    if "hierarchy" in params:  # several specifications: separated by ';' or new lines in the URL
        ui.update_text_area("hierarchy", value="\n".join(p.strip() for p in params["hierarchy"].split(";")))
    if wanted_qi:
        ui.update_selectize("qi", selected=[c for c in wanted_qi if c in EXAMPLE_INPUTS["qi"]])
    if wanted_count is not None:
        ui.update_selectize("population_count", selected=wanted_count)
    messages: dict[str, reactive.Value[str | None]] = {
        "data": reactive.value(None),
        "population": reactive.value(None),
    }
    columns: dict[str, reactive.Value[list[str]]] = {
        "data": reactive.value([]),
        "population": reactive.value([]),
    }

    def read_columns(which: str) -> None:
        messages[which].set(None)
        try:
            found = upload_columns(input[which](), max_bytes=max_upload)
        except PrivriskError as exc:
            messages[which].set(named_error(exc, "presence"))
            columns[which].set([])
            return
        columns[which].set(found)

    @reactive.effect
    @reactive.event(input.data)
    def _data_columns() -> None:
        read_columns("data")
        found = columns["data"]()
        with reactive.isolate():
            current = list(input.qi() or [])
        keep = [c for c in (wanted_qi or current) if c in found]
        ui.update_selectize("qi", choices=found, selected=keep)

    @reactive.effect
    @reactive.event(input.population)
    def _population_columns() -> None:
        read_columns("population")
        found = columns["population"]()
        with reactive.isolate():
            current = input.population_count()
        chosen = wanted_count if wanted_count in found else current if current in found else ""
        ui.update_selectize("population_count", choices=["", *found], selected=chosen)

    @reactive.effect
    @reactive.event(input.source, ignore_init=True)
    def _source() -> None:
        if input.source() == "example":
            ui.update_selectize("qi", choices=EXAMPLE_INPUTS["qi"], selected=EXAMPLE_INPUTS["qi"])
            ui.update_selectize("population_count", choices=["", "n"], selected="n")
            ui.update_text_area("hierarchy", value=EXAMPLE_INPUTS["hierarchy"])
            ui.update_text("kmap", value="")
            ui.update_numeric("suppression", value=0.0)
        elif input.source() == "demo":  # what --demo sets; the page's targets are then used as given
            from privrisk.datasets.tv16 import QI, TARGETS

            ui.update_selectize("qi", choices=QI, selected=QI)
            ui.update_selectize("population_count", choices=[""], selected="")
            ui.update_text_area("hierarchy", value="")
            ui.update_text("delta_max", value=f"{TARGETS['delta_max']:g}")
            ui.update_text("kmap", value=str(TARGETS["kmap"]))
            ui.update_numeric("suppression", value=TARGETS["suppression"])
            ui.update_checkbox("search", value=True)
        else:
            ui.update_selectize("qi", choices=columns["data"](), selected=[])
            ui.update_selectize("population_count", choices=["", *columns["population"]()], selected="")

    @render.ui
    def data_error() -> Any:
        return error_ui(messages["data"]())

    @render.ui
    def population_error() -> Any:
        return error_ui(messages["population"]())

    def _values() -> dict[str, Any]:
        names = (
            "hierarchy",
            "levels",
            "delta_max",
            "delta_min",
            "k",
            "kmap",
            "search",
            "suppression",
            "loss",
            "allow_inconsistent",
            "population_count",
            "population_size",
            "sampling_fraction",
            "estimator",
            "alpha",
        )
        return {"qi": list(input.qi() or []), **{n: input[n]() for n in names}}

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        uploads: list[tuple[Path, str]] = []
        data: Any
        population: Any
        try:
            inputs = PresenceInputs(_values())
            if input.source() == "example":
                data, population = folder / "trial.csv", folder / "census.csv"
                uploads += [(data, EXAMPLE_NAMES["trial.csv"]), (population, EXAMPLE_NAMES["census.csv"])]
            elif input.source() == "demo":
                data, population = "demo", "demo"
            else:
                data_path, data_name = checked_upload(input.data(), max_bytes=max_upload, param="data")
                uploads.append((data_path, data_name))
                data, population = data_path, None
                if input.population():
                    pop_path, pop_name = checked_upload(
                        input.population(), max_bytes=max_upload, param="population"
                    )
                    uploads.append((pop_path, pop_name))
                    population = pop_path
            if input.source() != "demo":  # --demo sets its targets and the search first
                inputs.check(population is not None)
        except Exception as exc:
            runner.fail(exc, uploads)
            return
        runner.start(run_presence, inputs, data, population, folder / "out", uploads=uploads)

    runner.serve_status(input)

    @render.ui
    def results() -> Any:
        done = runner.result()
        if done is None:
            return ui.p("Press “Measure”: the example runs at once.", class_="privrisk-help")
        out = folder / "out"
        parts: list[Any] = []
        if done.get("failure"):
            parts.append(
                ui.div(
                    f"Target missed: {done['failure']} (the command line exits with code 1).",
                    class_="alert alert-warning privrisk-failure",
                )
            )
        if "estimate" in done:
            e = done["estimate"]
            parts += [
                findings_ui([e.finding()]),
                frame_ui(
                    estimate_frame(e),
                    id="presence-estimate",
                    caption=f"Estimated {e.kmap}-map (an estimate, {e.model} model; no population table)",
                ),
                ui.p("Assumptions: " + e.to_dict()["assumptions"] + ".", class_="privrisk-help"),
            ]
        else:
            report = done["report"]
            before, found = report.measured, report.search
            levels = ", ".join(f"{k}={v}" for k, v in before.summary["levels"].items())
            parts += [ui.h4("Findings"), findings_ui(report.findings())]
            parts += [ui.p(f"warning: {w}", class_="text-warning") for w in done["warnings"]]
            parts += [
                ui.p(f"violated: {v}", class_="privrisk-violation text-danger") for v in done["violations"]
            ]
            parts.append(
                frame_ui(
                    summary_frame(before.summary), id="presence-summary", caption=f"Measured at {levels}"
                )
            )
            parts.append(
                frame_ui(
                    classes_frame(before),
                    id="presence-classes",
                    caption=f"Classes of highest δ ({len(before.classes):,} in all)",
                )
            )
            if found is not None:
                parts.append(
                    ui.p(
                        f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
                        f"{len(found.minimal):,} minimal node(s) meet the targets.",
                        id="presence-search-result",
                    )
                )
                if len(found.minimal):
                    parts.append(
                        frame_ui(
                            minimal_frame(found), id="presence-minimal", caption="Minimal generalisations"
                        )
                    )
                if found.best is not None:
                    chosen = ", ".join(f"{k}={v}" for k, v in found.best.summary["levels"].items())
                    parts += [
                        frame_ui(
                            summary_frame(found.best.summary),
                            id="presence-chosen",
                            caption=f"Chosen: {chosen}",
                        ),
                        frame_ui(
                            classes_frame(found.best),
                            id="presence-chosen-classes",
                            caption="Classes of highest δ after the search",
                        ),
                    ]
            parts.append(ui.h4("δ per class"))
            parts.append(figures_ui(out))
        buttons = [ui.download_button("download_classes", "classes.csv", class_="btn-sm me-2")]
        if (out / "release.csv").is_file():
            buttons.insert(
                0,
                ui.download_button(
                    "download_release", "the release table (release.csv)", class_="btn-sm btn-success me-2"
                ),
            )
        buttons.append(ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"))
        parts.insert(0, ui.div(*buttons, class_="mb-3"))
        return ui.TagList(*parts)

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
        values = _values()
        if input.source() == "demo":
            return ui.div(_demo_command(values), class_="privrisk-command", id="presence-command-line")
        example = input.source() == "example"
        data_name = EXAMPLE_NAMES["trial.csv"] if example else _name(input.data(), "DATA")
        pop_name = EXAMPLE_NAMES["census.csv"] if example else _name(input.population(), None)
        text = command_line("presence", file=data_name)
        options: dict[str, Any] = {
            "population": pop_name,
            "population_count": values["population_count"] or None,
            "qi": ",".join(values["qi"]) or None,
        }
        tail = command_line("presence", **options)[len("privrisk presence") :]
        hier = "".join(
            f" -H {shlex.quote(h.strip())}" for h in str(values["hierarchy"] or "").splitlines() if h.strip()
        )
        more: dict[str, Any] = {
            "levels": values["levels"],
            "delta_max": values["delta_max"],
            "delta_min": values["delta_min"],
            "k": values["k"],
            "kmap": values["kmap"],
            "search": bool(values["search"]),
        }
        if values["search"] and float(values["suppression"] or 0):
            more["suppression"] = values["suppression"]
        if values["search"] and values["loss"] != "precision":
            more["loss"] = values["loss"]
        more["allow_inconsistent"] = bool(values["allow_inconsistent"])
        if pop_name is None:
            more |= {
                "population_size": values["population_size"],
                "sampling_fraction": values["sampling_fraction"],
            }
            if values["estimator"] != "poisson":
                more["estimator"] = values["estimator"]
            if values["alpha"] is not None and float(values["alpha"]) != 0.05:
                more["alpha"] = values["alpha"]
        more["out"] = "presence/"
        rest = command_line("presence", **more)[len("privrisk presence") :]
        return ui.div(text + tail + hier + rest, class_="privrisk-command", id="presence-command-line")


def _name(fileinfo: list[dict[str, Any]] | None, default: str | None) -> str | None:
    return Path(str(fileinfo[0]["name"])).name if fileinfo else default


def _demo_command(values: dict[str, Any]) -> str:
    """``privrisk presence --demo`` with the options that differ from what --demo sets."""
    from privrisk.datasets.tv16 import TARGETS

    options: dict[str, Any] = {"demo": True}
    if str(values["delta_max"]).strip() != f"{TARGETS['delta_max']:g}":
        options["delta_max"] = values["delta_max"]
    if str(values["kmap"]).strip() != str(TARGETS["kmap"]):
        options["kmap"] = values["kmap"]
    options |= {"delta_min": values["delta_min"], "k": values["k"], "levels": values["levels"]}
    if float(values["suppression"] or 0) not in (0.0, TARGETS["suppression"]):
        options["suppression"] = values["suppression"]
    if values["loss"] != "precision":
        options["loss"] = values["loss"]
    options["out"] = "presence/"
    hier = "".join(
        f" -H {shlex.quote(h.strip())}" for h in str(values["hierarchy"] or "").splitlines() if h.strip()
    )
    return command_line("presence", **options) + hier
