"""What the sampling study and its attack share: the checked inputs, the proportions and the draws.

Private to :mod:`privrisk.study`. Both :mod:`privrisk.study.sampling` and :mod:`privrisk.study.attack` import from
here, and neither imports the other, so the two evaluate the very same samples from the very same checked
arguments. ``study_proportions`` and ``sample_sizes`` are public through :mod:`privrisk.study.sampling`.

Randomness: repetition r of variable ``name`` draws from ``SeedSequence(seed, spawn_key=(crc32(name), r))``, so
the same seed gives the same numbers, and a variable's samples do not depend on which other variables are
studied, nor on the number of repetitions (Allmann et al. 2024, §4.2, draw 100 samples per proportion).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privrisk._validation import check_epsilons, check_query, check_values, check_whole
from privrisk.errors import PrivriskError
from privrisk.sensitivity import Universe

__all__ = [
    "ATTACK_COLUMNS",
    "DEFAULT_ATTACK_MAX_N",
    "DEFAULT_ATTACK_TRIALS",
    "DEFAULT_EPSILONS",
    "DEFAULT_QUERIES",
    "Prepared",
    "Variable",
    "check_max_n",
    "check_proportions",
    "check_queries",
    "check_trials",
    "code_values",
    "draw_block",
    "prepare_study",
    "sample_sizes",
    "study_proportions",
]

DEFAULT_QUERIES: tuple[str, ...] = ("mean", "median", "min", "max", "variance")
DEFAULT_EPSILONS: tuple[float, ...] = (0.1, 0.5, 1.0, 2.0, 5.0, 10.0)
#: The attack's simulated attacks per sample and the largest sample it attacks (:func:`~privrisk.study_attack`).
DEFAULT_ATTACK_TRIALS = 1_000
DEFAULT_ATTACK_MAX_N = 50_000
#: The columns :func:`privrisk.study.attack.study_attack` adds to the study's results.
ATTACK_COLUMNS: tuple[str, ...] = ("exact_risk", "expected_success", "simulated_success", "lee_clifton_bound")

UniverseSpec = Literal["data"] | tuple[float, float] | Universe | Mapping[str, Any]


# --------------------------------------------------------------------------------------------------------------
# Proportions and sample sizes
# --------------------------------------------------------------------------------------------------------------


def study_proportions(n_values: int, count: int = 20) -> np.ndarray:
    """The ``auto`` sample proportions: ``count`` values spaced evenly on a log scale from the smallest to 1.

    The smallest is 1/1000, or 10 records when the variable has fewer than 10,000 values; each proportion is
    rounded to two significant digits and duplicates are dropped.

    Example:
        >>> study_proportions(1_000_000, count=4).tolist()
        [0.001, 0.01, 0.1, 1.0]
        >>> study_proportions(50, count=3).tolist()
        [0.2, 0.45, 1.0]
    """
    if n_values < 2:
        raise PrivriskError(f"proportions: a variable needs at least 2 values, got {n_values}")
    smallest = min(1.0, max(1e-3, 10.0 / n_values))
    grid = np.geomspace(smallest, 1.0, max(int(count), 1))
    rounded = np.array([float(f"{p:.2g}") for p in grid])
    return np.unique(rounded)


def check_proportions(proportions: Any) -> np.ndarray:
    """Sample proportions in (0, 1], sorted and without duplicates.

    Example:
        >>> check_proportions([1, 0.5, 0.5]).tolist()
        [0.5, 1.0]
    """
    try:
        p = np.atleast_1d(np.asarray(proportions, dtype=float)).ravel()
    except (TypeError, ValueError):
        raise PrivriskError(
            f"proportions: a list of numbers in (0, 1] or 'auto', got {proportions!r}"
        ) from None
    if p.size == 0:
        raise PrivriskError("proportions: give at least one proportion")
    bad = p[~((p > 0) & (p <= 1))]
    if bad.size:
        raise PrivriskError(f"proportions: each proportion must lie in (0, 1], got {bad[0]:g}")
    return np.unique(p)


def sample_sizes(proportions: Any, n_values: int) -> np.ndarray:
    """round(p·N) for each proportion, rounding halves up; an empty sample is an error.

    Example:
        >>> sample_sizes([0.01, 0.5, 1.0], 250).tolist()
        [3, 125, 250]
    """
    p = check_proportions(proportions)
    sizes = np.floor(p * n_values + 0.5).astype(np.int64)
    if sizes[0] < 1:
        raise PrivriskError(
            f"proportions: {p[0]:g} of {n_values:,} values is an empty sample; use at least {1 / n_values:.3g}"
        )
    return sizes


# --------------------------------------------------------------------------------------------------------------
# Drawing the samples
# --------------------------------------------------------------------------------------------------------------


def _rep_generator(seed: int, name: str, repetition: int) -> np.random.Generator:
    key = (zlib.crc32(str(name).encode("utf-8")), int(repetition))
    return np.random.default_rng(np.random.SeedSequence(int(seed), spawn_key=key))


def draw_block(
    codes: np.ndarray, stop: int, seed: int, name: str, reps: range, out: np.ndarray | None = None
) -> np.ndarray:
    """One permutation of the coded values per repetition, its first ``stop`` entries, one row per repetition.

    The samples of one repetition are nested prefixes of its permutation; repetitions are independent. ``out``
    (at least ``len(reps)`` rows of ``stop`` entries of the codes' dtype), if given, is filled and its first
    rows returned: the study reuses one block for all its blocks, so that the operating system maps its pages
    once, not once per block.

    Example:
        >>> block = draw_block(np.arange(5), 5, seed=1, name="x", reps=range(2))
        >>> [sorted(row) for row in block.tolist()]
        [[0, 1, 2, 3, 4], [0, 1, 2, 3, 4]]
        >>> block[0].tolist() == np.random.default_rng(np.random.SeedSequence(1, spawn_key=(
        ...     zlib.crc32(b"x"), 0))).permutation(5).tolist()
        True
    """
    if out is None:
        out = np.empty((len(reps), stop), dtype=codes.dtype)
    else:
        out = out[: len(reps), :stop]
    # The floor of the whole study: one permutation of N per repetition, done by numpy in C. ``shuffle`` in place
    # draws the very stream ``permutation`` draws (which copies, then shuffles), so the samples stay those of the
    # seed; shuffling the output row itself (or one reused buffer) saves two copies of N per repetition.
    buffer = None if stop == codes.size else np.empty_like(codes)
    for i, r in enumerate(reps):
        rng = _rep_generator(seed, name, r)
        if buffer is None:
            out[i] = codes
            rng.shuffle(out[i])
        else:
            buffer[:] = codes
            rng.shuffle(buffer)
            out[i] = buffer[:stop]
    return out


def code_values(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sorted distinct values and each value's index among them (small integers, cheap to permute)."""
    vals, inverse = np.unique(values, return_inverse=True)
    dtype = np.int16 if vals.size < 2**15 else np.int32
    return vals, inverse.astype(dtype).ravel()


# --------------------------------------------------------------------------------------------------------------
# Checking a study's arguments
# --------------------------------------------------------------------------------------------------------------


def check_queries(queries: Iterable[Any]) -> list[str]:
    """The queries asked for, each once, in the order given.

    Example:
        >>> check_queries(["max", "VAR", "max"])
        ['max', 'variance']
    """
    if isinstance(queries, str):
        queries = [queries]
    checked = []
    for q in queries:
        try:
            checked.append(check_query(q))
        except PrivriskError as exc:
            raise PrivriskError(f"queries: {str(exc).removeprefix('query: ')}", param="queries") from None
    if not checked:
        raise PrivriskError("queries: give at least one query", param="queries")
    return list(dict.fromkeys(checked))


def check_trials(trials: Any, *, name: str = "trials") -> int:
    """Simulated attacks per sample: a whole number ≥ 1 (not a bool)."""
    if isinstance(trials, bool):
        raise PrivriskError(f"{name}: must be a whole number ≥ 1, got {trials!r}", param=name)
    return check_whole(trials, name=name, minimum=1)


def check_max_n(max_n: Any, *, name: str = "max_n") -> int | None:
    """The largest sample the attack takes on: None (every sample) or a whole number ≥ 2."""
    if max_n is None:
        return None
    try:
        if isinstance(max_n, bool):
            raise PrivriskError(name)
        return check_whole(max_n, name=name, minimum=2)
    except PrivriskError:
        raise PrivriskError(
            f"{name}: must be a whole number ≥ 2 (the attacker needs 2 records), got {max_n!r}", param=name
        ) from None


def check_study_values(values: Any, name: str) -> np.ndarray:
    """A variable's values: numbers, NaN dropped, at least two different values."""
    arr = check_values(values, name=name, minimum=0, drop_nan=True)
    if arr.size == 0:
        raise PrivriskError(f"{name}: no values left (all are missing)", param=name)
    if arr.size < 2 or arr.min() == arr.max():
        raise PrivriskError(
            f"{name}: holds one value only ({arr[0]:g}); a universe of one value has no sensitivity to study",
            param=name,
        )
    return arr


def variable_universe(values: np.ndarray, universe: Any, universe_min: float | None, name: str) -> Universe:
    """The universe of one variable: its own values (``"data"``), bounds or a :class:`~privrisk.Universe`."""
    if isinstance(universe, str):
        if universe != "data":
            raise PrivriskError(f"universe: 'data' or bounds (lo, hi), got {universe!r}")
        u = Universe.from_values(values)
    elif isinstance(universe, Universe):
        u = universe
    elif isinstance(universe, tuple | list) and len(universe) == 2:
        u = Universe.from_bounds(*universe)
    else:
        raise PrivriskError(f"universe: 'data', bounds (lo, hi) or a Universe, got {universe!r}")
    if universe_min is not None:
        u = u.with_min(float(universe_min))
    if u.width <= 0:
        raise PrivriskError(f"universe: {u.describe()} holds one value only; Δf would be 0")
    if u.is_interval:
        u.check_sample(np.array([values.min(), values.max()]), name=name)
    elif not isinstance(universe, str):  # a universe made of the values themselves holds them all
        u.check_sample(values, name=name)
    return u


@dataclass(frozen=True)
class Variable:
    """One variable of a study, checked: its values, universe, proportions and sample sizes."""

    name: str
    values: np.ndarray
    universe: Universe
    proportions: np.ndarray
    sizes: np.ndarray


@dataclass(frozen=True)
class Prepared:
    """A study's checked arguments: what :func:`~privrisk.sampling_study` and its attack both evaluate."""

    queries: list[str]
    epsilons: np.ndarray
    repetitions: int
    seed: int
    variables: list[Variable]


def prepare_study(
    values_by_variable: Any,
    *,
    queries: Iterable[Any],
    epsilons: Any,
    proportions: Any,
    repetitions: Any,
    seed: Any,
    universe: UniverseSpec,
    universe_min: float | None,
) -> Prepared:
    """Check a study's arguments and every variable before the long computation starts.

    Shared by :func:`~privrisk.study.sampling.sampling_study` and :func:`~privrisk.study.attack.study_attack`,
    so both draw the same samples from the same checked inputs.
    """
    if not isinstance(values_by_variable, Mapping):
        values_by_variable = {"x": values_by_variable}
    if not values_by_variable:
        raise PrivriskError("values_by_variable: give at least one variable")
    qs = check_queries(queries)
    eps = check_epsilons(epsilons, name="epsilons", allow_zero=True)
    reps = check_whole(repetitions, name="repetitions", minimum=1)
    seed = check_whole(seed, name="seed")
    if isinstance(proportions, str):
        if proportions != "auto":
            raise PrivriskError(f"proportions: a list of numbers in (0, 1] or 'auto', got {proportions!r}")
    else:
        check_proportions(proportions)

    prepared = []
    for name, raw in values_by_variable.items():
        arr = check_study_values(raw, str(name))
        u_spec = universe[name] if isinstance(universe, Mapping) else universe
        u = variable_universe(arr, u_spec, universe_min, str(name))
        props = (
            study_proportions(arr.size) if isinstance(proportions, str) else check_proportions(proportions)
        )
        prepared.append(Variable(str(name), arr, u, props, sample_sizes(props, arr.size)))
    return Prepared(qs, eps, reps, seed, prepared)
