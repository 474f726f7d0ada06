"""The app's page "Risk": ε, n, Δv/Δf, δ and a prior in; the risks of ``privrisk risk`` out, live as inputs move.

The page maps its inputs onto the settings of ``privrisk risk`` and ``privrisk epsilon``
(:mod:`privrisk.accounting.risk_report`: :class:`RiskSettings`, :class:`EpsilonSettings`), calls the same run
functions and shows their numbers, so they are those of ``privrisk risk --json`` for the same inputs: the many-worlds
risk ρ_mw (Allmann et al., eq. (4); Mehner et al., eq. (1)), the two-worlds risk ρ_tw (Allmann et al., eq. (6)),
the global risk ρ_gl (Mehner et al., eq. (3)), the leaks Γ and γ (eq. (4)), and the attacker's largest belief after
one answer for a prior p. Below them: the explainer page's icon array, the risk against ε, and the largest ε that
keeps ρ_mw under a target (``privrisk epsilon``). The settings' errors name their parameter; the page shows the
input's label (privrisk/app/_labels.py).
"""

from __future__ import annotations

import math
from typing import Any, cast

from shiny import module, reactive, render, req, ui

from privrisk._format import number as number_text
from privrisk._format import percent_for_people
from privrisk.accounting.risk_report import (
    EpsilonRun,
    EpsilonSettings,
    RiskRun,
    RiskSettings,
    run_epsilon,
    run_risk,
)
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.app._guarantee import GUARANTEE_KINDS
from privrisk.app._labels import label
from privrisk.app._shared import command_line, error_message, error_ui, preset_inputs
from privrisk.app.pages._risk_accounting import ACCOUNTING_TIME_LIMIT, accounting_summary, serve_accounting
from privrisk.app.pages._risk_census import census_panel, serve_census
from privrisk.app.pages._risk_epsilon import SLIDER_MAX, SLIDER_MIN, SLIDER_STEP, EpsilonInput
from privrisk.app.pages._risk_figures import curve_ui, icons_ui
from privrisk.app.pages._risk_headline import headline, headline_follows_the_guarantee, risks_ui
from privrisk.errors import PrivriskError

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


def largest_epsilon(target: Any, n: Any, ratio: Any = 1.0) -> EpsilonRun:
    """The largest ε that keeps ρ_mw at or below ``target``: ``privrisk epsilon --risk T --n N --ratio R``
    (:class:`EpsilonSettings`, :func:`run_epsilon`).

    Example:
        >>> round(largest_epsilon(0.25, 10).epsilon, 6) == round(math.log(3), 6)
        True
    """
    return run_epsilon(EpsilonSettings(risk=target, n=n, ratio=ratio))


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
                    census_panel(),
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
    serve_census(input, max_upload=max_upload)
    if set(used) & {"guarantee", "mechanism", "rho", "mu", "scale", "sigma", "sensitivity", "sample_rate",
                    "compose", "group"}:  # fmt: skip
        ui.update_accordion("other_guarantees", show=True)
    epsilon = EpsilonInput(input, start, field_message)
    current, text_error = epsilon.current, epsilon.text_error

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

    def _error_output(param: str) -> None:
        def shown() -> Any:
            return _error_for(param)

        shown.__name__ = f"{param}_error"  # the output's id: n_error, ratio_error, delta_error, prior_error
        render.ui(shown)

    for param in ("n", "ratio", "delta", "prior"):
        _error_output(param)

    def _ok() -> dict[str, Any]:
        try:
            return values()
        except PrivriskError:
            req(False)
            raise

    @render.ui
    def risks() -> Any:
        v = _ok()
        return risks_ui(v, headline(v, input, accounting_task))

    @render.ui
    def icons() -> Any:
        return icons_ui(_ok())

    @render.ui
    def curve() -> Any:
        return curve_ui(_ok(), run())

    accounting_task = serve_accounting(input, session, _ok, field_message)

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
