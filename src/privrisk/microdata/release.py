"""The released file and what the reduction cost: the input file with only the changed key values altered, and
the information lost per key, as sdcMicro's and ARX's reports show it.

- :func:`released_frame`: the whole input (every column, in its order and type) with the suppressed key values
  missing or the recoded keys replaced by their recoded values. A column of whole numbers stays whole (pandas'
  nullable integers), so ``74`` is not written as ``74.0``.
- :func:`information_loss`: per key, the values suppressed (count and share of the values shown), the distinct
  values before and after, and the Shannon entropy of the key's distribution before and after, H = −Σ p log₂ p,
  with its loss (a key recoded or suppressed entirely loses all of it and is said to be lost).
- :func:`write_released`: writes it in the input's format (CSV, Parquet, Stata, SPSS).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError

__all__ = ["RELEASED_NAMES", "information_loss", "released_frame", "released_name", "write_released"]

RELEASED_NAMES = {
    "csv": "released.csv",
    "parquet": "released.parquet",
    "stata": "released.dta",
    "spss": "released.sav",
}
"""The released file's name in an output folder, by the input's format."""


def released_frame(
    original: pd.DataFrame, changed: pd.DataFrame, keys: tuple[str, ...] | list[str]
) -> pd.DataFrame:
    """The input ``original`` (every column) with its key columns taken from ``changed`` (the reduced keys).

    Example:
        >>> before = pd.DataFrame({"id": [1, 2], "age": [30, 41], "income": [900.5, 1200.0]})
        >>> after = pd.DataFrame({"age": pd.array([30, None], dtype="Int64")})
        >>> released_frame(before, after, ["age"]).astype(object).to_dict("list")
        {'id': [1, 2], 'age': [30, None], 'income': [900.5, 1200.0]}
    """
    if len(original) != len(changed):
        raise PrivriskError("internal: the reduced keys do not have the file's records")
    out = original.reset_index(drop=True).copy()
    for key in keys:
        out[key] = changed[key].reset_index(drop=True)
    return out


def _entropy(column: pd.Series) -> float:
    counts = column.dropna().astype(str).value_counts().to_numpy(dtype=float)
    if counts.sum() == 0:
        return 0.0
    p = counts / counts.sum()
    return float(-(p * np.log2(p)).sum())


def information_loss(original: pd.DataFrame, released: pd.DataFrame, keys: tuple[str, ...] | list[str],
                     recoded: tuple[str, ...] | list[str] = ()) -> list[dict[str, Any]]:  # fmt: skip
    """What each key lost: suppressed values, distinct values and entropy before and after (module docstring).

    A key is ``lost`` when the released file shows no information on it: every value missing, or one value
    only (a recoding to ``*``) where the input had several.

    Example:
        >>> before = pd.DataFrame({"age": [30, 30, 41, 55], "sex": list("mfmf")})
        >>> after = pd.DataFrame({"age": ["*"] * 4, "sex": ["m", "f", None, "f"]})
        >>> [(d["key"], d["suppressed"], d["lost"], round(d["entropy_lost"], 3)) for d in
        ...  information_loss(before, after, ["age", "sex"], recoded=["age"])]
        [('age', 0, True, 1.5), ('sex', 1, False, 0.082)]
    """
    out = []
    for key in keys:
        was, now = original[key], released[key]
        shown = int(was.notna().sum())
        suppressed = int((was.notna() & now.isna()).sum())
        h_before, h_after = _entropy(was), _entropy(now)
        distinct_before, distinct_after = int(was.nunique()), int(now.nunique())
        lost = (int(now.notna().sum()) == 0 and shown > 0) or (distinct_after <= 1 < distinct_before)
        out.append({
            "key": key,
            "recoded": key in recoded,
            "suppressed": suppressed,
            "suppressed_share": suppressed / shown if shown else 0.0,
            "distinct_before": distinct_before,
            "distinct_after": distinct_after,
            "entropy_before": h_before,
            "entropy_after": h_after,
            "entropy_lost": max(0.0, h_before - h_after),
            "entropy_lost_share": max(0.0, h_before - h_after) / h_before if h_before > 0 else 0.0,
            "lost": bool(lost),
        })  # fmt: skip
    return out


def released_name(source: str | None) -> str:
    """The released file's name for an input: its format's (:data:`RELEASED_NAMES`), CSV for a data frame."""
    if source is None:
        return RELEASED_NAMES["csv"]
    from privrisk.io.data import file_kind

    try:
        return RELEASED_NAMES[file_kind(Path(source))]
    except PrivriskError:
        return RELEASED_NAMES["csv"]


def write_released(frame: pd.DataFrame, path: str | os.PathLike[str]) -> None:
    """Write the released file in the format its name says (call inside :func:`privrisk.io.files.atomic_dir`)."""
    p = Path(path)
    suffix = p.suffix.lower()
    if suffix == ".parquet":
        frame.to_parquet(p, index=False)
    elif suffix == ".dta":
        frame.to_stata(p, write_index=False, version=118)
    elif suffix == ".sav":
        import pyreadstat

        plain = frame.copy()
        for column in plain.columns:  # pyreadstat writes numpy types: nullable integers as floats with NaN
            if isinstance(plain[column].dtype, pd.api.extensions.ExtensionDtype):
                plain[column] = plain[column].astype(object if not pd.api.types.is_numeric_dtype(plain[column])
                                                     else float)  # fmt: skip
        pyreadstat.write_sav(plain, str(p))
    else:
        from privrisk.io.files import write_csv

        write_csv(frame, p)
