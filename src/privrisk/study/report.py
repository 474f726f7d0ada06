"""Findings sentences, the key table and the self-contained ``report.html`` of a sampling study.

Everything here formats numbers computed by :mod:`privrisk.study.sampling`; the page has no scripts, no external CSS and
no network references: its figures are inline SVG.
"""

from __future__ import annotations

import html
import re
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd


def pct(x: float) -> str:
    """A probability as a percentage with three significant digits (never 0 % or 100 % unless exact).

    Example:
        >>> pct(0.7310585786), pct(3.5e-05), pct(1.0)
        ('73.1 %', '0.0035 %', '100 %')
    """
    x = float(x)
    if x in (0.0, 1.0):
        return f"{100 * x:.0f} %"
    text = f"{100 * x:.3g}"
    if "e" in text:
        text = f"{100 * x:.2e}"
    if text == "100":
        return "more than 99.9 %"
    return f"{text} %"


def pick_epsilon(epsilons: Sequence[float], wanted: float = 1.0) -> float:
    """The ε nearest to the one wanted (on a log scale), for the figures and the findings.

    Example:
        >>> pick_epsilon([0.1, 0.5, 2.0]), pick_epsilon([0.1, 1.0, 10.0])
        (0.5, 1.0)
    """
    eps = np.asarray(sorted(set(float(e) for e in epsilons)))
    positive = eps[eps > 0]
    if positive.size == 0:
        return float(eps[0])
    return float(positive[np.argmin(np.abs(np.log(positive) - np.log(wanted)))])


def key_table(summary: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per variable and query at one ε: median (and quartiles) of ρ_tw and ρ_mw at the smallest and largest n."""
    at = summary[np.isclose(summary["epsilon"], epsilon)]
    rows = []
    for (var, query), part in at.groupby(["variable", "query"], sort=False):
        n_small, n_large = part["n"].min(), part["n"].max()
        row = {"variable": var, "query": query, "n_smallest": int(n_small), "n_largest": int(n_large)}
        for risk, short in (("two_worlds", "tw"), ("many_worlds", "mw")):
            for n, where in ((n_small, "smallest"), (n_large, "largest")):
                hit = part[(part["risk"] == risk) & (part["n"] == n)].iloc[0]
                row[f"{short}_{where}_median"] = hit["median"]
                row[f"{short}_{where}_q1"] = hit["q1"]
                row[f"{short}_{where}_q3"] = hit["q3"]
        row["global_risk"] = part.loc[part["risk"] == "global_risk", "median"].iloc[0]
        rows.append(row)
    return pd.DataFrame(rows)


def findings(
    results: pd.DataFrame,
    epsilon: float,
    query: str,
    labels: Mapping[str, str] | None = None,
) -> list[str]:
    """Sentences whose numbers come from this run: riskiest query, the fall of ρ_mw with n, ρ_tw's range, ρ_gl."""
    labels = labels or {}
    at = results[np.isclose(results["epsilon"], epsilon)]
    out: list[str] = []
    # The mean over every sample, all proportions pooled: the median hides the small samples' high risks.
    med = at.groupby(["variable", "query"], sort=False)["two_worlds"].mean()
    for var in dict.fromkeys(at["variable"]):
        name = labels.get(var, var)
        per_query = med.loc[var].sort_values(ascending=False)
        if len(per_query) > 1:
            out.append(
                f"At ε = {epsilon:g}, the riskiest query on {name} is {per_query.index[0]} "
                f"(mean two-worlds risk {pct(per_query.iloc[0])} over all samples and proportions); the least risky is "
                f"{per_query.index[-1]} ({pct(per_query.iloc[-1])})."
            )
        if {"min", "max"} <= set(per_query.index):
            mx, mn = per_query["max"], per_query["min"]
            if mx > mn:
                verb = "riskier than"
            elif mx < mn:
                verb = "less risky than"
            else:
                verb = "as risky as"
            out.append(
                f"On {name}, the max query ({pct(mx)}) is {verb} the min query ({pct(mn)}), "
                f"mean two-worlds risk at ε = {epsilon:g}."
            )
        sub = at[(at["variable"] == var) & (at["query"] == query)]
        if not sub.empty and sub["n"].nunique() > 1:
            by_n = sub.groupby("n")["many_worlds"].median()
            out.append(
                f"For the {query} query on {name} at ε = {epsilon:g}, the median many-worlds risk falls from "
                f"{pct(by_n.iloc[0])} with n = {by_n.index[0]:,} records to {pct(by_n.iloc[-1])} with "
                f"n = {by_n.index[-1]:,}."
            )
    tw = results["two_worlds"]
    out.append(
        f"Over every sample and ε of this run, the two-worlds risk ranges from {pct(tw.min())} to "
        f"{pct(tw.max())}: it never falls below 50 %, the chance of guessing whether one person is in the data."
    )
    gl = float(at["global_risk"].iloc[0])
    out.append(
        f"The worst case, the global risk ρ_gl at ε = {epsilon:g}, is {gl:.3f} ({pct(gl)}) whatever the data "
        "and the query."
    )
    return out


def _inline_svg(path: Path) -> str:
    text = Path(path).read_text(encoding="utf-8")
    text = re.sub(r"^\s*<\?xml[^>]*>\s*", "", text)
    text = re.sub(r"<!DOCTYPE[^>]*>\s*", "", text)
    # Let the figure shrink to the page's width.
    return re.sub(
        r'(<svg[^>]*?)\swidth="[^"]*"\sheight="[^"]*"',
        r'\1 style="max-width:100%;height:auto"',
        text,
        count=1,
    )


_CSS = """
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:2rem auto;max-width:1100px;
padding:0 1rem;color:#222;line-height:1.45}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #ddd}
table{border-collapse:collapse;font-size:.85rem;margin:.5rem 0}
th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:right}th{background:#f3f3f3}
td.l,th.l{text-align:left}small{white-space:nowrap}figure{margin:1rem 0}figcaption{font-size:.9rem;color:#555}
.note{color:#555;font-size:.9rem}ul.findings li{margin:.3rem 0}
"""


def _cell(median: float, q1: float, q3: float) -> str:
    return f"{pct(median)}<br><small>{pct(q1)} – {pct(q3)}</small>"


def write_report(
    path: Path,
    *,
    title: str,
    intro: str,
    variables: Sequence[Mapping],
    parameters: Mapping,
    findings_: Sequence[str],
    table: pd.DataFrame,
    epsilon: float,
    figures: Sequence[tuple[str, Path]],
    labels: Mapping[str, str] | None = None,
    extra_html: str | None = None,
) -> None:
    """Write one self-contained HTML page: findings, figures (inline SVG), the key table and the set-up.

    ``extra_html`` (trusted HTML made by privrisk, e.g. the attack's section) goes after the key table.
    """
    labels = labels or {}
    e = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{e(title)}</title><style>{_CSS}</style></head><body>",
        f"<h1>{e(title)}</h1>",
        f"<p>{e(intro)}</p>",
        "<h2>Findings</h2>",
        '<ul class="findings">',
        *(f"<li>{e(s)}</li>" for s in findings_),
        "</ul>",
        "<h2>Figures</h2>",
    ]
    for caption, svg in figures:
        parts.append(f"<figure>{_inline_svg(svg)}<figcaption>{e(caption)}</figcaption></figure>")
    parts += [
        f"<h2>Risks at ε = {epsilon:g}: smallest and largest sample</h2>",
        '<p class="note">Median over the repetitions, with the quartiles below. The full table (every '
        "proportion, every ε, minimum and maximum too) is <code>summary.csv</code>; every sample is a row of "
        "<code>results.parquet</code>.</p>",
        "<table><thead><tr>"
        '<th class="l">variable</th><th class="l">query</th><th>n smallest</th>'
        "<th>two-worlds ρ_tw</th><th>many-worlds ρ_mw</th><th>n largest</th>"
        "<th>two-worlds ρ_tw</th><th>many-worlds ρ_mw</th><th>global ρ_gl</th></tr></thead><tbody>",
    ]
    for row in table.itertuples(index=False):
        parts.append(
            f'<tr><td class="l">{e(labels.get(row.variable, row.variable))}</td><td class="l">{e(row.query)}</td>'
            f"<td>{row.n_smallest:,}</td>"
            f"<td>{_cell(row.tw_smallest_median, row.tw_smallest_q1, row.tw_smallest_q3)}</td>"
            f"<td>{_cell(row.mw_smallest_median, row.mw_smallest_q1, row.mw_smallest_q3)}</td>"
            f"<td>{row.n_largest:,}</td>"
            f"<td>{_cell(row.tw_largest_median, row.tw_largest_q1, row.tw_largest_q3)}</td>"
            f"<td>{_cell(row.mw_largest_median, row.mw_largest_q1, row.mw_largest_q3)}</td>"
            f"<td>{pct(row.global_risk)}</td></tr>"
        )
    parts.append("</tbody></table>")
    if extra_html:
        parts.append(extra_html)
    parts += [
        "<h2>Data and set-up</h2>",
        "<table><thead><tr>"
        '<th class="l">variable</th><th class="l">source</th><th>values used</th><th>dropped</th>'
        '<th class="l">universe</th></tr></thead><tbody>',
    ]
    for v in variables:
        parts.append(
            f'<tr><td class="l">{e(str(v["label"]))}</td><td class="l">{e(str(v["source"]))}</td>'
            f'<td>{v["n"]:,}</td><td>{v["dropped"]:,}</td><td class="l">{e(str(v["universe"]))}</td></tr>'
        )
    parts.append('</tbody></table><ul class="note">')
    for key, value in parameters.items():
        shown = (
            ", ".join(f"{x:g}" if isinstance(x, float) else str(x) for x in value)
            if isinstance(value, list | tuple)
            else str(value)
        )
        parts.append(f"<li><b>{e(str(key))}</b>: {e(shown)}</li>")
    parts += [
        "</ul>",
        '<p class="note">Method (Allmann, Nuñez von Voigt and Tschorsch, §4): for each variable the universe is '
        "its valid values; for each sample proportion p and repetition a sample of round(p·N) records is drawn "
        "without replacement (the samples of one repetition are nested prefixes of one random permutation). "
        "Δf is the global sensitivity over the universe, Δv the exact local sensitivity of the sample "
        "(unbounded neighbours). ρ_mw = 1/(1 + (n − 1)e^(−εΔv/Δf)) with n the sample size; "
        "ρ_tw = 1/(1 + e^(−εΔv/Δf)); ρ_gl = 1/(1 + e^(−ε)). The same seed gives the same numbers.</p>",
        "</body></html>",
    ]
    Path(path).write_text("\n".join(parts) + "\n", encoding="utf-8")
