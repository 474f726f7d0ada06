"""``privrisk microdata``: the re-identification risk of a sample file with weights and households.

The measures come from :func:`privrisk.microdata.measure_microdata`; this module parses the options, calls it
and prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import typer
from rich.table import Column, Table

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.microdata import MicrodataResult

OUT_FILES = ("combinations.csv", "records.csv", "report.html", "manifest.json", "released.csv")
TOP = 20  # privrisk.microdata.settings.MicrodataSettings.top


@app.command("microdata")
def microdata_command(
    data: str = typer.Argument(..., help="The sample file: CSV, Parquet, Stata or SPSS."),
    keys: str = typer.Option(..., "--keys", help="Key variables (quasi-identifiers), comma-separated."),
    weights: str | None = typer.Option(None, "--weights", help="Sampling-weight column (F_k = sum of weights)."),
    household: str | None = typer.Option(None, "--household", help="Household-id column, for household risk."),
    sensitive: str | None = typer.Option(
        None, "--sensitive", help="Sensitive variables for ℓ-diversity and t-closeness, comma-separated."
    ),
    missing: str = typer.Option(
        "any", "--missing", help="A missing key value: 'any' (matches any value, as sdcMicro) or 'category'."
    ),
    method: str = typer.Option("approx", "--risk-method", help="Individual risk: approx (sdcMicro) or exact."),
    max_risk: float | None = typer.Option(None, "--max-risk", help="Largest individual risk allowed (exit 1)."),
    k: int | None = typer.Option(None, "--k", help="k-anonymity: smallest f_k allowed (exit 1)."),
    l_div: float | None = typer.Option(None, "--l", help="Smallest distinct ℓ allowed per class (exit 1)."),
    t_close: float | None = typer.Option(None, "--t", help="Largest t (earth mover's distance) allowed (exit 1)."),
    c: float = typer.Option(2.0, "--c", help="The c of recursive (c, ℓ)-diversity."),
    suda: int = typer.Option(0, "--suda", help="SUDA2 up to this MSU size (0: no SUDA2)."),
    dis_fraction: float = typer.Option(0.01, "--dis-fraction", help="Sampling fraction of DIS-SUDA."),
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
    records: Path | None = typer.Option(None, "--records", help="Write every record's risks to this CSV."),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Write combinations.csv, records.csv, report.html and manifest.json."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The re-identification risk of a sample file: f_k, F_k, individual, global and household risk, k, ℓ, t, SUDA2.

    Example: privrisk microdata examples/microdata_survey.csv --keys region,age,sex --weights weight --household hid --sensitive income --k 2
    """
    from privrisk.io.files import atomic_path, write_csv
    from privrisk.microdata import MicrodataSettings, measure_microdata

    if out_dir is not None:
        check_outputs(out_dir, [data], param="--out", folder=True, files=OUT_FILES)
    if records is not None:
        check_outputs(records, [data], param="--records")
    settings = MicrodataSettings(keys=keys, weights=weights, household=household, sensitive=sensitive or (),
                                 missing=cast(Any, missing), method=cast(Any, method), max_risk=max_risk, k=k, l=l_div, t=t_close, c=c,
                                 suda_max_size=suda, dis_fraction=dis_fraction, population_size=population_size,
                                 top=top)  # fmt: skip
    if not Path(data).exists():
        raise PrivriskError(f"FILE: {data} does not exist")
    result = measure_microdata(data, settings)
    if suppress and hierarchy:
        raise PrivriskError("--suppress: choose local suppression or global recoding (--hierarchy), not both")
    reduced, extra = _reduce(data, result, suppress, importance, hierarchy)
    if out_dir is not None:
        written = result.write(out_dir)
        if reduced is not None:
            with atomic_path(Path(out_dir) / "released.csv") as tmp:
                write_csv(reduced.frame, tmp)
            written.append("released.csv")
        err.print(f"Wrote {out_dir}/ ({', '.join(written)}, manifest.json)")
    if records is not None:
        with atomic_path(records) as tmp:
            write_csv(result.records(), tmp)
        err.print(f"Wrote {records}")
    if as_json:
        doc = {**_document(result), **extra}
        if reduced is not None:  # the thresholds are judged on the file as it will be released
            doc["failures_before"] = doc["failures"]
            doc["failures"] = [_option(f) for f in reduced.failures()]
        emit_json(doc)
    else:
        _print(result)
        if reduced is not None:
            _print(reduced, title=f"After {'local suppression' if suppress else 'global recoding'}: {extra['reduction']}")
    if reduced is None and "recoding" in extra:
        raise ThresholdExceeded(extra["reduction"])
    failures = (reduced or result).failures()
    for why in failures[1:]:
        err.print(f"threshold exceeded: {_option(why)}")
    if failures:
        raise ThresholdExceeded(_option(failures[0]))


def _reduce(data: str, result: MicrodataResult, suppress: bool, importance: str | None,
            hierarchy: list[str] | None) -> tuple[MicrodataResult | None, dict[str, Any]]:  # fmt: skip
    """Local suppression or global recoding, when asked; the file after it measured again."""
    if suppress:
        from privrisk.microdata.suppression import suppress_microdata

        order = [c.strip() for c in importance.split(",") if c.strip()] if importance else None
        s, after = suppress_microdata(result, importance=order)
        text = f"{len(s.cells):,} key value(s) suppressed ({s.method}{', fewest possible' if s.optimal else ''})"
        return after, {"suppression": {**s.to_dict(), "measures_after": after.measures}, "reduction": text}
    if hierarchy:
        from privrisk.microdata.recoding import recode_microdata
        from privrisk.presence.hierarchy import parse_hierarchies

        r = recode_microdata(data, result.settings, parse_hierarchies(hierarchy))
        if r.result is None:
            return None, {"recoding": r.to_dict(),
                          "reduction": f"--hierarchy: none of the {len(r.nodes):,} recodings meets the targets"}
        text = "levels " + ", ".join(f"{k}={v}" for k, v in (r.levels or {}).items())
        return r.result, {"recoding": r.to_dict(), "reduction": text}
    if importance:
        raise PrivriskError("--importance: only with --suppress")
    return None, {}


def _option(message: str) -> str:
    """A failure's parameter as its option (``l:`` → ``--l:``)."""
    head, _, rest = message.partition(":")
    return f"--{head.replace('_', '-')}:{rest}"


def _document(result: MicrodataResult) -> dict[str, Any]:
    doc = result.to_dict()
    doc.pop("schema_version", None)
    doc["failures"] = [_option(f) for f in doc["failures"]]
    return doc


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
        rows.append((f"sample uniques population-unique ({pu['dankar_model']}, estimate)",
                     f"{pu['share_of_sample_uniques']:.3f} of {pu['sample_uniques']:,}"))  # fmt: skip
    for d in m["diversity"]:
        rows.append((f"{d['variable']}: ℓ distinct / entropy / recursive (c={d['c']:g})",
                     f"{d['l_distinct']} / {d['l_entropy']:.4g} / {d['l_recursive']}"))  # fmt: skip
        rows.append((f"{d['variable']}: t ({'ordered' if d['ordered_distance'] else 'equal'} distance)",
                     f"{d['t']:.4g}"))  # fmt: skip
    if "suda2" in m:
        s = m["suda2"]
        rows.append((f"SUDA2: records with an MSU (max size {s['max_size']})", f"{s['records_with_msu']:,}"))
    table = Table("measure", Column("value", justify="right"), title=title or f"Risk of {result.source}")
    for a, b in rows:
        table.add_row(a, b)
    out.print(table)
    top = result.top_records()
    top = top[[c for c in top.columns if c in ("row", *result.settings.keys, "f_k", "F_k", "risk", "household_risk")]]
    if len(top) and title is None:
        t = Table(*top.columns, title=f"The {len(top)} riskiest records")
        for row in top.itertuples(index=False):
            t.add_row(*(f"{v:.4g}" if isinstance(v, float) else str(v) for v in row))
        out.print(t)
    if title is None:
        for line in result.findings():
            err.print(line)


__all__ = ["microdata_command"]
