"""sdcTools' ptable algorithm for count tables, written again with scipy, to make the test table of
``create_cnt_ptable(D = 2, V = 1)`` (ptable 1.0, ``R/pt_create_pTable.R`` and ``R/pt_optim_entropy.R``).

For each count i the noise v takes the values j − i for j = max(i − D, 0), …, i + D; the probabilities maximise
the entropy −Σ p log₂ p subject to Σ p = 1, Σ v p = 0 (unbiased), Σ v² p ≤ V, p ≥ 10⁻⁸ and, with ``mono``, p
rising up to v = 0; row 0 is "0 stays 0"; the row of i = D serves every larger count. The intervals are
rounded to 8 digits and p is taken as their differences, as ptable does.

Not R's output: the test checks that this agrees with the digits ptable's vignette prints for D = 2, V = 1
(p = 0.3665, 0.3665, 0.1676, 0.0995 for i = 1; 0.0638 for i = 2, v = −2; variance 0.932 for i = 1).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize


def maximum_entropy_row(noise: list[int], variance: float, *, mono: bool = True) -> np.ndarray:
    v = np.asarray(noise, dtype=float)
    constraints = [
        {"type": "eq", "fun": lambda x: x.sum() - 1.0},
        {"type": "eq", "fun": lambda x: (v * x).sum()},
        {"type": "ineq", "fun": lambda x: variance - (v * v * x).sum()},
    ]
    if mono:
        zero = int(np.flatnonzero(v == 0)[0])
        for j in range(zero):
            constraints.append({"type": "ineq", "fun": lambda x, j=j: x[j + 1] - x[j]})
    result = minimize(
        lambda x: float(np.sum(x * np.log2(x))),
        np.full(v.size, 1.0 / v.size),
        jac=lambda x: np.log2(x) + 1.0 / np.log(2.0),
        bounds=[(1e-8, 1.0)] * v.size,
        constraints=constraints,
        method="SLSQP",
        options={"ftol": 1e-15, "maxiter": 2000},
    )
    return np.asarray(result.x)


def count_ptable(d: int, variance: float) -> list[tuple[int, int, float, int, float, float]]:
    """Rows (i, j, p, v, p_int_lb, p_int_ub) of ``create_cnt_ptable(D = d, V = variance)`` (js = 0)."""
    rows = [(0, 0, 1.0, 0, 0.0, 1.0)]
    for i in range(1, d + 1):
        js = list(range(max(i - d, 0), i + d + 1))
        p = maximum_entropy_row([j - i for j in js], variance)
        upper = np.round(np.cumsum(p), 8)
        upper[-1] = 1.0
        lower = np.concatenate([[0.0], upper[:-1]])
        rows += [
            (i, j, float(u - lo), j - i, float(lo), float(u))
            for j, lo, u in zip(js, lower, upper, strict=True)
        ]
    return rows


if __name__ == "__main__":  # python tests/census_ptable.py > tests/data/census/ptable_D2_V1.csv
    print("i;j;p;v;p_int_lb;p_int_ub;type")
    for i, j, p, v, lo, up in count_ptable(2, 1.0):
        print(f"{i};{j};{p:.8f};{v};{lo:.8f};{up:.8f};all")
