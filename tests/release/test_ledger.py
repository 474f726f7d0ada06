"""The privacy ledger: budget, running hash, corrupt files, and real concurrent processes."""

from __future__ import annotations

import json
import math
import multiprocessing
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.release import ledger as L
from release_helpers import q


def test_records_add_up(ledger):
    entries = L.read_ledger(ledger)
    assert [e["seq"] for e in entries] == [1, 2]
    assert L.spent_epsilon(ledger) == 1.0
    assert entries[1]["prev"] == entries[0]["hash"]
    assert json.loads(ledger.read_text())["total_epsilon"] == 1.0


def test_budget_refuses_and_writes_nothing(ledger):
    before = ledger.read_bytes()
    with pytest.raises(ThresholdExceeded, match="ε = 1 is left"):
        L.record_release(ledger, queries=q(1.5), budget=2.0)
    assert ledger.read_bytes() == before
    L.record_release(ledger, queries=q(1.0), budget=2.0)  # exactly the rest fits
    with pytest.raises(ThresholdExceeded, match="already spent"):
        L.record_release(ledger, queries=q(1e-6), budget=2.0)


def test_sums_that_round_still_fit(tmp_path):
    path = tmp_path / "l.json"
    for _ in range(10):
        L.record_release(path, queries=q(0.1), budget=1.0)
    assert L.spent_epsilon(path) == 1.0


def test_without_budget_it_only_records(tmp_path):
    path = tmp_path / "l.json"
    L.record_release(path, queries=q(50.0))
    assert L.spent_epsilon(path) == 50.0


def _edit(path, change):
    doc = json.loads(path.read_text())
    change(doc)
    path.write_text(json.dumps(doc))


def _forge(change):
    """The edit of someone who also recomputes the unkeyed chain and the header: only the release's own
    checks are left to find it."""

    def forged(doc):
        from privrisk.ledger.chain import GENESIS, entry_hash, total_epsilon

        change(doc)
        prev = GENESIS
        for entry in doc["entries"]:
            entry["prev"] = prev
            entry["hash"] = prev = entry_hash(entry, None)
        doc.update(head=prev, count=len(doc["entries"]))
        try:
            doc["total_epsilon"] = total_epsilon(doc["entries"])
        except (TypeError, ValueError):
            pass

    return forged


def _set(d, keys, value):
    for k in keys[:-1]:
        d = d[k]
    d[keys[-1]] = value


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        (lambda d: _set(d, ["entries", 0, "epsilon"], 0.05), "checksum"),  # spent less, by hand
        (_forge(lambda d: _set(d, ["entries", 0, "epsilon"], 0.05)), "add up"),  # and the chain recomputed
        (_forge(lambda d: _set(d, ["entries", 0, "queries", 0, "epsilon"], 0.05)), "add up"),
        (_forge(lambda d: _set(d, ["entries", 0, "queries"], [])), "no queries"),
        (_forge(lambda d: _set(d, ["entries", 0, "budget"], {"epsilon": "x"})), "budget"),
        (_forge(lambda d: _set(d, ["entries", 0, "queries", 0, "column"], 7)), "without column"),
        (
            lambda d: (
                _set(d, ["entries", 0, "queries", 0, "epsilon"], 0.05),
                _set(d, ["entries", 0, "epsilon"], 0.05),
            ),
            "checksum",
        ),
        (lambda d: _set(d, ["entries", 0, "epsilon"], -0.5), "ε > 0"),
        (lambda d: _set(d, ["entries", 0, "data"], "other.csv"), "checksum"),
        (lambda d: d["entries"].pop(0), "sequence"),
        (lambda d: d["entries"].pop(), "header"),
        (lambda d: d["entries"].reverse(), "sequence"),
        (lambda d: _set(d, ["total_epsilon"], 0.0), "total"),
        (lambda d: _set(d, ["schema_version"], 3), "schema_version"),
        (lambda d: _set(d, ["entries", 0, "kind"], "outputs"), "keys"),
        (lambda d: d.pop("head"), "keys"),
        (lambda d: _set(d, ["entries"], {}), "not a list"),
        (lambda d: _set(d, ["entries", 1, "seq"], True), "sequence"),
    ],
)
def test_hand_edited_ledger_is_an_error(ledger, change, fragment):
    _edit(ledger, change)
    with pytest.raises(PrivriskError, match="corrupt") as info:
        L.spent_epsilon(ledger)
    assert fragment in str(info.value)
    with pytest.raises(PrivriskError):
        L.record_release(ledger, queries=q(0.1), budget=10.0)


def test_removing_the_last_entry_and_fixing_the_header_is_caught_only_by_the_total(ledger):
    # Truncation that also rewrites count and head: the running hash cannot see it without a secret; the
    # header's total then has to be edited too, and the file is then a consistent, shorter ledger. Documented.
    def truncate(d):
        d["entries"].pop()
        d["count"] = 1
        d["head"] = d["entries"][0]["hash"]

    _edit(ledger, truncate)
    with pytest.raises(PrivriskError, match="total"):
        L.spent_epsilon(ledger)


@pytest.mark.parametrize(
    "text", ["", "  \n", "{", "[]", '{"entries": []}', "NaN", '{"schema_version": 1, "total_epsilon": NaN}']
)
def test_unreadable_ledger_is_never_nothing_spent(tmp_path, text):
    path = tmp_path / "l.json"
    path.write_text(text)
    with pytest.raises(PrivriskError, match="corrupt"):
        L.read_ledger(path)


def test_missing_ledger_is_empty_and_a_folder_is_an_error(tmp_path):
    assert L.read_ledger(tmp_path / "new.json") == []
    with pytest.raises(PrivriskError, match="folder"):
        L.read_ledger(tmp_path)


def test_a_held_lock_times_out(tmp_path):
    path = tmp_path / "l.json"
    from privrisk.ledger import open_ledger

    with open_ledger(path), pytest.raises(PrivriskError, match="locked"):
        # flock locks are per open file description: a second open in this process conflicts as another
        # process would.
        L.record_release(path, queries=q(0.1), timeout=0.05)
    L.record_release(path, queries=q(0.1))
    assert L.spent_epsilon(path) == pytest.approx(0.1)


# ------------------------------------------------------------------------------------------ concurrency
def _contend(path, barrier, results, slow):
    if slow:
        # Widen the read-check-write window so that an unlocked ledger would let several releases through.
        from privrisk.ledger import store

        real = store._read

        def slow_read(p, key=None):
            entries = real(p, key)
            time.sleep(0.05)
            return entries

        store._read = slow_read
    barrier.wait()
    try:
        L.record_release(path, queries=q(0.3), budget=1.0, timeout=30)
        results.put("spent")
    except ThresholdExceeded:
        results.put("refused")


def test_concurrent_processes_never_overspend(tmp_path):
    """Eight processes try to spend 0.3 of a budget of 1.0 at the same instant: exactly three may."""
    ctx = multiprocessing.get_context("fork")
    path = tmp_path / "ledger.json"
    barrier, results = ctx.Barrier(8), ctx.Queue()
    procs = [ctx.Process(target=_contend, args=(path, barrier, results, True)) for _ in range(8)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    outcomes = sorted(results.get(timeout=5) for _ in procs)
    assert outcomes == ["refused"] * 5 + ["spent"] * 3
    entries = L.read_ledger(path)
    assert len(entries) == 3 and math.isclose(L.spent_epsilon(path), 0.9)


def test_leaving_out_the_budget_keeps_the_ledgers_budget(ledger):
    # The fixture spent 1.0 under a budget of 2.0.
    with pytest.raises(ThresholdExceeded, match="budget ε = 2"):
        L.record_release(ledger, queries=q(1.5))
    r = L.record_release(ledger, queries=q(0.5))
    assert r["budget"] == 2.0 and r["previous_budget"] == 2.0
    r = L.record_release(ledger, queries=q(1.5), budget=3.0)  # an explicit new budget replaces it
    assert r["budget"] == 3.0 and r["previous_budget"] == 2.0
    with pytest.raises(ThresholdExceeded):
        L.record_release(ledger, queries=q(0.5))


def test_binary_garbage_is_corrupt(tmp_path):
    path = tmp_path / "l.json"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(PrivriskError, match="corrupt"):
        L.read_ledger(path)


def test_unwritable_folder_is_a_clear_error(tmp_path):
    import os

    if os.geteuid() == 0:
        pytest.skip("root may write anywhere")
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o500)
    try:
        with pytest.raises(PrivriskError, match="lock file"):
            L.record_release(folder / "l.json", queries=q(0.1))
    finally:
        folder.chmod(0o700)


@settings(max_examples=25)
@given(st.lists(st.sampled_from([0.1, 0.25, 0.3, 0.5, 0.7]), min_size=1, max_size=6))
def test_accepted_releases_are_exactly_those_that_fit(spends):
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "l.json"
    accepted = []
    for eps in spends:
        fits = math.fsum([*accepted, eps]) <= 1.0 + 1e-12
        try:
            L.record_release(path, queries=q(eps), budget=1.0)
            assert fits
            accepted.append(eps)
        except ThresholdExceeded:
            assert not fits
    assert L.spent_epsilon(path) == pytest.approx(math.fsum(accepted)) and math.fsum(accepted) <= 1.0 + 1e-12
