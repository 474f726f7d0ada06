"""``privrisk empirical``: how private a statistic published period after period already is (004)."""

from __future__ import annotations

import warnings
from pathlib import Path

import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out, parse_epsilons, progress
from privrisk.errors import PrivacyLeakWarning, PrivriskError
from privrisk.io.engine import check_engine

PRESETS = ("chicago",)


def _k(text: str | None) -> int | None:
    if text is None or text.strip().lower() == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        raise PrivriskError(f"--k: give a whole number or 'auto', got {text!r}") from None


def _fmt(x: float) -> str:
    return "0" if x == 0 else f"{x:.4g}"


@app.command("empirical")
def empirical_command(
    file: str = typer.Argument(
        ...,
        help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file, one row per record (Spark: also a folder or URI).",
    ),
    period: str | None = typer.Option(None, "--period", help="Column whose values are the databases."),
    individual: str | None = typer.Option(None, "--individual", help="Column identifying individuals."),
    query: str | None = typer.Option(None, "--query", "-q", help="count, sum, mean or rate."),
    value: str | None = typer.Option(None, "--value", help="Column summed (sum, mean, rate numerator)."),
    weight: str | None = typer.Option(None, "--weight", help="Rate denominator column (default 1 per row)."),
    period_unit: str | None = typer.Option(
        None, "--period-unit", help="When --period is a date: day, week, month, quarter or year."
    ),
    epsilons: str = typer.Option("0.03,0.1,0.3", "--epsilons", "-e", help="ε values, comma-separated."),
    density: str = typer.Option(
        "kde-box", "--density", help="kde-box (the paper's), kde-triangle, kde-gauss or ecdf."
    ),
    k: str | None = typer.Option(None, "--k", help="Points per local estimate (default auto = round(√t))."),
    preset: str | None = typer.Option(
        None, "--preset", help="chicago: the Chicago Food Inspections file, cleaned as 004 §5 does."
    ),
    aggregate: int = typer.Option(
        1, "--aggregate", help="Merge this many consecutive periods (autocorrelation)."
    ),
    window: int | None = typer.Option(
        None, "--window", help="Also report δ on rolling windows of W periods."
    ),
    step: int | None = typer.Option(None, "--step", help="Periods between window starts (default W/2)."),
    lags: int | None = typer.Option(
        None, "--lags", help="Lags of the Ljung–Box test (default min(10, t/5))."
    ),
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
    buckets: int = typer.Option(
        4, "--buckets", help="With --condition-on: quantile buckets of that knowledge."
    ),
    noise: str | None = typer.Option(None, "--noise", help="Measure the answers plus noise: laplace:SCALE."),
    draws: int = typer.Option(20, "--draws", help="Noise draws per database for --noise/--target-delta."),
    seed: int = typer.Option(0, "--seed", help="Seed of the noise draws."),
    target_delta: float | None = typer.Option(
        None, "--target-delta", help="Find the smallest Laplace scale that brings δ under this, per ε."
    ),
    top: int = typer.Option(10, "--top", help="How many of the riskiest individuals to list."),
    out_dir: Path | None = typer.Option(None, "--out", help="Folder for the tables, figures and manifest."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
    engine: str = typer.Option(
        "duckdb", "--engine", help="Where the aggregation and the δᵢ run: duckdb (this machine) or spark."
    ),
    spark_master: str | None = typer.Option(
        None, "--spark-master", help="Spark master URL (default local[*]; an active session is reused)."
    ),
    deltas_parquet: str | None = typer.Option(
        None, "--deltas-parquet", help="With --engine spark: Spark writes δᵢ per individual there as Parquet."
    ),
) -> None:
    """Empirical differential privacy of a statistic published once per period (Burchard and Daoud).

    The periods are the databases. For every individual the statistic is recomputed without their rows, and
    the densities of the answers with and without them are compared: δ(ε) is the largest δᵢ, and the total
    risk δ* = 1 − Π(1 − δᵢ) estimates the chance that someone's privacy is compromised by more than ε.
    US patent 11,593,360 claims this method; check it before commercial use.

    Example: privrisk empirical inspections.csv --preset chicago --epsilons 0.03,0.1,0.3
    """
    from privrisk.empirical import measure as E
    from privrisk.io.data import read_table

    eps = parse_epsilons(epsilons, name="--epsilons")
    kk = _k(k)
    scale = _noise(noise)
    if target_delta is not None and scale is not None:
        raise PrivriskError("--target-delta: finds the noise scale itself; leave out --noise")
    if top < 0:
        raise PrivriskError(f"--top: must be at least 0, got {top}")
    engine = check_engine(engine)
    if engine != "spark":
        for option, given in (("--spark-master", spark_master), ("--deltas-parquet", deltas_parquet)):
            if given is not None:
                raise PrivriskError(f"{option}: only with --engine spark")
    else:
        for option, given in (("--window", window), ("--target-delta", target_delta), ("--joint", joint),
                              ("--condition-on", condition_on)):  # fmt: skip
            if given is not None:
                raise PrivriskError(f"{option}: not available with --engine spark; use --engine duckdb")
    cleaning: dict[str, int] | None = None
    if preset is not None:
        if preset not in PRESETS:
            raise PrivriskError(f"--preset: unknown preset {preset!r}; choose one of {', '.join(PRESETS)}")
        frame = read_table(file)
        frame, cleaning = E.chicago_clean(frame)
        period, period_unit = period or "month", None if period is None else period_unit
        individual = individual or "License #"
        query = query or "rate"
        value = value or "failed"
    else:
        for option, given in (("--period", period), ("--individual", individual), ("--query", query)):
            if given is None:
                raise PrivriskError(f"{option}: required (or use --preset chicago)")
        if query not in E.EMPIRICAL_QUERIES:
            raise PrivriskError(
                f"--query: unknown query {query!r}; choose one of {', '.join(E.EMPIRICAL_QUERIES)}"
            )
        wanted = [c for c in dict.fromkeys([period, individual, value, weight]) if c is not None]
        # Spark reads the file itself (a folder of part files or a cluster URI as well).
        frame = file if engine == "spark" else read_table(file, wanted)
    options = dict(
        period=period,
        individual=individual,
        query=query,
        value=value,
        weight=weight,
        epsilons=eps,
        density=density,
        k=kk,
        period_unit=period_unit,
        aggregate=aggregate,
        lags=lags,
        joint=joint,
        condition_on=condition_on,
        buckets=buckets,
        noise=scale,
        draws=draws,
        seed=seed,
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        with progress("individuals", None) as advance:
            on = {"engine": engine, "spark_master": spark_master, "deltas_path": deltas_parquet}
            result = E.empirical_privacy(frame, progress=advance, **options, **on)
        windows = None
        if window is not None:
            windows = E.rolling_privacy(frame, window=window, step=step, **options)
        target = None
        if target_delta is not None:
            target = E.smallest_noise(frame, target_delta=target_delta, **options)
    for message in dict.fromkeys(
        str(w.message) for w in caught if issubclass(w.category, PrivacyLeakWarning)
    ):
        err.print(f"[yellow]warning:[/] {message}")
    ind = result.independence
    dependent = ind is not None and float(ind["p_value"].iloc[-1]) < 0.05
    rows = _records(result.summary, "worst_individual")
    doc = {
        "file": str(file),
        "preset": preset,
        "query": query,
        "periods": result.periods,
        "individuals": result.n_individuals,
        "k": result.k,
        "density": result.density,
        "rows": rows,
        "top": _records(result.top(top), "individual"),
        "footprints": result.footprints,
        "appearances": _appearances(result.individuals["periods"]),
        "dropped_periods": result.dropped_periods,
        "independence": None
        if ind is None
        else {
            "lags": int(ind["lag"].iloc[-1]),
            "statistic": float(ind["statistic"].iloc[-1]),
            "p_value": float(ind["p_value"].iloc[-1]),
            "autocorrelation": ind["autocorrelation"].tolist(),
            "significant": dependent,
        },
        "error_bound": result.error_bound if density == "kde-gauss" else None,
        "cleaning": cleaning,
        "engine": engine,
    }
    if windows is not None:
        doc["windows"] = _records(windows, "first", "last", "worst_individual")
    if joint is not None:
        doc["joint"] = joint
    if result.conditional is not None:
        doc["condition_on"] = condition_on
        doc["conditional"] = result.conditional.to_dict(orient="records")
    if scale is not None:
        doc["noise"] = {"distribution": "laplace", "scale": scale, "draws": draws, "seed": seed}
    if target is not None:
        doc["target_delta"] = target_delta
        doc["smallest_noise"] = target.to_dict(orient="records")
    if out_dir is not None:
        doc["out"] = str(out_dir)
        _write(out_dir, result, windows, doc, options, file)
    if as_json:
        emit_json(doc)
    else:
        _print(result, windows, doc, cleaning, top)
        _print_extras(result, target)
    if dependent:
        err.print(
            f"[yellow]warning:[/] the answers are autocorrelated (Ljung–Box p = {doc['independence']['p_value']:.3g}):"
            " the periods are not independent draws, so δ may be understated; merge periods with"
            f" --aggregate {max(2, 2 * aggregate)}"
        )


def _plain(value):
    """A period or individual label as plain JSON: dates as ISO dates, numpy scalars as numbers, else text."""
    import datetime as dt

    import numpy as np
    import pandas as pd

    if isinstance(value, pd.Timestamp | dt.datetime):
        ts = pd.Timestamp(value)
        return ts.date().isoformat() if ts == ts.normalize() else ts.isoformat()
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, bool | int | float | str):
        return value
    return str(value)


def _records(frame, *columns: str) -> list[dict]:
    records = frame.to_dict(orient="records")
    for rec in records:
        for c in columns:
            rec[c] = _plain(rec[c])
    return records


def _appearances(periods) -> dict:
    """How many periods the individuals appear in (004 §2: they should be representative)."""
    return {
        "min": int(periods.min()),
        "median": float(periods.median()),
        "max": int(periods.max()),
        "in_one_period": int((periods == 1).sum()),
    }


def _noise(text: str | None) -> float | None:
    if text is None:
        return None
    kind, _, number = str(text).partition(":")
    if kind.strip().lower() != "laplace" or not number:
        raise PrivriskError(f"--noise: write laplace:SCALE, got {text!r}")
    try:
        value = float(number)
    except ValueError:
        raise PrivriskError(f"--noise: {number!r} is not a number") from None
    if not value >= 0 or value == float("inf"):
        raise PrivriskError(f"--noise: the scale must be a finite number ≥ 0, got {number}")
    return value


def _print_extras(result, target) -> None:
    if result.conditional is not None:
        table = Table(title="δ within buckets of the adversary's knowledge (004 Definition 4)")
        cols = [c for c in result.conditional.columns if c.startswith("delta_")]
        for name in ("bucket", "from", "to", "periods", *(f"δ at ε = {c[6:]}" for c in cols)):
            table.add_column(name, justify="right")
        for rec in result.conditional.to_dict(orient="records"):
            table.add_row(
                str(rec["bucket"]),
                f"{rec['low']:.4g}",
                f"{rec['high']:.4g}",
                str(rec["periods"]),
                *(_fmt(rec[c]) for c in cols),
            )
        out.print(table)
    if target is not None:
        table = Table(title="Smallest Laplace scale for the target δ")
        for name in ("ε", "δ without noise", "scale", "δ with it"):
            table.add_column(name, justify="right")
        for rec in target.to_dict(orient="records"):
            scale = "not found" if rec["scale"] != rec["scale"] else f"{rec['scale']:.4g}"
            table.add_row(
                f"{rec['epsilon']:.4g}", _fmt(rec["delta_without_noise"]), scale, _fmt(rec["delta"])
            )
        out.print(table)


def _print(result, windows, doc, cleaning, top: int) -> None:
    if cleaning:
        err.print(
            "Cleaning (004 §5): dropped " + ", ".join(f"{n:,} {why}" for why, n in cleaning.items()) + "."
        )
    err.print(
        f"{result.periods} periods, {result.n_individuals:,} individuals "
        f"({result.footprints:,} distinct footprints), {result.density}, k = {result.k}."
    )
    if doc["error_bound"] is not None:
        err.print(
            "kde-gauss: the densities are interpolated on a grid; each δ is within "
            + ", ".join(
                f"±{b:.2g} (ε = {e:g})" for b, e in zip(doc["error_bound"], result.epsilons, strict=True)
            )
            + " of its exact value."
        )
    if result.dropped_periods:
        err.print(
            f"--aggregate: the last {result.dropped_periods} period(s) do not fill a group and were left out."
        )
    a = doc["appearances"]
    err.print(
        f"Individuals appear in {a['min']}–{a['max']} periods (median {a['median']:g}); "
        f"{a['in_one_period']:,} in one period only."
    )
    table = Table(title=f"Empirical privacy of the {result.query} (004 §5)")
    table.add_column("ε", justify="right")
    table.add_column("δ", justify="right")
    table.add_column("δ* (total risk)", justify="right")
    table.add_column("riskiest individual")
    for row in doc["rows"]:
        table.add_row(
            f"{row['epsilon']:.4g}", _fmt(row["delta"]), _fmt(row["total_risk"]), str(row["worst_individual"])
        )
    out.print(table)
    if top:
        riskiest = Table(title=f"The {min(top, result.n_individuals)} riskiest individuals")
        riskiest.add_column("individual")
        riskiest.add_column("periods", justify="right")
        cols = [c for c in result.individuals.columns if c.startswith("delta_")]
        for c in cols:
            riskiest.add_column(f"δᵢ at ε = {c[6:]}", justify="right")
        for rec in result.top(top).to_dict(orient="records"):
            riskiest.add_row(str(rec["individual"]), str(rec["periods"]), *(_fmt(rec[c]) for c in cols))
        out.print(riskiest)
    if windows is not None:
        wt = Table(title="δ on rolling windows")
        for name in ("first", "last", "ε", "δ", "δ*"):
            wt.add_column(name)
        for rec in doc["windows"]:
            wt.add_row(
                str(rec["first"]),
                str(rec["last"]),
                f"{rec['epsilon']:.4g}",
                _fmt(rec["delta"]),
                _fmt(rec["total_risk"]),
            )
        out.print(wt)
    for row in doc["rows"]:
        if row["total_risk"] >= 0.5:
            out.print(
                f"At ε = {row['epsilon']:.4g} the total risk is {row['total_risk']:.2f}: it is more likely than not that "
                "someone's privacy is compromised by more than ε, although δ itself is small."
            )
            break


def _write(folder: Path, result, windows, doc, options, file) -> None:
    from privrisk.io.files import atomic_dir
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots.empirical import density_figure, window_figure

    with atomic_dir(folder) as tmp:
        result.individuals.to_parquet(tmp / "individuals.parquet", index=False)
        result.summary.to_csv(tmp / "privacy.csv", index=False)
        result.top(10).to_csv(tmp / "riskiest.csv", index=False)
        result.series.rename("answer").to_frame().to_csv(tmp / "series.csv")
        tables = [
            {"title": "Empirical (ε, δ) and total risk δ*", "path": "privacy.csv"},
            {"title": "The ten riskiest individuals", "path": "riskiest.csv"},
            {"title": "The published statistic per period", "path": "series.csv"},
        ]
        if result.independence is not None:
            result.independence.to_csv(tmp / "independence.csv", index=False)
            tables.append({"title": "Autocorrelation and Ljung–Box test", "path": "independence.csv"})
        figures = [
            density_figure(
                result.series.to_numpy(),
                result.without_worst,
                density=result.density,
                k=min(result.k, result.periods - 1),
                who=f"{result.worst} (largest δᵢ at ε = {result.figure_epsilon:g})",
                label=result.query,
                folder=tmp,
            )
        ]
        if windows is not None:
            windows.to_csv(tmp / "windows.csv", index=False)
            tables.append({"title": "δ on rolling windows", "path": "windows.csv"})
            figures.append(window_figure(windows, folder=tmp))
        findings = [
            f"At ε = {r['epsilon']:.4g}: δ = {_fmt(r['delta'])}, total risk δ* = {_fmt(r['total_risk'])}"
            f" (riskiest individual: {r['worst_individual']})."
            for r in doc["rows"]
        ]
        if doc["independence"] is not None and doc["independence"]["significant"]:
            findings.append(
                f"The answers are autocorrelated (Ljung–Box p = {doc['independence']['p_value']:.3g}); δ may be "
                "understated."
            )
        write_manifest(
            tmp,
            kind="empirical",
            title=f"Empirical differential privacy of the {result.query} in {Path(file).name}",
            parameters={
                **{k: v for k, v in options.items() if k != "epsilons"},
                "epsilons": result.epsilons,
                "file": str(file),
                "preset": doc["preset"],
            },
            summary={
                "periods": result.periods,
                "individuals": result.n_individuals,
                "k": result.k,
                "density": result.density,
                "rows": doc["rows"],
            },
            findings=findings,
            tables=tables,
            figures=figures,
        )
