"""The app's page "Empirical DP": how private a statistic published period after period already is (Burchard and
Daoud 2022), as ``privrisk empirical`` measures it.

The page maps its inputs onto :class:`privrisk.empirical.EmpiricalSettings` (:func:`empirical_settings`: the
rules about which inputs go together and the Chicago preset's columns live there, and an error is shown at the
input it names), runs :func:`privrisk.empirical.run_empirical` in a worker thread (progress over the individuals,
Cancel) and writes the command's folder with :meth:`~privrisk.empirical.EmpiricalRun.write`. The result leads
with the verdict in plain words (how likely it is that someone is exposed, one number); the tables of δ and δ*,
the riskiest individuals and the figures are folded below it. The built-in example is inspection data in the
schema of the Chicago Food Inspections file made by :func:`privrisk.datasets.chicago_like` (no network needed);
it can be downloaded to run the same command in a terminal.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, render, ui

from privrisk._format import number
from privrisk.app._long_job import LongJob, data_inputs, upload_input, with_upload
from privrisk.app._shared import UploadColumns, command_line, preset_inputs, query_params, warning_ui
from privrisk.app.pages import _runs
from privrisk.app.pages._form import SettingsForm, field, text_field
from privrisk.app.pages._runs import verdict_ui as _verdict

if TYPE_CHECKING:
    from privrisk.empirical.run import EmpiricalRun, EmpiricalSettings

ID = "empirical"
TITLE = "Empirical DP"

__all__ = [
    "EXAMPLE_NAME",
    "FIELDS",
    "ID",
    "TITLE",
    "column_roles",
    "empirical_settings",
    "example_table",
    "page_server",
    "page_ui",
    "run_empirical_job",
]

EXAMPLE_NAME = "inspections.csv"
DENSITIES = ("kde-box", "kde-triangle", "kde-gauss", "ecdf")
QUERY_CHOICES = ("count", "sum", "mean", "rate")
UNITS = ("", "day", "week", "month", "quarter", "year")
_INTRO = (
    "Many statistics are published without noise, period after period. This page measures how much such a "
    "statistic already gives away about the individuals behind it: for each one, the answers with and without "
    "their records are compared. The example is inspection data in the schema of the Chicago Food Inspections "
    "file (generated)."
)
_HOW = (
    "The periods are the databases. For each individual the answers with and without their rows are compared "
    "through their densities, giving δᵢ(ε). δ is the largest δᵢ, and the total risk δ* = 1 − Π(1 − δᵢ) is the "
    "chance that someone is exposed by more than the factor e^ε (Burchard and Daoud 2022, Definitions 2 and 3; "
    "the preset chicago applies their cleaning of §5). US patent 11,593,360 claims this method; check it before "
    "commercial use."
)


def example_table(path: Path) -> Path:
    """Write the example: 1,500 establishments over 48 months in the Chicago file's schema (seed 0)."""
    from privrisk.datasets.chicago import chicago_like

    chicago_like(1500, 48, seed=0).to_csv(path, index=False)
    return path


def _number(name: str, label: str, value: int, minimum: int) -> Any:
    return field(ui.input_numeric(name, label, value=value, min=minimum), name)


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left; the verdict, then the folded detail, on the right."""
    more = _runs.more_options(
        field(ui.input_select("period_unit", "When the period is a date: unit",
                              {u: u or "(not a date)" for u in UNITS}), "period_unit"),
        text_field("k", "Points per local estimate k (empty: auto = round(√t))"),
        _number("aggregate", "Merge this many consecutive periods", 1, 1),
        text_field("window", "Also δ on rolling windows of W periods (empty: no)"),
        text_field("step", "Periods between window starts (empty: W/2)"),
        text_field("lags", "Lags of the Ljung–Box test (empty: min(10, t/5))"),
        text_field("joint", "A second query published beside it, QUERY:VALUE/WEIGHT (e.g. count)"),
        text_field("condition_on", "What the adversary knows per period: a column or count, sum:COLUMN"),
        _number("buckets", "Buckets of that knowledge", 4, 1),
        text_field("noise", "Measure the answers plus noise: laplace:SCALE"),
        text_field("target_delta", "Find the smallest Laplace scale bringing δ under"),
        _number("draws", "Noise draws per database", 20, 1),
        _number("seed", "Seed of the noise draws", 0, 0),
        _number("top", "How many of the riskiest individuals to list", 10, 0),
    )  # fmt: skip
    presets = {"chicago": "chicago: Burchard and Daoud's cleaning, monthly failure rate per establishment",
               "": "none: choose the columns"}  # fmt: skip
    return _runs.long_page_ui(
        "Empirical privacy of a statistic published every period", _INTRO, "Measure",
        *data_inputs(SOURCES, "example",
                     upload_input("file", "CSV, Parquet, Stata (.dta) or SPSS (.sav), one row per record")),
        field(ui.input_select("preset", "Preset", presets, selected="chicago"), "preset"),
        ui.panel_conditional(
            "input.preset === ''",
            field(ui.input_selectize("period", "Column whose values are the databases", choices=[]), "period"),
            field(ui.input_selectize("individual", "Column identifying individuals", choices=[]), "individual"),
            field(ui.input_select("query", "Query", {q: q for q in QUERY_CHOICES}, selected="rate"), "query"),
            field(ui.input_selectize("value", "Column summed (sum, mean, rate numerator)", choices=[""]),
                  "value"),
            field(ui.input_selectize("weight", "Rate denominator column (empty: 1 per row)", choices=[""]),
                  "weight"),
        ),
        text_field("epsilons", "ε values, comma-separated", "0.03,0.1,0.3"),
        field(ui.input_select("density", "Density", {d: d for d in DENSITIES}, selected="kde-box"), "density"),
        more,
        width=400,
    )  # fmt: skip


#: The page's inputs that set a field of :class:`~privrisk.empirical.run.EmpiricalSettings`; each but the file
#: has an error output below it (``<name>_error``), where an error naming that field is shown.
FIELDS = (
    "file",
    "preset",
    "period",
    "individual",
    "query",
    "value",
    "weight",
    "epsilons",
    "density",
    "period_unit",
    "k",
    "aggregate",
    "window",
    "step",
    "lags",
    "joint",
    "condition_on",
    "buckets",
    "noise",
    "target_delta",
    "draws",
    "seed",
    "top",
)
_PERIOD_NAME = re.compile(r"date|month|week|year|day|period|quarter|time|wave", re.I)


def column_roles(frame: Any) -> dict[str, str]:
    """Sensible columns of an uploaded table: a ``period`` (a name like month, date, week), an ``individual`` (an
    id), and a numeric ``value`` that is neither (never an id or a text column); a role left out when none fits.

    ``frame`` is a pandas DataFrame, or the :class:`~privrisk.app._shared.UploadColumns` the session found for its
    upload (the same roles, without reading the file again).

    Example:
        >>> import pandas as pd
        >>> df = pd.DataFrame({"week": [1, 1, 2], "shop": ["a", "b", "a"], "shop_id": [7, 8, 7], "failed": [0, 1, 0]})
        >>> column_roles(df), column_roles(UploadColumns.of(df)) == column_roles(df)
        ({'period': 'week', 'individual': 'shop_id', 'value': 'failed'}, True)
    """
    found = frame if isinstance(frame, UploadColumns) else UploadColumns.of(frame)
    names = found.names
    roles: dict[str, str] = {}
    period = next((c for c in names if _PERIOD_NAME.search(c)), None)
    if period is not None:
        roles["period"] = period
    individual = next((c for c in found.ids if c != period), None)
    if individual is not None:
        roles["individual"] = individual
    value = next((c for c in found.numeric if c not in (period, individual)), None)
    if value is not None:
        roles["value"] = value
    return roles


def empirical_settings(values: Mapping[str, Any], file: str | Path | None) -> EmpiricalSettings:
    """The page's inputs mapped onto :class:`~privrisk.empirical.run.EmpiricalSettings` (every check is
    there). With a preset the column inputs are left out, as ``--preset chicago`` without ``--period`` does.

    Example:
        >>> s = empirical_settings({"preset": "chicago", "period": "week", "epsilons": "0.1", "k": "auto"}, "i.csv")
        >>> s.period, s.epsilons, s.k
        ('month', (0.1,), None)
    """
    from privrisk.empirical.run import EmpiricalSettings

    given: dict[str, Any] = {
        name: values.get(name) for name in FIELDS if name != "file" and values.get(name) is not None
    }
    if given.get("preset"):
        for name in ("period", "individual", "query", "value", "weight", "period_unit"):
            given.pop(name, None)
    return EmpiricalSettings(data=None if file is None else str(file), **given)


def run_empirical_job(job: Any, settings: EmpiricalSettings, name: str, folder: Path) -> EmpiricalRun:
    """Read, clean (preset), measure and write the command's folder: what ``privrisk empirical --out`` does."""
    from dataclasses import replace

    from privrisk.empirical.run import run_empirical

    run = run_empirical(replace(settings, name=name), progress=job.advance)
    job.advance(0.9, "Writing the tables and the figures")
    run.write(folder)
    job.advance(1.0, "Done")
    return run


def privacy_frame(doc: dict[str, Any]) -> Any:
    """δ and δ* per ε with the riskiest individual, as the command line prints them (no e-notation)."""
    import pandas as pd

    from privrisk.empirical.report import short_number

    rows = [
        {
            "ε": number(r["epsilon"]),
            "δ": short_number(r["delta"]),
            "δ* (total risk)": short_number(r["total_risk"]),
            "riskiest individual": str(r["worst_individual"]),
        }
        for r in doc["rows"]
    ]
    return pd.DataFrame(rows)


def riskiest_frame(result: Any, top: int) -> Any:
    """The riskiest individuals, δᵢ per ε."""
    import pandas as pd

    from privrisk.empirical.report import short_number

    cols = [c for c in result.individuals.columns if c.startswith("delta_")]
    rows = [
        {
            "individual": str(r["individual"]),
            "periods": str(r["periods"]),
            **{f"δᵢ at ε = {c.removeprefix('delta_')}": short_number(r[c]) for c in cols},
        }
        for r in result.top(top).to_dict(orient="records")
    ]
    return pd.DataFrame(rows)


def _extras(run: EmpiricalRun, doc: dict[str, Any]) -> list[Any]:
    import pandas as pd

    from privrisk.empirical.report import short_number

    result, target = run.result, run.smallest_noise
    parts: list[Any] = []
    if "windows" in doc:
        rows = [
            {
                "first": str(r["first"]),
                "last": str(r["last"]),
                "ε": number(r["epsilon"]),
                "δ": short_number(r["delta"]),
                "δ*": short_number(r["total_risk"]),
            }
            for r in doc["windows"]
        ]
        parts.append(
            _runs.frame_ui(pd.DataFrame(rows), id="empirical-windows", caption="δ on rolling windows")
        )
    if result.conditional is not None:
        cols = [c for c in result.conditional.columns if c.startswith("delta_")]
        rows = [
            {
                "bucket": str(r["bucket"]),
                "from": number(r["low"]),
                "to": number(r["high"]),
                "periods": str(r["periods"]),
                **{f"δ at ε = {c.removeprefix('delta_')}": short_number(r[c]) for c in cols},
            }
            for r in result.conditional.to_dict(orient="records")
        ]
        parts.append(
            _runs.frame_ui(
                pd.DataFrame(rows),
                id="empirical-conditional",
                caption="δ within buckets of the adversary's knowledge (Burchard and Daoud, Definition 4)",
            )
        )
    if target is not None:
        rows = [
            {
                "ε": number(r["epsilon"]),
                "δ without noise": short_number(r["delta_without_noise"]),
                "scale": "not found" if r["scale"] != r["scale"] else number(r["scale"]),
                "δ with it": short_number(r["delta"]),
            }
            for r in target.to_dict(orient="records")
        ]
        parts.append(
            _runs.frame_ui(
                pd.DataFrame(rows), id="empirical-target", caption="Smallest Laplace scale for the target δ"
            )
        )
    return parts


def notes(run: EmpiricalRun, doc: dict[str, Any]) -> list[str]:
    """What was read and measured, in sentences (the cleaning, the periods and individuals, their appearances)."""
    result, a = run.result, doc["appearances"]
    said = []
    if run.cleaning:
        said.append(
            "Cleaning (Burchard and Daoud §5): dropped "
            + ", ".join(f"{n:,} {why}" for why, n in run.cleaning.items())
            + "."
        )
    said.append(
        f"{result.periods} periods, {result.n_individuals:,} individuals ({result.footprints:,} distinct "
        f"footprints), {result.density}, k = {result.k}."
    )
    said.append(
        f"Individuals appear in {a['min']}–{a['max']} periods (median {number(a['median'])}); "
        f"{a['in_one_period']:,} in one period only."
    )
    return said


def verdict_ui(run: EmpiricalRun) -> Any:
    """The verdict first: one number and one sentence in plain words, then the library's warnings."""
    v = run.verdict()
    warned = (warning_ui(text, "empirical") for _, text in run.warnings)
    return _verdict("empirical", v.headline, v.sentence, *warned, sentence_class="lead privrisk-finding")


def detail_ui(run: EmpiricalRun, folder: Path) -> Any:
    """The technical detail, folded: δ and δ* per ε, the riskiest individuals, the extras, the figures."""
    doc = run.to_dict()
    parts: list[Any] = [ui.p(_HOW, class_="privrisk-help")]
    parts += [ui.p(n, class_="privrisk-help") for n in notes(run, doc)]
    parts.append(
        _runs.frame_ui(
            privacy_frame(doc),
            id="empirical-privacy",
            caption=f"Empirical privacy of the {run.result.query} (Burchard and Daoud §5)",
        )
    )
    if doc.get("top"):
        parts.append(
            _runs.frame_ui(
                riskiest_frame(run.result, len(doc["top"])),
                id="empirical-riskiest",
                caption=f"The {len(doc['top'])} riskiest individuals",
            )
        )
    parts += _extras(run, doc)
    return ui.TagList(
        _runs.folded_ui("The numbers behind it (Burchard and Daoud 2022)", *parts, id="empirical-detail"),
        _runs.folded_ui("Figures", _runs.figures_ui(folder), id="empirical-figures"),
    )


SOURCES = {"example": "the example: inspections in Chicago's schema", "file": "a file I upload"}
#: The kinds of the inputs a link may preset (``?epsilons=…``).
_KINDS = (
    {n: "select" for n in ("preset", "query", "density", "period_unit")}
    | {
        n: "text"
        for n in ("epsilons", "k", "window", "step", "lags", "joint", "condition_on", "noise", "target_delta")
    }
    | {n: "numeric" for n in ("aggregate", "buckets", "draws", "seed", "top")}
    | {"source": "radio"}
)


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = _runs.session_folder(session, ID)
    example = folder / EXAMPLE_NAME
    params = query_params(session)
    preset_inputs(session, _KINDS)

    def set_choices(found: list[str], roles: Mapping[str, str]) -> None:
        def pick(name: str) -> str:
            wanted = params.get(name)
            return wanted if wanted in found else roles.get(name, "")

        ui.update_selectize("period", choices=found, selected=pick("period") or [])
        ui.update_selectize("individual", choices=found, selected=pick("individual") or [])
        ui.update_selectize("value", choices=["", *found], selected=pick("value"))
        ui.update_selectize("weight", choices=["", *found], selected=pick("weight"))

    def _offer(profile: Any, found: list[str]) -> None:
        # A file uploaded on any page of this session: offered here, its columns chosen, the example's preset cleared.
        if profile is None:
            set_choices([], {})
            return
        set_choices(found, column_roles(profile))
        if "preset" not in params:  # the example's preset does not describe another file
            ui.update_select("preset", selected="")

    job = LongJob(input, session, ID, max_upload=max_upload, sources=with_upload(SOURCES), offer=_offer,
                  example=(example, EXAMPLE_NAME), make_example=example_table)  # fmt: skip

    def _values() -> dict[str, Any]:
        return {n: input[n]() for n in FIELDS if n != "file"}

    form = SettingsForm(input, "empirical", FIELDS, lambda path: empirical_settings(_values(), path), job.data,
                        ("period", "individual", "value", "weight"))  # fmt: skip
    job.serve_run(form, run_empirical_job, "out")
    buttons = job.downloads("out", {"privacy": ("privacy.csv", "privacy.csv"),
                                    "individuals": ("individuals.parquet", "individuals.parquet")}, "empirical.zip")  # fmt: skip
    job.serve_results(
        "Press “Measure”: the example (1,500 establishments over 48 months) takes a few seconds.",
        lambda run: ui.TagList(verdict_ui(run), buttons(), detail_ui(run, folder / "out")),
    )

    @render.download_button(filename=EXAMPLE_NAME)
    def download_example() -> Any:
        if not example.is_file():
            example_table(example)
        yield example.read_bytes()

    @render.ui
    def command() -> Any:
        v = _values()
        example_chosen = input.source() == "example"
        _, name = job.data()
        options: dict[str, Any] = {}
        if v["preset"]:
            options["preset"] = v["preset"]
        else:
            options |= {k: v[k] or None for k in ("period", "individual", "query", "value", "weight")}
            options["period_unit"] = v["period_unit"] or None
        if str(v["epsilons"]).strip() != "0.03,0.1,0.3":
            options["epsilons"] = v["epsilons"]
        if v["density"] != "kde-box":
            options["density"] = v["density"]
        defaults = {"aggregate": 1, "buckets": 4, "draws": 20, "seed": 0, "top": 10}
        for key in ("k", "aggregate", "window", "step", "lags", "joint", "condition_on", "buckets", "noise", "draws",
                    "seed", "target_delta", "top"):  # fmt: skip
            value = v[key]
            if value is None or str(value).strip() == "" or (key in defaults and _same(value, defaults[key])):
                continue
            options[key] = value
        options["out"] = "empirical/"
        parts = [
            ui.div(
                command_line("empirical", file=name, **options),
                class_="privrisk-command",
                id="empirical-command-line",
            )
        ]
        if example_chosen:
            parts.append(
                ui.p(
                    "The example file: ",
                    ui.download_button("download_example", EXAMPLE_NAME, class_="btn-sm btn-link p-0"),
                    class_="privrisk-help mt-1",
                )
            )
        return ui.TagList(*parts)


def _same(value: Any, default: int) -> bool:
    try:
        return float(value) == default
    except (TypeError, ValueError):
        return False
