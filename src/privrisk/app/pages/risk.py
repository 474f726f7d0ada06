"""The app's page "Risk": ε, n, Δv/Δf, δ and a prior in; the risks of ``privrisk risk`` out, live as inputs move.

The page maps its inputs onto the settings of ``privrisk risk`` and ``privrisk epsilon``
(:mod:`privrisk.accounting.risk_report`: :class:`RiskSettings`, :class:`EpsilonSettings`), calls the same run
functions and shows their numbers, so they are those of ``privrisk risk --json`` for the same inputs: the many-worlds
risk ρ_mw (Allmann et al., eq. (4); Mehner et al., eq. (1)), the two-worlds risk ρ_tw (Allmann et al., eq. (6)),
the global risk ρ_gl (Mehner et al., eq. (3)), the leaks Γ and γ (eq. (4)), and the attacker's largest belief after
one answer for a prior p. Below them: the explainer page's icon array, the risk against ε, and the largest ε that
keeps ρ_mw under a target (``privrisk epsilon``). The settings' errors name their parameter; the page shows the
input's label (privrisk/_params.py).
"""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np
from shiny import module, reactive, render, req, ui

from privrisk._format import epsilon_text, natural_frequencies, percent_for_people, plain
from privrisk._format import number as number_text
from privrisk._params import label
from privrisk._validation import parse_epsilon
from privrisk.accounting.risk_report import (
    EpsilonRun,
    EpsilonSettings,
    RiskRun,
    RiskSettings,
    run_epsilon,
    run_risk,
)
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.app._figures import icon_array, line_chart
from privrisk.app._guarantee import GUARANTEE_KINDS, guarantee_from_inputs, guarantee_options
from privrisk.app._shared import command_line, error_message, error_ui, preset_inputs
from privrisk.app.pages._runs import TimeLimit, call_in_process
from privrisk.errors import PrivriskError
from privrisk.reports.explain import explainer_numbers

ID = "risk"
TITLE = "Risk"

__all__ = [
    "ACCOUNTING_TIME_LIMIT",
    "ID",
    "TITLE",
    "accounting_summary",
    "headline_follows_the_guarantee",
    "largest_epsilon",
    "page_numbers",
    "page_server",
    "page_ui",
    "risk_run",
    "risk_values",
]

# The accountant's work runs in a worker process, stopped after this many seconds (composing a guarantee 10⁶ times
# can take minutes); the other sessions are answered meanwhile.
ACCOUNTING_TIME_LIMIT = 60.0

# privrisk risk's options for the other guarantees (the accounting command line names them so).
_ACCOUNTING_OPTIONS = (
    "rho",
    "mu",
    "mechanism",
    "scale",
    "sigma",
    "sensitivity",
    "sample_rate",
    "compose",
    "group",
)
SLIDER_MIN, SLIDER_MAX, SLIDER_STEP = 0.01, 10.0, 0.01


# The fields' labels, which the page's messages name instead of the command line's options.
def field_message(exc: BaseException) -> str:
    """The one-line message for a bad field, naming the field by its label (not the command line's option).

    Example:
        >>> field_message(PrivriskError("sigma: must be a number greater than 0, got None", param="sigma"))
        'Gaussian σ: required for this guarantee'
        >>> field_message(PrivriskError("n: must be at least 2, got 1", param="n"))
        'Possible worlds n: must be at least 2, got 1'
    """
    if not isinstance(exc, PrivriskError):
        return error_message(exc)
    message = str(exc).splitlines()[0] if str(exc) else "bad input"
    param = exc.param
    if param:
        named = label(param, "risk")
        for head in (param, named):  # the guarantee's messages already use the page's labels
            if message.startswith(head + ":"):
                rest = message[len(head) + 1 :].strip()
                if rest.endswith("got None") or rest.startswith("'' is not a number"):
                    # An empty field: say what is missing, not what the library was given.
                    return f"{named}: required for this guarantee"
    return error_message(exc, "risk")


_EXPLAIN_LIMIT = 1e4  # the explainer's icon array refuses larger ε


def risk_run(epsilon: float, n: Any, ratio: Any = 1.0, delta: Any = 0.0, prior: Any = 0.5) -> RiskRun:
    """The page's inputs as ``privrisk risk --epsilon E --delta D --n N --ratio R --prior P``: the library's
    :class:`RiskSettings` (which checks them, naming the field) and :func:`run_risk`.

    Example:
        >>> round(risk_run(math.log(3), 10).to_dict()["many_worlds"], 4)      # Mehner et al., Table 1
        0.25
        >>> risk_run(1.0, 1)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: n: must be a whole number ≥ 2, got 1
    """
    settings = RiskSettings(GuaranteeSpec(epsilon=epsilon, delta=delta), n=n, ratio=ratio, prior=prior)
    return run_risk(settings)


def page_numbers(run: RiskRun) -> dict[str, Any]:
    """The numbers of the page: ``privrisk risk --json``'s keys, and ``posterior``, the largest belief after the
    answer for the prior (the accountant's ``posterior_max``: p·e^ε/(p·e^ε + 1 − p) for a pure ε, 1 with δ > 0).

    Example:
        >>> v = page_numbers(risk_run(math.log(3), 10))
        >>> round(v["global_risk"], 4), round(v["posterior"], 4)
        (0.75, 0.75)
    """
    doc = run.to_dict()
    doc["posterior"] = doc["posterior_max"]
    return doc


def risk_values(
    epsilon: float, n: Any, ratio: Any = 1.0, delta: Any = 0.0, prior: Any = 0.5
) -> dict[str, Any]:
    """:func:`page_numbers` of :func:`risk_run`.

    Example:
        >>> v = risk_values(math.log(3), 10)
        >>> round(v["many_worlds"], 4), round(v["global_risk"], 4), round(v["posterior"], 4)
        (0.25, 0.75, 0.75)
    """
    return page_numbers(risk_run(epsilon, n, ratio, delta, prior))


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


def largest_epsilon(target: Any, n: Any, ratio: Any = 1.0) -> EpsilonRun:
    """The largest ε that keeps ρ_mw at or below ``target``: ``privrisk epsilon --risk T --n N --ratio R``
    (:class:`EpsilonSettings`, :func:`run_epsilon`).

    Example:
        >>> round(largest_epsilon(0.25, 10).epsilon, 6) == round(math.log(3), 6)
        True
    """
    return run_epsilon(EpsilonSettings(risk=target, n=n, ratio=ratio))


def headline_follows_the_guarantee(
    kind: str, compose: Any = None, group: Any = None, sample_rate: Any = None
) -> bool:
    """Whether the page's other fields describe another guarantee than ε (and δ) above: another kind, or ε
    composed, for groups, or subsampled. Then the headline is that guarantee's risk, not the pure ε's.

    Example:
        >>> headline_follows_the_guarantee("epsilon"), headline_follows_the_guarantee("epsilon", compose="1")
        (False, False)
        >>> headline_follows_the_guarantee("epsilon", compose="1000000"), headline_follows_the_guarantee("mu")
        (True, True)
    """
    if kind != "epsilon":
        return True
    for value in (compose, group, sample_rate):
        text = "" if value is None else str(value).strip()
        if not text:
            continue
        try:
            if float(text) == 1.0:
                continue
        except ValueError:
            pass
        return True
    return False


def verdict(many_worlds: float, n: int) -> tuple[str, str]:
    """The page's first number and sentence, in plain words: how often the attacker who knows everyone else
    would be right (ρ_mw, Mehner et al. eq. (1)), beside guessing (1/n), as natural frequencies.

    Example:
        >>> verdict(0.75, 2)
        ('75 %', 'An attacker who knows everyone else would be right about 75 times in 100; guessing, about 50 in 100.')
        >>> verdict(0.25, 10)[1]
        'An attacker who knows everyone else would pick the right one of 10 possible data sets about 25 times in 100; guessing, about 10 in 100.'
    """
    attacker, guess = natural_frequencies(many_worlds, 1.0 / n)
    base = f"{attacker.base:,}"
    what = "be right" if n == 2 else f"pick the right one of {n:,} possible data sets"
    return (
        percent_for_people(many_worlds),
        f"An attacker who knows everyone else would {what} {attacker.text()} times in {base}; "
        f"guessing, {guess.text()} in {base}.",
    )


_ROWS = (
    ("many_worlds", "many-worlds risk ρ_mw", "the attacker picks the true world among n"),
    ("two_worlds", "two-worlds risk ρ_tw", "the attacker decides: in or out, for one person"),
    ("global_risk", "global risk ρ_gl", "the worst case: n = 2, Δv = Δf (with δ)"),
    ("global_leak", "global leak Γ", "2ρ_gl − 1: how far from guessing towards certainty"),
    ("local_leak", "local leak γ", "(ρ_mw − 1/n)/(1 − 1/n)"),
    ("guess", "guessing 1/n", "right without any answer"),
    ("posterior", "largest belief after the answer", "p·e^ε/(p·e^ε + 1 − p) for the prior p (1 with δ > 0)"),
)


@module.ui
def page_ui() -> Any:
    """The page's layout: inputs on the left, numbers and figures on the right."""
    # Inputs first in the document (and so in the keyboard order, starting with ε), the results beside them on a
    # wide screen and below them on a phone, where no overlay hides the inputs (a sidebar layout puts its main
    # column first in the document).
    inputs = ui.tags.section(
        ui.h3("The guarantee", class_="h5"),
        # The main input comes first in the keyboard order: ε typed, then the same ε on a slider.
        ui.input_text("epsilon", "ε, the privacy loss (a number, or ln3)", value="ln3"),
        ui.output_ui("epsilon_error"),
        ui.input_slider(
            "epsilon_slider",
            "ε on a slider",
            min=SLIDER_MIN,
            max=SLIDER_MAX,
            value=round(math.log(3), 2),
            step=SLIDER_STEP,
        ),
        ui.input_numeric(
            "n", "Possible worlds n: the data sets the attacker picks among", value=2, min=2, step=1
        ),
        ui.output_ui("n_error"),
        ui.input_numeric("ratio", "Δv/Δf: local over global sensitivity", value=1, min=0, step=0.05),
        ui.output_ui("ratio_error"),
        ui.input_numeric("delta", "δ of (ε, δ)-DP", value=0, min=0, max=1, step=1e-6),
        ui.output_ui("delta_error"),
        ui.input_numeric(
            "prior", "Prior p: the attacker's belief before the answer", value=0.5, min=0, max=1
        ),
        ui.output_ui("prior_error"),
        ui.p(
            "n = 2 is the worst case. Δv/Δf = 1 unless you know the data (the page Data and sensitivity "
            "computes it).",
            class_="privrisk-help",
        ),
        class_="privrisk-inputs",
        **{"aria-label": "The guarantee"},
    )
    return ui.TagList(
        ui.h2("How likely is an attacker to be right?"),
        ui.p(
            "A differentially private answer with privacy loss ε limits how often an attacker who knows everyone "
            "else's data can tell whether a person is in it. The numbers follow as you move the inputs.",
            class_="privrisk-help",
        ),
        ui.layout_columns(
            inputs,
            ui.div(
                ui.output_ui("risks"),
                ui.layout_columns(
                    ui.card(
                        ui.card_header("100 attempts (the explainer page's picture)"), ui.output_ui("icons")
                    ),
                    ui.card(ui.card_header("Risk against ε"), ui.output_ui("curve")),
                    col_widths=(4, 8),
                ),
                ui.accordion(
                    ui.accordion_panel(
                        "Other guarantees: (ε, δ), ρ, μ, a mechanism, composition",
                        ui.p(
                            "Any guarantee as the risk of membership: the best attacker's advantage and success, the largest "
                            "belief after the answer, the true-positive rate at a few false-positive rates, and the worst "
                            "mechanism with the same (ε, δ) beside it (privrisk.accounting).",
                            class_="privrisk-help",
                        ),
                        ui.layout_columns(
                            ui.input_select("guarantee", "Guarantee", GUARANTEE_KINDS),
                            ui.input_select(
                                "mechanism",
                                "Mechanism",
                                {"laplace": "Laplace", "gaussian": "Gaussian", "rr": "randomized response"},
                            ),
                            ui.input_text("rho", "ρ (zCDP)", placeholder="e.g. 0.5"),
                            ui.input_text("mu", "μ (Gaussian DP)", placeholder="e.g. 1"),
                            ui.input_text("scale", "Laplace scale b (else ε above)", placeholder="e.g. 2"),
                            ui.input_text("sigma", "Gaussian σ", placeholder="e.g. 2"),
                            ui.input_text("sensitivity", "Sensitivity Δ", placeholder="1"),
                            ui.input_text("sample_rate", "Poisson sample rate", placeholder="1"),
                            ui.input_text("compose", "Compose K releases", placeholder="1"),
                            ui.input_text("group", "Groups of K people", placeholder="1"),
                            col_widths=(3, 3, 3, 3, 3, 3, 3, 3, 3, 3),
                            fill=False,
                        ),
                        ui.output_ui("accounting_error"),
                        ui.output_ui("accounting"),
                        value="other",
                    ),
                    id="other_guarantees",
                    open=False,
                ),
                ui.card(
                    ui.card_header("Which ε keeps the risk under a target?"),
                    ui.input_numeric(
                        "max_risk", "largest acceptable many-worlds risk ρ_mw", value=0.75, min=0, max=1
                    ),
                    ui.output_ui("epsilon_for"),
                ),
                ui.h3("The same on the command line", class_="h5"),
                ui.output_ui("command"),
            ),
            col_widths=cast(Any, {"sm": (12, 12), "lg": (4, 8)}),
        ),
    )


def _number(value: Any, default: float) -> float:
    if value is None or value == "":
        return default
    return float(value)


@module.server
def page_server(input: Any, output: Any, session: Any, *, max_upload: int) -> None:
    """The page's reactive logic: ε comes from the slider or the text, whichever moved last."""
    used = preset_inputs(
        session,
        {"epsilon": "text", "n": "numeric", "ratio": "numeric", "delta": "numeric", "prior": "numeric",
         "max_risk": "numeric", "guarantee": "select", "mechanism": "select", "rho": "text", "mu": "text",
         "scale": "text", "sigma": "text", "sensitivity": "text", "sample_rate": "text", "compose": "text",
         "group": "text"},
    )  # fmt: skip
    start = used.get("epsilon", "ln3")
    if set(used) & {"guarantee", "mechanism", "rho", "mu", "scale", "sigma", "sensitivity", "sample_rate",
                    "compose", "group"}:  # fmt: skip
        ui.update_accordion("other_guarantees", show=True)
    current = reactive.value(_parse_or_none(start))
    text_error = reactive.value("")
    # The value the page last moved the slider to for a typed ε (clamped to its range): its echo is no move.
    slider_sent: reactive.Value[float | None] = reactive.value(None)

    @reactive.effect
    @reactive.event(input.epsilon_slider, ignore_init=True)
    def _from_slider() -> None:
        value = float(input.epsilon_slider())
        old = current.get()
        sent = slider_sent.get()
        slider_sent.set(None)
        # The slider echoes a programmatic update rounded to its step, or clamped to its lowest value (an ε below
        # 0.01 typed): not a move of the user's, and the typed ε stays as typed.
        if sent is not None and abs(value - sent) <= SLIDER_STEP / 2 + 1e-9:
            return
        if old is not None and abs(value - old) <= SLIDER_STEP / 2 + 1e-9:
            return
        current.set(value)
        text_error.set("")
        ui.update_text("epsilon", value=f"{value:g}")

    @reactive.effect
    @reactive.event(input.epsilon)
    def _from_text() -> None:
        try:
            value = parse_epsilon(input.epsilon(), name="epsilon")
        except PrivriskError as exc:
            text_error.set(field_message(exc))
            current.set(None)
            return
        text_error.set("")
        old = current.get()
        if old is None or abs(value - old) > 1e-12:
            current.set(value)
        if abs(float(input.epsilon_slider()) - value) > SLIDER_STEP / 2:
            # A typed ε above the slider's range is kept: the slider's range grows to show it (never the
            # other way round, which would change the user's ε silently).
            top = max(SLIDER_MAX, float(math.ceil(value))) if math.isfinite(value) else SLIDER_MAX
            shown = min(max(value, SLIDER_MIN), top)
            slider_sent.set(shown)
            ui.update_slider("epsilon_slider", value=shown, max=top)

    def _checked(name: str) -> Any:
        getter = getattr(input, name)
        default = {"n": 2, "ratio": 1.0, "delta": 0.0, "prior": 0.5}[name]
        value = _number(getter(), default)
        return value

    @reactive.calc
    def run() -> RiskRun:
        eps = current.get()
        req(eps is not None)
        assert eps is not None
        # The library's settings check the inputs (raising PrivriskError naming the field).
        return risk_run(eps, _checked("n"), _checked("ratio"), _checked("delta"), _checked("prior"))

    @reactive.calc
    def values() -> dict[str, Any]:
        return page_numbers(run())

    def _error_for(param: str) -> Any:
        try:
            values()
        except PrivriskError as exc:
            if exc.param == param:
                return error_ui(field_message(exc))
        except Exception:
            return None
        return None

    @render.ui
    def epsilon_error() -> Any:
        return error_ui(text_error.get()) or _error_for("epsilon")

    @render.ui
    def n_error() -> Any:
        return _error_for("n")

    @render.ui
    def ratio_error() -> Any:
        return _error_for("ratio")

    @render.ui
    def delta_error() -> Any:
        return _error_for("delta")

    @render.ui
    def prior_error() -> Any:
        return _error_for("prior")

    def _ok() -> dict[str, Any]:
        try:
            return values()
        except PrivriskError:
            req(False)
            raise

    @render.ui
    def risks() -> Any:
        v = _ok()
        rows = [
            ui.tags.tr(
                ui.tags.td(label),
                ui.tags.td(f"{v[key]:.4f}", id=f"risk-value-{key}", class_="text-end font-monospace"),
                ui.tags.td(percent_for_people(v[key]), class_="text-end"),
                ui.tags.td(what, class_="privrisk-help"),
            )
            for key, label, what in _ROWS
        ]
        head = ui.tags.tr(*(ui.tags.th(h) for h in ("measure", "value", "", "what it is")))
        number, sentence, guarantee = _headline(v)
        return ui.TagList(
            ui.div(
                ui.p(number, id="risk-verdict-number", class_="display-6 fw-semibold mb-0"),
                ui.p(sentence, id="risk-verdict", class_="lead"),
                ui.p(guarantee, id="risk-verdict-guarantee", class_="privrisk-help") if guarantee else None,
                class_="privrisk-verdict mb-3",
            ),
            ui.tags.details(
                ui.tags.summary("The measures in detail"),
                ui.tags.p(
                    f"ε = {epsilon_text(v['epsilon'], approximate=True)}, n = {v['n']:,}, "
                    f"Δv/Δf = {number_text(v['ratio'])}, δ = {number_text(v['delta'])}",
                    class_="fw-semibold",
                ),
                ui.tags.table(
                    ui.tags.thead(head), ui.tags.tbody(*rows), class_="table table-sm privrisk-risk-table"
                ),
                ui.tags.p(v["description"], id="risk-sentence"),
                id="risk-details",
            ),
        )

    def _headline(v: dict[str, Any]) -> tuple[str, str, str | None]:
        """The page's first number and sentence: of ε above, or of the other guarantee when one is set below
        (composed, for groups, subsampled, another kind), never the pure ε's while the guarantee asked is another."""
        if not headline_follows_the_guarantee(
            input.guarantee(), input.compose(), input.group(), input.sample_rate()
        ):
            return (*verdict(v["many_worlds"], v["n"]), None)
        status = accounting_task.status()
        if status in ("initial", "running"):
            return "…", "Computing the risk of the guarantee set under “Other guarantees”.", None
        if status != "success":
            return "—", "The guarantee set under “Other guarantees” has no risk yet: see its message there.", None
        doc = accounting_task.value.get()
        number, sentence = verdict(float(doc["headline"]), v["n"])
        ratio = "" if v["ratio"] == 1 else "; Δv/Δf is taken as 1 (the worst case) for it"
        return number, sentence, f"For {plain(doc['guarantee'])}, set under “Other guarantees”{ratio}."

    @render.ui
    def icons() -> Any:
        v = _ok()
        if v["epsilon"] > _EXPLAIN_LIMIT:
            return ui.p("The attacker is always right at this ε.")
        shown = explainer_numbers(v["epsilon"])
        guess, extra, wrong = (int(shown[k]) for k in ("icons_guess", "icons_extra", "icons_wrong"))
        label = f"{shown['risk']} of {shown['risk_base']} attempts right; {shown['guess']} by guessing alone"
        return ui.TagList(
            ui.HTML(icon_array(guess, extra, label=label, element_id="risk-icon-array")),
            ui.p(
                ui.span(f"{guess} right by guessing, "),
                ui.span(f"{extra} right because of the answer, ", style="color:#b35f00"),
                ui.span(f"{wrong} wrong."),
                class_="small",
            ),
            ui.p(
                f"The attacker is right {shown['risk']} times in {shown['risk_base']} (global risk ρ_gl).",
                class_="small",
            ),
        )

    @render.ui
    def curve() -> Any:
        v = _ok()
        top = max(5.0, min(2 * v["epsilon"], 50.0))
        grid = np.linspace(0.0, top, 201)
        lines = run().curves(grid)
        series = [
            (f"ρ_mw, n = {v['n']:,}", lines["many_worlds"], "#1f5f99"),
            ("global risk ρ_gl", lines["global_risk"], "#d9822b"),
        ]
        if v["prior"] not in (0.5,) and "posterior" in lines:
            series.append((f"belief, prior {number_text(v['prior'])}", lines["posterior"], "#5b8c3a"))
        return ui.HTML(line_chart(grid, series, marker=v["epsilon"], element_id="risk-curve-svg"))

    @reactive.calc
    def accounting_request() -> dict[str, Any]:
        v = _ok()
        return dict(
            kind=input.guarantee(), epsilon=v["epsilon"], delta=v["delta"], rho=input.rho().strip() or None,
            mu=input.mu().strip() or None, mechanism=input.mechanism(), scale=input.scale().strip() or None,
            sigma=input.sigma().strip() or None, sensitivity=input.sensitivity().strip() or None,
            sample_rate=input.sample_rate().strip() or None, compose=input.compose().strip() or None,
            group=input.group().strip() or None, prior=v["prior"], n=v["n"], at_delta=v["delta"] or 1e-6,
        )  # fmt: skip

    # The accountant runs in a worker process: composing a guarantee 10⁶ times takes minutes, and the event loop
    # that answers every session must not wait for it. A newer request, Cancel or the session's end kills it.
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
        return error_ui(field_message(exc))

    @render.ui
    def accounting() -> Any:
        doc = summary_doc()
        v = _ok()
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

    @render.ui
    def epsilon_for() -> Any:
        v = _ok()
        try:
            found = largest_epsilon(input.max_risk(), v["n"], v["ratio"])
        except PrivriskError as exc:
            return error_ui(field_message(exc))
        eps, target = found.epsilon, found.settings.risk
        cmd = command_line("epsilon", risk=f"{target:g}", n=v["n"], ratio=_ratio_option(v["ratio"]))
        return ui.TagList(
            ui.p(
                f"ε ≤ {number_text(eps, 6)} (= ln {number_text(math.exp(eps), 6)}) keeps ρ_mw at or below "
                f"{percent_for_people(target)} for n = {v['n']:,} and Δv/Δf = {number_text(v['ratio'])}.",
                id="risk-epsilon-for-text",
            ),
            ui.div(cmd, class_="privrisk-command"),
        )

    @render.ui
    def command() -> Any:
        v = _ok()
        text = input.epsilon() if current.get() is not None else f"{v['epsilon']:g}"
        cmd = command_line(
            "risk",
            epsilon=text.strip(),
            n=v["n"] if v["n"] != 2 else None,
            ratio=_ratio_option(v["ratio"]),
            delta=f"{v['delta']:g}" if v["delta"] else None,
        )
        return ui.div(cmd, class_="privrisk-command", id="risk-command-line")


def _ratio_option(ratio: float) -> str | None:
    return None if ratio == 1 else f"{ratio:g}"


def _parse_or_none(text: str) -> float | None:
    try:
        return parse_epsilon(text, name="epsilon")
    except PrivriskError:
        return None
