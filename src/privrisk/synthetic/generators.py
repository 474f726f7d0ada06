"""Small generators of synthetic files whose privacy is known exactly: for the worked example, the shadow-model
attack and the tests.

- ``copy``: the training records themselves, shuffled (no privacy at all: every attack must find it).
- ``marginals``: every column drawn on its own from its values in the training file (not private, but it copies
  no record: the joint structure is lost).
- ``rr``: randomised response on each record: each column of each record is kept with probability
  e^(ε/d)/(e^(ε/d) + k − 1) and otherwise replaced by one of the column's k − 1 other values (Warner 1965; k-ary:
  Kairouz et al. 2016). A record changes the output by at most e^ε (ε split over the d columns): ε-DP when one
  record is replaced by another (bounded neighbours), with the columns' values public.
- ``histogram``: the counts of every combination of the columns' values (numbers in equal-width bins), Laplace noise
  of scale 1/ε on every count (negative counts set to 0), and ``size`` records drawn from the noisy counts: ε-DP
  when a record is added or removed (the histogram's sensitivity is 1; Dwork et al. 2006), with the columns'
  values and the output size public. Every combination is noised, seen or not, so the domain must stay small
  (at most :data:`MAX_CELLS`).

The columns' values are taken from the file unless ``domains`` gives them: the guarantee assumes them public (the
states of a country, a questionnaire's answers).

Example:
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"sex": list("mf") * 50, "smoker": list("yyn") * 33 + ["n"]})
    >>> generate(frame, "histogram", epsilon=1.0, size=200, seed=0).shape
    (200, 2)
    >>> parse_generator("rr:ln3")[0], round(parse_generator("rr:ln3")[1], 4)
    ('rr', 1.0986)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from privrisk._validation import parse_epsilon
from privrisk.errors import PrivriskError

__all__ = ["GENERATORS", "MAX_CELLS", "PRIVATE", "generate", "parse_generator"]

GENERATORS = ("copy", "marginals", "rr", "histogram")
#: The generators with a differential-privacy guarantee (they need ε).
PRIVATE = ("rr", "histogram")
MAX_CELLS = 5_000_000
"""The most combinations a histogram generator noises (each is a count of its own)."""
_BINS = 8


def parse_generator(text: str, *, name: str = "generator") -> tuple[str, float | None]:
    """``NAME`` or ``NAME:EPSILON`` (``histogram:1``, ``rr:ln3``, ``copy``): the generator and its ε.

    Raises:
        PrivriskError: an unknown generator, a private one without ε, or ε for one that has none.
    """
    head, sep, tail = str(text).strip().partition(":")
    kind = head.strip().lower()
    if kind not in GENERATORS:
        raise PrivriskError(
            f"{name}: unknown generator {head!r}; choose one of {', '.join(GENERATORS)}", param=name
        )
    if kind in PRIVATE and not sep:
        raise PrivriskError(f"{name}: {kind} needs its ε, e.g. {kind}:1", param=name)
    if kind not in PRIVATE and sep:
        raise PrivriskError(f"{name}: {kind} has no ε; write {kind}", param=name)
    return kind, (parse_epsilon(tail.strip(), name=name) if sep else None)


def _domain(series: pd.Series, given: Sequence[Any] | None) -> np.ndarray:
    if given is not None:
        return np.asarray(list(given), dtype=object)
    values = pd.unique(series.astype(object))
    return np.asarray(values, dtype=object)


def _codes(series: pd.Series, domain: np.ndarray, name: str) -> np.ndarray:
    lookup = {(_key(v)): i for i, v in enumerate(domain)}
    try:
        return np.array([lookup[_key(v)] for v in series.astype(object)], dtype=np.int64)
    except KeyError as exc:
        raise PrivriskError(
            f"domains: {name!r} has the value {exc.args[0]!r} outside its domain", param="domains"
        ) from None


def _key(value: Any) -> Any:
    return "<NA>" if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _binned(series: pd.Series, domain: Sequence[Any] | None) -> tuple[pd.Series, np.ndarray]:
    """A numeric column with many values as its bins' midpoints (the bins' edges from the domain or the data)."""
    x = series.to_numpy(dtype=float)
    low, high = (
        (float(min(domain)), float(max(domain))) if domain is not None else (np.nanmin(x), np.nanmax(x))
    )
    width = (high - low) / _BINS or 1.0
    mids = low + width * (np.arange(_BINS) + 0.5)
    where = np.clip(np.floor((x - low) / width), 0, _BINS - 1)
    out = pd.Series(np.where(np.isnan(x), np.nan, mids[np.nan_to_num(where).astype(int)]), index=series.index)
    values = list(mids) + ([np.nan] if np.isnan(x).any() else [])
    return out, np.asarray(values, dtype=object)


def _histogram(frame: pd.DataFrame, epsilon: float, size: int, rng: np.random.Generator,
               domains: Mapping[str, Sequence[Any]]) -> pd.DataFrame:  # fmt: skip
    columns, domain_values, codes = [], [], []
    for name in frame.columns:
        series, given = frame[name], domains.get(str(name))
        numeric = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        if numeric and (given is None or len(given) > _BINS) and series.nunique() > _BINS:
            series, dom = _binned(series, given)
        else:
            dom = _domain(series, given)
        columns.append(str(name))
        domain_values.append(dom)
        codes.append(_codes(series, dom, str(name)))
    shape = tuple(len(d) for d in domain_values)
    cells = math.prod(shape)
    if cells > MAX_CELLS:
        raise PrivriskError(
            f"generator: the histogram of these columns has {cells:,} combinations, more than {MAX_CELLS:,}; "
            "use fewer columns or coarser values",
            param="generator",
        )
    flat = np.ravel_multi_index(codes, shape) if codes else np.zeros(len(frame), dtype=np.int64)
    counts = np.bincount(flat, minlength=cells).astype(float)
    noisy = np.clip(counts + rng.laplace(0.0, 1.0 / epsilon, size=cells), 0.0, None)
    total = noisy.sum()
    p = noisy / total if total > 0 else np.full(cells, 1.0 / cells)
    drawn = rng.choice(cells, size=size, p=p)
    parts = np.unravel_index(drawn, shape)
    return pd.DataFrame(
        {c: d[i] for c, d, i in zip(columns, domain_values, parts, strict=True)}
    ).infer_objects()


def _randomised_response(frame: pd.DataFrame, epsilon: float, rng: np.random.Generator,
                         domains: Mapping[str, Sequence[Any]]) -> pd.DataFrame:  # fmt: skip
    per_column = epsilon / max(1, frame.shape[1])
    out = {}
    for name in frame.columns:
        dom = _domain(frame[name], domains.get(str(name)))
        code = _codes(frame[name], dom, str(name))
        k = len(dom)
        if k < 2:
            out[str(name)] = dom[code]
            continue
        keep = rng.random(code.size) < math.exp(per_column) / (math.exp(per_column) + k - 1)
        # Another value, uniformly among the k − 1 others.
        other = (code + rng.integers(1, k, size=code.size)) % k
        out[str(name)] = dom[np.where(keep, code, other)]
    result = pd.DataFrame(out).infer_objects()
    return result.iloc[rng.permutation(len(result))].reset_index(drop=True)


def generate(
    frame: pd.DataFrame,
    generator: str,
    *,
    epsilon: float | None = None,
    size: int | None = None,
    seed: int | np.random.Generator | None = None,
    domains: Mapping[str, Sequence[Any]] | None = None,
) -> pd.DataFrame:
    """A synthetic file made from ``frame`` by one of :data:`GENERATORS`.

    Args:
        frame: the training records.
        generator: ``copy``, ``marginals``, ``rr`` or ``histogram``.
        epsilon: ε of ``rr`` and ``histogram``.
        size: records to make (default: as many as ``frame``; ``rr`` always makes as many).
        seed: the randomness.
        domains: the public values of each column (default: the values in ``frame``).
    """
    rng = np.random.default_rng(seed)
    text = generator if generator not in PRIVATE or epsilon is None else f"{generator}:{epsilon}"
    kind, parsed = parse_generator(text)
    epsilon = parsed if epsilon is None else epsilon
    n = len(frame) if size is None else int(size)
    if kind == "copy":
        rows = rng.choice(len(frame), size=n, replace=n > len(frame))
        return frame.iloc[rows].reset_index(drop=True)
    if kind == "marginals":
        return pd.DataFrame(
            {c: frame[c].to_numpy()[rng.integers(0, len(frame), size=n)] for c in frame.columns}
        )
    if epsilon is None or not epsilon > 0:
        raise PrivriskError(f"epsilon: {kind} needs ε > 0", param="epsilon")
    if kind == "rr":
        return _randomised_response(frame, float(epsilon), rng, domains or {})
    return _histogram(frame, float(epsilon), n, rng, domains or {})
