"""The app's page "Audit": what an intruder holding every record but one learns from one answer with noise scaled to
a data-dependent sensitivity (Sarathy and Muralidhar 2009), as ``privrisk audit`` computes it.

The page maps its inputs onto :class:`privrisk.audit.AuditSettings` (:func:`audit_settings`: every rule about
which inputs go together lives there, and an error is shown at the input it names), runs
:func:`privrisk.audit.run_audit` in a worker thread and writes the command's folder with
:meth:`~privrisk.audit.AuditRun.write`. The result leads with the verdict in plain words (one number, one
sentence); the provider's and the intruder's tables, the sentences with symbols and the analogues of their
Figures 1a/1b and 2a/2b are folded below it. The built-in example is the 30 insurance claims of
examples/claims.csv (one of them an outlier of 100).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import module, reactive, render, ui

from privrisk._format import number, plain
from privrisk.app._examples import example_frame
from privrisk.app._long_job import LongJob, data_inputs, upload_input, with_upload
from privrisk.app._shared import command_line, id_like, numeric_columns, preset_inputs, query_params
from privrisk.app.pages import _runs
from privrisk.app.pages._form import SettingsForm, field, text_field
from privrisk.app.pages._runs import verdict_ui as _verdict

if TYPE_CHECKING:
    from privrisk.audit.run import AuditRun, AuditSettings

ID = "audit"
TITLE = "Audit"

__all__ = [
    "EXAMPLE_NAME",
    "FIELDS",
    "ID",
    "TITLE",
    "audit_settings",
    "id_like",
    "numeric_columns",
    "page_server",
    "page_ui",
    "run_audit_job",
]

QUERY_CHOICES = ("count", "sum", "mean", "median", "min", "max", "variance", "std")
EXAMPLE_NAME = "examples/claims.csv"  # the built-in example is that file (privrisk.app._examples)
_INTRO = (
    "Some providers scale the noise they add to the data at hand. That leaks: someone who holds every record but "
    "one can tell from a single answer whether the missing record is unusual, and how large it is at least. Run "
    "this audit on your data and query before you release anything."
)
_HOW = (
    "The provider adds Laplace noise of scale b_n = Δf_n(X)/ε, where Δf_n(X) is the largest change one record of "
    "this data set makes. For every record that might be missing, the intruder computes the scale without it and "
    "compares the probabilities of the answer: p1 with all records, p3 without the missing one. Records whose "
    "ratio p1/p3 (or p3/p1) exceeds e^ε are marked ✗ (Sarathy and Muralidhar 2009, Tables 2 and 3)."
)


@module.ui
def page_ui() -> Any:
    """The page's layout: the command's options on the left; the verdict, then the folded detail, on the right."""
    more = _runs.more_options(
        text_field("response", "or the answer r itself (instead of u)"),
        field(ui.input_select("event", "Event", {"tail": "tail: P(answer ≥ r)", "density": "density at r"}),
              "event"),
        text_field("alpha", "α (1 − confidence of the bound on the missing record)", "0.0001"),
        text_field("seed", "Seed for the draw of u when u is empty"),
        text_field("sweep_record", "Sweep: record number (from 1)"),
        text_field("sweep_values", "Sweep: its values, e.g. 14,15,16"),
        text_field("missing", "Missing codes to drop: negative, or a list such as -1,-3"),
        field(ui.input_numeric("top", "Riskiest records listed in --json", value=20, min=0), "top"),
    )  # fmt: skip
    return _runs.long_page_ui(
        "The intruder's audit of data-dependent noise", _INTRO, "Audit",
        *data_inputs(SOURCES, "example", upload_input("file", "CSV, Parquet, Stata (.dta) or SPSS (.sav) file")),
        field(ui.input_selectize("column", "The numeric column the query runs on", choices=["claims"],
                                 selected="claims"), "column"),
        field(ui.input_select("query", "Query", {q: q for q in QUERY_CHOICES}, selected="mean"), "query"),
        text_field("epsilon", "ε of the data-dependent noise (e.g. 2, ln3)", "2"),
        text_field("u", "The uniform draw u behind the answer (Sarathy and Muralidhar: 0.75)", "0.75"),
        text_field("universe", "Bounds LO,HI: also audit noise calibrated to the global sensitivity", "0,100"),
        more,

    )  # fmt: skip


#: The page's inputs that set a field of :class:`~privrisk.audit.run.AuditSettings`; each has an error output
#: below it (``<name>_error``), where an error naming that field is shown.
FIELDS = (
    "file",
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


def audit_settings(values: Mapping[str, Any], file: str | Path | None) -> AuditSettings:
    """The page's inputs mapped onto :class:`~privrisk.audit.run.AuditSettings` (every check is there).

    ``values`` are the inputs by name (text as typed); ``file`` is the data's path (None: nothing uploaded).

    Example:
        >>> audit_settings({"column": "claims", "epsilon": "ln3", "u": "", "universe": "0,100"}, "c.csv").universe
        (0.0, 100.0)
    """
    from privrisk.audit.run import AuditSettings

    given: dict[str, Any] = {name: values.get(name) for name in FIELDS if name not in ("file",)}
    if given.get("top") is None:
        given.pop("top")
    return AuditSettings(data=None if file is None else str(file), **given)


def run_audit_job(job: Any, settings: AuditSettings, name: str, folder: Path) -> AuditRun:
    """Audit and write the command's folder, what ``privrisk audit --out`` does; the bar follows each step."""
    from dataclasses import replace

    from privrisk.audit.run import run_audit

    run = run_audit(replace(settings, name=name), progress=job.advance)
    run.write(folder, progress=job.advance)
    job.advance(1.0, "Done")
    return run


def _cell(x: float, digits: int = 4) -> str:
    """A number for a table cell: significant digits, no e-notation (:func:`privrisk._format.number`)."""
    return number(x, digits)


def provider_frame(res: Any) -> Any:
    """The provider's numbers, as the command line's table shows them (no e-notation)."""
    import pandas as pd

    label = "P[answer ≥ r]" if res.tail == "upper" else "P[answer ≤ r]"
    if res.event == "density":
        label = "density at r"
    rows = [
        ("f_n(X)", _cell(res.f_n, 6)),
        (f"f_n−1(X*) (X* leaves out record {res.star})", _cell(res.f_star, 6)),
        ("Δf_n(X)", _cell(res.delta_n, 6)),
        ("b_n = Δf_n(X)/ε", _cell(res.b_n, 6)),
        ("answer r" + (f" (u = {number(res.u)})" if res.u is not None else ""), _cell(res.response, 6)),
        (f"p1 = {label} with X", _cell(res.p1)),
        (f"p2 = {label} with X*, scale b_n", _cell(res.p2)),
        ("provider's ratio p1/p2", _cell(res.p1 / res.p2) if res.p2 > 0 else "∞"),
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
            "value": _cell(r["value"], 6),
            "f(X₋ᵢ)": _cell(r["f_without"], 6),
            "b_n−1": _cell(r["b_without"]),
            "p3": _cell(r["p3"]),
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
            "value": _cell(r["value"], 6),
            "answer r": _cell(r["response"], 6),
            "p1/p3": ratio_text(r["log10_ratio"]),
            "": "✗" if r["violates"] else "",
        }
        for r in sweep.to_dict(orient="records")
    ]
    return pd.DataFrame(rows)


def verdict_ui(run: AuditRun) -> Any:
    """The verdict first: one number and one sentence in plain words, and what global noise would do."""
    v = run.verdict()
    other = run.global_finding()
    return _verdict(
        "audit", v.headline, v.sentence, *([ui.p(other, id="audit-global-plain")] if other else [])
    )


def detail_ui(run: AuditRun, folder: Path) -> Any:
    """The technical detail, folded: the provider's and the intruder's tables, the sentences with symbols, the
    sweep, the figures."""
    from privrisk.audit.report import exp_text

    res, column = run.result, run.settings.column or "values"
    parts: list[Any] = []
    if run.data is not None:
        parts.append(ui.p(run.data.summary(), class_="privrisk-help"))
    parts += [
        ui.p(_HOW, class_="privrisk-help"),
        _runs.findings_ui([plain(res.sentence(*run.nouns()))]),
        _runs.frame_ui(
            provider_frame(res),
            id="audit-provider",
            caption=f"Provider: {res.query} of {column!r}, n = {res.n:,}, ε = {number(res.epsilon)}",
        ),
        _runs.frame_ui(
            intruder_frame(res),
            id="audit-intruder",
            caption=f"Intruder: ratio p1/p3 for each missing record (e^ε = {exp_text(res.epsilon)})",
        ),
        ui.p(
            f"✗: p1/p3 or p3/p1 exceeds e^ε; {res.violations:,} of {res.n:,} possible missing records.",
            id="audit-violations",
        ),
        ui.p(plain(res.quantile_sentence())),
        ui.p(plain(res.test_sentence())),
    ]
    if glob := res.global_sentence():
        parts.append(ui.p(plain(glob), id="audit-global"))
    if run.sweep is not None:
        parts.append(
            _runs.frame_ui(
                sweep_frame(run.sweep),
                id="audit-sweep",
                caption=f"Ratio p1/p3 as record {run.settings.sweep_record}'s value varies "
                "(Table 3 of Sarathy and Muralidhar 2009)",
            )
        )
    return ui.TagList(
        _runs.folded_ui("The numbers behind it (Sarathy and Muralidhar 2009)", *parts, id="audit-detail"),
        _runs.folded_ui("Figures", _runs.figures_ui(folder), id="audit-figures"),
    )


SOURCES = {"example": "the example: 30 insurance claims", "file": "a file I upload"}
#: The kinds of the inputs a link may preset (``?epsilon=…``).
_KINDS = {"source": "radio", "query": "select", "event": "select", "top": "numeric"} | {
    n: "text" for n in ("epsilon", "u", "universe", "response", "alpha", "seed", "sweep_record", "sweep_values",
                        "missing")}  # fmt: skip


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic."""
    folder = _runs.session_folder(session, ID)
    example = folder / "claims.csv"
    example_frame("claims").to_csv(example, index=False)
    params = query_params(session)
    preset_inputs(session, _KINDS)
    wanted_column = params.get("column")
    file_columns: reactive.Value[tuple[list[str], list[str]]] = reactive.value(([], []))

    def _choose(found: list[str], numeric: list[str]) -> None:
        # Numeric columns first; none chosen unless one measures something (never an id or a text column).
        choices = numeric + [c for c in found if c not in numeric]
        chosen = wanted_column if wanted_column in found else (numeric[0] if numeric else None)
        ui.update_selectize("column", choices=choices, selected=chosen or [])

    def _offer(profile: Any, found: list[str]) -> None:
        # A file uploaded on any page of this session: offered here, its columns chosen, the example's bounds cleared.
        numeric = [] if profile is None else list(profile.numeric)
        file_columns.set((found, numeric))
        _choose(found, numeric)
        # The example's bounds do not fit another file's values.
        if profile is not None and "universe" not in params:
            ui.update_text("universe", value="")

    job = LongJob(input, session, ID, max_upload=max_upload, sources=with_upload(SOURCES), offer=_offer,
                  example=(example, EXAMPLE_NAME))  # fmt: skip

    @reactive.effect
    @reactive.event(input.source, ignore_init=True)
    def _source() -> None:
        if input.source() == "example":
            ui.update_selectize("column", choices=["claims"], selected="claims")
        else:
            _choose(*file_columns())

    def _values() -> dict[str, Any]:
        return {n: input[n]() for n in FIELDS if n != "file"}

    form = SettingsForm(
        input, "audit", FIELDS, lambda path: audit_settings(_values(), path), job.data, ("column",)
    )
    job.serve_run(form, run_audit_job, "out")
    buttons = job.downloads("out", {"records": ("records.csv", "records.csv (every record)")}, "audit.zip")
    job.serve_results(
        "Press “Audit”: the example takes a few seconds, most of them drawing its four figures.",
        lambda run: ui.TagList(verdict_ui(run), buttons(), detail_ui(run, folder / "out")),
    )

    @render.ui
    def command() -> Any:
        v = _values()
        _, name = job.data()
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
