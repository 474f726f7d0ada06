"""The study's attack side by side with its bound: key table, findings and the report's HTML section.

Formats numbers computed by :func:`privrisk.study.attack` after they were merged into the study's results.
"""

from __future__ import annotations

import html

import numpy as np
import pandas as pd

from privrisk.study.report import pct

# (column of the results, heading in the report and the terminal)
ATTACK_TABLE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("many_worlds", "bound ρ_mw"),
    ("lee_clifton_bound", "Lee–Clifton bound"),
    ("exact_risk", "exact risk"),
    ("expected_success", "expected success"),
    ("simulated_success", "simulated success"),
)

MEANING = (
    "The bound is what the formula promises; the exact risk is the best the attacker can do on this data (its "
    "largest posterior for any world and any answer); the simulated success is the attacker's average, which "
    "the expected success gives exactly."
)


def attack_table(results: pd.DataFrame, epsilon: float) -> pd.DataFrame:
    """Per variable and query at one ε: medians over the repetitions at the smallest and largest attacked n.

    Example:
        >>> r = pd.DataFrame({"variable": "x", "query": "max", "n": [5, 5, 50], "epsilon": 1.0,
        ...     "attacked": True, "many_worlds": [0.3, 0.5, 0.1], "lee_clifton_bound": 0.2, "exact_risk": 0.2,
        ...     "expected_success": 0.1, "simulated_success": 0.1})
        >>> t = attack_table(r, 1.0)
        >>> t["n"].tolist(), t["samples"].tolist(), t["many_worlds"].tolist()
        ([5, 50], [2, 1], [0.4, 0.1])
    """
    at = results[np.isclose(results["epsilon"], epsilon) & results["attacked"].astype(bool)]
    rows = []
    for (var, query), part in at.groupby(["variable", "query"], sort=False):
        for n in sorted({int(part["n"].min()), int(part["n"].max())}):
            sub = part[part["n"] == n]
            row = {"variable": var, "query": query, "n": n, "samples": len(sub)}
            for col, _ in ATTACK_TABLE_COLUMNS:
                row[col] = float(sub[col].median())
            rows.append(row)
    columns = ["variable", "query", "n", "samples", *(c for c, _ in ATTACK_TABLE_COLUMNS)]
    return pd.DataFrame(rows, columns=columns)


def attack_counts(results: pd.DataFrame) -> dict:
    """Samples attacked and skipped, and how often the exact risk exceeds the study's ρ_mw."""
    keys = ["variable", "query", "n", "repetition"]
    samples = results.drop_duplicates(keys)
    per_sample = samples.drop_duplicates(["variable", "n", "repetition"])
    done = results[results["attacked"].astype(bool)]
    above = done["exact_risk"] > done["many_worlds"] * (1 + 1e-9)
    skipped_n = sorted({int(n) for n in per_sample.loc[~per_sample["attacked"].astype(bool), "n"]})
    return {
        "samples_attacked": int(per_sample["attacked"].sum()),
        "samples_skipped": int((~per_sample["attacked"].astype(bool)).sum()),
        "skipped_sizes": skipped_n,
        "rows_exact_above_rho_mw": int(above.sum()),
        "rows_attacked": len(done),
        "largest_excess": float((done["exact_risk"] - done["many_worlds"]).max()) if len(done) else 0.0,
    }


def attack_findings(table: pd.DataFrame, epsilon: float, query: str, counts: dict, trials: int) -> list[str]:
    """Sentences: bound, exact risk and average success of one query per variable; skipped samples; excesses."""
    out = []
    for var in dict.fromkeys(table["variable"]):
        part = table[(table["variable"] == var) & (table["query"] == query)]
        if part.empty:
            continue
        row = part.iloc[0]  # the smallest sample, where the attacker does best
        out.append(
            f"For the {query} query on {var} at ε = {epsilon:g} (n = {row['n']:,}, median of "
            f"{row['samples']} samples), the bound ρ_mw promises at most {pct(row['many_worlds'])}; the "
            f"attacker's best posterior is {pct(row['exact_risk'])} and it guesses the missing record in "
            f"{pct(row['expected_success'])} of releases on average (simulated: "
            f"{pct(row['simulated_success'])} of {trials:,} attacks)."
        )
    if counts["rows_exact_above_rho_mw"]:
        out.append(
            f"In {counts['rows_exact_above_rho_mw']:,} of {counts['rows_attacked']:,} attacked rows the exact "
            f"risk exceeds ρ_mw (by up to {100 * counts['largest_excess']:.3g} percentage points): ρ_mw uses the "
            "local sensitivity Δv, while leaving one record out can move the answer by Δv either way; Lee and "
            "Clifton's bound with Δv = the range of the worlds' answers always holds."
        )
    if counts["samples_skipped"]:
        sizes = counts["skipped_sizes"]
        out.append(
            f"{counts['samples_skipped']:,} samples with more records than --attack-max-n "
            f"(n = {sizes[0]:,} to {sizes[-1]:,}) were not attacked; their attack columns are empty (NaN)."
        )
    return out


def attack_section(table: pd.DataFrame, epsilon: float, trials: int, labels=None) -> str:
    """The report's HTML section: the side-by-side table at one ε, with the sentence that says what it means."""
    labels = labels or {}
    e = html.escape
    half_width = 1.96 * np.sqrt(0.25 / trials)
    parts = [
        f"<h2>Bound, exact risk and the attacker's success at ε = {epsilon:g}</h2>",
        f"<p>{e(MEANING)}</p>",
        '<p class="note">Lee and Clifton\'s attacker knows every record of the sample but one and sees the '
        "answer with Laplace noise scaled to the global sensitivity Δf. Medians over the repetitions at the "
        "smallest and largest sample attacked. ρ_mw is the study's bound (Δv = local sensitivity); the "
        "Lee–Clifton bound uses the range of the worlds' answers and always holds. The simulated success "
        f"comes from {trials:,} attacks per sample: its 95 % interval is up to ±{100 * half_width:.1f} "
        "percentage points wide, so read it as a check of the expected success, not as a better number.</p>",
        '<table><thead><tr><th class="l">variable</th><th class="l">query</th><th>n</th><th>samples</th>',
        *(f"<th>{e(head)}</th>" for _, head in ATTACK_TABLE_COLUMNS),
        "</tr></thead><tbody>",
    ]
    for row in table.itertuples(index=False):
        parts.append(
            f'<tr><td class="l">{e(labels.get(row.variable, row.variable))}</td><td class="l">{e(row.query)}</td>'
            f"<td>{row.n:,}</td><td>{row.samples:,}</td>"
            + "".join(f"<td>{pct(getattr(row, col))}</td>" for col, _ in ATTACK_TABLE_COLUMNS)
            + "</tr>"
        )
    parts.append("</tbody></table>")
    parts.append("<!-- figure -->")  # where the command puts its figure
    return "\n".join(parts)
