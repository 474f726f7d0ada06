"""The report of a sampling study: its settings, findings, key tables, page and folder.

Formats the numbers of :func:`~privrisk.study.sampling.sampling_study` (the study of Allmann, Nuñez von Voigt and
Tschorsch, Allmann et al. 2024, §4) and, when it was run, of :func:`~privrisk.study.attack.study_attack` (Lee and
Clifton's 2011 attacker on every sample). :func:`write_bundle` writes the whole folder: ``results.parquet``,
``summary.csv``, ``figures/`` (PNG and SVG, the analogues of Figures 1 and 2 of Allmann et al.), ``report.html``
and ``manifest.json``. The page goes through privrisk's one HTML skeleton
(:func:`~privrisk.reports.html.html_page`): no scripts, no external CSS, no network references, and its figures
are inline SVG, sanitised by :func:`~privrisk.reports.html.inline_svg`.
"""

from __future__ import annotations

import html
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from privrisk._format import epsilon_text, label, percent_3g, readable
from privrisk.errors import PrivriskError
from privrisk.reports.html import glossary_link, glossary_section, html_page, inline_svg, text_html
from privrisk.study._figures import figure_choices
from privrisk.study.sampling import study_summary

if TYPE_CHECKING:
    from privrisk.study.run import StudySettings

# What write_bundle writes into its folder (the command line checks them before the study runs).
BUNDLE_FILES = ("results.parquet", "summary.csv", "report.html", "manifest.json", "figures/*")

__all__ = [
    "ATTACK_TABLE_COLUMNS",
    "BUNDLE_FILES",
    "MEANING",
    "StudyBundle",
    "attack_counts",
    "attack_findings",
    "attack_section",
    "attack_table",
    "bundle_contents",
    "bundle_parts",
    "findings",
    "key_table",
    "study_page",
    "study_verdict",
    "write_bundle",
]

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


# --------------------------------------------------------------------------------------------------------------
# Key tables and findings
# --------------------------------------------------------------------------------------------------------------


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
    """Sentences whose numbers come from this run: riskiest query, the fall of ρ_mw with n, ρ_tw's range, ρ_gl.

    They restate the findings of Allmann et al. (2024, §4.3) on the data at hand: the max query is riskier than
    the min query on right-skewed data, ρ_mw falls with the sample size, and ρ_tw never falls below 50 %.
    """
    labels = labels or {}
    pct = percent_3g
    at = results[np.isclose(results["epsilon"], epsilon)]
    out: list[str] = []
    # The mean over every sample, all proportions pooled: the median hides the small samples' high risks.
    med = at.groupby(["variable", "query"], sort=False)["two_worlds"].mean()
    for var in dict.fromkeys(at["variable"]):
        name = labels.get(var, var)
        per_query = med.loc[var].sort_values(ascending=False)
        if len(per_query) > 1:
            out.append(
                f"At ε = {epsilon_text(epsilon)}, the riskiest query on {name} is {per_query.index[0]} "
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
                f"mean two-worlds risk at ε = {epsilon_text(epsilon)}."
            )
        sub = at[(at["variable"] == var) & (at["query"] == query)]
        if not sub.empty and sub["n"].nunique() > 1:
            by_n = sub.groupby("n")["many_worlds"].median()
            out.append(
                f"For the {query} query on {name} at ε = {epsilon_text(epsilon)}, the median many-worlds risk falls from "
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
        f"The worst case, the global risk ρ_gl at ε = {epsilon_text(epsilon)}, is {gl:.3f} ({pct(gl)}) whatever the data "
        "and the query."
    )
    return out


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


def attack_counts(results: pd.DataFrame) -> dict[str, Any]:
    """Samples attacked and skipped, and how often the exact risk exceeds the study's ρ_mw."""
    per_sample = results.drop_duplicates(["variable", "n", "repetition"])
    attacked = per_sample["attacked"].astype(bool)
    done = results[results["attacked"].astype(bool)]
    above = done["exact_risk"] > done["many_worlds"] * (1 + 1e-9)
    return {
        "samples_attacked": int(attacked.sum()),
        "samples_skipped": int((~attacked).sum()),
        "skipped_sizes": sorted({int(n) for n in per_sample.loc[~attacked, "n"]}),
        "rows_exact_above_rho_mw": int(above.sum()),
        "rows_attacked": len(done),
        "largest_excess": float((done["exact_risk"] - done["many_worlds"]).max()) if len(done) else 0.0,
    }


def attack_findings(
    table: pd.DataFrame,
    epsilon: float,
    query: str,
    counts: Mapping[str, Any],
    trials: int,
    max_n: int | None = None,
) -> list[str]:
    """Sentences: bound, exact risk and average success of one query per variable; skipped samples; excesses.

    The bound is the study's ρ_mw (Allmann et al. 2024, eq. 4); the attacker is Lee and Clifton's (2011).
    """
    pct = percent_3g
    out = []
    for var in dict.fromkeys(table["variable"]):
        part = table[(table["variable"] == var) & (table["query"] == query)]
        if part.empty:
            continue
        row = part.iloc[0]  # the smallest sample, where the attacker does best
        out.append(
            f"For the {query} query on {var} at ε = {epsilon_text(epsilon)} (n = {row['n']:,}, median of "
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
        limit = "the attack's limit" if max_n is None else f"the attack's limit of {max_n:,}"
        out.append(
            f"{counts['samples_skipped']:,} samples with more records than {limit} "
            f"(n = {sizes[0]:,} to {sizes[-1]:,}) were not attacked; their attack columns are empty (NaN)."
        )
    return out


# --------------------------------------------------------------------------------------------------------------
# The page
# --------------------------------------------------------------------------------------------------------------

# The study's tables: numbers right-aligned, names left; the rest is the shared skeleton's style.
_CSS = """
table.risks th, table.risks td { text-align: right; font-variant-numeric: tabular-nums; }
table.risks .l { text-align: left; }
table.risks small { white-space: nowrap; color: var(--muted); }
ul.findings li { margin: 0.3rem 0; }
#glossary dt { font-weight: 600; margin-top: 0.5rem; }
#glossary dd { margin-left: 1.2rem; }
"""


def _figure(caption: str, svg: str | os.PathLike[str], prefix: str) -> str:
    """One figure: the SVG file sanitised and inlined (ids prefixed), with its caption."""
    label = html.escape(caption)
    return (
        f'<figure class="figure" role="group" aria-label="{label}">{inline_svg(svg, prefix=prefix)}'
        f"<figcaption>{label}</figcaption></figure>"
    )


def attack_section(
    table: pd.DataFrame,
    epsilon: float,
    trials: int,
    labels: Mapping[str, str] | None = None,
    figure: tuple[str, str | os.PathLike[str]] | None = None,
) -> str:
    """The page's section on the attack: the side-by-side table at one ε, its meaning, and its figure if any."""
    labels = labels or {}
    e = html.escape
    half_width = 1.96 * np.sqrt(0.25 / trials)
    parts = [
        f"<h2>Bound, exact risk and the attacker's success at ε = {epsilon_text(epsilon)}</h2>",
        f"<p>{e(MEANING)}</p>",
        '<p class="muted">Lee and Clifton\'s attacker knows every record of the sample but one and sees the '
        "answer with Laplace noise scaled to the global sensitivity Δf. Medians over the repetitions at the "
        "smallest and largest sample attacked. ρ_mw is the study's bound (Δv = local sensitivity); the "
        "Lee–Clifton bound uses the range of the worlds' answers and always holds. The simulated success "
        f"comes from {trials:,} attacks per sample: its 95 % interval is up to ±{100 * half_width:.1f} "
        "percentage points wide, so read it as a check of the expected success, not as a better number.</p>",
        '<div class="scroll"><table class="risks"><thead><tr><th class="l">variable</th><th class="l">query</th>'
        "<th>n</th><th>samples</th>",
        *(f"<th>{e(head)}</th>" for _, head in ATTACK_TABLE_COLUMNS),
        "</tr></thead><tbody>",
    ]
    for row in table.to_dict(orient="records"):
        parts.append(
            f'<tr><td class="l">{e(str(labels.get(row["variable"], row["variable"])))}</td>'
            f'<td class="l">{e(str(row["query"]))}</td><td>{row["n"]:,}</td><td>{row["samples"]:,}</td>'
            + "".join(f"<td>{percent_3g(row[col])}</td>" for col, _ in ATTACK_TABLE_COLUMNS)
            + "</tr>"
        )
    parts.append("</tbody></table></div>")
    if figure is not None:
        parts.append(_figure(figure[0], figure[1], prefix="f3-"))
    return "\n".join(parts)


def _cell(median: float, q1: float, q3: float) -> str:
    return f"{text_html(percent_3g(median))}<br><small>{text_html(percent_3g(q1))} – {text_html(percent_3g(q3))}</small>"


def study_page(
    *,
    title: str,
    intro: str,
    variables: Sequence[Mapping[str, Any]],
    parameters: Mapping[str, Any],
    findings: Sequence[str],
    table: pd.DataFrame,
    epsilon: float,
    figures: Sequence[tuple[str, str | os.PathLike[str]]],
    labels: Mapping[str, str] | None = None,
    attack_html: str = "",
) -> str:
    """The study's self-contained page: findings, figures (sanitised inline SVG), the key table and the set-up.

    ``attack_html`` (from :func:`attack_section`) goes after the key table.
    """
    labels = labels or {}
    e = html.escape
    parts = [
        f"<h1>{e(title)}</h1>",
        f"<p>{e(intro)}</p>",
        glossary_link(),
        "<h2>Findings</h2>",
        '<ul class="findings">',
        *(f"<li>{text_html(s)}</li>" for s in findings),
        "</ul>",
        "<h2>Figures</h2>",
        *(_figure(caption, svg, prefix=f"f{i}-") for i, (caption, svg) in enumerate(figures, start=1)),
        f"<h2>Risks at ε = {epsilon_text(epsilon)}: smallest and largest sample</h2>",
        '<p class="muted">Median over the repetitions, with the quartiles below. The full table (every '
        "proportion, every ε, minimum and maximum too) is <code>summary.csv</code>; every sample is a row of "
        "<code>results.parquet</code>.</p>",
        '<div class="scroll"><table class="risks"><thead><tr>'
        '<th class="l">variable</th><th class="l">query</th><th>n smallest</th>'
        "<th>two-worlds ρ_tw</th><th>many-worlds ρ_mw</th><th>n largest</th>"
        "<th>two-worlds ρ_tw</th><th>many-worlds ρ_mw</th><th>global ρ_gl</th></tr></thead><tbody>",
    ]
    for row in table.to_dict(orient="records"):
        cells = [
            _cell(row[f"{r}_{where}_median"], row[f"{r}_{where}_q1"], row[f"{r}_{where}_q3"])
            for where in ("smallest", "largest")
            for r in ("tw", "mw")
        ]
        parts.append(
            f'<tr><td class="l">{e(str(labels.get(row["variable"], row["variable"])))}</td>'
            f'<td class="l">{e(str(row["query"]))}</td><td>{row["n_smallest"]:,}</td>'
            f"<td>{cells[0]}</td><td>{cells[1]}</td><td>{row['n_largest']:,}</td><td>{cells[2]}</td>"
            f"<td>{cells[3]}</td><td>{percent_3g(row['global_risk'])}</td></tr>"
        )
    parts.append("</tbody></table></div>")
    if attack_html:
        parts.append(attack_html)
    parts += [
        "<h2>Data and set-up</h2>",
        '<div class="scroll"><table class="risks"><thead><tr>'
        '<th class="l">variable</th><th class="l">source</th><th>values used</th><th>dropped</th>'
        '<th class="l">universe</th></tr></thead><tbody>',
    ]
    for v in variables:
        parts.append(
            f'<tr><td class="l">{e(str(v["label"]))}</td><td class="l">{e(str(v["source"]))}</td>'
            f'<td>{v["n"]:,}</td><td>{v["dropped"]:,}</td><td class="l">{e(str(v["universe"]))}</td></tr>'
        )
    parts.append('</tbody></table></div><ul class="muted">')
    for key, value in parameters.items():
        shown = readable(list(value) if isinstance(value, tuple) else value, str(key))
        parts.append(f"<li><b>{e(label(str(key)))}</b>: {e(shown)}</li>")
    parts += [
        "</ul>",
        '<p class="muted">Method (Allmann, Nuñez von Voigt and Tschorsch, §4): for each variable the universe is '
        "its valid values; for each sample proportion p and repetition a sample of round(p·N) records is drawn "
        "without replacement (the samples of one repetition are nested prefixes of one random permutation). "
        "Δf is the global sensitivity over the universe, Δv the exact local sensitivity of the sample "
        "(unbounded neighbours). ρ_mw = 1/(1 + (n − 1)e^(−εΔv/Δf)) with n the sample size; "
        "ρ_tw = 1/(1 + e^(−εΔv/Δf)); ρ_gl = 1/(1 + e^(−ε)). The same seed gives the same numbers.</p>",
        glossary_section(),
    ]
    return html_page(title=title, body="\n".join(parts), css=_CSS, wide=True)


def study_verdict(
    key_figures: Sequence[Mapping[str, Any]], epsilon: float, repetitions: int
) -> tuple[str, str, str]:
    """The study's first number and sentence, in plain words (no symbols), and the line that says where they
    come from.

    The number is the worst median two-worlds risk ρ_tw (Allmann et al., eq. 6) at the figures' ε over the
    variables, queries and the smallest and largest samples: how often an attacker who knows every other record
    would tell whether one person is in the sample, beside guessing (1 in 2), as natural frequencies.

    Example:
        >>> row = {"variable": "hours", "query": "max", "n_smallest": 31, "n_largest": 3100,
        ...        "tw_smallest_median": 0.62, "tw_largest_median": 0.51}
        >>> number, sentence, where = study_verdict([row], 1.0, 100)
        >>> number
        '62 %'
        >>> sentence
        'At a privacy loss of 1, an attacker who knows every other record would tell whether one person is in the data right about 62 times in 100 at worst; guessing, about 50 in 100.'
        >>> where
        'The worst case is the max of hours on samples of 31 records (the median of 100 samples).'
    """
    from privrisk._format import natural_frequencies

    worst = max(
        ((row["tw_smallest_median"], row, row["n_smallest"]) for row in key_figures),
        key=lambda t: t[0],
    )
    for row in key_figures:
        if row["tw_largest_median"] > worst[0]:
            worst = (row["tw_largest_median"], row, row["n_largest"])
    risk, row, n = worst
    attacker, guess = natural_frequencies(risk, 0.5)
    base = f"{attacker.base:,}"
    sentence = (
        f"At a privacy loss of {epsilon_text(epsilon)}, an attacker who knows every other record would tell whether "
        f"one person is in the data right {attacker.text()} times in {base} at worst; guessing, {guess.text()} in "
        f"{base}."
    )
    where = (
        f"The worst case is the {row['query']} of {row['variable']} on samples of {n:,} records (the median of "
        f"{repetitions:,} samples)."
    )
    return percent_3g(risk), sentence, where


# --------------------------------------------------------------------------------------------------------------
# The folder
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class StudyBundle:
    """What :func:`write_bundle` wrote and found: the folder's files, the findings and the key figures."""

    folder: Path
    title: str
    variables: list[dict[str, Any]]
    parameters: dict[str, Any]
    rows: int
    seconds: float | None
    findings: list[str]
    key_figures: pd.DataFrame
    attack: dict[str, Any] | None
    files: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The JSON document of the study (``kind: "study"``), as the command line prints it."""
        return study_document(self, self.files)


def study_document(found: Any, files: dict[str, Any] | None) -> dict[str, Any]:
    """The JSON document of a study (``kind: "study"``) from what it found (a :class:`StudyBundle` or a
    :class:`~privrisk.study.run.StudyRun`) and the files its folder holds (None: not written)."""
    doc: dict[str, Any] = {
        "kind": "study",
        "title": found.title,
        "variables": found.variables,
        "parameters": found.parameters,
        "rows": found.rows,
        "seconds": None if found.seconds is None else round(found.seconds, 3),
        "findings": list(found.findings),
        "key_figures": found.key_figures.to_dict(orient="records"),
    }
    if found.attack is not None:
        doc["attack"] = found.attack
    if files is not None:
        doc["files"] = files
    return doc


@dataclass(frozen=True)
class Contents:
    """What a study found, before any file is written: the figures' query and ε, the key tables, the findings,
    the attack's summary, the variables (with their sample sizes) and the parameters to record."""

    query: str
    epsilon: float
    key_figures: pd.DataFrame
    findings: list[str]
    attack: dict[str, Any] | None
    attack_table: pd.DataFrame | None
    variables: list[dict[str, Any]]
    parameters: dict[str, Any]


def bundle_contents(
    results: pd.DataFrame,
    summary: pd.DataFrame,
    settings: StudySettings,
    variables: Sequence[Mapping[str, Any]] = (),
    extra_parameters: Mapping[str, Any] | None = None,
) -> Contents:
    """The study's findings and tables from its results (what :func:`write_bundle` writes and the run shows)."""
    fig_query, fig_eps = figure_choices(
        settings.queries,
        cast("Sequence[float]", settings.epsilons),
        settings.figure_query,
        settings.figure_epsilon,
    )
    table = key_table(summary, fig_eps)
    sentences = findings(results, fig_eps, fig_query)
    attack_info, a_table = None, None
    if settings.attack:
        if "attacked" not in results.columns:
            raise PrivriskError("results: no attack columns; add study_attack's with merge_attack")
        a_table = attack_table(results, fig_eps)
        counts = attack_counts(results)
        trials = cast(int, settings.attack_trials)
        max_n = cast("int | None", settings.attack_max_n)
        sentences += attack_findings(a_table, fig_eps, fig_query, counts, trials, max_n)
        attack_info = {"trials": trials, "max_n": max_n, **counts,
                       "key_figures": a_table.to_dict(orient="records")}  # fmt: skip
    described = [
        {
            **v,
            "sample_sizes": sorted(
                int(n) for n in results.loc[results["variable"] == v["label"], "n"].unique()
            ),
        }
        for v in variables
    ]
    parameters = {**(extra_parameters or {}), **settings.parameters()}
    return Contents(fig_query, fig_eps, table, sentences, attack_info, a_table, described, parameters)


def bundle_parts(settings: StudySettings) -> int:
    """How many parts :func:`write_bundle` reports to its ``progress``: the tables, Figures 1 and 2 (and the
    attack's section with Figure 3), the page and the manifest.

    Example:
        >>> from privrisk.study.run import StudySettings
        >>> bundle_parts(StudySettings()), bundle_parts(StudySettings(attack=True))
        (4, 5)
    """
    return 4 + bool(settings.attack)


def write_bundle(
    folder: str | os.PathLike[str],
    results: pd.DataFrame,
    summary: pd.DataFrame | None = None,
    *,
    settings: StudySettings,
    title: str,
    intro: str = "",
    variables: Sequence[Mapping[str, Any]] = (),
    extra_parameters: Mapping[str, Any] | None = None,
    seconds: float | None = None,
    progress: Callable[..., None] | None = None,
    figure_formats: tuple[str, ...] = ("png", "svg"),
) -> StudyBundle:
    """Write a study's folder: results.parquet, summary.csv, figures/, report.html and manifest.json.

    The folder is written atomically: files of the same names are replaced only when everything is written,
    other files in it stay. Figures 1 and 2 are the analogues of Figures 1 and 2 of Allmann et al. (2024);
    with the attack's columns (:func:`~privrisk.study.attack.merge_attack`) and ``settings.attack``, the page
    gains the attack's section and Figure 3.

    Args:
        folder: where to write (created if missing).
        results: the study's rows (:func:`~privrisk.sampling_study`, with the attack's columns if it was run).
        summary: :func:`~privrisk.study_summary` of the results (computed if not given).
        settings: the settings the results were computed with.
        title, intro: the page's title and its first paragraph.
        variables: one description per variable (``label, source, n, dropped, universe``, …), as
            :func:`~privrisk.study.inputs.read_variables` gives them; each gains ``sample_sizes``.
        extra_parameters: more settings to record before the study's (e.g. the file read).
        seconds: how long the computation took, if measured.
        progress: called with 1 as each of the :func:`bundle_parts` is written (the tables, each figure, the
            page and the manifest), for a progress bar.
        figure_formats: the figures' files: PNG (for slides) and SVG (inlined in the page), or ``("svg",)``
            alone, which saves the PNG's raster draw where only the page is shown (the app).

    Example:
        >>> import tempfile
        >>> from privrisk import sampling_study
        >>> from privrisk.study.run import StudySettings
        >>> settings = StudySettings(queries=["max"], epsilons=[1.0], proportions=[0.5, 1], repetitions=3)
        >>> results = sampling_study({"x": np.arange(40) % 9}, **settings.sample_arguments())
        >>> bundle = write_bundle(tempfile.mkdtemp(), results, settings=settings, title="A study")
        >>> sorted(bundle.files), bundle.to_dict()["rows"]
        (['figures', 'manifest', 'report', 'results', 'summary'], 6)
    """
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    from privrisk.io.files import atomic_dir, write_csv
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots import study as plots

    out_dir = Path(folder)
    summary = study_summary(results) if summary is None else summary
    found = bundle_contents(results, summary, settings, variables, extra_parameters)
    fig_query, fig_eps, table, sentences = found.query, found.epsilon, found.key_figures, found.findings
    attack_info, a_table, described, parameters = (
        found.attack,
        found.attack_table,
        found.variables,
        found.parameters,
    )
    titles = [
        f"Figure 1: many-worlds and two-worlds risk per query and variable at ε = {epsilon_text(fig_eps)} "
        "(all sample proportions and repetitions; analogue of Figure 1 of Allmann et al.).",
        f"Figure 2: risk against sample proportion for the {fig_query} query, median and quartiles per ε "
        "(analogue of Figure 2 of Allmann et al.).",
        f"Figure 3: the {fig_query} query at ε = {epsilon_text(fig_eps)}: the bounds, the exact risk and the attacker's "
        "expected and simulated success against sample size (medians over the repetitions).",
    ]
    done = progress or (lambda steps=1: None)
    formats = tuple(f for f in ("png", "svg") if f in figure_formats)
    if "svg" not in formats:
        raise PrivriskError("figure_formats: the page inlines the SVG; give ('png', 'svg') or ('svg',)",
                            param="figure_formats")  # fmt: skip
    with atomic_dir(out_dir) as tmp:
        # What results.to_parquet(index=False) writes, byte for byte, without pandas' dispatch on top.
        pq.write_table(pa.Table.from_pandas(results, preserve_index=False), tmp / "results.parquet")
        write_csv(summary, tmp / "summary.csv")
        done(1)
        made = [plots.risk_boxplots(results, fig_eps, tmp / "figures", formats=formats)]
        done(1)
        made.append(plots.risk_by_proportion(summary, fig_query, tmp / "figures", formats=formats))
        done(1)
        attack_html = ""
        if a_table is not None:
            figure = None
            if results["attacked"].any():
                from privrisk.reports.plots.study_attack import attack_by_size

                made.append(attack_by_size(results, fig_eps, fig_query, tmp / "figures", formats=formats))
                figure = (titles[2], made[2]["svg"])
            done(1)
            attack_html = attack_section(a_table, fig_eps, cast(int, settings.attack_trials), figure=figure)
        page = study_page(
            title=title,
            intro=intro,
            variables=described,
            parameters=parameters,
            findings=sentences,
            table=table,
            epsilon=fig_eps,
            figures=[(titles[0], made[0]["svg"]), (titles[1], made[1]["svg"])],
            attack_html=attack_html,
        )
        (tmp / "report.html").write_text(page, encoding="utf-8")
        headline: dict[str, Any] = {
            "rows": len(results),
            "variables": [v["label"] for v in described],
            "figure_epsilon": fig_eps,
            "figure_query": fig_query,
            "two_worlds_range": [float(results["two_worlds"].min()), float(results["two_worlds"].max())],
            "many_worlds_range": [float(results["many_worlds"].min()), float(results["many_worlds"].max())],
            "seconds": None if seconds is None else round(seconds, 3),
        }
        if attack_info is not None:
            headline["attack"] = {k: v for k, v in attack_info.items() if k != "key_figures"}
        names = [{ext: Path(f[ext]).name for ext in ("svg", "png") if ext in f} for f in made]
        write_manifest(
            tmp,
            kind="study",
            title=title,
            parameters=parameters,
            summary=headline,
            findings=sentences,
            tables=[
                {
                    "title": "Risk quantiles per variable, query, proportion and ε",
                    "path": "summary.csv",
                    "percent_columns": ["min", "q1", "median", "q3", "max"],
                }
            ],
            figures=[
                {"title": t, **{ext: f"figures/{n[ext]}" for ext in ("svg", "png") if ext in n}}
                for t, n in zip(titles, names, strict=False)
            ],
        )
    done(1)
    files = {
        "results": str(out_dir / "results.parquet"),
        "summary": str(out_dir / "summary.csv"),
        "report": str(out_dir / "report.html"),
        "manifest": str(out_dir / "manifest.json"),
        "figures": [str(out_dir / "figures" / n[ext]) for n in names for ext in ("png", "svg") if ext in n],
    }
    return StudyBundle(
        folder=out_dir,
        title=title,
        variables=described,
        parameters=parameters,
        rows=len(results),
        seconds=seconds,
        findings=sentences,
        key_figures=table,
        attack=attack_info,
        files=files,
    )
