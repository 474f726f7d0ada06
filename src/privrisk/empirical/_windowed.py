"""Box-kernel hockey sticks of rows that differ from the reference in a few kernels: windows plus a closed form.

A row of answers without individual i differs from the answers with everyone in the few periods where i appears.
Its box kernels (Burchard and Daoud 2022, §4–5; :mod:`privrisk.empirical.density`) are then the reference's
kernels except a few: the kernels of the changed answers and of the neighbours whose k-th nearest neighbour moved.
Write P for the reference's unnormalised density, Q = P + D for the row's, D the signed sum of the unmatched
kernels. Where D's kernels do not reach (most of the line) Q = P, and the hockey stick's integrand is
P·(1_A/m_P − e^ε 1_B/m_Q)₊ with A, B the two ranges and m the masses on them: a constant times ∫P, read from the
reference's cumulative integral. Only the windows that D's kernels cover are integrated piece by piece, on the
reference's breakpoints inside them. Exact, like the merged computation (rounding aside).

Used for rows without missing answers whose bandwidths all exceed the floor (no k + 1 coinciding answers: the
floor's spikes would make the rounding of the two ways differ); other rows take the merged computation.
"""

from __future__ import annotations

import numpy as np

_MAX_EXP = 700.0


class BoxReference:
    """The reference's box-kernel density P: sorted breakpoints, values between them, cumulative integral.

    P(x) = (1/t) Σⱼ 1{|x − yⱼ| < hⱼ}/(2hⱼ) (Burchard and Daoud 2022, §4), before truncation to [lo, hi].

    Example:
        >>> y = np.array([0.0, 1.0, 2.0, 3.0])
        >>> ref = BoxReference(y, np.ones(4), 4, 0.0, 3.0)  # kernels of half-width 1, mass 1/4 each
        >>> float(ref.integral(np.array([-1.0]), np.array([4.0]))[0]), ref.mass  # the tails hold 1/8 each
        (1.0, 0.75)
    """

    def __init__(self, y: np.ndarray, h: np.ndarray, t: int, lo: float, hi: float) -> None:
        w = 1.0 / (2.0 * t * h)
        keys = np.concatenate([y - h, y + h])
        jumps = np.concatenate([w, -w])
        order = np.argsort(keys, kind="stable")
        self.keys = keys[order]
        values = np.maximum(np.cumsum(jumps[order])[:-1], 0.0)
        self.values = values  # on [keys[j], keys[j + 1]]
        self.cumulative = np.concatenate([[0.0], np.cumsum(values * np.diff(self.keys))])
        self.ext_keys = np.concatenate([[-np.inf], self.keys, [np.inf]])
        self.ext_values = np.concatenate([[0.0], values, [0.0]])
        self.y, self.h, self.lo, self.hi = y, h, lo, hi
        self.mass = float(self.integral(np.array([lo]), np.array([hi]))[0])

    def integral(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """∫ₐᵇ P (0 where b ≤ a)."""
        return np.where(b > a, self._cdf(b) - self._cdf(a), 0.0)

    def _cdf(self, x: np.ndarray) -> np.ndarray:
        keys = self.keys
        xc = np.clip(x, keys[0], keys[-1])
        j = np.clip(np.searchsorted(keys, xc, side="right") - 1, 0, keys.size - 2)
        return self.cumulative[j] + self.values[j] * (xc - keys[j])


def _copy_number(z: np.ndarray) -> np.ndarray:
    """For sorted rows, how many equal values precede each one in its row (0 without ties)."""
    copies = np.zeros(z.shape, dtype=np.intp)
    tied = np.flatnonzero(z[:, 1:] == z[:, :-1])  # flat index in (n, t − 1): a repeat at column + 1
    if tied.size:
        spot = tied + tied // (z.shape[1] - 1) + 1  # its flat index in (n, t)
        # runs of consecutive repeats (never across rows: column 0 is never a repeat)
        opens = np.ones(spot.size, dtype=bool)
        opens[1:] = spot[1:] != spot[:-1] + 1
        first = np.maximum.accumulate(np.where(opens, np.arange(spot.size), 0))
        copies.ravel()[spot] = np.arange(spot.size) - first + 1
    return copies


def row_bandwidths(ref: BoxReference, z: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The k-NN bandwidths of sorted rows z, with where each value sits in the reference and whether it is there.

    A point's bandwidth depends only on the k points on either side of it. Where those 2k + 1 points are the
    reference's (all present, at one constant shift of rank, and the same ends of the sample when the window
    is cut by an end), the bandwidth is the reference's; only the points near a changed answer are recomputed,
    with the same arithmetic as :func:`~privrisk.empirical.density.knn_bandwidths` (so the same bits).

    Returns (bandwidths, index in the reference, present in the reference) per point.
    """
    n, t = z.shape
    y = ref.y
    # Tied answers are matched copy by copy: the c-th copy of a value in the row with the c-th in the reference.
    idx = np.searchsorted(y, z) + _copy_number(z)
    beyond = idx >= t  # a copy more than the reference has, at its top
    idx = np.minimum(idx, t - 1)
    present = (y[idx] == z) & ~beyond
    shift = idx - np.arange(t)
    bad = ~present
    bad[:, 1:] |= shift[:, 1:] != shift[:, :-1]
    count = np.cumsum(bad, axis=1)
    position = np.arange(t)
    lo, hi = np.maximum(position - k, 0), np.minimum(position + k, t - 1)
    dirty = (count[:, hi] != count[:, lo]) | ~present[:, lo]
    cut = (position < k) | (position > t - 1 - k)
    dirty[:, cut] |= shift[:, cut] != 0
    h = ref.h[idx]
    dr, dj = np.nonzero(dirty)
    if dr.size:
        padded = np.empty((n, t + 2 * k))
        padded[:, :k], padded[:, k + t :] = -np.inf, np.inf
        padded[:, k : k + t] = z
        flat = padded.ravel()
        base = dr * (t + 2 * k) + dj
        centre = flat[base + k]
        best = np.full(dr.size, np.inf)
        left, right, spot = np.empty(dr.size), np.empty(dr.size), np.empty(dr.size, dtype=base.dtype)
        for a in range(k + 1):
            np.add(base, a, out=spot)
            np.subtract(centre, flat[spot], out=left)
            spot += k
            np.subtract(flat[spot], centre, out=right)
            np.maximum(left, right, out=left)
            np.minimum(best, left, out=best)
        h[dr, dj] = best
    return h, idx, present


def windowed_box(
    ref: BoxReference,
    z: np.ndarray,
    hz: np.ndarray,
    idx: np.ndarray,
    present: np.ndarray,
    epsilons: np.ndarray,
) -> tuple[np.ndarray, np.ndarray]:
    """∫(p − e^ε q)₊ and ∫(q − e^ε p)₊, shapes (n, len(ε)), for sorted rows z (see :func:`row_bandwidths`).

    Equal answers in one sample have equal bandwidths, so a row's c-th copy of a value is the reference's c-th
    copy of it (the same kernel) when the bandwidths agree.
    """
    n, t = z.shape
    y, hy = ref.y, ref.h
    matched_z = present & (hy[idx] == hz)
    matched_y = np.zeros((n, t), dtype=bool)
    flat = (np.arange(n)[:, None] * t + idx)[present]
    matched_y.ravel()[flat] = matched_z[present]
    ur, uc = np.nonzero(~matched_y)
    vr, vc = np.nonzero(~matched_z)
    rows = np.concatenate([ur, vr])
    centre = np.concatenate([y[uc], z[vr, vc]])
    half = np.concatenate([hy[uc], hz[vr, vc]])
    sign = np.concatenate([-np.ones(ur.size), np.ones(vr.size)])
    weight = sign / (2.0 * t * half)
    # each row's slots: its reference kernels first, then its own (both lists are in row order already)
    count_u, count_v = np.bincount(ur, minlength=n), np.bincount(vr, minlength=n)
    position = np.concatenate(
        [
            np.arange(ur.size) - (np.cumsum(count_u) - count_u)[ur],
            count_u[vr] + np.arange(vr.size) - (np.cumsum(count_v) - count_v)[vr],
        ]
    )
    counts = count_u + count_v
    width = 2 * int(counts.max(initial=0)) + 4
    keys = np.full((n, width), np.inf)
    jumps = np.zeros((n, width))
    cover = np.zeros((n, width), dtype=np.int64)
    keys[rows, 2 * position] = centre - half
    keys[rows, 2 * position + 1] = centre + half
    jumps[rows, 2 * position] = weight
    jumps[rows, 2 * position + 1] = -weight
    cover[rows, 2 * position] = 1
    cover[rows, 2 * position + 1] = -1
    lo_b, hi_b = z[:, 0], z[:, -1]
    keys[:, -4:] = np.column_stack([np.full(n, ref.lo), np.full(n, ref.hi), lo_b, hi_b])
    order2 = np.argsort(keys, axis=1, kind="stable")
    keys = np.take_along_axis(keys, order2, axis=1)
    level = np.cumsum(np.take_along_axis(jumps, order2, axis=1), axis=1)[:, :-1]
    covered = np.cumsum(np.take_along_axis(cover, order2, axis=1), axis=1)[:, :-1]
    left, right = keys[:, :-1], keys[:, 1:]
    with np.errstate(invalid="ignore"):
        chosen = (covered > 0) & (right > left)
    wr, wc = np.nonzero(chosen)
    w_left, w_right, w_level = left[wr, wc], right[wr, wc], level[wr, wc]
    mid = 0.5 * (w_left + w_right)
    in_a = (mid >= ref.lo) & (mid <= ref.hi)
    in_b = (mid >= lo_b[wr]) & (mid <= hi_b[wr])
    # the reference's pieces inside each window
    first = np.searchsorted(ref.ext_keys, w_left, side="right") - 1
    last = np.searchsorted(ref.ext_keys, w_right, side="left") - 1
    many = last - first + 1
    window = np.repeat(np.arange(wr.size), many)
    piece = np.repeat(first - np.concatenate([[0], np.cumsum(many)[:-1]]), many) + np.arange(int(many.sum()))
    length = np.minimum(ref.ext_keys[piece + 1], w_right[window]) - np.maximum(
        ref.ext_keys[piece], w_left[window]
    )
    p = ref.ext_values[piece]
    q = np.maximum(p + w_level[window], 0.0)
    owner = wr[window]
    pa, pb = in_a[window], in_b[window]

    pieces = np.bincount(owner, minlength=n)
    starts = np.minimum(np.cumsum(pieces) - pieces, max(owner.size - 1, 0))

    def per_row(values: np.ndarray) -> np.ndarray:
        """Sums of each row's pieces (pieces are in row order), for a stack of quantities (m, pieces)."""
        if not owner.size:
            return np.zeros((values.shape[0], n))
        sums = np.add.reduceat(values, starts, axis=1)
        sums[:, pieces == 0] = 0.0
        return sums

    lp = length * p
    window_ab, window_a_only, window_b_only, window_bq = per_row(
        np.stack([lp * (pa & pb), lp * (pa & ~pb), lp * (pb & ~pa), length * q * pb])
    )
    lo_a, hi_a = np.full(n, ref.lo), np.full(n, ref.hi)
    both = ref.integral(np.maximum(lo_a, lo_b), np.minimum(hi_a, hi_b))
    a_only = ref.integral(lo_a, np.minimum(hi_a, lo_b)) + ref.integral(np.maximum(lo_a, hi_b), hi_a)
    b_only = ref.integral(lo_b, np.minimum(hi_b, lo_a)) + ref.integral(np.maximum(lo_b, hi_a), hi_b)
    mass_q = (both + b_only - window_ab - window_b_only) + window_bq
    mass_q = np.where(mass_q > 0, mass_q, 1.0)
    mass_p = ref.mass if ref.mass > 0 else 1.0
    rest_ab, rest_a, rest_b = both - window_ab, a_only - window_a_only, b_only - window_b_only
    ap = (pa / mass_p) * p
    bq = (pb / mass_q[owner]) * q
    forward = np.empty((n, epsilons.size))
    backward = np.empty_like(forward)
    factors = np.exp(np.minimum(np.asarray(epsilons, dtype=float), _MAX_EXP))
    inner = np.empty((2 * factors.size, owner.size))
    with np.errstate(over="ignore", invalid="ignore"):
        for e, f in enumerate(factors):
            np.maximum(ap - f * bq, 0.0, out=inner[2 * e])
            np.maximum(bq - f * ap, 0.0, out=inner[2 * e + 1])
        inner *= length
        sums = per_row(inner)
        for e, f in enumerate(factors):
            forward[:, e] = (
                sums[2 * e] + np.maximum(1.0 / mass_p - f / mass_q, 0.0) * rest_ab + rest_a / mass_p
            )
            backward[:, e] = (
                sums[2 * e + 1] + np.maximum(1.0 / mass_q - f / mass_p, 0.0) * rest_ab + rest_b / mass_q
            )
    return forward, backward
