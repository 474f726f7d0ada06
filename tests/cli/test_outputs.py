"""``privrisk outputs``: exit codes, one-line errors naming the output and field, the report folder, the ledger."""

from __future__ import annotations

import json

import pytest

from helpers import one_line_error

# 26 people: 12 women and 12 men aged 30 in two regions, and one woman aged 18 in West (and one aged 10).
ROWS = [("West", "f", 18, 900.0), ("East", "m", 10, 0.0)] + [
    (r, s, 30, 1000.0 + 10 * k) for r in ("West", "East") for s in "fm" for k in range(12)
]
DATA = "region,sex,age,income\n" + "".join(f"{r},{s},{a},{i}\n" for r, s, a, i in ROWS)
SPEC = """[[output]]
name = "Table 1"
kind = "count"
rows = ["region"]
columns = ["sex"]
where = "age >= 18"
margins = true

[[output]]
name = "Table 3"
kind = "count"
rows = ["region"]
columns = ["sex"]
where = "age >= 19"
"""


@pytest.fixture
def files(tmp_path):
    data = tmp_path / "survey.csv"
    data.write_text(DATA)
    spec = tmp_path / "outputs.toml"
    spec.write_text(SPEC)
    return tmp_path, data, spec


def test_differencing_exits_1_and_says_it_in_a_sentence(cli, files) -> None:
    _tmp, data, spec = files
    r = cli("outputs", data, "--spec", spec, "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc["schema_version"] == 1 and doc["status"] == "fail"
    assert [o["status"] for o in doc["outputs"]] == ["pass", "pass"]
    # The 18-year-old woman of West; every group is examined, so zeros found by differencing come beside it.
    [d] = [x for x in doc["disclosures"]
           if x["labels"] == {"region": "West", "sex": "f", "age >= 18": True, "age >= 19": False}]  # fmt: skip
    assert d["kind"] == "exact" and d["interval"] == [1, 1] and {"Table 1", "Table 3"} <= set(d["outputs"])
    assert d["sentence"].endswith(
        "together show that exactly 1 person has region = West, sex = f, age >= 18 and not (age >= 19)."
    )
    assert any(x["action"] == "withhold" and x["confirmed"] for x in doc["recommendations"])
    assert f"{len(doc['disclosures'])} disclosures by differencing" in r.err


def test_one_output_alone_passes_and_is_appended_to_the_ledger(cli, files) -> None:
    tmp, data, _spec = files
    first = tmp / "first.toml"
    first.write_text("[[output]]" + SPEC.split("[[output]]")[1])
    ledger = tmp / "ledger.json"
    r = cli("outputs", data, "--spec", first, "--ledger", ledger)
    assert r.code == 0, r.err
    assert "Verdict: pass" in r.out
    assert json.loads(ledger.read_text())["entries"][0]["outputs"][0]["spec"]["name"] == "Table 1"
    # Next month: Table 3 alone passes, but not beside Table 1 from the ledger.
    second = tmp / "second.toml"
    second.write_text("[[output]]" + SPEC.split("[[output]]")[2])
    r = cli("outputs", data, "--spec", second, "--ledger", ledger, "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    assert doc["disclosures"][0]["outputs"] == ["Table 1", "Table 3"]
    assert doc["summary"]["earlier_outputs"] == 1
    assert len(json.loads(ledger.read_text())["entries"]) == 1  # a set that fails is not appended


def test_report_folder_and_atoms(cli, files) -> None:
    tmp, data, spec = files
    out = tmp / "check"
    atoms = tmp / "atoms.csv"
    r = cli("outputs", data, "--spec", spec, "--out", out, "--atoms", atoms)
    assert r.code == 1
    names = sorted(p.name for p in out.iterdir())
    assert names == ["atoms.csv", "manifest.json", "outputs.json", "report.html", "table-Table_1.csv",
                     "table-Table_3.csv"]  # fmt: skip
    html = (out / "report.html").read_text()
    assert html.index('id="verdict"') < html.index("Table 1 and Table 3 together show")
    lines = atoms.read_text().splitlines()
    assert lines[0] == "region,sex,age >= 18,age >= 19,lo,hi"
    assert "West,f,True,False,1,1" in lines


def test_cell_intervals_in_the_json_the_tables_and_cells_csv(cli, files) -> None:
    # Table 1 (age >= 18, with margins): every cell is its margin minus the others, so hidden alone it is given
    # back: [value, value], not protected. Table 3 (age >= 19), West × f: the 12 people aged 30 are also in
    # Table 1's 13, beside the 18-year-old whom nothing else counts: hidden alone it lies in 0 … 13.
    tmp, data, spec = files
    out = tmp / "check"
    cells = tmp / "cells.csv"
    r = cli("outputs", data, "--spec", spec, "--out", out, "--cells", cells, "--json")
    assert r.code == 1
    doc = json.loads(r.out)
    t1, t3 = doc["outputs"]
    west_f = {"region": "West", "sex": "f"}
    [c1] = [c for c in t1["cells"] if c["labels"] == west_f]
    assert c1["value"] == 13 and c1["interval"] == [13, 13] and c1["protected"] is False
    assert all(c["interval"] == [c["value"], c["value"]] for c in t1["cells"])
    [c3] = [c for c in t3["cells"] if c["labels"] == west_f]
    assert c3["interval"] == [0, 13] and c3["interval_exact"] is True and c3["protected"] is True
    assert doc["summary"]["cells_undecided"] == 0
    lines = cells.read_text().splitlines()
    assert lines[0] == "output,kind,region,sex,value,status,lo,hi,exact,protected"
    assert "Table 1,count,West,f,13,pass,13,13,True,False" in lines
    assert "Table 3,count,West,f,12,pass,0,13,True,True" in lines
    table = (out / "table-Table_3.csv").read_text().splitlines()
    assert table[0] == "region,sex,value,n,status,rules,lo,hi,protected"
    assert "West,f,12,12,pass,,0,13,True" in table
    assert 'id="cell-intervals"' in (out / "report.html").read_text()


@pytest.mark.parametrize(
    ("extra", "fragments"),
    [
        ('where = "age +"', ["--spec", "'T1'", "'where'", "not a condition"]),
        ('where = "age + 1"', ["--spec", "'T1'", "'where'", "not a condition"]),
        ('rows = ["nope"]', ["--spec", "'T1'", "'rows'", "no column 'nope'"]),
        ('variable = "income"', ["--spec", "'T1'", "'variable'"]),
        ('margins = "yes"', ["--spec", "'T1'", "'margins'"]),
        ('colour = "red"', ["--spec", "'T1'", "unknown field 'colour'"]),
    ],
)
def test_bad_specs_are_one_line_errors(cli, files, extra, fragments) -> None:
    tmp, data, _ = files
    spec = tmp / "bad.toml"
    spec.write_text(f'[[output]]\nname = "T1"\nkind = "count"\n{extra}\n')
    one_line_error(cli("outputs", data, "--spec", spec), *fragments)


def test_not_toml_and_bad_policy(cli, files) -> None:
    tmp, data, spec = files
    bad = tmp / "bad.toml"
    bad.write_text("x = [")
    one_line_error(cli("outputs", data, "--spec", bad), "--spec", "not TOML")
    policy = tmp / "policy.yaml"
    policy.write_text("safe_threshold: 0\n")
    one_line_error(cli("outputs", data, "--spec", spec, "--policy", policy), "--policy", "safe_threshold")
    policy.write_text("safe_treshold: 5\n")
    one_line_error(cli("outputs", data, "--spec", spec, "--policy", policy), "--policy", "unknown key")


def test_an_acro_policy_file_is_read_unchanged(cli, files) -> None:
    tmp, data, spec = files
    policy = tmp / "default.yaml"
    # ACRO 1.0's default.yaml, keys and values as shipped (comments left out).
    policy.write_text(
        "---\nsafe_threshold: 10\nsafe_dof_threshold: 10\nsafe_nk_n: 2\nsafe_nk_k: 0.90\nsafe_pratio_p: 0.10\n"
        "check_missing_values: False\nsurvival_safe_threshold: 10\nzeros_are_disclosive: True\n"
        "safe_round_base: 5\nfederated: false\nblocked_extensions:\n  - .svg\n  - .gph\n...\n"
    )
    r = cli("outputs", data, "--spec", spec, "--policy", policy, "--json")
    assert json.loads(r.out)["policy"]["safe_nk_k"] == 0.9
    # A threshold of 2 leaves one 18-year-old exposed still; of 1, nobody (and zeros found by differencing,
    # such as "everyone in North aged 18 or over is 19 or over", are the policy's zeros_are_disclosive).
    policy.write_text("safe_threshold: 1\nzeros_are_disclosive: false\n")
    r = cli("outputs", data, "--spec", spec, "--policy", policy, "--json")
    assert r.code == 0 and json.loads(r.out)["disclosures"] == []


def test_the_readme_example(cli, tmp_path) -> None:
    r = cli(
        "outputs",
        "examples/outputs/people.csv",
        "--spec",
        "examples/outputs/outputs.toml",
        "--out",
        tmp_path / "check",
    )
    assert r.code == 1
    assert (
        "together show that exactly 1 person has region = West, sex = female, age >= 18 and not (age >= 19)."
        in r.out
    )
    assert "Suggestion: Do not release Table 3" in r.out
