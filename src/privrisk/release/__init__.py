"""Noisy releases with OpenDP, release specifications, the ledger of spent ε, and public statements.

- :mod:`~privrisk.release.run`: the one way in: :class:`ReleaseSettings` (every setting of a release, checked
  together), :func:`run_release` and its :class:`ReleaseRun` (the release, or with ``preview=True`` the noise and
  error of each answer before any ε is spent);
- :mod:`~privrisk.release.request`: the checked request and its preview (:class:`ReleasePreview`);
- :mod:`~privrisk.release.transaction`: the release as one transaction (check the outputs, draw, charge the ledger
  under its lock, move the outputs into place), and :func:`noisy_release`, its keyword form for a table in memory;
- :mod:`~privrisk.release.typed`: queries as a form holds them (text fields), read with the library's rules;
- :mod:`~privrisk.release.mechanisms`: the Laplace and Gaussian mechanisms through OpenDP (:func:`noise_scale`,
  :func:`noise_interval`, :func:`sample_laplace`) and the ε > 20 check;
- :mod:`~privrisk.release.spec`: what to release (:class:`ReleaseQuery`, a ``release.toml`` read by
  :func:`read_release_spec`);
- :mod:`~privrisk.release.statement`: the risk a release states (:func:`public_statement`,
  :func:`composed_epsilon`), in plain words (:func:`statement_html`);
- :mod:`~privrisk.release.result`: a release's result :class:`Release` and its internal assessment;
- :mod:`~privrisk.release.outputs`: the files a release writes (:func:`write_outputs`);
- :mod:`~privrisk.release.history`: a ledger's history (:func:`summarise_ledger`) and ``privrisk ledger``'s way in
  (:class:`LedgerSettings`, :func:`run_ledger`, :class:`LedgerRun`);
- :mod:`~privrisk.release.ledger`: the locked, hash-chained ledger (:func:`read_ledger`, :func:`spent_epsilon`);
- :mod:`~privrisk.release.budget`: budgets as ε, (ε, δ) or ρ (:class:`Budget`);
- :mod:`~privrisk.release.composition`: the tight composition of what a ledger records and its risk
  (:func:`composition_statement`), next to the plain sums.

``ReleaseRequest``, ``preview``, ``publish``, ``check_ledger`` and ``LedgerCheck`` are the earlier names, kept one
release: they warn (:class:`DeprecationWarning`) and do what they did.

Laplace answers spend ε (:func:`sample_laplace`); Gaussian answers spend ρ of zero-concentrated DP
(:func:`sample_gaussian`, :func:`gaussian_sigma`; ``ReleaseQuery(…, mechanism="gaussian", rho=…)``).

Example:
    >>> import pandas as pd
    >>> r = noisy_release(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", "ln3", (0, 24)))
    >>> round(r.statement["global_risk"], 2)
    0.75
"""

from __future__ import annotations

import warnings
from typing import Any

from privrisk.errors import deprecation_message
from privrisk.release.budget import Budget
from privrisk.release.composition import composed_guarantee, composition_statement
from privrisk.release.history import (
    LedgerRun,
    LedgerSettings,
    LedgerSummary,
    check_ledger,  # noqa: F401 - deprecated (warns), not in __all__
    run_ledger,
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
from privrisk.release.request import QueryPreview, ReleasePreview, preview  # noqa: F401 - deprecated (warns)
from privrisk.release.result import Release
from privrisk.release.run import ReleaseRun, ReleaseSettings, run_release
from privrisk.release.spec import ReleaseQuery, ReleaseSpec, check_spec_columns, read_release_spec
from privrisk.release.statement import composed_epsilon, public_statement, release_statement, statement_html
from privrisk.release.transaction import noisy_release, publish  # noqa: F401 - deprecated (warns)

__all__ = [
    "Budget",
    "LedgerRun",
    "LedgerSettings",
    "LedgerSummary",
    "QueryPreview",
    "Release",
    "ReleasePreview",
    "ReleaseQuery",
    "ReleaseRun",
    "ReleaseSettings",
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
    "run_ledger",
    "run_release",
    "sample_gaussian",
    "sample_laplace",
    "spent_epsilon",
    "statement_html",
    "summarise_ledger",
    "write_outputs",
]


def __getattr__(name: str) -> Any:
    """``ReleaseRequest`` and ``LedgerCheck``, earlier names kept one release (they warn): the same classes."""
    if name == "ReleaseRequest":
        warnings.warn(
            deprecation_message("ReleaseRequest", "ReleaseSettings"), DeprecationWarning, stacklevel=2
        )
        from privrisk.release.request import Request

        return Request
    if name == "LedgerCheck":
        warnings.warn(deprecation_message("LedgerCheck", "LedgerRun"), DeprecationWarning, stacklevel=2)
        return LedgerRun
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
