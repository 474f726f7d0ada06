"""Noisy releases with OpenDP, release specifications, the ledger of spent ε, and public statements."""

from __future__ import annotations

from privrisk.release.ledger import read_ledger, spent_epsilon
from privrisk.release.mechanisms import (
    Release,
    ReleaseQuery,
    ReleaseSpec,
    composed_epsilon,
    laplace_mechanism,
    noise_interval,
    noise_scale,
    noisy_release,
    public_statement,
    read_release_spec,
)

__all__ = [
    "Release",
    "ReleaseQuery",
    "ReleaseSpec",
    "composed_epsilon",
    "laplace_mechanism",
    "noise_interval",
    "noise_scale",
    "noisy_release",
    "public_statement",
    "read_ledger",
    "read_release_spec",
    "spent_epsilon",
]
