"""The output-checking policy: ACRO's keys and defaults, read from a centre's YAML file unchanged.

The keys and their defaults are those of ACRO's ``default.yaml`` (Green et al., ACRO 1.0), so a research data
centre's existing policy file works as it is: ``safe_threshold`` (minimum frequency), ``safe_dof_threshold``
(residual degrees of freedom of a model), ``safe_nk_n`` and ``safe_nk_k`` (the (n, k) dominance rule: the n
largest contributors must hold less than the share k of a cell), ``safe_pratio_p`` (the p % rule, ACRO's
p-ratio), ``zeros_are_disclosive``, ``check_missing_values`` and ``safe_round_base``. Keys this module does not
use (``survival_safe_threshold``, ``federated``, ``blocked_extensions``) are accepted and kept.
"""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError

__all__ = ["Policy", "read_policy"]

# The largest value of each whole-number key: far above any centre's rule, and small enough to compute with (the
# (n, k) rule keeps the n largest values of every cell; ACRO's defaults are 10, 10, 2 and 5).
_LARGEST = {
    "safe_threshold": 1_000_000,
    "safe_dof_threshold": 1_000_000,
    "safe_nk_n": 1_000,
    "safe_round_base": 1_000_000,
}
# A policy is a few lines of YAML; anything larger is not one (and /dev/zero must not fill the memory).
MAX_POLICY_BYTES = 1 << 20

# ACRO's keys that privrisk reads but does not apply (they concern survival plots, federated mode, file types).
_KEPT_KEYS = {"survival_safe_threshold", "federated", "blocked_extensions"}


@dataclass(frozen=True)
class Policy:
    """The rules an output must meet, under ACRO's names and with ACRO's defaults.

    Example:
        >>> Policy().safe_threshold, Policy().safe_nk_k, Policy().safe_pratio_p
        (10, 0.9, 0.1)
    """

    safe_threshold: int = 10
    safe_dof_threshold: int = 10
    safe_nk_n: int = 2
    safe_nk_k: float = 0.9
    safe_pratio_p: float = 0.1
    check_missing_values: bool = False
    zeros_are_disclosive: bool = True
    safe_round_base: int = 5

    def __post_init__(self) -> None:
        for name in ("safe_threshold", "safe_dof_threshold", "safe_nk_n", "safe_round_base"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _LARGEST[name]:
                raise PrivriskError(
                    f"{name}: must be a whole number from 1 to {_LARGEST[name]:,}, not {value!r}", param=name
                )
        for name in ("safe_nk_k", "safe_pratio_p"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not (0 < value <= 1):
                raise PrivriskError(f"{name}: must be a share in (0, 1], not {value!r}", param=name)
        for name in ("check_missing_values", "zeros_are_disclosive"):
            if not isinstance(getattr(self, name), bool):
                raise PrivriskError(f"{name}: must be true or false", param=name)

    def to_dict(self) -> dict[str, Any]:
        """The policy under ACRO's keys."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


def read_policy(path: str | os.PathLike[str] | None) -> Policy:
    """A policy from an ACRO-style YAML file (``None``: ACRO's defaults).

    Example:
        >>> read_policy(None) == Policy()
        True
    """
    if path is None:
        return Policy()
    import yaml  # type: ignore[import-untyped]

    from privrisk.io.files import read_text_file

    file = Path(path)
    text = read_text_file(file, MAX_POLICY_BYTES, what="the policy", param="policy")
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        line = getattr(getattr(exc, "problem_mark", None), "line", None)
        where = f" (line {line + 1})" if line is not None else ""
        raise PrivriskError(f"policy: {file} is not YAML{where}", param="policy") from None
    if doc is None:
        doc = {}
    if not isinstance(doc, dict):
        raise PrivriskError(f"policy: {file} must hold keys such as safe_threshold: 10", param="policy")
    known = {f.name for f in fields(Policy)}
    unknown = sorted(str(k) for k in set(doc) - known - _KEPT_KEYS)
    if unknown:
        raise PrivriskError(
            f"policy: {file}: unknown key {unknown[0]!r}; the keys are ACRO's: {', '.join(sorted(known))}",
            param="policy",
        )
    values = {k: v for k, v in doc.items() if k in known}
    # ACRO's YAML writes shares as 0.90; a whole number such as 1 is a share too.
    for k in ("safe_nk_k", "safe_pratio_p"):
        if isinstance(values.get(k), int) and not isinstance(values.get(k), bool):
            values[k] = float(values[k])
    for k in ("safe_threshold", "safe_dof_threshold", "safe_nk_n", "safe_round_base"):
        v = values.get(k)
        if isinstance(v, float) and math.isfinite(v) and v.is_integer():
            values[k] = int(v)
    try:
        return Policy(**values)
    except PrivriskError as exc:
        raise PrivriskError(f"policy: {file}: {exc}", param="policy") from None
