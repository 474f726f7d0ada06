"""The app's page "Audit": what an intruder holding every record but one learns from one answer with noise scaled to
a data-dependent sensitivity (Sarathy and Muralidhar 2009), as ``privrisk audit`` computes it.

The page reads the column with :func:`privrisk.io.data.read_column` from the upload (the server's own copy), runs
:func:`privrisk.audit.audit_data_dependent` (and :func:`privrisk.audit.audit_sweep` for their Table 3) and writes
the command's folder with :func:`privrisk.audit.report.write_outputs`: the provider's table, the intruder's ratio
for every possible missing record, the sentences and the analogues of their Figures 1a/1b and 2a/2b. The built-in
example is the 30 insurance claims of examples/claims.csv (one of them an outlier of 100).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from shiny import module, reactive, render, ui

from privrisk.app._examples import example_frame
from privrisk.app._shared import command_line, error_ui, preset_inputs, query_params, upload_columns
from privrisk.app.pages._runs import (
    Runner,
    checked_upload,
    figures_ui,
    findings_ui,
    frame_ui,
    main_panel,
    named_error,
    session_folder,
    zip_bytes,
)
from privrisk.errors import PrivriskError

ID = "audit"
TITLE = "Audit"

__all__ = ["EXAMPLE_NAME", "ID", "TITLE", "AuditInputs", "page_server", "page_ui", "run_audit"]

QUERY_CHOICES = ("count", "sum", "mean", "median", "min", "max", "variance", "std")
EXAMPLE_NAME = "examples/claims.csv"  # the built-in example is that file (privrisk.app._examples)
_INTRO = (
    "A provider who scales Laplace noise to the data at hand, b_n = Δf_n(X)/ε, leaks: an intruder who holds every "
    "record but one computes the scale the provider would have used without the missing record, and one answer "
    "then tells them whether the missing record is an outlier and how large it is at least. Records whose ratio "
    "p1/p3 breaks e^ε are marked ✗. Run this audit on your own data and query before you release anything."
)


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left, the provider's and the intruder's view on the right."""
    more = ui.accordion(
        ui.accordion_panel(
            "More options",
            ui.input_text("response", "or the answer r itself (instead of u)", value=""),
            ui.input_select("event", "Event", {"tail": "tail: P(answer ≥ r)", "density": "density at r"}),
            ui.input_text("alpha", "α (1 − confidence of the bound on the missing record)", value="0.0001"),
            ui.input_text("seed", "Seed for the draw of u when u is empty", value=""),
            ui.input_text("sweep_record", "Sweep: record number (from 1)", value=""),
            ui.input_text("sweep_values", "Sweep: its values, e.g. 14,15,16", value=""),
            ui.input_text("missing", "Missing codes to drop: negative, or a list such as -1,-3", value=""),
            ui.input_numeric("top", "Riskiest records listed in --json", value=20, min=0),
        ),
        open=False,
    )
    return ui.layout_sidebar(
        ui.sidebar(
            ui.input_radio_buttons(
                "source",
                "Data",
                {"example": "the example: 30 insurance claims", "file": "a file I upload"},
                selected="example",
            ),
            ui.panel_conditional(
                "input.source === 'file'",
                ui.input_file(
                    "file",
                    "CSV, Parquet, Stata (.dta) or SPSS (.sav) file",
                    accept=[".csv", ".parquet", ".dta", ".sav", ".tsv", ".txt"],
                ),
                ui.output_ui("file_error"),
            ),
            ui.input_selectize(
                "column", "The numeric column the query runs on", choices=["claims"], selected="claims"
            ),
            ui.input_select("query", "Query", {q: q for q in QUERY_CHOICES}, selected="mean"),
            ui.input_text("epsilon", "ε of the data-dependent noise (e.g. 2, ln3)", value="2"),
            ui.input_text(
                "u", "The uniform draw u behind the answer (Sarathy and Muralidhar: 0.75)", value="0.75"
            ),
            ui.input_text(
                "universe",
                "Bounds LO,HI: also audit noise calibrated to the global sensitivity",
                value="0,100",
            ),
            more,
            ui.input_action_button("run", "Audit", class_="btn-primary mt-2"),
            width=380,
        ),
        *main_panel("The intruder's audit of data-dependent noise", _INTRO),
    )


class AuditInputs:
    """The page's inputs, checked as ``privrisk audit`` checks its options (messages name the options)."""

    def __init__(self, values: dict[str, Any]) -> None:
        from privrisk._validation import check_whole, parse_bounds, parse_epsilon, parse_numbers
        from privrisk.audit.intruder import check_alpha, check_event

        def text(name: str) -> str:
            return str(values.get(name) or "").strip()

        self.column = text("column")
        if not self.column:
            raise PrivriskError("column: choose the numeric column the query runs on", param="column")
        self.query = text("query") or "mean"
        self.epsilon = parse_epsilon(text("epsilon"), name="epsilon")
        self.u = _number(text("u"), "u")
        self.response = _number(text("response"), "response")
        self.seed = _whole(text("seed"), "seed")
        if self.seed is not None and self.seed < 0:
            raise PrivriskError(f"seed: must be a whole number of at least 0, got {self.seed}", param="seed")
        if self.u is not None and self.response is not None:
            raise PrivriskError(
                "u: give either u (the uniform draw) or response (the answer), not both", param="u"
            )
        self.event = check_event(text("event") or "tail")
        self.alpha = _number(text("alpha"), "alpha") or 1e-4
        check_alpha(self.alpha)
        self.sweep_record = _whole(text("sweep_record"), "sweep_record")
        self.sweep_text = text("sweep_values")
        if (self.sweep_record is None) != (not self.sweep_text):
            raise PrivriskError(
                "sweep_record: give the record N together with sweep_values V1,V2,…",
                param="sweep_record",
            )
        self.sweep_values = parse_numbers(self.sweep_text, name="sweep_values") if self.sweep_text else None
        self.universe_text = text("universe")
        self.bounds = parse_bounds(self.universe_text, name="universe") if self.universe_text else None
        self.missing = text("missing") or None
        top = values.get("top")
        self.top = check_whole(20 if top is None else int(top), name="--top")


def _number(text: str, name: str) -> float | None:
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a number", param=name) from None


def _whole(text: str, name: str) -> int | None:
    if not text:
        return None
    try:
        return int(text)
    except ValueError:
        raise PrivriskError(f"{name}: {text!r} is not a whole number", param=name) from None


def run_audit(job: Any, inputs: AuditInputs, path: Path, name: str, folder: Path) -> dict[str, Any]:
    """Read the column, audit, sweep and write the command's folder: what ``privrisk audit --out`` does."""
    from privrisk.audit.intruder import audit_data_dependent, audit_sweep
    from privrisk.audit.report import audit_document, write_outputs
    from privrisk.io.data import read_column
    from privrisk.sensitivity import Universe

    job.advance(0.0, "Reading the column")
    col = read_column(path, inputs.column, missing=inputs.missing)
    values = col.values
    n = int(values.size)
    if n < 3:
        raise PrivriskError(
            f"{path}: column {inputs.column!r} has {n} value{'s' if n != 1 else ''}; the audit needs at least 3 "
            "(the intruder leaves one record out, and then one more)"
        )
    if inputs.bounds is not None:
        Universe.from_bounds(*inputs.bounds).check_sample(values, name=f"{path}: column {inputs.column!r}")
    job.advance(0.3, "Auditing every possible missing record")
    res = audit_data_dependent(
        values,
        inputs.query,
        inputs.epsilon,
        u=inputs.u,
        response=inputs.response,
        event=inputs.event,
        alpha=inputs.alpha,
        universe=inputs.bounds,
        seed=inputs.seed,
    )
    sweep = None
    if inputs.sweep_record is not None and inputs.sweep_values is not None:
        sweep = audit_sweep(
            values,
            inputs.query,
            inputs.epsilon,
            inputs.sweep_record,
            inputs.sweep_values,
            u=res.u,
            response=inputs.response,
            event=inputs.event,
        )
    job.advance(0.8, "Writing the tables and the figures")
    write_outputs(res, folder, sweep=sweep, sweep_record=inputs.sweep_record, file=name, column=inputs.column)
    doc = audit_document(
        res,
        sweep=sweep,
        sweep_record=inputs.sweep_record,
        file=name,
        column=inputs.column,
        data=col.as_dict(),
        top=inputs.top,
    )
    return {"result": res, "sweep": sweep, "column": col, "document": doc}


def provider_frame(res: Any, column: str) -> Any:
    """The provider's numbers, as the command line's table shows them."""
    import pandas as pd

    label = "P[answer ≥ r]" if res.tail == "upper" else "P[answer ≤ r]"
    if res.event == "density":
        label = "density at r"
    rows = [
        ("f_n(X)", f"{res.f_n:.6g}"),
        (f"f_n−1(X*) (X* leaves out record {res.star})", f"{res.f_star:.6g}"),
        ("Δf_n(X)", f"{res.delta_n:.6g}"),
        ("b_n = Δf_n(X)/ε", f"{res.b_n:.6g}"),
        ("answer r" + (f" (u = {res.u:.4g})" if res.u is not None else ""), f"{res.response:.6g}"),
        (f"p1 = {label} with X", f"{res.p1:.4g}"),
        (f"p2 = {label} with X*, scale b_n", f"{res.p2:.4g}"),
        ("provider's ratio p1/p2", f"{res.p1 / res.p2:.4g}" if res.p2 > 0 else "∞"),
    ]
    return pd.DataFrame(rows, columns=["quantity", "value"])


def intruder_frame(res: Any) -> Any:
    """The intruder's ratio for each possible missing record (the 30 largest when there are more than 40)."""
    import pandas as pd

    from privrisk.audit.report import ratio_text

    rec = res.records
    show = rec
    if len(rec) > 40:
        order = rec["log10_ratio"].abs().sort_values(ascending=False).index
        show = rec.loc[order[:30]].sort_values("record")
    g = res.global_audit
    global_log10 = None if g is None else g.records["log_ratio"].to_numpy() / math.log(10)
    rows = []
    for r in show.to_dict(orient="records"):
        row = {
            "missing": str(r["record"]),
            "value": f"{r['value']:.6g}",
            "f(X₋ᵢ)": f"{r['f_without']:.6g}",
            "b_n−1": f"{r['b_without']:.4g}",
            "p3": f"{r['p3']:.4g}",
            "p1/p3": ratio_text(r["log10_ratio"]),
            "": "✗" if r["violates"] else "",
        }
        if global_log10 is not None:
            row["p1/p3, global Δf"] = ratio_text(float(global_log10[int(r["record"]) - 1]))
        rows.append(row)
    return pd.DataFrame(rows)


def sweep_frame(sweep: Any) -> Any:
    """Table 3 of Sarathy and Muralidhar for the page."""
    import pandas as pd

    from privrisk.audit.report import ratio_text

    rows = [
        {
            "value": f"{r['value']:.6g}",
            "answer r": f"{r['response']:.6g}",
            "p1/p3": ratio_text(r["log10_ratio"]),
            "": "✗" if r["violates"] else "",
        }
        for r in sweep.to_dict(orient="records")
    ]
    return pd.DataFrame(rows)


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    from privrisk.audit.report import exp_text, record_nouns

    folder = session_folder(session, ID)
    example = folder / "claims.csv"
    example_frame("claims").to_csv(example, index=False)
    runner = Runner("audit", "cancel", session, folder)
    params = query_params(session)
    kinds = {
        "source": "radio",
        "query": "select",
        "epsilon": "text",
        "u": "text",
        "universe": "text",
        "response": "text",
        "event": "select",
        "alpha": "text",
        "seed": "text",
        "sweep_record": "text",
        "sweep_values": "text",
        "missing": "text",
        "top": "numeric",
    }
    preset_inputs(session, kinds)
    wanted_column = params.get("column")
    file_message: reactive.Value[str | None] = reactive.value(None)
    file_columns: reactive.Value[list[str]] = reactive.value([])

    @reactive.effect
    @reactive.event(input.file)
    def _columns() -> None:
        file_message.set(None)
        try:
            found = upload_columns(input.file(), max_bytes=max_upload)
        except PrivriskError as exc:
            file_message.set(named_error(exc, "audit"))
            file_columns.set([])
            ui.update_selectize("column", choices=[], selected=[])
            return
        file_columns.set(found)
        chosen = wanted_column if wanted_column in found else found[-1]
        ui.update_selectize("column", choices=found, selected=chosen)

    @reactive.effect
    @reactive.event(input.source, ignore_init=True)
    def _source() -> None:
        if input.source() == "example":
            ui.update_selectize("column", choices=["claims"], selected="claims")
        else:
            found = file_columns()
            ui.update_selectize("column", choices=found, selected=found[-1:])

    @render.ui
    def file_error() -> Any:
        return error_ui(file_message())

    def _values() -> dict[str, Any]:
        names = (
            "column",
            "query",
            "epsilon",
            "u",
            "universe",
            "response",
            "event",
            "alpha",
            "seed",
            "sweep_record",
            "sweep_values",
            "missing",
            "top",
        )
        return {n: input[n]() for n in names}

    @reactive.effect
    @reactive.event(input.run)
    def _run() -> None:
        uploads: list[tuple[Path, str]] = []
        try:
            inputs = AuditInputs(_values())
            if input.source() == "example":
                path, name = example, EXAMPLE_NAME
            else:
                path, name = checked_upload(input.file(), max_bytes=max_upload)
            uploads = [(path, name)]
        except Exception as exc:
            runner.fail(exc, uploads)
            return
        runner.start(run_audit, inputs, path, name, folder / "out", uploads=uploads)

    runner.serve_status(input)

    @render.ui
    def results() -> Any:
        done = runner.result()
        if done is None:
            return ui.p("Press “Audit”: the example runs at once.", class_="privrisk-help")
        res, col, sweep = done["result"], done["column"], done["sweep"]
        column = done["document"].get("column", "")
        sentences = [res.sentence(*record_nouns(column))]
        parts: list[Any] = [
            ui.div(
                ui.download_button("download_records", "records.csv (every record)", class_="btn-sm me-2"),
                ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"),
                class_="mb-3",
            ),
            ui.h4("What the intruder learns"),
            findings_ui(sentences),
            ui.p(col.summary(), class_="privrisk-help"),
            frame_ui(
                provider_frame(res, column),
                id="audit-provider",
                caption=f"Provider: {res.query} of {column!r}, n = {res.n:,}, ε = {res.epsilon:.4g}",
            ),
            frame_ui(
                intruder_frame(res),
                id="audit-intruder",
                caption=f"Intruder: ratio p1/p3 for each missing record (e^ε = {exp_text(res.epsilon)})",
            ),
            ui.p(
                f"✗: p1/p3 or p3/p1 exceeds e^ε; {res.violations:,} of {res.n:,} possible missing records.",
                id="audit-violations",
            ),
            ui.p(res.quantile_sentence()),
            ui.p(res.test_sentence()),
        ]
        if glob := res.global_sentence():
            parts.append(ui.p(glob, id="audit-global"))
        if sweep is not None:
            parts.append(
                frame_ui(
                    sweep_frame(sweep),
                    id="audit-sweep",
                    caption=f"Ratio p1/p3 as record {done['document']['sweep']['record']}'s value varies "
                    "(Table 3 of Sarathy and Muralidhar 2009)",
                )
            )
        parts += [ui.h4("Figures"), figures_ui(folder / "out")]
        return ui.TagList(*parts)

    @render.download_button(filename="records.csv")
    def download_records() -> Any:
        yield (folder / "out" / "records.csv").read_bytes()

    @render.download_button(filename="audit.zip")
    def download_all() -> Any:
        yield zip_bytes(folder / "out")

    @render.ui
    def command() -> Any:
        v = _values()
        if input.source() == "example":
            name = EXAMPLE_NAME
        else:
            info = input.file()
            name = Path(str(info[0]["name"])).name if info else "FILE"
        options: dict[str, Any] = {
            "column": v["column"] or "COLUMN",
            "query": v["query"],
            "epsilon": v["epsilon"],
            "u": v["u"],
            "response": v["response"],
            "universe": v["universe"],
        }
        if v["event"] != "tail":
            options["event"] = v["event"]
        if str(v["alpha"]).strip() not in ("", "0.0001", "1e-4"):
            options["alpha"] = v["alpha"]
        options |= {
            "seed": v["seed"],
            "sweep_record": v["sweep_record"],
            "sweep_values": v["sweep_values"],
            "missing": v["missing"],
        }
        if v["top"] is not None and int(v["top"]) != 20:
            options["top"] = v["top"]
        options["out"] = "audit/"
        return ui.div(
            command_line("audit", file=name, **options), class_="privrisk-command", id="audit-command-line"
        )
