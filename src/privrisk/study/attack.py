"""The sampling study's attacker made concrete: exact risk and simulated success per sample.

:func:`privrisk.sampling_study` reports ρ_mw, the bound of Allmann et al. (2020, eq. 4) after Lee and Clifton
(2011). :func:`study_attack` takes the very samples the study
draws (same arguments, same seed, :func:`privrisk.study_samples`) and lets Lee and Clifton's attacker loose on
each: the attacker knows every record of the sample X (n records) and that the release is f(X \\ {xᵢ}) +
Laplace(Δf/ε) for one unknown i, with Δf the study's global sensitivity. Per sample, query and ε it records

- ``exact_risk``: the largest posterior any world reaches for any answer (:func:`privrisk.exact_risk`);
- ``expected_success``: the exact average success of the Bayes-optimal attacker (:func:`privrisk.expected_success`);
- ``simulated_success``: a Monte Carlo estimate of that average from ``trials`` attacks;
- ``lee_clifton_bound``: ρ_mw with Δv the range of the n world answers, which the exact risk never exceeds.

The study's ρ_mw uses Δv = the local sensitivity of X instead. Leaving one record out can move f by up to Δv in
either direction, so the worlds' range can reach 2·Δv and the exact risk can exceed the study's ρ_mw slightly
(e.g. the mean of n − 1 zeros and one 1); ``lee_clifton_bound`` is the bound that always holds.

How it is fast
--------------
All repetitions of one sample size are one 2-D batch. Records that are equal give equal worlds, so each sample's
world answers are reduced to their distinct values with counts (a survey column of integers has few), padded to a
rectangle with weight-0 copies of the row's largest answer, which change no sum, minimum or gap. The exact risk is
then a prefix scan over the distinct answers (O(K log K) per ε), the expected success a sum over their gaps.

The simulation needs no nearest-neighbour search: the attacker guesses right exactly when the noise keeps the
answer inside the true world's cell of the nearest-answer partition (half-gaps h⁻, h⁺ to the neighbouring distinct
answers) and the uniform tie-break among the c worlds sharing the answer picks the true one (probability 1/c).
Each trial draws the true world, a standard Laplace variate L and a uniform tie-break once; the noise at ε is
L·Δf/ε. These common random numbers are shared by all queries and ε of a sample, so comparisons across ε and
queries are not blurred by independent noise (each cell is still an unbiased estimate of its expected success).

Randomness: sample (repetition r, size n) of variable ``name`` draws its trials from
``SeedSequence(seed, spawn_key=(crc32(name), r, n, 1))``: the same seed gives the same numbers, independent of the
other variables, the block size and the ``max_n`` limit.

Cost: the world answers of a sample of n records take O(n log n) per query; the exact risk O(K log K) per ε with
K ≤ n distinct answers (K is n for the mean and variance of continuous data); the simulation O(trials) per sample,
query and ε. Measured (``benchmarks/study_attack.py``, 2 busy cores): the demo's scale (N = 30,000, 20
proportions, 100 repetitions, 5 queries, 6 ε, 1,000 trials) takes about 5 s; one sample of n = 10⁶ survey-like
records about 0.4 s for 7 queries and 6 ε, so the issue's N = 10⁶ case with 20 proportions (Σp ≈ 10) and 100
repetitions would take several minutes. Hence ``max_n`` (default 50,000): samples larger than it are skipped
(NaN), and the command says so.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

import numpy as np
import pandas as pd

from privrisk import risk as _risk
from privrisk.errors import PrivriskError
from privrisk.posterior import min_denominators, world_answers
from privrisk.sensitivity import Universe, global_sensitivity
from privrisk.study._samples import (
    ATTACK_COLUMNS,
    DEFAULT_ATTACK_MAX_N,
    DEFAULT_ATTACK_TRIALS,
    DEFAULT_EPSILONS,
    DEFAULT_QUERIES,
    check_max_n,
    check_trials,
    code_values,
    draw_block,
    prepare_study,
)

__all__ = [
    "ATTACK_COLUMNS",
    "DEFAULT_ATTACK_MAX_N",
    "DEFAULT_ATTACK_TRIALS",
    "merge_attack",
    "study_attack",
]


_KEYS = ("variable", "query", "proportion", "n", "repetition", "epsilon")
# Work arrays of one batch stay below about this many elements (8 bytes each).
_BATCH_ELEMENTS = 1 << 22


def _distinct_rows(f: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Sorted rows of world answers → distinct answers U (padded), counts W, and each sorted position's group.

    Padding repeats the row's largest answer with weight 0: its gap is 0 (adds nothing to the expected success)
    and its denominator equals that of the largest answer (changes no minimum).
    """
    rows, m = f.shape
    new = np.ones((rows, m), dtype=bool)
    new[:, 1:] = f[:, 1:] != f[:, :-1]
    group = np.cumsum(new, axis=1) - 1
    k = int(group[:, -1].max()) + 1
    u = np.repeat(f[:, -1:], k, axis=1)
    r = np.broadcast_to(np.arange(rows)[:, None], (rows, m))
    u[r[new], group[new]] = f[new]
    w = np.bincount((r * k + group).ravel(), minlength=rows * k).reshape(rows, k).astype(float)
    return u, w, group


def _sample_attack(
    x_sorted: np.ndarray,
    queries: Sequence[str],
    gs: Mapping[str, float],
    eps: np.ndarray,
    draws: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> dict[str, np.ndarray]:
    """Per query, arrays (rows, ε, 4) of exact risk, expected success, simulated success and the L–C bound."""
    rows, m = x_sorted.shape
    pos, lap, tie = draws  # (rows, T): sorted world position, standard Laplace, uniform tie-break
    trials = pos.shape[1]
    # Equal records give the same world; take each group's first answer so that equal worlds are bitwise equal.
    new_value = np.ones((rows, m), dtype=bool)
    new_value[:, 1:] = x_sorted[:, 1:] != x_sorted[:, :-1]
    first_of_value = np.maximum.accumulate(np.where(new_value, np.arange(m), 0), axis=1)
    out: dict[str, np.ndarray] = {}
    for q in queries:
        f = world_answers(x_sorted, q)
        f = np.sort(np.take_along_axis(f, first_of_value, axis=1), axis=1)
        u, w, group = _distinct_rows(f)
        k = u.shape[1]
        gap = np.diff(u, axis=1) / 2  # half-gaps between neighbouring distinct answers (0 between pads)
        real = w > 0
        inf_col = np.full((rows, 1), np.inf)
        h_minus = np.concatenate([inf_col, gap], axis=1)
        h_plus = np.concatenate([gap, inf_col], axis=1)
        last_real = real.sum(axis=1) - 1
        h_plus[np.arange(rows), last_real] = np.inf
        g = np.take_along_axis(group, pos, axis=1)
        hm = np.take_along_axis(h_minus, g, axis=1)
        hp = np.take_along_axis(h_plus, g, axis=1)
        count = np.take_along_axis(w, g, axis=1)
        picked = (
            tie * count < 1.0
        )  # the uniform tie-break among the c worlds sharing the answer picks the true one
        dv = f[:, -1] - f[:, 0]
        res = np.empty((rows, eps.size, 4))
        for j, e in enumerate(eps):
            scale = e / gs[q]
            if k > 1 and scale > 0:
                res[:, j, 0] = 1.0 / min_denominators(u, w, scale)
            else:  # all worlds agree, or no information: the posterior stays uniform
                res[:, j, 0] = 1.0 / m
            res[:, j, 1] = (1.0 + np.sum(-np.expm1(-gap * scale), axis=1)) / m
            if scale > 0:
                noise = lap * (1.0 / scale)
                inside = (noise > -hm) & (noise < hp)
            else:  # infinite noise: only a single cell covering every answer is hit
                inside = np.isinf(hm) & np.isinf(hp)
            res[:, j, 2] = np.count_nonzero(inside & picked, axis=1) / trials
            res[:, j, 3] = _risk.many_worlds(e, m, dv / gs[q])
        out[q] = np.clip(res, 0.0, 1.0)
    return out


def _draws(seed: int, name: str, repetition: int, m: int, trials: int):
    key = (zlib.crc32(str(name).encode("utf-8")), int(repetition), int(m), 1)
    rng = np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key))
    return rng.integers(0, m, size=trials), rng.laplace(0.0, 1.0, size=trials), rng.random(trials)


def study_attack(
    values_by_variable: Any,
    *,
    queries: Sequence[str] = DEFAULT_QUERIES,
    epsilons: Sequence[float] = DEFAULT_EPSILONS,
    proportions: Sequence[float] | Literal["auto"] = "auto",
    repetitions: int = 100,
    seed: int = 1,
    universe: Literal["data"] | tuple[float, float] | Universe | Mapping[str, Any] = "data",
    universe_min: float | None = None,
    trials: int = DEFAULT_ATTACK_TRIALS,
    max_n: int | None = DEFAULT_ATTACK_MAX_N,
    progress: Callable[[int], None] | None = None,
) -> pd.DataFrame:
    """Lee and Clifton's attacker on every sample of :func:`privrisk.sampling_study`: exact and simulated success.

    Takes the study's arguments and evaluates the same samples (:func:`privrisk.study_samples`). For a sample X of
    n records the worlds are ωᵢ = X \\ {xᵢ}, the release f(ω) + Laplace(b) with b = Δf/ε and Δf the study's
    global sensitivity (Allmann et al. 2024, eq. 2). Per sample, query and ε:

    - ``exact_risk`` = maxᵢ sup_γ p(i | γ) = 1 / minᵢ Σⱼ e^(−|fᵢ − fⱼ|/b) (the worst-case posterior);
    - ``expected_success`` = (1/n)·Σ_g [1 − ½e^(−h⁻_g/b) − ½e^(−h⁺_g/b)] (the Bayes-optimal attacker's average);
    - ``simulated_success``: the share of ``trials`` simulated attacks that guess the world; its standard error
      is √(p(1 − p)/trials), about ±3 percentage points (95 %) at 1,000 trials: a check of the exact value, not
      a replacement for it;
    - ``lee_clifton_bound`` = ρ_mw (Allmann et al., eq. 4; Lee and Clifton 2011) with n worlds and
      Δv = max f(ω) − min f(ω).

    expected_success ≤ exact_risk ≤ lee_clifton_bound always.

    Args:
        values_by_variable, queries, epsilons, proportions, repetitions, seed, universe, universe_min: as for
            :func:`privrisk.sampling_study` (the same values give the same samples).
        trials: simulated attacks per sample (shared by its queries and ε), a whole number ≥ 1.
        max_n: samples with more records are skipped (their rows hold NaN); ``None`` attacks every sample.
        progress: called with the number of samples done after each batch.

    Returns:
        A tidy DataFrame with the study's keys ``variable, query, proportion, n, repetition, epsilon`` in the
        study's row order, the columns of :data:`ATTACK_COLUMNS` and ``attacked`` (False where skipped).

    Example:
        >>> hours = np.random.default_rng(0).integers(0, 60, 300)
        >>> a = study_attack({"hours": hours}, queries=["max", "mean"], epsilons=[1.0], proportions=[0.1, 1.0],
        ...                  repetitions=2, trials=500, max_n=100)
        >>> a.shape, int(a["attacked"].sum())
        ((8, 11), 4)
        >>> done = a[a["attacked"]]
        >>> bool((done["expected_success"] <= done["exact_risk"] + 1e-12).all())
        True
        >>> bool((done["exact_risk"] <= done["lee_clifton_bound"] + 1e-12).all())
        True
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
    t = check_trials(trials)
    limit = check_max_n(max_n)
    qs, eps, reps, seed = study.queries, study.epsilons, study.repetitions, study.seed

    frames = []
    for v in study.variables:
        name, sizes = v.name, v.sizes
        gs = {q: float(global_sensitivity(q, v.universe)) for q in qs}
        # (Q, K, R, E, 4): NaN where a sample is skipped
        res = np.full((len(qs), sizes.size, reps, eps.size, 4), np.nan)
        attacked = np.zeros((sizes.size, reps), dtype=bool)
        todo = [j for j, m in enumerate(sizes) if m >= 2 and (limit is None or m <= limit)]
        if todo:
            vals, codes = code_values(v.values)
            stop = int(sizes[todo[-1]])
            block = max(1, min(reps, _BATCH_ELEMENTS // max(stop, t)))
            for start in range(0, reps, block):
                rr = range(start, min(start + block, reps))
                drawn = draw_block(codes, stop, seed, name, rr)
                for j in todo:
                    m = int(sizes[j])
                    x = np.sort(vals[drawn[:, :m]], axis=1)
                    parts = [_draws(seed, name, r, m, t) for r in rr]
                    pos, lap, tie = (np.stack([p[i] for p in parts]) for i in range(3))
                    per_q = _sample_attack(x, qs, gs, eps, (pos, lap, tie))
                    for iq, q in enumerate(qs):
                        res[iq, j, rr.start : rr.stop] = per_q[q]
                    attacked[j, rr.start : rr.stop] = True
                if progress is not None:
                    progress(len(rr))
        elif progress is not None:
            progress(reps)
        frames.append(_attack_frame(name, qs, v.proportions, sizes, reps, eps, res, attacked))
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def _attack_frame(name, queries, props, sizes, reps, eps, res, attacked) -> pd.DataFrame:
    """Rows ordered query, proportion, repetition, ε (ε fastest), like the study's."""
    shape = (len(queries), sizes.size, reps, eps.size)
    rows = int(np.prod(shape))
    frame = {
        "variable": np.full(rows, name, dtype=object),
        "query": np.repeat(np.array(queries, dtype=object), sizes.size * reps * eps.size),
        "proportion": np.broadcast_to(props[None, :, None, None], shape).ravel(),
        "n": np.broadcast_to(sizes[None, :, None, None], shape).ravel().astype(np.int64),
        "repetition": np.broadcast_to(np.arange(reps)[None, None, :, None], shape).ravel(),
        "epsilon": np.broadcast_to(eps, shape).ravel(),
    }
    for i, col in enumerate(ATTACK_COLUMNS):
        frame[col] = res[..., i].ravel()
    frame["attacked"] = np.broadcast_to(attacked[None, :, :, None], shape).ravel()
    return pd.DataFrame(frame)


def merge_attack(results: pd.DataFrame, attack: pd.DataFrame) -> pd.DataFrame:
    """The study's rows with the attack's columns added (a new table; neither input changes).

    Both tables must come from the same arguments (:func:`~privrisk.sampling_study` and :func:`study_attack`),
    so that they list the same keys in the same order; :func:`~privrisk.study_summary` then summarises the
    attack's columns too.

    Example:
        >>> from privrisk import sampling_study
        >>> args = dict(queries=["max"], epsilons=[1.0], proportions=[0.5, 1.0], repetitions=2)
        >>> values = {"x": np.arange(40) % 9}
        >>> both = merge_attack(sampling_study(values, **args), study_attack(values, **args, trials=50))
        >>> [c for c in both.columns if c not in _KEYS][-3:]
        ['simulated_success', 'lee_clifton_bound', 'attacked']
    """
    keys = list(_KEYS)
    same = len(results) == len(attack) and all(
        np.array_equal(results[k].to_numpy(), attack[k].to_numpy()) for k in keys
    )
    if not same:
        raise PrivriskError(
            "attack: its rows do not line up with the study's; run both with the same arguments"
        )
    merged = results.copy()
    for col in (*ATTACK_COLUMNS, "attacked"):
        merged[col] = attack[col].to_numpy()
    return merged
