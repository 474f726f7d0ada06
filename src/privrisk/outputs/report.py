"""The checker's report: an HTML page (verdict first, cells coloured by status, findings in sentences, what to
do), the JSON document, a CSV per checked table and the atoms' intervals (``atoms.csv``)."""

from __future__ import annotations

import html
import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd

from privrisk._format import listing, number, percent_3g
from privrisk.io.files import atomic_dir, to_jsonable, write_csv
from privrisk.outputs.wording import DEFAULT_UNIT, quantity
from privrisk.reports.html import html_page

if TYPE_CHECKING:
    from privrisk.outputs.run import OutputsRun as OutputsResult

__all__ = [
    "CSS",
    "atoms_table",
    "cells_table",
    "html_report",
    "report_body",
    "rule_text",
    "table_frame",
    "write_report",
]

CSS = """
.verdict { font-size: 1.3em; font-weight: bold; padding: .4em .7em; border-radius: .3em; display: inline-block; }
.pass { background: #e3f4e1; } .review { background: #fff3cd; } .fail { background: #f8d7da; }
td.pass, td.review, td.fail { text-align: right; }
table.cells { border-collapse: collapse; margin: .5em 0 1.5em; } table.cells td, table.cells th { padding: .2em .6em; }
"""


def rule_text(rule: dict[str, Any]) -> str:
    """One broken rule in words, with its numbers.

    Example:
        >>> rule_text({"rule": "threshold", "status": "fail", "n": 3, "threshold": 10})
        'threshold: 3 people, fewer than 10'
        >>> rule_text({"rule": "threshold", "status": "fail", "n": 1, "threshold": 10, "unit": "firms"})
        'threshold: 1 firm, fewer than 10'
    """
    r = rule["rule"]
    unit = rule.get("unit") or DEFAULT_UNIT
    if r == "threshold":
        return f"threshold: {quantity(rule['n'], unit)}, fewer than {rule['threshold']}"
    if r == "nk":
        share = rule.get("share")
        share_text = "undefined" if share is None else percent_3g(share)
        return (
            f"({rule['n']}, k) dominance: the {rule['n']} largest hold {share_text} ≥ {percent_3g(rule['k'])}"
        )
    if r == "p-ratio":
        return f"p % rule: the rest is {percent_3g(rule['ratio'])} of the largest < {percent_3g(rule['p'])}"
    if r == "zeros":
        return f"zeros: an empty cell (no {unit})"
    if r == "dof":
        return f"residual degrees of freedom {rule['dof']} < {rule['threshold']}"
    if r == "missing":
        return f"missing values: {rule['missing']}"
    return f"{r}: {rule.get('reason', '')}".strip(": ")


def _end(x: Any) -> Any:
    # ±inf in a CSV or a table reads as "inf"/"-inf" (JSON writes null); a missing interval stays empty.
    if x is None:
        return None
    return x if np.isfinite(x) else ("inf" if x > 0 else "-inf")


def table_frame(result: OutputsResult, name: str) -> pd.DataFrame:
    """One checked output as a tidy table: labels, value, n, status and the rules it broke; for a count, sum
    or mean table also ``lo`` and ``hi``, the interval of the cell over everything else released (what an
    intruder recomputes if it alone is suppressed), and ``protected``, whether that suppression hides it."""
    out = next(o for o in result.outputs if o["name"] == name)
    rows = []
    for cell in out["cells"]:
        row = {
            **cell["labels"],
            "value": cell["value"],
            "n": cell.get("n"),
            "status": cell["status"],
            "rules": "; ".join(rule_text(r) for r in cell["rules"]),
        }
        if "interval" in cell:
            interval = cell["interval"] or [None, None]
            row.update(lo=_end(interval[0]), hi=_end(interval[1]), protected=cell.get("protected"))
        rows.append(row)
    return pd.DataFrame(rows)


def cells_table(result: OutputsResult) -> pd.DataFrame:
    """One row per cell of every count, sum and mean table: ``output``, ``kind``, one column per grouping
    variable, ``value``, ``status``, ``lo``, ``hi`` (the cell's interval over everything else released),
    ``exact`` (False where the programs ran out of time and the interval is a valid outer one) and
    ``protected`` (whether suppressing the cell alone hides it)."""
    rows = []
    for out in result.outputs:
        for cell in out["cells"]:
            if "interval" not in cell:
                continue
            interval = cell["interval"] or [None, None]
            rows.append(
                {
                    "output": out["name"],
                    "kind": out["kind"],
                    **cell["labels"],
                    "value": cell["value"],
                    "status": cell["status"],
                    "lo": _end(interval[0]),
                    "hi": _end(interval[1]),
                    "exact": cell.get("interval_exact"),
                    "protected": cell.get("protected"),
                }
            )
    frame = pd.DataFrame(rows)
    if frame.empty:
        return pd.DataFrame(columns=["output", "kind", "value", "status", "lo", "hi", "exact", "protected"])
    head = ["output", "kind"]
    tail = ["value", "status", "lo", "hi", "exact", "protected"]
    return frame[head + [c for c in frame.columns if c not in head + tail] + tail]


def atoms_table(result: OutputsResult) -> pd.DataFrame:
    """One row per atom: one column per grouping variable and per condition (its truth value), ``lo``, ``hi``."""
    frame = result.atoms
    keep = [c for c in frame.columns if c not in ("n", "tight") and not c.startswith(("lo_", "hi_"))]
    table = frame[keep].copy()
    if "tight" in frame and not frame["tight"].all():
        # In a very large system the upper end is exact only where a disclosure is possible, and an integer
        # program that ran out of time leaves a valid but wider bound (see intervals).
        table["exact"] = frame["tight"].to_numpy()
    for col in ("lo", "hi"):
        # Counts are whole; an unbounded count (no released total holds the atom) is written as inf.
        table[col] = [int(v) + 0 if np.isfinite(v) else "inf" for v in table[col]]
    return table


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return number(value, 6)
    return html.escape(f"{value:,}" if isinstance(value, int) else str(value))


# The interval's columns under the names a checker reads (the CSV keeps lo, hi, protected).
HEADINGS = {"lo": "if hidden: lo", "hi": "hi", "protected": "hidden alone, protected"}


def _shown(column: str, value: Any) -> str:
    """A cell of the HTML table: an interval's infinite ends as ∞, the protection as yes or no."""
    if column in ("lo", "hi") and isinstance(value, str):
        return "∞" if value == "inf" else "−∞"
    if column == "protected" and value is not None:
        return "yes" if value else "no"
    if isinstance(value, float) and value != value:
        return ""
    return _cell(value)


def html_report(result: OutputsResult) -> str:
    """The HTML page for the checker."""
    return html_page(title="Output check", body=report_body(result), css=CSS, wide=True)


def verdict_sentence(doc: dict[str, Any]) -> str:
    """The verdict of a check's JSON document in one sentence: may be released, or why not.

    Example:
        >>> summary = {"earlier_outputs": 0, "disclosures_exact": 1, "disclosures_approximate": 0,
        ...            "cells_fail": 2, "cells_review": 0}
        >>> verdict_sentence({"status": "fail", "summary": summary})
        'May not be released as it is: 1 disclosure by differencing and 2 cells failing the rules.'
    """
    s = doc["summary"]
    status = doc["status"]
    found = s["disclosures_exact"] + s["disclosures_approximate"]
    if status == "pass":
        return (
            "May be released: every cell passes the rules, and no combination of the outputs"
            + (" with those released before" if s["earlier_outputs"] else "")
            + " pins down a group below the threshold."
        )
    why = []
    if found:
        why.append(f"{found} disclosure{'s' if found != 1 else ''} by differencing")
    if s["cells_fail"]:
        why.append(f"{s['cells_fail']} cell{'s' if s['cells_fail'] != 1 else ''} failing the rules")
    if s.get("atoms_undecided"):
        n = s["atoms_undecided"]
        named = "; ".join(doc.get("undecided_groups") or [])
        why.append(
            f"{n:,} group{'s' if n != 1 else ''} the differencing could not decide within its budget"
            + (f" ({named}{' …' if n > len(doc.get('undecided_groups') or []) else ''})" if named else "")
        )
    if s["cells_review"]:
        why.append(f"{s['cells_review']} cell{'s' if s['cells_review'] != 1 else ''} for a person's review")
    head = "May not be released as it is" if status == "fail" else "Needs a person's review"
    return f"{head}: {listing(why)}."


def report_body(result: OutputsResult) -> str:
    """The page's body: the verdict first, the disclosures in sentences, what to do, every output's cells."""
    doc = result.to_dict()
    s = doc["summary"]
    status = doc["status"]
    verdict = verdict_sentence(doc)
    if status != "pass":
        verdict += " What to do is below."
    parts = [
        "<h1>Output check</h1>",
        f'<p class="verdict {status}" id="verdict">{html.escape(verdict)}</p>',
        f"<p>{s['outputs']} outputs, {s['cells']} cells: {s['cells_pass']} pass, {s['cells_review']} for review, "
        f"{s['cells_fail']} fail. Differencing over {s['atoms']:,} atoms ({s['equations']:,} released numbers"
        f"{', ' + str(s['earlier_outputs']) + ' outputs from the ledger' if s['earlier_outputs'] else ''}): "
        f"{s['disclosures_exact']} exact and {s['disclosures_approximate']} approximate disclosures.</p>",
    ]
    parts.append("<h2>Disclosures by differencing</h2>")
    if doc["disclosures"]:
        parts.append(
            "<ul>"
            + "".join(
                f'<li class="{"fail" if d["kind"] == "exact" else "review"}">{html.escape(d["sentence"])}</li>'
                for d in doc["disclosures"]
            )
            + "</ul>"
        )
    else:
        parts.append(
            "<p>None: no combination of the released outputs pins down a group below the threshold.</p>"
        )
    parts.append("<h2>What to do</h2>")
    recs = doc["recommendations"]
    plan = [r for r in recs if r.get("plan", True)]
    others = [r for r in recs if not r.get("plan", True)]

    def items(rs: list[dict[str, Any]]) -> str:
        return (
            "<ul>"
            + "".join(
                f'<li class="{"pass" if r.get("confirmed") else "review"}">{html.escape(r["sentence"])} '
                f"<em>Cost: {html.escape(str(r['cost']))}.</em></li>"
                for r in rs
            )
            + "</ul>"
        )

    if plan:
        parts.append(
            '<p class="privrisk-help" id="plan-help">Apply these together. "Confirmed" means that the audit of '
            "everything that would be released, with these suggestions applied, finds no group pinned down below "
            "the threshold and recomputes no failing cell.</p>" + items(plan)
        )
    if others:
        parts.append(
            '<p class="privrisk-help">Other ways, each in place of the suggestion for its output above, ranked '
            "by what they withhold (confirmed ones first):</p>" + items(others)
        )
    if not recs:
        parts.append("<p>Nothing.</p>")
    parts.append("<h2>Outputs</h2>")
    unprotected = s.get("cells_unprotected", 0)
    undecided = s.get("cells_undecided", 0)
    parts.append(
        '<p class="privrisk-help" id="cell-intervals">Beside each cell of a count, sum or mean table: '
        "<em>lo</em> … <em>hi</em>, what an intruder recomputes of it from everything else released if that "
        "cell alone is suppressed, and whether that suppression protects it (a count: not a single value; a "
        "sum or a mean: wider than its p % protection)."
        + (
            f" {unprotected} failing cell{'s are' if unprotected != 1 else ' is'} not protected by "
            f"suppressing {'them' if unprotected != 1 else 'it'} alone."
            if unprotected
            else ""
        )
        + (
            f" {undecided:,} interval{'s are' if undecided != 1 else ' is'} not proven tight (the programs' time "
            "ran out, or a mean's group count is not known): shown is a wider one that still holds."
            if undecided
            else ""
        )
        + "</p>"
    )
    for out in doc["outputs"]:
        frame = table_frame(result, out["name"])
        # The cells are technical detail: folded, the output's name and status on the fold.
        parts.append(
            f'<details class="output"><summary><strong>{html.escape(out["name"])}</strong> '
            f'<span class="{out["status"]}">({out["kind"]}, {out["status"]})</span></summary>'
        )
        head = "".join(
            f"<th>{html.escape(HEADINGS.get(str(c), str(c)))}</th>" for c in frame.columns if c != "status"
        )
        body = []
        for row in frame.to_dict("records"):
            cls = row["status"]
            cells = "".join(
                f'<td class="{cls}">{_cell(row[c])}</td>' if c == "value" else f"<td>{_shown(c, row[c])}</td>"
                for c in frame.columns
                if c != "status"
            )
            body.append(f'<tr class="{cls}">{cells}</tr>')
        parts.append(
            f'<table class="cells"><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></details>'
        )
    return "\n".join(parts)


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("_") or "output"


def write_report(result: OutputsResult, folder: str | os.PathLike[str]) -> list[Path]:
    """Write ``report.html``, ``outputs.json``, ``atoms.csv``, one ``table-<name>.csv`` per output and
    ``manifest.json``, whole or not at all."""
    import json

    written: list[str] = []
    with atomic_dir(folder) as tmp:
        (tmp / "report.html").write_text(html_report(result), encoding="utf-8")
        (tmp / "outputs.json").write_text(
            json.dumps(to_jsonable(result.to_dict()), indent=2, ensure_ascii=False) + "\n", encoding="utf-8"
        )
        write_csv(atoms_table(result), tmp / "atoms.csv")
        written += ["report.html", "outputs.json", "atoms.csv"]
        used: set[str] = set()
        for out in result.outputs:
            base = f"table-{_file_name(out['name'])}"
            name, k = base, 2
            while name in used:
                name, k = f"{base}-{k}", k + 1
            used.add(name)
            write_csv(table_frame(result, out["name"]), tmp / f"{name}.csv")
            written.append(f"{name}.csv")
        from privrisk.reports.manifest import write_manifest

        doc = result.to_dict()
        titled = [{"title": f"Cells of {o['name']}", "path": w} for o, w in zip(result.outputs, written[3:], strict=True)]
        write_manifest(tmp, kind="outputs", title="Output check", parameters={"policy": doc["policy"]},
                       summary={"status": doc["status"], "verdict": verdict_sentence(doc), **doc["summary"]},
                       findings=[d["sentence"] for d in doc["disclosures"]],
                       tables=[{"title": "Atoms and their intervals", "path": "atoms.csv"}, *titled])  # fmt: skip
        written.append("manifest.json")
    return [Path(folder) / w for w in written]
