"""One validation layer: every check of a parameter a user gives, in one place.

In the manner of scikit-learn's parameter validation and diffprivlib's ``check_epsilon_delta``: each function
takes the value and the parameter's ``name``, returns the value in its working form, and raises
:class:`~privrisk.errors.PrivriskError` with a one-line message that starts with ``name:`` (and
``param=name``), so the command line can name its option. No module checks these things on its own.

Example:
    >>> parse_epsilon("ln3") == check_epsilon(1.0986122886681098)
    True
    >>> check_k(3, name="k", below=10)
    3
    >>> check_choice("KDE-Box", ("kde-box", "ecdf"), name="density")
    'kde-box'
"""

from __future__ import annotations

import math
import re
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from privrisk.errors import PrivriskError, deprecation_message

if TYPE_CHECKING:
    import numpy as np

Query = Literal["count", "sum", "mean", "median", "min", "max", "variance", "std"]
QUERIES: tuple[str, ...] = ("count", "sum", "mean", "median", "min", "max", "variance", "std")

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
            value = float(match.group(1)) if match else float(raw)
        except ValueError:
            raise PrivriskError(
                f"{name}: {text!r} is not a number (write e.g. 1.5, ln3, ln(3) or log(3))"
            ) from None
        if match:
            # Outside the try: PrivriskError is a ValueError and would turn into "not a number".
            if not value > 0:
                raise PrivriskError(f"{name}: the logarithm of {value:g} is not defined")
            value = math.log(value)
    if not math.isfinite(value):
        raise PrivriskError(f"{name}: must be finite, got {text!r}")
    if value < 0 or (value == 0 and not allow_zero):
        raise PrivriskError(f"{name}: must be {'at least' if allow_zero else 'greater than'} 0, got {text!r}")
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


def check_epsilon(epsilon: Any, *, name: str = "epsilon", allow_zero: bool = False) -> float:
    """One ε as a finite float > 0 (≥ 0 with ``allow_zero``, the no-information limit).

    Example:
        >>> check_epsilon(2)
        2.0
        >>> check_epsilon(0, allow_zero=True)
        0.0
        >>> check_epsilon(0)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: epsilon: must be a finite number greater than 0, got 0
    """
    if isinstance(epsilon, str):
        return parse_epsilon(epsilon, name=name, allow_zero=allow_zero)
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {epsilon!r} is not a number", param=name) from None
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = "at least 0" if allow_zero else "greater than 0"
        raise PrivriskError(f"{name}: must be a finite number {bound}, got {epsilon!r}", param=name)
    return value


def check_epsilons(
    epsilons: Any, *, name: str = "epsilons", allow_zero: bool = False, keep_shape: bool = False
) -> np.ndarray:
    """Many ε as a float array: at least one, each finite and > 0 (≥ 0 with ``allow_zero``).

    Flattened to one dimension unless ``keep_shape`` (for functions that broadcast like numpy).

    Example:
        >>> check_epsilons([0.5, "ln3"]).round(4).tolist()
        [0.5, 1.0986]
        >>> check_epsilons([1, float("nan")])
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: epsilons: NaN is not a privacy parameter
    """
    import numpy as np

    if isinstance(epsilons, str):
        return np.asarray(parse_epsilons(epsilons, name=name), dtype=float)
    try:
        if isinstance(epsilons, list | tuple) and any(isinstance(e, str) for e in epsilons):
            epsilons = [check_epsilon(e, name=name, allow_zero=allow_zero) for e in epsilons]
        eps = np.asarray(epsilons, dtype=float)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: every ε must be a number", param=name) from None
    if not keep_shape:
        eps = np.atleast_1d(eps).ravel()
        if eps.size == 0:
            raise PrivriskError(f"{name}: give at least one ε", param=name)
    if np.any(np.isnan(eps)):
        raise PrivriskError(f"{name}: NaN is not a privacy parameter", param=name)
    if np.any(np.isinf(eps)):
        raise PrivriskError(f"{name}: must be finite", param=name)
    low = eps < 0 if allow_zero else eps <= 0
    if np.any(low):
        bound = "at least 0" if allow_zero else "greater than 0"
        raise PrivriskError(f"{name}: must be {bound}, got {float(np.min(eps)):g}", param=name)
    return eps


def check_probability(
    p: Any, *, name: str, open_low: bool = False, open_high: bool = False, keep_shape: bool = True
) -> np.ndarray:
    """Probabilities in [0, 1] (open at an end where asked), as an array of the same shape.

    Example:
        >>> check_probability(0.25, name="prior").tolist()
        0.25
        >>> check_probability(1.0, name="alpha", open_high=True)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: alpha: must be a probability in [0, 1), got 1
    """
    import numpy as np

    try:
        values = np.asarray(p, dtype=float)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {p!r} is not a number", param=name) from None
    if not keep_shape:
        values = np.atleast_1d(values).ravel()
    bad = (
        np.isnan(values)
        | (values <= 0 if open_low else values < 0)
        | (values >= 1 if open_high else values > 1)
    )
    if np.any(bad):
        interval = ("(" if open_low else "[") + "0, 1" + (")" if open_high else "]")
        worst = values[bad].ravel()[0] if values.ndim else values
        raise PrivriskError(f"{name}: must be a probability in {interval}, got {float(worst):g}", param=name)
    return values


def check_whole(value: Any, *, name: str, minimum: int = 0, maximum: int | None = None) -> int:
    """A whole number within [minimum, maximum] (seeds, repetitions, trials, k).

    Example:
        >>> check_whole(7.0, name="seed")
        7
        >>> check_whole(-1, name="seed")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: seed: must be a whole number ≥ 0, got -1
    """
    try:
        number = float(value)
        whole = math.isfinite(number) and number == int(number)
    except (TypeError, ValueError, OverflowError):
        whole = False
    if not whole or int(number) < minimum or (maximum is not None and int(number) > maximum):
        limits = f"≥ {minimum}" if maximum is None else f"between {minimum} and {maximum:,}"
        raise PrivriskError(f"{name}: must be a whole number {limits}, got {value!r}", param=name)
    return int(number)


def is_blank(value: Any) -> bool:
    """Nothing given: None, or text of nothing but spaces (a page's empty field).

    Example:
        >>> is_blank(None), is_blank("  "), is_blank(0), is_blank("0")
        (True, True, False, False)
    """
    return value is None or (isinstance(value, str) and not value.strip())


def text_or_none(value: Any) -> str | None:
    """The text given, without surrounding spaces, or None for nothing (:func:`is_blank`)."""
    return None if is_blank(value) else str(value).strip()


def read_number(value: Any, *, name: str, thousands: bool = False) -> Any:
    """A float from text as typed (a page's field, ``" 0.75 "``); any other value as given, for the check after.

    ``thousands`` drops the commas of ``"1,000"``.

    Example:
        >>> read_number(" 0.75 ", name="u"), read_number(3, name="u"), read_number("1,000", name="n", thousands=True)
        (0.75, 3, 1000.0)
        >>> read_number("x", name="u")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: u: 'x' is not a number
    """
    if not isinstance(value, str):
        return value
    try:
        return float(value.strip().replace(",", "") if thousands else value)
    except ValueError:
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name) from None


def optional_number(value: Any, *, name: str) -> float | None:
    """None for nothing (:func:`is_blank`); else a float from a number or its text, or an error naming ``name``.

    Example:
        >>> optional_number("", name="u"), optional_number(" 0.75", name="u"), optional_number(2, name="u")
        (None, 0.75, 2.0)
    """
    if is_blank(value):
        return None
    number = read_number(value, name=name)
    try:
        return float(number)
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name) from None


def optional_whole(value: Any, *, name: str, minimum: int = 0) -> int | None:
    """None for nothing (:func:`is_blank`); else a whole number ≥ ``minimum`` (:func:`check_whole`: text reads too).

    Example:
        >>> optional_whole(" ", name="seed"), optional_whole("7", name="seed"), optional_whole(3.0, name="seed")
        (None, 7, 3)
    """
    if is_blank(value):
        return None
    return check_whole(value, name=name, minimum=minimum)


def check_number(value: Any, *, name: str) -> float:
    """A finite float from a number or its text; True and False are not numbers.

    Example:
        >>> check_number(" -2.5", name="universe_min")
        -2.5
        >>> check_number(float("inf"), name="universe_min")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: universe_min: must be a finite number, got inf
    """
    if isinstance(value, bool):
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name)
    try:
        number = float(read_number(value, name=name))
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {value!r} is not a number", param=name) from None
    if not math.isfinite(number):
        raise PrivriskError(f"{name}: must be a finite number, got {value!r}", param=name)
    return number


def set_checked(settings: Any, checked: Mapping[str, Any]) -> None:
    """Give a frozen settings object its fields in working form, once, from ``__post_init__``.

    Example:
        >>> from dataclasses import dataclass
        >>> @dataclass(frozen=True)
        ... class Settings:
        ...     k: Any = "3"
        ...     def __post_init__(self):
        ...         set_checked(self, {"k": check_k(int(self.k))})
        >>> Settings().k
        3
    """
    for name, value in checked.items():
        object.__setattr__(settings, name, value)


def take_old_data(settings: Any, old: Mapping[str, Any]) -> None:
    """Move a value given under an old name of a settings object's ``data`` (kept one release) into ``data``.

    Each old name given warns (DeprecationWarning, at the caller of the settings); one given beside ``data`` (or
    beside another old name) is an error naming it. Call it first in ``__post_init__``; a frozen object is fine.
    """
    for name, given in old.items():
        if is_blank(given):
            continue
        warnings.warn(deprecation_message(f"{type(settings).__name__}({name}=…)", "data=…"), DeprecationWarning,
                      stacklevel=4)  # fmt: skip
        if settings.data is not None:
            raise PrivriskError(f"{name}: the old name of data; give one of them", param=name)
        object.__setattr__(settings, "data", given)


def check_k(k: Any, *, name: str = "k", minimum: int = 1, below: int | None = None) -> int:
    """A count k ≥ minimum and, where given, k < below (e.g. the number of nearest points among t databases).

    Example:
        >>> check_k(4, below=5)
        4
        >>> check_k(5, below=5)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: k: must be a whole number between 1 and 4, got 5
    """
    maximum = None if below is None else below - 1
    if maximum is not None and maximum < minimum:
        raise PrivriskError(f"{name}: no value is possible (it must lie below {below})", param=name)
    return check_whole(k, name=name, minimum=minimum, maximum=maximum)


def check_values(
    values: Any, *, name: str = "values", minimum: int = 1, drop_nan: bool = False, what: str = "values"
) -> np.ndarray:
    """Numbers as a 1-D float array: finite, at least ``minimum`` of them (NaN dropped first with ``drop_nan``).

    Example:
        >>> check_values([3, 1, float("nan")], drop_nan=True).tolist()
        [3.0, 1.0]
        >>> check_values([1, float("inf")])
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: values: contain NaN or infinite values; drop missing values first
    """
    import numpy as np

    try:
        x = np.asarray(values, dtype=float).ravel()
    except (TypeError, ValueError):
        raise PrivriskError(f"{name}: {what} must be numbers", param=name) from None
    if drop_nan:
        x = x[~np.isnan(x)]
    if np.any(~np.isfinite(x)):
        raise PrivriskError(f"{name}: contain NaN or infinite values; drop missing values first", param=name)
    if x.size < minimum:
        raise PrivriskError(f"{name}: needs at least {minimum} {what}, got {x.size}", param=name)
    return x


_T = TypeVar("_T", bound=str)


def check_summable(values: np.ndarray, *, name: str = "values") -> np.ndarray:
    """Finite values whose sum of magnitudes is finite too, so a sum, mean or sensitivity cannot overflow.

    Example:
        >>> import numpy as np
        >>> check_summable(np.array([1e308, 1e308]))
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: values: their sum overflows a float (largest magnitude 1e+308); rescale them
    """
    import numpy as np

    with np.errstate(over="ignore", invalid="ignore"):
        total = float(np.sum(np.abs(values)))
    if not math.isfinite(total):
        biggest = float(np.max(np.abs(values))) if np.size(values) else float("nan")
        raise PrivriskError(
            f"{name}: their sum overflows a float (largest magnitude {biggest:g}); rescale them", param=name
        )
    return values


def check_choice(
    value: Any, choices: Sequence[_T], *, name: str, aliases: dict[str, str] | None = None
) -> _T:
    """One of a fixed set of words, case and surrounding space ignored (queries, densities, engines, …).

    Example:
        >>> check_choice(" Var ", QUERIES, name="query", aliases={"var": "variance"})
        'variance'
        >>> check_choice("mode", QUERIES, name="query")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: query: unknown query 'mode'; choose one of count, sum, mean, median, min, max, variance, std
    """
    word = str(value).strip().lower()
    word = (aliases or {}).get(word, word)
    for choice in choices:
        if word == choice:
            return choice
    raise PrivriskError(f"{name}: unknown {name} {value!r}; choose one of {', '.join(choices)}", param=name)


def check_query(query: Any, *, name: str = "query", queries: Sequence[str] = QUERIES) -> str:
    """A query of the core (``var`` is accepted for ``variance``).

    Example:
        >>> check_query("VAR")
        'variance'
    """
    return check_choice(query, queries, name=name, aliases={"var": "variance"})


def quote_identifier(name: str, engine: Literal["duckdb", "spark"] = "duckdb") -> str:
    """A column name quoted for SQL (DuckDB: double quotes; Spark: back ticks), quotes inside doubled.

    Example:
        >>> quote_identifier('a"b'), quote_identifier("a`b", "spark")
        ('"a""b"', '`a``b`')
    """
    if engine == "spark":
        return "`" + name.replace("`", "``") + "`"
    return '"' + name.replace('"', '""') + '"'


def parse_numbers(text: str, *, name: str) -> list[float]:
    """A comma-separated list of numbers, as every list option reads one (empty parts are skipped).

    ``name`` is the parameter (or an option such as ``--fpr``) the errors name.

    Example:
        >>> parse_numbers("14, 20,30", name="sweep_values")
        [14.0, 20.0, 30.0]
    """
    values = []
    for part in (p.strip() for p in str(text).split(",")):
        if not part:
            continue
        try:
            values.append(float(part))
        except ValueError:
            raise PrivriskError(f"{name}: {part!r} is not a number", param=name) from None
    if not values:
        raise PrivriskError(f"{name}: give at least one number", param=name)
    return values


def parse_bounds(text: str, *, name: str) -> tuple[float, float]:
    """``LO,HI`` with LO < HI: a universe's bounds (a universe of one value has no sensitivity to speak of).

    Example:
        >>> parse_bounds("0,100", name="universe")
        (0.0, 100.0)
    """
    values = parse_numbers(text, name=name)
    if len(values) != 2:
        raise PrivriskError(f"{name}: give two numbers LO,HI, got {text!r}", param=name)
    lo, hi = values
    if not lo < hi:
        raise PrivriskError(
            f"{name}: the lower bound must be below the upper bound, got {text!r}", param=name
        )
    return lo, hi


def check_bounds(value: Any, *, name: str) -> tuple[float, float]:
    """``"LO,HI"`` or a pair, as finite floats with LO < HI (a universe of one value has no sensitivity).

    Example:
        >>> check_bounds("0,100", name="universe"), check_bounds((1, 5), name="universe")
        ((0.0, 100.0), (1.0, 5.0))
        >>> check_bounds((5, 1), name="universe")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: universe: the lower bound must be below the upper bound, got (5, 1)
    """
    if isinstance(value, str):
        lo, hi = parse_bounds(value, name=name)
    else:
        try:
            lo, hi = (float(x) for x in value)
        except (TypeError, ValueError):
            raise PrivriskError(f"{name}: give two numbers LO,HI, got {value!r}", param=name) from None
        if not lo < hi:
            raise PrivriskError(
                f"{name}: the lower bound must be below the upper bound, got ({lo:g}, {hi:g})", param=name
            )
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise PrivriskError(f"{name}: bounds must be finite numbers, got [{lo}, {hi}]", param=name)
    return lo, hi


_SIZE_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3, "gb": 1000**3}
_SIZE_UNITS |= {"kib": 1024, "mib": 1024**2, "gib": 1024**3}


def parse_size(text: str | int, *, name: str = "max_upload") -> int:
    """A size in bytes from ``500MB``, ``2GB``, ``100k`` or a plain number of bytes (decimal units; KiB/MiB too).

    Raises:
        PrivriskError: (parameter ``name``) for text that is not a size or a size below one byte.

    Example:
        >>> parse_size("500MB"), parse_size("1.5k"), parse_size(42), parse_size("1KiB")
        (500000000, 1500, 42, 1024)
    """
    raw = str(text).strip().lower().replace(" ", "")
    number = raw.rstrip("bikmgt")
    unit = raw[len(number) :]
    try:
        value = float(number) * _SIZE_UNITS[unit]
    except (KeyError, ValueError):
        raise PrivriskError(
            f"{name}: {text!r} is not a size such as 500MB, 2GB or 100k", param=name
        ) from None
    if not math.isfinite(value) or value < 1:
        raise PrivriskError(f"{name}: must be at least one byte, got {text!r}", param=name)
    return int(value)
