"""Order statistics and moments of nested prefixes of permutations, without sorting any prefix.

Private to :mod:`privrisk.study`. The study (Allmann et al. 2024, §4.2) takes as samples of one repetition the
nested prefixes of one random permutation of the variable; the exact local sensitivities need, per prefix, a dozen
order statistics (the ends, the records around the median, the records either side of the mean) and the first two
moments. For data with (nearly) every value distinct, a histogram per prefix costs as much as the data, and sorting
each prefix costs O(m log m). Here no prefix is sorted:

- every record gets its **unique global rank** (its index in the stably sorted variable); the sorted variable
  itself is the only sorted array, made once per variable;
- per repetition, one scatter writes, in rank order, the index j of the chunk of the permutation each record falls
  in (chunk j = positions ``sizes[j-1] … sizes[j] − 1``), so "record of rank r is in prefix j" is ``chunk[r] ≤ j``;
- one ``bincount`` over (rank block, chunk) keys counts, per block of ``2**shift`` consecutive ranks, how many
  records of each prefix it holds; their cumulative sums locate the block of the k-th smallest record of any prefix
  by one ``searchsorted``, and a scan of that one block (a few hundred bytes) finds the record: any order
  statistic of any prefix in O(log N + block), all (repetition, prefix) pairs in one array operation;
- two weighted ``bincount`` over the chunk indices (in rank order, so the weights are read sequentially) give the
  moments of the chunks, cumulated over the prefixes.

The order statistics are exactly those of the sorted prefix; the moments are the same sums added in another order.
This is the offline form of a Fenwick tree's "k-th smallest" query (insert the permutation's records, ask for
ranks), with every insertion of a chunk done by one array operation instead of one tree update per record.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["PrefixStatistics", "RankedVariable", "prefix_statistics", "rank_variable"]


@dataclass(frozen=True)
class RankedVariable:
    """A variable in rank order: ``sorted_values[ranks[i]] == values[i]``, every rank distinct."""

    sorted_values: np.ndarray
    ranks: np.ndarray
    shift: int  # ranks are grouped in blocks of 2**shift

    @property
    def size(self) -> int:
        return int(self.sorted_values.size)


def rank_variable(
    values: np.ndarray, distinct: np.ndarray | None = None, codes: np.ndarray | None = None
) -> RankedVariable:
    """The unique rank of every value (ties ordered by position) and the sorted values.

    Permuting the ranks with a generator permutes the positions exactly as permuting any other array of the same
    length does (the shuffle draws the same swaps whatever the dtype), so the study's samples are unchanged. When
    every value is distinct, the codes of :func:`~privrisk.study._samples.code_values` (``distinct``, ``codes``)
    are already the ranks, and nothing is sorted again.

    Example:
        >>> r = rank_variable(np.array([5.0, 1.0, 5.0, 3.0]))
        >>> r.sorted_values.tolist(), r.ranks.tolist()
        ([1.0, 3.0, 5.0, 5.0], [2, 0, 3, 1])
    """
    n = int(values.size)
    # intp: numpy converts narrower index arrays element by element at every scatter, which costs more than the
    # wider permutation (whose time is its random draws and cache misses, nearly the same for 4 or 8 bytes).
    dtype = np.intp
    if distinct is not None and codes is not None and distinct.size == n:
        sorted_values, ranks = distinct, codes.astype(dtype, copy=False)
    else:
        order = np.argsort(values, kind="stable")
        ranks = np.empty(n, dtype=dtype)
        ranks[order] = np.arange(n, dtype=dtype)
        sorted_values = values[order]
    # Blocks of about √N ranks: the table of counts (N/block × K) and one block's scan both stay small.
    shift = max(4, int(np.log2(max(n, 2)) / 2 + 0.5))
    return RankedVariable(sorted_values, ranks, shift)


@dataclass(frozen=True)
class PrefixStatistics:
    """What the local sensitivities of every (repetition, prefix) need; rows are repetition-major, K per block."""

    m: np.ndarray
    order_stat: Callable[[np.ndarray], np.ndarray]
    nearest_record: Callable[[np.ndarray], np.ndarray]
    s1: np.ndarray
    s2: np.ndarray


def prefix_statistics(
    drawn: np.ndarray, ranked: RankedVariable, sizes: np.ndarray, centre: float
) -> PrefixStatistics:
    """Order statistics and shifted moments of the prefixes ``drawn[b, :sizes[j]]`` of each row b.

    Args:
        drawn: (B, sizes[-1]) global ranks, the first entries of one permutation per repetition.
        ranked: the variable, from :func:`rank_variable`.
        sizes: the K increasing prefix lengths (the sample sizes).
        centre: the moments are Σ(x − centre) and Σ(x − centre)², for the variance's stability.

    Returns:
        Rows ``b·K + j``: ``m`` the size, ``order_stat(r)`` the r-th smallest record (0-based), ``nearest_record(μ)``
        the record nearest μ (the lower one on a tie), ``s1`` and ``s2`` the shifted moments.

    Example:
        >>> ranked = rank_variable(np.array([4.0, 1.0, 3.0, 2.0]))
        >>> st = prefix_statistics(ranked.ranks[None, :], ranked, np.array([2, 4]), 0.0)
        >>> st.order_stat(np.array([1, 1])).tolist(), st.s1.tolist()
        ([4.0, 2.0], [5.0, 10.0])
    """
    b, k = drawn.shape[0], int(sizes.size)
    n, shift = ranked.size, ranked.shift
    width = 1 << shift
    n_blocks = -(-n // width)
    chunk_dtype = np.uint8 if k < 255 else np.uint16
    # The chunk each position of the permutation falls in; positions past the last prefix are never written.
    position_chunk = np.repeat(np.arange(k, dtype=chunk_dtype), np.diff(sizes, prepend=0))
    chunk = np.full((b, n_blocks * width), k, dtype=chunk_dtype)  # padded: a whole last block, never counted
    block_key = (np.arange(n, dtype=np.intp) >> shift) * (k + 1)
    counts = np.empty((b, n_blocks, k + 1), dtype=np.int64)
    sums = np.empty((b, 2, k + 1))
    shifted = ranked.sorted_values - centre
    squared = shifted * shifted
    key = np.empty(n, dtype=np.intp)
    index = np.asarray(drawn, dtype=np.intp)
    for i in range(b):
        row = chunk[i]
        row[index[i]] = position_chunk
        np.add(block_key, row[:n], out=key)
        counts[i] = np.bincount(key, minlength=n_blocks * (k + 1)).reshape(n_blocks, k + 1)
        # Chunk sums in rank order (sequential reads); the chunk past the last prefix is dropped below.
        np.copyto(key, row[:n])
        sums[i, 0] = np.bincount(key, weights=shifted, minlength=k + 1)
        sums[i, 1] = np.bincount(key, weights=squared, minlength=k + 1)
    # in_prefix[b, block, j]: records of block in prefix j; below[b, j, block]: records of prefix j in earlier blocks.
    in_prefix = np.cumsum(counts[:, :, :k], axis=2)
    below = np.zeros((b, k, n_blocks + 1), dtype=np.int64)
    np.cumsum(in_prefix.transpose(0, 2, 1), axis=2, out=below[:, :, 1:])
    moments = np.cumsum(sums[:, :, :k], axis=2)

    rows = b * k
    row_index = np.arange(rows, dtype=np.int64)
    rep_of_row = row_index // k
    prefix_of_row = (row_index % k).astype(chunk_dtype)
    # One monotone array: row r's cumulative counts shifted by r·(N + 1), so one searchsorted serves every row.
    offsets = row_index * (n + 1)
    flat_below = (below.reshape(rows, n_blocks + 1) + offsets[:, None]).ravel()
    lanes = np.arange(width, dtype=np.int64)
    flat_chunk = chunk.ravel()
    stride = chunk.shape[1]

    def block_members(block: np.ndarray) -> np.ndarray:
        """(rows, width): whether each rank of the row's block lies in the row's prefix."""
        start = rep_of_row * stride + block * width
        return flat_chunk[start[:, None] + lanes] <= prefix_of_row[:, None]

    def order_stat(rank: np.ndarray) -> np.ndarray:
        target = rank.astype(np.int64) + offsets
        block = np.searchsorted(flat_below, target, side="right") - 1 - row_index * (n_blocks + 1)
        within = rank - below.reshape(rows, n_blocks + 1)[row_index, block]
        members = np.cumsum(block_members(block), axis=1)
        lane = np.argmax(members > within[:, None], axis=1)
        return ranked.sorted_values[block * width + lane]

    def nearest_record(mu: np.ndarray) -> np.ndarray:
        # Global ranks below t hold exactly the values < μ, so the prefix's count below μ is a count of ranks.
        t = np.searchsorted(ranked.sorted_values, mu, side="left")
        block = np.minimum(t >> shift, n_blocks - 1)
        partial = block_members(block) & (lanes[None, :] < (t - block * width)[:, None])
        count = below.reshape(rows, n_blocks + 1)[row_index, block] + np.count_nonzero(partial, axis=1)
        last = m - 1
        up = order_stat(np.minimum(count, last))
        down = order_stat(np.clip(count - 1, 0, last))
        return np.where(np.abs(down - mu) <= np.abs(up - mu), down, up)

    m = np.tile(sizes.astype(np.int64), b)
    return PrefixStatistics(m, order_stat, nearest_record, moments[:, 0].ravel(), moments[:, 1].ravel())
