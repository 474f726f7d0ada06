"""The Risk page's headline: whether it follows the guarantee of "Other guarantees", its verdict in plain words
(the many-worlds risk ρ_mw beside guessing, as natural frequencies), and the measures in detail below it."""

from __future__ import annotations

from typing import Any

from shiny import ui

from privrisk._format import epsilon_text, natural_frequencies, percent_for_people, plain
from privrisk._format import number as number_text

__all__ = ["headline", "headline_follows_the_guarantee", "risks_ui", "verdict"]

_ROWS = (
    ("many_worlds", "many-worlds risk ρ_mw", "the attacker picks the true world among n"),
    ("two_worlds", "two-worlds risk ρ_tw", "the attacker decides: in or out, for one person"),
    ("global_risk", "global risk ρ_gl", "the worst case: n = 2, Δv = Δf (with δ)"),
    ("global_leak", "global leak Γ", "2ρ_gl − 1: how far from guessing towards certainty"),
    ("local_leak", "local leak γ", "(ρ_mw − 1/n)/(1 − 1/n)"),
    ("guess", "guessing 1/n", "right without any answer"),
    ("posterior", "largest belief after the answer", "p·e^ε/(p·e^ε + 1 − p) for the prior p (1 with δ > 0)"),
)


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


def headline(v: dict[str, Any], input: Any, accounting: Any) -> tuple[str, str, str | None]:
    """The page's first number and sentence: of ε above, or of the other guarantee when one is set below
    (composed, for groups, subsampled, another kind), never the pure ε's while the guarantee asked is another.

    ``v`` holds the page's numbers, ``input`` the page's inputs, ``accounting`` the task that computes the other
    guarantee's risks (:func:`~privrisk.app.pages._risk_accounting.serve_accounting`).
    """
    if not headline_follows_the_guarantee(
        input.guarantee(), input.compose(), input.group(), input.sample_rate()
    ):
        return (*verdict(v["many_worlds"], v["n"]), None)
    status = accounting.status()
    if status in ("initial", "running"):
        return "…", "Computing the risk of the guarantee set under “Other guarantees”.", None
    if status != "success":
        return (
            "—",
            "The guarantee set under “Other guarantees” has no risk yet: see its message there.",
            None,
        )
    doc = accounting.value.get()
    number, sentence = verdict(float(doc["headline"]), v["n"])
    ratio = "" if v["ratio"] == 1 else "; Δv/Δf is taken as 1 (the worst case) for it"
    return number, sentence, f"For {plain(doc['guarantee'])}, set under “Other guarantees”{ratio}."


def risks_ui(v: dict[str, Any], said: tuple[str, str, str | None]) -> Any:
    """The headline ``said`` (its number, its sentence, the guarantee it is of), then the measures in detail."""
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
    number, sentence, guarantee = said
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
