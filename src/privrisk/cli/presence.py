"""``privrisk presence``: δ-presence, k-anonymity and k-map against a population; the least generalisation."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from privrisk._validation import check_choice
from privrisk.cli._app import app
from privrisk.cli._common import (
    LOSS_MEASURES,
    PARAM_OPTIONS,
    SPARK_ROLLUP_CLASSES,
    emit_json,
    err,
    out,
)
from privrisk.cli._presence_tables import SHOWN
from privrisk.cli._presence_tables import class_table as _class_table
from privrisk.cli._presence_tables import measures_table as _measures_table
from privrisk.cli._presence_tables import summary_table as _summary_table
from privrisk.cli._progress import steps
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.presence import kmap as _kmap
    from privrisk.presence.measures import PresenceResult
    from privrisk.presence.report import PresenceReport
    from privrisk.presence.search import SearchResult


# Library parameters whose option has another name (the rest are "--" + the name with dashes); the thresholds' options.
PARAM_OPTIONS["presence"] = {"hierarchies": "--hierarchy", "model": "--estimator", "max_nodes": "--search"}
TARGET_OPTIONS = {"delta_max": "--delta-max", "delta_min": "--delta-min", "k": "--k", "kmap": "--kmap"}


def _levels(text: str | None) -> dict[str, int] | None:
    levels: dict[str, int] = {}
    for part in (p.strip() for p in (text or "").split(",") if p.strip()):
        name, eq, value = part.partition("=")
        try:
            levels[name.strip()] = int(value if eq else "?")
        except ValueError:
            raise PrivriskError(
                f"--levels: expected COLUMN=LEVEL pairs such as age=1,zip=2, got {part!r}"
            ) from None
    return levels or None


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
    search: bool = typer.Option(False, "--search", help="Propose the least generalisation meeting the targets; it is applied only to the release --out writes, so without --out a violated target still exits 1."),
    suppression: float = typer.Option(
        0.0, "--suppression", help="Share of research records in failing classes that may be removed (0.02)."
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
    from privrisk.io.engine import check_engine
    from privrisk.presence import kmap as _kmap
    from privrisk.presence.hierarchy import parse_hierarchies
    from privrisk.presence.measures import delta_presence
    from privrisk.presence.prepare import InconsistentSubsetError, Source, prepare_presence
    from privrisk.presence.report import PresenceReport
    from privrisk.presence.search import search_generalisation

    if out_dir is not None:
        check_outputs(out_dir, [data, population], param="--out", folder=True, files=OUT_FILES)
    hier = parse_hierarchies(hierarchy)
    engine = check_engine(engine)
    if spark_master is not None and engine != "spark":
        raise PrivriskError("--spark-master: only with --engine spark")
    data_src: Source
    pop_src: Source | None
    if demo:
        from privrisk.datasets.tv16 import demo_inputs

        if data is not None or population is not None:
            raise PrivriskError("--demo: runs on its own data; leave out DATA and --population")
        data_src, pop_src, qi_names, demo_hier, demo_targets = demo_inputs()
        hier = {**demo_hier, **hier}
        delta_max = demo_targets["delta_max"] if delta_max is None else delta_max
        kmap = demo_targets["kmap"] if kmap is None else kmap
        suppression = suppression or demo_targets["suppression"]
        search = True
        title_src = "stevedata/TV16: born-again respondents (T) among all respondents (P)"
    else:
        if data is None:
            raise PrivriskError("DATA: give the research subset's file (or --demo)")
        qi_names = [c.strip() for c in (qi or "").split(",") if c.strip()]
        if not qi_names:
            raise PrivriskError("--qi: name the quasi-identifier columns, e.g. --qi zip,age,sex")
        data_src, pop_src = data, population
        title_src = f"{data} against {population}"
    if pop_src is None:
        if population_size is None and sampling_fraction is None:
            raise PrivriskError("--population: give the population table, or --population-size for estimates")
        model = check_choice(estimator, _kmap.KMAP_MODELS, name="model")
        estimate = _kmap.estimate(data_src, qi_names, kmap=kmap, population_size=population_size,
                                  sampling_fraction=sampling_fraction, model=model, alpha=alpha, hierarchies=hier,
                                  levels=_levels(levels), engine=engine, spark_master=spark_master)  # fmt: skip
        return _estimated(estimate, out_dir, as_json)
    if population_size is not None or sampling_fraction is not None:
        raise PrivriskError("--population-size: only without --population (the table gives the sizes)")
    if suppression and not search:
        raise PrivriskError("--suppression: only with --search")
    if search and delta_max is None and delta_min is None and k is None and kmap is None:
        raise PrivriskError("--search: give at least one target (--delta-max, --delta-min, --k or --kmap)")
    with steps(quiet=as_json) as show:
        show("Reading and grouping both tables")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", PrivacyLeakWarning)
            try:
                prep = prepare_presence(data_src, pop_src, qi_names, hierarchies=hier,
                                        population_count=population_count, allow_inconsistent=allow_inconsistent,
                                        engine=engine, spark_master=spark_master,
                                        spark_rollup_classes=spark_rollup_classes)  # fmt: skip
            except InconsistentSubsetError as exc:
                raise PrivriskError(exc.detail + " (use --allow-inconsistent to continue)") from None
        show("Measuring δ, k and k-map")
        before = delta_presence(
            prep, levels=_levels(levels), delta_max=delta_max, delta_min=delta_min, k=k, kmap=kmap
        )
        found: SearchResult | None = None
        if search:
            advance = show("Searching the lattice (nodes evaluated)", total=prep.lattice_size)
            found = search_generalisation(prep, delta_max=delta_max, delta_min=delta_min, k=k, kmap=kmap,
                                          suppression=suppression, loss=check_choice(loss, LOSS_MEASURES, name="loss"),
                                          progress=advance)  # fmt: skip
        report = PresenceReport(before, found)
        if out_dir is not None:
            show("Writing the tables, the release and the figure")
            written = report.write_outputs(out_dir, data_src, title=title_src)
    for w in caught:
        err.print(f"warning: {w.message}")
    if out_dir is not None:
        err.print(f"Wrote {out_dir}/ ({', '.join(written)}, manifest.json)")
    if as_json:
        emit_json(report.to_dict(TARGET_OPTIONS))
    else:
        _print(before, found, applied=out_dir is not None)
    if why := _failure(report, applied=out_dir is not None):
        raise ThresholdExceeded(why, param=_violated_param(report))


def _violated_param(report: PresenceReport) -> str | None:
    """The target the measured generalisation misses first (``delta_max``, ``delta_min``, ``k``, ``kmap``), if any."""
    return next((v.param for v in report.measured.violations), None)


def _levels_text(levels: dict[str, int]) -> str:
    return ",".join(f"{k}={v}" for k, v in levels.items())


def _failure(report: PresenceReport, *, applied: bool) -> str | None:
    """Why the run misses its targets, in one line, or None when what it leaves behind meets them.

    --search proposes a generalisation; it is applied only to the release that --out writes (release.csv). So a
    measured table that violates a target fails (exit 1) unless --out wrote the proposed node's release; the
    message names the node that meets the targets, as --levels to check it with.
    """
    if report.search is None or report.search.best is None:
        return report.failure(TARGET_OPTIONS)
    violated = report.violations(TARGET_OPTIONS)
    if not violated or applied:
        return None
    node = _levels_text(report.search.best.levels)
    return (
        f"{'; '.join(violated)} at the measured generalisation; --search proposes --levels {node}, which meets the "
        "targets, and applies it only to the release --out writes"
    )


def _print(before: PresenceResult, found: SearchResult | None, *, applied: bool) -> None:
    out.print(_summary_table(before.summary, "Measured at"))
    out.print(_class_table(before, f"Classes of highest δ ({len(before.classes):,} in all)"))
    for v in before.violations:
        err.print(f"violated: {v.text(TARGET_OPTIONS)}")
    if found is None:
        return
    out.print(f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
              f"{len(found.minimal):,} minimal node(s) meet the targets.")  # fmt: skip
    if len(found.minimal):
        table = Table(title="Minimal generalisations", caption="one row per minimal node: the level of each "
                      "quasi-identifier, then what it reaches and its information loss.")  # fmt: skip
        cols = [c for c in found.minimal.columns if c.startswith("level_")]
        for c in cols:
            table.add_column(c.removeprefix("level_"), justify="right")
        for c in ("δ_max", "k", "k-map", "suppressed", f"loss ({found.loss})"):
            table.add_column(c, justify="right")
        for row in found.minimal.head(SHOWN).to_dict(orient="records"):
            table.add_row(*(str(row[c]) for c in cols), f"{row['delta_max']:.3f}", str(row["k_anonymity"]),
                          str(row["k_map"]), str(row["suppressed"]), f"{row['loss_' + found.loss]:.4g}")  # fmt: skip
        out.print(table)
    if found.best is not None:
        out.print(_summary_table(found.best.summary, "Chosen:"))
        out.print(_class_table(found.best, "Classes of highest δ after the search"))
        err.print(f"meets the targets: --levels {_levels_text(found.best.levels)} (the least information loss of "
                  f"the minimal nodes){'; applied to release.csv' if applied else '; proposed only: without --out nothing is generalised'}")  # fmt: skip


def _estimated(e: _kmap.KMapEstimate, out_dir: Path | None, as_json: bool) -> None:
    from privrisk.presence import kmap as _kmap

    if out_dir is not None:
        e.write_outputs(out_dir)
    if as_json:
        emit_json(e.to_dict())
    else:
        uniq = e.population_uniqueness
        out.print(_measures_table([
            ("sampling fraction f", f"{e.sampling_fraction:.4g}"), ("significance α", f"{e.alpha:g}"),
            ("derived k′ (sample classes must hold ≥ k′)", str(e.derived_k)), ("type I error", f"{e.type1_error:.4f}"),
            ("k-anonymity of the sample", str(e.k_anonymity)), ("records in classes below k′", f"{e.records_at_risk:,}"),
            ("sample uniques", f"{uniq['sample_uniques']:,}"),
            (f"share of them population-unique ({uniq['dankar_model']}, Dankar's rule)",
             f"{uniq['share_of_sample_uniques']:.3f}"),
        ], f"Estimated {e.kmap}-map (an estimate, {e.model} model; no population table)"))  # fmt: skip
        err.print("Assumptions: " + _kmap.KMAP_ASSUMPTIONS + ".")
    if why := e.failure():
        raise ThresholdExceeded(why, param="kmap")


__all__ = ["presence_command"]
