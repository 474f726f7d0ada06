"""One place that turns numbers into text, so a number reads the same in the terminal, on a page and in a figure.

Example:
    >>> percent(7 / 16), percent_3g(3.5e-05), whole_percent(0.001)
    ('43.8%', '0.0035 %', 'less than 1 %')
"""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal

__all__ = ["percent", "percent_3g", "whole_percent"]


def percent(x: float, digits: int = 1) -> str:
    """A probability as a percentage rounded half up, as the papers print them (7/16 → 43.8 %, not 43.7 %).

    The value is first rounded to 12 significant digits so that a tie computed as 0.43749999999999994 is
    still a tie.

    Example:
        >>> percent(7 / 16 - 1e-17), percent(2 / 101)
        ('43.8%', '2.0%')
    """
    value = Decimal(f"{100 * float(x):.12g}").quantize(Decimal(1).scaleb(-digits), rounding=ROUND_HALF_UP)
    return f"{value}%"


def percent_3g(x: float) -> str:
    """A probability as a percentage with three significant digits (never 0 % or 100 % unless exact).

    Example:
        >>> percent_3g(0.7310585786), percent_3g(3.5e-05), percent_3g(1.0), percent_3g(0.99999)
        ('73.1 %', '0.0035 %', '100 %', 'more than 99.9 %')
    """
    x = float(x)
    if x in (0.0, 1.0):
        return f"{100 * x:.0f} %"
    text = f"{100 * x:.3g}"
    if "e" in text:
        text = f"{100 * x:.2e}"
    if text == "100":
        return "more than 99.9 %"
    return f"{text} %"


def whole_percent(x: float, *, less: str = "less than 1 %", more: str = "more than 99 %") -> str:
    """A share as a whole percent that never rounds a nonzero share to 0 % nor a share below 1 to 100 %.

    ``less`` and ``more`` are the words for the two edges (a translation passes its own).

    Example:
        >>> whole_percent(0.004), whole_percent(0.5), whole_percent(0.996), whole_percent(1.0)
        ('less than 1 %', '50 %', 'more than 99 %', '100 %')
    """
    if 0 < x < 0.005:
        return less
    if 0.995 <= x < 1:
        return more
    return f"{round(100 * x)} %"
