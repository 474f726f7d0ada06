"""Issue 12, the ledger and the release: each case of the issue as a regression test (exit 0, 1 or 2 as the
contract says, one line on stderr, no ledger overspent)."""

from __future__ import annotations

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
    return ("release", data, "-c", "hours", "-q", "mean", "-e", eps, "--universe", "0,24", *extra)


# 1. A symlinked ledger is overspent -------------------------------------------------------------------------


def test_symlinked_ledger_cannot_be_overspent(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    real = shared / "ledger.json"
    link = tmp_path / "link.json"
    record_release(real, queries=q(0.5), budget=1.0)
    link.symlink_to(real)
    record_release(link, queries=q(0.5), budget=1.0)
    assert link.is_symlink()  # the rename went to the real file, not over the link
    with pytest.raises(ThresholdExceeded):
        record_release(real, queries=q(0.5), budget=1.0)
    with pytest.raises(ThresholdExceeded):
        record_release(link, queries=q(0.5), budget=1.0)
    assert spent_epsilon(real) == 1.0 and spent_epsilon(link) == 1.0
    assert len(read_ledger(real)) == 2
    # one lock file, beside the real ledger
    assert (shared / "ledger.json.lock").exists() and not (tmp_path / "link.json.lock").exists()


def test_symlinked_ledger_cli(cli, data, tmp_path):
    real = tmp_path / "ledger.json"
    link = tmp_path / "link.json"
    assert cli(*release(data, "--budget", "1", "--ledger", real)).code == 0
    link.symlink_to(real)
    assert cli(*release(data, "--budget", "1", "--ledger", link)).code == 0
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
    one_line_error(cli("release", data, "--spec", spec), "20")


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
    r = cli("release", data, "--spec", spec)
    one_line_error(r)


@pytest.mark.parametrize("value", ["inf", "nan"])
def test_spec_public_n_not_finite(cli, data, tmp_path, value):
    spec = tmp_path / "r.toml"
    spec.write_text(
        f'public_n = {value}\n[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = 1\nuniverse = [0, 24]\n'
    )
    one_line_error(cli("release", data, "--spec", spec), "public_n")


@pytest.mark.parametrize("value", ["5", "{a=1}"])
def test_spec_missing_not_codes(cli, data, tmp_path, value):
    spec = tmp_path / "r.toml"
    spec.write_text(
        f'missing = {value}\n[[query]]\ncolumn = "hours"\nquery = "mean"\nepsilon = 1\nuniverse = [0, 24]\n'
    )
    one_line_error(cli("release", data, "--spec", spec), "missing")


# 6. Thresholds that are not enforced ----------------------------------------------------------------------


def test_ledger_budget_exceeded_exits_1(cli, tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=q(1.2))
    r = cli("ledger", led, "--budget", "0.5")
    assert r.code == 1, (r.code, r.out, r.err)
    assert "Traceback" not in r.err
