"""Issue 30, item 1: one ledger for everything released. Releases and outputs in one file under one set of rules;
the check of an outputs request and its append under one lock; names unique for the ledger's life; earlier
outputs by position; old ledgers of both kinds still read. Each case failed on main before (see the issue)."""

from __future__ import annotations

import hashlib
import hmac
import json
import os
from pathlib import Path

import pandas as pd
import pytest

from helpers import one_line_error
from privrisk.errors import PrivriskError
from privrisk.ledger import open_ledger, read_ledger_file
from privrisk.outputs import OutputSpec, OutputsSettings, run_outputs
from privrisk.outputs.ledger import ledger_outputs, ledger_specs
from privrisk.release.ledger import read_ledger, record_release, spent_epsilon

PEOPLE = Path(__file__).parents[2] / "examples" / "outputs" / "people.csv"
KEY = b"a ledger key of 32 bytes, secret"


def table(name: str, where: str, **extra) -> str:
    """One [[output]]: region × sex counts for ``where``."""
    lines = [f"name = {json.dumps(name, ensure_ascii=False)}", 'kind = "count"', 'rows = ["region"]',
             'columns = ["sex"]', f'where = "{where}"'] + [f"{k} = {json.dumps(v)}" for k, v in extra.items()]  # fmt: skip
    return "[[output]]\n" + "\n".join(lines) + "\n"


@pytest.fixture
def specs(tmp_path):
    def write(name: str, where: str = "age >= 18", **extra) -> Path:
        path = tmp_path / f"spec-{hashlib.sha256(name.encode()).hexdigest()[:8]}-{where[-2:]}.toml"
        path.write_text(table(name, where, **extra), encoding="utf-8")
        return path

    return write


def outputs(data, spec, ledger, *extra):
    return ("outputs", data, "--spec", spec, "--ledger", ledger, *extra)


def spec_of(name: str, where: str) -> OutputSpec:
    return OutputSpec(name=name, kind="count", rows=("region",), columns=("sex",), where=where)


# -- one file ---------------------------------------------------------------------------------------------------


def test_releases_and_outputs_are_entries_of_one_file(tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 0.5}], budget=1.0)
    r = run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Adults", "age >= 18"),), ledger=led))
    assert r.status == "pass" and r.ledger == {**r.ledger, "appended": True, "seq": 1}
    record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 0.25}])
    doc = json.loads(led.read_text())
    assert doc["schema_version"] == 2 and doc["count"] == 3 and doc["total_epsilon"] == 0.75
    assert [(e["kind"], e["seq"]) for e in doc["entries"]] == [("release", 1), ("outputs", 1), ("release", 2)]
    # Each kind reads its own entries; the chain runs through all of them.
    assert [e["seq"] for e in read_ledger(led)] == [1, 2] and spent_epsilon(led) == 0.75
    assert [s.name for s in ledger_specs(led)] == ["Adults"]
    assert doc["entries"][1]["prev"] == doc["entries"][0]["hash"]
    assert doc["entries"][2]["prev"] == doc["entries"][1]["hash"]
    # The budget recorded by the first release still holds, whatever was appended in between.
    from privrisk.errors import ThresholdExceeded

    with pytest.raises(ThresholdExceeded):
        record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 0.3}])
    assert not (tmp_path / "ledger.json.lock").exists()  # issue 37: no lock file left behind


def test_each_output_records_its_numbers_and_the_data_it_came_from(tmp_path):
    led = tmp_path / "ledger.json"
    run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Adults", "age >= 18"),), ledger=led))
    [out] = json.loads(led.read_text())["entries"][0]["outputs"]
    frame = pd.read_csv(PEOPLE)
    # By hand: the table's cells, and SHA-256 of the columns it reads (integers as 64-bit little-endian).
    adults = frame[frame.age >= 18].groupby(["region", "sex"]).size()
    assert {(c["labels"]["region"], c["labels"]["sex"]): c["value"] for c in out["cells"]} == adults.to_dict()
    assert out["data"]["file"] == "people.csv" and out["data"]["rows"] == len(frame) == 159
    assert (
        out["data"]["columns"]["age"]
        == hashlib.sha256(b"i" + frame.age.to_numpy("<i8").tobytes()).hexdigest()
    )
    assert set(out["data"]["columns"]) == {"region", "sex", "age"}


# -- names ------------------------------------------------------------------------------------------------------


def test_a_name_in_the_ledger_is_refused_never_replaced(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("X"), led)).code == 0
    before = led.read_bytes()
    # The case: a table named X that differences against the earlier X would have replaced it and passed.
    for name in ("X", "x", " X "):
        one_line_error(
            cli(*outputs(PEOPLE, specs(name, "age >= 19"), led)), "--spec", "'X'", "never replaced"
        )
    assert led.read_bytes() == before
    with pytest.raises(PrivriskError, match="in the ledger") as info:
        run_outputs(
            OutputsSettings(data=PEOPLE, spec=(spec_of("X", "age >= 19"),), ledger=led, append=False)
        )
    assert info.value.param == "spec"


def test_a_rename_never_drops_an_earlier_output_from_later_checks(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("X"), led)).code == 0
    # A harmless table (X again, under a new name) passes; the table that differences against X still fails.
    assert cli(*outputs(PEOPLE, specs("Again"), led)).code == 0
    r = cli(*outputs(PEOPLE, specs("Y", "age >= 19"), led, "--json"))
    assert r.code == 1 and all({"X", "Y"} <= set(d["outputs"]) for d in json.loads(r.out)["disclosures"])
    assert json.loads(r.out)["summary"]["earlier_outputs"] == 2
    assert [s.name for s in ledger_specs(led)] == ["X", "Again"]


def test_an_old_ledger_with_two_outputs_of_one_name_keeps_both(tmp_path):
    # Written by the old outputs ledger, which let a later X replace an earlier X in every check.
    led = tmp_path / "ledger.json"
    frame = pd.read_csv(PEOPLE)
    first = _old_output(frame, spec_of("X", "age >= 18"))
    harmless = _old_output(frame, OutputSpec(name="X", kind="count", rows=("region",)))
    _write_old_outputs_ledger(led, [[first], [harmless]])
    assert [s.name for s in ledger_specs(led)] == ["X", "X"]
    r = run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Y", "age >= 19"),), ledger=led))
    assert r.status == "fail" and r.ledger["appended"] is False
    # Both X's are kept (the earlier one named "X (earlier 2)"), so Y differences against them: one woman of 18.
    one = [f for f in r.disclosures if f["interval"] == [1, 1]]
    assert one and one[0]["outputs"] == ["X", "X (earlier 2)", "Y"]


# -- old files --------------------------------------------------------------------------------------------------


def _canonical(entry):
    return json.dumps({k: v for k, v in entry.items() if k != "hash"}, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode()  # fmt: skip


def _digest(entry, key=None):
    body = _canonical(entry)
    return hmac.new(key, body, hashlib.sha256).hexdigest() if key else hashlib.sha256(body).hexdigest()


def _old_output(frame, spec):
    rows = frame.query(spec.where) if spec.where else frame
    counts = rows.groupby(list(spec.variables)).size()
    cells = [{"labels": dict(zip(spec.variables, k if isinstance(k, tuple) else (k,), strict=True)), "value": int(v)}
             for k, v in counts.items()]  # fmt: skip
    return {"spec": spec.to_dict(), "cells": cells}


def _write_old_outputs_ledger(path, entries_outputs, key=None):
    """An outputs ledger as privrisk wrote it before the one ledger (written here by hand, from its format)."""
    entries, prev = [], ""
    for outs in entries_outputs:
        entry = {"time": "2025-01-05T10:00:00+00:00", "prev": prev, "outputs": outs}
        entry["hash"] = prev = _digest(entry, key)
        entries.append(entry)
    doc = {
        "schema_version": 1,
        "kind": "privrisk-outputs-ledger",
        "keyed": key is not None,
        "entries": entries,
    }
    path.write_text(json.dumps(doc, indent=2))


def _write_old_release_ledger(path, epsilons, key=None):
    """A release ledger of schema 1 (releases only, no kind), written by hand from its format."""
    entries, prev = [], "0" * 64
    for i, eps in enumerate(epsilons, 1):
        entry = {"seq": i, "time": "2025-01-05T10:00:00.000000+00:00", "epsilon": eps,
                 "queries": [{"column": "age", "query": "mean", "epsilon": eps}], "data": "people.csv",
                 "budget": 2.0, "prev": prev}  # fmt: skip
        entry["hash"] = prev = _digest(entry, key)
        entries.append(entry)
    doc = {"schema_version": 1, "kind": "privrisk-ledger", "count": len(entries),
           "total_epsilon": sum(epsilons), "head": prev}  # fmt: skip
    if key is not None:
        doc["keyed"] = True
        header = {k: doc[k] for k in ("schema_version", "kind", "count", "total_epsilon", "head", "keyed")}
        doc["mac"] = hmac.new(key, _canonical(header), hashlib.sha256).hexdigest()
    doc["entries"] = entries
    path.write_text(json.dumps(doc, indent=2))


@pytest.mark.parametrize("key", [None, KEY])
def test_an_old_release_ledger_is_read_and_appended_to(tmp_path, key):
    led = tmp_path / "ledger.json"
    _write_old_release_ledger(led, [0.5, 0.25], key)
    old = json.loads(led.read_text())["entries"]
    assert spent_epsilon(led, key) == 0.75 and [e["seq"] for e in read_ledger(led, key)] == [1, 2]
    r = run_outputs(
        OutputsSettings(data=PEOPLE, spec=(spec_of("Adults", "age >= 18"),), ledger=led, key=key)
    )
    assert r.ledger["appended"]
    record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 0.5}], key=key)
    doc = json.loads(led.read_text())
    assert doc["schema_version"] == 2 and doc["entries"][:2] == old  # the old entries keep their hashes
    assert [e.get("kind") for e in doc["entries"]] == [None, None, "outputs", "release"]
    assert spent_epsilon(led, key) == 1.25 and read_ledger(led, key)[-1]["seq"] == 3
    from privrisk.errors import ThresholdExceeded

    with pytest.raises(ThresholdExceeded):  # the budget of 2 the old releases recorded
        record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 1.0}], key=key)


@pytest.mark.parametrize("key", [None, KEY])
def test_an_old_outputs_ledger_is_read_checked_against_and_rewritten_as_the_one_ledger(
    cli, tmp_path, specs, key
):
    led = tmp_path / "ledger.json"
    frame = pd.read_csv(PEOPLE)
    _write_old_outputs_ledger(led, [[_old_output(frame, spec_of("Tab 😀", "age >= 18"))]], key)
    assert [s.name for s in ledger_specs(led, key)] == ["Tab 😀"]
    # The old output takes part in the check: the age >= 19 table beside it shows one 18-year-old.
    r = run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Y", "age >= 19"),), ledger=led, key=key))
    assert r.status == "fail" and r.disclosures[0]["outputs"] == ["Tab 😀", "Y"]
    r = run_outputs(
        OutputsSettings(data=PEOPLE, spec=(spec_of("Again", "age >= 18"),), ledger=led, key=key)
    )
    assert r.status == "pass" and r.ledger["appended"]
    doc = json.loads(led.read_text())
    assert doc["kind"] == "privrisk-ledger" and [e["kind"] for e in doc["entries"]] == ["outputs", "outputs"]
    assert [s.name for s in ledger_specs(led, key)] == ["Tab 😀", "Again"]
    if key is not None:
        with pytest.raises(PrivriskError, match="keyed ledger"):
            read_ledger_file(led)


def test_an_old_outputs_ledger_that_was_edited_is_refused(tmp_path):
    led = tmp_path / "ledger.json"
    frame = pd.read_csv(PEOPLE)
    _write_old_outputs_ledger(led, [[_old_output(frame, spec_of("A", "age >= 18"))]])
    doc = json.loads(led.read_text())
    doc["entries"][0]["outputs"][0]["cells"][0]["value"] += 1
    led.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError, match="changed, removed or reordered"):
        ledger_outputs(led)


# -- names that broke the ledger --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["Tab 😀", 'Quote " and \\ back', "Tab\u007fdel", "Zeile\nzwei", "Ünïcödé ✓"]
)
def test_any_unicode_name_round_trips(cli, tmp_path, name):
    led = tmp_path / "ledger.json"
    spec = tmp_path / "spec.toml"
    spec.write_text(table("", "age >= 18").replace('name = ""', f"name = {_toml(name)}"), encoding="utf-8")
    r = cli(*outputs(PEOPLE, spec, led))
    assert r.code == 0, r.err
    assert [s.name for s in ledger_specs(led)] == [name]
    # Every later check on the ledger still reads it (before the fix: "is not TOML", blaming --spec).
    other = tmp_path / "other.toml"
    other.write_text(table("Other", "age >= 18"))
    assert cli(*outputs(PEOPLE, other, led)).code == 0


def _toml(text):
    return '"' + "".join(f"\\u{ord(c):04x}" if ord(c) < 0x20 or ord(c) == 0x7F else
                         ("\\" + c if c in '"\\' else c) for c in text) + '"'  # fmt: skip


# -- the lock ---------------------------------------------------------------------------------------------------


def test_when_the_lock_cannot_be_taken_nothing_is_written(cli, tmp_path, specs, monkeypatch):
    from privrisk.ledger import store

    led, out, atoms = tmp_path / "ledger.json", tmp_path / "report", tmp_path / "atoms.csv"
    real = store.exclusive_lock
    monkeypatch.setattr(store, "exclusive_lock", lambda path, **kw: real(path, **{**kw, "timeout": 0.05}))
    with open_ledger(led):  # another process holds the lock (flock: another open file conflicts alike)
        r = cli(*outputs(PEOPLE, specs("Adults"), led, "--out", out, "--atoms", atoms))
    one_line_error(r, "--ledger", "locked")
    assert not out.exists() and not atoms.exists() and not led.exists()
    assert not (tmp_path / "ledger.json.lock").exists()


def test_the_report_appears_only_with_the_entry(cli, tmp_path, specs, monkeypatch):
    from privrisk.ledger import store

    led, out = tmp_path / "ledger.json", tmp_path / "report"

    def broken(self, entry):
        raise PrivriskError("ledger: the disk is full", param="ledger")

    monkeypatch.setattr(store.OpenLedger, "write", broken)
    one_line_error(cli(*outputs(PEOPLE, specs("Adults"), led, "--out", out)), "disk is full")
    assert not out.exists() and not led.exists()
    monkeypatch.undo()
    r = cli(*outputs(PEOPLE, specs("Adults"), led, "--out", out))
    assert r.code == 0 and (out / "report.html").exists() and "Appended 1 output to" in r.err
    assert "outputs entry 1" in r.err and len(read_ledger_file(led)) == 1


def test_a_request_checked_while_another_was_appended_is_checked_again_under_the_lock(tmp_path, monkeypatch):
    # The check runs first without the lock; if other outputs came in before the lock was taken, it is run again
    # under the lock against them. Here "Adults" is appended just after "Over 19" read the ledger.
    import privrisk.outputs.run as check

    led = tmp_path / "ledger.json"
    real = check._against_ledger
    calls = []

    def interleaved(*args):
        result = real(*args)
        calls.append(len(args[4]))
        if len(calls) == 1:  # another request comes in and is appended (its own checks are counted too)
            run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Adults", "age >= 18"),), ledger=led))
        return result

    monkeypatch.setattr(check, "_against_ledger", interleaved)
    r = run_outputs(OutputsSettings(data=PEOPLE, spec=(spec_of("Over 19", "age >= 19"),), ledger=led))
    assert calls == [0, 0, 1]  # checked against the empty ledger, then, under the lock, against Adults
    assert r.status == "fail" and r.ledger["appended"] is False
    assert [s.name for s in ledger_specs(led)] == ["Adults"]


# -- files that are not one ledger ------------------------------------------------------------------------------


def test_hard_and_symbolic_links_to_the_ledger_are_refused(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    before = led.read_bytes()
    link, hard = tmp_path / "link.json", tmp_path / "hard.json"
    link.symlink_to(led)
    one_line_error(cli(*outputs(PEOPLE, specs("Other"), link)), "--ledger", "symbolic link")
    assert link.is_symlink() and led.read_bytes() == before  # the link is not replaced by a regular file
    os.link(led, hard)
    for name in (hard, led):
        one_line_error(cli(*outputs(PEOPLE, specs("Other"), name)), "--ledger", "2 names")
    assert led.read_bytes() == before


@pytest.mark.parametrize("tamper", ["truncate", "reset"])
def test_a_keyed_ledger_cut_short_or_emptied_is_refused(cli, tmp_path, specs, monkeypatch, tamper):
    monkeypatch.setenv("PRIVRISK_LEDGER_KEY", KEY.decode())
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    assert cli(*outputs(PEOPLE, specs("Again"), led)).code == 0
    doc = json.loads(led.read_text())
    # The attacker fixes the header up, as far as one can without the key.
    doc["entries"] = doc["entries"][:1] if tamper == "truncate" else []
    doc.update(count=len(doc["entries"]), head=doc["entries"][-1]["hash"] if doc["entries"] else "0" * 64)
    led.write_text(json.dumps(doc))
    # Before the fix the age >= 19 table passed against a ledger emptied of Adults.
    one_line_error(cli(*outputs(PEOPLE, specs("Y", "age >= 19"), led)), "truncated or reset")
    one_line_error(cli("ledger", led), "truncated or reset")


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_fifo_or_dev_zero_as_the_outputs_ledger_is_one_line(cli, tmp_path, specs, kind):
    led = tmp_path / "ledger.json"
    if kind == "fifo":
        os.mkfifo(led)
    else:
        led = Path("/dev/zero")
    one_line_error(cli(*outputs(PEOPLE, specs("Adults"), led)), "--ledger", "not a regular file")


def _forged(path, change):
    """Edit the first entry and recompute the unkeyed chain and header, as a determined forger would."""
    from privrisk.ledger.chain import GENESIS, entry_hash

    doc = json.loads(path.read_text())
    change(doc["entries"][0])
    prev = GENESIS
    for entry in doc["entries"]:
        entry["prev"] = prev
        entry["hash"] = prev = entry_hash(entry, None)
    doc["head"] = prev
    path.write_text(json.dumps(doc, ensure_ascii=False))


@pytest.mark.parametrize(
    ("change", "fragment", "shape"),
    [
        (lambda e: e["outputs"][0]["spec"].update(kind="cube"), "not a spec", False),
        (lambda e: e["outputs"][0]["spec"].update(rows="region", where=5), "not a spec", False),
        (lambda e: e["outputs"][0]["spec"].pop("kind"), "no name or kind", True),
        (lambda e: e["outputs"][0]["cells"][0].update(value="many"), "not labels and a number", True),
        (lambda e: e["outputs"][0]["cells"][0].update(value=[1]), "not labels and a number", True),
        (lambda e: e["outputs"][0].update(data={"rows": "x"}), "data version", True),
        (lambda e: e.update(outputs=[]), "lists no outputs", True),
        (lambda e: e.update(seq=True), "sequence number", True),
        (lambda e: e.update(kind="gift"), "unknown kind", True),
    ],
)
def test_forged_entries_are_one_line(cli, tmp_path, specs, change, fragment, shape):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    _forged(led, change)
    one_line_error(cli(*outputs(PEOPLE, specs("Other"), led)), "corrupt", fragment)
    # The ledger command checks the shape of every entry; a spec's fields are the outputs check's to read.
    r = cli("ledger", led)
    if shape:
        one_line_error(r, "corrupt", fragment)
    else:
        assert r.code == 0 and "Traceback" not in r.err


@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity", "1" * 5000])
def test_nan_or_huge_numbers_in_the_ledger_are_one_line(cli, tmp_path, specs, constant):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    value = json.loads(led.read_text())["entries"][0]["outputs"][0]["cells"][0]["value"]
    led.write_text(led.read_text().replace(f'"value": {value}', f'"value": {constant}', 1))
    one_line_error(cli(*outputs(PEOPLE, specs("Other"), led)), "corrupt", "not valid JSON")


# -- data versions ----------------------------------------------------------------------------------------------


def test_earlier_outputs_of_another_version_of_the_data_are_refused_not_merged(cli, tmp_path, specs):
    # January: Adults. February: the same people and one newcomer, an 18-year-old woman in North. Today's data
    # no longer gives January's numbers: the difference is one person, so the request is refused (issue 31).
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    february = tmp_path / "people.csv"
    february.write_text(PEOPLE.read_text().rstrip("\n") + "\nNorth,female,18,20000.0\n")
    r = cli(*outputs(february, specs("Again"), led))
    one_line_error(
        r,
        "--ledger",
        "'Adults'",
        "another version of the data",
        "159 rows then, 160 now",
        "(outputs entry 1 of ",
    )
    assert len(read_ledger_file(led)) == 1


def test_changed_data_whose_earlier_numbers_are_given_again_is_checked_as_today(cli, tmp_path, specs):
    # A newcomer aged 10 is in no adult table: January's numbers are today's, and the check goes on.
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    february = tmp_path / "people.csv"
    february.write_text(PEOPLE.read_text().rstrip("\n") + "\nNorth,female,10,0.0\n")
    r = cli(*outputs(february, specs("Over 19", "age >= 19"), led, "--json"))
    doc = json.loads(r.out)
    assert r.code == 1 and doc["summary"]["earlier_data_changed"] == 1
    assert doc["summary"]["earlier_numbers_changed"] == 0 and doc["disclosures"][0]["interval"] == [1, 1]


# -- the ledger command and the words ---------------------------------------------------------------------------


def test_the_ledger_command_shows_releases_and_outputs(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    record_release(led, queries=[{"column": "age", "query": "mean", "epsilon": 0.5}])
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    r = cli("ledger", led)
    assert r.code == 0, r.err
    text = " ".join(r.out.split())
    assert "1 release, 1 outputs entry, checksums verified" in text and "Adults (6 cells)" in text
    assert "Total ε = 0.5" in text and "1 output released in 1 outputs entry" in text
    doc = cli("ledger", led, "--json").json
    assert doc["releases"] == 1 and doc["total_epsilon"] == 0.5
    assert doc["outputs"] == [{"seq": 1, "time": doc["outputs"][0]["time"],
                               "outputs": [{"name": "Adults", "kind": "count", "cells": 6, "data": "people.csv"}]}]  # fmt: skip
    only = tmp_path / "outputs-only.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), only)).code == 0
    r = cli("ledger", only)
    assert r.code == 0 and "0 releases, 1 outputs entry" in " ".join(r.out.split())


def test_no_append_checks_without_writing(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    r = cli(*outputs(PEOPLE, specs("Adults"), led, "--no-append", "--json"))
    assert r.code == 0 and not led.exists() and "Not appended" in r.err
    assert json.loads(r.out)["ledger"] == {"path": str(led), "appended": False, "seq": None}


def test_the_help_shows_the_spec_format_and_what_an_atom_is(cli):
    text = " ".join(cli("outputs", "--help").out.split())
    for words in ("[[output]]", 'name = "Table 1"', 'kind = "count"', 'where = "age >= 18"', "margins = true",
                  "formula =", "the finest groups the released numbers split people into", "--no-append"):  # fmt: skip
        assert words in text, words


def test_an_earlier_output_that_reads_a_column_the_data_lacks_names_the_ledger(cli, tmp_path, specs):
    led = tmp_path / "ledger.json"
    assert cli(*outputs(PEOPLE, specs("Adults"), led)).code == 0
    other = tmp_path / "other.csv"
    other.write_text("region,age\nNorth,30\n" * 12)
    by_region = tmp_path / "by-region.toml"
    by_region.write_text('[[output]]\nname = "By region"\nrows = ["region"]\n')
    one_line_error(
        cli(*outputs(other, by_region, led)), "--ledger", "earlier output 'Adults'", "column 'sex'"
    )
