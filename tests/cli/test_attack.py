"""``privrisk attack``: JSON keys and values, human output, determinism, one-line errors with exit code 2."""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import pytest

from helpers import one_line_error
from privrisk import exact_risk, lee_clifton_bound, two_worlds

EXAMPLE = Path(__file__).parents[2] / "examples" / "distance_work.csv"
KEYS = {"n_worlds", "exact_risk", "bound", "simulated_success", "ci_low", "ci_high", "epsilon", "query",
        "sensitivity", "expected_success", "trials", "seed", "worlds", "n", "guess"}  # fmt: skip


def test_attack_json_on_the_data_of_allmann_et_al(cli):
    r = cli("attack", EXAMPLE, "--column", "distance", "--query", "mean", "--epsilon", "1", "--trials", "20000",
            "--json")  # fmt: skip
    assert r.code == 0, r.err
    doc = r.json
    assert doc["schema_version"] == 1 and KEYS <= set(doc)
    assert doc["sensitivity"] == 337.0 and doc["n_worlds"] == 5 and doc["guess"] == 0.2
    # The worlds of {1, 3, 10, 17, 675} under the mean, by hand: (sum − xᵢ)/4.
    f = [705 / 4, 703 / 4, 696 / 4, 689 / 4, 31 / 4]
    # Exact risk by hand: the posterior of world i when the answer lands on fᵢ is 1/Σⱼ exp(−|fᵢ − fⱼ|·ε/Δf).
    risk = max(1 / sum(math.exp(-abs(fi - fj) / 337) for fj in f) for fi in f)
    assert doc["exact_risk"] == pytest.approx(risk, rel=1e-12)
    assert doc["bound"] == pytest.approx(1 / (1 + 4 * math.exp(-(705 - 31) / 4 / 337)))
    assert doc["bound"] == pytest.approx(lee_clifton_bound(f, 1.0, 337.0))
    # Bayes-optimal success by hand: guess the nearest world, so success = (1/n)·Σᵢ the Laplace(fᵢ, b = Δf/ε) mass
    # of world i's cell between the midpoints to its neighbours (each open side loses ½·e^(−half-gap/b)).
    g = sorted(f)
    half = [(hi - lo) / 2 for lo, hi in itertools.pairwise(g)]
    cells = [1 - 0.5 * sum(math.exp(-h / 337) for h in half[max(i - 1, 0) : i + 1]) for i in range(5)]
    assert doc["expected_success"] == pytest.approx(sum(cells) / 5, rel=1e-9)
    assert doc["ci_low"] <= doc["simulated_success"] <= doc["ci_high"]
    assert doc["ci_low"] <= doc["exact_risk"] <= doc["bound"]


def test_attack_same_seed_same_numbers(cli):
    args = ("attack", EXAMPLE, "-c", "distance", "-q", "max", "-e", "ln3", "--trials", "3000", "--json")
    a, b = cli(*args, "--seed", "7").json, cli(*args, "--seed", "7").json
    c = cli(*args, "--seed", "8").json
    assert a == b and a["simulated_success"] != c["simulated_success"]


def test_attack_two_worlds_and_universe(cli):
    doc = cli("attack", EXAMPLE, "-c", "distance", "-q", "median", "-e", "2", "--universe", "0,1000",
              "--worlds", "two", "--trials", "2000", "--json").json  # fmt: skip
    assert doc["n_worlds"] == 2 and doc["sensitivity"] == 500.0
    # Median worlds: 13.5, 13.5, 10, 6.5, 6.5 → the two most different are 6.5 and 13.5.
    assert doc["world_range"] == 7.0
    assert doc["exact_risk"] == pytest.approx(two_worlds(2.0, 7.0 / 500.0))
    assert doc["universe"]["kind"] == "interval"


def test_attack_tight_epsilon(cli):
    doc = cli("attack", EXAMPLE, "-c", "distance", "-q", "mean", "-e", "1", "--risk", "0.3", "--trials", "100",
              "--json").json  # fmt: skip
    assert doc["lee_clifton_epsilon"] <= doc["tight_epsilon"]
    assert exact_risk([705 / 4, 703 / 4, 696 / 4, 689 / 4, 31 / 4], doc["tight_epsilon"], 337.0) <= 0.3


def test_attack_human_output(cli):
    r = cli("attack", EXAMPLE, "-c", "distance", "-q", "mean", "-e", "1", "--trials", "5000")
    assert r.code == 0
    assert "exact risk" in r.out and "Lee–Clifton bound" in r.out
    assert "times in 100" in r.out and "guessing among the 5 possibilities" in r.out


def test_attack_missing_codes(cli, tmp_path):
    path = tmp_path / "soep.csv"
    path.write_text("h\n10\n-1\n20\n-2\n40\n")
    doc = cli("attack", path, "-c", "h", "-q", "mean", "-e", "1", "--missing", "negative", "--trials", "100",
              "--json").json  # fmt: skip
    assert doc["n_worlds"] == 3 and doc["data"]["n_used"] == 3


@pytest.fixture
def files(tmp_path):
    (tmp_path / "one.csv").write_text("x\n5\n")
    (tmp_path / "same.csv").write_text("x\n5\n5\n5\n")
    (tmp_path / "text.csv").write_text("x\nred\nblue\ngreen\n")
    (tmp_path / "empty.csv").write_text("x\nNA\n\nNA\n")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("-e", "0"), ("--epsilon", "greater than 0")),
        (("-e", "-1"), ("--epsilon",)),
        (("-e", "abc"), ("--epsilon", "not a number")),
        (("-e", "1", "--trials", "0"), ("--trials", "at least 1")),
        (("-e", "1", "--worlds", "three"), ("--worlds",)),
        (("-e", "1", "--risk", "1.2"), ("--risk",)),
        (("-e", "1", "--risk", "0.1"), ("--risk", "1/n")),
        (("-e", "1", "--universe", "5,1"), ("--universe",)),
        (("-e", "1", "--universe", "0,100"), ("outside the universe",)),
    ],
)
def test_attack_bad_options(cli, args, fragments):
    one_line_error(cli("attack", EXAMPLE, "-c", "distance", "-q", "mean", *args), *fragments)


def test_attack_unknown_query(cli):
    one_line_error(cli("attack", EXAMPLE, "-c", "distance", "-q", "mode", "-e", "1"), "query", "mode")


def test_attack_fewer_than_two_records(cli, files):
    one_line_error(cli("attack", files / "one.csv", "-c", "x", "-q", "mean", "-e", "1"), "at least 2")


def test_attack_zero_global_sensitivity(cli, files):
    one_line_error(
        cli("attack", files / "same.csv", "-c", "x", "-q", "mean", "-e", "1"), "sensitivity", "is 0"
    )


def test_attack_text_column(cli, files):
    one_line_error(cli("attack", files / "text.csv", "-c", "x", "-q", "mean", "-e", "1"), "x")


def test_attack_all_missing(cli, files):
    one_line_error(cli("attack", files / "empty.csv", "-c", "x", "-q", "mean", "-e", "1"), "x")


def test_attack_missing_file_and_column(cli, files):
    one_line_error(cli("attack", files / "nope.csv", "-c", "x", "-q", "mean", "-e", "1"), "no such file")
    one_line_error(cli("attack", EXAMPLE, "-c", "nope", "-q", "mean", "-e", "1"), "nope")


def test_attack_out_writes_json_curve_figure_and_manifest(cli, tmp_path):
    import pandas as pd

    from privrisk.reports.manifest import read_manifest

    out = tmp_path / "attack"
    r = cli("attack", EXAMPLE, "-c", "distance", "-q", "mean", "-e", "1", "--trials", "2000", "--out", out)
    assert r.code == 0, r.err
    manifest = read_manifest(out)
    assert manifest["kind"] == "attack" and manifest["summary"]["n_worlds"] == 5
    assert manifest["findings"] and "Lee and Clifton" in manifest["findings"][0]
    for fig in manifest["figures"]:
        assert (out / fig["svg"]).read_text().lstrip().startswith("<?xml")
        assert (out / fig["png"]).read_bytes()[:4] == b"\x89PNG"
    curve = pd.read_csv(out / manifest["tables"][0]["path"])
    assert list(curve.columns) == ["epsilon", "guess", "expected_success", "exact_risk", "bound"]
    assert (curve["expected_success"] <= curve["exact_risk"] + 1e-12).all()
    assert (curve["exact_risk"] <= curve["bound"] + 1e-12).all()
    assert 1.0 in set(curve["epsilon"])
    assert (out / "attack.json").exists()


def test_attack_out_is_not_written_on_bad_input(cli, tmp_path):
    out = tmp_path / "attack"
    one_line_error(
        cli("attack", EXAMPLE, "-c", "distance", "-q", "mean", "-e", "0", "--out", out), "--epsilon"
    )
    assert not out.exists()
