"""``privrisk microdata``: the re-identification risk of a sample file with weights and households.

The run is :func:`privrisk.microdata.run_microdata` (measure, reduce, measure again, judge the thresholds on the
file as released); this module maps the options onto :class:`~privrisk.microdata.MicrodataSettings`, calls it
and prints, naming the library's parameters as options (privrisk/cli/_names.py).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, cast

import typer
from rich.table import Column, Table

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out
from privrisk.cli._names import option_or_default
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.microdata import MicrodataResult
    from privrisk.microdata.settings import Reduction

TOP = 20  # privrisk.microdata.settings.MicrodataSettings.top


@app.command("microdata")
def microdata_command(
    data: Path = typer.Argument(..., help="The sample file: CSV, Parquet, Stata or SPSS."),
    keys: str = typer.Option(..., "--keys", help="Key variables (quasi-identifiers), comma-separated."),
    weights: str | None = typer.Option(None, "--weights", help="Sampling-weight column (F_k = sum of weights)."),
    household: str | None = typer.Option(None, "--household", help="Household-id column, for household risk."),
    sensitive: str | None = typer.Option(
        None, "--sensitive", help="Sensitive variables for ℓ-diversity and t-closeness, comma-separated."
    ),
    missing: str = typer.Option(
        "any", "--missing", help="A missing key value, in every measure and the suppression: 'any' (matches any "
        "value, as sdcMicro) or 'category' (a value of its own)."
    ),
    missing_sensitive: str = typer.Option(
        "category", "--missing-sensitive", help="A missing sensitive value for ℓ: 'category' (a value of its own, "
        "as sdcMicro) or 'drop'."
    ),
    method: str = typer.Option("approx", "--risk-method", help="Individual risk: approx (sdcMicro) or exact."),
    max_risk: float | None = typer.Option(None, "--max-risk", help="Largest individual risk allowed (exit 1)."),
    k: int | None = typer.Option(None, "--k", help="k-anonymity: smallest f_k allowed (exit 1)."),
    l_div: float | None = typer.Option(None, "--l", help="Smallest distinct ℓ allowed per class (exit 1)."),
    t_close: float | None = typer.Option(None, "--t", help="Largest t (earth mover's distance) allowed (exit 1)."),
    c: float = typer.Option(2.0, "--c", help="The c of recursive (c, ℓ)-diversity."),
    suda: int = typer.Option(0, "--suda", help="SUDA2 up to this MSU size (0: no SUDA2)."),
    dis_fraction: float = typer.Option(0.01, "--dis-fraction", help="Sampling fraction of DIS-SUDA."),
    suda_scores: str = typer.Option(
        "elliot", "--suda-scores", help="SUDA scores: 'elliot' (Elliot et al.) or 'ihsn' (sdcMicro's original_scores "
        "= FALSE, the SDC practice guide's)."
    ),
    population_size: float | None = typer.Option(
        None, "--population-size", help="N for population uniqueness (default: the sum of the weights)."
    ),
    top: int = typer.Option(TOP, "--top", help="How many of the riskiest records to list."),
    suppress: bool = typer.Option(
        False, "--suppress", help="Local suppression: set the fewest key values to missing to meet --k/--max-risk."
    ),
    importance: str | None = typer.Option(
        None, "--importance", help="With --suppress: keys from most to least important (default: --keys order)."
    ),
    hierarchy: list[str] | None = typer.Option(
        None, "--hierarchy", "-H", help="Global recoding: COLUMN=SPEC, repeatable (interval:10, breaks:…, prefix, "
        "date, table:FILE.csv); the least recoding meeting --k, --max-risk, --l, --t."
    ),
    records: Path | None = typer.Option(None, "--records", help="Write every record's risks to this CSV (whole or "
                                        "not at all)."),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Write combinations.csv, records.csv, report.html, manifest.json and, after a reduction, "
        "the released file in the input's format."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
    # Annotated: plain defaults, so that a direct call of the function without them still works
    engine: Annotated[str, typer.Option("--engine", help="Where the group-bys over the records run: duckdb (this "
                                        "machine) or spark (only the key combinations come back; same results).")] = "duckdb",
    spark_master: Annotated[str | None, typer.Option("--spark-master", help="With --engine spark: the master URL "
                                                     "(default local[*]; an active session is reused).")] = None,
) -> None:
    """The re-identification risk of a sample file: f_k, F_k, individual, global and household risk, k, ℓ, t, SUDA2.

    Example: privrisk microdata examples/microdata_survey.csv --keys region,age,sex --weights weight --household hid --sensitive income --k 2
    """
    from privrisk.io.files import atomic_path, write_csv
    from privrisk.microdata import MicrodataSettings
    from privrisk.microdata.run import OUT_FILES

    if out_dir is not None:
        check_outputs(out_dir, [data], param="--out", folder=True, files=OUT_FILES)
    if records is not None:
        check_outputs(records, [data], param="--records")
    # Every rule of which options go together is the settings' (privrisk.microdata.settings); their errors name
    # the parameter, which privrisk.cli.main turns into the option.
    reduction: Reduction = "suppress" if suppress else "recode" if hierarchy else "none"
    settings = MicrodataSettings(data=data, keys=keys, weights=weights, household=household, sensitive=sensitive or (),
                                 missing=cast(Any, missing), method=cast(Any, method), max_risk=max_risk, k=k, l=l_div, t=t_close, c=c,
                                 suda_max_size=suda, dis_fraction=dis_fraction, population_size=population_size,
                                 top=top, reduction=reduction, importance=importance, hierarchies=hierarchy or None,
                                 missing_sensitive=missing_sensitive, suda_scores=suda_scores, engine=engine,
                                 spark_master=spark_master)  # fmt: skip
    if not Path(data).exists():
        raise PrivriskError(f"FILE: {data} does not exist", param="data")
    run = _run_with_progress(settings)
    if out_dir is not None:
        written = run.write(out_dir)
        err.print(f"Wrote {out_dir}/ ({', '.join(written)}, manifest.json)")
    if records is not None:
        with atomic_path(records) as tmp:
            write_csv(run.measured.records(), tmp)
        err.print(f"Wrote {records}")
    if as_json:
        emit_json(run.to_dict(name=_option))
    else:
        _print(run.measured)
        if run.reduced is not None:
            how = "local suppression" if run.suppression is not None else "global recoding"
            _print(run.reduced, title=f"After {how}: {run.reduction}")
            _print_loss(run.information_loss())
        elif run.reduction is not None:
            out.print(run.reduction)
        verdict = run.result.verdict()
        out.print(("The released file. " if run.reduced is not None else "") + verdict["text"])
        if verdict["default"]:
            for line in verdict["failures"]:
                out.print(f"  {line}")
    failures = run.failures(name=_option)
    for why in failures[1:]:
        err.print(f"threshold exceeded: {why}")
    if failures:
        raise ThresholdExceeded(failures[0], param=run.violated_param())


def _run_with_progress(settings: Any) -> Any:
    """run_microdata, with its share done and stage on stderr while it runs (a terminal only)."""
    from privrisk.cli._bars import bars
    from privrisk.cli._progress import steps
    from privrisk.microdata.run import run_microdata

    with steps() as show:
        return run_microdata(settings, progress=bars(show))


def _print_loss(loss: list[dict[str, Any]]) -> None:
    table = Table("key", Column("suppressed", justify="right"), Column("distinct", justify="right"),
                  Column("entropy (bits)", justify="right"), "", title="What the reduction cost")  # fmt: skip
    for d in loss:
        table.add_row(d["key"], f"{d['suppressed']:,} ({d['suppressed_share']:.1%})",
                      f"{d['distinct_before']:,} → {d['distinct_after']:,}",
                      f"{d['entropy_before']:.3g} → {d['entropy_after']:.3g}", "lost" if d["lost"] else "")  # fmt: skip
    out.print(table)


def _option(param: str) -> str:
    """The option of a parameter (privrisk/cli/_names.py's table, else ``--`` + the name: ``max_risk`` → ``--max-risk``)."""
    return option_or_default(param, "microdata")


def _print(result: MicrodataResult, title: str | None = None) -> None:
    m = result.measures
    ir, ka = m["individual_risk"], m["k_anonymity"]
    rows = [
        ("records", f"{result.n:,}"),
        ("key combinations", f"{m['combinations']:,}"),
        ("records with a missing key value", f"{m['records_with_missing_keys']:,} (match {m['missing']})"),
        ("expected re-identifications (Σ r)", f"{ir['expected_reidentifications']:.4g}"),
        ("global risk (share of records)", f"{ir['global_risk']:.4%}"),
        ("highest individual risk", f"{ir['max']:.4g}"),
        (f"records with risk above {ir['threshold']:g}", f"{ir['records_above_threshold']:,}"),
        ("k-anonymity (smallest f_k)", str(ka["k"])),
        *((f"records with f_k < {k}", f"{v:,}") for k, v in ka["violations"].items()),
    ]
    if "household_risk" in m:
        hh = m["household_risk"]
        rows += [("households", f"{hh['households']:,}"),
                 ("household risk: expected re-identifications", f"{hh['expected_reidentifications']:.4g}")]  # fmt: skip
    am = m["attacker_models"]
    rows += [("prosecutor risk: highest / average", f"{am['prosecutor']['highest']:.4g} / {am['prosecutor']['average']:.4g}"),
             ("journalist risk: highest", f"{am['journalist']['highest']:.4g}"),
             ("marketer risk", f"{am['marketer']:.4g}")]  # fmt: skip
    if "population_uniqueness" in m:
        pu = m["population_uniqueness"]
        share = pu["share_of_sample_uniques"]
        rows.append((f"sample uniques also unique in the population ({pu['dankar_model']}, estimate)",
                     f"{share:.1%} of {pu['sample_uniques']:,} (about {share * pu['sample_uniques']:,.0f})"))  # fmt: skip
    for d in m["diversity"]:
        rows.append((f"{d['variable']}: ℓ distinct / entropy / recursive (c={d['c']:g})",
                     f"{d['l_distinct']} / {d['l_entropy']:.4g} / {d['l_recursive']}"))  # fmt: skip
        rows.append((f"{d['variable']}: t ({'ordered' if d['ordered_distance'] else 'equal'} distance)",
                     f"{d['t']:.4g}"))  # fmt: skip
    if "suda2" in m:
        s = m["suda2"]
        rows.append((f"SUDA2: records with an MSU (max size {s['max_size']})", f"{s['records_with_msu']:,}"))
        rows.append(("SUDA2: highest SUDA / DIS-SUDA score", f"{s['max_score']:.4g} / {s['max_dis_score']:.4g}"))
    table = Table(Column("measure", overflow="fold"), Column("value", justify="right", no_wrap=True),
                  title=title or f"Risk of {result.source}")  # fmt: skip
    for a, b in rows:
        table.add_row(a, b)
    out.print(table)
    if title is None:
        _print_records(result.top_records(), result, f"The {len(result.top_records())} riskiest records", "risk")
        if "suda2" in m:
            _print_records(result.suda_top(), result, "The records with the highest SUDA scores", "suda_score")
        for line in result.findings():
            err.print(line)


def _print_records(top: Any, result: MicrodataResult, title: str, score: str) -> None:
    """Records in a table that fits 80 columns: the numbers never wrap; the key values fold within their cell."""
    if not len(top):
        return
    numbers = [c for c in ("f_k", "F_k", "risk", "household_risk", "suda_score", "dis_suda_score")
               if c in top.columns and (c in ("f_k", "risk") or c == score or c.startswith(score.split("_")[0]))]  # fmt: skip
    t = Table(Column("row", justify="right", no_wrap=True), Column("keys", overflow="fold"),
              *(Column(c, justify="right", no_wrap=True) for c in numbers), title=title)  # fmt: skip
    keys = list(result.settings.keys)
    for row in top.to_dict(orient="records"):
        t.add_row(str(row["row"]), "/".join("·" if v is None or v != v else str(v) for v in (row[k] for k in keys)),
                  *(f"{row[c]:.4g}" for c in numbers))  # fmt: skip
    out.print(t)


__all__ = ["microdata_command"]
