"""GuaranteeSpec: every base and modifier builds what the library's own calls build; every bad combination is
one PrivriskError naming its field; k-ary randomized response against brute force and dp_accounting; the TOML of
mixed compositions."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk import accounting as A
from privrisk.accounting.spec import GuaranteeSpec, parse_dpsgd, parse_renyi, releases_from_toml
from privrisk.errors import PrivriskError

EPS = np.array([0.0, 0.1, 0.5, 1.0, 2.0, 4.0])


def same(g, h) -> None:
    assert g.label == h.label
    np.testing.assert_allclose(g._deltas(EPS), h._deltas(EPS), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize(
    ("spec", "direct"),
    [
        (GuaranteeSpec(epsilon="ln3"), lambda: A.pure_dp(math.log(3))),
        (GuaranteeSpec(epsilon=1.0, delta=1e-5), lambda: A.approximate_dp(1.0, 1e-5)),
        (GuaranteeSpec(epsilon=1.0, delta=0.0), lambda: A.pure_dp(1.0)),
        (GuaranteeSpec(rho=0.5), lambda: A.zcdp(0.5)),
        (GuaranteeSpec(mu=1.5), lambda: A.gaussian_dp(1.5)),
        (GuaranteeSpec(renyi="2:0.5,4:ln3,8:2.3"), lambda: A.renyi_dp([2, 4, 8], [0.5, math.log(3), 2.3])),
        (GuaranteeSpec(renyi={8: 2.3, 2: 0.5}), lambda: A.renyi_dp([2, 8], [0.5, 2.3])),
        (GuaranteeSpec(mechanism="laplace", epsilon=0.5), lambda: A.laplace_guarantee(epsilon=0.5)),
        (
            GuaranteeSpec(mechanism="laplace", scale=2, sensitivity=3),
            lambda: A.laplace_guarantee(scale=2, sensitivity=3),
        ),
        (GuaranteeSpec(mechanism="gaussian", sigma=2.0), lambda: A.gaussian_guarantee(sigma=2.0)),
        (GuaranteeSpec(mechanism="rr", epsilon=1.0), lambda: A.randomised_response_guarantee(epsilon=1.0)),
        (
            GuaranteeSpec(mechanism="rr", epsilon=1.0, categories=5),
            lambda: A.kary_randomised_response_guarantee(epsilon=1.0, categories=5),
        ),
        (
            GuaranteeSpec(mechanism="discrete-laplace", scale=2.0),
            lambda: A.discrete_laplace_guarantee(scale=2.0),
        ),
        (
            GuaranteeSpec(mechanism="discrete_laplace", epsilon=0.5, sensitivity=2),
            lambda: A.discrete_laplace_guarantee(scale=4.0, sensitivity=2),
        ),
        (
            GuaranteeSpec(mechanism="discrete-gaussian", sigma=3.0),
            lambda: A.discrete_gaussian_guarantee(sigma=3.0),
        ),
        (
            GuaranteeSpec(dpsgd="1000,100,2", sigma=2.0),
            lambda: A.dpsgd(dataset_size=1000, batch_size=100, epochs=2, noise_multiplier=2.0),
        ),
        (GuaranteeSpec(opacus_history=[(2.0, 0.1, 20)]), lambda: A.from_opacus([(2.0, 0.1, 20)])),
        (
            GuaranteeSpec(mu=1.0, sample_rate=0.5, compose=3, group=2),
            lambda: A.group(A.subsample(A.gaussian_dp(1.0), 0.5).compose(3), 2),
        ),
        (
            GuaranteeSpec(epsilon=1.0, sample_rate=0.2, sampling="without-replacement"),
            lambda: A.subsample(A.pure_dp(1.0), 0.2, method="without_replacement"),
        ),
        (
            GuaranteeSpec(mechanism="gaussian", sigma=2.0, sample_rate=1.0, compose=1, group=1),
            lambda: A.gaussian_guarantee(sigma=2.0),
        ),
    ],
)
def test_each_way_builds_what_the_library_builds(spec, direct):
    same(spec.build(), direct())


@pytest.mark.parametrize(
    ("fields", "param", "fragment"),
    [
        ({}, "epsilon", "got none"),
        ({"epsilon": 1, "rho": 1}, "rho", "got epsilon and rho"),
        ({"mechanism": "laplace", "epsilon": 1, "mu": 1}, "mechanism", "got mu and mechanism"),
        ({"scale": 1.0}, "scale", "only with mechanism"),
        ({"sigma": 1.0}, "sigma", "only with mechanism or dpsgd"),
        ({"rho": 1, "delta": 0.1}, "delta", "only with epsilon"),
        ({"mechanism": "gaussian", "sigma": 1, "delta": 0.1}, "delta", "not with mechanism"),
        ({"epsilon": 1, "delta": 1.0}, "delta", "delta"),
        ({"epsilon": "ln0"}, "epsilon", "not defined"),
        ({"epsilon": "x"}, "epsilon", "not a number"),
        ({"rho": 0}, "rho", "greater than 0"),
        ({"mu": math.nan}, "mu", "greater than 0, got nan"),
        ({"mechanism": "cauchy", "epsilon": 1}, "mechanism", "discrete-gaussian"),
        ({"mechanism": "laplace"}, "epsilon", "exactly one of epsilon, scale"),
        ({"mechanism": "gaussian", "epsilon": 1}, "epsilon", "give sigma"),
        ({"mechanism": "rr", "epsilon": 1, "sensitivity": 2}, "sensitivity", "no sensitivity"),
        ({"mechanism": "rr", "epsilon": 1, "categories": 1}, "categories", "≥ 2"),
        ({"mechanism": "laplace", "epsilon": 1, "categories": 3}, "categories", "only with mechanism rr"),
        ({"mechanism": "discrete-gaussian", "sigma": 1, "sensitivity": 1.5}, "sensitivity", "whole"),
        ({"renyi": "2:0.5,1:1"}, "renyi", "greater than 1"),
        ({"renyi": "2-0.5"}, "renyi", "order:ε"),
        ({"renyi": "2:0.5,2:0.6"}, "renyi", "once"),
        ({"renyi": "2:-1"}, "renyi", "renyi"),
        ({"dpsgd": "1000,100"}, "dpsgd", "N,B,EPOCHS"),
        ({"dpsgd": "1000,2000,1", "sigma": 1}, "dpsgd", "exceeds"),
        ({"dpsgd": "1000.5,10,1", "sigma": 1}, "dpsgd", "whole"),
        ({"dpsgd": "1000,10,0", "sigma": 1}, "dpsgd", "epochs"),
        ({"dpsgd": "1000,10,1"}, "sigma", "noise multiplier"),
        ({"dpsgd": "1000,10,1", "sigma": 1, "compose": 2}, "compose", "not with dpsgd"),
        ({"dpsgd": "1000,10,1", "sigma": 1, "sample_rate": 0.1}, "sample_rate", "not with dpsgd"),
        ({"dpsgd": "1000,10,1", "sigma": 1, "sampling": "bootstrap"}, "sampling", "poisson"),
        ({"epsilon": 1, "sampling": "poisson"}, "sampling", "only with sample_rate"),
        ({"epsilon": 1, "sample_rate": 0}, "sample_rate", "sample_rate"),
        ({"epsilon": 1, "sample_rate": 1.5}, "sample_rate", "sample_rate"),
        ({"epsilon": 1, "compose": 0}, "compose", "≥ 1"),
        ({"epsilon": 1, "group": 1.5}, "group", "whole"),
        ({"opacus_history": [(1.0, 0.1)]}, "opacus_history", "entry 1"),
        ({"releases": ()}, "releases", "at least one release"),
        (
            {"releases": (GuaranteeSpec(mechanism="gaussian", sigma=-1, name="hours"),)},
            "releases",
            "release 1 ('hours'): sigma",
        ),
        ({"releases": (GuaranteeSpec(rho=1, compose=0),)}, "releases", "count: must be a whole number ≥ 1"),
    ],
)
def test_every_bad_combination_names_its_field(fields, param, fragment):
    with pytest.raises(PrivriskError) as caught:
        GuaranteeSpec(**fields).build()
    message = str(caught.value)
    assert caught.value.param == param, message
    assert message.startswith(f"{param}:") and fragment in message, message
    assert "\n" not in message


def test_names_name_the_fields_as_the_caller_does():
    names = {"rho": "--rho", "mu": "--mu", "epsilon": "--epsilon", "compose": "Releases"}
    with pytest.raises(PrivriskError, match=r"^--mu: .*got --rho and --mu$") as caught:
        GuaranteeSpec(rho=1, mu=1).build(names=names)
    assert caught.value.param == "mu"
    with pytest.raises(PrivriskError, match=r"^Releases: must be a whole number ≥ 1") as caught:
        GuaranteeSpec(rho=1, compose=0).build(names=names)
    assert caught.value.param == "compose"


def test_the_spec_is_frozen_and_lists_what_is_set():
    spec = GuaranteeSpec(rho=0.5, compose=2)
    with pytest.raises(AttributeError):
        spec.rho = 1.0  # type: ignore[misc]
    assert spec.options() == {"rho": 0.5, "compose": 2} and spec.given() == ["rho"]


# ------------------------------------------------------------------------------------- k-ary randomized response
def kary_distributions(eps: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Output distributions for true answers 0 and 1, written out (the brute force)."""
    p = np.full(k, 1.0 / (math.exp(eps) + k - 1))
    q = p.copy()
    p[0] = q[1] = math.exp(eps) / (math.exp(eps) + k - 1)
    return p, q


def brute_profile(p: np.ndarray, q: np.ndarray, eps: float) -> float:
    return float(
        max(np.sum(np.maximum(p - math.exp(eps) * q, 0)), np.sum(np.maximum(q - math.exp(eps) * p, 0)))
    )


def brute_tradeoff(p: np.ndarray, q: np.ndarray, alpha: float) -> float:
    """Neyman–Pearson by enumeration: every deterministic test (subset of outputs), then their convex hull."""
    k = len(p)
    points = []
    for mask in range(2**k):
        reject = np.array([(mask >> i) & 1 for i in range(k)], dtype=bool)
        points.append((float(p[reject].sum()), float(q[~reject].sum())))
    # β(α): the lower convex hull of (α, β) at α, by linear programming over pairs (randomised tests).
    best = 1.0
    for a1, b1 in points:
        for a2, b2 in points:
            if a1 <= alpha <= a2:
                t = 0.0 if a2 == a1 else (alpha - a1) / (a2 - a1)
                best = min(best, (1 - t) * b1 + t * b2)
    return best


@pytest.mark.parametrize(("eps", "k"), [(math.log(3), 2), (math.log(3), 4), (0.2, 6), (2.5, 3)])
def test_kary_randomized_response_against_brute_force(eps, k):
    g = A.kary_randomised_response_guarantee(epsilon=eps, categories=k)
    p, q = kary_distributions(eps, k)
    for e in (0.0, 0.1, eps / 2, eps * 0.99, eps, eps + 1):
        assert g.delta_at(e) == pytest.approx(brute_profile(p, q, e), abs=1e-12)
    for a in (0.0, 0.01, 0.05, 0.2, 0.5, 0.8, 1.0):
        # f-DP is symmetric here (swapping the two answers swaps P and Q), so one order suffices.
        assert g.tradeoff(a) == pytest.approx(brute_tradeoff(p, q, a), abs=1e-12)
        assert g.tradeoff(a) == pytest.approx(brute_tradeoff(q, p, a), abs=1e-12)
    assert g.epsilon_at(g.delta_at(eps / 3)) == pytest.approx(eps / 3, rel=1e-9)


def test_kary_randomized_response_against_dp_accounting():
    from dp_accounting.pld import privacy_loss_distribution as pld

    eps, k = math.log(3), 5
    g = A.kary_randomised_response_guarantee(epsilon=eps, categories=k)
    ref = pld.from_randomized_response(k / (math.exp(eps) + k - 1), k, value_discretization_interval=1e-5)
    for e in (0.0, 0.3, 0.8):
        assert g.delta_at(e) == pytest.approx(ref.get_delta_for_epsilon(e), abs=2e-5)  # the grid's pessimism
        assert g.delta_at(e) <= ref.get_delta_for_epsilon(e) + 1e-12
    # Rényi divergences: the closed form against the sum over outputs.
    p, q = kary_distributions(eps, k)
    for order in (1.5, 2.0, 8.0):
        direct = math.log(np.sum(p**order * q ** (1 - order))) / (order - 1)
        assert g._rdp(np.array([order]))[0] == pytest.approx(direct, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.floats(0.01, 800.0), st.integers(2, 10_000), st.floats(0.0, 1.0))
def test_kary_profile_is_a_probability_and_more_categories_hide_more(eps, k, alpha):
    g = A.kary_randomised_response_guarantee(epsilon=eps, categories=k)
    d = g.delta_at(min(eps / 2, 1.0))
    assert 0.0 <= d <= A.randomised_response_guarantee(epsilon=eps).delta_at(min(eps / 2, 1.0)) + 1e-15
    b = float(g.tradeoff(alpha))
    assert 0.0 <= b <= 1.0 - alpha + 1e-15 and math.isfinite(b)
    assert np.all(np.isfinite(g._rdp(np.array([1.5, 2.0, 64.0]))))


# ---------------------------------------------------------------------------------------------- mixed releases
MIX = """
# Laplace counts, a DP-SGD-like Gaussian, and a survey question by randomized response
[[release]]
name = "counts"
mechanism = "laplace"
epsilon = "ln2"
count = 3

[[release]]
name = "model"
mechanism = "gaussian"
sigma = 2.0
count = 20
sample_rate = 0.1

[[release]]
mechanism = "rr"
epsilon = 1.0
categories = 4
"""


def test_releases_from_toml_compose_like_the_library():
    releases = releases_from_toml(MIX)
    assert [r.name for r in releases] == ["counts", "model", None]
    g = GuaranteeSpec(releases=releases).build()
    h = A.compose(
        [
            A.laplace_guarantee(epsilon=math.log(2)).compose(3),
            A.subsample(A.gaussian_guarantee(sigma=2.0), 0.1).compose(20),
            A.kary_randomised_response_guarantee(epsilon=1.0, categories=4),
        ]
    )
    np.testing.assert_allclose(g._deltas(EPS), h._deltas(EPS), rtol=1e-12, atol=1e-15)
    # The mix protects less than any of its parts alone.
    assert g.delta_at(1.0) > A.subsample(A.gaussian_guarantee(sigma=2.0), 0.1).compose(20).delta_at(1.0)


@pytest.mark.parametrize(
    ("text", "fragments"),
    [
        ("[[release]\nmechanism = 1", ["not valid TOML"]),
        ("", ["at least one [[release]]"]),
        ("[release]\nmechanism = 'laplace'", ["at least one [[release]]"]),
        ("title = 'x'\n[[release]]\nrho = 1", ["unknown table or key 'title'"]),
        ("[[release]]\nname = 'a'\nsigmaa = 2", ["release 1 ('a')", "unknown key 'sigmaa'"]),
        ("[[release]]\nrho = 1\n[[release]]\nrho = [1, 2]", ["release 2", "rho must be a number"]),
        ("[[release]]\nrho = 1\n[[release]]\nrho = {a = 1}", ["release 2", "rho"]),
        ("[[release]]\nrho = true", ["release 1", "rho must be a number"]),
        ("[[release]]\n[release.nested]\nx = 1", ["release 1", "unknown key 'nested'"]),
        ("[[release]]\nsampling = 3", ["release 1", "sampling must be text"]),
    ],
)
def test_bad_releases_files_name_the_release_and_the_key(text, fragments):
    with pytest.raises(PrivriskError) as caught:
        releases_from_toml(text)
    assert caught.value.param == "releases" and "\n" not in str(caught.value)
    for fragment in fragments:
        assert fragment in str(caught.value)


def test_a_release_with_bad_values_is_named_when_built():
    releases = releases_from_toml(
        "[[release]]\nrho = 1\n[[release]]\nname = 'b'\nmechanism = 'gaussian'\nscale = 2"
    )
    with pytest.raises(
        PrivriskError, match=r"^releases: release 2 \('b'\): scale: not with mechanism gaussian"
    ):
        GuaranteeSpec(releases=releases).build()


def test_parsers():
    assert parse_renyi([(4, 1.0), (2, "ln2")]) == ([4.0, 2.0], [1.0, math.log(2)])
    assert parse_dpsgd((60000, 256, 0.5)) == (60000, 256, 0.5)
    with pytest.raises(PrivriskError, match=r"^renyi: "):
        parse_renyi("")


JUNK = st.one_of(
    st.none(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-5, 5),
    st.sampled_from(["", "x", "ln3", "-1", "nan", "1e999", "2:0.5", "10,2,1", "laplace", "poisson"]),
    st.lists(st.integers(0, 3), max_size=3),
)


@settings(max_examples=300, deadline=None)
@given(
    st.fixed_dictionaries(
        {},
        optional={
            name: JUNK
            for name in (
                "epsilon",
                "delta",
                "rho",
                "mu",
                "renyi",
                "mechanism",
                "scale",
                "sigma",
                "sensitivity",
                "categories",
                "dpsgd",
                "opacus_history",
                "sample_rate",
                "sampling",
                "compose",
                "group",
            )
        },
    )
)
def test_any_junk_is_a_guarantee_or_one_privrisk_error(fields):
    """Hostile input never escapes as TypeError, OverflowError or ZeroDivisionError: a guarantee or one line."""
    try:
        g = GuaranteeSpec(**fields).build()
    except PrivriskError as exc:
        assert exc.param in {f.name for f in __import__("dataclasses").fields(GuaranteeSpec)}, (
            exc.param,
            str(exc),
        )
        assert "\n" not in str(exc)
    else:
        assert isinstance(g, A.Guarantee)


@pytest.mark.parametrize(
    "fields",
    [
        {"epsilon": 10132601120.0, "compose": 10132601120.0},  # hypothesis's MemoryError: a list of 10¹⁰ copies
        {"mechanism": "rr", "epsilon": 0.1, "compose": 10**12},
        {"mu": 0.01, "compose": 10**15},
    ],
)
def test_composing_a_huge_number_of_copies_needs_no_list_of_them(fields):
    g = GuaranteeSpec(**fields).build()
    k = fields["compose"]
    if "mu" in fields:
        assert g.mu == pytest.approx(fields["mu"] * math.sqrt(k))  # μ = √k · μ₀, exactly
    else:
        assert 0.0 <= g.delta_at(1.0) <= 1.0
