"""The HTML page of a microdata measurement: the verdict, the measures in words, the riskiest combinations."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING, Any

import numpy as np

from privrisk._format import number

if TYPE_CHECKING:
    from privrisk.microdata.measure import MicrodataResult

__all__ = ["MEANINGS", "report_html", "risk_histogram"]

MEANINGS = {
    "f_k": "how many records in the file share this combination of key values",
    "F_k": "how many people in the population are estimated to share it (the sum of the sampling weights)",
    "individual risk": "the chance that an intruder who knows a person's key values and finds the matching "
    "record(s) picks this person (Benedetti and Franconi, as sdcMicro)",
    "global risk": "the expected number of people re-identified, as a share of the records",
    "household risk": "the chance that at least one member of the household is re-identified",
    "k-anonymity": "every combination is shared by at least k records",
    "ℓ-diversity": "every class shows at least ℓ different values of the sensitive variable",
    "t-closeness": "in every class the sensitive variable's distribution is within t (earth mover's distance) of "
    "its distribution in the whole file",
    "SUDA": "how many small sets of keys make a record unique (special uniques)",
}

BINS = (0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.5, 1.0)


def risk_histogram(risk: np.ndarray, records: np.ndarray | None = None) -> list[tuple[str, int]]:
    """Records per band of individual risk (0–0.001, …, 0.5–1): each risk counted once, or ``records`` times
    (a file grouped by an engine holds one risk per combination and its records).

    Example:
        >>> risk_histogram(np.array([0.0005, 0.3, 1.0]))[-2:], risk_histogram(np.array([0.3, 1.0]), np.array([4, 2]))[-2:]
        ([('0.2–0.5', 1), ('0.5–1', 1)], [('0.2–0.5', 4), ('0.5–1', 2)])
    """
    counts, _ = np.histogram(risk, bins=BINS, weights=records)
    return [(f"{lo:g}–{hi:g}", int(c)) for lo, hi, c in zip(BINS[:-1], BINS[1:], counts, strict=True)]


def _table(rows: list[list[str]], head: list[str]) -> str:
    h = "".join(f"<th>{html.escape(c)}</th>" for c in head)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(c))}</td>" for c in r) + "</tr>" for r in rows)
    return f"<table><thead><tr>{h}</tr></thead><tbody>{body}</tbody></table>"


def _verdict_html(result: MicrodataResult, where: str = "") -> str:
    v = result.verdict()
    cls = "verdict ok" if v["met"] else "verdict fail"
    items = "".join(f"<li>{html.escape(f)}</li>" for f in v["failures"])
    return (f'<div class="{cls}"><p><strong>{html.escape(where + v["text"])}</strong></p>'
            + (f"<ul>{items}</ul>" if items else "") + "</div>")  # fmt: skip


def _loss_html(loss: list[dict[str, Any]]) -> str:
    rows = [[d["key"], f"{d['suppressed']:,} ({number(100 * d['suppressed_share'], 3)} %)",
             f"{d['distinct_before']:,} → {d['distinct_after']:,}",
             f"{number(d['entropy_before'], 3)} → {number(d['entropy_after'], 3)} bits",
             "lost entirely" if d["lost"] else ""] for d in loss]  # fmt: skip
    return _table(rows, ["key", "values suppressed", "distinct values", "entropy", ""])


def _records_html(result: MicrodataResult) -> str:
    top = result.top_records()
    cols = [c for c in ("row", *result.settings.keys, "f_k", "F_k", "risk", "household_risk", "suda_score")
            if c in top.columns]  # fmt: skip
    rows = [[number(v) if isinstance(v, float) else str(v) for v in r] for r in top[cols].itertuples(index=False)]
    out = f"<h2>The {len(top)} riskiest records</h2>{_table(rows, cols)}"
    suda = result.suda_top()
    if len(suda):
        scols = [c for c in ("row", *result.settings.keys, "f_k", "suda_score", "dis_suda_score") if c in suda.columns]
        srows = [[number(v) if isinstance(v, float) else str(v) for v in r]
                 for r in suda[scols].itertuples(index=False)]  # fmt: skip
        out += f"<h2>The records with the highest SUDA scores</h2>{_table(srows, scols)}"
    return out


def report_html(result: MicrodataResult, *, rows: int = 50, run: Any = None) -> str:
    """A self-contained page (:func:`privrisk.reports.html.html_page`) of one measurement and, with ``run`` (a
    :class:`~privrisk.microdata.run.MicrodataRun`), of its reduction: the released file's verdict first, the
    information lost per key, then the file as given."""
    from privrisk.reports.html import html_page

    reduced = None if run is None else run.reduced
    head = ""
    if reduced is not None:
        head = (_verdict_html(reduced, "The released file: ") + f"<p>{html.escape(str(run.reduction))}</p>"
                + "<h2>What the reduction cost</h2>" + _loss_html(run.information_loss())
                + "<h2>The released file's measures</h2><ul>"
                + "".join(f"<li>{html.escape(f)}</li>" for f in reduced.findings()) + "</ul>"
                + "<h2>The file as given</h2>")  # fmt: skip
    elif run is not None and run.reduction is not None:
        head = f'<div class="verdict fail"><p><strong>{html.escape(run.reduction)}</strong></p></div>'
    verdict = _verdict_html(result, "The file as given: " if reduced is not None else "")
    findings = "<ul>" + "".join(f"<li>{html.escape(f)}</li>" for f in result.findings()) + "</ul>"
    # a grouped file's risks are its combinations': each counted for its records
    hist = risk_histogram(result.risk, result.records_per_risk())
    biggest = max(c for _, c in hist) or 1
    bars = _table([[band, f"{c:,}", "█" * max(0, round(40 * c / biggest))] for band, c in hist],
                  ["individual risk", "records", ""])  # fmt: skip
    combos = result.top_combinations(rows)
    combo_rows = [[*(str(v) for v in r[: len(result.settings.keys)]), f"{r[-4]:,}", f"{r[-3]:,}", number(r[-2]),
                   number(r[-1])] for r in combos.itertuples(index=False)]  # fmt: skip
    combo_table = _table(combo_rows, [*result.settings.keys, "records", "f_k", "F_k", "risk"])
    meanings = "<dl>" + "".join(f"<dt>{html.escape(k)}</dt><dd>{html.escape(v)}</dd>" for k, v in MEANINGS.items())
    body = (
        f"<h1>Re-identification risk of {html.escape(result.source)}</h1>{head}{verdict}"
        f"<h2>What the measures say</h2>{findings}"
        f"<h2>Distribution of individual risk</h2>{bars}"
        f"{_records_html(result)}"
        f"<h2>The riskiest key combinations</h2>{combo_table}"
        f"<h2>What each measure means</h2>{meanings}</dl>"
    )
    return html_page(title=f"Re-identification risk of {result.source}", body=body, wide=True)
