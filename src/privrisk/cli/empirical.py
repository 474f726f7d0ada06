"""``privrisk empirical``: how private a statistic published period after period already is (Burchard and Daoud 2022)."""

from __future__ import annotations

import warnings
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._bars import bars
from privrisk.cli._common import emit_json, err, out
from privrisk.cli._options import JSON_OPTION, check_out_folder, out_option
from privrisk.cli._progress import steps
from privrisk.errors import DependenceWarning, PrivacyLeakWarning

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.empirical import EmpiricalPrivacy
    from privrisk.empirical.run import EmpiricalRun


@app.command("empirical")
def empirical_command(
    file: str = typer.Argument(
        ...,
        help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file, one row per record (Spark: also a folder or URI).",
    ),
    period: str | None = typer.Option(None, help="Column whose values are the databases."),
    individual: str | None = typer.Option(None, help="Column identifying individuals."),
    query: str | None = typer.Option(None, "--query", "-q", help="count, sum, mean or rate."),
    value: str | None = typer.Option(None, help="Column summed (sum, mean, rate numerator)."),
    weight: str | None = typer.Option(None, help="Rate denominator column (default 1 per row)."),
    period_unit: str | None = typer.Option(
        None, help="When --period is a date: day, week, month, quarter or year."
    ),
    epsilons: str = typer.Option("0.03,0.1,0.3", "--epsilons", "-e", help="ε values, comma-separated."),
    density: str = typer.Option(
        "kde-box", help="kde-box (Burchard and Daoud's, §5), kde-triangle, kde-gauss or ecdf."
    ),
    k: str | None = typer.Option(None, help="Points per local estimate (default auto = round(√t))."),
    preset: str | None = typer.Option(
        None,
        "--preset",
        help="chicago: the Chicago Food Inspections file, cleaned as Burchard and Daoud §5 do.",
    ),
    aggregate: int = typer.Option(1, help="Merge this many consecutive periods (autocorrelation)."),
    window: int | None = typer.Option(None, help="Also report δ on rolling windows of W periods."),
    step: int | None = typer.Option(None, help="Periods between window starts (default W/2)."),
    lags: int | None = typer.Option(None, help="Lags of the Ljung–Box test (default min(10, t/5))."),
    joint: str | None = typer.Option(
        None,
        "--joint",
        help="A second query published beside the first, QUERY:VALUE/WEIGHT, e.g. count, mean:hours (2-D densities).",
    ),
    condition_on: str | None = typer.Option(
        None,
        "--condition-on",
        help="What the adversary knows per period: a column, or a query such as count or sum:COLUMN.",
    ),
    buckets: int = typer.Option(4, help="With --condition-on: quantile buckets of that knowledge."),
    noise: str | None = typer.Option(None, help="Measure the answers plus noise: laplace:SCALE."),
    draws: int = typer.Option(20, help="Noise draws per database for --noise/--target-delta."),
    seed: int = typer.Option(0, help="Seed of the noise draws."),
    target_delta: float | None = typer.Option(
        None, help="Find the smallest Laplace scale that brings δ under this, per ε."
    ),
    top: int = typer.Option(10, help="How many of the riskiest individuals to list."),
    out_dir: Path | None = out_option("Folder for the tables, figures and manifest."),
    as_json: bool = JSON_OPTION,
    engine: str = typer.Option(
        "duckdb", help="Where the aggregation and the δᵢ run: duckdb (this machine) or spark."
    ),
    spark_master: str | None = typer.Option(
        None, help="Spark master URL (default local[*]; an active session is reused)."
    ),
    deltas_parquet: str | None = typer.Option(
        None, help="With --engine spark: Spark writes δᵢ per individual there as Parquet."
    ),
) -> None:
    """Empirical differential privacy of a statistic published once per period (Burchard and Daoud, §2–5).

    The periods are the databases. For every individual the statistic is recomputed without their rows, and
    the densities of the answers with and without them are compared: δ(ε) is the largest δᵢ, and the total
    risk δ* = 1 − Π(1 − δᵢ) estimates the chance that someone's privacy is compromised by more than ε.
    US patent 11,593,360 claims this method; check it before commercial use.

    Example: privrisk empirical examples/shops.csv --period month --individual shop --query rate --value failed --weight inspected
    """
    from privrisk.empirical.run import EmpiricalSettings, run_empirical

    if engine.strip().lower() == "spark":
        from privrisk.io.engine import check_spark_source

        check_spark_source(file)  # before Spark's start, which takes tens of seconds
    check_out_folder(out_dir, [file], ("*.csv", "individuals.parquet", "manifest.json", "figures/*"))
    settings = EmpiricalSettings(data=file, preset=preset, period=period, individual=individual, query=query,
                                 value=value, weight=weight, period_unit=period_unit, epsilons=epsilons,
                                 density=density, k=k, aggregate=aggregate, window=window, step=step, lags=lags,
                                 joint=joint, condition_on=condition_on, buckets=buckets, noise=noise, draws=draws,
                                 seed=seed, target_delta=target_delta, top=top, engine=engine,
                                 spark_master=spark_master, deltas_path=deltas_parquet)  # fmt: skip
    with steps(quiet=as_json) as show:
        run = run_empirical(settings, progress=bars(show))
        _warn(run, PrivacyLeakWarning)
        if out_dir is not None:
            show("Writing the tables and figures")
            run.write(out_dir)
    doc = run.to_dict(out=out_dir)
    if as_json:
        emit_json(doc)
    else:
        _print(run.result, doc, run.cleaning, cast(int, settings.top))
        _print_extras(run.result, run.smallest_noise)
        out.print(run.verdict().sentence)
    _warn(run, DependenceWarning)


def _warn(run: EmpiricalRun, category: type[Warning]) -> None:
    """Show the library's warnings of one category here, in their place among the output, once each.

    They are warned again, so that :func:`privrisk.cli.main` shows them as it shows every warning, with the
    parameter they start with named as this command's option (:mod:`privrisk.cli._names`), as it names errors.
    """
    for message in run.warned(category):
        warnings.warn(message, category, stacklevel=2)


def _table(title: str, names: Sequence[str], rows: Iterable[Sequence[str]], right: Collection[int] = (),
           caption: str = "δ: the chance the answers expose someone by more than the factor e^ε.") -> None:  # fmt: skip
    """Print a Rich table with a caption that says what its columns mean; ``right`` columns right-justified."""
    table = Table(title=title, caption=caption)
    for j, name in enumerate(names):
        table.add_column(name, justify="right" if j in right else "left")
    for row in rows:
        table.add_row(*row)
    out.print(table)


def _print_extras(result: EmpiricalPrivacy, target: pd.DataFrame | None) -> None:
    from privrisk.empirical.report import short_number as _fmt

    if result.conditional is not None:
        cols = [c for c in result.conditional.columns if c.startswith("delta_")]
        names = ["bucket", "from", "to", "periods", *(f"δ at ε = {c[6:]}" for c in cols)]
        rows = [[str(r["bucket"]), f"{r['low']:.4g}", f"{r['high']:.4g}", str(r["periods"]), *(_fmt(r[c]) for c in cols)]
                for r in result.conditional.to_dict(orient="records")]  # fmt: skip
        _table("δ within buckets of the adversary's knowledge (Burchard and Daoud, Definition 4)", names, rows,
               range(len(names)), "bucket: what the adversary knows (from … to); δ: the largest δᵢ within it.")  # fmt: skip
    if target is not None:
        rows = [[f"{r['epsilon']:.4g}", _fmt(r["delta_without_noise"]),
                 "not found" if r["scale"] != r["scale"] else f"{r['scale']:.4g}", _fmt(r["delta"])]
                for r in target.to_dict(orient="records")]  # fmt: skip
        names = ["ε", "δ without noise", "scale", "δ with it"]
        _table("Smallest Laplace scale for the target δ", names, rows, range(4),
               "scale: the Laplace noise that brings δ to the target.")  # fmt: skip


def _print(result: EmpiricalPrivacy, doc: dict[str, Any], cleaning: dict[str, int] | None, top: int) -> None:
    from privrisk.empirical.report import short_number as _fmt

    if cleaning:
        err.print(
            "Cleaning (Burchard and Daoud, §5): dropped "
            + ", ".join(f"{n:,} {why}" for why, n in cleaning.items())
            + "."
        )
    err.print(f"{result.periods} periods, {result.n_individuals:,} individuals ({result.footprints:,} distinct "
              f"footprints), {result.density}, k = {result.k}.")  # fmt: skip
    if doc["error_bound"] is not None:
        bounds = ", ".join(
            f"±{b:.2g} (ε = {e:g})" for b, e in zip(doc["error_bound"], result.epsilons, strict=True)
        )
        err.print(
            f"kde-gauss: the densities are interpolated on a grid; each δ is within {bounds} of its exact value."
        )
    if result.dropped_periods:
        err.print(
            f"--aggregate: the last {result.dropped_periods} period(s) do not fill a group and were left out."
        )
    a = doc["appearances"]
    err.print(f"Individuals appear in {a['min']}–{a['max']} periods (median {a['median']:g}); "
              f"{a['in_one_period']:,} in one period only.")  # fmt: skip
    rows = [[f"{r['epsilon']:.4g}", _fmt(r["delta"]), _fmt(r["total_risk"]), str(r["worst_individual"])]
            for r in doc["rows"]]  # fmt: skip
    names = ["ε", "δ", "δ* (total risk)", "riskiest individual"]
    _table(f"Empirical privacy of the {result.query} (Burchard and Daoud, §5)", names, rows, range(3),
           "δ: the largest δᵢ over the individuals; δ*: the chance that someone is exposed by more than ε.")  # fmt: skip
    if top:
        cols = [c for c in result.individuals.columns if c.startswith("delta_")]
        names = ["individual", "periods", *(f"δᵢ at ε = {c[6:]}" for c in cols)]
        rows = [[str(r["individual"]), str(r["periods"]), *(_fmt(r[c]) for c in cols)]
                for r in result.top(top).to_dict(orient="records")]  # fmt: skip
        _table(f"The {min(top, result.n_individuals)} riskiest individuals", names, rows, range(1, len(names)),
               "periods: how many periods the individual appears in; δᵢ: how far the answers without them differ.")  # fmt: skip
    if "windows" in doc:
        rows = [[str(r["first"]), str(r["last"]), f"{r['epsilon']:.4g}", _fmt(r["delta"]), _fmt(r["total_risk"])]
                for r in doc["windows"]]  # fmt: skip
        _table("δ on rolling windows", ["first", "last", "ε", "δ", "δ*"], rows, (),
               "first, last: the window's periods; δ, δ*: as above, within it.")  # fmt: skip
