"""``privrisk explain`` (the page for data subjects) and ``privrisk report`` (one page from many result folders)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import typer

from privrisk.cli import accounting as A
from privrisk.cli._app import app
from privrisk.cli._common import MAX_ROWS, emit_json, err, out, parse_epsilon, parse_epsilons
from privrisk.errors import PrivriskError
from privrisk.io.files import check_outputs, write_text

EPSILON_HELP = "ε of the release (the total of all releases): a number or ln3, ln(3), log(3)."

# The library's parameters epsilon, n, compare, lang and max_rows are these commands' options of the same name;
# report's folders are its DIR arguments.


def _html_target(path: Path, name: str = "--out", inputs: list[Path] | None = None) -> Path:
    if path.exists() and path.is_dir():
        raise PrivriskError(f"{name}: {path} is a folder; give the name of the HTML file to write")
    check_outputs(path, inputs or [], param=name)
    if not path.parent.exists():
        raise PrivriskError(f"{name}: the folder {path.parent} does not exist")
    return path


def _folder_inputs(folders: list[Path]) -> list[Path]:
    """What ``report`` reads: each folder's manifest and the tables and figures beside it."""
    found: list[Path] = []
    for folder in folders:
        found.append(folder / "manifest.json")
        if folder.is_dir():
            found += [p for p in folder.rglob("*") if p.suffix.lower() in (".json", ".csv", ".svg", ".png")]
    return found


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
    options = {"epsilon": epsilon, "delta": delta, "rho": rho, "mu": mu, "mechanism": mechanism, "scale": scale,
               "sigma": sigma, "sensitivity": sensitivity, "compose": compose, "renyi": renyi,
               "categories": categories, "dpsgd": dpsgd, "releases": releases, "opacus_history": opacus_history,
               "sample_rate": sample_rate, "sampling": sampling, "group": group}  # fmt: skip
    # A pure ε (δ = 0 included) keeps the page of Mehner et al. with its slider; anything else is told from its curve.
    if delta or any(v is not None for k, v in options.items() if k not in ("epsilon", "delta")):
        _explain_guarantee(options, n, compare, lang, out_path, as_json)
        return
    if epsilon is None:
        A.guarantee_from_options()  # the one-line error that names every way to give a guarantee
    eps = parse_epsilon(epsilon or "", name="--epsilon")
    others = parse_epsilons(compare, name="--compare") if compare is not None else []
    from privrisk.reports.explain import explainer_document, explainer_page  # numpy: not for --help

    doc = explainer_document(eps, n=n, compare=others, lang=lang)
    if out_path is None and not as_json:
        raise PrivriskError("--out: give the HTML file to write (or --json for the numbers only)")
    if out_path is not None:
        target = _html_target(out_path)
        write_text(target, explainer_page(eps, n=n, compare=others, lang=lang))
    if as_json:
        emit_json({**doc, "out": str(out_path) if out_path is not None else None})
        return
    out.print(doc["paragraph"])
    err.print(
        f"Wrote {out_path} ({'German' if doc['lang'] == 'de' else 'English'}; opens offline in any browser)."
    )


def _explain_guarantee(
    options: dict[str, Any],
    n: int | None,
    compare: str | None,
    lang: str,
    out_path: Path | None,
    as_json: bool,
) -> None:
    """The page for any guarantee other than a pure ε (from its trade-off curve)."""
    if compare is not None:
        raise PrivriskError("--compare: other ε values go beside a pure ε only (give --epsilon alone)")
    from privrisk.reports.explain import guarantee_document, guarantee_name, guarantee_page

    g = A.guarantee_from_options(**options)
    eps = parse_epsilon(options["epsilon"], name="--epsilon") if options["epsilon"] is not None else None
    named = ("epsilon", "delta", "rho", "mu", "mechanism", "scale", "sigma", "sensitivity", "compose", "categories",
             "renyi", "dpsgd")  # fmt: skip
    name = guarantee_name(**{**{k: options[k] for k in named}, "epsilon": eps}, lang=lang)
    doc = guarantee_document(g, n=n, lang=lang, name=name)
    if out_path is None and not as_json:
        raise PrivriskError("--out: give the HTML file to write (or --json for the numbers only)")
    if out_path is not None:
        write_text(_html_target(out_path), guarantee_page(g, n=n, lang=lang, name=name))
    if as_json:
        emit_json({**doc, "out": str(out_path) if out_path is not None else None})
        return
    out.print(doc["paragraph"])
    err.print(
        f"Wrote {out_path} ({'German' if doc['lang'] == 'de' else 'English'}; opens offline in any browser)."
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
    from privrisk.reports.html import report_page

    target = _html_target(out_path, inputs=_folder_inputs(folders))
    page, info = report_page(
        [str(f) for f in folders], title=title, max_rows=max_rows, include_internal=include_internal
    )
    write_text(target, page)
    if as_json:
        emit_json({"out": str(target), **info})
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
