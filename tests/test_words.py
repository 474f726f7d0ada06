"""The words and numbers people read (issue 16): sources by name, pages formatted for people, every column named.

The checks run over everything a user reads, found at run time so that they also catch what is added later: every
``--help`` text of every command the application registers, the terminal output of the commands, every page the
commands write (each folder's ``report.html``, the explainer, and one ``privrisk report`` over every folder), the
README and the docs. They fail on a source cited by its file number ("000"–"004"), on raw JSON or machine
numbers in a page (``["a", …]``, ``[0.5, 0.9998426007315884]``, ``3.139027529271432e-05``, ``seconds 2.189``),
and on a table column without a heading.
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import math
import re
from html.parser import HTMLParser
from pathlib import Path

import click
import pytest
import typer
from hypothesis import given
from hypothesis import strategies as st

from browser_helpers import Opened
from privrisk._format import (
    count,
    duration,
    epsilon_text,
    label,
    listing,
    number,
    percent_3g,
    percent_range,
    readable,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"

# A source cited by the number of its file: "000 §3.2", "002's", "(seed 001)", '"003"'; not 1,000, 0.001 or 2000.
SEED = re.compile(r"(?<![\w.,#])00[0-4](?![\d,]|\.\d)")  # not a colour such as #000
# Numbers as a machine prints them: a JSON list of strings or of numbers, a JSON object, e-notation,
# "seconds 2.189"; a decimal with more than seven significant digits is found by raw_numbers itself.
RAW_JSON = (
    re.compile(r"\[\s*\"[^\]]*\"\s*[,\]]"),
    re.compile(r"\[\s*-?\d+\.\d+\s*,\s*-?\d"),
    re.compile(r"\[\s*-?\d+(\.\d+)?(\s*,\s*-?\d+(\.\d+)?){2,}\s*\]"),
    re.compile(r"\{\s*\"\w+\"\s*:"),
    re.compile(r"\d(\.\d+)?e[+-]?\d+", re.IGNORECASE),
    re.compile(r"\bseconds\s+\d"),
)
DECIMAL = re.compile(r"(?<![\d.])\d+\.\d+")


def seed_citations(text: str) -> list[str]:
    """Each line of ``text`` that cites a source by its file number."""
    return [line.strip() for line in text.splitlines() if SEED.search(line)]


def test_the_seed_pattern_finds_citations_and_spares_numbers():
    cited = [
        "as 000 §3.2 does",
        "002's running example",
        "(seed 001)",
        'risk study, "000"',
        "see 004.",
        "003 Table 4",
    ]
    spared = [
        "1,000 trials",
        "δ = 0.001",
        "2000 records",
        "10001",
        "N = 1,000,000",
        "ε 0.004",
        "x0001",
        "v1.004",
    ]
    assert all(SEED.search(t) for t in cited)
    assert not any(SEED.search(t) for t in spared)


def raw_numbers(text: str) -> list[str]:
    """Each fragment of ``text`` written as a machine prints it."""
    found = [m.group(0) for pattern in RAW_JSON for m in pattern.finditer(text)]
    return found + [
        m.group(0) for m in DECIMAL.finditer(text) if len(m.group(0).replace(".", "").lstrip("0")) > 7
    ]


def test_the_raw_json_patterns_find_machine_numbers_and_spare_words():
    for bad in ('["weekly work hours (labsup)", "x"]', "[0.5, 0.9998426007315884]", "3.139027529271432e-05",
                "seconds 2.189", '{"sum": 55}', "1e-05", "[1, 2, 3]", "13.31234567"):  # fmt: skip
        assert raw_numbers(bad), bad
    for good in ("50 % – 99.98 %", "0.00314 %", "3.9 × 10⁻⁵⁶", "2.2 seconds", "[0, 100]", "31,857", "ln 3 ≈ 1.099",
                 "0.0009136", "10.81483"):  # fmt: skip
        assert not raw_numbers(good), good


# --------------------------------------------------------------------------------------------------------------
# The formatter: values from hand calculations
# --------------------------------------------------------------------------------------------------------------


def test_the_issue_examples_read_as_people_write_them():
    assert percent_range(0.5, 0.9998426007315884) == "50 % – 99.98 %"
    assert percent_3g(3.139027529271432e-05) == "0.00314 %"
    assert readable(["weekly work hours (labsup)", "labour income (labsup)"], "variables") == (
        "weekly work hours (labsup) and labour income (labsup)"
    )
    assert readable(2.189, "seconds") == "2.2 seconds"
    assert readable(24000, "rows") == "24,000" and count(1_000_000) == "1,000,000"
    assert (
        epsilon_text(math.log(3)) == "ln 3" and epsilon_text(math.log(3), approximate=True) == "ln 3 ≈ 1.099"
    )
    assert readable([0.1, math.log(2), 1.0], "epsilons") == "0.1, ln 2 and 1"
    assert label("global_risk") == "global risk ρ_gl" and label("many_worlds") == "many-worlds risk ρ_mw"


def test_percent_keeps_the_digits_that_tell_a_risk_from_certainty():
    # 1 − 0.99984 = 0.016 %: its first significant digit is the second decimal of the percentage.
    assert percent_3g(0.99984) == "99.98 %"
    assert percent_3g(0.9999996) == "99.99996 %" and percent_3g(1 - 1e-12) == "more than 99.99999 %"
    assert percent_3g(0.7310585786300049) == "73.1 %"  # the global risk at ε = 1, three significant digits
    assert percent_3g(0.5) == "50 %" and percent_3g(1.0) == "100 %" and percent_3g(0.0) == "0 %"
    assert percent_3g(1e-9) == "1 × 10⁻⁷ %"


@given(st.floats(min_value=0.0, max_value=1.0, allow_nan=False))
def test_a_probability_is_never_rounded_to_certainty_or_to_nothing(p):
    text = percent_3g(p)
    assert text.endswith(" %") and not raw_numbers(text)
    if 0 < p < 1:
        assert text not in ("0 %", "100 %")
    if p < 1 and "×" not in text:
        assert float(text.removeprefix("more than ").split()[0]) < 100


@given(st.floats(min_value=-1e15, max_value=1e15, allow_nan=False))
def test_numbers_never_use_e_notation_and_keep_their_value(x):
    text = number(x)
    assert "e" not in text.lower()
    if "×" not in text and x != 0:
        # Four significant digits: the text is within half a unit of the fourth digit.
        assert float(text.replace(",", "")) == pytest.approx(x, rel=5e-4, abs=5e-5)


@given(st.integers(min_value=2, max_value=1000))
def test_the_log_of_a_whole_number_reads_as_ln(k):
    assert epsilon_text(math.log(k)) == f"ln {k}"
    assert epsilon_text(math.log(k) * (1 + 1e-9)) != f"ln {k}"


def test_durations_and_lists_in_words():
    assert duration(0.05) == "less than 0.1 seconds" and duration(59.4) == "59 seconds"
    assert duration(61) == "1 minute 1 second" and duration(7200) == "2 hours"
    assert listing(["mean"]) == "mean" and listing([]) == "none"


# --------------------------------------------------------------------------------------------------------------
# What the commands print and write
# --------------------------------------------------------------------------------------------------------------


def run(*args: object) -> tuple[int, str, str]:
    """``privrisk ARGS`` in-process: exit code, stdout and stderr."""
    from privrisk.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # --help exits through click
            code = exc.code if isinstance(exc.code, int) else 0
    return code, out.getvalue(), err.getvalue()


def command_names() -> list[str]:
    """Every command the application registers, as click lists them."""
    from privrisk.cli import app

    group = typer.main.get_command(app)
    return list(group.list_commands(click.Context(group)))


@pytest.mark.slow
def test_every_help_text_cites_sources_by_name():
    names = command_names()
    assert {"study", "audit", "derived", "presence", "empirical", "report"} <= set(names)
    for args in ([], *([name] for name in names)):
        code, text, err = run(*args, "--help")
        assert code == 0, (args, err)
        assert not seed_citations(text), (args, seed_citations(text))
        assert not re.search(r"\bthe paper\b", text), (args, "which paper? name its authors")


class _Tables(HTMLParser):
    """The tables of a page: for each, the text of every heading cell and the number of columns of its rows."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict] = []
        self._cell: list[str] | None = None
        self._row: list[tuple[str, str]] = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("svg", "script", "style"):
            self._skip += 1
        elif tag == "table":
            self.tables.append({"rows": []})
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = [tag]

    def handle_endtag(self, tag):
        if tag in ("svg", "script", "style"):
            self._skip -= 1
        elif tag in ("td", "th") and self._cell is not None:
            self._row.append((self._cell[0], "".join(self._cell[1:]).strip()))
            self._cell = None
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append(self._row)

    def handle_data(self, data):
        if self._cell is not None and not self._skip:
            self._cell.append(data)


def page_text(page: str) -> str:
    """What a reader sees of a page: no scripts, styles, figures or tags."""
    for element in ("script", "style", "svg"):
        page = re.sub(rf"<{element}\b.*?</{element}>", " ", page, flags=re.S | re.I)
    return html.unescape(re.sub(r"<[^>]+>", " ", page))


def check_page(name: str, page: str) -> None:
    """No seed numbers, no raw JSON, every table column with a heading, and a glossary for report pages."""
    text = page_text(page)
    assert not seed_citations(text), (name, seed_citations(text))
    assert not raw_numbers(text), (name, raw_numbers(text)[:5])
    parser = _Tables()
    parser.feed(page)
    for index, table in enumerate(parser.tables, start=1):
        rows = [r for r in table["rows"] if r]
        assert rows, (name, index, "an empty table")
        heads = [r for r in rows if all(kind == "th" for kind, _ in r)]
        keyed = all(r[0][0] == "th" for r in rows)  # a key-value table: a heading per row
        assert heads or keyed, (name, index, "a table without headings")
        for row in heads:
            assert all(text for _, text in row), (name, index, "a column without a heading", row)
        if heads:
            width = max(len(r) for r in rows)
            assert len(heads[0]) == width, (name, index, "more columns than headings")


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """Run the commands that write pages or print tables once; their stdout, stderr and output folders."""
    from privrisk.datasets.chicago import chicago_like

    tmp = tmp_path_factory.mktemp("words")
    survey = tmp / "survey.csv"
    survey.write_text(
        "hours,income\n" + "".join(f"{(7 * i) % 41},{(13 * i) % 97 * 10}\n" for i in range(300))
    )
    trial = tmp / "trial.csv"
    trial.write_text("zip,age\n85535,10\n85535,12\n85535,13\n85535,13\n85535,16\n85535,43\n")
    census = tmp / "census.csv"
    census.write_text(
        "zip,age,n\n85535,10-19,5\n85535,20-29,5\n85535,30-39,10\n85535,40-49,10\n85535,50+,20\n"
    )
    inspections = tmp / "inspections.parquet"
    chicago_like(300, 24, seed=4).to_parquet(inspections)
    hierarchy = "age=breaks:10,20,30,40,50,inf/10,40,50,inf"
    # A count and a sum with a published n: useful answers (a mean at these ε would be refused as useless).
    spec = tmp / "release.toml"
    spec.write_text(
        'public_n = 100\n\n[[query]]\ncolumn = "distance"\nquery = "count"\nepsilon = 1\nuniverse = [0, 700]\n\n'
        '[[query]]\ncolumn = "distance"\nquery = "sum"\nepsilon = "ln3"\nuniverse = [0, 700]\n'
    )
    commands = {
        "risk": ("risk", "--epsilon", "ln3", "--n", "10"),
        "table": ("table",),
        "sensitivity": ("sensitivity", survey, "--column", "hours", "--query", "median", "--epsilon", "1"),
        "study": ("study", survey, "-c", "hours", "-c", "income", "--queries", "mean,max", "--epsilons", "1,ln3",
                  "--proportions", "0.1,0.5,1", "--repetitions", "3", "--attack", "--attack-trials", "50",
                  "--out", tmp / "study"),
        "attack": ("attack", EXAMPLES / "distance_work.csv", "--column", "distance", "--query", "mean",
                   "--epsilon", "1", "--trials", "200", "--out", tmp / "attack"),
        "presence": ("presence", trial, "--population", census, "--population-count", "n", "--qi", "zip,age",
                     "-H", hierarchy, "--delta-max", "0.5", "--search", "--out", tmp / "presence"),
        "audit": ("audit", EXAMPLES / "claims.csv", "-c", "claims", "-q", "mean", "-e", "2", "--u", "0.75",
                  "--universe", "0,100", "--sweep-record", "30", "--sweep-values", "14,20", "--out", tmp / "audit"),
        "derived": ("derived", "--values", "1..10", "--epsilon", "2"),
        "empirical": ("empirical", inspections, "--preset", "chicago", "--top", "3", "--out", tmp / "empirical"),
        "release": ("release", EXAMPLES / "distance_work.csv", "--spec", spec, "--out", tmp / "release"),
        "explain": ("explain", "--epsilon", "ln3", "--n", "100", "--out", tmp / "explain.html"),
    }  # fmt: skip
    printed = {}
    for name, args in commands.items():
        code, out, err = run(*args)
        assert code in (0, 1), (name, code, err)  # 1: a threshold (presence's δ) may be exceeded
        printed[name] = (out, err)
    folders = [tmp / name for name in ("study", "attack", "presence", "audit", "empirical", "release")]
    folders = [f for f in folders if (f / "manifest.json").exists()]
    code, _, err = run("report", *folders, "--out", tmp / "report.html")
    assert code == 0, err
    pages = {p.relative_to(tmp).as_posix(): p for p in sorted(tmp.rglob("*.html"))}
    return {"printed": printed, "folders": folders, "pages": pages, "tmp": tmp}


@pytest.mark.slow
def test_every_page_the_commands_write_reads_as_words(outputs):
    pages = outputs["pages"]
    assert {"report.html", "study/report.html", "explain.html"} <= set(pages)
    for name, path in pages.items():
        check_page(name, path.read_text(encoding="utf-8"))


@pytest.mark.slow
def test_the_combined_report_shows_every_folder_formatted_and_has_a_glossary(outputs):
    page = outputs["pages"]["report.html"].read_text(encoding="utf-8")
    text = page_text(page)
    assert len(outputs["folders"]) >= 5
    assert 'href="#glossary"' in page and 'id="glossary"' in page
    for term in (
        "many-worlds risk ρ_mw",
        "two-worlds risk ρ_tw",
        "global risk ρ_gl",
        "global leak Γ",
        "local leak γ",
    ):
        assert term in text
    # The study's summary as the issue asks: a range of percentages, a time in words, a list.
    assert re.search(r"two-worlds risk ρ_tw, lowest – highest\s+50\s%\s–\s\d+(\.\d+)?\s%", text)
    assert "50\u00a0%" in page  # a number stays on one line with its unit
    # issue 20: the time is said as what it is, the computation (the command prints its whole wall time)
    assert re.search(r"time computing \(reading and writing not included\)\s+(less than )?\d+(\.\d)? seconds?", text)
    assert "global risk P" not in text


@pytest.mark.slow
def test_the_study_page_links_its_glossary(outputs):
    page = outputs["pages"]["study/report.html"].read_text(encoding="utf-8")
    assert 'href="#glossary"' in page and 'id="glossary"' in page


def terminal_tables(text: str) -> list[tuple[list[str], str]]:
    """Each Rich table printed in ``text``: its column headings (wrapped lines joined), and the line under it."""
    lines = text.splitlines()
    tables = []
    for i, line in enumerate(lines):
        if line.startswith("┏"):
            heads = []
            j = i + 1
            while j < len(lines) and lines[j].startswith("┃"):
                heads.append([c.strip() for c in lines[j].strip("┃").split("┃")])
                j += 1
            end = next(k for k in range(j, len(lines)) if lines[k].startswith("└"))
            columns = [" ".join(line[c] for line in heads if line[c]) for c in range(len(heads[0]))]
            tables.append((columns, lines[end + 1] if end + 1 < len(lines) else ""))
    return tables


@pytest.mark.slow
def test_every_terminal_table_names_every_column(outputs):
    seen = 0
    for name, (out, err) in outputs["printed"].items():
        assert not seed_citations(out + err), (name, seed_citations(out + err))
        for heads, _ in terminal_tables(out):
            seen += 1
            assert all(heads), (name, "a column without a heading", heads)
    assert seen >= 10


# Commands whose tables each say under them, in one line, what their columns mean.
CAPTIONED = ("sensitivity", "study", "attack", "presence", "audit", "derived", "empirical")


@pytest.mark.slow
def test_every_table_says_what_its_columns_mean(outputs):
    for name in CAPTIONED:
        out, _ = outputs["printed"][name]
        tables = terminal_tables(out)
        assert tables, name
        for heads, under in tables:
            assert ":" in under and len(under) > 30, (name, heads, under)


@pytest.mark.slow
def test_the_audit_names_its_flag_column(outputs):
    out, _ = outputs["printed"]["audit"]
    flagged = [heads for heads, _ in terminal_tables(out) if "p1/p3" in heads]
    assert len(flagged) == 2 and all("beyond e^ε" in h for h in flagged)  # the intruder's table and the sweep


@pytest.mark.slow
def test_derived_shows_the_variances_of_sarathy_and_muralidhar(outputs):
    out, _ = outputs["printed"]["derived"]
    rows = {line.strip("│").split("│")[0].strip(): line for line in out.splitlines() if line.startswith("│")}
    assert [c.strip() for c in rows["noise variance 2b²"].strip("│").split("│")][1:] == ["50", "0.125"]
    assert rows["effective variance"].strip("│").split("│")[1].strip() == "12.5"
    assert "b" in rows and "noise half-width" in rows and "effective half-width" in rows


@pytest.mark.slow
def test_json_keys_are_kept_and_the_new_ones_added(outputs):
    code, out, _ = run("derived", "--values", "101..110", "--epsilon", "2", "--json")
    doc = json.loads(out)
    assert code == 0 and {"scale", "half_width", "effective_scale", "effective_epsilon"} <= set(doc)
    assert doc["variance"] == {"sum": 6050.0, "mean": 0.125} and doc["effective_variance"] == 12.5


@pytest.mark.slow
@pytest.mark.browser
def test_report_pages_in_the_browser_have_headed_columns_and_no_raw_json(browser, outputs):
    for name in ("report.html", "study/report.html"):
        opened = Opened(browser, outputs["pages"][name])
        try:
            opened.assert_clean()
            # textContent, not innerText: the parameters are in a closed <details>, which innerText skips.
            empty = opened.page.evaluate(
                "() => [...document.querySelectorAll('th')].filter(t => !t.textContent.trim()).length"
            )
            assert empty == 0, name
            shown = opened.page.inner_text("body")
            assert not raw_numbers(shown), (name, raw_numbers(shown)[:5])
            assert not seed_citations(shown), name
            opened.page.click("a[href='#glossary']")
            assert opened.page.locator("#glossary dt").count() >= 5
        finally:
            opened.close()


# --------------------------------------------------------------------------------------------------------------
# The README, the docs and the source text
# --------------------------------------------------------------------------------------------------------------


def test_readme_and_docs_cite_sources_by_name_and_end_with_references():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert not seed_citations(readme), seed_citations(readme)
    headings = re.findall(r"^## (.+)$", readme, flags=re.M)
    assert headings[-1] == "References"
    references = readme.split("\n## References\n")[1]
    for authors in ("Allmann", "Desfontaines", "Mehner", "Sarathy", "Burchard", "Lee and Clifton", "Nergiz"):
        assert authors in references
    assert "arxiv.org/abs/2407.04084" in references and "arxiv.org/abs/1910.12820" in references
    for doc in sorted((ROOT / "docs").rglob("*.md")):
        assert not seed_citations(doc.read_text(encoding="utf-8")), (
            doc.name,
            seed_citations(doc.read_text()),
        )
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    assert re.findall(r"^## (.+)$", index, flags=re.M)[-1] == "References"


def test_the_source_text_cites_sources_by_name():
    for path in sorted((ROOT / "src" / "privrisk").rglob("*")):
        if path.suffix in (".py", ".json", ".js", ".css", ".md"):
            hits = seed_citations(path.read_text(encoding="utf-8"))
            assert not hits, (path.relative_to(ROOT), hits)


def test_the_glossary_holds_every_name_the_pages_use():
    from privrisk.reports.html import GLOSSARY

    glossary = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")
    for name in (
        "Many-worlds risk ρ_mw",
        "Two-worlds risk ρ_tw",
        "Global risk ρ_gl",
        "Global leak Γ",
        "Local leak γ",
    ):
        assert f"\n{name}\n:" in glossary
    assert "Global risk P" not in glossary
    for term in GLOSSARY:
        symbol = term.split()[-1]
        assert symbol in glossary or term.split(" (")[0].lower() in glossary.lower(), term
