"""The app's page "Empirical DP": how private a statistic published period after period already is (Burchard and
Daoud 2022), as ``privrisk empirical`` measures it.

The page reads the upload (the server's own copy) with :func:`privrisk.io.data.read_table` (cleaned by
:func:`privrisk.datasets.chicago_clean` for the Chicago preset), measures with
:func:`privrisk.empirical.empirical_privacy` in a worker thread (progress over the individuals, Cancel), adds
:func:`privrisk.empirical.rolling_privacy` and :func:`privrisk.empirical.smallest_noise` when asked, and writes the
command's folder with :func:`privrisk.empirical.write_outputs`. The built-in example is inspection data in the
schema of the Chicago Food Inspections file made by :func:`privrisk.datasets.chicago_like` (no network needed); it
can be downloaded to run the same command in a terminal.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from shiny import module, reactive, render, ui

from privrisk.app._shared import (
    command_line,
    error_message,
    error_ui,
    preset_inputs,
    query_params,
    upload_columns,
)
from privrisk.app.pages._runs import (
    Runner,
    StepCounter,
    checked_upload,
    figures_ui,
    frame_ui,
    main_panel,
    named_error,
    session_folder,
    zip_bytes,
)
from privrisk.errors import PrivriskError

ID = "empirical"
TITLE = "Empirical DP"

__all__ = [
    "EXAMPLE_NAME",
    "ID",
    "TITLE",
    "EmpiricalInputs",
    "example_table",
    "page_server",
    "page_ui",
    "run_empirical",
]

EXAMPLE_NAME = "inspections.csv"
DENSITIES = ("kde-box", "kde-triangle", "kde-gauss", "ecdf")
QUERY_CHOICES = ("count", "sum", "mean", "rate")
UNITS = ("", "day", "week", "month", "quarter", "year")
_INTRO = (
    "Many statistics are published without noise period after period. The periods are the databases; for each "
    "individual the answers with and without their rows are compared through their densities, giving δᵢ(ε). "
    "δ is the largest δᵢ, and the total risk δ* = 1 − Π(1 − δᵢ) is the chance that someone is exposed by more "
    "than ε. The example is inspection data in the schema of the Chicago Food Inspections file (generated, with "
    "the cleaning of Burchard and Daoud §5: the preset chicago). US patent 11,593,360 claims this method; check it "
    "before commercial use."
)


def example_table(path: Path) -> Path:
    """Write the example: 1,500 establishments over 48 months in the Chicago file's schema (seed 0)."""
    from privrisk.datasets.chicago import chicago_like

    chicago_like(1500, 48, seed=0).to_csv(path, index=False)
    return path


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left, δ, δ* and the riskiest individuals on the right."""
    more = ui.accordion(
        ui.accordion_panel(
            "More options",
            ui.input_select(
                "period_unit", "When the period is a date: unit", {u: u or "(not a date)" for u in UNITS}
            ),
            ui.input_text("k", "Points per local estimate k (empty: auto = round(√t))", value=""),
            ui.input_numeric("aggregate", "Merge this many consecutive periods", value=1, min=1),
            ui.input_text("window", "Also δ on rolling windows of W periods (empty: no)", value=""),
            ui.input_text("step", "Periods between window starts (empty: W/2)", value=""),
            ui.input_text("lags", "Lags of the Ljung–Box test (empty: min(10, t/5))", value=""),
            ui.input_text(
                "joint", "A second query published beside it, QUERY:VALUE/WEIGHT (e.g. count)", value=""
            ),
            ui.input_text(
                "condition_on", "What the adversary knows per period: a column or count, sum:COLUMN", value=""
            ),
            ui.input_numeric("buckets", "Buckets of that knowledge", value=4, min=1),
            ui.input_text("noise", "Measure the answers plus noise: laplace:SCALE", value=""),
            ui.input_text("target_delta", "Find the smallest Laplace scale bringing δ under", value=""),
            ui.input_numeric("draws", "Noise draws per database", value=20, min=1),
            ui.input_numeric("seed", "Seed of the noise draws", value=0, min=0),
            ui.input_numeric("top", "How many of the riskiest individuals to list", value=10, min=0),
        ),
        open=False,
    )
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_radio_buttons(
                "source",
                "Data",
                {"example": "the example: inspections in Chicago's schema", "file": "a file I upload"},
                selected="example",
            ),
            ui.panel_conditional(
                "input.source === 'file'",
                ui.input_file(
                    "file",
                    "CSV, Parquet, Stata (.dta) or SPSS (.sav), one row per record",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("file_error"),
            ),
            ui.input_select(
                "preset",
                "Preset",
                {
                    "chicago": "chicago: Burchard and Daoud's cleaning, monthly "
                    "failure rate per establishment",
                    "": "none: choose the columns",
                },
                selected="chicago",
            ),
            ui.panel_conditional(
                "input.preset === ''",
                ui.input_selectize("period", "Column whose values are the databases", choices=[]),
                ui.input_selectize("individual", "Column identifying individuals", choices=[]),
                ui.input_select("query", "Query", {q: q for q in QUERY_CHOICES}, selected="rate"),
                ui.input_selectize("value", "Column summed (sum, mean, rate numerator)", choices=[""]),
                ui.input_selectize("weight", "Rate denominator column (empty: 1 per row)", choices=[""]),
            ),
            ui.input_text("epsilons", "ε values, comma-separated", value="0.03,0.1,0.3"),
            ui.input_select("density", "Density", {d: d for d in DENSITIES}, selected="kde-box"),
            more,
            ui.input_action_button("run", "Measure", class_="btn-primary mt-2"),
            width=400,
        ),
        *main_panel("Empirical privacy of a statistic published every period", _INTRO),
    )


class EmpiricalInputs:
    """The page's inputs, checked as ``privrisk empirical`` checks its options (messages name the options)."""

    def __init__(self, values: dict[str, Any]) -> None:
        from privrisk._validation import check_choice, check_whole, parse_epsilons
        from privrisk.empirical import EMPIRICAL_QUERIES

        def text(name: str) -> str:
            return str(values.get(name) or "").strip()

        self.epsilons = parse_epsilons(text("epsilons") or "0.03,0.1,0.3", name="epsilons")
        self.k = None if text("k").lower() in ("", "auto") else _whole(text("k"), "k")
        self.noise = _noise(text("noise"))
        self.seed = check_whole(_int(values.get("seed"), 0, "seed"), name="seed")
        self.target_delta = _number(text("target_delta"), "target_delta")
        if self.target_delta is not None and self.noise is not None:
            raise PrivriskError(
                "target_delta: finds the noise scale itself; leave out noise", param="target_delta"
            )
        self.top = _int(values.get("top"), 10, "top")
        if self.top < 0:
            raise PrivriskError(f"top: must be at least 0, got {self.top}", param="top")
        self.preset = text("preset") or None
        self.window = _whole(text("window"), "window")
        self.step = _whole(text("step"), "step")
        self.options: dict[str, Any] = dict(
            period=text("period") or None,
            individual=text("individual") or None,
            query=text("query") or None,
            value=text("value") or None,
            weight=text("weight") or None,
            epsilons=self.epsilons,
            density=text("density") or "kde-box",
            k=self.k,
            period_unit=text("period_unit") or None,
            aggregate=_int(values.get("aggregate"), 1, "aggregate"),
            lags=_whole(text("lags"), "lags"),
            joint=text("joint") or None,
            condition_on=text("condition_on") or None,
            buckets=_int(values.get("buckets"), 4, "buckets"),
            noise=self.noise,
            draws=_int(values.get("draws"), 20, "draws"),
            seed=self.seed,
        )
        if self.preset is not None:
            self.preset = check_choice(self.preset, ("chicago",), name="preset")
            o = self.options
            o["period"], o["period_unit"] = (
                o["period"] or "month",
                None if o["period"] is None else o["period_unit"],
            )
            o["individual"], o["query"] = o["individual"] or "License #", o["query"] or "rate"
            o["value"] = o["value"] or "failed"
        else:
            for name in ("period", "individual", "query"):
                if self.options[name] is None:
                    raise PrivriskError(f"{name}: required (or use the preset chicago)", param=name)
            check_choice(self.options["query"], EMPIRICAL_QUERIES, name="query")


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
        raise PrivriskError(f"{name}: give a whole number, got {text!r}", param=name) from None


def _int(value: Any, default: int, name: str) -> int:
    if value is None or str(value).strip() == "":
        return default
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: give a whole number, got {value!r}", param=name) from None
    if not number.is_integer():
        raise PrivriskError(f"{name}: give a whole number, got {value!r}", param=name)
    return int(number)


def _noise(text: str) -> float | None:
    if not text:
        return None
    kind, _, number = text.partition(":")
    if kind.strip().lower() != "laplace" or not number:
        raise PrivriskError(f"noise: write laplace:SCALE, got {text!r}", param="noise")
    try:
        value = float(number)
    except ValueError:
        raise PrivriskError(f"noise: {number!r} is not a number", param="noise") from None
    if not value >= 0 or value == float("inf"):
        raise PrivriskError(f"noise: the scale must be a finite number ≥ 0, got {number}", param="noise")
    return value


def run_empirical(job: Any, inputs: EmpiricalInputs, path: Path, name: str, folder: Path) -> dict[str, Any]:
    """Read, clean (preset), measure and write the command's folder: what ``privrisk empirical --out`` does."""
    from privrisk.datasets.chicago import chicago_clean
    from privrisk.empirical import empirical_privacy, rolling_privacy, smallest_noise, write_outputs
    from privrisk.errors import DependenceWarning, PrivacyLeakWarning
    from privrisk.io.data import read_table

    job.advance(0.0, "Reading the data")
    options = inputs.options
    cleaning = None
    if inputs.preset is not None:
        frame, cleaning = chicago_clean(read_table(path))
    else:
        wanted = [
            c
            for c in dict.fromkeys(
                [options["period"], options["individual"], options["value"], options["weight"]]
            )
            if c
        ]
        frame = read_table(path, wanted)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        warnings.simplefilter("always", DependenceWarning)
        result = empirical_privacy(frame, progress=StepCounter(job, None, "Individuals measured"), **options)
        job.advance(0.0, "Windows and noise")
        windows = (
            None
            if inputs.window is None
            else rolling_privacy(frame, window=inputs.window, step=inputs.step, **options)
        )
        target = None
        if inputs.target_delta is not None:
            target = smallest_noise(frame, target_delta=inputs.target_delta, **options)
    doc = result.to_dict(
        top=inputs.top,
        file=name,
        preset=inputs.preset,
        cleaning=cleaning,
        windows=windows,
        smallest_noise=target,
        target_delta=inputs.target_delta,
        out="empirical/",
    )
    job.advance(1.0, "Writing the tables and the figures")
    write_outputs(folder, result, windows=windows, file=name, preset=inputs.preset, parameters=options)
    said = [
        error_message(PrivriskError(str(w.message)), "empirical")
        for w in caught
        if issubclass(w.category, (PrivacyLeakWarning, DependenceWarning))
    ]
    return {
        "result": result,
        "document": doc,
        "cleaning": cleaning,
        "target": target,
        "warnings": list(dict.fromkeys(said)),
    }


def privacy_frame(doc: dict[str, Any]) -> Any:
    """δ and δ* per ε with the riskiest individual, as the command line prints them."""
    import pandas as pd

    from privrisk.empirical.report import short_number

    rows = [
        {
            "ε": f"{r['epsilon']:.4g}",
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
            **{f"δᵢ at ε = {c[6:]}": short_number(r[c]) for c in cols},
        }
        for r in result.top(top).to_dict(orient="records")
    ]
    return pd.DataFrame(rows)


def _extras(done: dict[str, Any]) -> list[Any]:
    import pandas as pd

    from privrisk.empirical.report import short_number

    result, doc, target = done["result"], done["document"], done["target"]
    parts: list[Any] = []
    if "windows" in doc:
        rows = [
            {
                "first": str(r["first"]),
                "last": str(r["last"]),
                "ε": f"{r['epsilon']:.4g}",
                "δ": short_number(r["delta"]),
                "δ*": short_number(r["total_risk"]),
            }
            for r in doc["windows"]
        ]
        parts.append(frame_ui(pd.DataFrame(rows), id="empirical-windows", caption="δ on rolling windows"))
    if result.conditional is not None:
        cols = [c for c in result.conditional.columns if c.startswith("delta_")]
        rows = [
            {
                "bucket": str(r["bucket"]),
                "from": f"{r['low']:.4g}",
                "to": f"{r['high']:.4g}",
                "periods": str(r["periods"]),
                **{f"δ at ε = {c[6:]}": short_number(r[c]) for c in cols},
            }
            for r in result.conditional.to_dict(orient="records")
        ]
        parts.append(
            frame_ui(
                pd.DataFrame(rows),
                id="empirical-conditional",
                caption="δ within buckets of the adversary's knowledge (Burchard and Daoud, Definition 4)",
            )
        )
    if target is not None:
        rows = [
            {
                "ε": f"{r['epsilon']:.4g}",
                "δ without noise": short_number(r["delta_without_noise"]),
                "scale": "not found" if r["scale"] != r["scale"] else f"{r['scale']:.4g}",
                "δ with it": short_number(r["delta"]),
            }
            for r in target.to_dict(orient="records")
        ]
        parts.append(
            frame_ui(
                pd.DataFrame(rows), id="empirical-target", caption="Smallest Laplace scale for the target δ"
            )
        )
    return parts


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = session_folder(session, ID)
    example = folder / EXAMPLE_NAME
    runner = Runner("empirical", "cancel", session, folder)
    params = query_params(session)
    kinds = {
        "source": "radio",
        "preset": "select",
        "query": "select",
        "epsilons": "text",
        "density": "select",
        "period_unit": "select",
        "k": "text",
        "aggregate": "numeric",
        "window": "text",
        "step": "text",
        "lags": "text",
        "joint": "text",
        "condition_on": "text",
        "buckets": "numeric",
        "noise": "text",
        "target_delta": "text",
        "draws": "numeric",
        "seed": "numeric",
        "top": "numeric",
    }
    preset_inputs(session, kinds)
    file_message: reactive.Value[str | None] = reactive.value(None)
    columns: reactive.Value[list[str]] = reactive.value([])

    def set_choices(found: list[str]) -> None:
        def pick(name: str, fallback: str) -> str:
            wanted = params.get(name)
            return wanted if wanted in found else fallback

        ui.update_selectize("period", choices=found, selected=pick("period", found[0] if found else ""))
        ui.update_selectize(
            "individual", choices=found, selected=pick("individual", found[1] if len(found) > 1 else "")
        )
        ui.update_selectize("value", choices=["", *found], selected=pick("value", ""))
        ui.update_selectize("weight", choices=["", *found], selected=pick("weight", ""))

    @reactive.effect
    @reactive.event(input.file)
    def _columns() -> None:
        file_message.set(None)
        try:
            found = upload_columns(input.file(), max_bytes=max_upload)
        except PrivriskError as exc:
            file_message.set(named_error(exc, "empirical"))
            columns.set([])
            set_choices([])
            return
        columns.set(found)
        set_choices(found)

    @render.ui
    def file_error() -> Any:
        return error_ui(file_message())

    def _values() -> dict[str, Any]:
        names = (
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
        return {n: input[n]() for n in names}

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        uploads: list[tuple[Path, str]] = []
        try:
            values = _values()
            if values[
                "preset"
            ]:  # the preset names its own columns, as --preset chicago does without --period
                values |= {"period": None, "individual": None, "query": None, "value": None, "weight": None}
            inputs = EmpiricalInputs(values)
            if input.source() == "example":
                if not example.is_file():
                    example_table(example)
                path, name = example, EXAMPLE_NAME
            else:
                path, name = checked_upload(input.file(), max_bytes=max_upload)
            uploads = [(path, name)]
        except Exception as exc:
            runner.fail(exc, uploads)
            return
        runner.start(run_empirical, inputs, path, name, folder / "out", uploads=uploads)

    runner.serve_status(input)

    @render.ui
    def results() -> Any:
        done = runner.result()
        if done is None:
            return ui.p("Press “Measure”: the example runs in a few seconds.", class_="privrisk-help")
        result, doc, cleaning = done["result"], done["document"], done["cleaning"]
        a = doc["appearances"]
        notes = []
        if cleaning:
            notes.append(
                "Cleaning (Burchard and Daoud §5): dropped "
                + ", ".join(f"{n:,} {why}" for why, n in cleaning.items())
                + "."
            )
        notes.append(
            f"{result.periods} periods, {result.n_individuals:,} individuals ({result.footprints:,} distinct "
            f"footprints), {result.density}, k = {result.k}."
        )
        notes.append(
            f"Individuals appear in {a['min']}–{a['max']} periods (median {a['median']:g}); "
            f"{a['in_one_period']:,} in one period only."
        )
        parts: list[Any] = [
            ui.div(
                ui.download_button("download_privacy", "privacy.csv", class_="btn-sm me-2"),
                ui.download_button("download_individuals", "individuals.parquet", class_="btn-sm me-2"),
                ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"),
                class_="mb-3",
            ),
            *(ui.p(f"warning: {w}", class_="text-warning privrisk-warning") for w in done["warnings"]),
            *(ui.p(n, class_="privrisk-help") for n in notes),
            frame_ui(
                privacy_frame(doc),
                id="empirical-privacy",
                caption=f"Empirical privacy of the {result.query} (Burchard and Daoud §5)",
            ),
        ]
        for row in doc["rows"]:
            if row["total_risk"] >= 0.5:
                parts.append(
                    ui.p(
                        f"At ε = {row['epsilon']:.4g} the total risk is {row['total_risk']:.2f}: it is more "
                        "likely than not that someone's privacy is compromised by more than ε, although δ "
                        "itself is small.",
                        class_="privrisk-finding fw-semibold",
                    )
                )
                break
        top = done["document"].get("top")
        if top:
            parts.append(
                frame_ui(
                    riskiest_frame(result, len(top)),
                    id="empirical-riskiest",
                    caption=f"The {len(top)} riskiest individuals",
                )
            )
        parts += _extras(done)
        parts += [ui.h4("Figures"), figures_ui(folder / "out")]
        return ui.TagList(*parts)

    @render.download_button(filename="privacy.csv")
    def download_privacy() -> Any:
        yield (folder / "out" / "privacy.csv").read_bytes()

    @render.download_button(filename="individuals.parquet")
    def download_individuals() -> Any:
        yield (folder / "out" / "individuals.parquet").read_bytes()

    @render.download_button(filename="empirical.zip")
    def download_all() -> Any:
        yield zip_bytes(folder / "out")

    @render.download_button(filename=EXAMPLE_NAME)
    def download_example() -> Any:
        if not example.is_file():
            example_table(example)
        yield example.read_bytes()

    @render.ui
    def command() -> Any:
        v = _values()
        example_chosen = input.source() == "example"
        if example_chosen:
            name = EXAMPLE_NAME
        else:
            info = input.file()
            name = Path(str(info[0]["name"])).name if info else "FILE"
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
        for key in (
            "k",
            "aggregate",
            "window",
            "step",
            "lags",
            "joint",
            "condition_on",
            "buckets",
            "noise",
            "draws",
            "seed",
            "target_delta",
            "top",
        ):
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
