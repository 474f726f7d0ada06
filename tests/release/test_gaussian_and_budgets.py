"""Gaussian answers (OpenDP, ρ-zCDP), budgets as ε, (ε, δ) or ρ, the tight composition of a ledger, old ledgers."""

from __future__ import annotations

import json
import math
from statistics import NormalDist

import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.release import ReleaseQuery, noisy_release
from privrisk.release import ledger as L
from privrisk.release import mechanisms as M
from privrisk.release.budget import Budget
from privrisk.release.spec import read_release_spec

PHI = NormalDist().cdf
DATA = "hours,income\n8,100\n6,200\n30,50\n7,1000\n9,300\n"

# A ledger written by privrisk before Gaussian answers and budgets of other kinds existed, byte for byte.
OLD_LEDGER = """{
  "schema_version": 1,
  "kind": "privrisk-ledger",
  "count": 2,
  "total_epsilon": 1.0,
  "head": "0289c3dcf50a2adc111421353eb92a398da469f3bceea98944fd588b2b185c7f",
  "entries": [
    {
      "seq": 1,
      "time": "2026-11-23T07:02:21.968568+00:00",
      "epsilon": 0.5,
      "queries": [
        {
          "column": "hours",
          "query": "mean",
          "epsilon": 0.5
        }
      ],
      "data": "survey.csv",
      "budget": 2.0,
      "prev": "0000000000000000000000000000000000000000000000000000000000000000",
      "hash": "9ae230ce25abea78db822f0f4df88539e880ab1e170da6412c13b5e91faef5fa"
    },
    {
      "seq": 2,
      "time": "2026-11-23T07:02:21.992321+00:00",
      "epsilon": 0.5,
      "queries": [
        {
          "column": "hours",
          "query": "max",
          "epsilon": 0.25
        },
        {
          "column": "income",
          "query": "median",
          "epsilon": 0.25
        }
      ],
      "data": "survey.csv",
      "budget": 2.0,
      "prev": "9ae230ce25abea78db822f0f4df88539e880ab1e170da6412c13b5e91faef5fa",
      "hash": "0289c3dcf50a2adc111421353eb92a398da469f3bceea98944fd588b2b185c7f"
    }
  ]
}
"""


def gaussian_delta(eps: float, mu: float) -> float:
    """δ(ε) of μ-GDP (Dong, Roth and Su, Cor. 2.13), written out here."""
    return PHI(-eps / mu + mu / 2) - math.exp(eps) * PHI(-eps / mu - mu / 2)


def gaussian_epsilon(delta: float, mu: float) -> float:
    """ε at δ of μ-GDP by bisection on the closed form (δ(ε) falls with ε)."""
    lo, hi = 0.0, 100.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_delta(mid, mu) > delta else (lo, mid)
    return hi


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "survey.csv"
    path.write_text(DATA)
    return path


# Counts with a published n: a mean at these ε or ρ would be useless (its 95 % interval wider than its range) and
# refused without being allowed; the composition of the answers depends only on their ε and ρ.
def gaussian(data, rho="0.125", *extra):
    return ("release", data, "-c", "hours", "-q", "count", "--mechanism", "gaussian", "--rho", rho,
            "--universe", "0,24", "--public-n", "1000", *extra)  # fmt: skip


def laplace(data, eps="0.5", *extra):
    return ("release", data, "-c", "income", "-q", "count", "-e", eps, "--universe", "0,1000",
            "--public-n", "1000", *extra)  # fmt: skip


# ------------------------------------------------------------------------------------------- the mechanism
def test_gaussian_sigma_is_delta_over_root_two_rho_and_opendp_certifies_it():
    import opendp.prelude as dp

    dp.enable_features("contrib")
    for sens, rho in [(1.0, 0.125), (12.0, 0.5), (3.0, 0.01)]:
        sigma = M.gaussian_sigma(sens, rho)
        assert sigma == pytest.approx(sens / math.sqrt(2 * rho), rel=1e-12)
        meas = dp.m.make_gaussian(
            dp.atom_domain(T=float, nan=False), dp.absolute_distance(T=float), scale=sigma
        )
        assert meas.map(sens) <= rho


def test_gaussian_noise_has_the_asked_spread():
    noisy = M.sample_gaussian([0.0] * 4000, 2.0)
    # The sample variance of 4000 normal draws is within 10 % of σ² = 4 with probability 1 − 10⁻⁸ or so.
    assert abs(noisy.var() / 4.0 - 1) < 0.1 and abs(noisy.mean()) < 0.3


def test_release_of_a_gaussian_answer(cli, data):
    r = cli(*gaussian(data, "0.125", "--json"))
    assert r.code == 0, r.err
    (answer,) = r.json["answers"]
    # count: Δf = 1, σ = 1/√(2·0.125) = 2; 95 % of the noise lies within 1.95996 σ.
    assert answer["mechanism"] == "gaussian" and answer["rho"] == 0.125 and answer["epsilon"] is None
    assert answer["noise_scale"] == pytest.approx(2.0) and answer["noise_95"] == pytest.approx(
        2 * 1.959964, rel=1e-6
    )
    s = r.json["public_statement"]
    assert s["global_risk"] is None and s["rho"] == 0.125 and s["epsilon"] == 0.0
    c = s["composition"]
    mu = math.sqrt(2 * 0.125)  # ρ-zCDP of the Gaussian mechanism ≡ μ-GDP with μ = Δ/σ = √(2ρ)
    assert c["advantage"] == pytest.approx(2 * PHI(mu / 2) - 1, abs=1e-9)
    assert c["success"] == pytest.approx(PHI(mu / 2), abs=1e-9)
    assert c["epsilon_at_delta"] == pytest.approx(gaussian_epsilon(1e-6, mu), rel=1e-6)
    assert c["many_worlds"] is not None and 1 / 1000 <= c["many_worlds"] <= 1  # guessing among n = 1,000


def test_spec_with_a_gaussian_query(tmp_path):
    spec = tmp_path / "r.toml"
    spec.write_text(
        '[[query]]\ncolumn = "h"\nquery = "mean"\nmechanism = "gaussian"\nrho = 0.5\nuniverse = [0, 1]\n'
    )
    (q,) = read_release_spec(spec).queries
    assert q.mechanism == "gaussian" and q.rho == 0.5 and q.ledger_record()["rho"] == 0.5
    for body, fragment in [
        ('[[query]]\ncolumn="h"\nquery="mean"\nmechanism="gaussian"\nuniverse=[0,1]\n', "'rho'"),
        ('[[query]]\ncolumn="h"\nquery="mean"\nmechanism="gaussian"\nrho=0\nuniverse=[0,1]\n', "rho"),
        (
            '[[query]]\ncolumn="h"\nquery="mean"\nmechanism="gaussian"\nrho=1\nepsilon=1\nuniverse=[0,1]\n',
            "epsilon",
        ),
        ('[[query]]\ncolumn="h"\nquery="mean"\nepsilon=1\nrho=1\nuniverse=[0,1]\n', "rho"),
        (
            '[[query]]\ncolumn="h"\nquery="mean"\nmechanism="poisson"\nepsilon=1\nuniverse=[0,1]\n',
            "mechanism",
        ),
    ]:
        spec.write_text(body)
        with pytest.raises(PrivriskError, match=fragment):
            read_release_spec(spec)


# ---------------------------------------------------------------------------------------- the ledger composes
def test_gaussian_answers_compose_exactly_in_the_ledger(cli, data, tmp_path):
    led = tmp_path / "ledger.json"
    assert cli(*gaussian(data, "0.125", "--ledger", led)).code == 0
    doc = cli(*gaussian(data, "0.375", "--ledger", led, "--json")).json
    c = doc["public_statement"]["cumulative"]["composition"]
    # ρ adds up: 0.125 + 0.375 = 0.5, i.e. μ = 1; advantage 2Φ(1/2) − 1 (Dong, Roth and Su, Cor. 3.3).
    assert c["plain_rho"] == pytest.approx(0.5) and c["answers"] == 2
    assert c["advantage"] == pytest.approx(2 * PHI(0.5) - 1, abs=1e-9)
    summary = cli("ledger", led, "--json").json
    assert summary["public_statement"]["composition"]["advantage"] == pytest.approx(
        2 * PHI(0.5) - 1, abs=1e-9
    )


def test_mixed_ledger_is_never_above_basic_composition(cli, data, tmp_path):
    led = tmp_path / "ledger.json"
    cli(*gaussian(data, "0.125", "--ledger", led))
    cli(*laplace(data, "0.5", "--ledger", led))
    c = cli("ledger", led, "--json").json["public_statement"]["composition"]
    # Basic composition: (0.5, 0)-DP and (ε_G(δ), δ)-DP give (0.5 + ε_G(δ), δ); the tight ε is below it, and
    # above the Gaussian's alone.
    eps_g = gaussian_epsilon(1e-6, 0.5)
    assert eps_g < c["epsilon_at_delta"] <= 0.5 + eps_g + 1e-6
    assert (
        c["plain_epsilon"] == 0.5
        and c["plain_rho"] == 0.125
        and "privacy loss distribution" in c["conversion"]
    )


def test_rho_budget_counts_laplace_as_half_epsilon_squared(cli, data, tmp_path, monkeypatch):
    led = tmp_path / "ledger.json"
    assert cli(*gaussian(data, "0.125", "--ledger", led, "--budget-rho", "0.25")).code == 0
    drawn = []
    monkeypatch.setattr(M, "_draw", lambda *a: drawn.append(a) or (_ for _ in ()).throw(AssertionError))
    # ε = 0.5 counts ε²/2 = 0.125: 0.125 + 0.125 = 0.25 fits exactly; a hair more does not, and draws no noise.
    r = cli(*laplace(data, "0.5000001", "--ledger", led))
    assert r.code == 1 and "--budget:" in r.err and "budget ρ = 0.25" in r.err and not drawn
    monkeypatch.undo()
    assert cli(*laplace(data, "0.5", "--ledger", led)).code == 0
    assert cli("ledger", led, "--budget-rho", "0.25", "--json").json["spent"] == pytest.approx(0.25)
    assert cli("ledger", led, "--budget-rho", "0.2499").code == 1


def test_epsilon_delta_budget_is_checked_tightly_at_its_exact_boundary(tmp_path):
    frame = pd.DataFrame({"h": [1.0, 2.0, 3.0]})
    q = ReleaseQuery("h", "count", None, (0, 24), mechanism="gaussian", rho=0.25)  # Δf = 1: μ = √0.5 each
    exact = gaussian_epsilon(1e-6, 1.0)  # two answers: μ = 1
    led = tmp_path / "ledger.json"
    noisy_release(frame, q, ledger=led, budget=Budget(epsilon=exact * (1 + 1e-6), delta=1e-6))
    with pytest.raises(ThresholdExceeded, match="tight composition"):
        noisy_release(frame, q, ledger=led, budget=Budget(epsilon=exact * (1 - 1e-6), delta=1e-6))
    noisy_release(frame, q, ledger=led, budget=Budget(epsilon=exact * (1 + 1e-6), delta=1e-6))
    # Far below the plain sums: the two answers are ε = 2·ε_G(δ) by basic composition.
    assert exact < 2 * gaussian_epsilon(1e-6, math.sqrt(0.5))


def test_pure_epsilon_budget_refuses_a_gaussian_answer(cli, data, tmp_path):
    r = cli(*gaussian(data, "0.125", "--budget", "1"))
    one_line_error(r, "--budget", "Gaussian", "δ")
    r = cli(*gaussian(data, "0.125", "--budget-epsilon", "1", "--budget-rho", "1"))
    one_line_error(r, "--budget-rho")


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (["--mechanism", "gaussian", "-e", "1"], ["--rho"]),
        (["--mechanism", "gaussian", "--rho", "0"], ["--rho"]),
        (["--mechanism", "gaussian", "--rho", "1", "-e", "1"], ["--epsilon", "ρ"]),
        (["--mechanism", "cauchy", "-e", "1"], ["--mechanism"]),
        (["-e", "1", "--rho", "1"], ["--rho"]),
        (["-e", "1", "--budget-delta", "1e-6"], ["--budget-delta"]),
        (["-e", "1", "--budget-epsilon", "1", "--budget-delta", "2"], ["--budget-delta"]),
        (["-e", "1", "--budget-rho", "-1"], ["--budget-rho"]),
    ],
)
def test_bad_gaussian_and_budget_options(cli, data, args, fragments):
    r = cli("release", data, "-c", "hours", "-q", "mean", "--universe", "0,24", *args)
    one_line_error(r, *fragments)


# ---------------------------------------------------------------------------------------------- old ledgers
def test_a_ledger_written_before_this_change_still_reads_and_grows(cli, data, tmp_path):
    led = tmp_path / "old.json"
    led.write_text(OLD_LEDGER)
    assert L.spent_epsilon(led) == 1.0
    doc = cli("ledger", led, "--json").json
    assert (
        doc["releases"] == 2
        and doc["total_epsilon"] == 1.0
        and doc["public_statement"]["global_risk"] == (pytest.approx(math.e / (1 + math.e)))
    )
    # The old budget (ε = 2, a plain number) still binds: 1.0 spent, 1.5 more does not fit.
    r = cli(*laplace(data, "1.5", "--ledger", led))
    assert r.code == 1 and "budget ε = 2" in r.err
    assert cli(*gaussian(data, "0.125", "--ledger", led)).code == 2  # a pure ε budget cannot take a Gaussian
    assert cli(*gaussian(data, "0.125", "--ledger", led, "--budget-rho", "1")).code == 0
    entries = L.read_ledger(led)
    assert entries[2]["budget"] == {"rho": 1.0} and entries[2]["queries"][0]["mechanism"] == "gaussian"
    assert entries[:2] == json.loads(OLD_LEDGER)["entries"]  # the old entries are untouched


def test_gaussian_entries_are_under_the_checksum_and_the_key(tmp_path):
    key = "k" * 16
    led = tmp_path / "ledger.json"
    L.record_release(
        led, queries=[{"column": "h", "query": "mean", "mechanism": "gaussian", "rho": 0.5}], key=key
    )
    assert L.read_ledger(led, key)[0]["epsilon"] == 0.0
    doc = json.loads(led.read_text())
    doc["entries"][0]["queries"][0]["rho"] = 0.05  # spent less, by hand
    led.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError, match="checksum"):
        L.read_ledger(led, key)
    doc["entries"][0]["queries"][0]["rho"] = -1.0
    led.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError, match="corrupt"):
        L.read_ledger(led, key)


# ------------------------------------------------------------------------------------------------ invariants
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from privrisk.release.composition import composition_statement  # noqa: E402

_laplace = st.sampled_from([0.1, 0.5, 1.0]).map(lambda e: {"column": "c", "query": "mean", "epsilon": e})
_gaussian = st.floats(0.01, 1.0).map(
    lambda r: {"column": "c", "query": "mean", "mechanism": "gaussian", "rho": r}
)
# One kind per ledger, Laplace answers of a few ε (identical ones compose as one): a privacy loss distribution of
# many different answers takes seconds per example (mixed ledgers are tested above).
_ledgers = st.one_of(
    st.tuples(st.lists(_laplace, min_size=1, max_size=4), _laplace),
    st.tuples(st.lists(_gaussian, min_size=1, max_size=4), _gaussian),
)


@settings(max_examples=30, deadline=None)
@given(_ledgers)
def test_composition_only_grows_and_budgets_add_up(ledger):
    records, extra = ledger
    before, after = composition_statement(records), composition_statement([*records, extra])
    for c in (before, after):
        assert 0 <= c["advantage"] <= 1 and c["success"] == pytest.approx((1 + c["advantage"]) / 2)
    # One more release never helps privacy.
    assert after["advantage"] >= before["advantage"] - 1e-9
    assert after["epsilon_at_delta"] >= before["epsilon_at_delta"] - 1e-9
    rho = Budget(rho=1.0).spent(records)
    by_hand = sum(r["rho"] if "rho" in r else r["epsilon"] ** 2 / 2 for r in records)
    assert rho == pytest.approx(by_hand)
    if all("epsilon" in r for r in records):
        # A pure ledger: the tight ε at any δ is never above the plain sum (basic composition).
        plain = sum(r["epsilon"] for r in records)
        assert Budget(epsilon=1.0, delta=1e-6).spent(records) <= plain + 1e-9
        assert Budget(epsilon=1.0).spent(records) == pytest.approx(plain)
    else:
        # Gaussian answers compose exactly: μ = √(2Σρ), advantage 2Φ(μ/2) − 1.
        mu = math.sqrt(2 * by_hand)
        assert before["advantage"] == pytest.approx(2 * PHI(mu / 2) - 1, abs=1e-9)
