"""Parsing ε written as a number or as a natural logarithm (``1.5``, ``ln3``, ``ln(3)``, ``log(3)``)."""

from __future__ import annotations

import math
import re

from privrisk.errors import PrivriskError

_LOG = re.compile(r"^\s*(?:ln|log)\s*\(?\s*([0-9.eE+-]+)\s*\)?\s*$")


def parse_epsilon(text: str | float, *, name: str = "epsilon", allow_zero: bool = False) -> float:
    """Read ε from a number or from ``ln3``, ``ln(3)``, ``log(3)``.

    Args:
        text: The value as typed by a user, or a number.
        name: The argument's name, used in the error message.
        allow_zero: Accept ε = 0 (the no-information limit); the command line does not.

    Returns:
        ε as a finite float.

    Raises:
        PrivriskError: if the text is not a number or a logarithm, or ε is not finite and positive.

    Example:
        >>> round(parse_epsilon("ln(3)"), 6)
        1.098612
        >>> parse_epsilon("0.5")
        0.5
    """
    if isinstance(text, int | float):
        value = float(text)
    else:
        raw = str(text).strip()
        match = _LOG.match(raw.lower())
        try:
            if match:
                argument = float(match.group(1))
                if argument <= 0:
                    raise PrivriskError(f"{name}: the logarithm of {argument:g} is not defined")
                value = math.log(argument)
            else:
                value = float(raw)
        except ValueError:
            raise PrivriskError(
                f"{name}: {text!r} is not a number (write e.g. 1.5, ln3, ln(3) or log(3))"
            ) from None
    if not math.isfinite(value):
        raise PrivriskError(f"{name}: must be finite, got {text!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise PrivriskError(f"{name}: must be greater than 0, got {text!r}")
    return value


def parse_epsilons(text: str, *, name: str = "epsilons") -> list[float]:
    """Read a comma-separated list of ε values.

    Example:
        >>> [round(e, 4) for e in parse_epsilons("ln2, 1, log(7)")]
        [0.6931, 1.0, 1.9459]
    """
    parts = [p for p in str(text).split(",") if p.strip()]
    if not parts:
        raise PrivriskError(f"{name}: give at least one value")
    return [parse_epsilon(p, name=name) for p in parts]
