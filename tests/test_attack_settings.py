"""``privrisk.attack``: every rule of :class:`AttackSettings` names its field; :func:`run_attack` against hand sums.

The numbers are checked against closed forms worked out here (Lee and Clifton's ρ_mw; the two-worlds risk
e^(εΔv/Δf)/(1 + e^(εΔv/Δf)); the global sensitivity R/2 of the mean), against a brute-force search over answers
for the worst-case posterior, and against a numerical integral for the Bayes-optimal attacker's success; never
against what the code printed before.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
from pathlib import Path

import numpy as np
import pytest

from one_shape import assert_written_whole_or_not_at_all
from privrisk.attack import MAX_TRIALS, OUT_FILES, AttackRun, AttackSettings, run_attack
from privrisk.errors import PrivriskError

EXAMPLE = Path(__file__).parent.parent / "examples" / "distance_work.csv"
# Allmann et al., Table 1: the distances {1, 3, 10, 17, 675}; the CLI tests use the same file.
DISTANCES = [1.0, 3.0, 10.0, 17.0, 675.0]


def settings(**changes) -> AttackSettings:
    return AttackSettings(**{"data": DISTANCES, "query": "mean", "epsilon": 1, "trials": 1_000, **changes})


def refused(param: str, **changes) -> PrivriskError:
    """The error the settings raise, checked to name ``param`` both as its field and at the message's start."""
    with pytest.raises(PrivriskError) as caught:
        settings(**changes)
    assert caught.value.param == param, (caught.value.param, str(caught.value))
    assert str(caught.value).startswith(param + ": "), str(caught.value)
    return caught.value


def refused_by_run(param: str | None, data, **changes) -> PrivriskError:
    with pytest.raises(PrivriskError) as caught:
        run_attack(settings(data=data, **changes))
    assert caught.value.param == param, (caught.value.param, str(caught.value))
    if param is not None:
        assert str(caught.value).startswith(param + ": "), str(caught.value)
    return caught.value


# ---------------------------------------------------------------------------------------------- each rule
@pytest.mark.parametrize("epsilon", ["", None, 0, -1, "abc", "inf", "ln0"])
def test_epsilon_must_be_a_finite_number_above_0(epsilon):
    refused("epsilon", epsilon=epsilon)


@pytest.mark.parametrize("query", ["", "mode"])
def test_query_must_be_one_of_the_core(query):
    refused("query", query=query)


def test_worlds_is_many_or_two():
    refused("worlds", worlds="three")


@pytest.mark.parametrize("trials", [0, -5])
def test_trials_at_least_1(trials):
    assert "at least 1" in str(refused("trials", trials=trials))


def test_trials_at_most_max_trials():
    assert f"{MAX_TRIALS:,}" in str(refused("trials", trials=MAX_TRIALS + 1))
    assert settings(trials=MAX_TRIALS).trials == MAX_TRIALS and settings(trials=1).trials == 1


@pytest.mark.parametrize("trials", [1.5, True, "many", float("nan")])
def test_trials_is_a_whole_number(trials):
    refused("trials", trials=trials)


@pytest.mark.parametrize("seed", [-1, 2.5, "x", False])
def test_seed_is_a_whole_number_of_at_least_0(seed):
    refused("seed", seed=seed)


@pytest.mark.parametrize("risk", [0, 1, 1.2, -0.1, float("nan"), "high"])
def test_target_risk_lies_strictly_between_0_and_1(risk):
    refused("target_risk", target_risk=risk)


@pytest.mark.parametrize("universe", ["5,1", "3,3", (4, 2), "0,inf", "a,b", "1,2,3", (1,)])
def test_universe_bounds_are_finite_with_lo_below_hi(universe):
    refused("universe", universe=universe)


def test_universe_bounds_or_a_universe_file_not_both():
    refused("universe", universe="0,100", universe_file=EXAMPLE, universe_column="distance")


def test_a_universe_file_needs_its_column():
    refused("universe_column", universe_file=EXAMPLE)


def test_a_universe_column_needs_its_file():
    refused("universe_column", universe_column="distance")


@pytest.mark.parametrize("low", [50, "abc", float("inf")])
def test_universe_min_is_a_number_at_most_the_lower_bound(low):
    refused("universe_min", universe="10,100", universe_min=low)


def test_missing_codes_are_read_when_the_settings_are_made():
    refused("missing", missing="sometimes")


def test_target_risk_must_exceed_what_guessing_achieves():
    # Five worlds: guessing is right 1 time in 5, so a target of 0.2 asks for less than no release at all.
    assert "1/n = 0.2" in str(refused_by_run("target_risk", DISTANCES, target_risk=0.2))
    # Two worlds: 1/2.
    refused_by_run("target_risk", DISTANCES, target_risk=0.5, worlds="two")
    assert run_attack(settings(target_risk=0.21)).tight_epsilon > 0


def test_zero_global_sensitivity_names_the_universe():
    # The column's own universe holds one value: the mean cannot move, and Laplace(0/ε) is not defined.
    assert "is 0" in str(refused_by_run("universe", [5, 5, 5]))


def test_fewer_than_two_values_is_refused():
    assert "at least 2" in str(refused_by_run("data", [5.0]))
    assert "at least 2" in str(refused_by_run("data", [-1, 7], missing="negative"))


def test_fewer_than_two_values_in_a_file_names_the_file(tmp_path):
    path = tmp_path / "one.csv"
    path.write_text("x\n5\nNA\n")
    error = refused_by_run(None, path, column="x")
    assert str(error).startswith(f"{path}: column 'x'") and "at least 2" in str(error)


def test_a_file_or_a_table_needs_a_column():
    import pandas as pd

    refused("column", data=EXAMPLE)
    refused("column", data=pd.DataFrame({"distance": DISTANCES}))


def test_no_data_is_refused_by_the_run():
    with pytest.warns(DeprecationWarning):
        s = AttackSettings(query="mean", epsilon=1)  # the old shape: the data beside the settings
    with pytest.raises(PrivriskError) as caught:
        run_attack(s)
    assert caught.value.param == "data" and str(caught.value).startswith("data: ")


def test_values_outside_the_universe_are_refused():
    assert "outside the universe" in str(refused_by_run("data", DISTANCES, universe="0,100"))


# ---------------------------------------------------------------------------------------------- the object
def test_settings_are_frozen():
    s = settings()
    with pytest.raises(dataclasses.FrozenInstanceError):
        s.trials = 5  # type: ignore[misc]
    run = run_attack(s)
    with pytest.raises(dataclasses.FrozenInstanceError):
        run.result = None  # type: ignore[misc]


def test_text_from_a_page_is_normalised():
    s = AttackSettings(data=EXAMPLE, query=" Var ", epsilon="ln3", universe=" 0, 100 ", universe_min="", trials="2000",
                       seed="7", worlds="TWO", target_risk="0.6", missing="", column=" hours ")  # fmt: skip
    assert (s.query, s.universe, s.universe_min, s.trials, s.seed, s.worlds, s.target_risk, s.missing) == (
        "variance",
        (0.0, 100.0),
        None,
        2000,
        7,
        "two",
        0.6,
        None,
    )
    assert s.epsilon == pytest.approx(math.log(3)) and s.column == "hours"
    assert s == AttackSettings(data=EXAMPLE, query="variance", epsilon=math.log(3), universe=(0, 100), trials=2000, seed=7,
                               worlds="two", target_risk=0.6, column="hours")  # fmt: skip


def test_a_file_a_column_read_and_the_values_give_the_same_run():
    import pandas as pd

    from privrisk.io.data import read_column

    s = settings(column="distance")
    by_file = run_attack(dataclasses.replace(s, data=EXAMPLE)).to_dict()
    by_table = run_attack(dataclasses.replace(s, data=pd.read_csv(EXAMPLE))).to_dict()
    by_column = run_attack(dataclasses.replace(s, data=read_column(EXAMPLE, "distance"))).to_dict()
    by_values = run_attack(dataclasses.replace(s, data=np.array(DISTANCES))).to_dict()
    assert by_file == by_table == by_column == by_values


# ---------------------------------------------------------------------------------------------- the numbers
def _posterior_max(f: np.ndarray, b: float) -> float:
    """max over answers γ of max over worlds i of p(i | γ), searched on a fine grid that holds every fᵢ."""
    span = f.max() - f.min()
    gamma = np.unique(
        np.concatenate([np.linspace(f.min() - 5 * b - span, f.max() + 5 * b + span, 20_001), f])
    )
    log_like = -np.abs(gamma[:, None] - f[None, :]) / b
    post = np.exp(log_like - log_like.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    return float(post.max())


def _bayes_success(f: np.ndarray, b: float) -> float:
    """(1/n) ∫ max_i Laplace(γ; fᵢ, b) dγ: the Bayes-optimal attacker's success, integrated numerically."""
    from scipy import integrate

    def best(gamma: float) -> float:
        return float(np.max(np.exp(-np.abs(gamma - f) / b) / (2 * b)))

    cuts = np.unique(np.concatenate([f, (f[:-1] + f[1:]) / 2 if f.size > 1 else f]))
    edges = [f.min() - 60 * b, *np.sort(cuts), f.max() + 60 * b]
    total = sum(
        integrate.quad(best, lo, hi, epsabs=1e-13, epsrel=1e-11)[0] for lo, hi in itertools.pairwise(edges)
    )
    return total / f.size


def test_two_worlds_exact_risk_is_the_closed_form():
    # Values in [0, 100]: the mean's global sensitivity is R/2 = 50 (unbounded neighbours). Leaving one out gives
    # means 40, 36.67, 33.33 and 20; the two most different are 20 and 40, so Δv = 20. Between two worlds the
    # most telling answer lies beyond one of them, where the posterior is e^(εΔv/Δf)/(1 + e^(εΔv/Δf)).
    eps = 1.0
    run = run_attack(
        settings(data=[10, 20, 30, 70], universe=(0, 100), worlds="two", epsilon=eps, trials=20_000)
    )
    assert run.sensitivity == 50.0 and run.world_range == pytest.approx(20.0)
    x = eps * 20.0 / 50.0
    closed = math.exp(x) / (1 + math.exp(x))
    r = run.result
    assert r.n_worlds == 2 and r.exact_risk == pytest.approx(closed, rel=1e-12)
    # With two worlds, Lee and Clifton's bound is the same number: the bound is tight.
    assert r.bound == pytest.approx(closed, rel=1e-12)
    # The Bayes-optimal guess between two is right unless the noise crosses the midpoint: 1 − ½e^(−(Δv/2)/b).
    b = 50.0 / eps
    assert r.expected_success == pytest.approx(1 - 0.5 * math.exp(-10.0 / b), rel=1e-12)
    se = math.sqrt(r.expected_success * (1 - r.expected_success) / r.trials)
    assert abs(r.simulated_success - r.expected_success) < 5 * se


@pytest.mark.parametrize(("query", "epsilon"), [("mean", 1.0), ("median", 2.0), ("max", 0.5), ("std", 3.0)])
def test_many_worlds_against_brute_force(query, epsilon):
    values = np.array([2.0, 3.0, 5.0, 8.0, 13.0, 21.0, 34.0])
    run = run_attack(
        settings(data=values, query=query, epsilon=epsilon, universe=(0, 40), trials=20_000, seed=3)
    )
    # The worlds by brute force: the query on every sample with one record left out (population std).
    reduce = {"mean": np.mean, "median": np.median, "max": np.max, "std": np.std}[query]
    f = np.array([reduce(np.delete(values, i)) for i in range(values.size)])
    assert np.sort(run.world_answers) == pytest.approx(np.sort(f))
    df = {"mean": 20.0, "median": 20.0, "max": 40.0, "std": 20.0}[query]  # R/2, R/2, R, R/2 with R = 40
    assert run.sensitivity == df
    b = df / epsilon
    r = run.result
    assert r.n_worlds == 7 and run.guess == pytest.approx(1 / 7)
    assert r.exact_risk == pytest.approx(_posterior_max(f, b), rel=1e-9)
    dv = f.max() - f.min()
    assert r.bound == pytest.approx(1 / (1 + 6 * math.exp(-epsilon * dv / df)), rel=1e-12)
    assert r.expected_success == pytest.approx(_bayes_success(np.sort(f), b), rel=1e-7)
    se = math.sqrt(r.expected_success * (1 - r.expected_success) / r.trials)
    assert abs(r.simulated_success - r.expected_success) < 5 * se
    assert r.ci_low <= r.simulated_success <= r.ci_high


def test_the_epsilons_for_a_target_risk():
    run = run_attack(settings(target_risk=0.3))
    f = np.array([705 / 4, 703 / 4, 696 / 4, 689 / 4, 31 / 4])  # (sum − xᵢ)/4
    # Lee and Clifton's ε solves 1/(1 + 4e^(−εΔv/Δf)) = 0.3: ε = (Δf/Δv)·ln(0.3·4/0.7).
    assert run.lee_clifton_epsilon == pytest.approx(337 / (674 / 4) * math.log(0.3 * 4 / 0.7), rel=1e-9)
    # The tight ε reaches the target exactly (brute force over answers), and exceeds the bound's ε.
    assert _posterior_max(f, 337 / run.tight_epsilon) == pytest.approx(0.3, abs=1e-7)
    assert run.tight_epsilon >= run.lee_clifton_epsilon


# ---------------------------------------------------------------------------------------------- one way in
def test_to_dict_is_the_commands_json(cli, tmp_path):
    path = tmp_path / "soep.csv"
    path.write_text("h\n10\n-1\n20\n-2\n40\n35\n")
    args = ("-c", "h", "-q", "median", "-e", "ln3", "--universe", "0,50", "--universe-min", "-1", "--missing",
            "negative", "--trials", "3000", "--seed", "11", "--worlds", "many", "--risk", "0.4")  # fmt: skip
    doc = cli("attack", path, *args, "--json").json
    assert doc["schema_version"] == 1
    s = AttackSettings(data=path, column="h", query="median", epsilon="ln3", universe="0,50", universe_min=-1,
                       missing="negative", trials=3000, seed=11, worlds="many", target_risk=0.4)  # fmt: skip
    assert run_attack(s).to_dict() == doc


def test_write_is_the_commands_out_folder(cli, tmp_path):
    import json

    out_cli, out_lib = tmp_path / "cli", tmp_path / "lib"
    r = cli(
        "attack", EXAMPLE, "-c", "distance", "-q", "mean", "-e", "1", "--trials", "2000", "--out", out_cli
    )
    assert r.code == 0, r.err
    run = run_attack(settings(data=EXAMPLE, column="distance", trials=2000))
    manifest = run.write(out_lib)
    assert manifest == out_lib / "manifest.json"
    for name in ("attack.json", "risk_vs_epsilon.csv"):
        assert (out_lib / name).read_bytes() == (out_cli / name).read_bytes(), name
    a, b = (json.loads((d / "manifest.json").read_text()) for d in (out_cli, out_lib))
    a.pop("created"), b.pop("created")
    assert a == b and a["parameters"]["file"] == str(EXAMPLE)
    assert a["findings"] == [run.sentence()]
    assert {p.name for p in out_lib.rglob("*") if p.is_file()} >= {n for n in OUT_FILES if "*" not in n}


def test_write_is_whole_or_nothing(tmp_path, monkeypatch):
    import privrisk.reports.plots.attack as plots

    run = run_attack(settings())
    assert_written_whole_or_not_at_all(run, tmp_path / "attack", monkeypatch, plots, "plot_risk_vs_epsilon")


def test_a_run_on_values_names_no_file_in_its_manifest(tmp_path):
    import json

    run = run_attack(settings())
    assert isinstance(run, AttackRun) and run.file is None and run.column == "values"
    run.write(tmp_path / "a", source="uploaded.csv")
    run.write(tmp_path / "b")
    assert json.loads((tmp_path / "a" / "manifest.json").read_text())["parameters"]["file"] == "uploaded.csv"
    assert "file" not in json.loads((tmp_path / "b" / "manifest.json").read_text())["parameters"]


def test_the_sentence_counts_in_natural_frequencies():
    said = run_attack(settings(trials=2000)).sentence()
    # The Bayes-optimal success on Allmann et al.'s Table 1 at ε = 1, integrated here, out of 100 people.
    f = np.sort([705 / 4, 703 / 4, 696 / 4, 689 / 4, 31 / 4])
    per_100 = round(100 * _bayes_success(f, 337.0))
    assert f"is right about {per_100} times in 100" in said and "would be right about 20 times" in said
    assert "knows all 5 records" in said and "guessing among the 5 possibilities" in said


def test_the_way_in_is_curated_at_the_top_level():
    import privrisk
    import privrisk.attack

    for name in ("AttackSettings", "AttackRun", "run_attack"):
        assert name in privrisk.__all__ and getattr(privrisk, name) is getattr(privrisk.attack, name), name


# ---------------------------------------------------------------------------------------------- the old call
def test_the_old_call_with_the_data_beside_the_settings_warns_and_gives_the_same_run():
    with pytest.warns(DeprecationWarning, match=r"AttackSettings without data is deprecated"):
        old_settings = AttackSettings(query="mean", epsilon=1, trials=1_000, column="distance")
    with pytest.warns(DeprecationWarning, match=r"run_attack\(data, settings\) is deprecated"):
        old = run_attack(EXAMPLE, old_settings)
    new = run_attack(settings(data=EXAMPLE, column="distance"))
    assert old.to_dict() == new.to_dict() and old.file == new.file == str(EXAMPLE)


def test_progress_moves_forward_to_done():
    seen: list[tuple[float, str]] = []
    run_attack(settings(), progress=lambda done, message: seen.append((done, message)))
    shares = [done for done, _ in seen]
    assert shares == sorted(shares) and shares[0] == 0.0 and seen[-1] == (1.0, "done")
