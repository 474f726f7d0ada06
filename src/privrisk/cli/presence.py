"""``privrisk presence``: δ-presence, k-anonymity and k-map against a population; the least generalisation."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from privrisk.cli._app import app
from privrisk.cli._common import (
    LOSS_MEASURES,
    SPARK_ROLLUP_CLASSES,
    emit_json,
    err,
    out,
)
from privrisk.cli._presence_tables import class_table as _class_table
from privrisk.cli._presence_tables import levels_text
from privrisk.cli._presence_tables import measures_table as _measures_table
from privrisk.cli._presence_tables import minimal_table as _minimal_table
from privrisk.cli._presence_tables import summary_table as _summary_table
from privrisk.cli._progress import steps
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.presence.estimate import KMapEstimate
    from privrisk.presence.report import PresenceReport


# The thresholds' options (the other parameters' options are in privrisk._params, as PARAM_OPTIONS).
TARGET_OPTIONS = {"delta_max": "--delta-max", "delta_min": "--delta-min", "k": "--k", "kmap": "--kmap"}
# The proposal of a search that the measured table misses, in the command's words.
FAILURE_NAMES = {**TARGET_OPTIONS, "search": "--search", "levels": "--levels", "out": "--out writes"}


# What --out DIR receives (io.files.check_outputs refuses an input among them).
OUT_FILES = ("*.csv", "manifest.json", "figures/*")


@app.command("presence")
def presence_command(
    data: str | None = typer.Argument(
        None, help="The research subset T: CSV, Parquet, Stata or SPSS file (Spark: also a folder or URI)."
    ),
    population: str | None = typer.Option(
        None, "--population", "-p", help="The population P the attacker sees."
    ),
    qi: str | None = typer.Option(None, "--qi", help="Quasi-identifier columns, comma-separated."),
    population_count: str | None = typer.Option(
        None,
        "--population-count",
        help="P's column of counts per class (P given as aggregates, may be coarser).",
    ),
    hierarchy: list[str] | None = typer.Option(
        None,
        "--hierarchy",
        "-H",
        help="COLUMN=SPEC, repeatable: interval:WIDTH or interval:WIDTH:START, breaks:0,18,30,inf (nested sets "
        "joined by /), prefix, date, table:FILE.csv.",
    ),
    levels: str | None = typer.Option(None, "--levels", help="Measure this generalisation: age=1,zip=2."),
    delta_max: float | None = typer.Option(
        None, "--delta-max", help="Largest δ allowed (exit 1 if exceeded)."
    ),
    delta_min: float | None = typer.Option(
        None, "--delta-min", help="Smallest δ allowed, over all P's classes."
    ),
    k: int | None = typer.Option(None, "--k", help="k-anonymity: smallest research class allowed."),
    kmap: int | None = typer.Option(None, "--kmap", help="k-map: smallest population class allowed."),
    search: bool = typer.Option(
        False,
        "--search",
        help="Propose the least generalisation meeting the targets; it is applied only to the release --out writes, so without --out a violated target still exits 1.",
    ),
    suppression: float = typer.Option(
        0.0,
        "--suppression",
        help="Share of research records in failing classes that may be removed, e.g. 0.02 for 2 %.",
    ),
    loss: str = typer.Option(
        "precision", "--loss", help=f"Information loss to minimise: {', '.join(LOSS_MEASURES)}."
    ),
    allow_inconsistent: bool = typer.Option(
        False, "--allow-inconsistent", help="Warn instead of failing when T is not part of P."
    ),
    population_size: float | None = typer.Option(
        None,
        "--population-size",
        help="Without --population: P's size N, for estimated k-map (El Emam and Dankar 2008).",
    ),
    sampling_fraction: float | None = typer.Option(
        None, "--sampling-fraction", help="Without --population: f = n/N instead of --population-size."
    ),
    estimator: str = typer.Option("poisson", "--estimator", help="poisson or zero-truncated-poisson."),
    alpha: float = typer.Option(0.05, "--alpha", help="Significance level of the k-map estimate."),
    demo: bool = typer.Option(False, "--demo", help="Run on stevedata/TV16 (born-again respondents)."),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Write classes.csv, release.csv, … and manifest.json."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
    engine: str = typer.Option(
        "duckdb", "--engine", help="Where the grouping pass over the rows runs: duckdb (embedded) or spark."
    ),
    spark_master: str | None = typer.Option(
        None, "--spark-master", help="Spark master URL (default local[*]; an active session is reused)."
    ),
    spark_rollup_classes: int = typer.Option(
        SPARK_ROLLUP_CLASSES,
        "--spark-rollup-classes",
        help="With --engine spark: roll the lattice up in Spark above this many finest classes.",
    ),
) -> None:
    """δ-presence, k-anonymity and k-map of a research subset against a population; with --search the least
    generalisation that meets the targets. --engine spark groups the rows in Apache Spark (same results).

    Example: privrisk presence examples/presence_trial.csv --population examples/presence_census.csv --population-count n --qi zip,age -H age=interval:10 --delta-max 0.5 --search --out presence
    """
    from privrisk.generalisation.hierarchy import parse_hierarchies
    from privrisk.presence.prepare import InconsistentSubsetError
    from privrisk.presence.run import PresenceSettings, parse_levels, run_presence

    if out_dir is not None:
        check_outputs(out_dir, [data, population], param="--out", folder=True, files=OUT_FILES)
    if data is None and not demo:
        raise PrivriskError("DATA: give the research subset's file (or --demo)")
    if engine.strip().lower() == "spark":
        from privrisk.io.engine import check_spark_source

        for source in (data, population):  # before Spark's start, which takes tens of seconds
            if source is not None:
                check_spark_source(source)
    settings = PresenceSettings(
        data=data,
        population=population,
        qi=[] if demo else (qi or ""),
        population_count=population_count,
        hierarchies=parse_hierarchies(hierarchy),
        levels=parse_levels(levels),
        delta_max=delta_max,
        delta_min=delta_min,
        k=k,
        kmap=kmap,
        search=search,
        suppression=suppression,
        loss=loss,  # type: ignore[arg-type]  # checked by the settings
        allow_inconsistent=allow_inconsistent,
        population_size=population_size,
        sampling_fraction=sampling_fraction,
        model=estimator,  # type: ignore[arg-type]  # checked by the settings
        alpha=alpha,
        demo=demo,
        engine=engine,
        spark_master=spark_master,
        spark_rollup_classes=spark_rollup_classes,
        title=f"{data} against {population}" if population is not None else None,
    )
    with steps(quiet=as_json or settings.estimates) as show:
        try:
            run = run_presence(settings, progress=show.progress("Measuring"))
        except InconsistentSubsetError as exc:
            raise PrivriskError(exc.detail + " (use --allow-inconsistent to continue)") from None
        if out_dir is not None:
            show("Writing the tables, the release and the figure")
            written = run.write(out_dir)
    for w in run.warnings:
        # Warned again so that privrisk.cli.main shows it as every warning: "privrisk: warning: …", option named.
        warnings.warn(w, PrivacyLeakWarning, stacklevel=2)
    if out_dir is not None and run.report is not None:
        err.print(f"Wrote {out_dir}/ ({', '.join(written)}, manifest.json)")
    if as_json:
        emit_json(run.to_dict(TARGET_OPTIONS))
    elif run.report is not None:
        _print(run.report, applied=out_dir is not None)
    else:
        assert run.estimate is not None
        _print_estimate(run.estimate)
    if why := run.failure(FAILURE_NAMES, applied=out_dir is not None):
        raise ThresholdExceeded(why, param=run.violated_param())


def _print(report: PresenceReport, *, applied: bool) -> None:
    before, found = report.measured, report.search
    out.print(_summary_table(before.summary, "Measured at"))
    out.print(_class_table(before, f"Classes of highest δ ({len(before.classes):,} in all)"))
    for v in before.violations:
        err.print(f"violated: {v.text(TARGET_OPTIONS)}")
    if found is None:
        return
    out.print(f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
              f"{len(found.minimal):,} minimal node(s) meet the targets.")  # fmt: skip
    if len(found.minimal):
        out.print(_minimal_table(found))
    if found.best is not None:
        out.print(_summary_table(found.best.summary, "Chosen:"))
        out.print(_class_table(found.best, "Classes of highest δ after the search"))
        err.print(f"meets the targets: --levels {levels_text(found.best.levels)} (the least information loss of "
                  f"the minimal nodes){'; applied to release.csv' if applied else '; proposed only: without --out nothing is generalised'}")  # fmt: skip


def _print_estimate(e: KMapEstimate) -> None:
    from privrisk.generalisation.kmap import KMAP_ASSUMPTIONS
    from privrisk.presence.report import estimate_rows

    title = f"Estimated {e.kmap}-map (an estimate, {e.model} model; no population table)"
    out.print(_measures_table(estimate_rows(e), title))
    err.print("Assumptions: " + KMAP_ASSUMPTIONS + ".")


__all__ = ["presence_command"]
