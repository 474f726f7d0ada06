"""``privrisk audit``: the intruder's view of noise scaled to a data-dependent sensitivity.

The numbers, sentences, JSON documents and output folders come from :mod:`privrisk.audit` (Sarathy and
Muralidhar 2009); this module parses the options, calls the library and prints.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from privrisk._validation import QUERIES
from privrisk.cli._app import app
from privrisk.cli._common import TOP_RECORDS, err, out, print_run
from privrisk.cli._options import JSON_OPTION, MISSING_OPTION, check_out_folder, out_option
from privrisk.errors import PrivriskError
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    from privrisk.audit.run import AuditRun


@app.command("audit")
def audit_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option("mean", "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of the data-dependent noise (e.g. 2, ln3)."),
    u: float | None = typer.Option(
        None,
        "--u",
        help="The uniform draw behind the answer (0.75 in Sarathy and Muralidhar, Tables 2 and 3).",
    ),
    response: float | None = typer.Option(None, help="The answer r itself, instead of --u."),
    event: str = typer.Option(
        "tail", help="tail (P(answer ≥ r), as Sarathy and Muralidhar, Table 2) or density (at r)."
    ),
    alpha: float = typer.Option(1e-4, help="1 − confidence of the bound on the missing record."),
    universe: str | None = typer.Option(
        None, help="Bounds LO,HI: also audit noise calibrated to the global sensitivity."
    ),
    seed: int | None = typer.Option(None, help="Seed for the draw of u when --u is not given."),
    sweep_record: int | None = typer.Option(
        None, help="Record number (from 1) whose value --sweep-values varies (Table 3)."
    ),
    sweep_values: str | None = typer.Option(None, help="Values for --sweep-record, e.g. 14,15,16."),
    missing: str | None = MISSING_OPTION,
    out_dir: Path | None = out_option("Folder for CSV tables, figures and manifest.json."),
    records_file: Path | None = typer.Option(
        None,
        "--records",
        help="CSV file for every record's row of the audit (the --json lists the riskiest).",
    ),
    top: int = typer.Option(
        TOP_RECORDS, help="How many of the riskiest records --json lists (every record: --records)."
    ),
    fail_on_leak: bool = typer.Option(
        False, "--fail-on-leak", help="Exit with code 1 if any possible missing record breaks e^ε."
    ),
    as_json: bool = JSON_OPTION,
) -> None:
    """What an intruder holding every record but one learns from one answer with data-dependent noise.

    The provider adds Laplace noise of scale Δf_n(X)/ε, where Δf_n(X) is the largest change one record of this
    data set makes (Sarathy and Muralidhar 2009). For every record that might be missing, the intruder computes
    the scale without it and compares the probabilities of the answer: records whose ratio breaks e^ε are
    marked. Without --u or --response the answer is drawn with --seed: this is an audit, not a release.

    Example: privrisk audit examples/claims.csv --column claims --query mean --epsilon 2 --u 0.75 --universe 0,100
    """
    from privrisk.audit.run import AuditSettings, run_audit

    check_out_folder(out_dir, [file], ("*.csv", "manifest.json", "figures/*"))
    settings = AuditSettings(data=file, column=column, missing=missing, query=query, epsilon=epsilon, u=u,
                             response=response, event=event, alpha=alpha, universe=universe, seed=seed,
                             sweep_record=sweep_record, sweep_values=sweep_values, top=top)  # fmt: skip
    if records_file is not None and records_file.resolve() == file.resolve():
        raise PrivriskError(f"--records: {records_file} is the input file; give another path")
    if records_file is not None:  # before the work: a FIFO or device is refused now, not after minutes
        check_outputs(records_file, [file], param="--records")
    run = run_audit(settings)
    if out_dir is not None:
        run.write(out_dir)
    if records_file is not None:
        run.write_records(records_file)
    print_run(run, as_json, _print_human)
    leak = run.leak()
    if fail_on_leak and leak is not None:
        raise leak


def _print_human(run: AuditRun) -> None:
    from privrisk.audit.report import exp_text, ratio_text

    res, sweep, sweep_record, column = run.result, run.sweep, run.settings.sweep_record, run.settings.column
    e = exp_text(res.epsilon)
    if run.data is not None:
        err.print(run.data.summary())
    prov = Table(
        title=f"Provider: {res.query} of {column!r}, n = {res.n:,}, ε = {res.epsilon:.4g}",
        caption="The provider's view (Sarathy and Muralidhar, Table 1): the answer on all records, the record "
        "whose absence moves it most (X*), the data-dependent sensitivity and noise scale, one noisy answer r, "
        "and how likely an answer as extreme as r is with and without that record.",
    )
    prov.add_column("quantity")
    prov.add_column("value", justify="right")
    prov.add_row("f_n(X)", f"{res.f_n:.6g}")
    prov.add_row(f"f_n−1(X*) (X* leaves out record {res.star})", f"{res.f_star:.6g}")
    prov.add_row("Δf_n(X)", f"{res.delta_n:.6g}")
    prov.add_row("b_n = Δf_n(X)/ε", f"{res.b_n:.6g}")
    prov.add_row("answer r" + (f" (u = {res.u:.4g})" if res.u is not None else ""), f"{res.response:.6g}")
    label = "P[answer ≥ r]" if res.tail == "upper" else "P[answer ≤ r]"
    if res.event == "density":
        label = "density at r"
    prov.add_row(escape(f"p1 = {label} with X"), f"{res.p1:.4g}")
    prov.add_row(escape(f"p2 = {label} with X*, scale b_n"), f"{res.p2:.4g}")
    prov.add_row("provider's ratio p1/p2", f"{res.p1 / res.p2:.4g}" if res.p2 > 0 else "∞")
    out.print(prov)

    rec = res.records
    show = rec
    note = ""
    if len(rec) > 40:
        order = rec["log10_ratio"].abs().sort_values(ascending=False).index
        show = rec.loc[order[:30]].sort_values("record")
        note = f" (the {len(show)} largest of {len(rec):,}; all in --records or --out)"
    t2 = Table(
        title=f"Intruder: ratio p1/p3 for each missing record (e^ε = {e}){note}",
        caption="missing: the record the intruder lacks; value: its value; f(X₋ᵢ): the answer without it; b_n−1: "
        "the scale the provider would use without it; p3: the probability of an answer as extreme as r then; "
        "p1/p3 and beyond e^ε (✗): the ratio and whether it breaks e^ε"
        + (
            "; p1/p3, global Δf: the same ratio with noise calibrated to the global sensitivity."
            if res.global_audit is not None
            else "."
        ),
    )
    g = res.global_audit
    global_log10 = None if g is None else g.records["log_ratio"].to_numpy() / math.log(10)
    for name in ("missing", "value", "f(X₋ᵢ)", "b_n−1", "p3", "p1/p3"):
        t2.add_column(name, justify="right")
    t2.add_column("beyond e^ε", justify="center")
    if global_log10 is not None:
        t2.add_column("p1/p3, global Δf", justify="right")
    names = ("record", "value", "f_without", "b_without", "p3", "log10_ratio", "violates")
    for number, value, f_without, b_without, p3, lr, bad in zip(
        *(show[c].to_numpy() for c in names), strict=True
    ):
        cells = [str(number), f"{value:.6g}", f"{f_without:.6g}", f"{b_without:.4g}", f"{p3:.4g}"]
        cells += [ratio_text(lr), "[bold red]✗[/]" if bad else ""]
        if global_log10 is not None:
            cells.append(ratio_text(float(global_log10[int(number) - 1])))
        t2.add_row(*cells)
    out.print(t2)
    out.print(f"✗: p1/p3 or p3/p1 exceeds e^ε; {res.violations:,} of {res.n:,} possible missing records.")
    out.print(res.quantile_sentence())
    out.print(res.test_sentence())
    glob = res.global_sentence()
    if glob:
        out.print(glob)
    if sweep is not None:
        t3 = Table(
            title=f"Ratio p1/p3 as record {sweep_record}'s value varies (Table 3 of Sarathy and Muralidhar 2009)",
            caption=f"value: record {sweep_record}'s value; answer r: the noisy answer at the same u; p1/p3: the "
            "intruder's ratio; beyond e^ε: ✗ where it breaks e^ε.",
        )
        for name in ("value", "answer r", "p1/p3", "beyond e^ε"):
            t3.add_column(name, justify="center" if name == "beyond e^ε" else "right")
        columns = ("value", "response", "log10_ratio", "violates")
        for value, r, lr, bad in zip(*(sweep[c].to_numpy() for c in columns), strict=True):
            t3.add_row(f"{value:.6g}", f"{r:.6g}", ratio_text(lr), "[bold red]✗[/]" if bad else "")
        out.print(t3)
    out.print(res.sentence(*run.nouns()))
