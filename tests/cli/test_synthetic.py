"""``privrisk synthetic``: the attacks through the command line, its documents, its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import one_line_error
from privrisk.synthetic import generate
from synthetic_helpers import AUX, SECRETS, files


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("synthetic")
    train, control, fresh = files(n=600, seed=1)
    frames = {
        "train": train,
        "control": control,
        "copy": generate(train, "copy", seed=1),
        "fresh": fresh,
        "fewer": train.drop(columns="d"),
        "empty": control[:0],
        "overlap": control.assign(a=train["a"].to_numpy(), b=train["b"].to_numpy(), c=train["c"].to_numpy(),
                                  d=train["d"].to_numpy(), kind=train["kind"].to_numpy(),
                                  group=train["group"].to_numpy()),
    }  # fmt: skip
    out = {}
    for name, frame in frames.items():
        out[name] = folder / f"{name}.csv"
        frame.to_csv(out[name], index=False)
    return out


FAST = ("--queries", "150", "--membership-targets", "100", "--seed", "3", "--aux", AUX, "--secret", SECRETS)


def test_json_document(cli, paths) -> None:
    r = cli("synthetic", paths["train"], paths["copy"], "--control", paths["control"], *FAST, "--json",
            "--generator-guarantee", "epsilon=1")  # fmt: skip
    assert r.code == 0, r.err
    doc = json.loads(r.out)
    assert doc["schema_version"] == 1
    assert {a["attack"] for a in doc["attacks"]} >= {"singling_out_univariate", "linkability", "inference"}
    assert doc["riskiest"]["risk"] > 0.5
    assert doc["claim"] and all(c["violated"] for c in doc["claim"])
    assert doc["distances"]["warning"].startswith("Distances are not a measure of privacy")
    assert doc["data"]["seed"] == 3


def test_verdict_first_and_folder(cli, paths, tmp_path: Path) -> None:
    out = tmp_path / "report"
    r = cli("synthetic", paths["train"], paths["fresh"], "--control", paths["control"], *FAST, "--out", out)
    assert r.code == 0, r.err
    first = r.out.strip().splitlines()[0]
    assert first in ("no risk measured",) or "people" in first
    for name in (
        "attacks.csv",
        "membership.csv",
        "roc.csv",
        "membership.svg",
        "report.html",
        "manifest.json",
    ):
        assert (out / name).is_file(), name
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["kind"] == "synthetic" and manifest["findings"]
    assert "Disclosure risk of a synthetic file" in (out / "report.html").read_text()


def test_max_risk_exceeded_is_exit_1(cli, paths) -> None:
    r = cli("synthetic", paths["train"], paths["copy"], "--control", paths["control"], *FAST, "--max-risk", "0.05",
            "--no-membership", "--no-distances")  # fmt: skip
    assert r.code == 1
    assert "above the largest acceptable risk of 5 %" in r.err.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("synthetic", "control", "extra", "fragments"),
    [
        ("fewer", "control", (), ("synthetic:", "columns differ", "'d'")),
        ("copy", "empty", (), ("--control:", "no records")),
        ("copy", "overlap", (), ("--control:", "overlaps the training data")),
        ("copy", "control", ("--aux", "a,nope"), ("--aux:", "'nope'")),
        ("copy", "control", ("--secret", "a", "--aux", "a,b"), ("--secret:", "attacker's columns")),
        ("copy", "control", ("--generator-guarantee", "rho=x"), ("--generator-guarantee:",)),
        (
            "copy",
            "control",
            ("--generator-guarantee", "epsilon=1,rho=1"),
            ("--generator-guarantee:", "exactly one"),
        ),
        ("copy", "control", ("--generator", "gan"), ("--generator:", "unknown generator")),
        ("copy", "control", ("--threat-model", "everyone"), ("--threat-model:",)),
        ("copy", "control", ("--max-risk", "2"), ("--max-risk:",)),
        ("copy", "control", ("--queries", "0"), ("--queries:",)),
    ],
)
def test_bad_input_is_one_line_exit_2(cli, paths, synthetic, control, extra, fragments) -> None:
    r = cli(
        "synthetic", paths["train"], paths[synthetic], "--control", paths[control], "--queries", "20", *extra
    )
    one_line_error(r, *fragments)


def test_missing_file(cli, paths, tmp_path: Path) -> None:
    one_line_error(cli("synthetic", paths["train"], tmp_path / "nope.csv"), "synthetic:")


def test_help_defaults_are_the_librarys() -> None:
    from privrisk.cli import synthetic as command
    from privrisk.synthetic import run, singling_out, threat

    assert command.DEFAULT_QUERIES == run.DEFAULT_QUERIES
    assert command.DEFAULT_MEMBERSHIP_TARGETS == run.DEFAULT_MEMBERSHIP_TARGETS
    assert command.DEFAULT_QUERY_COLUMNS == singling_out.DEFAULT_QUERY_COLUMNS
    assert command.THREAT_MODELS == threat.THREAT_MODELS
