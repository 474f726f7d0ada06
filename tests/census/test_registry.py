"""The OpenDP deployments registry: every entry read and its risk stated, the conversions it quotes named, and a
receipt for every release of the one ledger that validates against the registry's schema."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
import yaml

from census_registry_table import rows
from helpers import one_line_error
from privrisk.accounting import pure_dp
from privrisk.accounting.registry import (
    classical_zcdp_epsilon,
    read_registry_entry,
    registry_guarantee,
    registry_risk,
    stated_conversions,
    tight_zcdp_epsilon,
)
from privrisk.errors import PrivriskError
from privrisk.io.json_schema import schema_errors
from privrisk.release.ledger import record_release
from privrisk.release.registry import RegistryExportSettings, export_registry, registry_schema, registry_slug

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "tests" / "data" / "registry"
ENTRIES = sorted((REGISTRY / "deployments").glob("*.yaml"))
SCHEMA = yaml.safe_load((REGISTRY / "schemas" / "deployments-schema.yaml").read_text(encoding="utf-8"))
# Entries that state no number a guarantee can be computed from (no parameters, or δ as a formula of n).
WITHOUT = {
    "employment_outcomes",
    "korean_statistics_datahub",
    "on_device_browser_rec",
    "private_third_party_audits",
    "safety_classifier",
    "synth_data_public_use",
    "uber",
}


def _load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def test_every_entry_is_read_and_valid():
    assert len(ENTRIES) == 41
    for path in ENTRIES:
        assert schema_errors(_load(path), SCHEMA) == [], path.name


def test_the_shipped_schema_is_the_registrys():
    assert registry_schema() == SCHEMA


@pytest.mark.parametrize(
    "path", [p for p in (REGISTRY / "bad_deployments").glob("*.yaml")], ids=lambda p: p.stem
)
def test_the_registrys_bad_examples_are_refused(path):
    errors = schema_errors(yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.Loader), SCHEMA)
    if path.stem.startswith("check_schema"):
        assert errors, path.stem
    else:
        assert errors == []  # a quoting rule of the registry's, not of its schema


@pytest.mark.parametrize("path", ENTRIES, ids=lambda p: p.stem)
def test_every_entry_has_a_risk_or_a_reason(path):
    entry = _load(path)
    row = registry_risk(entry)
    if path.stem in WITHOUT:
        assert row["guarantee"] is None and row["reason"]
        with pytest.raises(PrivriskError) as info:
            registry_guarantee(entry)
        assert info.value.param == "registry" and "\n" not in str(info.value)
        return
    g = registry_guarantee(entry)
    assert 0.5 < row["success"] <= 1.0 and 0.0 < row["advantage"] <= 1.0
    assert row["success"] == pytest.approx((1 + g.delta_at(0.0)) / 2)
    params = entry["deployment"]["privacy_loss"]["privacy_parameters"]
    if set(params) == {"epsilon"}:
        # A pure ε: the attacker's success is e^ε/(1 + e^ε) (Mehner et al., eq. (3)).
        eps = float(params["epsilon"])
        assert row["success"] == pytest.approx(1 / (1 + math.exp(-eps)), rel=1e-12)
        assert g.pure_epsilon == eps


def test_the_three_conversions_the_census_entries_quote():
    found = {}
    for name in ("census_redistricting_data", "census_demographic_and_housing"):
        for c in stated_conversions(_load(REGISTRY / "deployments" / f"{name}.yaml")):
            found[c.rho] = c
    person, housing, demographic = found[2.56], found[0.07], found[4.96]
    assert (person.epsilon, person.delta, round(person.tight, 3), person.matches) == (
        17.14,
        1e-10,
        17.158,
        "tight",
    )
    assert (demographic.epsilon, round(demographic.classical, 3), demographic.matches) == (
        26.34,
        26.334,
        "classical",
    )
    assert (housing.epsilon, housing.matches) == (2.47, "neither")
    assert round(housing.tight, 3) == 2.387 and round(housing.classical, 3) == 2.609


def test_the_two_conversions_by_hand():
    # Bun and Steinke (2016), Prop. 1.3, by hand: 4.96 + 2√(4.96 · ln 10¹⁰) = 4.96 + 2 · 10.6869 = 26.3337.
    assert classical_zcdp_epsilon(4.96, 1e-10) == pytest.approx(
        4.96 + 2 * math.sqrt(4.96 * 10 * math.log(10))
    )
    # Canonne, Kamath and Steinke (2020), Cor. 13: min over α of αρ + ln(1 − 1/α) − (ln δ + ln α)/(α − 1), here
    # on a fine grid of α written out.
    alphas = [1 + i / 1000 for i in range(1, 200_000)]
    grid = min(a * 2.56 + math.log(1 - 1 / a) - (math.log(1e-10) + math.log(a)) / (a - 1) for a in alphas)
    assert tight_zcdp_epsilon(2.56, 1e-10) == pytest.approx(grid, abs=1e-6)


def test_a_quoted_epsilon_below_any_conversion_is_named():
    (c,) = stated_conversions(_load(REGISTRY / "deployments" / "user_url_privacy.yaml"))
    assert c.matches == "neither" and c.understated and "understates" in c.sentence()


def test_the_docs_table_is_the_computed_one():
    page = (ROOT / "docs" / "guide" / "census.md").read_text(encoding="utf-8")
    for row in rows():
        assert row in page, row


def test_read_registry_entry(tmp_path):
    entry = read_registry_entry(REGISTRY / "deployments" / "census_redistricting_data.yaml")
    assert registry_guarantee(entry).epsilon_at(1e-10) == pytest.approx(17.4306, abs=1e-4)
    two = tmp_path / "two.yaml"
    two.write_text("a: 1\n---\nb: 2\n")
    with pytest.raises(PrivriskError, match="found 2 documents"):
        read_registry_entry(two)
    bad = tmp_path / "bad.yaml"
    bad.write_text("a: [1\n")
    with pytest.raises(PrivriskError, match="not a YAML registry entry"):
        read_registry_entry(bad)
    with pytest.raises(PrivriskError, match="no such file"):
        read_registry_entry(tmp_path / "none.yaml")


# ------------------------------------------------------------------------------------------------------ receipts
@pytest.fixture
def ledger(tmp_path):
    led = tmp_path / "ledger.json"
    record_release(led, queries=[{"column": "age", "query": "count", "epsilon": 0.5}], data="census.csv")
    record_release(
        led,
        queries=[{"column": "hours", "query": "mean", "epsilon": 0.25},
                 {"column": "income", "query": "sum", "mechanism": "gaussian", "rho": 0.125}],
        data="census.csv",
    )  # fmt: skip
    return led


def test_receipts_validate_and_state_what_was_spent(ledger):
    export = export_registry(RegistryExportSettings(ledger, curator="Statistik Nord", region="Hamburg"))
    first, second = export.receipts
    for receipt in export.receipts:
        assert schema_errors(receipt, SCHEMA) == []
        assert receipt["url_slug"] == registry_slug(receipt["deployment"]["basic"])
    # Read back as any registry entry: the pure ε of the first, the ρ of the second (ε²/2 for its Laplace answer).
    assert registry_guarantee(first).pure_epsilon == 0.5
    assert registry_guarantee(second).rho == pytest.approx(0.125 + 0.25**2 / 2)
    risk = first["deployment"]["privacy_loss"]["privacy_parameters_details"]["privrisk"]
    assert risk["format"] == "privrisk-risk/1" and risk["ledger"]["seq"] == 1
    # The Laplace answer of ε = 0.5: success 1 − e^(−ε/2)/2 (the Laplace mechanism's exact profile at 0).
    assert risk["success"] == pytest.approx(1 - math.exp(-0.25) / 2, abs=1e-9)
    assert risk["worst_case"]["success"] == pytest.approx(1 / (1 + math.exp(-0.5)), abs=1e-9)
    together = second["deployment"]["privacy_loss"]["privacy_parameters_details"]["privrisk"][
        "ledger_to_date"
    ]
    assert together["releases"] == 2 and together["advantage"] > risk["advantage"]
    assert first["deployment"]["basic"]["data_curators"] == ["Statistik Nord"]


def test_receipts_against_jsonschema(ledger):
    jsonschema = pytest.importorskip("jsonschema")
    validator = jsonschema.Draft7Validator(SCHEMA, format_checker=jsonschema.Draft7Validator.FORMAT_CHECKER)
    for receipt in export_registry(RegistryExportSettings(ledger)).receipts:
        assert list(validator.iter_errors(receipt)) == []
    for path in ENTRIES:
        assert list(validator.iter_errors(_load(path))) == []


def test_written_receipts_are_yaml_of_the_schema(ledger, tmp_path):
    folder = tmp_path / "receipts"
    written = export_registry(RegistryExportSettings(ledger)).write(folder)
    assert [p.name for p in written] == ["release_1.yaml", "release_2.yaml"]
    for path in written:
        assert schema_errors(_load(path), SCHEMA) == []
        assert registry_guarantee(read_registry_entry(path)) is not None


def test_export_refuses(tmp_path):
    with pytest.raises(PrivriskError, match="no such ledger"):
        export_registry(RegistryExportSettings(tmp_path / "none.json"))
    empty = tmp_path / "empty.json"
    from privrisk.ledger import open_ledger

    with open_ledger(empty) as led:
        led.append(
            "outputs",
            {"outputs": [{"spec": {"name": "T", "kind": "count"}, "cells": [{"labels": {}, "value": 1}]}]},
        )
    with pytest.raises(PrivriskError, match="records no release"):
        export_registry(RegistryExportSettings(empty))
    with pytest.raises(PrivriskError) as info:
        RegistryExportSettings(empty, curator=" ")
    assert info.value.param == "curator"


# ---------------------------------------------------------------------------------------------------- command line
def test_ledger_export_on_the_command_line(cli, ledger, tmp_path):
    r = cli("ledger", ledger, "--export", "registry")
    assert r.code == 0
    docs = list(yaml.safe_load_all(r.out))
    assert len(docs) == 2 and all(schema_errors(d, SCHEMA) == [] for d in docs)
    out = tmp_path / "receipts"
    r = cli("ledger", ledger, "--export", "registry", "--out", out, "--curator", "ONS")
    assert r.code == 0 and "Wrote 2 receipts" in r.err
    assert _load(out / "release_2.yaml")["deployment"]["basic"]["data_curators"] == ["ONS"]
    doc = cli("ledger", ledger, "--export", "registry", "--json").json
    assert len(doc["receipts"]) == 2


def test_ledger_export_bad_options(cli, ledger, tmp_path):
    one_line_error(cli("ledger", ledger, "--export", "csv"), "--export", "registry")
    one_line_error(cli("ledger", ledger, "--curator", "x"), "--curator", "export of receipts")
    one_line_error(cli("ledger", ledger, "--export", "registry", "--budget", "1"), "--budget")
    one_line_error(cli("ledger", tmp_path / "none.json", "--export", "registry"), "no such ledger")


def test_a_receipt_states_the_same_risk_as_the_ledger(ledger):
    """The receipt's composed risk is the ledger's own tight composition of the same answers."""
    from privrisk.release.composition import composition_statement

    receipt = export_registry(RegistryExportSettings(ledger)).receipts[0]
    risk = receipt["deployment"]["privacy_loss"]["privacy_parameters_details"]["privrisk"]
    assert risk["success"] == pytest.approx(composition_statement([{"epsilon": 0.5}])["success"])
    assert pure_dp(0.5).delta_at(0.0) >= risk["advantage"]
