"""``privrisk outputs``: check a researcher's outputs by the centre's rules, each alone and all together.

The checks, findings and report come from :mod:`privrisk.outputs`; this module parses, calls and prints.
"""

from __future__ import annotations

from pathlib import Path

import typer

from privrisk.cli._app import app
from privrisk.cli._common import KEY_ENV, PARAM_OPTIONS, emit_json, err, out
from privrisk.errors import ThresholdExceeded

PARAM_OPTIONS["outputs"] = {"key": "--ledger-key", "key_file": "--ledger-key", "max_atoms": "--max-atoms"}
REPORT_FILES = ("report.html", "outputs.json", "atoms.csv", "table-*.csv")
MARK = {"pass": "pass", "review": "REVIEW", "fail": "FAIL"}


@app.command("outputs")
def outputs_command(
    data: Path = typer.Argument(..., help="The microdata (CSV, Parquet, Stata .dta, SPSS .sav)."),
    spec: Path = typer.Option(..., "--spec", help="outputs.toml: the tables and models to check."),
    policy: Path | None = typer.Option(
        None, "--policy", help="An ACRO policy file (YAML); ACRO's defaults if none."
    ),
    ledger: Path | None = typer.Option(
        None,
        "--ledger",
        help="Outputs released before: checked together with these, and appended to if all pass.",
    ),
    key_file: Path | None = typer.Option(
        None, "--ledger-key", help=f"Secret key file of a keyed ledger (HMAC-SHA256; default: ${KEY_ENV})."
    ),
    out_dir: Path | None = typer.Option(None, "--out", help="Write report.html, outputs.json and CSVs here."),
    atoms: Path | None = typer.Option(None, "--atoms", help="Write the atoms' count intervals (CSV) here."),
    cells: Path | None = typer.Option(
        None,
        "--cells",
        help="Write every table cell's interval (CSV) here: what an intruder recomputes of it if it alone "
        "is suppressed, and whether that protects it.",
    ),
    max_atoms: int = typer.Option(200_000, "--max-atoms", help="Largest grid of atoms crossed in full."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Check a researcher's outputs (tables, means, quantiles, models) by a centre's rules, each alone and all
    together: the differencing an intruder can do, in sentences, with what to do about it.

    Each cell passes, is for review or fails by the policy's rules (ACRO's keys and defaults: threshold, (n, k)
    dominance, p % rule, zeros, class disclosure, residual degrees of freedom). Then every released count, sum and
    mean (and those in --ledger) is combined by linear programming: a group below the threshold that they pin
    down is an exact disclosure. Exit 0 when everything passes, 1 when anything fails, is for review or is
    disclosed, 2 for bad input.

    Example: privrisk outputs survey.csv --spec outputs.toml --out check/
    """
    from privrisk._format import number
    from privrisk.io.files import atomic_path, check_outputs, write_csv
    from privrisk.outputs.check import OutputsSettings
    from privrisk.outputs.check import check_outputs as run_check
    from privrisk.outputs.ledger import append_outputs
    from privrisk.outputs.report import atoms_table, cells_table, rule_text
    from privrisk.release.ledger import read_key

    inputs = [p for p in (data, spec, policy, ledger, key_file) if p is not None]
    if out_dir is not None:
        check_outputs(out_dir, inputs, param="out", folder=True, files=REPORT_FILES)
    if atoms is not None:
        check_outputs(atoms, inputs, param="atoms")
    if cells is not None:
        check_outputs(cells, [*inputs, *([atoms] if atoms is not None else [])], param="cells")
    key = read_key(key_file)
    settings = OutputsSettings(
        data=data, spec=spec, policy=policy, ledger=ledger, key=key, max_atoms=max_atoms
    )
    result = run_check(settings)
    if out_dir is not None:
        result.write(out_dir)
    if atoms is not None:
        with atomic_path(atoms) as tmp:
            write_csv(atoms_table(result), tmp)
    if cells is not None:
        with atomic_path(cells) as tmp:
            write_csv(cells_table(result), tmp)
    appended = append_outputs(ledger, result, key) if ledger is not None else None
    if as_json:
        emit_json(result.to_dict())
    else:
        for o in result.outputs:
            failing = [c for c in o["cells"] if c["status"] != "pass"]
            out.print(
                f"{o['name']} ({o['kind']}): {MARK[o['status']]}, {len(o['cells'])} cells, {len(failing)} not passing"
            )
            for c in failing[:20]:
                where = ", ".join(f"{k} = {v}" for k, v in c["labels"].items()) or "the whole table"
                hidden = ""
                if c.get("interval") is not None and c.get("protected") is False:
                    lo, hi = (number(x, 6) for x in c["interval"])
                    hidden = f" (suppressed alone, it is recomputed as {lo} … {hi}: not protected)"
                out.print(
                    f"  {MARK[c['status']]} {where}: " + "; ".join(rule_text(r) for r in c["rules"]) + hidden
                )
            if len(failing) > 20:
                out.print(f"  … and {len(failing) - 20} more (see --out or --json)")
        s = result.summary
        if s.get("cells_unprotected"):
            out.print(
                f"{s['cells_unprotected']} failing cells would not be protected by suppressing them alone "
                "(see the intervals: --cells, --out or --json)."
            )
        out.print(f"Differencing over {s['atoms']:,} atoms and {s['equations']:,} released numbers:")
        for d in result.disclosures:
            out.print(f"  {d['kind'].upper()}: {d['sentence']}")
        if not result.disclosures:
            out.print("  no disclosure.")
        for r in result.recommendations:
            out.print(f"Suggestion: {r['sentence']} (cost: {r['cost']})")
        out.print(f"Verdict: {MARK[result.status]}")
    if out_dir is not None:
        err.print(f"Wrote {out_dir}/report.html, outputs.json, atoms.csv and a CSV per table.")
    if ledger is not None:
        err.print(
            f"Appended {len(result.outputs)} outputs to {ledger}."
            if appended
            else f"Not appended to {ledger}: the set did not pass."
        )
    if result.status != "pass":
        s = result.summary
        found = s["disclosures_exact"] + s["disclosures_approximate"]
        raise ThresholdExceeded(
            f"outputs: {s['cells_fail']} cells fail, {s['cells_review']} are for review, "
            f"{found} disclosure{'s' if found != 1 else ''} by differencing"
        )
