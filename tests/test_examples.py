"""Every example of the README and of the user's guide runs as printed, from a fresh clone, page by page.

Each page runs in a fresh folder of its own holding only what a fresh clone has (``examples/``): the data an
example needs ships there or is made by a command printed before it on the same page. Every ```bash command
and every ```python block runs in the page's order; each command must exit with the code its comment announces
(0 unless "# exits 1"), without a traceback, and print the numbers its comment states; each Python statement
whose comment starts with a number must have that value (tests/docs_examples.py says how comments are read).
Only the commands of ``docs_examples.EXEMPT`` are not run, each for the reason given there; a ``--engine spark``
example is skipped, with its reason, where pyspark or Java is missing (never in CI).
"""

from __future__ import annotations

import re

import pytest

from docs_examples import (
    EXEMPT,
    ROOT,
    Example,
    claimed_numbers,
    comment_of,
    expected_code,
    numbers_in,
    page_examples,
    page_name,
    pages,
    run_bash,
    run_page,
    run_python,
    stated_value,
    unmatched,
)

# Pages that run in a few seconds (Python only, or nothing to run: the app's commands start a server); every
# other page runs commands of several seconds each and is marked slow.
QUICK = {"index.md", "guide/index.md", "guide/app.md"}
SPARK = {"guide/spark.md"}


def _marks(name: str) -> list[pytest.MarkDecorator]:
    marks = [] if name in QUICK else [pytest.mark.slow]
    return marks + ([pytest.mark.spark] if name in SPARK else [])


PAGES = [pytest.param(p, id=page_name(p), marks=_marks(page_name(p))) for p in pages()]


@pytest.mark.parametrize("page", PAGES)
def test_every_example_of_the_page_runs_as_printed(page, tmp_path):
    failures, skipped = run_page(page, tmp_path / "reader")
    assert not failures, f"{page_name(page)}: examples that fail as printed:\n" + "\n".join(failures)
    if skipped:  # every other example of the page ran and passed
        pytest.skip("not run here: " + "; ".join(skipped))


def test_every_page_has_examples_and_every_exemption_is_used():
    examples = [e for p in pages() for e in page_examples(p)]
    assert len(examples) > 90
    names = {page_name(p) for p in pages()}
    assert {"README.md", "guide/study.md", "guide/empirical.md"} <= names
    assert [s for s in EXEMPT if not any(e.text.startswith(s) for e in examples)] == []


def test_examples_name_no_file_a_fresh_clone_lacks_without_making_it():
    """A quick look (without running) for the files the examples read: each is in examples/, or an earlier
    example on the same page names it (writes it), or it is an output the command itself writes."""
    data = r"[\w./-]+\.(?:csv|dta|parquet|sav)\b"
    missing = []
    for page in pages():
        seen = ""
        for example in page_examples(page):
            text = example.text.partition(" #")[0] if example.kind == "bash" else example.text
            if example.kind == "bash" and text.startswith("privrisk "):
                for word in text.split()[2:3]:  # privrisk COMMAND FILE
                    named = re.fullmatch(data, word) or word.startswith("examples/")
                    if named and not ((ROOT / word).is_file() or word in seen):
                        missing.append(f"{example.where()}: {word}")
            seen += " " + text
    assert missing == []


def test_comments_are_read_as_the_module_says():
    assert expected_code("privrisk ledger l.json --budget 1  # exits 1: more was spent") == 1
    assert expected_code("privrisk risk --epsilon 1   # the risks") == 0
    assert expected_code("echo '# exits 1' > f") == 0
    assert comment_of("privrisk risk --epsilon ln3 --n 21   # Mehner et al.'s example (§3): 4.8 %") == (
        "Mehner et al.'s example (§3): 4.8 %"
    )
    assert [n.text for n in claimed_numbers("Mehner et al.'s running example (§3): 4.8 %")] == ["4.8 %"]
    assert [n.text for n in claimed_numbers("Sarathy and Muralidhar, Table 4: effective ε 44")] == ["44"]
    assert claimed_numbers("zCDP (the 2020 US Census redistricting data)") == []
    assert claimed_numbers("about 15-30 s on 2 cores; open results/report.html") == []
    assert unmatched(claimed_numbers("x: 4.8 %"), "ρ_mw 4.83 %") == []
    assert unmatched(claimed_numbers("x: 4.8 %"), "ρ_mw 0.048") == []
    assert unmatched(claimed_numbers("x: 4.8 %"), "ρ_mw 13.0 %") == ["4.8 %"]
    assert unmatched(claimed_numbers("x: ln 3"), "ε = 1.0986") == []
    assert unmatched(claimed_numbers("σ at δ: 10⁻⁵"), "--delta 1e-05") == []
    assert [n.value for n in numbers_in("0.5,1,2 and 31,857")] == [0.5, 1, 2, 31857]
    assert [n.text for n in stated_value("0.2908, 0.2919 (Allmann et al., Table 1)")] == ["0.2908", "0.2919"]
    assert stated_value("tidy DataFrame: epsilon, n, risk, leak") == []


def test_a_wrong_number_or_exit_code_or_an_undefined_name_fails(tmp_path):
    def python(text: str) -> str | None:
        return run_python(Example("page.md", "python", text, 1), tmp_path)

    assert python("x = 0.25 * 3    # 0.75: three quarters\nround(x, 1)   # 0.8") is None
    assert "the comment says '0.6'" in (python("x = 0.25 * 3    # 0.6") or "")
    assert "NameError" in (python("len(samples_2d)   # one value per row") or "")
    assert python("int('x')   # ValueError: not a number") is None
    assert "should raise ValueError" in (python("int('3')   # ValueError") or "")
    env = {"PATH": "/usr/bin:/bin"}

    def bash(text: str) -> str | None:
        return run_bash(Example("page.md", "bash", text, 1), tmp_path, env)

    assert bash("echo 'ρ_mw 4.83 %'   # the risk: 4.8 %") is None
    assert "the comment says 4.8 %" in (bash("echo 'ρ_mw 13.0 %'   # the risk: 4.8 %") or "")
    assert bash("exit 1   # exits 1: a disclosure") is None
    assert "exit 0, expected 1" in (bash("true   # exits 1") or "")
