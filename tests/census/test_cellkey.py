"""The cell-key method as a mechanism, checked against published digits and brute force that shares no code.

- sdcTools' ptable, ``create_cnt_ptable(D = 2, V = 1)``: the shipped table agrees with the digits the package's
  vignette prints, and its profile and trade-off curve with an enumeration of the count pairs written here;
- Rinott et al.'s truncated discrete Laplace table (ε = 1.5, D = 7; National Academies 2024, Table C-1): its
  probabilities to the printed digits and its δ = 2·10⁻⁵;
- ONS's shipped table: read, found to be a threshold of 10 and rounding to base 5, δ = 1, no zero-cell δ;
- the cell key: composing cells is on the safe side of enumerating their product; a margin and its cells, whose
  keys depend on each other, can leak more than that composition (so :func:`independent_cell_keys` is needed),
  and :func:`independent_cell_keys` agrees with enumerating the keys mod 4.
"""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.accounting import membership_risk, tpr_at_fpr
from privrisk.accounting.cellkey import (
    additive_noise_table,
    cell_key_guarantee,
    independent_cell_keys,
    perturbation_table,
    truncated_discrete_laplace,
)
from privrisk.accounting.perturbation_files import perturbation_table_from_text, read_perturbation_table
from privrisk.errors import PrivriskError

DATA = Path(__file__).resolve().parents[1] / "data" / "census"
PTABLE = DATA / "ptable_D2_V1.csv"
ONS = DATA / "ons_ptable_10_5_rule.csv.xz"
EPSILONS = (0.0, 0.1, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0, 20.0)


# ------------------------------------------------------------------------------------------ an independent intruder
def _ptable_rows(path: Path) -> dict[int, dict[int, float]]:
    """{i: {j: p}} straight from the CSV (no privrisk reader)."""
    rows: dict[int, dict[int, float]] = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f, delimiter=";"):
            rows.setdefault(int(r["i"]), {})[int(r["j"])] = float(r["p"])
    return rows


def _published(rows: dict[int, dict[int, float]], count: int) -> dict[int, float]:
    """P(published = j | count): the count's row, or the last row shifted (ptable's "i ≥ top")."""
    top = max(rows)
    if count <= top:
        return dict(rows[count])
    return {j + count - top: p for j, p in rows[top].items()}


def _hockey_stick(p: dict[int, float], q: dict[int, float], eps: float) -> float:
    return sum(max(0.0, pv - math.exp(eps) * q.get(x, 0.0)) for x, pv in p.items())


def _brute_delta(rows: dict[int, dict[int, float]], eps: float, reach: int = 6) -> float:
    worst = 0.0
    for c in range(max(rows) + reach):
        p, q = _published(rows, c + 1), _published(rows, c)
        worst = max(worst, _hockey_stick(p, q, eps), _hockey_stick(q, p, eps))
    return worst


def _brute_beta(p: dict[int, float], q: dict[int, float], alpha: float) -> float:
    """β(α) of the most powerful randomised test, from every deterministic test (a subset of outcomes rejected)
    and every mixture of two of them."""
    outcomes = sorted(set(p) | set(q))
    points = [
        (sum(q.get(x, 0.0) for x in s), sum(p.get(x, 0.0) for x in s))
        for r in range(len(outcomes) + 1)
        for s in itertools.combinations(outcomes, r)
    ]
    best = max(t for a, t in points if a <= alpha + 1e-15)
    for (a1, t1), (a2, t2) in itertools.product(points, repeat=2):
        if a1 < alpha < a2:
            best = max(best, t1 + (t2 - t1) * (alpha - a1) / (a2 - a1))
    return 1.0 - best


# ---------------------------------------------------------------------------------------------- ptable D = 2, V = 1
def test_the_ptable_file_has_the_digits_ptable_prints():
    rows = _ptable_rows(PTABLE)
    # ptable's vignette: str(ptab) for create_cnt_ptable(D = 2, V = 1).
    assert [round(rows[1][j], 4) for j in (0, 1, 2, 3)] == [0.3665, 0.3665, 0.1676, 0.0995]
    assert round(rows[2][0], 4) == 0.0638
    variance = sum((j - 1) ** 2 * p for j, p in rows[1].items())
    assert round(variance, 3) == 0.932  # the vignette's p_var of i = 1 (monotony keeps it below V = 1)
    assert round(rows[2][2], 3) == 0.383  # its p_stay of i = 2
    for i, row in rows.items():
        assert math.isclose(sum(row.values()), 1.0, abs_tol=1e-12)
        assert abs(sum((j - i) * p for j, p in row.items())) < 1e-6  # unbiased


def test_the_ptable_file_is_what_the_algorithm_makes():
    from census_ptable import count_ptable

    made = {(i, j): p for i, j, p, *_ in count_ptable(2, 1.0)}
    rows = _ptable_rows(PTABLE)
    assert made.keys() == {(i, j) for i, row in rows.items() for j in row}
    for (i, j), p in made.items():
        assert abs(p - rows[i][j]) < 2e-7


@pytest.mark.parametrize("eps", EPSILONS)
def test_ptable_profile_matches_brute_force(eps):
    g = cell_key_guarantee(read_perturbation_table(PTABLE))
    assert g.delta_at(eps) == pytest.approx(_brute_delta(_ptable_rows(PTABLE), eps), abs=1e-12)


def test_ptable_zero_cell_disclosure_and_risk():
    rows = _ptable_rows(PTABLE)
    g = cell_key_guarantee(read_perturbation_table(PTABLE))
    zero = sum(p for j, p in rows[1].items() if j > 0)  # a 1 published above 0, which a 0 never is
    assert g.zero_cell_disclosure == pytest.approx(zero, abs=1e-12)
    assert round(zero, 2) == 0.63
    # No ε covers it: δ(ε) stays at least that high however large ε grows.
    assert g.delta_at(50.0) == pytest.approx(zero, abs=1e-12)
    assert math.isinf(g.epsilon_at(0.5))
    assert g.worst_count == 0 and g.pure_epsilon is None
    assert membership_risk(g).success == pytest.approx((1 + zero) / 2, abs=1e-12)


def test_ptable_tradeoff_matches_brute_force():
    rows = _ptable_rows(PTABLE)
    g = cell_key_guarantee(read_perturbation_table(PTABLE))
    alphas = np.array([0.0, 0.001, 0.01, 0.05, 0.1, 0.2, 0.37, 0.5, 0.8, 1.0])
    brute = []
    for a in alphas:
        betas = []
        for c in range(max(rows) + 3):
            p, q = _published(rows, c + 1), _published(rows, c)
            betas += [_brute_beta(p, q, a), _brute_beta(q, p, a)]
        brute.append(min(betas))
    assert g.tradeoff(alphas) == pytest.approx(np.array(brute), abs=1e-9)
    assert tpr_at_fpr(g, 0.01) == pytest.approx(1 - brute[2], abs=1e-9)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.lists(st.integers(min_value=1, max_value=9), min_size=5, max_size=5), min_size=2, max_size=4),
    st.sampled_from([0.0, 0.3, 1.0, 2.5]),
)
def test_random_tables_match_brute_force(weights, eps):
    """Random tables (noise −2…2, never below 0, zeros unperturbed) against the enumeration above."""
    rows = {0: {0: 1.0}}
    for count, w in enumerate(weights, 1):
        allowed = [(v, x) for v, x in zip(range(-2, 3), w, strict=True) if count + v >= 0]
        total = sum(x for _, x in allowed)
        rows[count] = {count + v: x / total for v, x in allowed}
    table = perturbation_table({c: {j - c: p for j, p in row.items()} for c, row in rows.items()})
    assert cell_key_guarantee(table).delta_at(eps) == pytest.approx(_brute_delta(rows, eps), abs=1e-12)


# ------------------------------------------------------------------------------------------------- Rinott et al.
def test_rinott_truncated_discrete_laplace_table():
    """National Academies (2024), Appendix C, Table C-1 (Rinott et al. 2018): ε = 1.5, D = 7."""
    p = truncated_discrete_laplace(1.5, 7)
    printed = {0: 0.63516, 1: 0.14172, 7: 0.00002}
    for v, value in printed.items():
        assert round(p[v], 5) == value and round(p[-v], 5) == value
    assert math.isclose(sum(p.values()), 1.0)
    g = cell_key_guarantee(additive_noise_table(p))
    delta = g.delta_at(1.5)
    assert float(f"{delta:.0e}") == 2e-5  # the table's δ, to the digit printed
    assert delta == pytest.approx(p[7], rel=1e-9)  # the one value the shifted count cannot reach
    rows = {0: {v: x for v, x in p.items()}}
    assert delta == pytest.approx(_brute_delta(rows, 1.5), abs=1e-15)
    assert g.epsilon_at(2e-5) <= 1.5


# ---------------------------------------------------------------------------------------------------------- ONS
@pytest.fixture(scope="module")
def ons():
    return read_perturbation_table(ONS)


def _ons_rule(count: int) -> int:
    """ONS's 10-5 rule written out: below 10 nothing, else the nearest multiple of 5."""
    return 0 if count < 10 else 5 * math.floor(count / 5 + 0.5)


def test_ons_table_is_a_threshold_and_rounding(ons):
    assert ons.top == 750 and ons.period == 250
    for count in [*range(1200), 1001, 10_000, 123_457]:
        values, probs = ons.distribution(count)
        assert probs.tolist() == [1.0], count  # every cell key gives the same pvalue: no noise at all
        assert values.tolist() == [_ons_rule(count)], count


def test_ons_table_profile(ons):
    g = cell_key_guarantee(ons)
    assert g.zero_cell_disclosure == 0.0  # a 1 is published as 0
    for eps in EPSILONS:
        assert g.delta_at(eps) == 1.0  # 9 → 0 but 10 → 10; 12 → 10 but 13 → 15: certain
    assert g.worst_count == 9
    assert membership_risk(g).success == 1.0


def test_ons_reader_refuses_a_missing_key():
    text = '"pcv","ckey","pvalue"\n' + "".join(
        f"{c},{k},0\n" for c in range(1, 751) for k in range(4) if (c, k) != (17, 2)
    )
    with pytest.raises(PrivriskError, match="pcv 17 lacks"):
        perturbation_table_from_text(text)


# ------------------------------------------------------------------------------------------------------- readers
def test_readers_agree(tmp_path):
    toml = tmp_path / "t.toml"
    rows = _ptable_rows(PTABLE)
    lines = ["name = 'D2V1'", "[probabilities]"]
    for i, row in rows.items():
        lines.append(f"{i} = {{ " + ", ".join(f"{j - i} = {p!r}" for j, p in row.items()) + " }")
    toml.write_text("\n".join(lines) + "\n")
    a, b = read_perturbation_table(PTABLE), read_perturbation_table(toml)
    assert a.rows == b.rows and b.name == "D2V1"
    intervals = tmp_path / "intervals.csv"  # pt_export(…, SDCtool = "TauArgus") style: p_int bounds only
    with open(PTABLE) as f:
        body = [r.split(";") for r in f.read().split()[1:]]
    intervals.write_text(
        "i,j,v,p_int_lb,p_int_ub\n" + "".join(f"{r[0]},{r[1]},{r[3]},{r[4]},{r[5]}\n" for r in body)
    )
    c = read_perturbation_table(intervals)
    assert np.allclose([p for _, ps in c.rows for p in ps], [p for _, ps in a.rows for p in ps], atol=1e-12)


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("i;j;p\n0;0;1\n1;0;0.5\n1;1;0.25\n", "count 1: the probabilities sum to 0.75"),
        ("i;j;p\n0;0;1\n2;2;1\n", "no row for count 1"),
        ("i;j;p\n0;0;1\n1;0;x\n", "line 3: p 'x' is not a probability"),
        ("i;j;p;type\n0;0;1;even\n", "only count tables"),
        ("a,b\n1,2\n", "not a perturbation table"),
        ("[probabilities]\n0 = { 0 = 1.0 }\n1 = { -2 = 1.0 }\n", "negative count"),
        ("[probabilities]\n0 = 1\n", "give a count and"),
        ("name = 'x'\nextra = 1\n[probabilities]\n0 = { 0 = 1.0 }\n", "unknown key 'extra'"),
    ],
)
def test_bad_tables_are_one_line_errors(text, fragment):
    with pytest.raises(PrivriskError) as info:
        perturbation_table_from_text(text, name="t")
    assert fragment in str(info.value) and "\n" not in str(info.value) and info.value.param == "table"


def test_compressed_and_missing_files(tmp_path):
    import gzip

    gz = tmp_path / "t.csv.gz"
    gz.write_bytes(gzip.compress(PTABLE.read_bytes()))
    assert read_perturbation_table(gz).rows == read_perturbation_table(PTABLE).rows
    with pytest.raises(PrivriskError, match="no such file"):
        read_perturbation_table(tmp_path / "none.csv")
    with pytest.raises(PrivriskError, match="not a regular file"):
        read_perturbation_table(tmp_path)


# ---------------------------------------------------------------------------------- what output checks will call
def test_published_value_api():
    t = read_perturbation_table(PTABLE)
    values, probs = t.distribution(10)
    assert values.tolist() == [8, 9, 10, 11, 12] and math.isclose(probs.sum(), 1.0)
    assert t.consistent_counts(10) == (8, 12)
    assert t.consistent_counts(0) == (0, 2)  # a 0 may hide a 1 or a 2, never a 3
    like = t.likelihood(1, [0, 1, 2, 3, 4])
    assert like[0] == 0.0 and like[4] == 0.0 and like[1] == pytest.approx(_ptable_rows(PTABLE)[1][1])
    with pytest.raises(PrivriskError, match="no true count"):
        perturbation_table({0: {0: 1.0}, 1: {1: 1.0}}).consistent_counts(1)


# ------------------------------------------------------------------------------------------------------ the keys
def _product(a: dict, b: dict) -> dict:
    return {(x, y): p * q for x, p in a.items() for y, q in b.items()}


@pytest.mark.parametrize("least", [0, 1, 2])
def test_composed_cells_are_on_the_safe_side_of_their_product(least):
    t = read_perturbation_table(PTABLE)
    rows = _ptable_rows(PTABLE)
    g = cell_key_guarantee(t, least_count=least).compose(2)
    for eps in (0.0, 0.5, 1.0, 2.0, 4.0):
        brute = 0.0
        for c1, c2 in itertools.product(range(least, 5), repeat=2):
            p = _product(_published(rows, c1 + 1), _published(rows, c2 + 1))
            q = _product(_published(rows, c1), _published(rows, c2))
            brute = max(brute, _hockey_stick(p, q, eps), _hockey_stick(q, p, eps))
        assert brute - 1e-9 <= g.delta_at(eps) <= brute + 0.05


def _noise_256(rows: dict[int, dict[int, int]], count: int, key: int) -> int:
    """ONS-style lookup: a row gives each noise a run of the 256 cell keys."""
    row = rows[min(count, max(rows))]
    start = 0
    for v in sorted(row):
        start += row[v]
        if key < start:
            return v
    raise AssertionError


def test_a_margin_and_its_cells_can_leak_more_than_their_composition():
    """Cells a and b and their total t = a + b: the total's key is the sum of theirs, so the noises depend on each
    other, and the person in a (and t) is told apart better than two independent cells would allow."""
    keys = {0: {0: 256}, 1: {-1: 94, 0: 94, 1: 43, 2: 25}, 2: {-2: 16, -1: 63, 0: 98, 1: 63, 2: 16}}
    table = perturbation_table({c: {v: k / 256 for v, k in row.items()} for c, row in keys.items()})

    def joint(a: int, b: int) -> dict[tuple[int, int, int], float]:
        out: dict[tuple[int, int, int], float] = {}
        for x, y in itertools.product(range(256), repeat=2):
            key = (
                a + _noise_256(keys, a, x),
                b + _noise_256(keys, b, y),
                a + b + _noise_256(keys, a + b, (x + y) % 256),
            )
            out[key] = out.get(key, 0.0) + 1 / 65536
        return out

    with_person, without = joint(3, 2), joint(2, 2)
    dependent = max(_hockey_stick(with_person, without, 4.0), _hockey_stick(without, with_person, 4.0))
    rows = {c: {c + v: k / 256 for v, k in row.items()} for c, row in keys.items()}
    p = _product(_published(rows, 3), _published(rows, 5))  # a and t with the person, drawn independently
    q = _product(_published(rows, 2), _published(rows, 4))
    independent = max(_hockey_stick(p, q, 4.0), _hockey_stick(q, p, 4.0))
    composed = cell_key_guarantee(table, least_count=2).compose(2).delta_at(4.0)  # every count ≥ 2, composed
    assert dependent > independent + 0.1 and dependent > composed + 0.1  # about 0.295 against 0.121 and 0.124
    assert not independent_cell_keys([[1, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]], person=0)


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.lists(st.integers(0, 1), min_size=4, max_size=4), min_size=1, max_size=4), st.integers(0, 3)
)
def test_independent_cell_keys_matches_enumerating_the_keys(membership, person):
    """Keys mod 4 of the other three records, every key vector: the keys of the cells holding the person are
    uniform on Z₄^m whatever the other cells' keys show, exactly when the rank test says so."""
    m = np.array(membership)
    holding = m[:, person] == 1
    if not holding.any():
        return
    seen: dict[tuple[int, ...], dict[tuple[int, ...], int]] = {}
    for others in itertools.product(range(4), repeat=3):
        record_keys = list(others)
        record_keys.insert(person, 0)  # without the person
        cell_keys = (m @ np.array(record_keys)) % 4
        shown = tuple(int(k) for k in cell_keys[~holding])
        target = tuple(int(k) for k in cell_keys[holding])
        seen.setdefault(shown, {}).setdefault(target, 0)
        seen[shown][target] += 1
    uniform = all(len(d) == 4 ** int(holding.sum()) and len(set(d.values())) == 1 for d in seen.values())
    assert independent_cell_keys(m, person) == uniform


@pytest.mark.parametrize("cells", [2, 10, 60, 1000])
def test_many_cells_keep_the_zero_cell_catastrophe(cells):
    """k cells, each with the zero cell's δ: the catastrophes compose to 1 − (1 − ω)^k at every ε (a finite part
    that vanishes after a few dozen copies is no error)."""
    t = read_perturbation_table(PTABLE)
    omega = 1 - _ptable_rows(PTABLE)[1][0]
    g = cell_key_guarantee(t).compose(cells)
    for eps in (0.0, 1.0, 10.0):
        assert g.delta_at(eps) == pytest.approx(1 - (1 - omega) ** cells, abs=1e-9)
    assert cell_key_guarantee(read_perturbation_table(ONS)).compose(cells).delta_at(5.0) == 1.0
