"""``privrisk outputs``: check a researcher's outputs by the centre's rules, each alone and all together.

The checks, findings, report and the ledger's append come from :mod:`privrisk.outputs`; this module parses, calls
and prints. With ``--ledger`` the report and the CSVs are written to temporary names under the ledger's lock and
moved into place after the ledger is written: they appear with the entry or not at all.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from privrisk.cli._app import app
from privrisk.cli._common import KEY_ENV, err, out, print_run
from privrisk.cli._options import JSON_OPTION, out_option
from privrisk.errors import ThresholdExceeded

if TYPE_CHECKING:
    from privrisk.outputs.run import OutputsRun as OutputsResult

REPORT_FILES = ("report.html", "outputs.json", "atoms.csv", "table-*.csv", "manifest.json")
MARK = {"pass": "pass", "review": "REVIEW", "fail": "FAIL"}

HELP = """Check a researcher's outputs (tables, means, quantiles, models) by a centre's rules, each alone and all
together: the differencing an intruder can do, in sentences, with what to do about it.

Each cell passes, is for review or fails by the policy's rules (ACRO's keys and defaults: threshold, (n, k)
dominance, p % rule, zeros, class disclosure, residual degrees of freedom). Then every released count, sum and
mean (this request's and every earlier one in --ledger) is combined by linear programming over the atoms: the
finest groups the released numbers split people into (a region × sex table for age >= 18 beside one for
age >= 19 makes "West, female, aged 18" an atom). A group below the threshold that they pin down is an exact
disclosure. Exit 0 when everything passes, 1 when anything fails, is for review or is disclosed, 2 for bad input.

--spec lists each output as a TOML table:

\b
    [[output]]
    name = "Table 1"       # unique; a name in --ledger is taken for good
    kind = "count"         # count, sum, mean, median, quantile, min, max, ols, logit
    rows = ["region"]
    columns = ["sex"]
    where = "age >= 18"    # an SQL condition on the data's columns
    margins = true         # the row, column and grand totals are released too
    # also: variable = "income" (sum … max), weights = "w" (count, sum),
    # q = 0.9 (quantile), formula = "income ~ age + C(sex)" (ols, logit)

With --ledger the request is checked against every output released before (one ledger for releases and
outputs) and appended if everything passes, the check and the append under the ledger's lock; the report is
written only with the entry. --no-append only checks.

Example: privrisk outputs survey.csv --spec outputs.toml --ledger ledger.json --out check/
"""


def _help() -> str:
    """The help as Rich should print it: its markup escaped (Rich would read ``[[output]]`` as a style), here
    unless the application's commands escape their own help (``privrisk.cli._app.readable_help``)."""
    from privrisk.cli import _app

    if app.rich_markup_mode != "rich" or hasattr(_app, "readable_help"):
        return HELP
    from rich.markup import escape

    return escape(HELP)


@app.command("outputs", help=_help())
def outputs_command(
    data: Path = typer.Argument(..., help="The microdata (CSV, Parquet, Stata .dta, SPSS .sav)."),
    spec: Path = typer.Option(..., help="outputs.toml: the tables and models to check (format above)."),
    policy: Path | None = typer.Option(None, help="An ACRO policy file (YAML); ACRO's defaults if none."),
    ledger: Path | None = typer.Option(
        None,
        "--ledger",
        help="The ledger of everything released: checked together with its outputs, and appended to if all pass.",
    ),
    no_append: bool = typer.Option(
        False, "--no-append", help="Check against --ledger without appending to it."
    ),
    key_file: Path | None = typer.Option(
        None, "--ledger-key", help=f"Secret key file of a keyed ledger (HMAC-SHA256; default: ${KEY_ENV})."
    ),
    earlier_data: list[Path] | None = typer.Option(
        None,
        "--earlier-data",
        help="An earlier version of the data that outputs in --ledger were computed on (repeatable): the versions "
        "are checked as one population, newcomers and leavers included.",
    ),
    out_dir: Path | None = out_option("Write report.html, outputs.json and CSVs here."),
    atoms: Path | None = typer.Option(None, help="Write the atoms' count intervals (CSV) here."),
    cells: Path | None = typer.Option(
        None,
        "--cells",
        help="Write every table cell's interval (CSV) here: what an intruder recomputes of it if it alone "
        "is suppressed, and whether that protects it.",
    ),
    max_atoms: int = typer.Option(200_000, help="Largest grid of atoms crossed in full."),
    as_json: bool = JSON_OPTION,
    # Annotated: plain defaults, so that a direct call of the function without them still works
    engine: Annotated[
        str,
        typer.Option(
            "--engine",
            help="Where the group-bys over the records run: duckdb (this "
            "machine) or spark (only the combinations of the columns the outputs read "
            "come back; same results).",
        ),
    ] = "duckdb",
    spark_master: Annotated[
        str | None,
        typer.Option(
            "--spark-master",
            help="With --engine spark: the master URL (default local[*]; an active session is reused).",
        ),
    ] = None,
) -> None:
    from privrisk.io.files import check_outputs
    from privrisk.ledger import deferred_signals, read_key
    from privrisk.outputs.run import OutputsSettings, run_outputs

    earlier_data = earlier_data or []
    inputs = [p for p in (data, spec, policy, ledger, key_file, *earlier_data) if p is not None]
    if ledger is not None:
        # The lock file beside the ledger is an input too: replacing it would give a second check another lock.
        inputs.append(ledger.with_name(ledger.name + ".lock"))
    if out_dir is not None:
        check_outputs(out_dir, inputs, param="out", folder=True, files=REPORT_FILES)
    if atoms is not None:
        check_outputs(atoms, inputs, param="atoms")
    if cells is not None:
        check_outputs(cells, [*inputs, *([atoms] if atoms is not None else [])], param="cells")
    key = read_key(key_file)
    settings = OutputsSettings(data=data, spec=spec, policy=policy, ledger=ledger, key=key, max_atoms=max_atoms,
                               append=not no_append, earlier_data=tuple(earlier_data), engine=engine,
                               spark_master=spark_master)  # fmt: skip
    # The files go to temporary names under the ledger's lock, and into place once the ledger is written.
    with deferred_signals() as guard, contextlib.ExitStack() as stack:

        def write(result: OutputsResult) -> None:
            _write_files(result, stack, out_dir, atoms, cells)
            guard.arm()

        result = run_outputs(settings, before_append=write)
    print_run(result, as_json, _print_result)
    if out_dir is not None:
        err.print(f"Wrote {out_dir}/report.html, outputs.json, atoms.csv and a CSV per table.")
    if ledger is not None and result.ledger is not None:
        n = len(result.outputs)
        if result.ledger["appended"]:
            err.print(
                f"Appended {n} output{'s' if n != 1 else ''} to {ledger} (outputs entry {result.ledger['seq']})."
            )
        elif settings.append:
            err.print(f"Not appended to {ledger}: the set did not pass.")
        else:
            err.print(f"Not appended to {ledger} (--no-append).")
    if result.status != "pass":
        s = result.summary
        found = s["disclosures_exact"] + s["disclosures_approximate"]
        raise ThresholdExceeded(
            f"outputs: {s['cells_fail']} cell{'s' if s['cells_fail'] != 1 else ''} fail, "
            f"{s['cells_review']} {'are' if s['cells_review'] != 1 else 'is'} for review, "
            f"{found} disclosure{'s' if found != 1 else ''} by differencing"
            + (f", {s['atoms_undecided']:,} group{'s' if s['atoms_undecided'] != 1 else ''} undecided"
               if s.get("atoms_undecided") else "")
        )  # fmt: skip


def _write_files(
    result: OutputsResult,
    stack: contextlib.ExitStack,
    out_dir: Path | None,
    atoms: Path | None,
    cells: Path | None,
) -> None:
    """Write the report folder and the CSVs to temporary names that ``stack`` moves into place when it ends."""
    from privrisk.io.files import atomic_dir, atomic_path, write_csv
    from privrisk.outputs.report import atoms_table, cells_table

    if out_dir is not None:
        result.write(stack.enter_context(atomic_dir(out_dir)))
    if atoms is not None:
        write_csv(atoms_table(result), stack.enter_context(atomic_path(atoms)))
    if cells is not None:
        write_csv(cells_table(result), stack.enter_context(atomic_path(cells)))


def _print_result(result: OutputsResult) -> None:
    from privrisk._format import number
    from privrisk.outputs.perturbed import perturbed_lines
    from privrisk.outputs.report import rule_text
    from privrisk.outputs.wording import cell_text

    for o in result.outputs:
        failing = [c for c in o["cells"] if c["status"] != "pass"]
        count = len(o["cells"])
        out.print(
            f"{o['name']} ({o['kind']}): {MARK[o['status']]}, {count} cell{'s' if count != 1 else ''}, "
            f"{len(failing)} not passing"
        )
        for c in failing[:20]:
            where = cell_text(c["labels"], o.get("margins") or "All")
            hidden = ""
            if c.get("interval") is not None and c.get("protected") is False:
                lo, hi = (number(x, 6) for x in c["interval"])
                hidden = f" (suppressed alone, it is recomputed as {lo} … {hi}: not protected)"
            out.print(
                f"  {MARK[c['status']]} {where}: " + "; ".join(rule_text(r) for r in c["rules"]) + hidden
            )
        if len(failing) > 20:
            out.print(f"  … and {len(failing) - 20} more (see --out or --json)")
    for line in perturbed_lines(result.outputs):
        out.print(line)
    s = result.summary
    if s.get("cells_unprotected"):
        out.print(
            f"{s['cells_unprotected']} failing cells would not be protected by suppressing them alone "
            "(see the intervals: --cells, --out or --json)."
        )
    out.print(f"Differencing over {s['atoms']:,} atoms and {s['equations']:,} released numbers:")
    for d in result.disclosures:
        out.print(f"  {d['kind'].upper()}: {d['sentence']}")
    if s.get("atoms_undecided"):
        n = s["atoms_undecided"]
        named = result.undecided_groups
        out.print(f"  UNDECIDED: {n:,} group{'s' if n != 1 else ''} not decided within the budget (review): "
                  + "; ".join(named) + (" …" if n > len(named) else ""))  # fmt: skip
    elif not result.disclosures:
        out.print("  no disclosure.")
    for a in result.assumed:
        if a["kind"] in ("dependency", "observed"):  # found in the data, not declared in the spec
            out.print(f"  Assumed known: {a['sentence']}")
    for r in result.recommendations:
        out.print(f"Suggestion: {r['sentence']} (cost: {r['cost']})")
    out.print(f"Verdict: {MARK[result.status]}")
