"""Densities of a small sample of query answers, and the hockey-stick divergence between two of them.

Empirical differential privacy (Burchard and Daoud 2022) compares the density p of the t answers f(X¹), …, f(Xᵗ)
with the density pᵢ of the t answers without individual i. Here both densities are estimated by one of four
methods, all of which use k ≈ √t sample points per local estimate (Burchard and Daoud 2022, §4, the bias/variance
balance):

- ``ecdf``: the empirical CDF, linearly interpolated between the sorted sample points, differenced across k
  points: on the gap between the j-th and (j+1)-th smallest values the density is (k/(t − 1)) / (y₍ⱼ₊ₖ₎ − y₍ⱼ₎),
  the window of k gaps centred on that gap (shifted inwards at the ends). Piecewise constant.
- ``kde-box``, ``kde-triangle``, ``kde-gauss``: the sample-point variable-bandwidth kernel estimate of Breiman,
  Meisel and Purcell (1977), p(x) = (1/t) Σⱼ K_{hⱼ}(x − yⱼ), where hⱼ is the distance from yⱼ to its k-th nearest
  other sample point, so that each kernel spans the k nearest sample points. The box kernel (the paper's choice,
  §5) is 1/(2h) on [y − h, y + h] and gives a piecewise-constant density; the triangle kernel (1 − |u|/h)/h gives
  a piecewise-linear one; the Gaussian kernel has standard deviation hⱼ.

How many points a kernel covers: §4 asks for about √t sample points per kernel (√117 ≈ 11 for the 117 months of
§5), while §5 writes "± 11 data points on either side" (22 in all). ``kde-box`` follows §4: its kernel reaches
the k = round(√t) = 11 nearest other points in all, not 11 on each side (docs/errata.md).

Every density is **truncated to its own sample's range** [min y, max y] **and renormalised** (§4). Kernel
estimates put mass beyond the largest and smallest answers; there the density is an extrapolation, tiny and
unstable when measured multiplicatively, so the ratio p/pᵢ in the tails would be noise and would dominate δ.

δᵢ(ε) = max(∫(p − e^ε pᵢ)₊, ∫(pᵢ − e^ε p)₊) (Theorem 1) is computed **exactly** for the piecewise-constant
and piecewise-linear densities: the breakpoints of both densities are merged, and on each piece the integrand is
linear, so its positive part integrates in closed form. For ``kde-gauss`` both densities are replaced by their
piecewise-linear interpolants on a fine grid; :func:`hockey_stick_delta` returns the bound on the error this makes.

A sample may contain NaN: a database that has **no answer** without individual i (it had no other record). "No
answer" is a separate outcome: it has probability (number of NaN)/t under pᵢ and 0 under p, so it adds its whole
mass to ∫(pᵢ − e^ε p)₊, and the answered values carry the remaining mass. A sample with fewer than two answers
gives δ = 1.

Ties: where k + 1 sample points coincide, the bandwidth (or the ECDF window) would be 0; it is raised to a floor
of 10⁻⁹ times the scale of the reference sample, so that a spike of coinciding answers stays a (very tall)
density rather than a division by zero.
"""

from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np

from privrisk._validation import check_choice, check_epsilons, check_k
from privrisk.errors import PrivriskError

__all__ = [
    "DENSITIES",
    "Density",
    "default_k",
    "density_curve",
    "gaussian_shift_delta",
    "hockey_stick_delta",
    "joint_hockey_stick_delta",
    "knn_bandwidths",
]

Density = Literal["kde-box", "kde-triangle", "kde-gauss", "ecdf"]
DENSITIES: tuple[Density, ...] = ("kde-box", "kde-triangle", "kde-gauss", "ecdf")
_MAX_EXP = 700.0  # e^700 is finite; beyond it every positive density ratio is already exceeded
_CACHE_ELEMENTS = 1 << 17  # merged breakpoints per block of rows (× 16 bytes, complex): a few MiB
_WINDOWED = True  # box kernels of rows that differ from the reference in a few kernels: see _windowed.py
_WINDOW_ROWS = 512
_GAUSS_REACH = 8.0  # Gaussian kernels are evaluated within ±8 σ; the rest is below φ(8) ≈ 5·10⁻¹⁵


def default_k(t: int) -> int:
    """The number of sample points each local estimate spans, k = round(√t) (Burchard and Daoud 2022, §4), at least 1.

    For the 117 months of the paper's §5, k = 11: each kernel reaches the 11 nearest points in all, not 11 on each
    side as §5's text says (docs/errata.md).

    Example:
        >>> default_k(117), default_k(365), default_k(2)
        (11, 19, 1)
    """
    return max(1, round(math.sqrt(t)))


def knn_bandwidths(sorted_rows: np.ndarray, k: int) -> np.ndarray:
    """Distance hⱼ from each point to its k-th nearest other point, for rows sorted ascending.

    The k nearest neighbours of a point of a sorted sample, together with the point, are k + 1 consecutive
    points, so hⱼ is the smallest over the k + 1 windows containing j of the window's larger reach from yⱼ. This is
    the bandwidth of the Breiman–Meisel–Purcell sample-point estimator (Burchard and Daoud 2022, §4, their
    reference [3]). Vectorised over rows.

    Args:
        sorted_rows: shape (t,) or (n, t), each row sorted ascending.
        k: 1 ≤ k ≤ t − 1.

    Example:
        >>> knn_bandwidths(np.array([0.0, 1.0, 3.0, 6.0]), 1).tolist()
        [1.0, 1.0, 2.0, 3.0]
        >>> knn_bandwidths(np.array([0.0, 1.0, 3.0, 6.0]), 2).tolist()
        [3.0, 2.0, 3.0, 5.0]
    """
    y = np.asarray(sorted_rows, dtype=float)
    t = y.shape[-1]
    k = check_k(k, name="k", below=t)
    h = np.full(y.shape, np.inf)
    start, end = y[..., : t - k], y[..., k:]
    left = np.empty(start.shape)
    right = np.empty(start.shape)
    for a in range(k + 1):  # preallocated buffers: this loop is the hot spot of large runs
        centre = y[..., a : a + t - k]
        np.subtract(centre, start, out=left)
        np.subtract(end, centre, out=right)
        np.maximum(left, right, out=left)
        np.minimum(h[..., a : a + t - k], left, out=h[..., a : a + t - k])
    return h


def _ecdf_heights(y: np.ndarray, k: int, floor: float) -> np.ndarray:
    """Density on each of the t − 1 gaps of sorted rows: k/(t − 1) of the mass over the span of k gaps."""
    t = y.shape[-1]
    gaps = np.arange(t - 1)
    start = np.clip(gaps - (k - 1) // 2, 0, t - 1 - k)
    width = np.maximum(y[..., start + k] - y[..., start], floor)
    return (k / (t - 1)) / width


def _pieces(y: np.ndarray, k: int, density: str, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """Breakpoints and jumps (of the density, or of its slope when linear) of unnormalised densities.

    Rows of ``y`` are sorted; each row's density integrates to 1 before truncation.
    """
    t = y.shape[-1]
    if density == "ecdf":
        heights = _ecdf_heights(y, k, floor)
        pad = np.zeros((*y.shape[:-1], 1))
        jumps = np.diff(np.concatenate([pad, heights, pad], axis=-1), axis=-1)
        return y, jumps
    h = np.maximum(knn_bandwidths(y, k), floor)
    if density == "kde-box":
        w = 1.0 / (2.0 * t * h)
        return np.concatenate([y - h, y + h], axis=-1), np.concatenate([w, -w], axis=-1)
    if density == "kde-triangle":
        s = 1.0 / (t * h * h)
        return (np.concatenate([y - h, y, y + h], axis=-1), np.concatenate([s, -2.0 * s, s], axis=-1))
    raise PrivriskError(f"density: no piecewise form for {density!r}", param="density")


def _positive_integral(g0: np.ndarray, g1: np.ndarray, length: np.ndarray) -> np.ndarray:
    """∫ max(g, 0) over a piece where g is linear from g0 to g1 (exact), summed over the last axis."""
    p0, p1 = np.maximum(g0, 0.0), np.maximum(g1, 0.0)
    both = length * 0.5 * (p0 + p1)
    spread = np.abs(g0 - g1)
    crossing = (g0 > 0) != (g1 > 0)
    safe = np.where(crossing & (spread > 0), spread, 1.0)
    cut = length * (p0 * p0 + p1 * p1) / (2.0 * safe)
    return np.where(crossing, cut, both).sum(axis=-1)


def _hockey_sticks(
    xs: np.ndarray,
    pa: tuple[np.ndarray, np.ndarray],
    pb: tuple[np.ndarray, np.ndarray],
    epsilons: np.ndarray,
    length: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """∫(a − e^ε b)₊ and ∫(b − e^ε a)₊ for densities linear on each piece; shapes (n, len(ε))."""
    length = np.diff(xs, axis=-1) if length is None else length
    forward = np.empty((xs.shape[0], epsilons.size))
    backward = np.empty_like(forward)
    constant = pa[0] is pa[1] and pb[0] is pb[1]
    work = np.empty(pa[0].shape) if constant else None
    with np.errstate(over="ignore", invalid="ignore"):
        for e, eps in enumerate(epsilons):
            factor = math.exp(min(float(eps), _MAX_EXP))
            if work is not None:  # piecewise-constant densities: the integrand is constant on each piece
                # a + (−f)·b is a − f·b to the last bit; one buffer instead of three temporaries per pass.
                for out, (a, b) in ((forward, (pa[0], pb[0])), (backward, (pb[0], pa[0]))):
                    np.multiply(b, -factor, out=work)
                    np.add(work, a, out=work)
                    np.maximum(work, 0.0, out=work)
                    out[:, e] = np.einsum("ij,ij->i", work, length)
                continue
            forward[:, e] = _positive_integral(pa[0] - factor * pb[0], pa[1] - factor * pb[1], length)
            backward[:, e] = _positive_integral(pb[0] - factor * pa[0], pb[1] - factor * pa[1], length)
    return forward, backward


def _piecewise_values(
    xs: np.ndarray, jumps: np.ndarray, linear: bool, lo: np.ndarray, hi: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Normalised, truncated density values at the left and right end of each piece of sorted ``xs``."""
    running = np.cumsum(jumps, axis=-1)[..., :-1]
    length = np.diff(xs, axis=-1)
    if linear:
        nodes = np.concatenate([np.zeros((*xs.shape[:-1], 1)), np.cumsum(running * length, axis=-1)], axis=-1)
        left, right = np.maximum(nodes[..., :-1], 0.0), np.maximum(nodes[..., 1:], 0.0)
    else:
        left = np.maximum(running, 0.0)
    mid = 0.5 * (xs[..., :-1] + xs[..., 1:])
    inside = (mid >= lo[..., None]) & (mid <= hi[..., None])
    if not linear:
        left *= inside
        mass = np.einsum("...j,...j->...", left, length)[..., None]
        left /= np.where(mass > 0, mass, 1.0)
        return left, left
    left, right = left * inside, right * inside
    mass = (length * 0.5 * (left + right)).sum(axis=-1, keepdims=True)
    mass = np.where(mass > 0, mass, 1.0)
    return left / mass, right / mass


def _normalised(running, nodes, length, mid, lo, hi) -> tuple[np.ndarray, np.ndarray]:
    """Left and right values of one density on each merged piece, truncated to [lo, hi] and renormalised."""
    inside = (mid >= np.reshape(lo, (-1, 1))) & (mid <= np.reshape(hi, (-1, 1)))
    if nodes is None:
        left = np.maximum(running, 0.0) * inside
        mass = np.einsum("ij,ij->i", left, length)[:, None]
        left /= np.where(mass > 0, mass, 1.0)
        return left, left
    left = np.maximum(nodes[:, :-1], 0.0) * inside
    right = np.maximum(nodes[:, 1:], 0.0) * inside
    mass = (length * 0.5 * (left + right)).sum(axis=1, keepdims=True)
    mass = np.where(mass > 0, mass, 1.0)
    return left / mass, right / mass


def _floor(reference: np.ndarray) -> float:
    finite = reference[np.isfinite(reference)]
    scale = max(float(np.ptp(finite)), float(np.max(np.abs(finite))), 1e-300) if finite.size else 1.0
    return 1e-9 * scale


def _widen(lo: np.ndarray, hi: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """A sample whose answers all coincide has range 0: widen it by the floor so it is a tall narrow density."""
    flat = hi - lo < floor
    return np.where(flat, lo - floor, lo), np.where(flat, hi + floor, hi)


def _gauss_values(y: np.ndarray, h: np.ndarray, x: np.ndarray) -> np.ndarray:
    """(1/t) Σⱼ φ((x − yⱼ)/hⱼ)/hⱼ at points x, row by row: y, h (n, t); x (n, g). Blocks keep memory small."""
    n, t = y.shape
    out = np.empty(x.shape)
    block = max(1, 2_000_000 // max(1, n * t))
    for a in range(0, x.shape[1], block):
        z = (x[:, a : a + block, None] - y[:, None, :]) / h[:, None, :]
        out[:, a : a + block] = (np.exp(-0.5 * z * z) / h[:, None, :]).sum(axis=-1)
    return out / (t * math.sqrt(2 * math.pi))


def _delta_gauss(
    ref: np.ndarray, rows: np.ndarray, k: int, floor: float, epsilons: np.ndarray, grid: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Gaussian kernels: hockey sticks between grid interpolants, and the bound on their error per ε."""
    n = rows.shape[0]
    y_ref = np.broadcast_to(ref, (n, ref.size))
    h_ref = np.maximum(knn_bandwidths(y_ref, k), floor)
    h_row = np.maximum(knn_bandwidths(rows, min(k, rows.shape[1] - 1)), floor)
    lo_a, hi_a = _widen(y_ref[:, 0], y_ref[:, -1], floor)
    lo_b, hi_b = _widen(rows[:, 0], rows[:, -1], floor)
    lo, hi = np.minimum(lo_a, lo_b), np.maximum(hi_a, hi_b)
    base = lo[:, None] + (hi - lo)[:, None] * np.linspace(0.0, 1.0, grid)[None, :]
    xs = np.sort(np.concatenate([base, np.stack([lo_a, hi_a, lo_b, hi_b], axis=1)], axis=1), axis=1)
    va, vb = _gauss_values(y_ref, h_ref, xs), _gauss_values(rows, h_row, xs)
    length = np.diff(xs, axis=1)
    mid = 0.5 * (xs[:, :-1] + xs[:, 1:])
    sides = []
    for v, a, b in ((va, lo_a, hi_a), (vb, lo_b, hi_b)):
        inside = (mid >= a[:, None]) & (mid <= b[:, None])
        left, right = v[:, :-1] * inside, v[:, 1:] * inside
        mass = (length * 0.5 * (left + right)).sum(axis=1, keepdims=True)
        sides.append((left / mass, right / mass, mass[:, 0]))
    (la, ra, ma), (lb, rb, mb) = sides
    # Linear interpolation errs by at most Δ²/8·max|u''| per point and |φ''| ≤ φ(0): ‖u − ũ‖₁ ≤ L·Δ²·M/8 with
    # M = (1/t) Σ φ(0)/hⱼ³; normalising at most doubles it, and the hockey stick is 1-Lipschitz in its first
    # density and e^ε-Lipschitz in its second (L¹), so each direction errs by at most ea + e^ε·eb.
    step = float(np.max(length)) if length.size else 0.0
    curvature_a = (1.0 / math.sqrt(2 * math.pi)) * np.mean(h_ref**-3.0, axis=1)
    curvature_b = (1.0 / math.sqrt(2 * math.pi)) * np.mean(h_row**-3.0, axis=1)
    ea = 2.0 * (hi_a - lo_a) * step**2 * curvature_a / 8.0 / ma
    eb = 2.0 * (hi_b - lo_b) * step**2 * curvature_b / 8.0 / mb
    forward, backward = _hockey_sticks(xs, (la, ra), (lb, rb), epsilons, length)
    factors = np.exp(np.minimum(epsilons, _MAX_EXP))
    bound = np.maximum(
        ea[:, None] + factors[None, :] * eb[:, None], eb[:, None] + factors[None, :] * ea[:, None]
    )
    return forward, backward, bound


def _delta_complete(
    ref_sorted: np.ndarray,
    rows_sorted: np.ndarray,
    k: int,
    density: str,
    floor: float,
    epsilons: np.ndarray,
    grid: int,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Both hockey-stick directions for rows without NaN (all of one length, sorted); error bound per ε."""
    n = rows_sorted.shape[0]
    if density == "kde-gauss":
        step = max(1, 64)
        parts = [
            _delta_gauss(ref_sorted, rows_sorted[a : a + step], k, floor, epsilons, grid)
            for a in range(0, n, step)
        ]
        forward, backward, bound = (np.concatenate(p, axis=0) for p in zip(*parts, strict=True))
        return forward, backward, bound
    k_row = min(k, rows_sorted.shape[1] - 1)
    keys_a, jumps_a = _pieces(ref_sorted[None, :], k, density, floor)
    keys_b, jumps_b = _pieces(rows_sorted, k_row, density, floor)
    lo_a, hi_a = _widen(ref_sorted[None, 0], ref_sorted[None, -1], floor)
    lo_b, hi_b = _widen(rows_sorted[:, 0], rows_sorted[:, -1], floor)
    edges = np.stack([np.broadcast_to(lo_a, (n,)), np.broadcast_to(hi_a, (n,)), lo_b, hi_b], axis=1)
    keys = np.concatenate([np.broadcast_to(keys_a, (n, keys_a.shape[1])), keys_b, edges], axis=1)
    # Both densities' jumps travel together as one complex array (real: p, imaginary: pᵢ): one gather, one cumsum.
    jumps = np.zeros(keys.shape, dtype=complex)
    jumps.real[:, : keys_a.shape[1]] = jumps_a
    jumps.imag[:, keys_a.shape[1] : keys_a.shape[1] + keys_b.shape[1]] = jumps_b
    order = np.argsort(keys, axis=1, kind="stable")
    xs = np.take_along_axis(keys, order, axis=1)
    running = np.cumsum(np.take_along_axis(jumps, order, axis=1), axis=1)[:, :-1]
    length = np.diff(xs, axis=1)
    mid = 0.5 * (xs[:, :-1] + xs[:, 1:])
    linear = density == "kde-triangle"
    if linear:
        nodes = np.zeros((n, xs.shape[1]), dtype=complex)
        np.cumsum(running * length, axis=1, out=nodes[:, 1:])
    pa = _normalised(running.real, nodes.real if linear else None, length, mid, lo_a, hi_a)
    pb = _normalised(running.imag, nodes.imag if linear else None, length, mid, lo_b, hi_b)
    forward, backward = _hockey_sticks(xs, pa, pb, epsilons, length)
    return forward, backward, np.zeros_like(forward)


def hockey_stick_delta(
    sample: np.ndarray,
    samples_without: np.ndarray,
    epsilons: Any,
    *,
    density: Density | str = "kde-box",
    k: int | None = None,
    grid: int = 4096,
    return_bound: bool = False,
) -> np.ndarray | tuple[np.ndarray, np.ndarray]:
    """δᵢ(ε) = max(∫(p − e^ε pᵢ)₊, ∫(pᵢ − e^ε p)₊) between the density of ``sample`` and of each row.

    Burchard and Daoud (2022), Theorem 1.

    p is the (truncated, renormalised) density of the t answers with everyone; pᵢ that of the answers without
    individual i, one row per individual. NaN in a row is a database with no answer without i: its mass (count/t)
    counts fully towards ∫(pᵢ − e^ε p)₊ (see the module docstring). Exact for ``ecdf``, ``kde-box`` and
    ``kde-triangle``; for ``kde-gauss`` the densities are interpolated on ``grid`` points per row and, with
    ``return_bound=True``, the second result bounds |computed − exact| per row and ε.

    Args:
        sample: the t answers f(X¹), …, f(Xᵗ) (finite).
        samples_without: shape (t,) or (n, t): f(X¹₋ᵢ), …, f(Xᵗ₋ᵢ) per row.
        epsilons: one ε or several (ε ≥ 0).
        density: ``kde-box`` (Burchard and Daoud 2022, §5), ``kde-triangle``, ``kde-gauss`` or ``ecdf``.
        k: points per local estimate; default round(√t); 1 ≤ k < t.

    Returns:
        δᵢ with shape (n, len(ε)) (or (len(ε),) for a 1-D row), each in [0, 1].

    Example:
        >>> y = np.array([0.0, 1.0, 2.0, 3.0])
        >>> hockey_stick_delta(y, y, [0.1], density="ecdf", k=1).tolist()
        [0.0]
        >>> float(hockey_stick_delta(y, y + 10.0, 0.5, k=1)[0])  # disjoint ranges: certain to tell apart
        1.0
    """
    y = np.asarray(sample, dtype=float).ravel()
    if y.size < 2 or not np.all(np.isfinite(y)):
        raise PrivriskError("sample: needs at least two finite answers")
    rows = np.asarray(samples_without, dtype=float)
    single = rows.ndim == 1
    rows = np.atleast_2d(rows)
    eps = check_epsilons(epsilons, name="epsilons", allow_zero=True)
    density = check_choice(density, DENSITIES, name="density")
    t = y.size
    if rows.shape[1] != t:
        raise PrivriskError(f"samples_without: rows have {rows.shape[1]} answers but the sample has {t}")
    kk = check_k(default_k(t) if k is None else k, name="k", below=t)
    ref = np.sort(y)
    floor = _floor(ref)
    delta = np.ones((rows.shape[0], eps.size))
    bound = np.zeros_like(delta)
    missing = np.isnan(rows).sum(axis=1)
    rows = np.sort(rows, axis=1)  # NaN last
    # Rows are taken in blocks (about 90 at t = 365): the merged breakpoints of a block (4t + 4 per row, complex)
    # then stay in the processor's cache through the dozens of passes below; blocks of 1,024 rows measured up to
    # twice as slow on a quiet machine, since every pass then went to main memory.
    block = max(8, _CACHE_ELEMENTS // (4 * t + 4))
    box = _box_reference(ref, kk, density, floor)
    for m in np.unique(missing):
        answered = rows.shape[1] - int(m)
        if answered < 2:
            continue  # δ = 1: with fewer than two answers there is no density to hide in
        rows_m = np.flatnonzero(missing == m)
        if not m and box is not None:
            rows_m = _windowed_rows(box, rows, rows_m, kk, floor, eps, delta)
        for start in range(0, rows_m.size, block):
            which = rows_m[start : start + block]
            part = rows[which, :answered]
            if m:
                forward, backward, err = _rescaled(ref, part, kk, density, floor, eps, answered / t, grid)
            else:
                forward, backward, err = _delta_complete(ref, part, kk, density, floor, eps, grid)
            delta[which] = np.clip(np.maximum(forward, backward + int(m) / t), 0.0, 1.0)
            bound[which] = err
    delta = delta[0] if single else delta
    bound = bound[0] if single else bound
    return (delta, bound) if return_bound else delta


def _box_reference(ref: np.ndarray, k: int, density: str, floor: float) -> Any:
    """The reference's box density for the windowed computation, or None where it does not apply (ties)."""
    if density != "kde-box" or not _WINDOWED:
        return None
    from privrisk.empirical._windowed import BoxReference

    h = knn_bandwidths(ref, k)
    if np.any(h <= floor):  # a spike of k + 1 equal answers: the merged computation rounds it its own way
        return None
    return BoxReference(ref, h, ref.size, float(ref[0]), float(ref[-1]))


def _windowed_rows(box, rows, which, k, floor, eps, delta) -> np.ndarray:
    """δ of the complete rows ``which`` by windows around their changed kernels (in place); returns the rows left
    for the merged computation (those with a spike of k + 1 equal answers)."""
    from privrisk.empirical._windowed import row_bandwidths, windowed_box

    rest = []
    for start in range(0, which.size, _WINDOW_ROWS):
        part = which[start : start + _WINDOW_ROWS]
        z = rows[part]
        hz, idx, present = row_bandwidths(box, z, k)
        spiked = np.any(hz <= floor, axis=1)
        rest.append(part[spiked])
        if spiked.any():
            keep = ~spiked
            part, z, hz, idx, present = part[keep], z[keep], hz[keep], idx[keep], present[keep]
        if part.size:
            forward, backward = windowed_box(box, z, hz, idx, present, eps)
            delta[part] = np.clip(np.maximum(forward, backward), 0.0, 1.0)
    return np.concatenate(rest) if rest else which[:0]


def _rescaled(ref, rows, k, density, floor, eps, share, grid):
    """Hockey sticks when pᵢ carries only mass ``share`` on its answers: ∫(p − e^ε·share·qᵢ)₊ and the reverse.

    ∫(p − e^ε s q)₊ = ∫(p − e^{ε + ln s} q)₊ with ε + ln s possibly negative, and ∫(s q − e^ε p)₊ =
    s ∫(q − e^{ε − ln s} p)₊; so both are hockey sticks of the unscaled densities at shifted ε. A negative
    shifted ε is fine for the integral itself.
    """
    log_s = math.log(share)
    fwd, _, err_f = _delta_complete(ref, rows, k, density, floor, eps + log_s, grid)
    _, bwd, err_b = _delta_complete(ref, rows, k, density, floor, eps - log_s, grid)
    return fwd, share * bwd, np.maximum(err_f, share * err_b)


def density_curve(
    sample: np.ndarray, *, density: Density | str = "kde-box", k: int | None = None, points: int = 400
) -> tuple[np.ndarray, np.ndarray]:
    """The truncated, renormalised density of ``sample`` as (x, p(x)) for plotting.

    The curves of Figure 1 of Burchard and Daoud (2022).

    Piecewise-constant densities are returned as steps (each breakpoint twice), so a line plot draws them exactly.

    Example:
        >>> x, p = density_curve(np.array([0.0, 1.0, 2.0, 3.0]), density="ecdf", k=1)
        >>> float(np.trapezoid(p, x))
        1.0
    """
    y = np.sort(np.asarray(sample, dtype=float).ravel())
    y = y[np.isfinite(y)]
    if y.size < 2:
        raise PrivriskError("sample: needs at least two finite answers")
    density = check_choice(density, DENSITIES, name="density")
    kk = check_k(default_k(y.size) if k is None else k, name="k", below=y.size)
    floor = _floor(y)
    lo, hi = _widen(y[None, 0], y[None, -1], floor)
    if density == "kde-gauss":
        h = np.maximum(knn_bandwidths(y[None, :], kk), floor)
        x = np.linspace(lo[0], hi[0], points)
        v = _gauss_values(y[None, :], h, x[None, :])[0]
        return x, v / np.trapezoid(v, x)
    keys, jumps = _pieces(y[None, :], kk, density, floor)
    keys = np.concatenate([keys, lo[:, None], hi[:, None]], axis=1)
    jumps = np.concatenate([jumps, np.zeros((1, 2))], axis=1)
    order = np.argsort(keys, axis=1, kind="stable")
    xs = np.take_along_axis(keys, order, axis=1)
    js = np.take_along_axis(jumps, order, axis=1)
    left, right = _piecewise_values(xs, js, density == "kde-triangle", lo, hi)
    xs, left, right = xs[0], left[0], right[0]
    keep = (xs[:-1] >= lo[0]) & (xs[1:] <= hi[0])
    x = np.column_stack([xs[:-1][keep], xs[1:][keep]]).ravel()
    p = np.column_stack([left[keep], right[keep]]).ravel()
    return x, p


def gaussian_shift_delta(epsilon: Any, mu: Any) -> Any:
    """Exact δ(ε) between N(0, σ²) and N(c, σ²), μ = |c|/σ: Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2).

    The truth against which the empirical δᵢ is checked in the tests (Balle and Wang 2018, Theorem 8). Computed
    as a difference of log-normal-CDF terms so that it neither overflows at large ε nor goes negative.

    Example:
        >>> round(float(gaussian_shift_delta(0.0, 1.0)), 6)  # total variation: 2Φ(μ/2) − 1
        0.382925
    """
    from scipy.special import log_ndtr

    eps = np.asarray(epsilon, dtype=float)
    mu = np.asarray(mu, dtype=float)
    for name, values in (("epsilon", eps), ("mu", mu)):
        if np.any(values < 0):
            raise PrivriskError(f"{name}: must be at least 0", param=name)
    with np.errstate(divide="ignore", invalid="ignore"):
        safe = np.where(mu > 0, mu, 1.0)
        a = log_ndtr(-eps / safe + safe / 2)
        b = eps + log_ndtr(-eps / safe - safe / 2)
        value = np.where(a > b, np.exp(a) * -np.expm1(np.minimum(b - a, 0.0)), 0.0)
    value = np.where(mu > 0, value, 0.0)
    value = np.clip(value, 0.0, 1.0)
    return float(value) if value.ndim == 0 else value


def _knn_chebyshev(points: np.ndarray, k: int) -> np.ndarray:
    """Distance (max-norm) from each point to its k-th nearest other point: points (n, t, 2) → (n, t)."""
    d = np.max(np.abs(points[:, :, None, :] - points[:, None, :, :]), axis=-1)
    return np.partition(d, k, axis=-1)[..., k]


def _box_2d(points: np.ndarray, h: np.ndarray, lo: np.ndarray, hi: np.ndarray, xs, ys) -> np.ndarray:
    """Cell values of a 2-D box-kernel density on the grid xs × ys, truncated to [lo, hi] and renormalised."""
    t = points.shape[0]
    w = 1.0 / (t * 4.0 * h * h)
    corners = np.zeros((xs.size + 1, ys.size + 1))
    x0, x1 = np.searchsorted(xs, points[:, 0] - h), np.searchsorted(xs, points[:, 0] + h)
    y0, y1 = np.searchsorted(ys, points[:, 1] - h), np.searchsorted(ys, points[:, 1] + h)
    np.add.at(corners, (x0, y0), w)
    np.add.at(corners, (x1, y0), -w)
    np.add.at(corners, (x0, y1), -w)
    np.add.at(corners, (x1, y1), w)
    cells = np.cumsum(np.cumsum(corners, axis=0), axis=1)[: xs.size - 1, : ys.size - 1]
    cx, cy = 0.5 * (xs[:-1] + xs[1:]), 0.5 * (ys[:-1] + ys[1:])
    inside = ((cx >= lo[0]) & (cx <= hi[0]))[:, None] & ((cy >= lo[1]) & (cy <= hi[1]))[None, :]
    cells = np.maximum(cells, 0.0) * inside
    area = np.diff(xs)[:, None] * np.diff(ys)[None, :]
    mass = float((cells * area).sum())
    return cells / mass if mass > 0 else cells


def _widened(lo: np.ndarray, hi: np.ndarray, floor: float) -> tuple[np.ndarray, np.ndarray]:
    # A range narrower than floor (one repeated answer) is widened so its box has an area.
    narrow = hi - lo < floor
    return np.where(narrow, lo - floor, lo), np.where(narrow, hi + floor, hi)


def joint_hockey_stick_delta(
    sample: np.ndarray, samples_without: np.ndarray, epsilons: Any, *, k: int | None = None
) -> np.ndarray:
    """δᵢ(ε) for two queries answered together, from two-dimensional variable-width box densities.

    Burchard and Daoud (2022, §2) on composition:

    in the empirical setting, f₁ and f₂ on the same databases must be validated jointly, through the
    density of the pairs (f₁, f₂). Each coordinate is scaled by the range of the answers with everyone; each
    point's kernel is the square of half-width hⱼ, its max-norm distance to the k-th nearest other point (the 2-D
    Breiman–Meisel–Purcell estimator); both densities are truncated to their sample's bounding box and renormalised.
    The hockey stick is exact: both densities are constant on the cells of the merged kernel edges. A row with a
    NaN answer counts that database as "no answer", as in :func:`hockey_stick_delta`. Cost O(t²) per row.

    Args:
        sample: shape (t, 2), the pairs with everyone.
        samples_without: shape (n, t, 2) (or (t, 2)), the pairs without each individual.

    Example:
        >>> rng = np.random.default_rng(0)
        >>> total = rng.normal(0.0, 10.0, 200)                  # a column sum without i, per period
        >>> mine = 5.0 + rng.random(200)                         # i's share, present in every period
        >>> with_i = np.column_stack([total + mine, total])      # (sum, sum without i)
        >>> without_i = np.column_stack([total, total])          # without i both are the same
        >>> float(hockey_stick_delta(total + mine, total, 1.0)[0]) < 0.15   # the sum alone hides i
        True
        >>> float(joint_hockey_stick_delta(with_i, without_i, 1.0)[0]) > 0.9  # with the second, it does not
        True
    """
    y = np.asarray(sample, dtype=float)
    if y.ndim != 2 or y.shape[1] != 2 or y.shape[0] < 2 or not np.all(np.isfinite(y)):
        raise PrivriskError("sample: give at least two finite pairs of answers, shape (t, 2)")
    rows = np.asarray(samples_without, dtype=float)
    single = rows.ndim == 2
    rows = rows[None] if single else rows
    t = y.shape[0]
    if rows.shape[1:] != (t, 2):
        raise PrivriskError(f"samples_without: expected rows of shape ({t}, 2), got {rows.shape[1:]}")
    eps = check_epsilons(epsilons, name="epsilons", allow_zero=True)
    kk = check_k(default_k(t) if k is None else k, name="k", below=t)
    scale = np.ptp(y, axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    centre = y.min(axis=0)
    ref = (y - centre) / scale
    floor = 1e-9
    h_ref = np.maximum(_knn_chebyshev(ref[None], kk)[0], floor)
    factors = np.exp(np.minimum(eps, _MAX_EXP))
    out = np.ones((rows.shape[0], eps.size))
    for r, row in enumerate((rows - centre) / scale):
        answered = row[np.all(np.isfinite(row), axis=1)]
        m = t - answered.shape[0]
        if answered.shape[0] < 2:
            continue
        k_row = min(kk, answered.shape[0] - 1)
        h_row = np.maximum(_knn_chebyshev(answered[None], k_row)[0], floor)
        lo_a, hi_a = _widened(ref.min(axis=0), ref.max(axis=0), floor)
        lo_b, hi_b = _widened(answered.min(axis=0), answered.max(axis=0), floor)
        xs, ys = (
            np.unique(
                np.concatenate(
                    [
                        ref[:, d] - h_ref,
                        ref[:, d] + h_ref,
                        answered[:, d] - h_row,
                        answered[:, d] + h_row,
                        [lo_a[d], hi_a[d], lo_b[d], hi_b[d]],
                    ]
                )
            )
            for d in (0, 1)
        )
        p = _box_2d(ref, h_ref, lo_a, hi_a, xs, ys)
        q = _box_2d(answered, h_row, lo_b, hi_b, xs, ys) * (answered.shape[0] / t)
        area = np.diff(xs)[:, None] * np.diff(ys)[None, :]
        for e, f in enumerate(factors):
            with np.errstate(over="ignore", invalid="ignore"):
                forward = float((np.maximum(p - f * q, 0.0) * area).sum())
                backward = float((np.maximum(q - f * p, 0.0) * area).sum()) + m / t
            out[r, e] = min(1.0, max(forward, backward))
    return out[0] if single else out
