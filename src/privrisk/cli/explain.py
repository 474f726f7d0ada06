"""``privrisk explain`` (the page for data subjects) and ``privrisk report`` (one page from many result folders).

Both map their options onto the library's settings (:class:`privrisk.reports.run.ExplainSettings`,
:class:`privrisk.reports.run.ReportSettings`), run them and print the result; every rule is the library's.
"""

from __future__ import annotations

from pathlib import Path

import typer

from privrisk.cli import accounting as A
from privrisk.cli._app import app
from privrisk.cli._common import MAX_ROWS, emit_json, err, out

EPSILON_HELP = "ε of the release (the total of all releases): a number or ln3, ln(3), log(3)."

# The library's parameters epsilon, n, compare, lang, out and max_rows are these commands' options of the same name;
# report's folders are its DIR arguments.


@app.command("explain")
def explain_command(
    epsilon: str | None = typer.Option(None, "--epsilon", "-e", help=EPSILON_HELP),
    delta: float | None = A.DELTA,
    rho: float | None = A.RHO,
    mu: float | None = A.MU,
    mechanism: str | None = A.MECHANISM,
    scale: float | None = A.SCALE,
    sigma: float | None = A.SIGMA,
    sensitivity: float | None = A.SENSITIVITY,
    compose: int | None = A.COMPOSE,
    renyi: str | None = A.RENYI,
    categories: int | None = A.CATEGORIES,
    dpsgd: str | None = A.DPSGD,
    releases: Path | None = A.RELEASES,
    opacus_history: Path | None = A.OPACUS_HISTORY,
    sample_rate: float | None = A.SAMPLE_RATE,
    sampling: str | None = A.SAMPLING,
    group: int | None = A.GROUP,
    n: int | None = typer.Option(
        None, "--n", help="Number of people the attacker must pick among (≥ 2), when it is known."
    ),
    compare: str | None = typer.Option(
        None, "--compare", help="Other ε values to show beside it, comma-separated (e.g. ln2,ln7)."
    ),
    lang: str = typer.Option("en", "--lang", help="Language of the page: en or de."),
    out_path: Path | None = typer.Option(None, "--out", "-o", help="The HTML file to write."),
    as_json: bool = typer.Option(False, "--json", help="Print the page's numbers as one JSON document."),
) -> None:
    """Write a self-contained HTML page that explains ε (or any guarantee) to the people in the data (English or German).

    The page says the worst-case risk as a natural frequency with an icon array of 100 guesses, how far the attacker gets from a coin toss towards certainty (Γ), the many-worlds risk among --n people, the randomized-response coin, and what the number does and does not promise. A keyboard-operable slider recomputes the same numbers for other ε. The page loads nothing from the network.

    Any other guarantee (--epsilon with --delta, --rho, --mu, --mechanism laplace|gaussian|rr, --compose K) tells the same story from its trade-off curve: the success and advantage of the best attacker, and the risk among --n people (no slider, no script).

    Example: privrisk explain --epsilon ln3 --n 100 --compare ln2,ln7 --lang de --out explain.html
    """
    from privrisk.reports.run import ExplainSettings, page_target, run_explain

    spec = A.guarantee_spec(epsilon=epsilon, delta=delta, rho=rho, mu=mu, mechanism=mechanism, scale=scale,
                            sigma=sigma, sensitivity=sensitivity, compose=compose, renyi=renyi, categories=categories,
                            dpsgd=dpsgd, releases=releases, opacus_history=opacus_history, sample_rate=sample_rate,
                            sampling=sampling, group=group)  # fmt: skip
    settings = ExplainSettings(guarantee=spec, n=n, compare=compare or (), lang=lang, names=A.OPTION_NAMES)
    target = page_target(out_path, numbers_only=as_json, numbers_name="--json")
    run = run_explain(settings)
    if target is not None:
        run.write_page(target)
    if as_json:
        emit_json(run.to_dict(out=out_path))
        return
    out.print(run.paragraph)
    err.print(
        f"Wrote {out_path} ({'German' if settings.lang == 'de' else 'English'}; opens offline in any browser)."
    )


@app.command("report")
def report_command(
    folders: list[Path] = typer.Argument(..., help="Folders written by privrisk commands with --out DIR."),
    out_path: Path = typer.Option(..., "--out", "-o", help="The HTML file to write."),
    title: str = typer.Option("privrisk report", "--title", help="The page title."),
    max_rows: int = typer.Option(MAX_ROWS, "--max-rows", help="Rows of each table shown before it is cut."),
    as_json: bool = typer.Option(False, "--json", help="Print what went into the page as one JSON document."),
    include_internal: bool = typer.Option(
        False,
        "--include-internal",
        help="Also show internal tables (a release's internal assessment), marked NOT FOR PUBLICATION; "
        "left out by default.",
    ),
) -> None:
    """Gather the results of several commands (their manifest.json) into one self-contained HTML page.

    The page has a table of contents, each folder's findings and summary, its figures as inline SVG (sanitised: no scripts, no outside references) and its tables (long ones are cut, and the page says so).

    Example: privrisk report results/study results/release --out report.html
    """
    from privrisk.reports.run import ReportSettings, check_page_target, run_report

    settings = ReportSettings(
        folders=folders, title=title, max_rows=max_rows, include_internal=include_internal
    )
    target = check_page_target(out_path, settings.inputs())
    run = run_report(settings)
    run.write_page(target)
    info = run.to_dict(out=target)
    if as_json:
        emit_json(info)
        return
    for section in info["sections"]:
        out.print(
            f"{section['kind']}: {section['title']} ({_count(section['figures'], 'figure')}, "
            f"{_count(section['tables'], 'table')})"
        )
    if info["problems"]:
        err.print(
            f"{info['problems']} figure(s) or table(s) could not be shown; the page says which and why."
        )
    err.print(f"Wrote {target}.")


def _count(k: int, noun: str) -> str:
    return f"{k} {noun}" if k == 1 else f"{k} {noun}s"
