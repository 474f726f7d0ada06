"""``privrisk presence``: δ-presence, k-anonymity and k-map against a population; the least generalisation."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from privrisk.cli._app import app
from privrisk.cli._bars import bars
from privrisk.cli._common import (
    LOSS_MEASURES,
    SPARK_ROLLUP_CLASSES,
    emit_json,
    err,
    out,
)
from privrisk.cli._options import JSON_OPTION, check_out_folder, out_option
from privrisk.cli._presence_tables import class_table as _class_table
from privrisk.cli._presence_tables import levels_text
from privrisk.cli._presence_tables import measures_table as _measures_table
from privrisk.cli._presence_tables import minimal_table as _minimal_table
from privrisk.cli._presence_tables import summary_table as _summary_table
from privrisk.cli._progress import steps
from privrisk.errors import PrivacyLeakWarning, ThresholdExceeded

if TYPE_CHECKING:
    from privrisk.presence.estimate import KMapEstimate
    from privrisk.presence.report import PresenceReport


# The command's options, keyed by the settings' fields (PresenceSettings), each its flags and its help; the
# parameters of presence_command are named like the fields, so that the options map onto the settings by name.
OPTIONS: dict[str, tuple[tuple[str, ...], str]] = {
    "population": (("--population", "-p"), "The population P the attacker sees."),
    "qi": (("--qi",), "Quasi-identifier columns, comma-separated."),
    "population_count": (
        ("--population-count",),
        "P's column of counts per class (P given as aggregates, may be coarser).",
    ),
    "hierarchies": (
        ("--hierarchy", "-H"),
        "COLUMN=SPEC, repeatable: interval:WIDTH or interval:WIDTH:START, breaks:0,18,30,inf (nested sets joined "
        "by /), prefix, date, table:FILE.csv.",
    ),
    "levels": (("--levels",), "Measure this generalisation: age=1,zip=2."),
    "delta_max": (("--delta-max",), "Largest δ allowed (exit 1 if exceeded)."),
    "delta_min": (("--delta-min",), "Smallest δ allowed, over all P's classes."),
    "k": (("--k",), "k-anonymity: smallest research class allowed."),
    "kmap": (("--kmap",), "k-map: smallest population class allowed."),
    "search": (
        ("--search",),
        "Propose the least generalisation meeting the targets; it is applied only to the release --out writes, so "
        "without --out a violated target still exits 1.",
    ),
    "suppression": (
        ("--suppression",),
        "Share of research records in failing classes that may be removed, e.g. 0.02 for 2 %.",
    ),
    "loss": (("--loss",), f"Information loss to minimise: {', '.join(LOSS_MEASURES)}."),
    "allow_inconsistent": (("--allow-inconsistent",), "Warn instead of failing when T is not part of P."),
    "population_size": (
        ("--population-size",),
        "Without --population: P's size N, for estimated k-map (El Emam and Dankar 2008).",
    ),
    "sampling_fraction": (
        ("--sampling-fraction",),
        "Without --population: f = n/N instead of --population-size.",
    ),
    "model": (("--estimator",), "poisson or zero-truncated-poisson."),
    "alpha": (("--alpha",), "Significance level of the k-map estimate."),
    "demo": (("--demo",), "Run on stevedata/TV16 (born-again respondents)."),
    "engine": (
        ("--engine",),
        "Where the grouping pass over the rows runs: duckdb (embedded) or spark.",
    ),
    "spark_master": (
        ("--spark-master",),
        "Spark master URL (default local[*]; an active session is reused).",
    ),
    "spark_rollup_classes": (
        ("--spark-rollup-classes",),
        "With --engine spark: roll the lattice up in Spark above this many finest classes.",
    ),
}
# The thresholds' options, and the proposal of a search that the measured table misses, in the command's words.
TARGET_OPTIONS = {name: OPTIONS[name][0][0] for name in ("delta_max", "delta_min", "k", "kmap")}
FAILURE_NAMES = {**TARGET_OPTIONS, "search": "--search", "levels": "--levels", "out": "--out writes"}

# What --out DIR receives (check_out_folder refuses an input among them).
OUT_FILES = ("*.csv", "manifest.json", "figures/*")


def _option(field: str) -> Any:
    flags, text = OPTIONS[field]
    return typer.Option(*flags, help=text)


@app.command("presence")
def presence_command(
    data: str | None = typer.Argument(
        None, help="The research subset T: CSV, Parquet, Stata or SPSS file (Spark: also a folder or URI)."
    ),
    population: Annotated[str | None, _option("population")] = None,
    qi: Annotated[str | None, _option("qi")] = None,
    population_count: Annotated[str | None, _option("population_count")] = None,
    hierarchies: Annotated[list[str] | None, _option("hierarchies")] = None,
    levels: Annotated[str | None, _option("levels")] = None,
    delta_max: Annotated[float | None, _option("delta_max")] = None,
    delta_min: Annotated[float | None, _option("delta_min")] = None,
    k: Annotated[int | None, _option("k")] = None,
    kmap: Annotated[int | None, _option("kmap")] = None,
    search: Annotated[bool, _option("search")] = False,
    suppression: Annotated[float, _option("suppression")] = 0.0,
    loss: Annotated[str, _option("loss")] = "precision",
    allow_inconsistent: Annotated[bool, _option("allow_inconsistent")] = False,
    population_size: Annotated[float | None, _option("population_size")] = None,
    sampling_fraction: Annotated[float | None, _option("sampling_fraction")] = None,
    model: Annotated[str, _option("model")] = "poisson",
    alpha: Annotated[float, _option("alpha")] = 0.05,
    demo: Annotated[bool, _option("demo")] = False,
    out_dir: Path | None = out_option("Write classes.csv, release.csv, … and manifest.json."),
    as_json: bool = JSON_OPTION,
    engine: Annotated[str, _option("engine")] = "duckdb",
    spark_master: Annotated[str | None, _option("spark_master")] = None,
    spark_rollup_classes: Annotated[int, _option("spark_rollup_classes")] = SPARK_ROLLUP_CLASSES,
) -> None:
    """δ-presence, k-anonymity and k-map of a research subset against a population; with --search the least
    generalisation that meets the targets. --engine spark groups the rows in Apache Spark (same results).

    Example: privrisk presence examples/presence_trial.csv --population examples/presence_census.csv --population-count n --qi zip,age -H age=interval:10 --delta-max 0.5 --search --out presence
    """
    from privrisk.presence.prepare import InconsistentSubsetError
    from privrisk.presence.run import PresenceSettings, run_presence

    given = locals()  # the options by the settings' field names (the settings read and check them)
    check_out_folder(out_dir, [data, population], OUT_FILES)
    title = f"{data} against {population}" if population is not None else None
    settings = PresenceSettings(data=data, title=title, **{name: given[name] for name in OPTIONS})
    if settings.engine == "spark":
        from privrisk.io.engine import check_spark_source

        for source in (data, population):  # before Spark's start, which takes tens of seconds
            if source is not None:
                check_spark_source(source)
    with steps(quiet=as_json or settings.estimates) as show:
        try:
            run = run_presence(settings, progress=bars(show))
        except InconsistentSubsetError as exc:
            raise exc.hinted(" (use --allow-inconsistent to continue)") from None
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
