"""The sampling study of Allmann et al. (2020, §4): variables × queries × sample proportions × ε × repetitions.

For each variable (its valid values are the universe, Allmann et al. §4.2), each sample proportion p and each
repetition, a sample of round(p·N) records is drawn without replacement; for each query the global sensitivity Δf
(universe), the exact local sensitivity Δv (sample), their ratio and, for each ε, the many-worlds risk ρ_mw (eq. 4,
with n the sample size), the two-worlds risk ρ_tw (eq. 6) and the global risk ρ_gl (eq. 5) are recorded.

How it is fast
--------------
Per repetition one random permutation of the variable is drawn, and the samples for all proportions are its
nested prefixes: **the samples of one repetition are nested** (the sample for p = 0.02 contains the one for
p = 0.01), while repetitions are independent. Each sample is, by itself, a uniform draw without replacement.

Every query here is a function of the sample's multiset, and its exact local sensitivity needs only a few order
statistics (the two smallest and two largest records, the records around the median, the record nearest the
mean) and the first two moments (see :mod:`privrisk.sensitivity`). Values are coded as integers into the sorted
distinct values of the variable; the bincounts of the chunks between consecutive prefix ends, cumulated, give
every prefix's histogram, from which the order statistics come by ``searchsorted`` on cumulative counts and the
moments by one matrix product (after shifting by the variable's mean, for the variance's stability). All
repetitions of a block and all proportions are handled at once. When the distinct values are too many for
histograms (continuous data), no prefix is sorted either: each record gets its unique rank in the sorted variable,
per repetition one scatter marks in rank order which chunk of the permutation each record falls in, and counts
of ranks per block (one ``bincount``) locate any order statistic of any prefix by a ``searchsorted`` and the scan
of one block of about √N ranks (:mod:`privrisk.study._ranks`: the offline form of a Fenwick tree's k-th smallest
query). Both ways give the same numbers as :func:`privrisk.local_sensitivity` on the same samples.

Randomness: repetition r of variable ``name`` draws from ``SeedSequence(seed, spawn_key=(crc32(name), r))``, so
the same seed gives the same numbers, and a variable's samples do not depend on which other variables are
studied, nor on the number of repetitions (the first 10 of 100 are the 10 of a 10-repetition run).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk import risk as _risk
from privrisk._validation import check_whole
from privrisk.errors import PrivriskError
from privrisk.sensitivity import Universe, global_sensitivity
from privrisk.study._ranks import RankedVariable, prefix_statistics, rank_variable
from privrisk.study._samples import (
    ATTACK_COLUMNS,
    DEFAULT_EPSILONS,
    DEFAULT_QUERIES,
    Variable,
    check_study_values,
    code_values,
    draw_block,
    prepare_study,
    sample_sizes,
    study_proportions,
)

__all__ = [
    "DEFAULT_EPSILONS",
    "DEFAULT_QUERIES",
    "RESULT_COLUMNS",
    "LsMethod",
    "sample_sizes",
    "sampling_study",
    "study_proportions",
    "study_samples",
    "study_summary",
]

#: How the local sensitivity is computed: exactly, or by the four cases of Allmann et al. §3.2.
LsMethod = Literal["exact", "paper"]

RESULT_COLUMNS: tuple[str, ...] = (
    "variable",
    "query",
    "proportion",
    "n",
    "repetition",
    "epsilon",
    "global_sensitivity",
    "local_sensitivity",
    "ratio",
    "many_worlds",
    "two_worlds",
    "global_risk",
)
RISKS: tuple[str, ...] = ("many_worlds", "two_worlds", "global_risk")

# Work arrays of a block of repetitions stay below about this many elements (8 bytes each).
_BLOCK_ELEMENTS = 1 << 23


# --------------------------------------------------------------------------------------------------------------
# The samples
# --------------------------------------------------------------------------------------------------------------


def study_samples(
    values, *, proportions, repetitions: int, seed: int = 1, name: str = "x"
) -> Iterator[tuple[int, int, np.ndarray]]:
    """The samples the study draws for one variable: ``(repetition, size, sample)`` in the study's order.

    These are exactly the samples :func:`sampling_study` evaluates for a variable named ``name`` (the name enters
    the seed); use them to check a result or to run further analyses on the same draws.

    Example:
        >>> [(r, n) for r, n, _ in study_samples(range(10), proportions=[0.3, 1], repetitions=2)]
        [(0, 3), (0, 10), (1, 3), (1, 10)]
    """
    arr = check_study_values(values, name)
    sizes = sample_sizes(proportions, arr.size)
    vals, codes = code_values(arr)
    for r in range(check_whole(repetitions, name="repetitions", minimum=1)):
        drawn = vals[draw_block(codes, int(sizes[-1]), seed, name, range(r, r + 1))[0]]
        for m in sizes:
            yield r, int(m), drawn[:m]


# --------------------------------------------------------------------------------------------------------------
# Exact local sensitivities from order statistics and moments
# --------------------------------------------------------------------------------------------------------------


def _local_sensitivities(
    queries: Sequence[str],
    m: np.ndarray,
    order_stat: Callable[[np.ndarray], np.ndarray],
    s1: np.ndarray,
    s2: np.ndarray,
    centre: float,
    nearest_record: Callable[[np.ndarray], np.ndarray],
    universe: Universe,
    method: str,
) -> dict[str, np.ndarray]:
    """Δv of each query for samples described by size m, order statistics and shifted moments.

    ``order_stat(r)`` gives the r-th smallest record (0-based, r in [0, m − 1]) of each sample, ``s1`` and ``s2``
    are Σ(x − c) and Σ(x − c)² with c = ``centre``, ``nearest_record(μ)`` the record nearest the mean. The cases
    are those of :func:`privrisk.sensitivity._ls_unbounded` (exact, or the paper's four cases).
    """
    m = m.astype(np.int64)
    last = m - 1

    def os(rank):
        return order_stat(np.clip(rank, 0, last))

    lo, hi = universe.lo, universe.hi
    can_remove = m >= 2
    first, second = os(np.zeros_like(m)), os(np.ones_like(m))
    top, below_top = os(last), os(m - 2)
    mu = centre + s1 / m
    out: dict[str, np.ndarray] = {}
    for q in queries:
        if q == "count":
            out[q] = np.ones(m.shape)
        elif q == "sum":
            rem = np.where(can_remove, np.maximum(np.abs(first), np.abs(top)), 0.0)
            out[q] = np.maximum(max(abs(lo), abs(hi)), rem)
        elif q == "mean":
            add = np.maximum(hi - mu, mu - lo) / (m + 1)
            with np.errstate(divide="ignore", invalid="ignore"):
                rem = np.where(can_remove, np.maximum(top - mu, mu - first) / np.maximum(m - 1, 1), 0.0)
            out[q] = np.maximum(add, rem)
        elif q == "min":
            out[q] = np.maximum(first - lo, np.where(can_remove, second - first, 0.0))
        elif q == "max":
            out[q] = np.maximum(hi - top, np.where(can_remove, top - below_top, 0.0))
        elif q == "median":
            med = (os((m - 1) // 2) + os(m // 2)) / 2

            def merged_hi(j):  # j-th smallest of X ∪ {hi}
                return np.where(j < m, os(j), hi)

            def merged_lo(j):  # j-th smallest of X ∪ {lo}
                return np.where(j == 0, lo, os(j - 1))

            cands = [
                (merged_hi(m // 2) + merged_hi((m + 1) // 2)) / 2,
                (merged_lo(m // 2) + merged_lo((m + 1) // 2)) / 2,
            ]
            rem_first = (os(1 + (m - 2) // 2) + os(1 + (m - 1) // 2)) / 2
            rem_last = (os((m - 2) // 2) + os((m - 1) // 2)) / 2
            cands += [np.where(can_remove, rem_first, med), np.where(can_remove, rem_last, med)]
            out[q] = np.max(np.abs(np.stack(cands) - med), axis=0)
    spread = [q for q in queries if q in ("variance", "std")]
    if spread:
        var = np.where(first == top, 0.0, np.maximum(s2 / m - (s1 / m) ** 2, 0.0))
        add_points = [np.full(m.shape, lo), np.full(m.shape, hi)]
        if method == "exact":
            add_points.append(universe.nearest(mu))
        new_vars = [m / (m + 1) * (var + (v - mu) ** 2 / (m + 1)) for v in add_points]
        removed = [first, top]
        if method == "exact":
            removed.append(nearest_record(mu))
        k = np.maximum(m - 1, 1)
        for x in removed:
            d = x - centre
            v = (s2 - d * d) / k - ((s1 - d) / k) ** 2
            # What remains is all one value when the removed record's rank leaves min == max: exactly 0.
            rest_lo = np.where(x == first, second, first)
            rest_hi = np.where(x == top, below_top, top)
            v = np.where(rest_lo == rest_hi, 0.0, np.maximum(v, 0.0))
            new_vars.append(np.where(can_remove, v, var))
        stacked = np.stack(new_vars)
        for q in spread:
            if q == "std":
                out[q] = np.max(np.abs(np.sqrt(stacked) - np.sqrt(var)), axis=0)
            else:
                out[q] = np.max(np.abs(stacked - var), axis=0)
    return out


def _block_from_histograms(
    drawn: np.ndarray, vals: np.ndarray, sizes: np.ndarray, queries, universe, method, centre
) -> dict[str, np.ndarray]:
    """Δv for every (repetition, size) of a block, via the prefix histograms. Returns arrays (B, K)."""
    b = drawn.shape[0]
    k, d = sizes.size, vals.size
    starts = np.concatenate([[0], sizes[:-1]])
    # One bincount per chunk for all repetitions of the block (key = repetition·D + value): a loop over the
    # proportions only. Its B·D counters stay in cache, which a single bincount over (repetition, chunk,
    # value) would not: twice as fast.
    counts = np.zeros((b, k, d), dtype=np.int64)
    rep_offset = (np.arange(b, dtype=np.intp) * d)[:, None]
    for j in range(k):
        if sizes[j] > starts[j]:
            segment = drawn[:, starts[j] : sizes[j]] + rep_offset
            counts[:, j] = np.bincount(segment.ravel(), minlength=b * d).reshape(b, d)
    hist = np.cumsum(counts, axis=1).reshape(b * k, d)  # one row per (repetition, size)
    cum = np.cumsum(hist, axis=1)
    rows = hist.shape[0]
    m = np.tile(sizes, b)
    offsets = np.arange(rows, dtype=np.int64) * (int(sizes[-1]) + 1)
    flat = (cum + offsets[:, None]).ravel()
    row_start = np.arange(rows, dtype=np.int64) * d

    def order_stat(rank):
        return vals[np.searchsorted(flat, rank + offsets, side="right") - row_start]

    def nearest_record(mu):
        j = np.searchsorted(vals, mu)
        below = np.where(j > 0, cum[np.arange(rows), np.maximum(j - 1, 0)], 0)  # records < vals[j]
        up = order_stat(np.minimum(below, m - 1))
        down = order_stat(np.maximum(below - 1, 0))
        return np.where(np.abs(down - mu) <= np.abs(up - mu), down, up)

    shifted = vals - centre
    hf = hist.astype(float)
    s1, s2 = hf @ shifted, hf @ (shifted * shifted)
    ls = _local_sensitivities(queries, m, order_stat, s1, s2, centre, nearest_record, universe, method)
    return {q: v.reshape(b, k) for q, v in ls.items()}


def _block_by_sorting(
    drawn: np.ndarray, vals: np.ndarray, sizes: np.ndarray, queries, universe, method, centre
) -> dict[str, np.ndarray]:
    """Δv for every (repetition, size) of a block without histograms (many distinct values). Returns (B, K).

    Each prefix is the previous sorted prefix merged with the new sorted chunk: timsort (``kind="stable"``)
    finds the two runs and merges them in O(m), where sorting afresh costs O(m log m) (and a partition around
    the dozen ranks needed measured slower still). The moments are cumulated chunk by chunk.
    """
    b = drawn.shape[0]
    x = vals[drawn]
    out = {q: np.empty((b, sizes.size)) for q in queries}
    rows = np.arange(b)
    s = np.empty((b, 0))
    s1, s2 = np.zeros(b), np.zeros(b)
    previous = 0
    for j, size in enumerate(sizes):
        chunk = np.sort(x[:, previous:size], axis=1)
        shifted = chunk - centre
        s1, s2 = s1 + shifted.sum(axis=1), s2 + (shifted * shifted).sum(axis=1)
        s = np.sort(np.concatenate([s, chunk], axis=1), axis=1, kind="stable")
        previous = size
        m = np.full(b, size, dtype=np.int64)

        def order_stat(rank, s=s):
            return s[rows, rank]

        def nearest_record(mu, s=s, m=m):
            below = np.count_nonzero(s < mu[:, None], axis=1)  # records below the mean
            up = s[rows, np.minimum(below, m - 1)]
            down = s[rows, np.maximum(below - 1, 0)]
            return np.where(np.abs(down - mu) <= np.abs(up - mu), down, up)

        ls = _local_sensitivities(queries, m, order_stat, s1, s2, centre, nearest_record, universe, method)
        for q, v in ls.items():
            out[q][:, j] = v
    return out


def _block_by_ranks(
    drawn: np.ndarray, ranked: RankedVariable, sizes: np.ndarray, queries, universe, method, centre
):
    """Δv for every (repetition, size) of a block from global ranks (many distinct values). Returns (B, K).

    No prefix is sorted: the order statistics come from counts of ranks per block (:mod:`privrisk.study._ranks`).
    """
    st = prefix_statistics(drawn, ranked, sizes, centre)
    ls = _local_sensitivities(
        queries, st.m, st.order_stat, st.s1, st.s2, centre, st.nearest_record, universe, method
    )
    return {q: v.reshape(drawn.shape[0], sizes.size) for q, v in ls.items()}


def _use_histograms(n_distinct: int, n_values: int, n_sizes: int) -> bool:
    """Histograms cost about K·D per repetition, the rank counts about N: histograms unless D ~ N."""
    return n_sizes * n_distinct <= 4 * n_values + 65_536


def _variable_sensitivities(
    values: np.ndarray,
    universe: Universe,
    queries: Sequence[str],
    sizes: np.ndarray,
    repetitions: int,
    seed: int,
    name: str,
    method: str,
    path: str | None = None,
    progress: Callable[[int], None] | None = None,
) -> dict[str, np.ndarray]:
    """Δv for each query: arrays of shape (repetitions, len(sizes)).

    ``path`` is ``"histogram"`` (few distinct values), ``"ranks"`` (many) or ``"sort"`` (merging sorted prefixes:
    the previous way for many distinct values, kept as the reference the ranks are checked and timed against).
    """
    vals, codes = code_values(values)
    n, k, d = values.size, sizes.size, vals.size
    if path is None:
        path = "histogram" if _use_histograms(d, n, k) else "ranks"
    stop = int(sizes[-1])
    per_rep = max(n, k * d if path == "histogram" else stop)
    block = max(1, min(repetitions, _BLOCK_ELEMENTS // per_rep))
    centre = float(np.mean(values))
    kernel: Callable[..., dict[str, np.ndarray]]
    table: Any = vals
    if path == "ranks":
        table = rank_variable(values, vals, codes)
        # Permuting the unique ranks moves the records exactly as permuting their codes does.
        codes, kernel = table.ranks, _block_by_ranks
    else:
        kernel = _block_from_histograms if path == "histogram" else _block_by_sorting
    out = {q: np.empty((repetitions, k)) for q in queries}
    blocks = [range(s, min(s + block, repetitions)) for s in range(0, repetitions, block)]
    for reps, drawn in _drawn_blocks(codes, stop, seed, name, blocks):
        ls = kernel(drawn, table, sizes, queries, universe, method, centre)
        for q in queries:
            out[q][reps.start : reps.stop] = ls[q]
        if progress is not None:
            progress(len(reps))
    return out


def _drawn_blocks(
    codes: np.ndarray, stop: int, seed: int, name: str, blocks: list[range]
) -> Iterator[tuple[range, np.ndarray]]:
    """Each block of repetitions with its draws; the next block is drawn in a second thread meanwhile.

    The shuffles are the floor of the study and numpy runs them without the GIL, so on two cores the draw of
    block i + 1 overlaps the order statistics of block i; each repetition has its own generator, so the samples
    are the same whichever thread draws them. Two buffers are reused for all blocks (their pages are mapped
    once). With one block, or one core, everything stays in the caller's thread.
    """
    size = max(len(r) for r in blocks)
    buffers = [np.empty((size, stop), dtype=codes.dtype) for _ in range(min(2, len(blocks)))]
    if len(blocks) == 1 or (os.cpu_count() or 1) < 2:
        for reps in blocks:
            yield reps, draw_block(codes, stop, seed, name, reps, out=buffers[0])
        return
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="privrisk-draw") as pool:
        pending = pool.submit(draw_block, codes, stop, seed, name, blocks[0], buffers[0])
        try:
            for i, reps in enumerate(blocks):
                drawn = pending.result()
                if i + 1 < len(blocks):  # the other buffer: the caller is done with it (block i − 1)
                    pending = pool.submit(
                        draw_block, codes, stop, seed, name, blocks[i + 1], buffers[(i + 1) % 2]
                    )
                yield reps, drawn
        finally:
            pending.cancel()  # a cancelled run (an exception in the caller's loop) stops after this block


# --------------------------------------------------------------------------------------------------------------
# The study
# --------------------------------------------------------------------------------------------------------------


def sampling_study(
    values_by_variable: Any,
    *,
    queries: Sequence[str] = DEFAULT_QUERIES,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    proportions: Sequence[float] | Literal["auto"] = "auto",
    repetitions: int = 100,
    seed: int = 1,
    universe: Literal["data"] | tuple[float, float] | Universe | Mapping[str, Any] = "data",
    universe_min: float | None = None,
    ls_method: LsMethod = "exact",
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """The sampling study of Allmann et al. (2020, §4.2): one row per variable, query, proportion, repetition, ε.

    For each variable, proportion p and repetition, a sample of round(p·N) of the variable's N values is drawn
    without replacement (the samples of one repetition are nested prefixes of one random permutation); for each
    query Δf is the global sensitivity over the universe (Allmann et al., eq. 2), Δv the exact local sensitivity
    of the sample (eq. 3), and for each ε the risks are ρ_mw = 1/(1 + (n − 1)e^(−εΔv/Δf)) with n the sample size
    (eq. 4, after Lee and Clifton 2011), ρ_tw = 1/(1 + e^(−εΔv/Δf)) (eq. 6) and ρ_gl = 1/(1 + e^(−ε)) (eq. 5).
    Neighbours are unbounded.

    Args:
        values_by_variable: ``{name: values}`` (missing values already dropped), or one array (named ``"x"``).
        queries: any of ``count, sum, mean, median, min, max, variance, std``.
        epsilons: the ε values, each ≥ 0.
        proportions: sample proportions in (0, 1], or ``"auto"`` (:func:`study_proportions`, per variable).
        repetitions: samples per proportion (Allmann et al. drew 100).
        seed: a whole number ≥ 0; the same seed gives the same numbers.
        universe: ``"data"`` (each variable's own valid values, Allmann et al. §4.2), bounds ``(lo, hi)``, a
            :class:`~privrisk.Universe`, or a mapping from variable name to any of these.
        universe_min: lower each universe's minimum to this value (Allmann et al. §4.2: 0 where 0 is a valid
            answer).
        ls_method: ``"exact"`` local sensitivity, or ``"paper"`` (the four cases of Allmann et al. §3.2).
        progress: called with the number of repetitions done after each block (for a progress bar).

    Returns:
        A tidy DataFrame with the columns of :data:`RESULT_COLUMNS`.

    Raises:
        PrivriskError: for bad arguments or values, before anything is computed; the message starts with the
            parameter's name (or the variable's).

    Example:
        >>> rng = np.random.default_rng(0)
        >>> hours = rng.integers(0, 60, 500)
        >>> r = sampling_study({"hours": hours}, queries=["max"], epsilons=[1.0], proportions=[0.1, 1.0],
        ...                    repetitions=3, seed=1)
        >>> r.shape, sorted(r["n"].unique().tolist())
        ((6, 12), [50, 500])
        >>> bool(r["two_worlds"].between(0.5, 1).all()), round(float(r["global_risk"].iloc[0]), 3)
        (True, 0.731)
    """
    study = prepare_study(
        values_by_variable,
        queries=queries,
        epsilons=epsilons,
        proportions=proportions,
        repetitions=repetitions,
        seed=seed,
        universe=universe,
        universe_min=universe_min,
    )
    if ls_method not in ("exact", "paper"):
        raise PrivriskError(f"ls_method: must be 'exact' or 'paper', got {ls_method!r}")

    qs, reps, seed = study.queries, study.repetitions, study.seed
    frames = []
    for v in study.variables:
        ls = _variable_sensitivities(
            v.values, v.universe, qs, v.sizes, reps, seed, v.name, ls_method, progress=progress
        )
        frames.append(_variable_frame(v, qs, reps, study.epsilons, ls))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _variable_frame(
    v: Variable, queries: list[str], reps: int, eps: np.ndarray, ls: Mapping[str, np.ndarray]
) -> pd.DataFrame:
    """Rows ordered query, proportion, repetition, ε (ε fastest)."""
    name, u, props, sizes = v.name, v.universe, v.proportions, v.sizes
    q_n, k_n, e_n = len(queries), sizes.size, eps.size
    gs = np.array([global_sensitivity(q, u) for q in queries])
    local = np.stack([ls[q].T for q in queries])  # (Q, K, R)
    ratio = local / gs[:, None, None]
    shape = (q_n, k_n, reps, e_n)
    e4 = np.broadcast_to(eps, shape)
    n4 = np.broadcast_to(sizes[None, :, None, None], shape)
    r4 = np.broadcast_to(ratio[..., None], shape)
    rows = q_n * k_n * reps * e_n
    return pd.DataFrame(
        {
            "variable": np.full(rows, name, dtype=object),
            "query": np.repeat(np.array(queries, dtype=object), k_n * reps * e_n),
            "proportion": np.broadcast_to(props[None, :, None, None], shape).ravel(),
            "n": n4.ravel().astype(np.int64),
            "repetition": np.broadcast_to(np.arange(reps)[None, None, :, None], shape).ravel(),
            "epsilon": e4.ravel(),
            "global_sensitivity": np.broadcast_to(gs[:, None, None, None], shape).ravel(),
            "local_sensitivity": np.broadcast_to(local[..., None], shape).ravel(),
            "ratio": r4.ravel(),
            "many_worlds": np.asarray(_risk.many_worlds(e4, n4, r4)).ravel(),
            "two_worlds": np.asarray(_risk.two_worlds(e4, r4)).ravel(),
            "global_risk": np.broadcast_to(np.asarray(_risk.global_risk(eps)), shape).ravel(),
        }
    )


def study_summary(results: pd.DataFrame) -> pd.DataFrame:
    """Per variable × query × proportion × ε, the minimum, quartiles, median and maximum of each risk.

    Returns:
        A tidy DataFrame with columns ``variable, query, proportion, n, epsilon, risk, min, q1, median, q3, max,
        repetitions``, where ``risk`` is ``many_worlds``, ``two_worlds`` or ``global_risk`` (and, when the
        results carry the columns of :func:`~privrisk.study.attack.study_attack`, ``exact_risk``, ``expected_success``,
        ``simulated_success`` and ``lee_clifton_bound`` over the samples attacked).

    Example:
        >>> r = sampling_study({"x": np.arange(100) % 7}, queries=["max"], epsilons=[1.0],
        ...                    proportions=[0.1], repetitions=5)
        >>> s = study_summary(r)
        >>> s[["risk", "repetitions"]].values.tolist()
        [['many_worlds', 5], ['two_worlds', 5], ['global_risk', 5]]
        >>> bool((s["min"] <= s["q1"]).all() and (s["q1"] <= s["median"]).all())
        True
    """
    missing = [c for c in RESULT_COLUMNS if c not in results.columns]
    if missing:
        raise PrivriskError(f"results: not a sampling-study table (no column {missing[0]!r})")
    keys = ["variable", "query", "proportion", "n", "epsilon"]
    # With the attack's columns (privrisk.study.attack, merged in), their quantiles too; skipped samples are NaN
    # and left out, so ``repetitions`` counts the samples attacked.
    value_vars = [*RISKS, *(c for c in ATTACK_COLUMNS if c in results.columns)]
    long = results.melt(id_vars=keys, value_vars=value_vars, var_name="risk", value_name="value")
    long = long[long["value"].notna()]
    grouped = long.groupby([*keys, "risk"], sort=False)["value"]
    table = grouped.quantile(np.array([0.0, 0.25, 0.5, 0.75, 1.0])).unstack()
    table.columns = ["min", "q1", "median", "q3", "max"]
    table["repetitions"] = grouped.size()
    return table.reset_index()
