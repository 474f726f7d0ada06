"""Inference: the attacker holds some columns of a person and reads a secret column off the nearest synthetic
record.

The attacker of Giomi et al. (2023, §3.3) finds, for each target, the synthetic record nearest on the columns it
holds and guesses that record's secret. A guess is right when it equals the secret (a categorical column, or a
numeric one with at most :data:`EXACT_DISTINCT` distinct values) or lies within :data:`TOLERANCE` of it relative to
the secret's own size (Anonymeter divides by the guess instead, which makes a guess of 0 right for any secret of
0 and fails near 0). Every column the attacker does not hold is tried as a secret; with fixed columns one search
serves every secret.

Example:
    >>> import pandas as pd
    >>> from privrisk.synthetic._frames import encode
    >>> frame = pd.DataFrame({"a": range(60), "s": list("xyz") * 20})
    >>> [o.secret for o in inference(encode(frame, frame, frame.copy()), ("a",), ["s"], targets=30, seed=0)]
    ['s']
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from privrisk.synthetic._frames import Encoded, Table, nearest
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE, excess_risk
from privrisk.synthetic.outcome import AttackOutcome

__all__ = ["EXACT_DISTINCT", "TOLERANCE", "correct_guesses", "inference"]

TOLERANCE = 0.05
"""A numeric guess is right within 5 % of the secret (Anonymeter's tolerance)."""
EXACT_DISTINCT = 20
"""A numeric column with at most this many distinct values is guessed exactly, like a categorical one."""


def correct_guesses(
    guess: np.ndarray, secret: np.ndarray, *, exact: bool, scale: tuple[float, float] = (0.0, 1.0)
) -> np.ndarray:
    """Whether each guess is right: equal (``exact``), else |guess − secret| ≤ TOLERANCE·|secret| in the file's
    own units (``scale``, the column's (minimum, range), turns the encoded values back); two missing values agree.

    Example:
        >>> correct_guesses(np.array([1.0, 2.0, np.nan]), np.array([1.0, 3.0, np.nan]), exact=True).tolist()
        [True, False, True]
    """
    both = np.isnan(guess) & np.isnan(secret)
    if exact:
        return both | (guess == secret)
    low, width = scale
    g, s = low + guess * width, low + secret * width
    with np.errstate(invalid="ignore"):
        close = np.abs(g - s) <= TOLERANCE * np.abs(s)
    return both | close


def _exact(values: np.ndarray, numeric: bool) -> bool:
    if not numeric:
        return True
    present = values[~np.isnan(values)]
    return np.unique(present).size <= EXACT_DISTINCT


def _nearest_rows(
    targets: Table, enc: Encoded, aux: Sequence[int], order: np.ndarray, progress: Callable[[], None] | None
) -> np.ndarray:
    index, _ = nearest(targets, enc.synthetic, aux, enc.numeric, order=order, progress=progress)
    return index[:, 0]


def inference(
    enc: Encoded,
    aux: Sequence[str],
    secrets: Sequence[str],
    *,
    targets: int = 2000,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
    order: np.ndarray | None = None,
    progress: Callable[[], None] | None = None,
) -> list[AttackOutcome]:
    """The inference attack on each secret, and its excess risk.

    Args:
        enc: the encoded files.
        aux: the columns the attacker holds; empty: every column but the secret (one search per secret).
        secrets: the columns inferred.
        targets: training (and control) records attacked; at most the size of the smaller set.
        confidence: of the risks' intervals.
        seed: which targets, and the random guesser's records.
        order: the search order of the synthetic records (ties go to the earlier).
        progress: called after each block of the search.
    """
    rng = np.random.default_rng(seed)
    if order is None:
        order = rng.permutation(enc.synthetic.rows)
    sizes = [enc.original.rows] + ([enc.control.rows] if enc.control is not None else [])
    n = min(targets, *sizes)
    train = enc.original.take(rng.choice(enc.original.rows, size=n, replace=False))
    control = (
        None if enc.control is None else enc.control.take(rng.choice(enc.control.rows, size=n, replace=False))
    )
    random_rows = rng.integers(0, enc.synthetic.rows, size=n)
    cache: dict[tuple[int, ...], tuple[np.ndarray, np.ndarray | None]] = {}
    out = []
    for name in secrets:
        j = enc.columns.index(name)
        held = enc.index(aux) if aux else [i for i in range(len(enc.columns)) if i != j]
        key = tuple(held)
        if key not in cache:
            found_train = _nearest_rows(train, enc, held, order, progress)
            found_control = None if control is None else _nearest_rows(control, enc, held, order, progress)
            cache[key] = (found_train, found_control)
        found_train, found_control = cache[key]
        exact = _exact(enc.synthetic.values[:, j], enc.numeric[j])
        scale = enc.scale.get(name, (0.0, 1.0))
        syn = enc.synthetic.values[:, j]

        def right(
            rows: np.ndarray,
            table: Table,
            j: int = j,
            exact: bool = exact,
            syn: np.ndarray = syn,
            scale: tuple[float, float] = scale,
        ) -> int:
            return int(correct_guesses(syn[rows], table.values[:, j], exact=exact, scale=scale).sum())

        hits = right(found_train, train)
        control_hits = None if control is None or found_control is None else right(found_control, control)
        guessed = right(random_rows, train)
        risk = excess_risk(hits, n, control_hits, None if control_hits is None else n, confidence=confidence)
        held_names = tuple(enc.columns[i] for i in held)
        out.append(AttackOutcome("inference", f"Inference of {name!r}", risk, (guessed, n), targets, n,
                                 aux=held_names, secret=name))  # fmt: skip
    return out
