"""The Risk page's panel for a statistical office's method: a perturbation table, PRAM's matrices, a registry
entry (uploaded) or rounding, as ``privrisk risk --cell-key/--pram/--registry/--rounding`` gives them.

The panel maps its inputs onto :class:`~privrisk.accounting.GuaranteeSpec`'s census fields and
:class:`~privrisk.accounting.risk_report.RiskSettings`, calls :func:`~privrisk.accounting.risk_report.run_risk`
(the library reads and checks the upload) and shows the numbers of ``privrisk risk --json`` with the words of
:func:`privrisk.reports.census_words.census_paragraph` (docs/guide/census.md).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from shiny import reactive, render, ui

from privrisk._format import number as number_text
from privrisk.accounting.risk_report import RiskSettings, run_risk
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.app._shared import command_line, error_ui
from privrisk.app.pages._runs import checked_upload, named_error
from privrisk.errors import PrivriskError

__all__ = ["census_panel", "census_risk", "serve_census"]

# The numbers shown, as privrisk risk --json names them.
_ROWS = (
    ("advantage", "membership advantage (TPR − FPR, best attacker)"),
    ("success", "membership success (prior ½)"),
    ("epsilon_at_delta", "ε at δ = 10⁻⁶"),
)


def census_risk(
    method: str,
    upload: tuple[Path, str] | None,
    *,
    cells: Any = None,
    rounding: Any = None,
    lang: str = "en",
) -> dict[str, Any]:
    """``privrisk risk --json`` for a method and the server's copy of its file (with the user's file name), and
    ``words``: the method in words for a census user.

    Example:
        >>> doc = census_risk("rounding", None, rounding="random:3")
        >>> round(doc["success"], 4), doc["census"]["base"]
        (0.6667, 3)
    """
    from privrisk.reports.census_words import census_paragraph

    fields: dict[str, Any] = {"rounding": rounding or None} if method == "rounding" else {}
    if method != "rounding":
        fields[method] = None if upload is None else upload[0]
    if method == "cell_key":
        fields["cells"] = cells or None
    run = run_risk(RiskSettings(GuaranteeSpec(**fields), lang=lang, at_delta=1e-6))
    doc = run.to_dict()
    doc["words"] = census_paragraph(run) or ""
    if upload is not None:  # the user's file name, not the server's copy
        server, name = upload[0], upload[1]
        doc["file_name"] = name
        for key in ("guarantee",):
            doc[key] = str(doc[key]).replace(str(server), name).replace(server.name, name)
        if "table" in doc["census"]:
            doc["census"]["table"] = str(doc["census"]["table"]).replace(server.name, name)
    return doc


def census_panel() -> Any:
    """The accordion panel of the page's "Other guarantees"."""
    return ui.accordion_panel(
        "Other guarantees: a statistical office's method (cell key, PRAM, rounding, a registry entry)",
        ui.p(
            "Censuses are published with perturbation tables, PRAM and rounding: upload the table, the matrices or "
            "a registry entry and see what protection it gives, exactly (docs/guide/census.md).",
            class_="privrisk-help",
        ),
        ui.layout_columns(
            ui.input_select(
                "census_method",
                "Method",
                {
                    "cell_key": "Cell-key perturbation table (ONS CSV, ptable CSV or TOML)",
                    "pram": "PRAM transition matrices (CSV or TOML)",
                    "registry": "Deployments registry entry (YAML)",
                    "rounding": "Rounding (no file)",
                },
            ),
            ui.input_file("census_file", "Table, matrices or registry entry"),
            ui.input_text("census_cells", "Cells per person (cell key)", placeholder="1"),
            ui.input_text("census_rounding", "Rounding: B or random:B", placeholder="random:3"),
            ui.input_select("census_lang", "Language of the words", {"en": "English", "de": "Deutsch"}),
            col_widths=(4, 4, 4, 6, 6),
            fill=False,
        ),
        ui.input_action_button("census_run", "Compute the risk", class_="btn-primary btn-sm mb-2"),
        ui.output_ui("census_result"),
        value="census",
    )


def serve_census(input: Any, *, max_upload: int) -> None:
    """The panel's reactive logic: the risk is computed when "Compute the risk" is pressed."""
    shown: reactive.Value[dict[str, Any] | str | None] = reactive.value(None)

    @reactive.effect
    @reactive.event(input.census_run)
    def _compute() -> None:
        method = input.census_method()
        upload = None
        try:
            if method != "rounding":
                upload = checked_upload(input.census_file(), max_bytes=max_upload, param=method)
            doc = census_risk(
                method,
                upload,
                cells=input.census_cells().strip(),
                rounding=input.census_rounding().strip(),
                lang=input.census_lang(),
            )
        except PrivriskError as exc:
            message = named_error(exc, "risk", [upload] if upload else [])
            if upload is not None:  # the reader names the file by its name: the server's copy's
                message = message.replace(f" {upload[0].name}:", f" {upload[1]}:")
            shown.set(message)
            return
        shown.set(doc)

    @render.ui
    def census_result() -> Any:
        doc = shown.get()
        if doc is None:
            return None
        if isinstance(doc, str):
            return ui.div(error_ui(doc), id="risk-census-error")
        rows = [
            ui.tags.tr(
                ui.tags.td(label),
                ui.tags.td(
                    "—" if doc.get(key) is None else f"{doc[key]:.4f}",
                    id=f"risk-census-{key}",
                    class_="text-end font-monospace",
                ),
            )
            for key, label in _ROWS
        ]
        facts = doc["census"]
        if facts["method"] == "cell_key":
            rows.append(ui.tags.tr(ui.tags.td("zero-cell disclosure P(published > 0 | c = 1)"),
                                   ui.tags.td(number_text(facts["zero_cell_disclosure"]),
                                              id="risk-census-zero", class_="text-end font-monospace")))  # fmt: skip
        method = facts["method"]
        given = input.census_rounding().strip() if method == "rounding" else doc.get("file_name", "FILE")
        cmd = command_line(
            "risk",
            **{method: given},
            cells=(input.census_cells().strip() or None) if method == "cell_key" else None,
            lang=None if input.census_lang() == "en" else input.census_lang(),
        )
        return ui.TagList(
            ui.p(doc["guarantee"], class_="fw-semibold", id="risk-census-guarantee"),
            ui.tags.table(ui.tags.tbody(*rows), class_="table table-sm privrisk-risk-table"),
            ui.p(doc["words"], id="risk-census-words"),
            ui.div(cmd, class_="privrisk-command", id="risk-census-command-line"),
        )
