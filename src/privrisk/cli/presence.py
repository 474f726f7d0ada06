"""``privrisk presence``: δ-presence, k-anonymity and k-map against a population; the least generalisation."""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import typer
from rich.table import Table

from privrisk.cli._app import app
from privrisk.cli._common import PARAM_OPTIONS, emit_json, err, out, progress
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from privrisk.io import files as _io
from privrisk.io.engine import SPARK_ROLLUP_CLASSES, check_engine
from privrisk.presence.hierarchy import parse_hierarchy
from privrisk.presence.measures import PresenceResult, delta_presence
from privrisk.presence.prepare import InconsistentSubsetError, prepare_presence
from privrisk.presence.search import LOSS_MEASURES, SearchResult, release_table, search_generalisation
from privrisk.reports.manifest import write_manifest

SHOWN = 10

# Library parameters whose option has another name (the rest are "--" + the name with dashes).
PARAM_OPTIONS["presence"] = {"hierarchies": "--hierarchy", "model": "--estimator", "max_nodes": "--search"}
# How the violations name the thresholds.
TARGET_OPTIONS = {"delta_max": "--delta-max", "delta_min": "--delta-min", "k": "--k", "kmap": "--kmap"}


def _qi_list(text: str | None) -> list[str]:
    names = [c.strip() for c in (text or "").split(",") if c.strip()]
    if not names:
        raise PrivriskError("--qi: name the quasi-identifier columns, e.g. --qi zip,age,sex")
    return names


def _levels(text: str | None) -> dict[str, int] | None:
    if not text:
        return None
    levels = {}
    for part in (p.strip() for p in text.split(",") if p.strip()):
        name, eq, value = part.partition("=")
        try:
            if not eq:
                raise ValueError
            levels[name.strip()] = int(value)
        except ValueError:
            raise PrivriskError(
                f"--levels: expected COLUMN=LEVEL pairs such as age=1,zip=2, got {part!r}"
            ) from None
    return levels


def _hierarchies(specs: list[str] | None) -> dict[str, str]:
    out_: dict[str, str] = {}
    for text in specs or []:
        name, spec = parse_hierarchy(text)
        if name in out_:
            raise PrivriskError(f"--hierarchy: {name!r} is given twice")
        out_[name] = spec
    return out_


def _option_names(command: Callable[..., None]) -> Callable[..., None]:
    # Names a library parameter in an error as this command's option (kmap: → --kmap:) until privrisk.cli.main can:
    # typer vendors its own click, so main's isinstance(command, click.Group) fails. Harmless after that.
    decls = (
        getattr(p.default, "param_decls", None) or () for p in inspect.signature(command).parameters.values()
    )
    options = {d for group in decls for d in group}

    @functools.wraps(command)
    def run(*args: Any, **kwargs: Any) -> None:
        try:
            return command(*args, **kwargs)
        except PrivriskError as exc:
            param = exc.param or ""
            option = PARAM_OPTIONS["presence"].get(param, "--" + param.replace("_", "-"))
            if param and option in options and str(exc).startswith(param + ":"):
                raise PrivriskError(option + str(exc)[len(param) :]) from None
            raise

    return run


@app.command("presence")
@_option_names
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
    search: bool = typer.Option(False, "--search", help="Find the least generalisation meeting the targets."),
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
        help="Without --population: P's size N, for estimated k-map (El Emam–Dankar).",
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
    hier = _hierarchies(hierarchy)
    engine = check_engine(engine)
    if spark_master is not None and engine != "spark":
        raise PrivriskError("--spark-master: only with --engine spark")
    if spark_rollup_classes < 0:
        raise PrivriskError(f"--spark-rollup-classes: must be 0 or more, got {spark_rollup_classes}")
    on = {"engine": engine, "spark_master": spark_master}
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
        qi_names = _qi_list(qi)
        data_src, pop_src = data, population
        title_src = f"{data} against {population}"
    if pop_src is None:
        if population_size is None and sampling_fraction is None:
            raise PrivriskError("--population: give the population table, or --population-size for estimates")
        return _estimate(data_src, qi_names, hier, _levels(levels), kmap, k, population_size, sampling_fraction,
                         estimator, alpha, out_dir, as_json, on)  # fmt: skip
    if population_size is not None or sampling_fraction is not None:
        raise PrivriskError("--population-size: only without --population (the table gives the sizes)")
    if suppression and not search:
        raise PrivriskError("--suppression: only with --search")
    if search and delta_max is None and delta_min is None and k is None and kmap is None:
        raise PrivriskError("--search: give at least one target (--delta-max, --delta-min, --k or --kmap)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", PrivacyLeakWarning)
        try:
            prep = prepare_presence(data_src, pop_src, qi_names, hierarchies=hier, population_count=population_count,
                                    allow_inconsistent=allow_inconsistent, spark_rollup_classes=spark_rollup_classes,
                                    **on)  # fmt: skip
        except InconsistentSubsetError as exc:
            raise PrivriskError(exc.detail + " (use --allow-inconsistent to continue)") from None
    for w in caught:
        err.print(f"warning: {w.message}")
    targets = dict(delta_max=delta_max, delta_min=delta_min, k=k, kmap=kmap)
    before = delta_presence(prep, levels=_levels(levels), **targets)
    found: SearchResult | None = None
    if search:
        nodes = int(np.prod([h - b for h, b in zip(prep.enc.heights, prep.enc.base, strict=True)]))
        with progress("searching the lattice", nodes) as advance:
            found = search_generalisation(
                prep, suppression=suppression, loss=loss, progress=advance, **targets
            )
    doc = _document(prep, before, found, targets, suppression, loss, hier, title_src)
    if out_dir is not None:
        _write(out_dir, data_src, doc, before, found, title_src)
    if as_json:
        emit_json(doc)
    else:
        _print(before, found, doc)
    if found is not None:
        if found.best is None:
            raise ThresholdExceeded("no generalisation meets the targets (" + _targets_text(targets) + ")")
    elif before.violations:
        raise ThresholdExceeded("; ".join(v.text(TARGET_OPTIONS) for v in before.violations))


def _targets_text(t: dict) -> str:
    names = {"delta_max": "--delta-max", "delta_min": "--delta-min", "k": "--k", "kmap": "--kmap"}
    return ", ".join(f"{names[k]} {v:g}" for k, v in t.items() if v is not None) or "none"


def _classes_json(r: PresenceResult) -> list[dict]:
    return r.classes.head(200).to_dict(orient="records")


def _spec_text(spec) -> str:
    if spec is None:
        return "none (raw → *)"
    return spec if isinstance(spec, str) else f"mapping of {len(spec)} values"


def _document(prep, before, found, targets, suppression, loss, hier, title) -> dict:
    doc = {
        "dataset": prep.dataset_label,
        "population": prep.population_label,
        "qi": prep.qi,
        "hierarchies": {
            name: {
                "spec": _spec_text(hier.get(name)),
                "levels": prep.plans[j].hierarchy.height,
                "base_level": prep.enc.base[j],
                "kind": prep.plans[j].hierarchy.kind,
            }
            for j, name in enumerate(prep.qi)
        },
        "targets": {**targets, "suppression": suppression},
        "summary": before.summary,
        "violations": [v.text(TARGET_OPTIONS) for v in before.violations],
        "classes": _classes_json(before),
        "classes_total": len(before.classes),
        "notes": prep.notes,
        "engine": prep.engine,
    }
    if found is not None:
        doc["search"] = {
            "loss": loss,
            "lattice_nodes": len(found.nodes),
            "evaluated": found.evaluated,
            "tagging": "both ways (monotone)"
            if found.monotone
            else "failing k/k-map part only (suppression)",
            "minimal": found.minimal.to_dict(orient="records"),
            "best": None
            if found.best is None
            else {
                "levels": found.best.levels,
                "summary": found.best.summary,
                "classes": _classes_json(found.best),
            },
        }
    return doc


def _write(out_dir: Path, data_src, doc, before, found, title) -> None:
    tables = [{"title": "Classes at the measured generalisation", "path": "classes_measured.csv"}]
    findings = [_sentence(before.summary, "At the measured generalisation")]
    with _io.atomic_dir(out_dir) as tmp:
        before.classes.to_csv(tmp / "classes_measured.csv", index=False)
        summary = {"measured": before.summary}
        if found is not None:
            found.minimal.to_csv(tmp / "minimal_nodes.csv", index=False)
            found.nodes.to_csv(tmp / "lattice.csv", index=False)
            tables += [{"title": "Minimal generalisations meeting the targets", "path": "minimal_nodes.csv"},
                       {"title": "Every node of the lattice", "path": "lattice.csv"}]  # fmt: skip
            if found.best is not None:
                found.best.classes.to_csv(tmp / "classes.csv", index=False)
                release_table(data_src, found.best).to_csv(tmp / "release.csv", index=False)
                tables += [{"title": "Classes of the chosen generalisation", "path": "classes.csv"},
                           {"title": "The release (generalised, suppressed rows removed)", "path": "release.csv"}]  # fmt: skip
                summary["best"] = found.best.summary
                findings.append(_sentence(found.best.summary, "After the search"))
            else:
                findings.append("No generalisation of the lattice meets the targets.")
        else:
            before.classes.to_csv(tmp / "classes.csv", index=False)
            tables.append({"title": "Classes", "path": "classes.csv"})
        figures = []
        try:
            from privrisk.reports.plots.presence import delta_figure

            figures.append(delta_figure(tmp, before, found.best if found else None))
        except ImportError:  # pragma: no cover - matplotlib is a core dependency
            pass
        write_manifest(tmp, kind="presence", title=f"δ-presence: {title}",
                       parameters={k: doc[k] for k in ("dataset", "population", "qi", "hierarchies", "targets")},
                       summary=summary, findings=findings, tables=tables, figures=figures)  # fmt: skip
    err.print(f"Wrote {out_dir}/ ({', '.join(t['path'] for t in tables)}, manifest.json)")


def _sentence(s: dict, when: str) -> str:
    return (
        f"{when}, the largest share of a population class that is in the research subset is δ = "
        f"{s['delta_max']:.3g}: an attacker who sees the release and the population table can be "
        f"{100 * s['delta_max']:.0f}% sure that a person of that class is in the subset. "
        f"Smallest research class k = {s['k_anonymity']}, smallest population class k-map = {s['k_map']}."
    )


def _levels_text(levels: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in levels.items())


def _class_table(r: PresenceResult, title: str) -> Table:
    table = Table(title=title)
    for c in r.prepared.qi:
        table.add_column(c)
    for c in ("in T", "in P", "δ"):
        table.add_column(c, justify="right")
    n_sup = int(r.classes["suppressed"].sum())
    for row in r.classes.head(SHOWN).to_dict(orient="records"):
        table.add_row(*(str(row[c]) for c in r.prepared.qi), f"{row['dataset_count']:,}",
                      f"{row['population_count']:,}", f"{row['delta']:.3f}")  # fmt: skip
    if n_sup:
        table.caption = f"{n_sup:,} classes ({r.summary['suppressed']:,} records) suppressed, not shown"
    return table


def _summary_table(s: dict, title: str) -> Table:
    table = Table(title=title)
    table.add_column("measure")
    table.add_column("value", justify="right")
    rows = [
        ("δ_max (largest T/P of a class)", f"{s['delta_max']:.4g}"),
        ("δ_min (all population classes)", f"{s['delta_min']:.4g}"),
        ("δ_min over classes in T", f"{s['delta_min_present']:.4g}"),
        ("k-anonymity", f"{s['k_anonymity']:,}"),
        ("k-map", f"{s['k_map']:,}"),
        ("classes in T / in P", f"{s['classes']:,} / {s['population_classes']:,}"),
        ("unique records", f"{s['unique_records']:,}"),
        ("records in T / P", f"{s['n_dataset']:,} / {s['n_population']:,}"),
    ]
    if s["records_at_risk"] is not None:
        rows.append(("records at risk (δ > --delta-max)", f"{s['records_at_risk']:,}"))
    if s["suppressed"]:
        rows.append(("suppressed records", f"{s['suppressed']:,}"))
    rows.append(("information loss (precision)", f"{s['loss_precision']:.3f}"))
    for a, b in rows:
        table.add_row(a, b)
    return table


def _print(before: PresenceResult, found: SearchResult | None, doc: dict) -> None:
    out.print(_summary_table(before.summary, f"Measured at {_levels_text(before.levels)}"))
    out.print(_class_table(before, f"Classes of highest δ ({len(before.classes):,} in all)"))
    for v in before.violations:
        err.print(f"violated: {v.text(TARGET_OPTIONS)}")
    if found is None:
        return
    out.print(f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
              f"{len(found.minimal):,} minimal node(s) meet the targets.")  # fmt: skip
    if len(found.minimal):
        table = Table(title="Minimal generalisations")
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
        out.print(_summary_table(found.best.summary, f"Chosen: {_levels_text(found.best.levels)}"))
        out.print(_class_table(found.best, "Classes of highest δ after the search"))


def _estimate(data_src, qi_names, hier, levels, kmap, k, population_size, sampling_fraction, estimator, alpha,
              out_dir, as_json, on=None) -> None:  # fmt: skip
    from privrisk.presence.kmap import kmap_derived_k, population_uniqueness, sampling_fraction_from

    if kmap is None:
        raise PrivriskError("--kmap: the estimate without a population table needs the k of k-map")
    prep = prepare_presence(data_src, data_src, qi_names, hierarchies=hier, **(on or {}))
    r = delta_presence(prep, levels=levels)
    n = prep.n_data
    f = sampling_fraction_from(n, population_size, sampling_fraction)
    derived, type1 = kmap_derived_k(kmap, f, alpha=alpha, model=estimator, n=n)
    sizes = r.classes["dataset_count"].to_numpy()
    at_risk = int(sizes[sizes < derived].sum())
    uniq = population_uniqueness(sizes, round(n / f))
    doc = {
        "estimate": True,
        "model": estimator,
        "assumptions": "records sampled independently with the same probability f = n/N; population class sizes "
        "unknown; a population class of size k sends Poisson(f·k) members into the sample (El Emam and Dankar "
        "2008, as ARX's KMap)",
        "dataset": prep.dataset_label,
        "qi": prep.qi,
        "levels": r.levels,
        "n": n,
        "sampling_fraction": f,
        "alpha": alpha,
        "kmap": kmap,
        "derived_k": derived,
        "type1_error": type1,
        "k_anonymity": r.summary["k_anonymity"],
        "estimated_kmap_met": r.summary["k_anonymity"] >= derived,
        "records_at_risk": at_risk,
        "classes": len(sizes),
        "population_uniqueness": {
            **uniq,
            "assumptions": "a simple random sample; Zayatz: population class-size distribution as in the sample; "
            "Pitman: Pitman sampling formula (Hoshino 2001), maximum likelihood; SNB: shifted negative binomial "
            "class sizes (Chen and Keller-McNulty 1998), K by Shlosser's estimator; Dankar et al. 2012 choose "
            "Pitman when f ≤ 0.1, else the smaller of Zayatz and SNB",
        },
    }
    if out_dir is not None:
        with _io.atomic_dir(out_dir) as tmp:
            r.classes.drop(columns=["population_count", "delta", "suppressed"]).to_csv(
                tmp / "classes.csv", index=False
            )
            write_manifest(tmp, kind="presence", title=f"Estimated k-map of {prep.dataset_label}",
                           parameters={"qi": prep.qi, "kmap": kmap, "model": estimator, "alpha": alpha,
                                       "sampling_fraction": f},
                           summary=doc, tables=[{"title": "Classes of the sample", "path": "classes.csv"}],
                           findings=[f"Estimate ({estimator} model): {kmap}-map holds with probability about "
                                     f"{1 - type1:.3f} when every sample class has at least {derived} records; "
                                     f"{at_risk:,} records are in smaller classes."])  # fmt: skip
    if as_json:
        emit_json(doc)
    else:
        table = Table(title=f"Estimated {kmap}-map (an estimate, {estimator} model; no population table)")
        table.add_column("measure")
        table.add_column("value", justify="right")
        for a, b in (("sampling fraction f", f"{f:.4g}"), ("significance α", f"{alpha:g}"),
                     ("derived k′ (sample classes must hold ≥ k′)", str(derived)),
                     ("type I error", f"{type1:.4f}"), ("k-anonymity of the sample", str(r.summary["k_anonymity"])),
                     ("records in classes below k′", f"{at_risk:,}"),
                     ("sample uniques", f"{uniq['sample_uniques']:,}"),
                     (f"share of them population-unique ({uniq['dankar_model']}, Dankar's rule)",
                      f"{uniq['share_of_sample_uniques']:.3f}")):  # fmt: skip
            table.add_row(a, b)
        out.print(table)
        err.print("Assumptions: " + doc["assumptions"] + ".")
    if not doc["estimated_kmap_met"]:
        raise ThresholdExceeded(
            f"estimated k-map: sample classes of {r.summary['k_anonymity']} record(s) are below k′ = {derived} "
            f"({estimator} model, α = {alpha:g})"
        )


__all__ = ["presence_command"]
