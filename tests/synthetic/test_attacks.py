"""A generator that copies its training data is found at risk by every attack; an independent sample of the same
population is not."""

from __future__ import annotations

import pytest

from privrisk.synthetic import SyntheticSettings, generate, run_synthetic
from synthetic_helpers import AUX, SECRETS, files


@pytest.fixture(scope="module")
def data():
    return files()


def _run(train, synthetic, control, **options):
    settings = SyntheticSettings(original=train, synthetic=synthetic, control=control, aux=AUX, secret=SECRETS,
                                 queries=400, membership_targets=300, seed=5, **options)  # fmt: skip
    return run_synthetic(settings)


def test_a_copy_is_at_risk_by_every_attack(data) -> None:
    train, control, _ = data
    run = _run(train, generate(train, "copy", seed=1), control, generator="copy")
    kinds = {o.attack for o in run.attacks}
    assert kinds == {"singling_out_univariate", "singling_out_multivariate", "linkability", "inference"}
    for o in run.attacks:
        assert o.risk.low > 0.2, o.title
    assert {a.name for a in run.membership} == {"distance", "density", "shadow"}
    for a in run.membership:
        assert a.bound.epsilon > 1.0, a.name
        assert a.tpr_at(0.01)[1] > 0.5, a.name
    assert run.distances is not None and run.distances.identical == 1.0
    assert run.verdict().sentence.startswith(("From the synthetic file alone", "An attacker holding"))


def test_an_independent_sample_is_not(data) -> None:
    train, control, fresh = data
    run = _run(train, fresh, control, generator="marginals")
    for o in run.attacks:
        assert o.risk.low == 0.0, o.title
    for a in run.membership:
        assert a.bound.epsilon < 0.5, a.name
    assert run.distances is not None and 0.4 < run.distances.nearer_training < 0.6
    assert run.verdict().headline in ("no risk measured",) or run.riskiest().risk.low == 0.0


def test_the_claim_beside_a_leaking_generator(data) -> None:
    # A copy claimed to be ε = 1: the measured ROC lies above the claimed curve, a finding.
    train, control, fresh = data
    copied = _run(train, generate(train, "copy", seed=1), control, generator_guarantee="epsilon=1")
    assert copied.claims and all(c.violated for c in copied.claims)
    honest = _run(train, fresh, control, generator_guarantee="epsilon=1")
    assert honest.claims and not any(c.violated for c in honest.claims)
    assert "far below the claim" in honest.claims[0].sentence()


def test_every_secret_is_tried_and_the_riskiest_named(data) -> None:
    train, control, _ = data
    settings = SyntheticSettings(original=train, synthetic=generate(train, "copy", seed=1), control=control,
                                 aux="a,b,c,d", queries=200, membership=False, distances=False, seed=2)  # fmt: skip
    run = run_synthetic(settings)
    secrets = [o.secret for o in run.attacks if o.attack == "inference"]
    assert secrets == ["kind", "group"]
    assert run.riskiest_secret() is not None
    assert run.to_dict()["riskiest_secret"] in secrets


def test_shortfall_is_counted_not_hidden(data) -> None:
    # Categorical columns alone single out nobody: every query found is reported with the shortfall.
    train, control, fresh = data
    cats = ["kind", "group"]
    run = run_synthetic(SyntheticSettings(original=train[cats], synthetic=fresh[cats], control=control[cats],
                                          queries=100, membership=False, distances=False, seed=1))  # fmt: skip
    uni = run.attacks[0]
    assert uni.found < uni.requested and uni.shortfall == uni.requested - uni.found
    assert uni.note is not None and "shortfall" in uni.note
    assert uni.to_dict()["shortfall"] == uni.shortfall
