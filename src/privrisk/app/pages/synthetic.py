"""The app's page "Synthetic": the disclosure risk of a synthetic file, as ``privrisk synthetic`` measures it.

The page maps its inputs onto :class:`privrisk.synthetic.SyntheticSettings` (:func:`synthetic_settings`: every rule
lives there), runs :func:`privrisk.synthetic.run_synthetic` in a worker thread with progress and Cancel, and writes
the command's folder with :meth:`~privrisk.synthetic.SyntheticRun.write`. The result leads with the verdict in plain
words; the attacks, membership inference, the claim and the distances are folded below it, with the folder's
report and a ZIP to download. The built-in examples are made-up survey respondents
(:mod:`privrisk.synthetic.example`) with a private, a careless and a copying generator.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, reactive, render, ui

from privrisk._format import plain
from privrisk.app._shared import preset_inputs
from privrisk.app.pages._runs import (
    Runner,
    checked_upload,
    figures_ui,
    findings_ui,
    frame_ui,
    main_panel,
    session_folder,
    zip_bytes,
)
from privrisk.synthetic.example import EXAMPLE_GENERATORS

if TYPE_CHECKING:
    from privrisk.synthetic.run import SyntheticRun, SyntheticSettings

ID = "synthetic"
TITLE = "Synthetic"

__all__ = ["FIELDS", "ID", "TITLE", "command_text", "page_server", "page_ui", "run_synthetic_job",
           "synthetic_settings"]  # fmt: skip

_INTRO = (
    "A synthetic file can still give people away. This page attacks it as the EU's anonymisation criteria ask: "
    "can someone single out a person, link two files about them, or infer something they did not know, better on "
    "the records the generator saw than on real records it never saw? It also tests whether the file tells who was "
    "in the training data, and holds that against the generator's privacy claim."
)
#: The page's inputs that set a field of :class:`~privrisk.synthetic.SyntheticSettings` (text as typed).
FIELDS = ("aux", "secret", "threat_model", "queries", "generator", "generator_guarantee", "max_risk", "seed")
SOURCES = {f"example {g}": f"the example: {text}" for g, text in EXAMPLE_GENERATORS.items()} | {
    "file": "files I upload"
}
EXAMPLE_FILES = ("original.csv", "synthetic.csv", "control.csv")


@module.ui
def page_ui() -> Any:
    """The options on the left; the verdict, then the folded detail, on the right."""
    more = ui.accordion(
        ui.accordion_panel(
            "More options",
            ui.input_text("secret", "Secrets to infer (empty: every column the attacker lacks)", value=""),
            ui.input_text("queries", "Attacks of each kind", value="1000"),
            ui.input_text(
                "generator",
                "Generator to retrain for the shadow attack (histogram:1, marginals, copy)",
                value="",
            ),
            ui.input_text("max_risk", "Largest acceptable excess risk (e.g. 0.05)", value=""),
            ui.input_text("seed", "Seed", value="1"),
        ),
        open=False,
    )
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_radio_buttons("source", "Data", SOURCES, selected="example histogram:1"),
            ui.panel_conditional(
                "input.source === 'file'",
                ui.input_file(
                    "original",
                    "Training records (the generator saw them)",
                    accept=[".csv", ".parquet", ".dta", ".sav"],
                ),
                ui.input_file("synthetic", "Synthetic file", accept=[".csv", ".parquet", ".dta", ".sav"]),
                ui.input_file(
                    "control",
                    "Control records (real, never seen by the generator)",
                    accept=[".csv", ".parquet", ".dta", ".sav"],
                ),
            ),
            ui.input_text("aux", "Columns the attacker holds (empty: the threat model's)", value=""),
            ui.input_select(
                "threat_model",
                "Threat model",
                {
                    "quasi-identifiers": "quasi-identifiers (demographics)",
                    "all-but-secret": "everything but the secret",
                },
            ),
            ui.input_text(
                "generator_guarantee", "The generator's claimed guarantee (e.g. epsilon=1)", value="epsilon=1"
            ),
            more,
            ui.input_action_button("run", "Attack", class_="btn-primary mt-2"),
            width=380,
        ),
        *main_panel("The disclosure risk of a synthetic file", _INTRO),
    )


def synthetic_settings(values: Mapping[str, Any], files: tuple[Any, Any, Any]) -> SyntheticSettings:
    """The page's inputs mapped onto :class:`~privrisk.synthetic.SyntheticSettings` (every check is there).

    Example:
        >>> s = synthetic_settings({"aux": "age,sex", "queries": "500", "seed": "1"}, ("o.csv", "s.csv", None))
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: original: o.csv: no such file
    """
    from privrisk.synthetic.run import SyntheticSettings

    given: dict[str, Any] = {name: values.get(name) for name in FIELDS if values.get(name) not in (None, "")}
    original, synthetic, control = files
    return SyntheticSettings(original=original, synthetic=synthetic, control=control, **given)


def run_synthetic_job(job: Any, settings: SyntheticSettings, folder: Path) -> SyntheticRun:
    """Attack and write the command's folder, what ``privrisk synthetic --out`` does; the bar follows each step."""
    from privrisk.synthetic.run import run_synthetic

    run = run_synthetic(settings, progress=job.advance)
    job.advance(0.99, "Writing the report")
    run.write(folder)
    job.advance(1.0, "Done")
    return run


def command_text(names: tuple[str, str, str | None], values: Mapping[str, Any]) -> str:
    """The command line that gives the page's result.

    Example:
        >>> command_text(("a.csv", "b.csv", "c.csv"), {"aux": "age,sex", "seed": "1"})
        'privrisk synthetic a.csv b.csv --control c.csv --aux age,sex --seed 1 --out synthetic/'
    """
    parts = ["privrisk", "synthetic", shlex.quote(names[0]), shlex.quote(names[1])]
    if names[2]:
        parts += ["--control", shlex.quote(names[2])]
    for name in FIELDS:
        value = str(values.get(name) or "").strip()
        if value:
            parts += ["--" + name.replace("_", "-"), shlex.quote(value)]
    return " ".join([*parts, "--out", "synthetic/"])


def _attacks_frame(run: SyntheticRun) -> Any:
    import pandas as pd

    rows = []
    for o in run.attacks:
        r = o.risk
        rows.append({
            "attack": o.title,
            "excess risk": f"{100 * r.value:.3g} %",
            "interval": f"{100 * r.low:.3g} % to {100 * r.high:.3g} %",
            "on training records": f"{100 * r.attack_rate:.3g} %",
            "on control records": "–" if r.control_rate is None else f"{100 * r.control_rate:.3g} %",
            "attacks": f"{o.found:,}" + (f" of {o.requested:,}" if o.shortfall else ""),
        })  # fmt: skip
    return pd.DataFrame(rows)


def _membership_frame(run: SyntheticRun) -> Any:
    import pandas as pd

    rows = []
    for a in run.membership:
        tpr, low, high = a.tpr_at(0.01)
        rows.append({"attack": a.name, "found at 1 % false alarms": f"{100 * tpr:.3g} % ({100 * low:.3g} % to "
                     f"{100 * high:.3g} %)", "advantage": f"{100 * a.advantage:.3g} %",
                     "ε it proves": f"{a.bound.epsilon:.2f}"})  # fmt: skip
    return pd.DataFrame(rows)


def results_ui(run: SyntheticRun, folder: Path) -> Any:
    """The verdict first, the downloads, then the detail folded."""
    v = run.verdict()
    parts: list[Any] = [
        ui.div(
            ui.p(v.headline, id="synthetic-verdict-number", class_="display-6 fw-semibold mb-0"),
            ui.p(v.sentence, id="synthetic-verdict", class_="lead"),
            class_="privrisk-verdict mb-3",
        ),
        ui.div(
            ui.download_button("download_report", "report.html", class_="btn-sm me-2"),
            ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"),
            class_="mb-3",
        ),
    ]
    detail: list[Any] = [frame_ui(_attacks_frame(run), id="synthetic-attacks", caption="The attacks")]
    if run.membership:
        detail.append(
            frame_ui(_membership_frame(run), id="synthetic-membership", caption="Membership inference")
        )
    detail.append(findings_ui([plain(f) for f in run.findings()[1:]]))
    parts += [
        ui.tags.details(
            ui.tags.summary("The numbers behind it"), *detail, id="synthetic-detail", class_="mb-3"
        ),
        ui.tags.details(ui.tags.summary("Figure"), figures_ui(folder), id="synthetic-figures", class_="mb-3"),
    ]
    return ui.TagList(*parts)


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = session_folder(session, ID)
    runner = Runner("synthetic", "cancel", session, folder)
    preset_inputs(session, {"source": "radio", "threat_model": "select"} | {n: "text" for n in FIELDS
                                                                             if n != "threat_model"})  # fmt: skip

    def _values() -> dict[str, Any]:
        return {n: input[n]() for n in FIELDS}

    def _example(generator: str) -> tuple[Path, Path, Path]:
        from privrisk.synthetic.example import example_files

        where = folder / generator.replace(":", "-")
        if not (where / EXAMPLE_FILES[2]).exists():
            where.mkdir(parents=True, exist_ok=True)
            for frame, name in zip(example_files(generator), EXAMPLE_FILES, strict=True):
                frame.to_csv(where / name, index=False)
        return where / EXAMPLE_FILES[0], where / EXAMPLE_FILES[1], where / EXAMPLE_FILES[2]

    def _files() -> tuple[tuple[Path, Path, Path | None], list[tuple[Path, str]]]:
        source = input.source()
        if source.startswith("example "):
            paths = _example(source.removeprefix("example "))
            return paths, [(p, p.name) for p in paths]
        original = checked_upload(input.original(), max_bytes=max_upload, param="original")
        synthetic = checked_upload(input.synthetic(), max_bytes=max_upload, param="synthetic")
        control = None
        if input.control():
            control = checked_upload(input.control(), max_bytes=max_upload, param="control")
        uploads = [original, synthetic] + ([control] if control else [])
        return (original[0], synthetic[0], None if control is None else control[0]), uploads

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        uploads: list[tuple[Path, str]] = []
        try:
            paths, uploads = _files()
            settings = synthetic_settings(_values(), paths)
        except Exception as exc:
            runner.fail(exc, uploads)
            return
        runner.start(run_synthetic_job, settings, folder / "out", uploads=uploads)

    runner.serve_status(input)

    @render.ui
    def results() -> Any:
        run = runner.result()
        if run is None:
            return ui.p("Press “Attack”: the example takes some seconds.", class_="privrisk-help")
        return ui.div(results_ui(run, folder / "out"), class_="privrisk-synthetic-results")

    @render.download_button(filename="report.html")
    def download_report() -> Any:
        yield (folder / "out" / "report.html").read_bytes()

    @render.download_button(filename="synthetic.zip")
    def download_all() -> Any:
        yield zip_bytes(folder / "out")

    @render.ui
    def command() -> Any:
        source = input.source()
        if source.startswith("example "):
            names: tuple[str, str, str | None] = ("original.csv", "synthetic.csv", "control.csv")
        else:
            names = ("ORIGINAL", "SYNTHETIC", "CONTROL")
        return ui.div(command_text(names, _values()), class_="privrisk-command", id="synthetic-command-line")
