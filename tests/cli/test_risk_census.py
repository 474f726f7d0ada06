"""``privrisk risk`` for a statistical office's method (issue 35): --cell-key, --cells, --pram, --rounding,
--registry, --lang. Each number is checked against a hand calculation or an enumeration that shares no code with
the accountant (the table read with :mod:`csv`, the attacks written out here)."""

from __future__ import annotations

import csv
import itertools
import math
from pathlib import Path

import pytest

from helpers import one_line_error

ROOT = Path(__file__).resolve().parents[2]
PTABLE = ROOT / "tests" / "data" / "census" / "ptable_D2_V1.csv"
REGISTRY = ROOT / "tests" / "data" / "registry" / "deployments"


def _ptable_rows() -> dict[int, dict[int, float]]:
    """P(noise v | count i) of ptable's export (j is the published value, v = j − i), read with csv alone."""
    rows: dict[int, dict[int, float]] = {}
    with PTABLE.open(encoding="utf-8") as handle:
        for row in csv.DictReader(handle, delimiter=";"):
            rows.setdefault(int(row["i"]), {})[int(row["v"])] = float(row["p"])
    return rows


def _published(rows: dict[int, dict[int, float]], count: int) -> dict[int, float]:
    row = rows[min(count, max(rows))]
    return {count + j: p for j, p in row.items()}


def _total_variation(p: dict, q: dict) -> float:
    return 0.5 * sum(abs(p.get(k, 0.0) - q.get(k, 0.0)) for k in set(p) | set(q))


def test_cell_key_is_the_zero_cell_attack_and_never_below_it(cli):
    doc = cli("risk", "--cell-key", PTABLE, "--json").json
    rows = _ptable_rows()
    # The zero-cell disclosure: a count of 1 published above 0 (a 0 is never changed).
    zero = sum(p for j, p in rows[1].items() if 1 + j > 0)
    assert doc["census"]["zero_cell_disclosure"] == pytest.approx(zero, abs=1e-8)
    assert rows[0] == {0: 1.0}
    # The best attacker's advantage is the largest total variation over neighbouring counts c, c + 1.
    best = max(_total_variation(_published(rows, c), _published(rows, c + 1)) for c in range(max(rows) + 2))
    assert doc["advantage"] == pytest.approx(best, abs=1e-8)
    assert doc["success"] == pytest.approx((1 + best) / 2, abs=1e-8)
    assert doc["census"]["max_noise"] == 2 and doc["census"]["cells"] == 1
    assert doc["census"]["method"] == "cell_key"


def test_cells_compose_and_stay_above_the_attack_on_three_cells(cli):
    doc = cli("risk", "--cell-key", PTABLE, "--cells", "3", "--json").json
    rows = _ptable_rows()
    # An attacker who sees three cells of count 0 (without the person) or 1 (with), keys independent: the total
    # variation of the product distributions, enumerated.
    p, q = _published(rows, 0), _published(rows, 1)
    tv = 0.0
    for values in itertools.product(*(sorted(set(p) | set(q)),) * 3):
        tv += abs(math.prod(p.get(v, 0.0) for v in values) - math.prod(q.get(v, 0.0) for v in values))
    assert doc["advantage"] >= tv / 2 - 1e-9  # never on the unsafe side
    assert doc["advantage"] == pytest.approx(tv / 2, abs=1e-6)  # the zero cells are the worst pair
    assert doc["census"]["cells"] == 3


def test_cell_key_words_in_german_and_english(cli):
    de = cli("risk", "--cell-key", PTABLE, "--lang", "de")
    assert de.code == 0 and "Ein Angreifer, der alle anderen kennt" in de.out and "8 von 10" in de.out
    en = cli("risk", "--cell-key", PTABLE)
    assert en.code == 0 and "about 8 times in 10" in en.out and "zero-cell disclosure" in en.out


def test_pram_is_kary_randomised_response(cli, tmp_path):
    matrix = tmp_path / "region.csv"
    matrix.write_text(',"a","b","c"\n"a",0.8,0.1,0.1\n"b",0.1,0.8,0.1\n"c",0.1,0.1,0.8\n', encoding="utf-8")
    doc = cli("risk", "--pram", matrix, "--json").json
    # K-ary randomised response with p = 0.8, K = 3: e^ε = p(K − 1)/(1 − p) = 8; rows i, j differ by 0.7 in
    # total variation, so the best attacker is right (1 + 0.7)/2 of the time.
    (variable,) = doc["census"]["variables"]
    assert variable == {"name": "region", "categories": 3, "epsilon": pytest.approx(math.log(8))}
    assert doc["success"] == pytest.approx(0.85)


def test_pram_of_two_variables_composes(cli, tmp_path):
    matrices = tmp_path / "pram.toml"
    matrices.write_text("sex = [[0.9, 0.1], [0.1, 0.9]]\n[smoker]\nmatrix = [[0.75, 0.25], [0.25, 0.75]]\n")
    doc = cli("risk", "--pram", matrices, "--json").json
    eps = [v["epsilon"] for v in doc["census"]["variables"]]
    assert eps == pytest.approx([math.log(9), math.log(3)])
    # Two binary randomised responses: the attacker sees both answers; enumerate the four outcomes.
    p = [0.9 * 0.75, 0.9 * 0.25, 0.1 * 0.75, 0.1 * 0.25]
    q = [0.1 * 0.25, 0.1 * 0.75, 0.9 * 0.25, 0.9 * 0.75]
    tv = 0.5 * sum(abs(a - b) for a, b in zip(p, q, strict=True))
    # The composition's discretisation errs on the safe side, by little.
    assert tv - 1e-9 <= doc["advantage"] <= tv + 1e-4


def test_random_rounding_has_delta_one_over_the_base(cli):
    doc = cli("risk", "--rounding", "random:3", "--at-epsilon", "30", "--json").json
    # A multiple of 3 is published as it is; the count above it one step up with probability 1/3.
    assert doc["delta_at_epsilon"] == pytest.approx(1 / 3)
    assert doc["success"] == pytest.approx(2 / 3)
    assert doc["census"]["guarantee"] is True


def test_deterministic_rounding_is_no_guarantee_and_its_differencing_holds(cli):
    doc = cli("risk", "--rounding", "5", "--json").json
    assert doc["success"] == pytest.approx(1.0) and doc["census"]["guarantee"] is False
    d = doc["census"]["differencing"]

    def nearest(count: int) -> int:  # round half up, to the nearest multiple of 5
        return 5 * math.floor(count / 5 + 0.5)

    # Every (total, part) that rounds to the published values: the group's size lies in [low, high].
    sizes = {
        t - p
        for t in range(200)
        for p in range(t + 1)
        if nearest(t) == d["total"] and nearest(p) == d["part"]
    }
    assert (min(sizes), max(sizes)) == (d["low"], d["high"])
    assert d["known"] == d["low"] - 1  # knowing low − 1 of them, the person is the last one
    text = cli("risk", "--rounding", "deterministic:5").out
    assert "not a privacy guarantee" in text


def test_registry_entries_and_their_conversions(cli):
    doc = cli("risk", "--registry", REGISTRY / "census_redistricting_data.yaml", "--json").json
    quoted = {(c["rho"], c["epsilon"]): c["matches"] for c in doc["census"]["conversions"]}
    assert quoted == {(2.56, 17.14): "tight", (0.07, 2.47): "neither"}
    doc = cli("risk", "--registry", REGISTRY / "census_demographic_and_housing.yaml", "--json").json
    quoted = {(c["rho"], c["epsilon"]): c["matches"] for c in doc["census"]["conversions"]}
    assert quoted[(4.96, 26.34)] == "classical"
    doc = cli("risk", "--registry", REGISTRY / "apple_popular_emojis.yaml", "--json").json
    assert doc["success"] == pytest.approx(math.exp(4) / (1 + math.exp(4)))  # pure ε = 4


def test_a_receipt_reads_back_as_its_guarantee(cli, tmp_path):
    from privrisk.release.ledger import record_release

    led = tmp_path / "ledger.json"
    record_release(led, queries=[{"column": "age", "query": "count", "epsilon": 0.5}], data="census.csv")
    assert cli("ledger", led, "--export", "registry", "--out", tmp_path / "receipts").code == 0
    doc = cli("risk", "--registry", tmp_path / "receipts" / "release_1.yaml", "--json").json
    assert doc["success"] == pytest.approx(math.exp(0.5) / (1 + math.exp(0.5)))


@pytest.mark.parametrize(
    ("args", "fragments"),
    [
        (("--rounding", "x"), ("--rounding", "random:B")),
        (("--rounding", "random:1"), ("--rounding",)),
        (("--cells", "3", "--epsilon", "1"), ("--cells", "cell_key")),
        (("--cell-key", PTABLE, "--compose", "2"), ("--compose", "same noise", "give cells")),
        (("--cell-key", PTABLE, "--cells", "0"), ("--cells",)),
        (("--cell-key", "no-such-table.csv"), ("--cell-key", "no such file")),
        (("--rounding", "3", "--lang", "de"), ("--lang", "cell-key")),
        (("--cell-key", PTABLE, "--lang", "fr"), ("--lang",)),
        (("--cell-key", PTABLE, "--rounding", "3"), ("exactly one guarantee",)),
        (("--pram", ROOT / "tests"), ("--pram", "not a regular file")),
    ],
)
def test_bad_census_options_give_one_line(cli, args, fragments):
    one_line_error(cli("risk", *args), *fragments)


def test_bad_files_give_one_line(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("a;b\n1;2\n", encoding="utf-8")
    one_line_error(cli("risk", "--cell-key", bad), "--cell-key")
    matrix = tmp_path / "m.csv"
    matrix.write_text("0.9,0.2\n0.1,0.9\n", encoding="utf-8")
    one_line_error(cli("risk", "--pram", matrix), "--pram")
    entry = tmp_path / "e.yaml"
    entry.write_text("just: text\n", encoding="utf-8")
    one_line_error(cli("risk", "--registry", entry), "--registry", "deployment")
    assert bad.read_text(encoding="utf-8") == "a;b\n1;2\n"  # inputs never modified
