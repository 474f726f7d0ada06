"""``privrisk audit`` and ``privrisk derived``: Sarathy and Muralidhar (2009) through the command line."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from helpers import one_line_error
from privrisk import QUERIES

CLAIMS = Path(__file__).parents[2] / "examples" / "claims.csv"
BASE = ("audit", CLAIMS, "--column", "claims", "--query", "mean", "--epsilon", "2")


def test_audit_json_reproduces_sarathy_and_muralidhar(cli):
    r = cli(*BASE, "--u", "0.75", "--universe", "0,100", "--json", "--top", "30")
    assert r.code == 0, r.err
    doc = r.json
    assert doc["schema_version"] == 1
    assert doc["records_total"] == 30 and doc["records_shown"] == 30
    assert [round(doc[k], 3) for k in ("f_n", "f_star", "delta_n", "b_n", "response")] == [
        13.312, 10.323, 2.989, 1.495, 14.348]  # fmt: skip
    assert round(doc["p1"], 2) == 0.25 and round(doc["p2"], 4) == 0.0338
    assert round(doc["f_star2"], 3) == 10.439 and round(doc["b_star"], 3) == 0.058
    assert round(doc["quantile"], 5) == 10.81483 and round(doc["bound"], 3) == 25.075
    h = doc["hypothesis_test"]
    assert (round(h["mean"], 2), round(h["sd"], 3), round(h["se"], 3)) == (10.32, 1.377, 0.256)
    assert len(doc["records"]) == 30 and doc["violations"] == 1
    assert [row["record"] for row in doc["records"] if row["violates"]] == [30]
    assert round(doc["records"][20]["ratio"], 2) == 0.85
    assert doc["global"]["violations"] == 0 and doc["global"]["sensitivity"] == 50
    assert "no ratio exceeds e^ε" in doc["global"]["sentence"]
    assert "the missing claim is at least 25.08 (99.99 % confidence)" in doc["sentence"]


def test_audit_human_output_marks_the_violation(cli):
    r = cli(*BASE, "--u", "0.75", "--universe", "0,100")
    assert r.code == 0, r.err
    assert "✗" in r.out and "1 of 30 possible missing records" in r.out
    assert "no ratio exceeds e^ε = 7.389" in r.out
    assert "An intruder holding the other 29 claims learns from one answer" in r.out
    assert "25.075" in r.out and "10.81483" in r.out


def test_audit_sweep_is_table_3(cli):
    r = cli(
        *BASE,
        "--u",
        "0.75",
        "--sweep-record",
        "30",
        "--sweep-values",
        "14,15,16,17,18,19,20,25,30,40",
        "--json",
    )
    rows = r.json["sweep"]["rows"]
    assert [round(row["ratio"]) for row in rows[:9]] == [9, 19, 41, 90, 195, 425, 925, 45140, 2201886]
    assert f"{rows[9]['ratio']:.3e}" == "5.239e+09"
    text = cli(*BASE, "--u", "0.75", "--sweep-record", "30", "--sweep-values", "14,40").out
    assert "Table 3" in text and "5.239 × 10⁹" in text


def test_audit_out_folder(cli, tmp_path):
    out = tmp_path / "audit"
    r = cli(*BASE, "--u", "0.75", "--universe", "0,100", "--sweep-record", "30", "--sweep-values", "14,20",
            "--out", out)  # fmt: skip
    assert r.code == 0, r.err
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "audit"
    assert {t["path"] for t in manifest["tables"]} == {
        "records.csv",
        "provider.csv",
        "global.csv",
        "sweep.csv",
    }
    assert len(manifest["figures"]) == 4
    for fig in manifest["figures"]:
        assert (out / fig["png"]).stat().st_size > 1000
        assert (out / fig["svg"]).read_text().lstrip().startswith("<?xml")
    for table in manifest["tables"]:
        assert (out / table["path"]).exists()
    assert manifest["summary"]["violations"] == 1
    assert any("25.08" in f for f in manifest["findings"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary folder left behind


@pytest.mark.parametrize("query", QUERIES)
def test_every_query_runs_and_global_noise_is_safe(cli, query):
    r = cli(
        "audit",
        CLAIMS,
        "-c",
        "claims",
        "-q",
        query,
        "-e",
        "1",
        "--seed",
        "3",
        "--universe",
        "0,100",
        "--json",
    )
    assert r.code == 0, r.err
    doc = r.json
    # Noise for the global sensitivity (here of [0, 100]) keeps every p1/p3ᵢ within e^ε = e (up to rounding).
    assert doc["global"]["violations"] == 0 and doc["global"]["max_ratio"] <= math.e * (1 + 1e-12)
    assert 0 < doc["u"] < 1


def test_seed_reproduces_the_draw(cli):
    a = cli(*BASE, "--seed", "11", "--json").json
    b = cli(*BASE, "--seed", "11", "--json").json
    assert a["response"] == b["response"] and a["u"] == b["u"]


def test_json_lists_the_riskiest_records_in_file_order(cli):
    doc = cli(*BASE, "--u", "0.75", "--json", "--top", "3").json
    assert doc["records_total"] == 30 and doc["records_shown"] == 3 and doc["violations"] == 1
    numbers = [row["record"] for row in doc["records"]]
    assert 30 in numbers and numbers == sorted(numbers)
    everyone = cli(*BASE, "--u", "0.75", "--json", "--top", "30").json["records"]
    score = sorted(everyone, key=lambda row: -abs(row["log10_ratio"]))[:3]
    assert sorted(row["record"] for row in score) == numbers


def test_records_file_has_every_record(cli, tmp_path):
    path = tmp_path / "records.csv"
    r = cli(*BASE, "--u", "0.75", "--json", "--records", path)
    assert r.code == 0, r.err
    rows = path.read_text().splitlines()
    assert rows[0].startswith("record,value,f_without") and len(rows) == 31
    assert len(r.json["records"]) == 20


def test_bad_top_and_records_on_the_input(cli):
    one_line_error(cli(*BASE, "--u", "0.75", "--json", "--top", "-1"))
    one_line_error(cli(*BASE, "--u", "0.75", "--records", CLAIMS))


def test_density_event(cli):
    doc = cli(*BASE, "--u", "0.75", "--event", "density", "--json", "--top", "30").json
    assert doc["event"] == "density" and doc["violations"] == 1
    # By brute force: leave-one-out means and, within each remainder, the largest change from leaving out one more
    # record give b = Δ/ε; the answer is f_n + b_n·ln 2 (u = 0.75); the ratio is of the two Laplace densities there.
    x = np.loadtxt(CLAIMS, delimiter=",", skiprows=1, usecols=1)

    def scale(a):
        return max(abs(a.mean() - np.delete(a, j).mean()) for j in range(a.size)) / 2

    r = x.mean() + scale(x) * math.log(2)
    p1 = stats.laplace.pdf(r, x.mean(), scale(x))
    want = [p1 / stats.laplace.pdf(r, np.delete(x, i).mean(), scale(np.delete(x, i))) for i in range(x.size)]
    got = [row["ratio"] for row in doc["records"]]
    np.testing.assert_allclose(got, want, rtol=1e-9)
    assert [row["violates"] for row in doc["records"]] == [abs(math.log(w)) > 2 for w in want]


@pytest.mark.parametrize(
    ("values", "eff_b", "eff_eps"), [("1..10", 2.5, 4), ("101..110", 2.5, 44), ("50001..50010", 2.5, 20004)]
)
def test_derived_is_table_4(cli, values, eff_b, eff_eps):
    doc = cli(
        "derived", "--values", values, "--epsilon", "2", "--target", "sum", "--via", "mean", "--json"
    ).json
    assert doc["effective_scale"] == pytest.approx(eff_b)
    assert doc["effective_epsilon"] == pytest.approx(eff_eps)
    assert doc["scale"]["mean"] == pytest.approx(0.25)
    # The noise variances 2b² beside the scales (Sarathy and Muralidhar: 2n²b_mean² = 12.5 for n = 10).
    assert doc["variance"]["mean"] == pytest.approx(0.125) and doc["effective_variance"] == pytest.approx(
        12.5
    )
    assert doc["variance"]["sum"] == pytest.approx(2 * doc["scale"]["sum"] ** 2)


def test_derived_from_a_list_and_a_file(cli, tmp_path):
    listed = cli("derived", "--values", "1,2,3,4,5,6,7,8,9,10", "--epsilon", "2", "--json").json
    assert listed["effective_epsilon"] == pytest.approx(4)
    doc = cli("derived", "--values", CLAIMS, "--column", "claims", "--epsilon", "2", "--json").json
    assert doc["n"] == 30 and doc["factor"] == 30
    text = cli("derived", "--values", "101..110", "--epsilon", "2").out
    assert "effective ε" in text and "±468.45" in text and "±21.29" in text and "22 times" in text
    assert (
        "noise variance 2b²" in text and "6,050 for the sum asked directly, 0.125 for the mean; 12.5" in text
    )


# --------------------------------------------------------------------------------------------------------------
# Bad input: exit 2 with one line naming the argument or file
# --------------------------------------------------------------------------------------------------------------


def test_fewer_than_three_records(cli, tmp_path):
    small = tmp_path / "two.csv"
    small.write_text("claims\n1\n100\n")
    one_line_error(
        cli("audit", small, "--column", "claims", "--epsilon", "2", "--u", "0.5"), "two.csv", "at least 3"
    )


@pytest.mark.parametrize("eps", ["0", "-1", "ln(1)"])
def test_epsilon_not_positive(cli, eps):
    one_line_error(cli("audit", CLAIMS, "--column", "claims", "--epsilon", eps, "--u", "0.5"), "--epsilon")


@pytest.mark.parametrize("u", ["0", "1", "1.5", "-0.25"])
def test_u_outside_the_open_interval(cli, u):
    one_line_error(cli(*BASE, "--u", u), "--u", "between 0 and 1")


@pytest.mark.parametrize("record", ["0", "31"])
def test_unknown_record_index(cli, record):
    one_line_error(cli(*BASE, "--u", "0.75", "--sweep-record", record, "--sweep-values", "14"), "--sweep-record",
                   "no record")  # fmt: skip


@pytest.mark.parametrize(("target", "via", "arg"), [("median", "mean", "--target"), ("sum", "std", "--via"),
                                                    ("count", "sum", "--via")])  # fmt: skip
def test_derived_relation_not_linear(cli, target, via, arg):
    r = cli("derived", "--values", "1..10", "--epsilon", "2", "--target", target, "--via", via)
    one_line_error(r, arg, "linear")


def test_u_and_response_together(cli):
    one_line_error(cli(*BASE, "--u", "0.5", "--response", "14"), "--u", "not both")


def test_sweep_values_without_record(cli):
    one_line_error(cli(*BASE, "--u", "0.5", "--sweep-values", "14"), "--sweep-record")


def test_universe_not_holding_the_data(cli):
    one_line_error(cli(*BASE, "--u", "0.5", "--universe", "0,50"), "outside the universe")


def test_derived_values_neither_file_nor_list(cli):
    one_line_error(cli("derived", "--values", "nosuchfile.csv", "--epsilon", "2"), "--values")


def test_fail_on_leak_exit_code_1(cli):
    r = cli(*BASE, "--u", "0.75", "--fail-on-leak", "--json")
    assert r.code == 1 and "1 possible missing record break" in r.err and r.json["violations"] == 1
    safe = cli(*BASE, "--u", "0.75", "--query", "count", "--fail-on-leak")
    assert safe.code == 0


@pytest.mark.parametrize(
    ("extra", "option"),
    [(("--missing", "-1,x"), "--missing"), (("--alpha", "0.7"), "--alpha"), (("--seed", "-3"), "--seed"),
     (("--event", "peak"), "--event"), (("--universe", "5,5"), "--universe")],
)  # fmt: skip
def test_settings_that_do_not_hold_name_the_option(cli, extra, option):
    """AuditSettings checks every field before the file is read; the command names its own option."""
    one_line_error(cli(*BASE, "--u", "0.75", *extra), option)
