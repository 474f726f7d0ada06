"""One way in (issues 21 and 33): ReleaseSettings checks every combination of its fields and names the field;
run_release with preview=True gives each answer's noise before any ε is spent (checked by hand); a release is one
transaction (the ledger is charged and the outputs are whole, or neither) and publishes a preview once."""

from __future__ import annotations

import json
import math
import re
import threading
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

import privrisk.release.mechanisms as M
import privrisk.release.transaction as T
from privrisk.errors import PrivacyLeakWarning, PrivriskError, ThresholdExceeded
from privrisk.release import ReleaseQuery, ReleaseSettings, read_ledger, run_release
from privrisk.release.budget import Budget
from privrisk.release.statement import odds_phrase

FRAME = pd.DataFrame({"hours": [8.0, 6, 30, 7, 9, 12], "income": [1000.0, 2000, 0, 500, 4000, 100]})
MEAN = ReleaseQuery("hours", "mean", 0.5, (0, 24))
Z95 = 1.959963984540054  # the 97.5 % quantile of N(0, 1)


def request(**changes):
    # A mean on [0, 24] at ε = 0.5 is useless (± 71.9 for a range of 24): the tests of other rules allow it.
    fields = {"data": FRAME, "queries": (MEAN,), "allow_useless": True} | changes
    return ReleaseSettings(**fields)


def preview(settings):
    """The preview of the settings (run_release with preview=True)."""
    return run_release(replace(settings, preview=True)).preview


def publish(settings, preview_id=None, *, after=None):
    """The release of the settings (confirming ``preview_id``), ``after`` told the release."""
    told = None if after is None else (lambda run: after(run.release))
    return run_release(replace(settings, preview_id=preview_id), after=told).release


@pytest.fixture
def no_noise(monkeypatch):
    """Fail the test if any noise is drawn."""

    def boom(*_args):
        raise AssertionError("noise was drawn")

    monkeypatch.setattr(M, "_draw", boom)
    monkeypatch.setattr(M, "_draw_gaussian", boom)


# ReleaseSettings: every field and combination names its parameter ------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "param"),
    [
        ({"queries": ()}, "queries"),
        ({"queries": ("hours mean 1 0,24",)}, "queries"),
        ({"data": 42}, "data"),
        ({"public_n": 1}, "public_n"),
        ({"public_n": 2.5}, "public_n"),
        ({"budget": "lots"}, "budget"),
        ({"budget": Budget(epsilon=1), "budget_rho": 1}, "budget_rho"),
        ({"column": "hours"}, "column"),
        ({"spec": "release.toml"}, "queries"),
        ({"preview": True, "preview_id": "0" * 64}, "preview_id"),
        ({"preview": "yes"}, "preview"),
        ({"key": b"k" * 16}, "key"),
        ({"key": b"short", "ledger": "l.json"}, "key"),
        ({"ledger_label": "mine.json"}, "ledger_label"),
        ({"ledger": "l.json", "ledger_label": " "}, "ledger_label"),
        ({"allow_large_epsilon": "yes"}, "allow_large_epsilon"),
        ({"allow_useless": 1}, "allow_useless"),
        ({"level": 1.5}, "level"),
        ({"level": 0}, "level"),
        ({"out": ""}, "out"),
        ({"ledger": "l.json", "internal": "l.json"}, "internal"),
        ({"out": "results", "internal": "results"}, "internal"),
        ({"source": 3}, "source"),
        ({"queries": (ReleaseQuery("hours", "mean", 15, (0, 24)), ReleaseQuery("hours", "max", 6, (0, 24)))},
         "epsilon"),
        ({"queries": (ReleaseQuery("hours", "mean", None, (0, 24), mechanism="gaussian", rho=250),)}, "rho"),
    ],
)  # fmt: skip
def test_a_bad_request_names_its_field(changes, param, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with pytest.raises(PrivriskError) as info:
        request(**changes)
    assert info.value.param == param
    assert str(info.value).startswith(param + ":"), str(info.value)


def test_a_total_epsilon_above_20_is_refused_once_and_allowed_with_a_warning():
    # 15 + 6 = 21 > 20: each query alone is below the limit, the sum is not.
    two = (ReleaseQuery("hours", "mean", 15, (0, 24)), ReleaseQuery("hours", "max", 6, (0, 24)))
    with pytest.raises(M.LargeEpsilonRefused, match=r"^epsilon: a release with total ε = 21 > 20"):
        request(queries=two)
    with pytest.warns(PrivacyLeakWarning, match="total ε = 21"):
        assert request(queries=two, allow_large_epsilon=True).allow_large_epsilon


def test_the_epsilon_limit_is_checked_in_one_place():
    """Issue 21: MAX_EPSILON is checked by check_release_epsilon, which only ReleaseRequest calls."""
    src = Path(M.__file__).parents[1]
    calls = [
        (p.relative_to(src).as_posix(), line)
        for p in src.rglob("*.py")
        for line in p.read_text(encoding="utf-8").splitlines()
        if "check_release_epsilon(" in line and "def check_release_epsilon" not in line and ">>>" not in line
    ]
    assert [c[0] for c in calls] == ["release/request.py"], calls
    uses = [
        p.relative_to(src).as_posix()
        for p in src.rglob("*.py")
        if "MAX_EPSILON" in p.read_text(encoding="utf-8")
    ]
    assert uses == ["release/mechanisms.py"], uses


def test_the_key_is_not_shown_and_a_request_is_frozen(tmp_path):
    r = request(ledger=tmp_path / "l.json", key="a secret of 16 bytes")
    assert "secret" not in repr(r) and "secret" not in json.dumps(r.request.to_dict())
    with pytest.raises(AttributeError):
        r.public_n = 3  # type: ignore[misc]


# The preview, by hand ---------------------------------------------------------------------------------------


def test_laplace_preview_by_hand(no_noise):
    # mean on [0, 24]: Δf = 24/2 = 12; ε = 0.5: b = 24; E|Lap(b)| = b; P(|Y| > t) = e^(−t/b) = 5 % at t = b ln 20.
    [q] = preview(request()).queries
    assert q.sensitivity == 12.0
    assert q.scale == pytest.approx(24.0, rel=1e-12)
    assert q.expected_error == pytest.approx(24.0, rel=1e-12)
    assert q.half_width == pytest.approx(24.0 * math.log(20), rel=1e-12)
    # ± 71.9 is wider than the whole range of a mean in [0, 24] (24): useless.
    assert q.plausible_width == 24.0 and q.useless


def test_gaussian_preview_by_hand(no_noise):
    # max on [0, 10]: Δf = 10; ρ = 0.5: σ = Δf/√(2ρ) = 10; E|N(0, σ²)| = σ√(2/π); 95 %: 1.96σ.
    q = ReleaseQuery("hours", "max", None, (0, 10), mechanism="gaussian", rho=0.5)
    [p] = preview(request(queries=(q,))).queries
    assert p.scale == pytest.approx(10.0, rel=1e-12)
    assert p.expected_error == pytest.approx(10.0 * math.sqrt(2 / math.pi), rel=1e-12)
    assert p.half_width == pytest.approx(Z95 * 10.0, rel=1e-12)
    assert p.epsilon is None and p.rho == 0.5
    assert p.useless  # ± 19.6 > 10/2


def test_the_useless_warning_of_issue_22(no_noise):
    # A mean income at ε = 1 with bounds 0–500,000: b = 250,000, half-width 748,933 > 500,000/2.
    q = ReleaseQuery("income", "mean", 1, (0, 500_000))
    p = preview(request(queries=(q,)))
    assert p.queries[0].half_width == pytest.approx(250_000 * math.log(20), rel=1e-12)
    [warning] = p.warnings
    assert "the answer would be useless" in warning and "748,933" in warning
    assert not re.search(r"\de[-+]?\d", warning)


def test_a_useful_answer_has_no_warning_and_a_count_needs_n_for_its_range(no_noise):
    # count, ε = 1: b = 1, half-width ln 20 ≈ 3.0; without a published n its range is unknown, with n = 1000 it is
    # 1000 wide: 3.0 < 500, useful.
    count = ReleaseQuery("hours", "count", 1, (0, 24))
    assert preview(request(queries=(count,))).queries[0].plausible_width is None
    p = preview(request(queries=(count,), public_n=1000))
    assert p.queries[0].plausible_width == 1000.0 and not p.queries[0].useless and p.warnings == []
    # a mean on [0, 24] at ε = 10: b = 1.2, half-width 3.6 < 12: useful
    assert not preview(request(queries=(ReleaseQuery("hours", "mean", 10, (0, 24)),))).queries[0].useless


def test_a_preview_writes_nothing_and_says_when_the_budget_would_refuse(tmp_path, no_noise):
    ledger = tmp_path / "ledger.json"
    p = preview(request(ledger=ledger, budget=Budget(epsilon=0.4)))
    assert not ledger.exists() and not Path(str(ledger) + ".lock").exists()
    assert p.refusal is not None and p.refusal.startswith("budget: this release needs ε = 0.5")
    assert p.spent_before == 0.0
    # ε = 0.5 → the verdict in words: 1/(1 + e^−0.5) = 0.6225 ≈ 6 in 10.
    assert p.verdict().endswith(
        "would be right about 6 times in 10 at most (the most that ε = 0.5 allows any noise); guessing, 5 in 10."
    )


def test_preview_ids_differ_and_digests_follow_the_settings():
    r = request()
    a, b = preview(r), preview(r)
    assert a.id != b.id and a.request_digest == b.request_digest == r.digest()
    assert request(queries=(ReleaseQuery("hours", "mean", 0.6, (0, 24)),)).digest() != r.digest()
    assert request(data=FRAME.assign(hours=FRAME["hours"] + 1)).digest() != r.digest()


def test_a_preview_names_a_missing_column(no_noise):
    with pytest.raises(PrivriskError, match="no column 'nosuch'"):
        preview(request(queries=(ReleaseQuery("nosuch", "mean", 1, (0, 1)),), source="a.csv"))


@pytest.mark.parametrize(
    ("p", "said"),
    [
        (0.75, "about 3 times in 4; guessing, 2 in 4"),
        (1 / (1 + math.exp(-1)), "about 3 times in 4; guessing, 2 in 4"),  # 0.731
        (1 / (1 + math.exp(-0.5)), "about 6 times in 10; guessing, 5 in 10"),  # 0.622
        (1 / (1 + math.exp(-0.1)), "about 52 times in 100; guessing, 50 in 100"),  # 0.525
        (1 / (1 + math.exp(-5)), "about 993 times in 1,000; guessing, 500 in 1,000"),  # 0.9933
        (0.5, "1 time in 2, the same as guessing"),
        # issue 30: ε = 10⁻⁶ said "more than 999,999 times in 1,000,000"; the truth is about 1 in 2.
        (
            1 / (1 + math.exp(-1e-6)),
            "about 1 time in 2; guessing, 1 in 2 (the difference is less than 1 in 1,000,000)",
        ),
        (
            1 / (1 + math.exp(-1e-12)),
            "about 1 time in 2; guessing, 1 in 2 (the difference is less than 1 in 1,000,000)",
        ),
        (1 - 2e-9, "more than 999,999 times in 1,000,000; guessing, 500,000 in 1,000,000"),
    ],
)
def test_odds_in_plain_words(p, said):
    assert odds_phrase(p) == said


# A useless answer is not released silently (issue 30, item 5) ------------------------------------------------


def test_a_useless_answer_is_refused_before_anything_is_drawn_or_written(tmp_path, no_noise):
    # mean on [0, 24] at ε = 0.5: b = 12/0.5 = 24, the 95 % interval ± 24·ln 20 = ± 71.9 > 24/2.
    data = tmp_path / "d.csv"
    FRAME.to_csv(data, index=False)
    led, out = tmp_path / "ledger.json", tmp_path / "out"
    r = ReleaseSettings(data, (MEAN,), ledger=led, out=out)
    p = preview(ReleaseSettings(FRAME, (MEAN,), ledger=led))
    assert p.queries[0].useless and p.useless_refusal is not None
    assert p.useless_refusal.startswith("allow_useless: mean(hours): the 95 % interval (± 71.9)")
    assert p.to_dict()["useless_refusal"] == p.useless_refusal
    with pytest.raises(PrivriskError) as info:
        publish(r)
    assert info.value.param == "allow_useless" and "--" not in str(info.value)
    assert "wider than the whole range its answer can take (24)" in str(info.value)
    assert not led.exists() and not out.exists()
    # A budget that refuses the release says so first (exit 1), and a missing file is named before either.
    with pytest.raises(ThresholdExceeded):
        publish(ReleaseSettings(data, (MEAN,), budget=Budget(epsilon=0.1)))
    with pytest.raises(PrivriskError, match="no-such-file"):
        publish(ReleaseSettings(tmp_path / "no-such-file.csv", (MEAN,)))
    # A useful answer (ε = 10: ± 3.6 < 12) and a count with a published n go ahead without the flag.
    useful = (ReleaseQuery("hours", "mean", 10, (0, 24)), ReleaseQuery("hours", "count", 1, (0, 24)))
    assert preview(ReleaseSettings(FRAME, useful, public_n=1000)).useless_refusal is None


def test_a_useless_answer_released_on_purpose_says_so_in_public(tmp_path):
    from privrisk.release.statement import USELESS_NOTE

    out = tmp_path / "out"
    qs = (MEAN, ReleaseQuery("income", "mean", 10, (0, 5000)))
    r = publish(ReleaseSettings(FRAME, qs, out=out, allow_useless=True))
    assert r.answers["useless"].tolist() == [True, False] and r.useless_labels == ["mean(hours)"]
    said = f"mean(hours): {USELESS_NOTE}."
    assert said in r.findings()
    page = (out / "statement.html").read_text()
    assert "the noise is larger than the range of the data: this answer tells nothing reliable" in page
    # Once under the table and once in the annex's findings; the useful answer is not flagged.
    assert page.count(f"mean(hours): {USELESS_NOTE}") == 2 and "mean(income): the noise" not in page
    public = json.loads((out / "release.json").read_text())
    assert [a["useless"] for a in public["answers"]] == [True, False]


def test_allowing_useless_answers_keeps_the_preview_of_the_same_request():
    # Agreeing to publish a useless answer changes whether the release may go ahead, not what it releases.
    assert request(allow_useless=False).digest() == request(allow_useless=True).digest()


# publish: one transaction ----------------------------------------------------------------------------------


def test_an_output_that_cannot_be_written_charges_nothing(tmp_path, no_noise):
    ledger = tmp_path / "ledger.json"
    blocker = tmp_path / "blocker"
    blocker.write_text("a file")
    with pytest.raises(PrivriskError) as info:
        publish(request(ledger=ledger, out=blocker / "out"))
    assert info.value.param == "out"
    assert not ledger.exists()


def test_outputs_that_are_links_or_inputs_are_refused_before_the_noise(tmp_path, no_noise):
    ledger = tmp_path / "ledger.json"
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    data = tmp_path / "data.csv"
    data.write_text("hours\n8\n6\n")
    folder = tmp_path / "results"
    folder.mkdir()
    (folder / "release.json").symlink_to(tmp_path / "elsewhere.json")
    cases = [
        ({"out": tmp_path / "link"}, "out"),
        ({"out": folder}, "out"),
        ({"internal": ledger.with_suffix(".json.lock")}, "internal"),
        ({"data": data, "internal": data}, "internal"),
        ({"data": data, "out": tmp_path, "internal": tmp_path / "release.json"}, "internal"),
    ]
    for changes, param in cases:
        with pytest.raises(PrivriskError) as info:
            publish(request(ledger=ledger, **changes))
        assert info.value.param == param, (changes, str(info.value))
    assert not ledger.exists() and data.read_text() == "hours\n8\n6\n"
    assert not (tmp_path / "elsewhere.json").exists()


def test_an_interrupt_while_the_outputs_are_written_charges_nothing(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.json"
    publish(request(ledger=ledger))

    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(T, "write_outputs", interrupted)
    with pytest.raises(KeyboardInterrupt):
        publish(request(ledger=ledger, out=tmp_path / "out"))
    assert [e["seq"] for e in read_ledger(ledger)] == [1]
    assert not (tmp_path / "out").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_a_budget_refusal_draws_nothing(tmp_path, no_noise):
    ledger = tmp_path / "ledger.json"
    with pytest.raises(ThresholdExceeded) as info:
        publish(request(ledger=ledger, budget=Budget(epsilon=0.25), out=tmp_path / "out"))
    assert info.value.param == "budget"
    assert not ledger.exists() and not (tmp_path / "out").exists()


def test_a_release_from_a_file_writes_its_outputs_with_the_charge(tmp_path):
    data = tmp_path / "data.csv"
    data.write_text("hours\n8\n6\n30\n7\n")
    ledger = tmp_path / "ledger.json"
    r = publish(request(data=data, ledger=ledger, out=tmp_path / "out", internal=tmp_path / "internal.json"))
    assert r.ledger is not None and r.ledger["entry"]["data"] == str(data)
    assert {p.name for p in (tmp_path / "out").iterdir()} >= {
        "release.json",
        "statement.html",
        "manifest.json",
    }
    assert (tmp_path / "internal.json").stat().st_mode & 0o777 == 0o600
    assert [e["seq"] for e in read_ledger(ledger)] == [1]


def test_a_ledger_label_keeps_every_path_out_of_what_is_published(tmp_path):
    ledger = tmp_path / "session" / "ledger.json"
    r = publish(request(ledger=ledger, ledger_label="mine.json", out=tmp_path / "out"))
    text = json.dumps(r.to_dict()) + (tmp_path / "out" / "release.json").read_text()
    text += (tmp_path / "out" / "statement.html").read_text() + (
        tmp_path / "out" / "manifest.json"
    ).read_text()
    assert str(tmp_path) not in text and "/tmp" not in text
    assert r.ledger is not None and r.ledger["path"] == "mine.json"
    assert r.statement["cumulative"]["ledger"] == "mine.json"


# publish: a preview is published once ------------------------------------------------------------------------


def test_two_publishes_of_one_preview_charge_once(tmp_path):
    ledger = tmp_path / "ledger.json"
    r = request(ledger=ledger)
    p = preview(r)
    first = publish(r, preview_id=p.id)
    second = publish(request(ledger=ledger), preview_id=p.id)  # an equal request, as a page rebuilds it
    assert second is first
    entries = read_ledger(ledger)
    assert len(entries) == 1 and entries[0]["preview"] == p.id
    # Another preview of the same settings is another release.
    publish(r, preview_id=preview(r).id)
    assert len(read_ledger(ledger)) == 2


def test_concurrent_confirmations_of_one_preview_charge_once(tmp_path):
    ledger = tmp_path / "ledger.json"
    r = request(ledger=ledger)
    p = preview(r)
    results: list = []
    threads = [threading.Thread(target=lambda: results.append(publish(r, preview_id=p.id))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(results) == 4 and all(x is results[0] for x in results)
    assert len(read_ledger(ledger)) == 1


def test_a_ledger_that_records_the_preview_refuses_it_in_another_process(tmp_path, monkeypatch):
    ledger = tmp_path / "ledger.json"
    r = request(ledger=ledger)
    p = preview(r)
    publish(r, preview_id=p.id)
    monkeypatch.setattr(T, "_PUBLISHED", type(T._PUBLISHED)())  # another process: nothing remembered
    with pytest.raises(
        PrivriskError, match=r"^preview_id: this preview was published already as release 1"
    ) as info:
        publish(r, preview_id=p.id)
    assert info.value.param == "preview_id"
    assert len(read_ledger(ledger)) == 1


def test_a_preview_of_other_settings_is_refused(tmp_path, no_noise):
    p = preview(request(ledger=tmp_path / "ledger.json"))
    other = request(ledger=tmp_path / "ledger.json", queries=(ReleaseQuery("hours", "mean", 2, (0, 24)),))
    with pytest.raises(PrivriskError, match=r"^preview_id: the settings changed") as info:
        publish(other, preview_id=p.id)
    assert info.value.param == "preview_id"
    with pytest.raises(PrivriskError, match=r"^preview_id: give the id"):
        publish(other, preview_id="not an id")
    assert not (tmp_path / "ledger.json").exists()


def test_a_recorded_preview_id_is_covered_by_the_hash_chain(tmp_path):
    ledger = tmp_path / "ledger.json"
    r = request(ledger=ledger, key="a secret of 16 bytes")
    publish(r, preview_id=preview(r).id)
    doc = json.loads(ledger.read_text())
    doc["entries"][0]["preview"] = "0" * 64
    ledger.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError, match="checksum does not match"):
        read_ledger(ledger, key="a secret of 16 bytes")
