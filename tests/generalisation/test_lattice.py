"""The lattice and its search: the minimal passing nodes against a pairwise comparison of every node, tagging
against an exhaustive evaluation."""

from __future__ import annotations

import itertools

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from privrisk.generalisation.lattice import Judged, bisection_order, lattice_nodes, minimal, search_lattice

HEIGHTS = st.lists(st.integers(1, 4), min_size=1, max_size=4)


def _pairwise_minimal(nodes, passing):
    good = [tuple(map(int, v)) for v, ok in zip(nodes, passing, strict=True) if ok]
    return sorted(
        v for v in good if not any(u != v and all(a <= b for a, b in zip(u, v, strict=True)) for u in good)
    )


def _up_set(nodes, generators):
    """Whether each node lies at or above one of ``generators``: a monotone target (k-anonymity's shape)."""
    return np.asarray(
        [any(all(a >= b for a, b in zip(v, g, strict=True)) for g in generators) for v in nodes]
    )


def test_nodes_are_every_vector_of_levels_last_fastest():
    nodes = lattice_nodes((0, 1, 0), (2, 3, 3))
    assert nodes.tolist() == [list(v) for v in itertools.product(range(2), range(1, 3), range(3))]
    # microdata's recoding listed them as np.indices does; the order is the same
    assert np.array_equal(lattice_nodes((0, 0), (3, 2)), np.indices((3, 2)).reshape(2, -1).T)


@given(HEIGHTS, st.data())
def test_minimal_nodes_match_pairwise_comparison(heights, data):
    nodes = np.asarray(list(itertools.product(*[range(h) for h in heights])), dtype=np.int64)
    passing = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(nodes), max_size=len(nodes))))
    got = sorted(tuple(map(int, nodes[i])) for i in minimal(nodes, passing))
    assert got == _pairwise_minimal(nodes, passing)


@given(HEIGHTS, st.data())
def test_bisection_order_visits_every_node_once_heights_together(heights, data):
    base = [data.draw(st.integers(0, 2)) for _ in heights]
    nodes = lattice_nodes(base, [b + h for b, h in zip(base, heights, strict=True)])
    order = bisection_order(nodes, base)
    assert sorted(order.tolist()) == list(range(len(nodes)))
    visited = (nodes[order] - base).sum(axis=1)
    assert all(
        visited[i] == visited[i + 1] or visited[i + 1] not in visited[: i + 1]
        for i in range(len(visited) - 1)
    )


@given(HEIGHTS, st.data())
def test_tagging_a_monotone_target_finds_what_an_exhaustive_search_finds(heights, data):
    nodes = lattice_nodes([0] * len(heights), heights)
    picks = data.draw(st.lists(st.integers(0, len(nodes) - 1), max_size=3))
    truth = _up_set(nodes, [nodes[i] for i in picks])
    calls = []
    found = search_lattice(nodes, lambda n: Judged(bool(truth[_row(nodes, n)])), monotone=True,
                           progress=lambda: calls.append(1))  # fmt: skip
    assert np.array_equal(found.passing, truth)
    assert sorted(tuple(map(int, nodes[i])) for i in found.minimal) == _pairwise_minimal(nodes, truth)
    assert len(calls) == int(found.evaluated.sum()) == len(found.evaluations) <= len(nodes)
    assert all(found.evaluations[i].passes == truth[i] for i in found.evaluations)


@given(HEIGHTS, st.data())
def test_a_target_that_is_not_monotone_is_evaluated_everywhere(heights, data):
    nodes = lattice_nodes([0] * len(heights), heights)
    truth = np.asarray(data.draw(st.lists(st.booleans(), min_size=len(nodes), max_size=len(nodes))))
    found = search_lattice(nodes, lambda n: Judged(bool(truth[_row(nodes, n)])), monotone=False)
    assert found.evaluated.all() and np.array_equal(found.passing, truth)
    assert sorted(tuple(map(int, nodes[i])) for i in found.minimal) == _pairwise_minimal(nodes, truth)


def test_a_monotone_failure_tags_the_nodes_below_even_when_the_target_is_not_monotone():
    # Passing = levels sum to 3 exactly (not monotone); every node of sum < 3 fails a monotone part.
    nodes = lattice_nodes((0, 0), (3, 3))
    found = search_lattice(nodes, lambda n: Judged(bool(n.sum() == 3), monotone_fail=bool(n.sum() < 3)),
                           monotone=False)  # fmt: skip
    assert nodes[found.minimal].tolist() == [[1, 2], [2, 1]]
    # height 2 is visited first; its failures tag heights 0 and 1, which are never evaluated
    assert nodes[~found.evaluated].sum(axis=1).tolist() == [0, 1, 1]
    assert found.passing.tolist() == [bool(v.sum() == 3) for v in nodes]


def _row(nodes, node):
    return int(np.flatnonzero((nodes == node).all(axis=1))[0])
