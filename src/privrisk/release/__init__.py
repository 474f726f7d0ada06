"""Noisy releases with OpenDP, release specifications, the ledger of spent ε, and public statements.

- :mod:`~privrisk.release.mechanisms`: the Laplace mechanism through OpenDP (:func:`noise_scale`,
  :func:`noise_interval`, :func:`laplace_mechanism`) and :func:`noisy_release`, which answers several queries;
- :mod:`~privrisk.release.spec`: what to release (:class:`ReleaseQuery`, a ``release.toml`` read by
  :func:`read_release_spec`);
- :mod:`~privrisk.release.statement`: the risk a release states (:func:`public_statement`,
  :func:`composed_epsilon`), its result :class:`Release`, the files it writes (:func:`write_outputs`) and a
  ledger's history (:func:`summarize_ledger`);
- :mod:`~privrisk.release.ledger`: the locked, hash-chained ledger (:func:`read_ledger`, :func:`spent_epsilon`);
- :mod:`~privrisk.release.budget`: budgets as ε, (ε, δ) or ρ (:class:`Budget`);
- :mod:`~privrisk.release.composition`: the tight composition of what a ledger records and its risk
  (:func:`composition_statement`), next to the plain sums.

Laplace answers spend ε (:func:`laplace_mechanism`); Gaussian answers spend ρ of zero-concentrated DP
(:func:`gaussian_mechanism`, :func:`gaussian_sigma`; ``ReleaseQuery(…, mechanism="gaussian", rho=…)``).

Example:
    >>> import pandas as pd
    >>> r = noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", "ln3", (0, 24)))
    >>> round(r.statement["global_risk"], 2)
    0.75
"""

from __future__ import annotations

from privrisk.release.budget import Budget
from privrisk.release.composition import composed_guarantee, composition_statement
from privrisk.release.ledger import read_ledger, spent_epsilon
from privrisk.release.mechanisms import (
    gaussian_mechanism,
    gaussian_sigma,
    laplace_mechanism,
    noise_interval,
    noise_scale,
    noisy_release,
)
from privrisk.release.spec import ReleaseQuery, ReleaseSpec, check_spec_columns, read_release_spec
from privrisk.release.statement import (
    LedgerSummary,
    Release,
    composed_epsilon,
    public_statement,
    release_parameters,
    release_statement,
    summarize_ledger,
    write_outputs,
)

__all__ = [
    "Budget",
    "LedgerSummary",
    "Release",
    "ReleaseQuery",
    "ReleaseSpec",
    "check_spec_columns",
    "composed_epsilon",
    "composed_guarantee",
    "composition_statement",
    "gaussian_mechanism",
    "gaussian_sigma",
    "laplace_mechanism",
    "noise_interval",
    "noise_scale",
    "noisy_release",
    "public_statement",
    "read_ledger",
    "read_release_spec",
    "release_parameters",
    "release_statement",
    "spent_epsilon",
    "summarize_ledger",
    "write_outputs",
]
