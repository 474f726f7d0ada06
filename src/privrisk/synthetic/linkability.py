"""Linkability: two files about the same people, each with some of the attacker's columns, joined through the
synthetic file.

The attacker of Giomi et al. (2023, §3.2) holds two files about the same targets: one with the first part of its
columns, one with the rest. For each target it finds the nearest synthetic record(s) on each part; when the two
searches share a record, the two halves of the target are linked. The success on training records beyond the
success on control records (a control target is linked only by what the data's structure allows) is the risk.

Example:
    >>> import pandas as pd
    >>> from privrisk.synthetic._frames import encode
    >>> frame = pd.DataFrame({"a": range(50), "b": range(50, 100)})
    >>> others = pd.DataFrame({"a": range(50), "b": range(99, 49, -1)})   # the same values, paired otherwise
    >>> o = linkability(encode(frame, frame, others), (("a",), ("b",)), targets=20, seed=0)
    >>> o.risk.attack_rate, o.risk.control_rate
    (1.0, 0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from privrisk.synthetic._frames import Encoded, Table, nearest
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE, excess_risk
from privrisk.synthetic.outcome import AttackOutcome

__all__ = ["linkability", "linked"]


def linked(
    targets: Table,
    enc: Encoded,
    parts: tuple[Sequence[int], Sequence[int]],
    *,
    neighbours: int = 1,
    order: np.ndarray | None = None,
    progress: Callable[[], None] | None = None,
) -> np.ndarray:
    """For each target, whether its two parts have a nearest synthetic record in common (of ``neighbours``)."""
    first, _ = nearest(
        targets, enc.synthetic, parts[0], enc.numeric, k=neighbours, order=order, progress=progress
    )
    second, _ = nearest(
        targets, enc.synthetic, parts[1], enc.numeric, k=neighbours, order=order, progress=progress
    )
    if neighbours == 1:
        return first[:, 0] == second[:, 0]
    return np.array([bool(set(a) & set(b)) for a, b in zip(first, second, strict=True)])


def linkability(
    enc: Encoded,
    parts: tuple[Sequence[str], Sequence[str]],
    *,
    targets: int = 2000,
    neighbours: int = 1,
    confidence: float = DEFAULT_CONFIDENCE,
    seed: int | np.random.Generator | None = None,
    order: np.ndarray | None = None,
    progress: Callable[[], None] | None = None,
) -> AttackOutcome:
    """The linkability attack with the attacker's columns split in ``parts``, and its excess risk.

    Args:
        enc: the encoded files.
        parts: the columns of the attacker's first and second file (both non-empty).
        targets: training (and control) records attacked; at most the size of the smaller set.
        neighbours: how many nearest synthetic records each part considers (Anonymeter's ``n_neighbors``).
        confidence: of the risk's interval.
        seed: which targets; ties among equally near records are broken by ``order`` (default: a random order).
        order: the search order of the synthetic records, shared with the other attacks of a run.
        progress: called after each block of the search.
    """
    rng = np.random.default_rng(seed)
    if order is None:
        order = rng.permutation(enc.synthetic.rows)
    cols = (enc.index(parts[0]), enc.index(parts[1]))
    sizes = [enc.original.rows] + ([enc.control.rows] if enc.control is not None else [])
    n = min(targets, *sizes)
    train = enc.original.take(rng.choice(enc.original.rows, size=n, replace=False))
    hits = int(linked(train, enc, cols, neighbours=neighbours, order=order, progress=progress).sum())
    control_hits = None
    if enc.control is not None:
        control = enc.control.take(rng.choice(enc.control.rows, size=n, replace=False))
        control_hits = int(
            linked(control, enc, cols, neighbours=neighbours, order=order, progress=progress).sum()
        )
    # The random attacker draws `neighbours` synthetic records for each part.
    m = enc.synthetic.rows
    k = min(neighbours, m)
    guesses = [
        bool(set(rng.choice(m, k, replace=False)) & set(rng.choice(m, k, replace=False))) for _ in range(n)
    ]
    risk = excess_risk(hits, n, control_hits, None if control_hits is None else n, confidence=confidence)
    aux = tuple(parts[0]) + tuple(parts[1])
    return AttackOutcome("linkability", "Linkability", risk, (int(sum(guesses)), n), targets, n, aux=aux,
                         parts=(tuple(parts[0]), tuple(parts[1])))  # fmt: skip
