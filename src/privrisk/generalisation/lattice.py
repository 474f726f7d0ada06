"""The generalisation lattice and its search: one node per vector of levels, the least nodes that meet a target.

A node gives each quasi-identifier a level of its hierarchy (:mod:`privrisk.generalisation.hierarchy`); node a lies
below node b when a ≤ b componentwise (a is the more specific generalisation). :func:`lattice_nodes` lists every
node, :func:`minimal` the passing nodes with no passing node below them, and :func:`search_lattice` finds them
with as few evaluations as the target allows: when passing is monotone (a generalisation of a passing node passes,
a specialisation of a failing node fails: k-anonymity, k-map and δ-presence without suppression; Nergiz, Atzori and
Clifton 2007; Samarati 2001) both are tagged without evaluation (predictive tagging, as ARX's Flash; Kohlmayer et
al. 2012). The nodes are visited height by height as a binary search would (:func:`bisection_order`), so that
tagging prunes both ways early. A target that is not monotone evaluates every node, and the result is that of an
exhaustive search.

Example (k = 2 on one key with levels raw → decade → ``*``; only the raw level fails):
    >>> nodes = lattice_nodes((0,), (3,))
    >>> found = search_lattice(nodes, lambda node: Judged(bool(node[0] >= 1)), monotone=True)
    >>> nodes[found.minimal].tolist(), int(found.evaluated.sum())
    ([[1]], 2)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

import numpy as np

__all__ = ["Judged", "Judgement", "Tagging", "bisection_order", "lattice_nodes", "minimal", "search_lattice"]


class Judgement(Protocol):
    """What the search reads of a node's evaluation: whether it passes, and whether a failure tags down.

    ``monotone_fail`` says that the node fails a part of the target that is monotone even when the whole is not
    (the records in classes below k, with suppression allowed), so that its specialisations fail too.
    """

    @property
    def passes(self) -> bool: ...

    @property
    def monotone_fail(self) -> bool: ...


@dataclass(frozen=True)
class Judged:
    """A node's evaluation reduced to what the search reads (:class:`Judgement`)."""

    passes: bool
    monotone_fail: bool = False


J = TypeVar("J", bound=Judgement)


@dataclass(frozen=True, eq=False)
class Tagging(Generic[J]):
    """A lattice searched by :func:`search_lattice`.

    Attributes:
        nodes: every node (rows of levels, :func:`lattice_nodes` order).
        passing: whether each node passes (evaluated, or tagged by monotonicity).
        evaluated: whether each node was evaluated.
        evaluations: each evaluated node's evaluation, by its row in ``nodes``.
        minimal: the rows of the passing nodes with no passing node below them (:func:`minimal`).
    """

    nodes: np.ndarray
    passing: np.ndarray
    evaluated: np.ndarray
    evaluations: dict[int, J]
    minimal: np.ndarray


def lattice_nodes(base: Sequence[int], heights: Sequence[int]) -> np.ndarray:
    """Every node from the levels ``base`` up to (not including) ``heights``, as rows of levels, the last
    quasi-identifier's level changing fastest (mixed radix).

    Example:
        >>> lattice_nodes((0, 1), (2, 3)).tolist()
        [[0, 1], [0, 2], [1, 1], [1, 2]]
    """
    ranges = [range(int(b), int(h)) for b, h in zip(base, heights, strict=True)]
    return np.asarray(list(itertools.product(*ranges)), dtype=np.int64).reshape(-1, len(ranges))


def bisection_order(nodes: np.ndarray, base) -> np.ndarray:
    """Visit heights as a binary search would (middle first), so that tagging prunes both ways early.

    Example:
        >>> bisection_order(lattice_nodes((0,), (5,)), (0,)).tolist()
        [2, 0, 3, 1, 4]
    """
    heights = (nodes - np.asarray(base)).sum(axis=1)
    top = int(heights.max()) if heights.size else 0
    order, queue, seen = [], [(0, top)], set()
    while queue:
        lo, hi = queue.pop(0)
        if lo > hi:
            continue
        mid = (lo + hi) // 2
        if mid not in seen:
            seen.add(mid)
            order.append(mid)
        queue += [(lo, mid - 1), (mid + 1, hi)]
    rank = np.empty(top + 1, dtype=np.int64)
    rank[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
    return np.lexsort((np.arange(len(nodes)), rank[heights]))


def minimal(nodes: np.ndarray, passing: np.ndarray) -> np.ndarray:
    """Indices of the passing nodes that have no other passing node below them (componentwise ≤).

    ``nodes`` must be the full lattice in :func:`lattice_nodes` order (mixed radix, last level fastest). One pass
    over the heights: a node has a passing node below it when one of its direct specialisations passes or has
    one below it, so the cost is O(nodes × quasi-identifiers) even when passing is not monotone.

    Example:
        >>> minimal(lattice_nodes((0, 0), (2, 2)), np.array([False, True, True, True])).tolist()
        [1, 2]
    """
    n, q = nodes.shape
    passing = np.asarray(passing, dtype=bool)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    lo = nodes.min(axis=0)
    spans = nodes.max(axis=0) - lo + 1
    strides = np.ones(q, dtype=np.int64)
    for j in range(q - 2, -1, -1):
        strides[j] = strides[j + 1] * spans[j + 1]
    below = np.zeros(n, dtype=bool)
    heights = (nodes - lo).sum(axis=1)
    for h in range(1, int(heights.max()) + 1 if n else 0):
        layer = np.flatnonzero(heights == h)
        acc = np.zeros(layer.size, dtype=bool)
        for j in range(q):
            has = nodes[layer, j] > lo[j]
            pred = layer[has] - strides[j]
            acc[has] |= passing[pred] | below[pred]
        below[layer] = acc
    return np.flatnonzero(passing & ~below).astype(np.int64)


def search_lattice(
    nodes: np.ndarray,
    evaluate: Callable[[np.ndarray], J],
    *,
    monotone: bool,
    progress: Callable[[], object] | None = None,
) -> Tagging[J]:
    """The minimal passing nodes of a lattice, evaluating as few nodes as the target allows (module docstring).

    Args:
        nodes: the full lattice (:func:`lattice_nodes`).
        evaluate: a node's evaluation (a :class:`Judgement`: ``passes``, ``monotone_fail``).
        monotone: whether passing is monotone, so that a passing node's generalisations pass and a failing
            node's specialisations fail without evaluation. When False only a ``monotone_fail`` tags down; with
            no such failure every node is evaluated.
        progress: called once per evaluated node.

    Example (the lattice of two keys of three levels each; a node passes when its levels sum to at least 2):
        >>> nodes = lattice_nodes((0, 0), (3, 3))
        >>> found = search_lattice(nodes, lambda n: Judged(bool(n.sum() >= 2)), monotone=True)
        >>> nodes[found.minimal].tolist(), int(found.evaluated.sum()), int(found.passing.sum())
        ([[0, 2], [1, 1], [2, 0]], 6, 6)
        >>> exhaustive = search_lattice(nodes, lambda n: Judged(bool(n.sum() >= 2)), monotone=False)
        >>> exhaustive.minimal.tolist() == found.minimal.tolist(), int(exhaustive.evaluated.sum())
        (True, 9)
    """
    status = np.zeros(len(nodes), dtype=np.int8)  # 0 unknown, 1 pass, -1 fail
    evaluated = np.zeros(len(nodes), dtype=bool)
    evaluations: dict[int, J] = {}
    base = nodes.min(axis=0) if len(nodes) else np.zeros(nodes.shape[1], dtype=np.int64)
    for i in bisection_order(nodes, base):
        if status[i] != 0:
            continue
        judged = evaluate(nodes[i])
        evaluated[i] = True
        evaluations[int(i)] = judged
        if progress:
            progress()
        if judged.passes:
            status[i] = 1
            if monotone:
                up = np.all(nodes >= nodes[i], axis=1) & (status == 0)
                status[up] = 1
        else:
            status[i] = -1
            if monotone or judged.monotone_fail:
                down = np.all(nodes <= nodes[i], axis=1) & (status == 0)
                status[down] = -1
    passing = status == 1
    return Tagging(nodes, passing, evaluated, evaluations, minimal(nodes, passing))
