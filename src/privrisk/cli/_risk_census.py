"""``privrisk risk``'s options for a statistical office's method, and how their results are printed.

``--cell-key TABLE`` (ONS's CSV, sdcTools' ptable export or a TOML; with ``--cells N``), ``--pram MATRIX`` (a CSV
of one transition matrix or a TOML of one per variable), ``--rounding B|random:B|deterministic:B`` and
``--registry ENTRY.yaml`` map onto :class:`~privrisk.accounting.GuaranteeSpec`'s fields of the same names; the
library reads the files, checks them and computes (docs/guide/census.md). ``--lang de`` gives the words of a
perturbation table in German.
"""

from __future__ import annotations

from typing import Any

import typer
from rich.table import Table

from privrisk.cli._common import out

CELL_KEY = typer.Option(None, "--cell-key", help="A cell-key perturbation table: ONS's CSV, sdcTools' ptable export or a TOML of probabilities by count and noise.")  # fmt: skip
CELLS = typer.Option(None, "--cells", help="With --cell-key: the published cells (each with its own key) that hold one person (default 1).")  # fmt: skip
REGISTRY = typer.Option(None, "--registry", help="An entry of the OpenDP deployments registry (YAML): the guarantee it states.")  # fmt: skip
PRAM = typer.Option(None, "--pram", help="PRAM's transition matrix: a CSV of one K × K matrix (sdcMicro's) or a TOML of one per variable.")  # fmt: skip
ROUNDING = typer.Option(None, "--rounding", help="Rounding: B (to the nearest multiple of B: no guarantee), deterministic:B, or random:B (unbiased random rounding).")  # fmt: skip
LANG = typer.Option(
    "en", "--lang", help="Language of the words for a census user (with --cell-key): en or de."
)


def print_census(doc: dict[str, Any], paragraph: str | None) -> None:
    """The method's own numbers (``doc["census"]``) and its words, after the risk tables."""
    facts = doc.get("census")
    if not facts:
        return
    method = facts["method"]
    if method == "cell_key":
        table = Table(title=f"The perturbation table: {facts['table']}", show_header=True)
        table.add_column("number", justify="left")
        table.add_column("value", justify="right")
        table.add_row("largest change to a count", f"±{facts['max_noise']}")
        table.add_row("counts published as they are (at least)", f"{facts['unchanged']:.1%}")
        table.add_row("zero-cell disclosure P(published > 0 | c = 1)", f"{facts['zero_cell_disclosure']:.4g}")
        table.add_row("count without the person where the attacker does best", str(facts["worst_count"]))
        table.add_row("cells that hold one person (composed)", str(facts["cells"]))
        out.print(table)
    elif method == "pram":
        table = Table(title="PRAM: each variable as randomised response", show_header=True)
        for name in ("variable", "categories", "ε (exact)"):
            table.add_column(name, justify="left" if name == "variable" else "right")
        for v in facts["variables"]:
            eps = "∞" if v["epsilon"] is None else f"{v['epsilon']:.4g}"
            table.add_row(v["name"] or "(one matrix)", str(v["categories"]), eps)
        out.print(table)
    elif method == "registry":
        for c in facts["conversions"]:
            out.print(
                f"Quoted: ρ = {c['rho']:g} → ε = {c['epsilon']:g} at δ = {c['delta']:g}; tight {c['tight']:.3f}, "
                f"classical {c['classical']:.3f}: {c['matches']}{' (understates ρ)' if c['understated'] else ''}."
            )
    if paragraph:
        out.print(paragraph)
