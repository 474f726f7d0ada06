"""Issue 12, the ledger and the release: each case of the issue as a regression test (exit 0, 1 or 2 as the
contract says, one line on stderr, no ledger overspent)."""

from __future__ import annotations

import re

import pytest

from helpers import one_line_error
from privrisk.errors import ThresholdExceeded
from privrisk.release.ledger import read_ledger, record_release, spent_epsilon

DATA = "hours\n8\n6\n30\n7\n9\n"


def q(eps: float) -> list[dict]:
    return [{"column": "hours", "query": "mean", "epsilon": eps}]


@pytest.fixture
def data(tmp_path):
    p = tmp_path / "survey.csv"
    p.write_text(DATA)
    return p


def release(data, *extra, eps="0.5"):
    # A mean at ε < 3 is useless under unbounded neighbours; these tests are about the ledger.
    return (
        "release",
        data,
        "--allow-useless",
        "-c",
        "hours",
        "-q",
        "mean",
        "-e",
        eps,
        "--universe",
        "0,24",
        *extra,
    )


# 1. A symlinked ledger is overspent ------------------------------------------------------------------------
# Issue 12 followed the link to one file; issue 30 refuses it: a link is neither a second ledger nor replaced by one.


def test_symlinked_ledger_is_refused_and_never_replaced(tmp_path):
    from privrisk.errors import PrivriskError

    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "ledger.json"
    link = tmp_path / "link.json"
    record_release(real, queries=q(0.5), budget=1.0)
    before = real.read_bytes()
    link.symlink_to(real)
    with pytest.raises(PrivriskError, match="symbolic link"):
        record_release(link, queries=q(0.5), budget=1.0)
    with pytest.raises(PrivriskError, match="give the real path"):
        read_ledger(link)
    assert link.is_symlink() and real.read_bytes() == before  # the link is left, the ledger unchanged
    record_release(real, queries=q(0.5), budget=1.0)
    with pytest.raises(ThresholdExceeded):
        record_release(real, queries=q(0.5), budget=1.0)
    assert spent_epsilon(real) == 1.0 and len(read_ledger(real)) == 2
    # no lock file is left behind, beside the link or the ledger
    assert not (shared / "ledger.json.lock").exists() and not (tmp_path / "link.json.lock").exists()


def test_a_dangling_symlink_is_not_replaced_by_a_new_ledger(tmp_path):
    from privrisk.errors import PrivriskError

    link = tmp_path / "link.json"
    link.symlink_to(tmp_path / "elsewhere.json")
    with pytest.raises(PrivriskError, match="symbolic link"):
        record_release(link, queries=q(0.5))
    assert link.is_symlink() and not (tmp_path / "elsewhere.json").exists()


def test_symlinked_ledger_cli(cli, data, tmp_path):
    real = tmp_path / "ledger.json"
    link = tmp_path / "link.json"
    assert cli(*release(data, "--budget", "1", "--ledger", real)).code == 0
    link.symlink_to(real)
    one_line_error(cli(*release(data, "--budget", "1", "--ledger", link)), "--ledger", "symbolic link")
    one_line_error(cli("ledger", link), "symbolic link")
    assert cli(*release(data, "--budget", "1", "--ledger", real)).code == 0
    assert cli(*release(data, "--budget", "1", "--ledger", real)).code == 1
    assert link.is_symlink() and spent_epsilon(real) == 1.0


# 5. A huge ε publishes the true value ----------------------------------------------------------------------


def test_release_epsilon_1e20_refused(cli, data, tmp_path):
    led = tmp_path / "ledger.json"
    r = cli(*release(data, "--ledger", led, eps="1e20"))
    one_line_error(r, "--epsilon", "20", "--allow-large-epsilon")
    assert not led.exists()


def test_release_spec_epsilon_above_20_refused(cli, data, tmp_path):
    spec = tmp_path / "r.toml"
    spec.write_text('[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = 25\nuniverse = [0, 24]\n')
    one_line_error(cli("release", data, "--allow-useless", "--spec", spec), "20")


def test_release_large_epsilon_allowed_warns(cli, data):
    r = cli(*release(data, "--allow-large-epsilon", "--json", eps="30"))
    assert r.code == 0, r.err
    assert "privrisk: warning: --epsilon: a release with total ε = 30 > 20" in r.err


def test_library_large_epsilon_warns():
    import pandas as pd

    from privrisk.errors import PrivacyLeakWarning, PrivriskError
    from privrisk.release import ReleaseQuery, noisy_release

    frame = pd.DataFrame({"hours": [8, 6, 30, 7, 9]})
    with pytest.raises(PrivriskError, match=r"^epsilon: "):
        noisy_release(frame, ReleaseQuery("hours", "mean", 25, (0, 24)))
    with pytest.warns(PrivacyLeakWarning):
        noisy_release(frame, ReleaseQuery("hours", "mean", 25, (0, 24)), allow_large_epsilon=True)


def test_release_epsilon_1e_320(cli, data):
    one_line_error(cli(*release(data, eps="1e-320")), "--epsilon")


def test_release_variance_huge_universe(cli, data, tmp_path):
    spec = tmp_path / "r.toml"
    spec.write_text(
        '[[query]]\ncolumn = "hours"\nquery = "variance"\nepsilon = 1\nuniverse = [-1e308, 1e308]\n'
    )
    r = cli("release", data, "--allow-useless", "--spec", spec)
    one_line_error(r)


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_spec_public_n_not_finite(cli, data, tmp_path, value):
    spec = tmp_path / "r.toml"
    spec.write_text(
        f'public_n = {value}\n[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = 1\nuniverse = [0, 24]\n'
    )
    one_line_error(cli("release", data, "--allow-useless", "--spec", spec), "public_n")


@pytest.mark.parametrize("value", ["5", "{a=1}"])
def test_spec_missing_not_codes(cli, data, tmp_path, value):
    spec = tmp_path / "r.toml"
    spec.write_text(
        f'missing = {value}\n[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = 1\nuniverse = [0, 24]\n'
    )
    one_line_error(cli("release", data, "--allow-useless", "--spec", spec), "missing")


# 6. Thresholds that are not enforced ----------------------------------------------------------------------


def test_ledger_budget_exceeded_exits_1(cli, tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=q(1.2))
    r = cli("ledger", led, "--budget", "0.5")
    assert r.code == 1, (r.code, r.out, r.err)
    assert "Traceback" not in r.err


# 4. The internal assessment recomputes the true value ---------------------------------------------------------

TEN = "v\n" + "\n".join(str(x) for x in (10, 20, 30, 40, 50, 60, 70, 80, 90, 195)) + "\n"  # true mean 64.5


def _shows_any(text: str, secrets: tuple[float, ...]) -> bool:
    """Whether a number in ``text`` is one of ``secrets`` as printed to its own decimals (two or more).

    A substring test would also catch a noisy answer that merely starts with the same digits (64.93512…).
    """
    for whole, decimals in re.findall(r"(\d+)\.(\d+)", text):
        if len(decimals) >= 2 and any(f"{s:.{len(decimals)}f}" == f"{whole}.{decimals}" for s in secrets):
            return True
    return False


def _mean_release(tmp_path, *extra):
    data = tmp_path / "ten.csv"
    data.write_text(TEN)
    return (
        "release",
        data,
        "--allow-useless",
        "-c",
        "v",
        "-q",
        "mean",
        "-e",
        "1",
        "--universe",
        "0,1000",
        *extra,
    )


def test_release_json_carries_no_n_or_local_sensitivity(cli, tmp_path):
    # With n = 10 and Δv = max over removing the smallest value: 1000 − 11·Δv would give the true mean back.
    r = cli(*_mean_release(tmp_path, "--json"))
    assert r.code == 0, r.err
    assert "internal_assessment" not in r.json
    for text in (r.out, r.err):
        assert "local_sensitivity" not in text and "n_clamped" not in text
        assert not _shows_any(
            text, (85.04545454545455, 93.55)
        )  # Δv = (645 + 1000)/11 − 64.5; (1000 − 64.5)/10
    r = cli(*_mean_release(tmp_path))
    assert r.code == 0 and "Δv" not in r.out + r.err and "n_read" not in r.err


def test_release_out_folder_has_only_public_files(cli, tmp_path):
    out = tmp_path / "out"
    r = cli(*_mean_release(tmp_path, "--out", out))
    assert r.code == 0, r.err
    assert not any("internal" in p.name for p in out.iterdir())
    for p in out.glob("*.[jc]s*"):
        assert "local_sensitivity" not in p.read_text(), p


def test_internal_only_where_asked_mode_0600(cli, tmp_path):
    target = tmp_path / "secret" / "internal.json"
    target.parent.mkdir()
    r = cli(*_mean_release(tmp_path, "--internal", target))
    assert r.code == 0, r.err
    assert target.stat().st_mode & 0o777 == 0o600
    import json

    doc = json.loads(target.read_text())
    assert doc["not_for_publication"] is True and doc["queries"][0]["n"] == 10


def _old_release_folder(tmp_path, cli):
    """A folder as releases wrote it before the fix: the internal table listed in the manifest."""
    import json

    import pandas as pd

    from privrisk.release import ReleaseQuery, noisy_release
    from privrisk.release.outputs import write_outputs

    out = tmp_path / "rel"
    out.mkdir()
    r = noisy_release(pd.DataFrame({"v": [10.0, 20, 30]}), ReleaseQuery("v", "mean", 1, (0, 1000)))
    write_outputs(r, out, include_internal=True)
    legacy = tmp_path / "legacy"
    legacy.mkdir()
    for p in out.iterdir():
        (legacy / p.name).write_bytes(p.read_bytes())
    manifest = json.loads((legacy / "manifest.json").read_text())
    for t in manifest["tables"]:
        t.pop("internal", None)  # the old manifests did not mark it
    (legacy / "manifest.json").write_text(json.dumps(manifest))
    return out, legacy


def test_report_leaves_the_internal_assessment_out(cli, tmp_path):
    out, legacy = _old_release_folder(tmp_path, cli)
    for folder in (out, legacy):
        page = tmp_path / f"{folder.name}.html"
        r = cli("report", folder, "--out", page)
        assert r.code == 0, r.err
        text = page.read_text()
        # neither the key nor the table (its title; the glossary at the page's end names the concept)
        assert "local_sensitivity" not in text and "Internal assessment" not in text
        assert "NOT FOR PUBLICATION" not in text


def test_report_include_internal_marks_it(cli, tmp_path):
    out, _ = _old_release_folder(tmp_path, cli)
    page = tmp_path / "page.html"
    r = cli("report", out, "--out", page, "--include-internal")
    assert r.code == 0, r.err
    text = page.read_text()
    assert "Internal assessment" in text and "NOT FOR PUBLICATION" in text
    assert "local sensitivity Δv</th>" in text  # the internal table's column, under the vocabulary's name


# 3. Charging: the noisy answer is delivered and charged, or neither -------------------------------------------


@pytest.fixture
def no_noise(monkeypatch):
    from privrisk.release import mechanisms

    def boom(*args, **kwargs):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(mechanisms, "_draw", boom)


def test_out_whose_files_cannot_be_replaced_fails_before_noise(cli, data, tmp_path, no_noise):
    out = tmp_path / "out"
    (out / "release.json").mkdir(parents=True)
    led = tmp_path / "ledger.json"
    r = cli(*release(data, "--ledger", led, "--out", out))
    one_line_error(r, "--out", "release.json")
    assert not led.exists()


def test_out_under_a_file_fails_before_noise(cli, data, tmp_path, no_noise):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    led = tmp_path / "ledger.json"
    one_line_error(cli(*release(data, "--ledger", led, "--out", blocker / "out")), "--out")
    assert not led.exists()


def test_interrupt_while_writing_outputs_charges_nothing(cli, data, tmp_path, monkeypatch):
    import privrisk.release.transaction

    led = tmp_path / "ledger.json"
    record_release(led, queries=q(0.25), budget=1.0)

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    # The release transaction is the library's (publish), so the outputs it writes are replaced there.
    monkeypatch.setattr(privrisk.release.transaction, "write_outputs", interrupted)
    out = tmp_path / "out"
    try:
        cli(*release(data, "--ledger", led, "--out", out))  # exit 130 is privrisk.cli.main's (another change)
    except (KeyboardInterrupt, SystemExit):
        pass
    assert spent_epsilon(led) == 0.25
    assert not out.exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".out")] == []


def test_failure_before_charge_charges_nothing_library(tmp_path):
    import pandas as pd

    from privrisk.release import ReleaseQuery, noisy_release

    led = tmp_path / "ledger.json"

    def fail(release):
        raise OSError("disk full")

    with pytest.raises(OSError):
        noisy_release(pd.DataFrame({"v": [1.0, 2.0]}), ReleaseQuery("v", "mean", 0.5, (0, 10)), ledger=led,
                      before_charge=fail)  # fmt: skip
    assert spent_epsilon(led) == 0.0
    seen = []
    r = noisy_release(pd.DataFrame({"v": [1.0, 2.0]}), ReleaseQuery("v", "mean", 0.5, (0, 10)), ledger=led,
                      before_charge=lambda rel: seen.append(spent_epsilon(led)))  # fmt: skip
    assert seen == [0.0] and spent_epsilon(led) == 0.5 and r.ledger["spent_after"] == 0.5


def test_signals_deferred_during_charge():
    import signal

    from privrisk.release.ledger import deferred_signals

    done = []
    # Python's own handler for the test's length: a SparkContext made by another test in this worker process
    # installs its own, which the guard would rightly restore instead.
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            with deferred_signals() as guard:
                guard.arm()
                signal.raise_signal(signal.SIGINT)
                done.append("charged and renamed")
        assert done == ["charged and renamed"]
        assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    finally:
        signal.signal(signal.SIGINT, before)


# 2. Keyed ledger ------------------------------------------------------------------------------------------------

KEY = b"0123456789abcdef-secret"


def _truncate(path):
    import json

    doc = json.loads(path.read_text())
    doc["entries"] = doc["entries"][:-1]
    doc["count"] = len(doc["entries"])
    doc["total_epsilon"] = sum(e["epsilon"] for e in doc["entries"])
    doc["head"] = doc["entries"][-1]["hash"] if doc["entries"] else "0" * 64
    path.write_text(json.dumps(doc))


def _reset(path):
    import json

    doc = json.loads(path.read_text())
    doc.update(entries=[], count=0, total_epsilon=0.0, head="0" * 64)
    path.write_text(json.dumps(doc))


def test_unkeyed_truncation_is_not_detected(tmp_path):
    # The limit the README states: a self-contained hash chain cannot see a cut at its end.
    led = tmp_path / "ledger.json"
    record_release(led, queries=q(0.5))
    record_release(led, queries=q(0.5))
    _truncate(led)
    assert spent_epsilon(led) == 0.5


@pytest.mark.parametrize("tamper", [_truncate, _reset])
def test_keyed_ledger_detects_truncation_and_reset(tmp_path, tamper):
    from privrisk.errors import PrivriskError

    led = tmp_path / "ledger.json"
    record_release(led, queries=q(0.5), budget=1.0, key=KEY)
    record_release(led, queries=q(0.5), budget=1.0, key=KEY)
    assert spent_epsilon(led, key=KEY) == 1.0
    tamper(led)
    with pytest.raises(PrivriskError, match="truncated or reset"):
        read_ledger(led, key=KEY)
    with pytest.raises(PrivriskError):
        record_release(led, queries=q(0.5), budget=1.0, key=KEY)


def test_keyed_ledger_detects_an_edit(tmp_path):
    import json

    from privrisk.errors import PrivriskError

    led = tmp_path / "ledger.json"
    record_release(led, queries=q(0.5), key=KEY)
    doc = json.loads(led.read_text())
    doc["entries"][0]["data"] = "other.csv"
    led.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError):
        read_ledger(led, key=KEY)


def test_keyed_ledger_needs_its_key(tmp_path):
    from privrisk.errors import PrivriskError

    led = tmp_path / "ledger.json"
    record_release(led, queries=q(0.5), key=KEY)
    with pytest.raises(PrivriskError, match="keyed ledger"):
        read_ledger(led)
    with pytest.raises(PrivriskError, match="wrong key"):
        read_ledger(led, key=b"another key of 16 bytes")
    unkeyed = tmp_path / "plain.json"
    record_release(unkeyed, queries=q(0.5))
    assert spent_epsilon(unkeyed) == 0.5  # unkeyed ledgers still read
    with pytest.raises(PrivriskError, match="not a keyed ledger"):
        read_ledger(unkeyed, key=KEY)


def test_keyed_ledger_cli(cli, data, tmp_path, monkeypatch):
    led = tmp_path / "ledger.json"
    key_file = tmp_path / "key"
    key_file.write_bytes(KEY + b"\n")
    r = cli(*release(data, "--budget", "1", "--ledger", led, "--ledger-key", key_file))
    assert r.code == 0, r.err
    assert cli("ledger", led, "--ledger-key", key_file).code == 0
    one_line_error(cli("ledger", led), "--ledger-key", "keyed")
    monkeypatch.setenv("PRIVRISK_LEDGER_KEY", KEY.decode())
    assert cli(*release(data, "--ledger", led)).code == 0
    assert spent_epsilon(led, key=KEY) == 1.0
    _truncate(led)
    one_line_error(cli("ledger", led), "truncated")
    one_line_error(cli(*release(data, "--ledger", led)), "truncated")
    monkeypatch.setenv("PRIVRISK_LEDGER_KEY", "another key of 16 bytes")
    _reset(led)
    one_line_error(cli("ledger", led), "wrong key")


def test_interrupt_during_the_charge_waits_for_the_outputs(cli, data, tmp_path, monkeypatch, capsys):
    import signal

    from privrisk.ledger import store as L

    real = L._default_mode

    def interrupted_mode():
        signal.raise_signal(signal.SIGINT)  # arrives while the ledger is being charged
        return real()

    monkeypatch.setattr(L, "_default_mode", interrupted_mode)
    led, out = tmp_path / "ledger.json", tmp_path / "out"
    try:
        printed = cli(*release(data, "--ledger", led, "--out", out, "--json")).out
    except KeyboardInterrupt:
        printed = capsys.readouterr().out
    # Delivered and charged: the ledger, the whole folder and the answer on stdout.
    assert spent_epsilon(led) == 0.5
    assert (out / "release.json").exists() and (out / "manifest.json").exists()
    assert '"noisy_value"' in printed
