"""Regression outputs: ordinary least squares and logistic regression, with their residual degrees of freedom.

Fitted with numpy (least squares by QR) and Newton's method for the logit; statsmodels is not needed. The
residual degrees of freedom are n − p (observations minus coefficients, the intercept included), statsmodels'
``df_resid``, which ACRO checks against ``safe_dof_threshold``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.outputs.spec import OutputSpec, parse_formula

__all__ = ["ModelFit", "design", "fit_model"]


@dataclass(frozen=True)
class ModelFit:
    """Coefficients by term, the number of observations used and the residual degrees of freedom."""

    terms: tuple[str, ...]
    coefficients: np.ndarray
    n: int
    dof: int


def design(frame: pd.DataFrame, spec: OutputSpec) -> tuple[np.ndarray, np.ndarray, tuple[str, ...]]:
    """The response y and design matrix X of a formula (complete cases; C(v): one dummy per level but the first)."""
    assert spec.formula is not None
    y_name, terms, intercept = parse_formula(spec.formula, output=spec.name)
    used = [y_name, *(t for t, _ in terms)]
    data = frame[used].dropna()
    cols: list[np.ndarray] = []
    names: list[str] = []
    if intercept:
        cols.append(np.ones(len(data)))
        names.append("Intercept")
    for name, categorical in terms:
        values = data[name]
        if categorical:
            levels = sorted(values.astype(str).unique())
            for level in levels[1:] if intercept else levels:
                cols.append((values.astype(str) == level).to_numpy(dtype=float))
                names.append(f"C({name})[T.{level}]")
        else:
            cols.append(_numbers(values, spec, f"column {name!r}", f"; write C({name})"))
            names.append(name)
    y = _numbers(data[y_name], spec, f"the response {y_name!r}", "")
    x = np.column_stack(cols) if cols else np.empty((len(data), 0))
    return y, x, tuple(names)


def _numbers(values: pd.Series, spec: OutputSpec, what: str, hint: str) -> np.ndarray:
    """A column of a model as finite numbers (true and false as 1 and 0), or a one-line error naming it."""
    head = f"spec: output {spec.name!r}: field 'formula': {what}"
    if pd.api.types.is_datetime64_any_dtype(values) or pd.api.types.is_timedelta64_dtype(values):
        raise PrivriskError(f"{head} holds dates or times, not numbers{hint}", param="spec")
    try:
        x = pd.to_numeric(values).to_numpy(dtype=float)
    except (TypeError, ValueError):
        raise PrivriskError(f"{head} is not numeric{hint}", param="spec") from None
    if not np.isfinite(x).all():
        raise PrivriskError(
            f"{head} holds an infinite value: give finite numbers (a missing value may be left empty)",
            param="spec",
        )
    return x


def fit_model(frame: pd.DataFrame, spec: OutputSpec) -> ModelFit:
    """Fit an ols or logit output on the rows its ``where`` keeps.

    Example:
        >>> import pandas as pd
        >>> f = pd.DataFrame({"y": [1.0, 2.0, 3.5, 4.0], "x": [0.0, 1.0, 2.0, 3.0]})
        >>> fit = fit_model(f, OutputSpec(name="M", kind="ols", formula="y ~ x"))
        >>> fit.dof, [round(float(c), 3) for c in fit.coefficients]
        (2, [1.05, 1.05])
    """
    y, x, names = design(frame, spec)
    n, p = x.shape
    if spec.kind == "logit":
        if not np.isin(y, (0.0, 1.0)).all():
            raise PrivriskError(
                f"spec: output {spec.name!r}: a logit's response must be 0 or 1", param="spec"
            )
        beta = _logit(y, x)
    else:
        beta = np.linalg.lstsq(x, y, rcond=None)[0] if n else np.full(p, np.nan)
    rank = int(np.linalg.matrix_rank(x)) if n else 0
    return ModelFit(names, beta, n, n - rank)


def _logit(y: np.ndarray, x: np.ndarray, iterations: int = 100) -> np.ndarray:
    from scipy.special import expit

    beta = np.zeros(x.shape[1])
    for _ in range(iterations):
        mu = expit(x @ beta)
        w = mu * (1 - mu)
        grad = x.T @ (y - mu)
        hess = x.T @ (x * w[:, None])
        step = np.linalg.lstsq(hess, grad, rcond=None)[0]
        beta = beta + step
        if np.max(np.abs(step)) < 1e-10:
            break
    return beta
