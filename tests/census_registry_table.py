"""The table of every registry entry's risk that docs/guide/census.md shows (``python tests/census_registry_table.py``
prints it; tests/census/test_registry.py checks that the page holds it row for row)."""

from __future__ import annotations

from pathlib import Path

import yaml

from privrisk._format import percent_3g
from privrisk.accounting.registry import registry_risk

ENTRIES = Path(__file__).resolve().parent / "data" / "registry" / "deployments"
HEADER = (
    "| entry | variant | privacy unit | stated | ε at δ = 10⁻¹⁰ (or the entry's δ) | attacker's success | "
    "TPR at FPR 0.1 % |\n|---|---|---|---|---|---|---|"
)


def _cell(text: object) -> str:
    return str(text or "—").replace("|", "\\|").replace("\n", " ").strip()


def rows() -> list[str]:
    out = []
    for path in sorted(ENTRIES.glob("*.yaml")):
        r = registry_risk(yaml.safe_load(path.read_text(encoding="utf-8")))
        if r["guarantee"] is None:
            numbers = ["—", "—", f"— ({r['reason']})"]
        else:
            eps = r["epsilon_at_delta"]
            at = "" if r["delta"] == 1e-10 else f" (δ = {r['delta']:g})"
            numbers = [
                "∞" if eps is None else f"{eps:.2f}{at}",
                percent_3g(r["success"]),
                percent_3g(r["tpr"]),
            ]
        variant = _cell(r["variant"]) + (f" ({r['note']})" if r["note"] else "")
        cells = [path.stem, variant, _cell(r["unit"]), _cell(r["stated"]), *numbers]
        out.append("| " + " | ".join(cells) + " |")
    return out


if __name__ == "__main__":
    print(HEADER)
    print("\n".join(rows()))
