"""Noisy releases with OpenDP, release specifications, the ledger of spent ε, and public statements.

- :mod:`~privrisk.release.request`: the one way in: :class:`ReleaseRequest` (every setting of a release, checked
  together) and :func:`preview` (the noise and error of each answer before any ε is spent);
- :mod:`~privrisk.release.transaction`: :func:`publish`, the release as one transaction (check the outputs, draw,
  charge the ledger under its lock, move the outputs into place), and :func:`noisy_release`, its keyword form;
- :mod:`~privrisk.release.mechanisms`: the Laplace and Gaussian mechanisms through OpenDP (:func:`noise_scale`,
  :func:`noise_interval`, :func:`sample_laplace`) and the ε > 20 check;
- :mod:`~privrisk.release.spec`: what to release (:class:`ReleaseQuery`, a ``release.toml`` read by
  :func:`read_release_spec`);
- :mod:`~privrisk.release.statement`: the risk a release states (:func:`public_statement`,
  :func:`composed_epsilon`), in plain words (:func:`statement_html`);
- :mod:`~privrisk.release.result`: a release's result :class:`Release` and its internal assessment;
- :mod:`~privrisk.release.outputs`: the files a release writes (:func:`write_outputs`);
- :mod:`~privrisk.release.history`: a ledger's history (:func:`summarise_ledger`);
- :mod:`~privrisk.release.ledger`: the locked, hash-chained ledger (:func:`read_ledger`, :func:`spent_epsilon`);
- :mod:`~privrisk.release.budget`: budgets as ε, (ε, δ) or ρ (:class:`Budget`);
- :mod:`~privrisk.release.composition`: the tight composition of what a ledger records and its risk
  (:func:`composition_statement`), next to the plain sums.

Laplace answers spend ε (:func:`sample_laplace`); Gaussian answers spend ρ of zero-concentrated DP
(:func:`sample_gaussian`, :func:`gaussian_sigma`; ``ReleaseQuery(…, mechanism="gaussian", rho=…)``).

Example:
    >>> import pandas as pd
    >>> r = noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", "ln3", (0, 24)))
    >>> round(r.statement["global_risk"], 2)
    0.75
"""

from __future__ import annotations

from privrisk.release.budget import Budget
from privrisk.release.composition import composed_guarantee, composition_statement
from privrisk.release.history import (
    LedgerCheck,
    LedgerSettings,
    LedgerSummary,
    check_ledger,
    summarise_ledger,
    summarize_ledger,  # noqa: F401 - the old spelling, kept one release (not in __all__)
)
from privrisk.release.ledger import read_ledger, spent_epsilon
from privrisk.release.mechanisms import (
    gaussian_mechanism,
    gaussian_sigma,
    laplace_mechanism,
    noise_interval,
    noise_scale,
    sample_gaussian,
    sample_laplace,
)
from privrisk.release.outputs import release_parameters, write_outputs
from privrisk.release.request import QueryPreview, ReleasePreview, ReleaseRequest, preview
from privrisk.release.result import Release
from privrisk.release.spec import ReleaseQuery, ReleaseSpec, check_spec_columns, read_release_spec
from privrisk.release.statement import composed_epsilon, public_statement, release_statement, statement_html
from privrisk.release.transaction import noisy_release, publish

__all__ = [
    "Budget",
    "LedgerCheck",
    "LedgerSettings",
    "LedgerSummary",
    "QueryPreview",
    "Release",
    "ReleasePreview",
    "ReleaseQuery",
    "ReleaseRequest",
    "ReleaseSpec",
    "check_ledger",
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
    "preview",
    "public_statement",
    "publish",
    "read_ledger",
    "read_release_spec",
    "release_parameters",
    "release_statement",
    "sample_gaussian",
    "sample_laplace",
    "spent_epsilon",
    "statement_html",
    "summarise_ledger",
    "write_outputs",
]
