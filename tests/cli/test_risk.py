"""``privrisk risk``, ``privrisk epsilon`` and ``privrisk table``: JSON keys, exit codes, one-line errors."""

from __future__ import annotations

import math

import pytest

from helpers import one_line_error


def test_risk_json(cli):
    r = cli("risk", "--epsilon", "ln(3)", "--n", "10", "--json")
    assert r.code == 0
    doc = r.json
    assert doc["schema_version"] == 1
    assert set(doc) >= {"epsilon", "n", "ratio", "many_worlds", "two_worlds", "global_risk", "global_leak",
                        "local_leak", "guess"}  # fmt: skip
    assert doc["many_worlds"] == pytest.approx(0.25)
    assert doc["global_risk"] == pytest.approx(0.75)
    assert doc["local_leak"] == pytest.approx(1 / 6)
    assert doc["guess"] == pytest.approx(0.1)


def test_risk_ratio_from_dv_df(cli):
    doc = cli("risk", "--epsilon", "ln3", "--n", "21", "--dv", "0.2", "--df", "25", "--json").json
    assert round(doc["many_worlds"], 3) == 0.048 and doc["ratio"] == pytest.approx(0.008)


def test_risk_human_output_has_the_sentences(cli):
    r = cli("risk", "--epsilon", "1")
    assert r.code == 0 and "about 73 times" in r.out


def test_risk_threshold_exit_code_1(cli):
    assert cli("risk", "--epsilon", "ln3", "--max-risk", "0.75").code == 0
    r = cli("risk", "--epsilon", "ln3", "--max-risk", "0.7499")
    assert r.code == 1 and "exceeds" in r.err


def test_epsilon_json(cli):
    doc = cli("epsilon", "--risk", "0.75", "--json").json
    assert doc["epsilon"] == pytest.approx(math.log(3))


def test_table_json_and_text(cli):
    doc = cli("table", "--epsilons", "ln2,ln3,ln7", "--n", "2,10,100", "--json").json
    assert len(doc["rows"]) == 9 and set(doc["rows"][0]) == {"epsilon", "n", "risk", "leak"}
    text = cli("table").out
    for cell in ("66.7%", "33.3%", "18.2%", "9.1%", "43.8%", "37.5%", "6.6%", "5.7%"):
        assert cell in text


# ------------------------------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["risk", "--epsilon", "0"], ["--epsilon", "greater than 0"]),
        (["risk", "--epsilon", "-1"], ["--epsilon"]),
        (["risk", "--epsilon", "abc"], ["--epsilon", "not a number"]),
        (["risk", "--epsilon", "ln(0)"], ["--epsilon"]),
        (["risk", "--epsilon", "1", "--n", "1"], ["--n"]),
        (["risk", "--epsilon", "1", "--dv", "1"], ["--dv"]),
        (["risk", "--epsilon", "1", "--dv", "1", "--df", "0"], ["--df"]),
        (["risk", "--epsilon", "1", "--ratio", "1", "--dv", "1", "--df", "2"], ["--ratio"]),
        (["risk", "--epsilon", "1", "--delta", "2"], ["--delta"]),
        (["risk"], ["--epsilon"]),
        (["risk", "--epsilonn", "1"], ["--epsilonn"]),
        (["epsilon", "--risk", "0.5"], ["1/n"]),
        (["epsilon", "--risk", "1.5"], ["risk"]),
        (["table", "--epsilons", "ln2,x"], ["--epsilons"]),
        (["table", "--n", "1,10"], ["--n"]),
    ],
)
def test_bad_input_exits_2_with_one_line(cli, args, fragments):
    one_line_error(cli(*args), *fragments)
