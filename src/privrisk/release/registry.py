"""A receipt for every release: the one ledger's releases as entries of the OpenDP deployments registry.

:func:`export_registry` writes each release the ledger records as one YAML document in the registry's schema
(``opendp/deployments-registry-data``, ``schemas/deployments-schema.yaml``), validated against it before
anything is written. What the ledger knows goes where the schema asks for it: the variant (pure DP for Laplace
answers; zero-concentrated DP once a Gaussian answer is among them, ρ = Σρ + Σε²/2), the parameters (the plain
sum of ε, or ρ), the privacy unit (one record, added or removed), the deployment model (central,
non-interactive, one or many releases), the composition and the mechanisms. What it does not know (the curator,
the region, the intended use) is said to be "not stated" unless the settings give it.

The risk goes into ``privacy_parameters_details``, the one field of the schema that takes any value (it has no
``type``, and every object of the schema forbids other properties): a mapping with ``summary`` (the risk in a
sentence) and ``privrisk`` (the numbers: the tight composition's ε at δ, the best attacker's advantage and
success, the largest posterior, TPR at FPR, the worst case with the same (ε, δ), the same for every release up
to this one, and where in the ledger the release is). The registry's site shows that field as text; a
registry that wants text only keeps ``summary``.

Example:
    >>> import tempfile, pathlib
    >>> from privrisk.release.ledger import record_release
    >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
    >>> _ = record_release(led, queries=[{"column": "age", "query": "count", "epsilon": 0.5}])
    >>> receipt = export_registry(RegistryExportSettings(led)).receipts[0]
    >>> receipt["deployment"]["privacy_loss"]["privacy_parameters"], receipt["status"]
    ({'epsilon': 0.5}, 'Draft')
"""

from __future__ import annotations

import functools
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk._format import percent
from privrisk._version import __version__
from privrisk.errors import PrivriskError
from privrisk.io.files import atomic_dir
from privrisk.io.json_schema import schema_errors
from privrisk.ledger import read_ledger_file
from privrisk.release.composition import DEFAULT_DELTA, composed_guarantee, plain_epsilon, plain_rho
from privrisk.release.ledger import release_entries

if TYPE_CHECKING:
    from privrisk.accounting import Guarantee

__all__ = [
    "RISK_FORMAT",
    "ReceiptFacts",
    "RegistryExport",
    "RegistryExportSettings",
    "export_registry",
    "guarantee_receipt",
    "receipt_parameters",
    "registry_schema",
    "registry_slug",
]

#: The name and version of the risk fields in ``privacy_parameters_details.privrisk``.
RISK_FORMAT = "privrisk-risk/1"
NOT_STATED = "Not stated"
_SCHEMA_FILE = "deployments-schema.yaml"


@functools.lru_cache(maxsize=1)
def registry_schema() -> dict[str, Any]:
    """The registry's schema (a copy of ``schemas/deployments-schema.yaml`` shipped with privrisk's assets)."""
    import yaml  # type: ignore[import-untyped]

    from privrisk.reports.html import asset_text

    return dict(yaml.safe_load(asset_text(_SCHEMA_FILE)))


@dataclass(frozen=True)
class RegistryExportSettings:
    """What to export: the ledger (and its key) and the facts of the registry a ledger does not hold.

    Attributes:
        ledger: the ledger's path.
        key: the secret of a keyed ledger, or None.
        curator: who published the releases (``data_curators``).
        region: the region the data describe (``data_product_region``).
        intended_use: what the releases are for.
        authors: who wrote the receipts (``registry_authors``; default "privrisk").
        delta: the δ at which ε of the tight composition is stated (default 10⁻⁶).
    """

    ledger: str | os.PathLike[str]
    key: bytes | str | None = None
    curator: str | None = None
    region: str | None = None
    intended_use: str | None = None
    authors: Sequence[str] = ()
    delta: float = DEFAULT_DELTA

    def __post_init__(self) -> None:
        if self.ledger is None or not str(self.ledger).strip():
            raise PrivriskError("ledger: give the path of the ledger to export", param="ledger")
        for name in ("curator", "region", "intended_use"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, str) or not value.strip()):
                raise PrivriskError(f"{name}: give some text, got {value!r}", param=name)
        if not (isinstance(self.delta, int | float) and 0 < float(self.delta) < 1):
            raise PrivriskError(f"delta: must be in (0, 1), got {self.delta!r}", param="delta")
        object.__setattr__(self, "authors", tuple(str(a) for a in self.authors))


@dataclass(frozen=True)
class RegistryExport:
    """The receipts of a ledger's releases, each a registry entry (a dict), valid against the schema.

    Attributes:
        settings: what was exported.
        receipts: one entry per release, in the ledger's order.
    """

    settings: RegistryExportSettings
    receipts: tuple[dict[str, Any], ...]

    def names(self) -> list[str]:
        """The file name of each receipt: ``release_<seq>.yaml`` (the registry's names: lowercase, digits, _)."""
        return [f"release_{r['deployment']['privacy_loss']['privacy_parameters_details']['privrisk']['ledger']['seq']}"
                ".yaml" for r in self.receipts]  # fmt: skip

    def yaml_text(self) -> str:
        """Every receipt as one YAML stream (documents separated by ``---``)."""
        import yaml

        return yaml.safe_dump_all(list(self.receipts), sort_keys=False, allow_unicode=True, width=100)

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write each receipt to ``folder/release_<seq>.yaml``, all or none (a temporary folder moved in place)."""
        import yaml

        target = Path(folder)
        with atomic_dir(target) as tmp:
            for name, receipt in zip(self.names(), self.receipts, strict=True):
                text = yaml.safe_dump(receipt, sort_keys=False, allow_unicode=True, width=100)
                (tmp / name).write_text(text, encoding="utf-8")
        return [target / name for name in self.names()]

    def to_dict(self) -> dict[str, Any]:
        """``{"ledger", "receipts"}``: the receipts as JSON."""
        return {"ledger": str(self.settings.ledger), "receipts": [dict(r) for r in self.receipts]}


def _risk_fields(g: Guarantee, delta: float) -> dict[str, Any]:
    from privrisk.accounting import risk_summary

    s = risk_summary(g, at_delta=delta)
    worst = s["worst_case"]
    return {
        "guarantee": s["guarantee"],
        "conversion": s["conversion"],
        "delta": delta,
        "epsilon_at_delta": s["epsilon_at_delta"],
        "advantage": s["advantage"],
        "success": s["success"],
        "posterior_max": s["posterior_max"],
        "tpr_at_fpr": s["tpr_at_fpr"],
        "worst_case": {k: worst[k] for k in ("guarantee", "advantage", "success", "tpr_at_fpr")},
    }


def _ledger_risk(records: Sequence[Mapping[str, Any]], delta: float) -> dict[str, Any]:
    gaussian = any(r.get("mechanism") == "gaussian" for r in records)
    return {
        **_risk_fields(composed_guarantee(records), delta),
        "plain_epsilon": plain_epsilon(records),
        "plain_rho": plain_rho(records, with_pure=True) if gaussian else None,
    }


def _summary(risk: Mapping[str, Any], what: str) -> str:
    eps = risk["epsilon_at_delta"]
    at = "no finite ε" if eps is None or not math.isfinite(eps) else f"ε = {eps:.4g}"
    tpr = risk["tpr_at_fpr"][0]
    return (f"{what}: {at} at δ = {risk['delta']:g}. An attacker who knows everyone else tells whether a person is "
            f"in the data right {percent(risk['success'])} of the time (guessing: 50.0%); at a false-positive rate of "
            f"{percent(tpr['fpr'], 2)} it finds {percent(tpr['tpr'], 2)} of the people who are.")  # fmt: skip


@dataclass(frozen=True)
class ReceiptFacts:
    """What a receipt says beside the guarantee: the registry's facts about the release.

    Attributes:
        name, description: the data product's name and description.
        date: its publication date, YYYY-MM-DD.
        curator, region, intended_use: as in :class:`RegistryExportSettings` ("not stated" when None).
        authors: who wrote the receipt (default "privrisk").
        privacy_unit, unit_details: whose data one neighbour changes, and how.
        release_type, release_details: "One release" or "Many releases", and what that means here.
        composition, mechanisms, notes: the accounting, the mechanisms and a note, in words.
    """

    name: str
    description: str
    date: str
    curator: str | None = None
    region: str | None = None
    intended_use: str | None = None
    authors: Sequence[str] = ()
    privacy_unit: str = "Record-level (one record added or removed)"
    unit_details: str = (
        "Adjacent datasets differ by one record, added or removed (unbounded neighbours); every answer's "
        "sensitivity is that of its query on the column clamped to the universe fixed before the data were seen."
    )
    release_type: str = "One release"
    release_details: str = ""
    composition: str = ""
    mechanisms: str = ""
    notes: str = ""


def receipt_parameters(g: Guarantee, delta: float = DEFAULT_DELTA) -> tuple[str, dict[str, float]]:
    """The registry's variant and privacy parameters of a guarantee: pure ε; ρ of zCDP; otherwise (ε(δ), δ) at
    δ, or at the least δ any ε reaches when that is larger (a cell-key table that never perturbs zeros is (0,
    0.63)-DP: its disclosure is all δ).

    Example:
        >>> from privrisk.accounting import gaussian_guarantee, pure_dp
        >>> receipt_parameters(pure_dp(1.0)), receipt_parameters(gaussian_guarantee(sigma=1.0))[0]
        (('Pure DP', {'epsilon': 1.0}), 'Approximate DP')
    """
    pure = g.pure_epsilon
    if pure is not None:
        return "Pure DP", {"epsilon": float(pure)}
    rho = getattr(g, "rho", None)
    if isinstance(rho, int | float) and not isinstance(rho, bool):
        return "Zero-concentrated DP", {"rho": float(rho)}
    d = max(float(delta), g._delta_floor())
    eps = g.epsilon_at(d)
    while not math.isfinite(eps) and d < 1.0:  # a floor no finite ε quite reaches: a hair above it
        d = min(1.0, d * (1 + 1e-9) + 1e-15)
        eps = g.epsilon_at(d)
    return "Approximate DP", {"epsilon": float(eps), "delta": float(d)}


def guarantee_receipt(
    g: Guarantee,
    facts: ReceiptFacts,
    *,
    delta: float = DEFAULT_DELTA,
    parameters: tuple[str, dict[str, float]] | None = None,
    extra: Mapping[str, Any] | None = None,
    summary: str | None = None,
) -> dict[str, Any]:
    """A registry entry (a receipt) for any guarantee, validated against the registry's schema.

    Args:
        g: the guarantee released.
        facts: the registry's facts about the release.
        delta: the δ at which ε is stated.
        parameters: the variant and parameters to state (default :func:`receipt_parameters`).
        extra: more fields for ``privacy_parameters_details.privrisk``.
        summary: the risk in words (default: one sentence from the risk).

    Raises:
        PrivriskError: (param ``facts``) when the receipt breaks the schema, naming the field.
    """
    variant, params = parameters or receipt_parameters(g, delta)
    # ε is stated at the δ the parameters give when that is larger (a guarantee whose disclosure is all δ).
    risk = {
        "format": RISK_FORMAT,
        **_risk_fields(g, max(delta, params.get("delta", 0.0))),
        **dict(extra or {}),
    }
    basic = {
        "name": facts.name,
        "data_curators": [facts.curator or NOT_STATED],
        "intended_use": facts.intended_use or NOT_STATED,
        "data_product_type": "Summary statistics",
        "data_product_region": facts.region or NOT_STATED,
        "description": facts.description,
        "publication_date": facts.date,
    }
    model: dict[str, Any] = {"model_name": "Central", "release_type": facts.release_type}
    if facts.release_details:
        model["release_type_details"] = facts.release_details
    model.update({"data_source_type": "Static", "access_type": "Non-interactive"})
    deployment: dict[str, Any] = {
        "basic": basic,
        "dp_variant": {"variant_name": variant},
        "privacy_loss": {
            "privacy_unit": facts.privacy_unit,
            "privacy_unit_details": facts.unit_details,
            "privacy_parameters": params,
            "privacy_parameters_details": {
                "summary": summary or _summary(risk, facts.name),
                "privrisk": risk,
            },
        },
        "deployment_model": model,
    }
    if facts.composition:
        deployment["accounting"] = {"composition": facts.composition}
    deployment["implementation"] = {
        "mechanisms": "; ".join(x for x in (facts.mechanisms, f"stated by privrisk {__version__}") if x) + "."
    }
    administrative: dict[str, Any] = {"registry_authors": list(facts.authors) or ["privrisk"]}
    if facts.notes:
        administrative = {"notes": facts.notes, **administrative}
    deployment["administrative"] = administrative
    receipt = {"url_slug": registry_slug(basic), "status": "Draft", "tier": 2, "deployment": deployment}
    errors = schema_errors(receipt, registry_schema())
    if errors:
        raise PrivriskError(f"facts: the receipt breaks the registry's schema: {errors[0]}", param="facts")
    return receipt


def _receipt(entry: Mapping[str, Any], earlier: list[dict[str, Any]], count: int, s: RegistryExportSettings,
             ledger: Path) -> dict[str, Any]:  # fmt: skip
    records = [dict(q) for q in entry["queries"]]
    seq = int(entry["seq"])
    risk = _ledger_risk(records, s.delta)
    to_date = _ledger_risk(earlier + records, s.delta) if earlier else None
    summary = _summary(risk, f"Release {seq}, composed tightly")
    if to_date is not None:
        summary += " " + _summary(to_date, f"Releases 1 to {seq} together, composed tightly")
    if any(r.get("mechanism") == "gaussian" for r in records):
        parameters = ("Zero-concentrated DP", {"rho": float(plain_rho(records, with_pure=True))})
        composition = "ρ adds up (Bun and Steinke 2016, Lemma 2.3); a Laplace answer of ε counts ε²/2"
    else:
        parameters = ("Pure DP", {"epsilon": float(entry["epsilon"])})
        composition = "ε adds up (sequential composition)"
    mechanisms = sorted({"Gaussian noise (OpenDP's sampler)" if r.get("mechanism") == "gaussian"
                         else "Laplace noise (OpenDP's floating-point-safe sampler)" for r in records})  # fmt: skip
    facts = ReceiptFacts(
        name=f"Release {seq} of {entry.get('data') or ledger.name}",
        description="Noisy answers: " + ", ".join(f"{q['query']}({q['column']})" for q in records) + ".",
        date=str(entry["time"])[:10],
        curator=s.curator,
        region=s.region,
        intended_use=s.intended_use,
        authors=s.authors,
        release_type="Many releases" if count > 1 else "One release",
        release_details=f"Release {seq} of the {count} that the ledger {ledger.name} records; every later release "
        "is charged against the same ledger.",
        composition=f"Within the release, {composition}; privrisk also composes every answer tightly (its privacy "
        "loss distribution) and states the risk of that.",
        mechanisms="; ".join(mechanisms),
        notes=f"Receipt written by privrisk {__version__} from the ledger {ledger.name}, release {seq} (entry hash "
        f"{str(entry.get('hash'))[:16]}…).",
    )
    extra = {
        "plain_epsilon": risk["plain_epsilon"],
        "plain_rho": risk["plain_rho"],
        "ledger_to_date": None if to_date is None else {"releases": seq, **to_date},
        "ledger": {"path": str(ledger), "seq": seq, "time": entry["time"], "hash": entry.get("hash")},
    }
    return guarantee_receipt(composed_guarantee(records), facts, delta=s.delta, parameters=parameters, extra=extra,
                             summary=summary)  # fmt: skip


def registry_slug(basic: Mapping[str, Any]) -> str:
    """The registry's ``url_slug``: name, curators and year, as its ``scripts/update_slug.py`` makes it.

    Example:
        >>> registry_slug({"name": "Release 1 of census.csv", "data_curators": ["Statistik Nord"],
        ...                "publication_date": "2026-01-01"})
        'release-1-of-census-csv-statistik-nord-2026'
    """

    def clean(text: str) -> str:
        return re.sub(r"\W+", "_", text.lower())

    parts = [
        clean(basic["name"]),
        clean("-".join(basic["data_curators"])),
        clean(basic["publication_date"][:4]),
    ]
    return "_".join(parts).replace("_", "-")


def export_registry(settings: RegistryExportSettings) -> RegistryExport:
    """Every release of the ledger as a registry entry, each validated against the registry's schema.

    Raises:
        PrivriskError: for a missing or corrupt ledger (``ledger``), a ledger without releases, or a receipt the
            schema refuses (a bug: the message names the field).
    """
    if not isinstance(settings, RegistryExportSettings):
        raise PrivriskError("settings: expected a RegistryExportSettings", param="settings")
    path = Path(settings.ledger)
    if not os.path.lexists(path):
        raise PrivriskError(f"ledger: {path}: no such ledger", param="ledger")
    entries = release_entries(path, read_ledger_file(path, settings.key))
    if not entries:
        raise PrivriskError(f"ledger: {path} records no release to export", param="ledger")
    receipts: list[dict[str, Any]] = []
    earlier: list[dict[str, Any]] = []
    for entry in entries:
        receipts.append(_receipt(entry, earlier, len(entries), settings, path))
        earlier += [dict(q) for q in entry["queries"]]
    return RegistryExport(settings, tuple(receipts))
