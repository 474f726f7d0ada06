"""The app's page "Study": the sampling study of Allmann et al. (2020, §4), as ``privrisk study`` and ``privrisk demo``.

The page reads the columns of the session's upload (a file uploaded on any page, offered here by name with its
first numeric non-id column chosen; :func:`privrisk.app._shared.session_upload`) with
:func:`privrisk.study.read_variables` (or takes the demo's public survey data from
:func:`privrisk.datasets.survey.survey_values`), checks the settings with :class:`privrisk.study.StudySettings`,
runs :func:`privrisk.sampling_study` (and, with the attack, :func:`privrisk.study_attack` on the same samples) in a
worker thread with progress and Cancel, and writes the command's folder with :func:`privrisk.study.write_bundle`
into the session's private folder: its findings, key figures and figures are shown, and results.parquet,
summary.csv, report.html and the whole folder are offered for download.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, reactive, render, ui

from privrisk._format import duration, epsilon_text, percent_3g
from privrisk.app._long_job import LongJob, data_inputs, upload_input, with_upload
from privrisk.app._shared import command_line, preset_inputs, query_params
from privrisk.app.pages import _runs
from privrisk.app.pages._runs import verdict_ui as _verdict

if TYPE_CHECKING:
    from privrisk.study.run import StudyRun, StudySettings

ID = "study"
TITLE = "Study"

__all__ = ["ID", "TITLE", "page_server", "page_ui", "run_study", "study_settings", "study_verdict"]

QUERY_CHOICES = ("count", "sum", "mean", "median", "min", "max", "variance", "std")
DEFAULTS: dict[str, str] = {
    "queries": "mean,median,min,max,variance",
    "epsilons": "0.1,0.5,1,2,5,10",
    "proportions": "auto",
    "repetitions": "100",
    "seed": "1",
    "universe": "data",
    "ls_method": "exact",
}
_INTRO = (
    "Allmann et al. (2020, §4) ask how risky publishing a statistic of a survey variable is, and how the risk "
    "moves with ε and with the size of the sample. For each column, sample proportion and repetition a sample is "
    "drawn; for each query its global and exact local sensitivity give the many-worlds risk ρ_mw (n = the sample "
    "size), the two-worlds risk ρ_tw and the global risk at each ε. Choose the demo's public survey data or "
    "upload a CSV, Parquet, Stata or SPSS file and pick numeric columns."
)


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left, the run's results on the right."""
    advanced = _runs.more_options(
        ui.input_text(
            "proportions",
            "Sample proportions in (0, 1], or auto (20 on a log scale)",
            value=DEFAULTS["proportions"],
        ),
        ui.input_text(
            "universe",
            "Universe: data (each column's valid values) or bounds LO,HI",
            value=DEFAULTS["universe"],
        ),
        ui.input_text("universe_min", "Set the universe's minimum to (empty: keep it)", value=""),
        ui.input_text("missing", "Missing codes to drop: negative, or a list such as -1,-3", value=""),
        ui.input_select(
            "ls_method", "Local sensitivity", {"exact": "exact", "paper": "paper (four-case rule)"}
        ),
        ui.input_select(
            "figure_query", "Query of Figure 2", {"": "default (max)", **{q: q for q in QUERY_CHOICES}}
        ),
        ui.input_text(
            "figure_epsilon", "ε of Figure 1 and the findings (empty: the one nearest 1)", value=""
        ),
        ui.input_checkbox("attack", "Also attack every sample (Lee and Clifton's attacker)", value=False),
        ui.input_text("attack_trials", "Simulated attacks per sample (empty: 1,000)", value=""),
        ui.input_text(
            "attack_max_n", "Skip samples larger than this in the attack (empty: 50,000)", value=""
        ),
    )
    return _runs.long_page_ui(
        "Sampling study",
        _INTRO,
        "Run the study",
        *data_inputs(
            SOURCES,
            "demo",
            upload_input("file", "CSV, Parquet, Stata (.dta) or SPSS (.sav) file"),
            ui.input_selectize("column", "Numeric columns to study", choices=[], multiple=True),
        ),
        ui.input_checkbox_group(
            "queries", "Queries", QUERY_CHOICES, selected=DEFAULTS["queries"].split(","), inline=True
        ),
        ui.input_text("epsilons", "ε values, comma-separated (ln3 works)", value=DEFAULTS["epsilons"]),
        ui.input_numeric("repetitions", "Repetitions (samples per proportion)", value=100, min=1),
        ui.input_numeric("seed", "Seed (the same seed gives the same numbers)", value=1, min=0),
        advanced,
    )


def study_settings(
    values: dict[str, Any], *, demo: bool, data: Any = None, name: str | None = None
) -> StudySettings:
    """The page's inputs as :class:`~privrisk.study.StudySettings`, which check them as for ``privrisk study``.

    ``values`` holds the inputs as the form holds them (text, numbers), named like the settings' fields; ``data``
    is the upload's path and ``name`` its file's name. Raises PrivriskError naming the field (the page shows it
    with its option: ``--epsilons: …``).

    Example:
        >>> s = study_settings({"queries": ["max"], "epsilons": "1,ln3", "proportions": "0.5,1"}, demo=True)
        >>> s.queries, s.universe_min, s.proportions
        (('max',), 0.0, (0.5, 1.0))
    """
    from privrisk.study.run import StudySettings

    def text(field: str) -> str:
        value = values.get(field)
        return "" if value is None else str(value).strip()

    own: dict[str, Any] = {} if demo else {"universe": text("universe") or "data", "universe_min": text("universe_min"),
                           "missing": text("missing"), "column": list(values.get("column") or ())}  # fmt: skip
    if text("attack_max_n"):
        own["attack_max_n"] = text("attack_max_n")
    return StudySettings(
        data=data, name=name, demo=demo, queries=list(values.get("queries") or []),
        epsilons=text("epsilons") or DEFAULTS["epsilons"], proportions=text("proportions") or "auto",
        repetitions=values.get("repetitions", DEFAULTS["repetitions"]), seed=values.get("seed", DEFAULTS["seed"]),
        ls_method="paper" if text("ls_method") == "paper" else "exact", figure_query=text("figure_query"),
        figure_epsilon=text("figure_epsilon"), attack=bool(values.get("attack")),
        attack_trials=text("attack_trials") or None, **own,
    )  # fmt: skip


def run_study(job: Any, settings: StudySettings, folder: Path) -> StudyRun:
    """Run :func:`privrisk.study.run_study` with the job's progress bar, and write the folder (SVG figures only: the
    page shows them, and report.html inlines them)."""
    from privrisk.study.run import run_study as run

    done = run(settings, progress=job.advance)
    done.write(folder, progress=job.advance, figure_formats=("svg",))
    return done


def study_verdict(
    key_figures: list[dict[str, Any]], epsilon: float, repetitions: int
) -> tuple[str, str, str]:
    """The page's first number, its sentence and where they come from
    (:func:`privrisk.study.report.study_verdict`)."""
    from privrisk.study.report import study_verdict as verdict

    return verdict(key_figures, epsilon, repetitions)


def key_figures_frame(bundle: Any) -> Any:
    """The key table as the command line prints it (percentages with three significant digits)."""
    import pandas as pd

    rows = []
    for row in bundle.key_figures.to_dict(orient="records"):
        rows.append(
            {
                "variable": row["variable"],
                "query": row["query"],
                "n (smallest)": f"{row['n_smallest']:,}",
                "ρ_tw": percent_3g(row["tw_smallest_median"]),
                "ρ_mw": percent_3g(row["mw_smallest_median"]),
                "n (largest)": f"{row['n_largest']:,}",
                "ρ_tw ": percent_3g(row["tw_largest_median"]),
                "ρ_mw ": percent_3g(row["mw_largest_median"]),
            }
        )
    return pd.DataFrame(rows)


def attack_frame(bundle: Any) -> Any:
    """The attacker's key table (bound, exact risk, expected and simulated success; medians), as percentages."""
    import pandas as pd

    columns = (
        ("many_worlds", "bound ρ_mw"),
        ("exact_risk", "exact risk"),
        ("expected_success", "expected"),
        ("simulated_success", "simulated"),
    )
    rows = [
        {
            "variable": r["variable"],
            "query": r["query"],
            "n": f"{r['n']:,}",
            **{head: percent_3g(r[c]) for c, head in columns},
        }
        for r in bundle.attack["key_figures"]
    ]
    return pd.DataFrame(rows)


def command_text(values: dict[str, Any], *, demo: bool, name: str) -> str:
    """The command line that does what the page's inputs ask (``name``: the upload's file name)."""
    options: dict[str, Any] = {}
    queries = ",".join(values["queries"])
    if queries != DEFAULTS["queries"]:
        options["queries"] = queries
    for field in ("epsilons", "proportions", "repetitions", "seed"):
        if str(values[field]).strip() != str(DEFAULTS[field]):
            options[field] = values[field]
    if not demo:
        if str(values["universe"]).strip() not in ("", "data"):
            options["universe"] = values["universe"]
        options |= {"universe_min": values["universe_min"], "missing": values["missing"]}
    if values["ls_method"] != "exact":
        options["ls_method"] = values["ls_method"]
    options |= {"figure_query": values["figure_query"], "figure_epsilon": values["figure_epsilon"]}
    if values["attack"]:
        options |= {
            "attack": True,
            "attack_trials": values["attack_trials"],
            "attack_max_n": values["attack_max_n"],
        }
    options["out"] = "study/"
    if demo:
        text = command_line("demo", **options)
    else:
        columns = "".join(f" --column {shlex.quote(c)}" for c in (values["column"] or ["COLUMN"]))
        text = (
            command_line("study", file=name)
            + columns
            + command_line("study", **options)[len("privrisk study") :]
        )
    return text


def results_ui(bundle: StudyRun, folder: Path, buttons: Any) -> Any:
    """The verdict first, the downloads, then the findings and key figures and the figures, folded."""
    from privrisk.study.report import MEANING

    eps = bundle.parameters["figure_epsilon"]
    reps = bundle.parameters["repetitions"]
    rows = [{str(k): v for k, v in row.items()} for row in bundle.key_figures.to_dict(orient="records")]
    number, sentence, where = study_verdict(rows, eps, reps)
    detail = [
        _runs.findings_ui(bundle.findings),
        ui.tags.ul(
            *(
                ui.tags.li(f"{v['label']}: {v['summary']}; universe {v['universe']}")
                for v in bundle.variables
            ),
            class_="privrisk-help",
        ),
        _runs.frame_ui(
            key_figures_frame(bundle),
            id="study-key-figures",
            caption=f"Risks at ε = {epsilon_text(eps)}, smallest and largest sample (median of {reps:,} "
            "repetitions): ρ_tw the two-worlds risk (in or out), ρ_mw the many-worlds risk (which of n).",
        ),
    ]
    if bundle.attack is not None:
        detail += [
            _runs.frame_ui(
                attack_frame(bundle),
                id="study-attack",
                caption=f"The attacker at ε = {epsilon_text(eps)} (medians)",
            ),
            ui.p(MEANING, class_="privrisk-help"),
        ]
    detail.append(
        ui.p(
            f"{bundle.rows:,} result rows, computed in {duration(bundle.seconds or 0)} (reading the data and "
            "writing the figures not included).",
            class_="privrisk-help",
        )
    )
    return ui.TagList(
        _verdict("study", number, sentence, ui.p(where, id="study-verdict-where", class_="privrisk-help"),
                 sentence_class="lead mb-1"),
        buttons,
        _runs.folded_ui(f"Findings and key figures ({len(bundle.findings)} findings)", *detail, id="study-details",
                  class_=None),
        _runs.folded_ui("Figures 1 and 2 (as in Allmann et al.)", _runs.figures_ui(folder), id="study-figures", class_=None),
    )  # fmt: skip


#: The kinds of the inputs a link may preset (``?epsilons=…``).
_KINDS = {
    "source": "radio",
    "epsilons": "text",
    "proportions": "text",
    "repetitions": "numeric",
    "seed": "numeric",
    "universe": "text",
    "universe_min": "text",
    "missing": "text",
    "ls_method": "select",
    "figure_query": "select",
    "figure_epsilon": "text",
    "attack": "checkbox",
    "attack_trials": "text",
    "attack_max_n": "text",
}


SOURCES = {"demo": "the demo's public survey data (hours and incomes)", "file": "a file I upload"}


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = _runs.session_folder(session, ID)
    params = query_params(session)
    preset_inputs(session, _KINDS)
    if "queries" in params:
        ui.update_checkbox_group("queries", selected=[q.strip() for q in params["queries"].split(",")])
    wanted_columns = [c.strip() for c in params.get("column", "").split(",") if c.strip()]

    def _offer(profile: Any, columns: list[str]) -> None:
        # A file uploaded on any page of this session: offered here, its numeric non-id column chosen; a file whose
        # rows do not read by its header's columns (the run says what is wrong).
        numeric = [] if profile is None else list(profile.numeric)
        chosen = [c for c in wanted_columns if c in columns] or numeric[:1] or columns[-1:]
        ui.update_selectize("column", choices=columns, selected=chosen)

    job = LongJob(input, session, ID, max_upload=max_upload, sources=with_upload(SOURCES), offer=_offer,
                  header_only=True)  # fmt: skip

    @render.ui
    def file_error() -> Any:
        from privrisk.app._shared import error_ui

        return error_ui(job.file_message())

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        demo = input.source() == "demo"
        files: list[tuple[Path, str]] = []
        try:
            data = name = None
            if not demo:
                data, name = job.checked()
                files = [(data, name)]
            settings = study_settings(_inputs(), demo=demo, data=data, name=name)
        except Exception as exc:
            job.runner.fail(exc, files)
            return
        job.runner.start(run_study, settings, folder / "study", uploads=files)

    buttons = job.downloads("study", {"report": ("report.html", "report.html"),
                                      "results": ("results.parquet", "results.parquet"),
                                      "summary": ("summary.csv", "summary.csv")}, "study.zip")  # fmt: skip

    def _inputs() -> dict[str, Any]:
        names = (
            "epsilons",
            "proportions",
            "repetitions",
            "seed",
            "universe",
            "universe_min",
            "missing",
            "ls_method",
            "figure_query",
            "figure_epsilon",
            "attack",
            "attack_trials",
            "attack_max_n",
        )
        return {"queries": list(input.queries() or []), "column": list(input.column() or []),
                **{n: input[n]() for n in names}}  # fmt: skip

    job.serve_results(
        "Press “Run the study”. The demo (2 variables, 100 repetitions) takes up to about 10 seconds; a column of "
        "a million values, about half a minute.",
        lambda bundle: results_ui(bundle, folder / "study", buttons()),
    )

    @render.ui
    def command() -> Any:
        kept = job.uploads.current()
        text = command_text(
            _inputs(), demo=input.source() == "demo", name="FILE" if kept is None else kept.name
        )
        return ui.div(text, class_="privrisk-command", id="study-command-line")
