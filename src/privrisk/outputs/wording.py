"""The words of output checking: conditions as plain text, counts and intervals in phrases, units by what is counted.

Every sentence of :mod:`privrisk.outputs` that names a group, a cell, a count or an interval is built here, so a
checker reads the same phrase everywhere:

- a ``where`` condition and its negation in plain form (``age >= 19`` false is ``age < 19``, never
  ``not (age >= 19)``; ``not (agegroup <> '65+')`` is ``agegroup = '65+'``), with brackets where an ``or`` meets
  an ``and``: :func:`negated`, :func:`condition_text`, :func:`group_text`;
- a released cell by its labels (``region = West, total over sex``): :func:`cell_text`;
- a count ("exactly 1 person", "between 2 and 5 firms") and an interval of a magnitude ("exactly 1,080", "between
  1,079.6 and 1,080.4": digits are added until the two ends differ): :func:`count_phrase`, :func:`interval_phrase`;
- units: what a count counts, from the spec's ``unit`` (default ``people``), singular for one:
  :func:`unit_word`, :func:`quantity`.

Conditions are read by a small parser of the SQL a ``where`` holds (comparisons, ``and``, ``or``, ``not``, ``in``,
``between``, ``is null``, ``like``); an operand is kept as the user wrote it (``age + 1``, ``lower(region)``).
What the parser does not read is kept whole, and negated as ``not (…)``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from privrisk._format import listing, number

__all__ = [
    "DEFAULT_UNIT",
    "cell_text",
    "cells_phrase",
    "condition_text",
    "count_phrase",
    "group_text",
    "interval_phrase",
    "negated",
    "quantity",
    "singular",
    "unit_word",
]

DEFAULT_UNIT = "people"

# ---------------------------------------------------------------------------------------------------- units

_IRREGULAR = {"people": "person", "persons": "person", "children": "child", "men": "man", "women": "woman"}


def singular(unit: str) -> str:
    """The singular of a unit given in the plural (``firms`` → ``firm``).

    Example:
        >>> singular("people"), singular("firms"), singular("households"), singular("companies")
        ('person', 'firm', 'household', 'company')
        >>> singular("businesses"), singular("staff")
        ('business', 'staff')
    """
    word = unit.strip()
    low = word.lower()
    if low in _IRREGULAR:
        return _IRREGULAR[low]
    if low.endswith("ies") and len(low) > 4:
        return word[:-3] + "y"
    if low.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if low.endswith("s") and not low.endswith("ss"):
        return word[:-1]
    return word


def unit_word(n: float, unit: str = DEFAULT_UNIT) -> str:
    """The unit for ``n`` of them: singular for exactly one.

    Example:
        >>> unit_word(1), unit_word(2), unit_word(1, "firms"), unit_word(0, "firms")
        ('person', 'people', 'firm', 'firms')
    """
    return singular(unit) if n == 1 else unit


def quantity(n: float, unit: str = DEFAULT_UNIT) -> str:
    """A whole number of something, with its unit: ``1 person``, ``1,080 firms``.

    Example:
        >>> quantity(1), quantity(1080, "firms"), quantity(2, "cells")
        ('1 person', '1,080 firms', '2 cells')
    """
    return f"{number(n)} {unit_word(n, unit)}"


def cells_phrase(k: int) -> str:
    """``1 cell``, ``3 cells``.

    Example:
        >>> cells_phrase(1), cells_phrase(0)
        ('1 cell', '0 cells')
    """
    return quantity(k, "cells")


# ------------------------------------------------------------------------------------------- counts, intervals


def count_phrase(lo: float, hi: float, unit: str = DEFAULT_UNIT) -> str:
    """A count known to lie in [lo, hi], in words.

    Example:
        >>> count_phrase(1, 1), count_phrase(20, 20, "firms"), count_phrase(2, 5), count_phrase(3, math.inf)
        ('exactly 1 person', 'exactly 20 firms', 'between 2 and 5 people', 'at least 3 people')
    """
    if lo == hi:
        return f"exactly {quantity(lo, unit)}"
    if math.isinf(hi):
        return f"at least {quantity(lo, unit)}"
    return f"between {number(lo)} and {quantity(hi, unit)}"


def _ends(lo: float, hi: float, digits: int) -> tuple[str, str]:
    """Both ends with enough significant digits that they read differently (they differ)."""
    for d in range(digits, 16):
        a, b = number(lo, d), number(hi, d)
        if a != b:
            return a, b
    return number(lo, 16), number(hi, 16)


def interval_phrase(lo: float, hi: float, unit: str | None = None, *, digits: int = 6) -> str:
    """A magnitude known to lie in [lo, hi], in words; two ends that differ never read the same.

    Example:
        >>> interval_phrase(1080, 1080), interval_phrase(1040, 1100, "euros")
        ('exactly 1,080', 'between 1,040 and 1,100 euros')
        >>> interval_phrase(1079.99996, 1080.00004)
        'between 1,079.99996 and 1,080.00004'
        >>> interval_phrase(0, math.inf), interval_phrase(-math.inf, 5), interval_phrase(-math.inf, math.inf)
        ('at least 0', 'at most 5', 'any value')
    """
    tail = f" {unit}" if unit else ""
    if math.isinf(lo) and math.isinf(hi):
        return "any value"
    if math.isinf(hi):
        return f"at least {number(lo, digits)}{tail}"
    if math.isinf(lo):
        return f"at most {number(hi, digits)}{tail}"
    if lo == hi:
        return f"exactly {number(lo, digits)}{tail}"
    a, b = _ends(lo, hi, digits)
    return f"between {a} and {b}{tail}"


# ------------------------------------------------------------------------------------------------ conditions

_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>'(?:[^']|'')*')
    | (?P<qid>"(?:[^"]|"")*")
    | (?P<num>(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)
    | (?P<op><=|>=|<>|!=|==|=|<|>)
    | (?P<punct>[(),])
    | (?P<word>[A-Za-z_][A-Za-z0-9_.]*)
    | (?P<other>\S)
    )""",
    re.VERBOSE,
)
_ARITHMETIC = set("+-*/%|:")
_KEYWORDS = {"and", "or", "not", "in", "between", "is", "null", "like", "ilike"}
_FLIP = {"=": "<>", "==": "<>", "<>": "=", "!=": "=", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}


@dataclass(frozen=True)
class _Tok:
    kind: str
    text: str
    start: int
    end: int

    @property
    def key(self) -> str:
        return self.text.lower() if self.kind == "word" else self.text


def _tokens(text: str) -> list[_Tok]:
    out: list[_Tok] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            break
        kind = m.lastgroup or "other"
        out.append(_Tok(kind, m.group(kind), m.start(kind), m.end(kind)))
        pos = m.end()
    return out


class _Unreadable(Exception):
    """The parser does not read this condition: it is kept whole."""


# The nodes: ("and", [n…]), ("or", [n…]), ("not", n), ("cmp", left, op, right), ("in", left, neg, items),
# ("between", left, neg, lo, hi), ("null", left, neg), ("like", left, neg, op, pattern), ("bool", text).
_Node = tuple[Any, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.i = 0

    def peek(self, k: int = 0) -> _Tok | None:
        j = self.i + k
        return self.toks[j] if j < len(self.toks) else None

    def is_key(self, word: str, k: int = 0) -> bool:
        t = self.peek(k)
        return t is not None and t.kind == "word" and t.key == word

    def take(self) -> _Tok:
        t = self.peek()
        if t is None:
            raise _Unreadable
        self.i += 1
        return t

    def parse(self) -> _Node:
        node = self.expr()
        if self.peek() is not None:
            raise _Unreadable
        return node

    def expr(self) -> _Node:
        return self.joined("or", self.conj)

    def conj(self) -> _Node:
        return self.joined("and", self.neg)

    def joined(self, key: str, part: Callable[[], _Node]) -> _Node:
        """``part (key part)*``: one part as it is, more as ``(key, parts)``."""
        parts = [part()]
        while self.is_key(key):
            self.take()
            parts.append(part())
        return parts[0] if len(parts) == 1 else (key, parts)

    def neg(self) -> _Node:
        if self.is_key("not"):
            self.take()
            return ("not", self.neg())
        return self.predicate()

    def _closing(self, k: int) -> int:
        """The index of the bracket that closes the one at token ``k``."""
        depth = 0
        for j in range(k, len(self.toks)):
            if self.toks[j].text == "(":
                depth += 1
            elif self.toks[j].text == ")":
                depth -= 1
                if depth == 0:
                    return j
        raise _Unreadable

    def _is_predicate_word(self, t: _Tok | None) -> bool:
        return t is not None and (
            t.kind == "op" or (t.kind == "word" and t.key in {"in", "between", "is", "like", "ilike", "not"})
        )

    def predicate(self) -> _Node:
        t = self.peek()
        if t is not None and t.text == "(":
            end = self._closing(self.i)
            after = self.toks[end + 1] if end + 1 < len(self.toks) else None
            if not (after is not None and (self._is_predicate_word(after) or after.kind == "other")):
                self.take()
                inner = self.expr()
                if self.take().text != ")":
                    raise _Unreadable
                return inner
        left = self.operand()
        t = self.peek()
        if t is None or (t.kind == "word" and t.key in ("and", "or")) or t.text == ")":
            return ("bool", left)
        if t.kind == "op":
            self.take()
            return ("cmp", left, t.text, self.operand())
        neg = False
        if self.is_key("not"):
            self.take()
            neg = True
        if self.is_key("in"):
            self.take()
            if self.peek() is None or self.peek().text != "(":  # type: ignore[union-attr]
                raise _Unreadable
            start = self.i
            end = self._closing(start)
            self.i = end + 1
            return ("in", left, neg, self.text[self.toks[start].start : self.toks[end].end])
        if self.is_key("between"):
            self.take()
            lo = self.operand(stop_and=True)
            if not self.is_key("and"):
                raise _Unreadable
            self.take()
            return ("between", left, neg, lo, self.operand())
        if self.is_key("like") or self.is_key("ilike"):
            op = self.take().key
            return ("like", left, neg, op, self.operand())
        if not neg and self.is_key("is"):
            self.take()
            if self.is_key("not"):
                self.take()
                neg = True
            if not self.is_key("null"):
                raise _Unreadable
            self.take()
            return ("null", left, neg)
        raise _Unreadable

    def operand(self, *, stop_and: bool = False) -> str:
        """Tokens up to the next comparison, keyword or closing bracket, as the user wrote them."""
        start = self.i
        while True:
            t = self.peek()
            if t is None or t.text in (")", ",") or t.kind == "op":
                break
            if t.kind == "word" and t.key in _KEYWORDS:
                break
            if t.text == "(":
                self.i = self._closing(self.i) + 1
                continue
            if t.kind == "other" and t.text not in _ARITHMETIC:
                raise _Unreadable
            self.i += 1
        if self.i == start:
            raise _Unreadable
        return self.text[self.toks[start].start : self.toks[self.i - 1].end]


# What a rendering asks of a node: that it is TRUE, FALSE, or not TRUE (FALSE or NULL) or not FALSE (TRUE or
# NULL). SQL's three-valued logic: a comparison with a missing value is NULL, and a ``where`` keeps only TRUE
# rows (privrisk reads NULL as false), so the group where a condition is false is where it is FALSE or NULL.
_TRUE, _FALSE, _NOT_TRUE, _NOT_FALSE = "true", "false", "not true", "not false"
_NOT = {_TRUE: _FALSE, _FALSE: _TRUE, _NOT_TRUE: _NOT_FALSE, _NOT_FALSE: _NOT_TRUE}


def _columns(operand: str) -> set[str]:
    """The column names an operand reads (words that are not keywords, literals or function names)."""
    toks = _tokens(operand)
    names = set()
    for k, t in enumerate(toks):
        after = toks[k + 1].text if k + 1 < len(toks) else ""
        if t.kind == "qid":
            names.add(t.text[1:-1].replace('""', '"'))
        elif t.kind == "word" and t.key not in _KEYWORDS | {"true", "false"} and after != "(":
            names.add(t.text)
    return names


def _leaf(
    text: str, flipped: str, mode: str, operands: Sequence[str], missing: frozenset[str]
) -> tuple[str, str]:
    """A comparison in a mode: its text or its flipped text, with "or … is missing" where NULL counts too."""
    body = text if mode in (_TRUE, _NOT_FALSE) else flipped
    if mode in (_TRUE, _FALSE):
        return body, "atom"
    nulls = sorted({c for o in operands for c in _columns(o)} & missing)
    if not nulls:
        return body, "atom"
    return " or ".join([body, *(f"{c} is missing" for c in nulls)]), "or"


def _render(node: _Node, mode: str, missing: frozenset[str]) -> tuple[str, str]:
    """The node as plain text for the rows where it is in ``mode``, and the text's top operator (and, or,
    atom)."""
    kind = node[0]
    if kind == "not":
        return _render(node[1], _NOT[mode], missing)
    if kind in ("and", "or"):
        # All children must be TRUE (or not FALSE) for an "and"; one is enough for an "or"; turned round for the
        # other two modes (De Morgan, which holds for "not TRUE" and "not FALSE" as for plain negation).
        every = (kind == "and") == (mode in (_TRUE, _NOT_FALSE))
        op = "and" if every else "or"
        parts = []
        for child in node[1]:
            text, top = _render(child, mode, missing)
            # An "or" inside an "and" needs its brackets; an "and" inside an "or" gets them for the reader.
            parts.append(f"({text})" if top in ("and", "or") and top != op else text)
        return f" {op} ".join(parts), op
    if kind == "cmp":
        _, left, op, right = node
        return _leaf(f"{left} {'=' if op == '==' else op} {right}", f"{left} {_FLIP[op]} {right}", mode,
                     (left, right), missing)  # fmt: skip
    if kind == "in":
        _, left, neg, items = node
        yes, no = ("not in", "in") if neg else ("in", "not in")
        return _leaf(f"{left} {yes} {items}", f"{left} {no} {items}", mode, (left, items), missing)
    if kind == "between":
        _, left, neg, lo, hi = node
        yes, no = ("not between", "between") if neg else ("between", "not between")
        return _leaf(
            f"{left} {yes} {lo} and {hi}", f"{left} {no} {lo} and {hi}", mode, (left, lo, hi), missing
        )
    if kind == "like":
        _, left, neg, op, pattern = node
        yes, no = (f"not {op}", op) if neg else (op, f"not {op}")
        return _leaf(f"{left} {yes} {pattern}", f"{left} {no} {pattern}", mode, (left, pattern), missing)
    if kind == "null":
        # "is null" is never NULL itself: not TRUE is FALSE.
        _, left, neg = node
        holds = mode in (_TRUE, _NOT_FALSE)
        return f"{left} {'is missing' if holds != neg else 'is not missing'}", "atom"
    text = node[1]
    return _leaf(text, f"not {text}", mode, (text,), missing)


def negated(condition: str, missing: Sequence[str] = ()) -> str:
    """Where a condition does not hold, in plain form: comparisons turned round, ``not`` pushed inwards (De
    Morgan). ``missing``: the columns that hold missing values (a comparison with one is not true either).

    Example:
        >>> negated("age >= 19"), negated("agegroup <> '65+'"), negated("NOT (agegroup <> '65+')")
        ('age < 19', "agegroup = '65+'", "agegroup <> '65+'")
        >>> negated("region = 'A' OR age >= 65")
        "region <> 'A' and age < 65"
        >>> negated("age >= 18 AND (region = 'A' OR sex = 'f')")
        "age < 18 or (region <> 'A' and sex <> 'f')"
        >>> negated("x IN (1, 2)"), negated("income IS NULL"), negated("age BETWEEN 18 AND 65")
        ('x not in (1, 2)', 'income is not missing', 'age not between 18 and 65')
        >>> negated("smoker"), negated("age + 1 > 18"), negated("f(x) ? 3")
        ('not smoker', 'age + 1 <= 18', 'not (f(x) ? 3)')
        >>> negated("age >= 19", missing=["age"])
        'age < 19 or age is missing'
    """
    return _plain(condition, truth=False, bracket=False, missing=frozenset(missing))


def _plain(condition: str, *, truth: bool, bracket: bool, missing: frozenset[str] = frozenset()) -> str:
    try:
        text, top = _render(_Parser(condition).parse(), _TRUE if truth else _NOT_TRUE, missing)
    except _Unreadable:
        whole = condition.strip()
        return whole if truth and not bracket else (f"({whole})" if truth else f"not ({whole})")
    return f"({text})" if bracket and top in ("and", "or") else text


def condition_text(conditions: Sequence[str], truths: Sequence[bool], missing: Sequence[str] = ()) -> str:
    """Conditions that hold (``True``) or do not (``False``), joined by "and", each in plain form and bracketed
    where it is itself an "and" or an "or". ``missing``: the columns that hold missing values.

    Example:
        >>> condition_text(["age >= 18", "age >= 19"], [True, False])
        'age >= 18 and age < 19'
        >>> condition_text(["region = 'A' OR age >= 65", "sex = 'f'"], [True, True])
        "(region = 'A' or age >= 65) and sex = 'f'"
        >>> condition_text(["agegroup <> '65+'"], [False])
        "agegroup = '65+'"
    """
    many = len(conditions) > 1
    gone = frozenset(missing)
    return " and ".join(
        _plain(c, truth=bool(t), bracket=many, missing=gone) for c, t in zip(conditions, truths, strict=True)
    )


def group_text(
    labels: Mapping[str, Any],
    conditions: Sequence[str] = (),
    truths: Sequence[bool] = (),
    missing: Sequence[str] = (),
) -> str:
    """A group of the data by its grouping values and conditions: what a finding is about (``missing``: the
    columns that hold missing values, see :func:`negated`).

    Example:
        >>> group_text({"region": "West", "sex": "female"}, ["age >= 18", "age >= 19"], [True, False])
        'region = West, sex = female, age >= 18 and age < 19'
        >>> group_text({"region": "A"}, ["region = 'A' OR age >= 65"], [True])
        "region = A and (region = 'A' or age >= 65)"
        >>> group_text({})
        'everyone'
    """
    parts = [f"{v} = {x}" for v, x in labels.items()]
    gone = frozenset(missing)
    parts += [
        _plain(c, truth=bool(t), bracket=True, missing=gone) for c, t in zip(conditions, truths, strict=True)
    ]
    if not parts:
        return "everyone"
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def cell_text(labels: Mapping[str, Any], margin: str | Mapping[str, str] = "All") -> str:
    """A released cell by its labels; a margin's variables are named as totals.

    ``margin`` is the label of a total (per variable, if a mapping).

    Example:
        >>> cell_text({"region": "West", "sex": "female"})
        'region = West, sex = female'
        >>> cell_text({"region": "West", "sex": "All"}), cell_text({"region": "All", "sex": "All"}), cell_text({})
        ('region = West, total over sex', 'the grand total', 'the total')
    """
    if not labels:
        return "the total"

    def is_margin(v: str, x: Any) -> bool:
        m = margin.get(v, "All") if isinstance(margin, Mapping) else margin
        return str(x) == m

    shown = [f"{v} = {x}" for v, x in labels.items() if not is_margin(v, x)]
    totals = [v for v, x in labels.items() if is_margin(v, x)]
    if not shown:
        return "the grand total"
    return ", ".join(shown) + (f", total over {listing(totals)}" if totals else "")
