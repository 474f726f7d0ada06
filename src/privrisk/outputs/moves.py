"""Whole solutions next to the truth, found without a solver: moves that keep every released total.

Take dimensions V (grouping variables or conditions) that no released table holds all together (a table holds
its grouping variables and its condition), two levels of each, and the 2^|V| atoms that cross them (every other
dimension fixed). Adding δ to the atoms an even number of level changes away from the first and taking δ from the
others changes no released total: every table lacks some v ∈ V, and along v the two changes meet in the same cell
with opposite signs. With δ the least count among the atoms that lose (and every corner a possible atom), the
move is a whole solution: it shows at once every group whose total it changes to be not what the truth says.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

__all__ = ["TRIES", "moves", "moves_through", "touching", "walks"]

# Pairs of levels :func:`moves_through` draws for each target and set of dimensions, by default.
TRIES = 8


def _sets(sizes: tuple[int, ...], held: list[frozenset[int]], limit: int) -> list[tuple[int, ...]]:
    """The smallest sets of dimensions no table holds all together (every smaller part is held)."""
    usable = [d for d, s in enumerate(sizes) if s >= 2]
    out: list[tuple[int, ...]] = []
    for k in range(1, min(5, len(usable)) + 1):
        for combo in itertools.combinations(usable, k):
            vs = frozenset(combo)
            if any(vs <= h for h in held):
                continue
            if k == 1 or all(
                any(frozenset(sub) <= h for h in held) for sub in itertools.combinations(combo, k - 1)
            ):
                out.append(combo)
        if len(out) >= limit:
            break
    return out[:limit]


def moves(
    coords: np.ndarray,
    sizes: tuple[int, ...],
    held: list[frozenset[int]],
    point: np.ndarray,
    *,
    room: np.ndarray | None = None,
    can_gain: np.ndarray | None = None,
    whole: bool = True,
    rounds: int = 3,
    limit: int = 10,
    seed: int = 0,
) -> sp.csr_matrix:
    """Changes to ``point`` (one row each, over the atoms) that keep every released total and stay within the
    bounds: atoms lose at most ``room`` (default: their value) and gain only where ``can_gain``.

    Example:
        >>> # A 2 × 2 table of which only the rows are released: the columns' dimension is free.
        >>> coords = np.array([[0, 0], [0, 1], [1, 0], [1, 1]])
        >>> m = moves(coords, (2, 2), [frozenset({0})], np.array([3.0, 1.0, 2.0, 0.0]))
        >>> m.toarray().tolist()    # within each row, people move between the two columns
        [[1.0, -1.0, 0.0, 0.0], [-3.0, 3.0, 0.0, 0.0], [0.0, 0.0, -2.0, 2.0]]
    """
    n = coords.shape[0]
    room = point if room is None else room
    can_gain = np.ones(n, dtype=bool) if can_gain is None else can_gain
    if n == 0 or not sizes:
        return sp.csr_matrix((0, n))
    shape = tuple(sizes)
    lookup = _lookup(coords, shape)
    rng = np.random.default_rng(seed)
    every = np.arange(n)
    out = _Moves(n)
    for vs in _sets(shape, held, limit):
        # Other pairs of levels reach other atoms; with two levels each there is only one pair.
        for _ in range(rounds if any(shape[v] > 2 for v in vs) else 1):
            shift = {v: np.full(n, int(rng.integers(1, shape[v]))) for v in vs}
            corners, ok = _corners(coords, lookup, shape, every, vs, shift)
            # Each move once: from the corner of least index.
            ok &= every == np.min([i for _, i in corners], axis=0)
            out.add(corners, ok, room, can_gain, whole)
    return out.matrix()


def moves_through(
    coords: np.ndarray,
    sizes: tuple[int, ...],
    held: list[frozenset[int]],
    point: np.ndarray,
    targets: np.ndarray,
    *,
    tries: int = TRIES,
    limit: int = 10,
    seed: int = 0,
) -> sp.csr_matrix:
    """Whole moves (as :func:`moves`) with each of ``targets`` at a corner, for each set of dimensions ``tries``
    pairs of levels drawn for each target on its own: where the moves of one shift for all atoms left a group's
    total where the truth has it, these search around the group's own atoms.

    Example:
        >>> coords = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1], [1, 2]])   # 2 × 3, rows released
        >>> m = moves_through(coords, (2, 3), [frozenset({0})], np.array([3.0, 1, 0, 2, 0, 5]), np.array([0]))
        >>> bool(np.all(m.sum(axis=1) == 0)), bool(np.all(m[:, 0].toarray() != 0))
        (True, True)
    """
    n = coords.shape[0]
    targets = np.asarray(targets, dtype=np.int64)
    if n == 0 or not sizes or targets.size == 0:
        return sp.csr_matrix((0, n))
    shape = tuple(sizes)
    lookup = _lookup(coords, shape)
    rng = np.random.default_rng(seed)
    out = _Moves(n)
    can_gain = np.ones(n, dtype=bool)
    for vs in _sets(shape, held, limit):
        for _ in range(tries if any(shape[v] > 2 for v in vs) else 1):
            shift = {v: rng.integers(1, shape[v], size=targets.size) for v in vs}
            corners, ok = _corners(coords, lookup, shape, targets, vs, shift)
            out.add(corners, ok, point, can_gain, True)
    return out.matrix()


def touching(pool: sp.csr_matrix, g: sp.csr_matrix) -> sp.csr_matrix:
    """The rows of ``pool`` (moves) that change an unknown some row of ``g`` (a total) holds, in their order: the
    only moves that can change a total of ``g``. One pass over the pool's entries, with no transpose of it (the
    large request of ``benchmarks/outputs.py`` has 2·10⁶ moves with 3.2·10⁷ entries, and asks of them for 159
    totals at a time).

    Example:
        >>> pool = sp.csr_matrix(np.array([[1.0, -1, 0, 0], [0, 0, 1, -1], [1, 0, -1, 0]]))
        >>> touching(pool, sp.csr_matrix(np.array([[0.0, 1, 0, 0]]))).toarray().tolist()
        [[1.0, -1.0, 0.0, 0.0]]
    """
    pool = sp.csr_matrix(pool)
    held = np.zeros(pool.shape[1], dtype=bool)
    held[sp.csr_matrix(g).indices] = True
    nonempty = np.flatnonzero(np.diff(pool.indptr) > 0)
    keep = np.zeros(pool.shape[0], dtype=bool)
    if nonempty.size:  # one flag an entry, no wider array: the pool may hold 10⁸ of them
        keep[nonempty] = np.logical_or.reduceat(held[pool.indices], pool.indptr[nonempty])
    rows = np.flatnonzero(keep)
    return pool if rows.size == pool.shape[0] else sp.csr_matrix(pool[rows])


def walks(
    pool: sp.csr_matrix,
    g: sp.csr_matrix,
    point: np.ndarray,
    lower: np.ndarray,
    upper: np.ndarray,
    *,
    integer: np.ndarray | None = None,
    steps: int = 32,
) -> sp.csr_matrix:
    """For each row of ``g`` (a total over the unknowns), a change to ``point`` made of several moves of ``pool``
    one after another, each taken as many whole times as the bounds allow where the walk has got to, that raises
    the total as far as this greedy walk gets (the moves that raise it most per unit first, at most ``steps``).
    One row per total; a row of zeros where no move raises it. A move over ``integer`` unknowns (default: all) is
    taken a whole number of times; one over real unknowns only (sums of a magnitude) as far as the bounds allow.

    One move changes a group's total by its step only (a pair of atoms from 3 people to 7, say); a walk of
    several reaches what no single move does (3 → 7 → 12), each whole and keeping every released total, so the
    walk's end is again a whole solution. The caller checks every row before it counts (as it checks moves).

    Example:
        >>> # Rows released of a 2 × 3 table; the group is the first column, 3 + 2 = 5 people.
        >>> pool = sp.csr_matrix(np.array([[1.0, -1, 0, 0, 0, 0], [0, 0, 0, 5, -5, 0], [2, 0, -2, 0, 0, 0]]))
        >>> g = sp.csr_matrix(np.array([[1.0, 0, 0, 1, 0, 0]]))
        >>> point = np.array([3.0, 1, 2, 2, 5, 0])
        >>> w = walks(pool, g, point, np.zeros(6), np.full(6, np.inf))
        >>> float((g @ (point + w.toarray()[0]))[0])   # every person of each row moved into the group
        13.0
    """
    n = pool.shape[1]
    k = g.shape[0]
    if pool.shape[0] == 0 or k == 0:
        return sp.csr_matrix((k, n))
    pool = touching(pool, g)  # the others cannot raise a total: the answer is the same, the work far less
    nonempty = np.diff(pool.indptr) > 0
    size = np.ones(pool.shape[0])
    size[nonempty] = np.minimum.reduceat(np.abs(pool.data), pool.indptr[:-1][nonempty])
    owner = np.repeat(np.arange(pool.shape[0]), np.diff(pool.indptr))
    unit = pool.data / size[owner]
    # A move whose entries are not whole multiples of its least one is taken whole, once at a time.
    uneven = np.zeros(pool.shape[0], dtype=bool)
    uneven[owner[unit != np.round(unit)]] = True
    size[uneven] = 1.0
    unit = pool.data / size[owner]
    gain = sp.csr_matrix(g @ pool.T)
    x = np.asarray(point, dtype=float).copy()
    rows: list[np.ndarray] = []
    cols: list[np.ndarray] = []
    vals: list[np.ndarray] = []
    for i in range(k):
        js = gain.indices[gain.indptr[i] : gain.indptr[i + 1]]
        up = gain.data[gain.indptr[i] : gain.indptr[i + 1]] / size[js]
        keep = up > 0
        js, up = js[keep], up[keep]
        if js.size == 0:
            continue
        touched: list[np.ndarray] = []
        for j in js[np.argsort(-up, kind="stable")[:steps]].tolist():
            at = pool.indices[pool.indptr[j] : pool.indptr[j + 1]]
            u = unit[pool.indptr[j] : pool.indptr[j + 1]]
            with np.errstate(divide="ignore", invalid="ignore"):
                room = np.where(u > 0, (upper[at] - x[at]) / u, (x[at] - lower[at]) / -u)
            if np.isnan(room).any():
                continue
            least = float(np.min(room))
            real = integer is not None and not integer[at].any()
            # Unbounded along this move: once is enough to show the total is not pinned.
            times = 1.0 if least == np.inf else least if real else float(np.floor(least))
            if times > 0:
                x[at] += times * u
                touched.append(at)
        if not touched:
            continue
        at = np.unique(np.concatenate(touched))
        change = x[at] - point[at]
        x[at] = point[at]
        nz = change != 0
        rows.append(np.full(int(nz.sum()), i))
        cols.append(at[nz])
        vals.append(change[nz])
    if not rows:
        return sp.csr_matrix((k, n))
    return sp.csr_matrix((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(k, n))


def _lookup(coords: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    lookup = np.full(int(np.prod(shape, dtype=np.int64)), -1, dtype=np.int64)
    lookup[np.ravel_multi_index(tuple(coords.T), shape)] = np.arange(coords.shape[0])
    return lookup


def _corners(
    coords: np.ndarray,
    lookup: np.ndarray,
    shape: tuple[int, ...],
    base: np.ndarray,
    vs: tuple[int, ...],
    shift: dict[int, np.ndarray],
) -> tuple[list[tuple[int, np.ndarray]], np.ndarray]:
    """The 2^|vs| corners of the moves from the atoms ``base`` (each corner's parity and atoms), and whether
    every corner is an atom."""
    corners: list[tuple[int, np.ndarray]] = []
    ok = np.ones(base.size, dtype=bool)
    for mask in range(1 << len(vs)):
        c = coords[base].copy()
        changed = 0
        for bit, v in enumerate(vs):
            if mask >> bit & 1:
                c[:, v] = (c[:, v] + shift[v]) % shape[v]
                changed += 1
        idx = lookup[np.ravel_multi_index(tuple(c.T), shape)]
        ok &= idx >= 0
        corners.append((changed % 2, np.maximum(idx, 0)))
    return corners, ok


class _Moves:
    """The moves gathered so far, one row each over the ``n`` atoms."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.count = 0
        self.rows: list[np.ndarray] = []
        self.cols: list[np.ndarray] = []
        self.vals: list[np.ndarray] = []

    def add(
        self,
        corners: list[tuple[int, np.ndarray]],
        ok: np.ndarray,
        room: np.ndarray,
        can_gain: np.ndarray,
        whole: bool,
    ) -> None:
        even = [i for p, i in corners if p == 0]
        odd = [i for p, i in corners if p == 1]
        for gain, lose in ((even, odd), (odd, even)):
            delta = np.min([room[i] for i in lose], axis=0)
            good = ok & (delta > 0) & np.all([can_gain[i] for i in gain], axis=0)
            if whole:
                delta = np.floor(delta)
                good &= delta >= 1
            base = np.flatnonzero(good)
            if base.size == 0:
                continue
            for sign, group in ((1.0, gain), (-1.0, lose)):
                for i in group:
                    self.rows.append(self.count + np.arange(base.size))
                    self.cols.append(i[base])
                    self.vals.append(sign * delta[base])
            self.count += base.size

    def matrix(self) -> sp.csr_matrix:
        if not self.rows:
            return sp.csr_matrix((0, self.n))
        m = sp.csr_matrix(
            (np.concatenate(self.vals), (np.concatenate(self.rows), np.concatenate(self.cols))),
            shape=(self.count, self.n),
        )
        m.sum_duplicates()
        return m
