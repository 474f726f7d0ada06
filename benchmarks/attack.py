"""Benchmark the Lee–Clifton attacker: the naive way against privrisk.posterior, in one run.

1. The Monte Carlo attack, n = 10⁴ worlds and 10⁵ trials. Naive: the full posterior matrix over the worlds for
   every trial (softmax of −|γ − fᵢ|/b, in chunks of trials), guess its argmax. Ours: ``simulate_attack``, the
   nearest world by ``searchsorted`` on the sorted distinct answers. The naive attacker is timed on a share of
   the trials and scaled (``--full`` runs all of them).
2. The exact risk: the n × n matrix Σⱼ e^(−|fᵢ − fⱼ|/b) in row blocks against the O(n log n) prefix scan.
3. The worlds (leave-one-out answers) of the median and the variance: a Python loop of n evaluations against
   ``worlds`` (the loop is timed on a share of the records and scaled).

Run: ``python benchmarks/attack.py`` (``--quick`` for a smoke run, ``--full`` for the unscaled naive attacker).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc

import numpy as np
from scipy.special import softmax

from privrisk import evaluate, exact_risk, simulate_attack, worlds


def naive_attack(f: np.ndarray, b: float, trials: int, seed: int, chunk: int = 200) -> float:
    """Success rate of the attacker that computes every posterior for every trial."""
    rng = np.random.default_rng(seed)
    wins = 0
    for start in range(0, trials, chunk):
        m = min(chunk, trials - start)
        true = rng.integers(0, f.size, size=m)
        gamma = f[true] + rng.laplace(0.0, b, size=m)
        post = softmax(-np.abs(gamma[:, None] - f[None, :]) / b, axis=1)
        wins += int(np.count_nonzero(np.argmax(post, axis=1) == true))
    return wins / trials


def naive_exact_risk(f: np.ndarray, eps: float, df: float, block: int = 1000) -> float:
    best = np.inf
    for start in range(0, f.size, block):
        rows = f[start : start + block]
        best = min(best, float(np.exp(-np.abs(rows[:, None] - f[None, :]) * eps / df).sum(axis=1).min()))
    return 1.0 / best


def timed(fn, *args, **kwargs):
    t0 = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small smoke run")
    parser.add_argument("--full", action="store_true", help="run the naive attacker on every trial")
    args = parser.parse_args()
    n, trials = (2_000, 10_000) if args.quick else (10_000, 100_000)
    # The sum over a right-skewed variable (incomes, hours) with ε so large that the attacker often wins, so the
    # naive and the fast attacker can be seen to agree (at ε = 1 both succeed about 1/n of the time).
    eps, query = 1e4, "sum"
    x = np.random.default_rng(0).gamma(2.0, 20.0, size=n)
    df = float(np.max(np.abs(x)))  # Δf of the sum over the data's own values
    f = worlds(x, query)
    b = df / eps
    print(f"n = {n:,} worlds, {trials:,} trials, query {query}, ε = {eps:g}, Δf = {df:.4g}")

    # 1. The attack.
    share = trials if args.full else max(trials // 10, 1000)
    naive_rate, t_naive = timed(naive_attack, f, b, share, 1)
    t_naive_all = t_naive * trials / share
    ours, t_ours = timed(simulate_attack, x, query, eps, sensitivity=df, trials=trials, seed=1)
    tracemalloc.start()
    simulate_attack(x, query, eps, sensitivity=df, trials=trials, seed=1)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    scaled = "" if share == trials else f" (timed on {share:,} trials, scaled ×{trials / share:g})"
    print("\n1. Monte Carlo attack")
    print(f"   naive posterior matrix:   {t_naive_all:7.3f} s{scaled}; success {naive_rate:.4f}")
    print(
        f"   privrisk simulate_attack: {t_ours:7.3f} s; success {ours.simulated_success:.4f} "
        f"[{ours.ci_low:.4f}, {ours.ci_high:.4f}], exact expected {ours.expected_success:.4f}, "
        f"peak memory {peak / 2**20:.1f} MiB"
    )
    print(f"   ratio: {t_naive_all / t_ours:,.0f}×")

    # 1b. Ours alone at a size the naive attacker cannot reach.
    if not args.quick:
        big = np.random.default_rng(2).gamma(2.0, 20.0, size=1_000_000)
        tracemalloc.start()
        r, t_big = timed(simulate_attack, big, "variance", 1.0, sensitivity=float(np.ptp(big)) ** 2 / 4,
                         trials=1_000_000, seed=1)  # fmt: skip
        peak_big = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        print(
            f"   privrisk at n = 10⁶ worlds, 10⁶ trials (variance): {t_big:.2f} s, peak memory "
            f"{peak_big / 2**20:.0f} MiB, success {r.simulated_success:.2e} (exact {r.expected_success:.2e}); "
            "the naive attacker would need 10¹² posterior entries"
        )

    # 2. The exact risk.
    eps_risk = 10.0  # at ε = 10⁴ every world is exposed (risk 1); ε = 10 gives a number worth comparing
    naive_risk, t_naive_risk = timed(naive_exact_risk, f, eps_risk, df)
    risk, t_risk = timed(exact_risk, f, eps_risk, df)
    print(f"\n2. Exact risk (worst answer over all worlds), ε = {eps_risk:g}")
    print(f"   naive n × n matrix: {t_naive_risk:.3f} s -> {naive_risk:.10g}")
    print(f"   privrisk prefix scan: {t_risk:.4f} s -> {risk:.10g}")
    print(f"   ratio: {t_naive_risk / t_risk:,.0f}×; relative difference {abs(risk / naive_risk - 1):.1e}")

    # 3. Leave-one-out answers.
    print("\n3. Worlds (leave-one-out answers)")
    for q in ("median", "variance"):
        k = max(n // 10, 200)
        _, t_loop = timed(lambda q=q, k=k: [evaluate(q, np.delete(x, i)) for i in range(k)])
        t_loop_all = t_loop * n / k
        fw, t_fast = timed(worlds, x, q)
        check = np.array([evaluate(q, np.delete(x, i)) for i in range(50)])
        err = float(np.max(np.abs(fw[:50] - check)))
        print(
            f"   {q:8s}: loop {t_loop_all:.3f} s (timed on {k:,} records, scaled), worlds {t_fast:.4f} s, "
            f"ratio {t_loop_all / t_fast:,.0f}×, max difference {err:.1e}"
        )


if __name__ == "__main__":
    main()
