"""The Risk page's ε: typed (a number, or ``ln3``) or on a slider, whichever moved last.

A typed ε above the slider's range is kept as typed: the slider's range grows to show it, never the other way
round, which would change the user's ε silently. The slider's echo of a value the page set is no move of the user's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from shiny import reactive, ui

from privrisk._validation import parse_epsilon
from privrisk.errors import PrivriskError

__all__ = ["SLIDER_MAX", "SLIDER_MIN", "SLIDER_STEP", "EpsilonInput"]

SLIDER_MIN, SLIDER_MAX, SLIDER_STEP = 0.01, 10.0, 0.01


class EpsilonInput:
    """The inputs ``epsilon`` (text) and ``epsilon_slider`` kept in step: create it in the page's server function.

    Args:
        input: the page's Shiny inputs.
        start: the ε the page starts with (the URL's, else ``ln3``).
        message: the one-line message of a bad ε, for :attr:`text_error`.

    Attributes:
        current: ε as a number (None while the text is not one).
        text_error: why the typed text is not an ε ("" when it is).
    """

    def __init__(self, input: Any, start: str, message: Callable[[BaseException], str]) -> None:
        self.current: reactive.Value[float | None] = reactive.value(_parse_or_none(start))
        self.text_error = reactive.value("")
        # The value the page last moved the slider to for a typed ε (clamped to its range): its echo is no move.
        slider_sent: reactive.Value[float | None] = reactive.value(None)
        current, text_error = self.current, self.text_error

        @reactive.effect
        @reactive.event(input.epsilon_slider, ignore_init=True)
        def _from_slider() -> None:
            value = float(input.epsilon_slider())
            old = current.get()
            sent = slider_sent.get()
            slider_sent.set(None)
            # The slider echoes a programmatic update rounded to its step, or clamped to its lowest value (an ε
            # below 0.01 typed): not a move of the user's, and the typed ε stays as typed.
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
                text_error.set(message(exc))
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


def _parse_or_none(text: str) -> float | None:
    try:
        return parse_epsilon(text, name="epsilon")
    except PrivriskError:
        return None
