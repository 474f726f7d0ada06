"""The Risk page's "Other guarantees": the risks of any guarantee the fields describe ((ε, δ), ρ, μ, a mechanism,
composed, for groups, subsampled), as ``privrisk risk --json`` gives them, beside the worst case with the same
(ε, δ). The accountant runs in a worker process (:func:`~privrisk.app.pages._runs.call_in_process`): composing a
guarantee 10⁶ times takes minutes, and the event loop that answers every session must not wait for it. A newer
request, Cancel or the session's end stops it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shiny import reactive, render, req, ui

from privrisk._format import number as number_text
from privrisk._format import plain
from privrisk.accounting.risk_report import RiskSettings, run_risk
from privrisk.app._guarantee import guarantee_from_inputs, guarantee_options
from privrisk.app._shared import command_line, error_ui
from privrisk.app.pages._runs import TimeLimit, call_in_process

__all__ = ["ACCOUNTING_TIME_LIMIT", "accounting_summary", "serve_accounting"]

# The accountant's work runs in a worker process, stopped after this many seconds (composing a guarantee 10⁶ times
# can take minutes); the other sessions are answered meanwhile.
ACCOUNTING_TIME_LIMIT = 60.0


def accounting_summary(request: dict[str, Any]) -> dict[str, Any]:
    """The risks of the guarantee the page's other fields describe, as ``privrisk risk --json`` gives them.

    ``request`` holds :func:`~privrisk.app._guarantee.guarantee_from_inputs`' keywords and ``prior``, ``n`` and
    ``at_delta``; the guarantee is built from them and run through :func:`run_risk`. The page runs this in a worker
    process (:func:`~privrisk.app.pages._runs.call_in_process`).

    Example:
        >>> doc = accounting_summary({"kind": "mechanism", "epsilon": 1.0, "mechanism": "rr", "prior": 0.5,
        ...                           "n": 2, "at_delta": 1e-6})
        >>> round(doc["success"], 4)  # randomized response at ε = 1: e/(1 + e)
        0.7311
    """
    options = dict(request)
    prior, n, at_delta = options.pop("prior"), options.pop("n"), options.pop("at_delta")
    g = guarantee_from_inputs(**options)
    run = run_risk(RiskSettings(g, prior=prior, n=n, at_delta=at_delta))
    # The page's headline for this guarantee: the risk the command line's --max-risk judges, and what it is.
    risk, what = run.risk_for_threshold
    return {**run.to_dict(), "headline": risk, "headline_what": what}


def serve_accounting(
    input: Any, session: Any, numbers: Callable[[], dict[str, Any]], message: Callable[[BaseException], str]
) -> Any:
    """The panel's reactive logic: the accountant runs again whenever a field moves.

    Args:
        input, session: the page's.
        numbers: the page's numbers for ε above (ε, δ, n, the prior), as :func:`~privrisk.app.pages.risk.page_numbers`.
        message: the one-line message of an error, naming the field by its label.

    Returns:
        The extended task that runs the accountant (its status and value give the page's headline).
    """

    @reactive.calc
    def accounting_request() -> dict[str, Any]:
        v = numbers()
        return dict(
            kind=input.guarantee(), epsilon=v["epsilon"], delta=v["delta"], rho=input.rho().strip() or None,
            mu=input.mu().strip() or None, mechanism=input.mechanism(), scale=input.scale().strip() or None,
            sigma=input.sigma().strip() or None, sensitivity=input.sensitivity().strip() or None,
            sample_rate=input.sample_rate().strip() or None, compose=input.compose().strip() or None,
            group=input.group().strip() or None, prior=v["prior"], n=v["n"], at_delta=v["delta"] or 1e-6,
        )  # fmt: skip

    @reactive.extended_task
    async def accounting_task(request: dict[str, Any]) -> dict[str, Any]:
        return await call_in_process(accounting_summary, request, time_limit=ACCOUNTING_TIME_LIMIT)

    @reactive.effect
    def _account() -> None:
        request = accounting_request()
        with reactive.isolate():
            if accounting_task.status() == "running":
                accounting_task.cancel()
        accounting_task.invoke(request)

    @reactive.effect
    @reactive.event(input.accounting_cancel)
    def _cancel_accounting() -> None:
        accounting_task.cancel()

    session.on_ended(accounting_task.cancel)

    def summary_doc() -> dict[str, Any]:
        status = accounting_task.status()
        req(status == "success")
        return accounting_task.value.get()

    @render.ui
    def accounting_error() -> Any:
        status = accounting_task.status()
        if status == "running":
            return ui.div(
                ui.span("Computing the risks of this guarantee… ", id="risk-acct-running"),
                ui.input_action_button("accounting_cancel", "Cancel", class_="btn-outline-danger btn-sm"),
                class_="privrisk-progress mb-2",
            )
        if status == "cancelled":
            return ui.p("Cancelled: change a field to compute again.", class_="privrisk-cancelled text-muted")
        if status != "error":
            return None
        exc = accounting_task.error.get()
        if isinstance(exc, TimeLimit):
            return error_ui(
                f"This guarantee takes longer than {ACCOUNTING_TIME_LIMIT:g} s to compute here; it was stopped. "
                "The command line below computes it without a limit."
            )
        return error_ui(message(exc))

    @render.ui
    def accounting() -> Any:
        doc = summary_doc()
        v = numbers()
        worst = doc["worst_case"] or {}

        def cell(value: Any, key: str, which: str) -> Any:
            text = "—" if value is None else f"{value:.4f}"
            return ui.tags.td(text, id=f"risk-acct-{which}-{key}", class_="text-end font-monospace")

        rows = [
            ("advantage", "membership advantage (TPR − FPR, best attacker)"),
            ("success", "membership success (prior ½)"),
            ("posterior_max", f"largest belief after the answer (prior {number_text(v['prior'])})"),
            ("reconstruction", f"singling out one of n = {v['n']:,}"),
            ("epsilon_at_delta", f"ε at δ = {number_text(v['delta'] or 1e-6)}"),
        ]
        body = [
            ui.tags.tr(ui.tags.td(label), cell(doc[key], key, "this"), cell(worst.get(key), key, "worst"))
            for key, label in rows
        ]
        body += [
            ui.tags.tr(ui.tags.td(f"TPR at FPR {number_text(t['fpr'])}"), cell(t["tpr"], f"tpr{i}", "this"),
                       cell((worst.get("tpr_at_fpr") or [{}] * 9)[i].get("tpr"), f"tpr{i}", "worst"))
            for i, t in enumerate(doc["tpr_at_fpr"])
        ]  # fmt: skip
        head = ui.tags.tr(ui.tags.th(""), ui.tags.th(doc["guarantee"]), ui.tags.th("worst case, same (ε, δ)"))
        cmd = command_line(
            "risk",
            **guarantee_options(
                input.guarantee(), epsilon_text=input.epsilon().strip(), delta=v["delta"],
                rho=input.rho().strip(), mu=input.mu().strip(), mechanism=input.mechanism(),
                scale=input.scale().strip(), sigma=input.sigma().strip(), sensitivity=input.sensitivity().strip(),
                sample_rate=input.sample_rate().strip(), compose=input.compose().strip(),
                group=input.group().strip(), n=v["n"], prior=v["prior"],
            ),
        )  # fmt: skip
        return ui.TagList(
            ui.tags.table(
                ui.tags.thead(head), ui.tags.tbody(*body), class_="table table-sm privrisk-risk-table"
            ),
            ui.p(
                plain(f"Conversion: {doc['conversion']}. Worst case: {worst.get('guarantee', '—')}."),
                class_="privrisk-help",
                id="risk-acct-conversion",
            ),
            ui.div(cmd, class_="privrisk-command", id="risk-acct-command-line"),
        )

    return accounting_task
