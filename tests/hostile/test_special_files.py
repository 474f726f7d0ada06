"""Issue 20, files and ledgers under hostile use: a hard link that doubles a budget, outputs that would replace a
FIFO or a device, ledgers and keys that are FIFOs or /dev/zero. Each test failed before its fix."""

from __future__ import annotations

import os
import stat

import pytest

import privrisk.io.files as files
from helpers import one_line_error
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.files import atomic_dir, atomic_path
from privrisk.release.ledger import read_key, read_ledger, record_release, spent_epsilon

DATA = "hours\n8\n6\n30\n7\n9\n"


def q(eps: float) -> list[dict]:
    return [{"column": "hours", "query": "mean", "epsilon": eps}]


@pytest.fixture
def data(tmp_path):
    p = tmp_path / "survey.csv"
    p.write_text(DATA)
    return p


def release(data, *extra, eps="0.15"):
    return ("release", data, "-c", "hours", "-q", "mean", "-e", eps, "--universe", "0,24", "--allow-useless", *extra)


def fifo(path):
    os.mkfifo(path)
    return path


# 1. A hard link overspends the ledger -----------------------------------------------------------------------


def test_a_hard_linked_ledger_is_refused_and_cannot_be_overspent(tmp_path):
    led, other = tmp_path / "ledger.json", tmp_path / "h2.json"
    record_release(led, queries=q(0.15), budget=0.25)
    os.link(led, other)
    # Before the fix the release through h2.json was recorded in the old inode, and ledger.json still had 0.1 left.
    for name in (other, led):
        with pytest.raises(PrivriskError, match="hard links"):
            record_release(name, queries=q(0.15), budget=0.25)
        with pytest.raises(PrivriskError, match="2 names"):
            read_ledger(name)
    other.unlink()
    assert spent_epsilon(led) == 0.15
    with pytest.raises(ThresholdExceeded):
        record_release(led, queries=q(0.15), budget=0.25)


def test_a_hard_linked_ledger_cli_is_one_line_exit_2(cli, data, tmp_path):
    led, other = tmp_path / "ledger.json", tmp_path / "h2.json"
    assert cli(*release(data, "--budget", "0.25", "--ledger", led)).code == 0
    os.link(led, other)
    one_line_error(cli(*release(data, "--budget", "0.25", "--ledger", other)), "h2.json", "hard links")
    one_line_error(cli("ledger", led), "ledger.json", "hard links")
    assert os.stat(led).st_nlink == 2  # nothing was replaced


# 2. --out replaces special files ----------------------------------------------------------------------------


def test_explain_out_refuses_a_fifo(cli, tmp_path):
    target = fifo(tmp_path / "pipe")
    one_line_error(cli("explain", "--epsilon", "1", "--out", target), "--out", "FIFO", "not a regular file")
    assert stat.S_ISFIFO(os.stat(target).st_mode)


def test_release_internal_refuses_a_fifo(cli, data, tmp_path):
    target = fifo(tmp_path / "pipe")
    led = tmp_path / "ledger.json"
    one_line_error(cli(*release(data, "--internal", target, "--ledger", led)), "--internal", "FIFO")
    assert stat.S_ISFIFO(os.stat(target).st_mode) and not led.exists()  # refused before anything was charged


def test_release_out_folder_refuses_a_fifo_in_place_of_one_of_its_files(cli, data, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    target = fifo(out / "release.json")
    one_line_error(cli(*release(data, "--out", out)), "--out", "FIFO")
    assert stat.S_ISFIFO(os.stat(target).st_mode) and sorted(p.name for p in out.iterdir()) == ["release.json"]


def test_audit_records_refuses_a_fifo(cli, tmp_path):
    values = tmp_path / "v.csv"
    values.write_text("x\n1\n2\n3\n4\n")
    target = fifo(tmp_path / "pipe")
    r = cli("audit", values, "--column", "x", "--query", "mean", "--epsilon", "2", "--u", "0.75",
            "--universe", "0,100", "--records", target)  # fmt: skip
    one_line_error(r, "FIFO", "not a regular file")
    assert stat.S_ISFIFO(os.stat(target).st_mode)


def test_atomic_path_and_dir_replace_only_regular_files(tmp_path):
    target = fifo(tmp_path / "pipe")
    with pytest.raises(PrivriskError, match="FIFO"), atomic_path(target):
        pytest.fail("the block must not run")
    link = tmp_path / "link"
    link.symlink_to(target)  # judged by what it points to
    with pytest.raises(PrivriskError, match="FIFO"), atomic_path(link):
        pytest.fail("the block must not run")
    out = tmp_path / "out"
    out.mkdir()
    fifo(out / "b.txt")
    with pytest.raises(PrivriskError, match="FIFO"), atomic_dir(out) as tmp:
        (tmp / "a.txt").write_text("a")
        (tmp / "b.txt").write_text("b")
    assert sorted(p.name for p in out.iterdir()) == ["b.txt"]  # nothing moved: checked before the first rename
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_check_replaceable_names_the_kind_of_file():
    with pytest.raises(PrivriskError, match="character device"):
        files.check_replaceable("/dev/null", "out")
    files.check_replaceable("/no/such/file")


# 3. Ledger and key files that hang or exhaust memory -------------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_ledger_that_is_a_fifo_or_dev_zero_is_refused(cli, data, tmp_path, kind):
    led = fifo(tmp_path / "ledger.json") if kind == "fifo" else "/dev/zero"
    # Before the fix a FIFO hung forever and /dev/zero ended in MemoryError (exit 70).
    one_line_error(cli(*release(data, "--ledger", led)), "the ledger is a", "not a regular file")
    one_line_error(cli("ledger", led), "not a regular file")


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_key_that_is_a_fifo_or_dev_zero_is_refused(cli, data, tmp_path, kind):
    key = fifo(tmp_path / "key") if kind == "fifo" else "/dev/zero"
    r = cli(*release(data, "--ledger", tmp_path / "ledger.json", "--ledger-key", key))
    one_line_error(r, "--ledger-key", "not a regular file")
    with pytest.raises(PrivriskError, match="key_file"):
        read_key(key)


def test_a_huge_ledger_or_key_is_refused_before_it_is_read(tmp_path):
    big = tmp_path / "big"
    with open(big, "wb") as fh:
        fh.truncate(65 * 1024 * 1024)  # sparse: costs no disk
    with pytest.raises(PrivriskError, match="more than the"):
        read_ledger(big)
    with pytest.raises(PrivriskError, match="more than the"):
        read_key(big)


def test_read_regular_file_reads_a_file_whole_and_raises_for_a_missing_one(tmp_path):
    p = tmp_path / "f"
    p.write_bytes(b"x" * 3000)
    assert files.read_regular_file(p, 3000, what="it") == b"x" * 3000
    with pytest.raises(PrivriskError, match="3,000 bytes, more than the 2,999"):
        files.read_regular_file(p, 2999, what="it")
    with pytest.raises(FileNotFoundError):
        files.read_regular_file(tmp_path / "none", 10, what="it")


# 4. Issue 30: a hierarchy table that is a FIFO or /dev/zero -------------------------------------------------


@pytest.mark.parametrize("kind", ["fifo", "zero"])
def test_a_hierarchy_table_that_is_a_fifo_or_dev_zero_is_one_line(cli, trial_and_census, tmp_path, kind):
    trial, census = trial_and_census
    table = fifo(tmp_path / "age.csv") if kind == "fifo" else "/dev/zero"
    # Before the fix a FIFO never returned and /dev/zero ended in MemoryError.
    r = cli("presence", trial, "--population", census, "--population-count", "n", "--qi", "zip,age",
            "-H", f"age=table:{table}")  # fmt: skip
    one_line_error(r, "hierarchy table of 'age'", "not a regular file")


def test_a_huge_hierarchy_table_is_refused_before_it_is_read(tmp_path):
    from privrisk.presence import hierarchy

    big = tmp_path / "age.csv"
    with open(big, "wb") as fh:
        fh.truncate(hierarchy.MAX_TABLE_BYTES + 1)  # sparse: costs no disk
    with pytest.raises(PrivriskError, match="more than the"):
        hierarchy._table_rows("age", str(big), [1, 2])
