"""privrisk synthetic's three attacks against Anonymeter on the same files: both times and their ratio.

10⁵ training, 10⁵ synthetic and 10⁵ control records with 15 columns; singling out (univariate and multivariate),
linkability and inference, 2,000 queries each (``--quick``: 5,000 records, 200 queries). privrisk runs in this
process; Anonymeter runs in its own virtual environment (``PRIVRISK_ANONYMETER_PYTHON``; skipped without it) with
the same query counts, the same caps on singling-out attempts (25 per query) and one job, on the same CSV files.
Membership inference and the distances are not part of the three attacks and are switched off.

    python benchmarks/synthetic.py [--quick] [--rows N] [--queries Q]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

AUX = ["age", "sex", "region", "race", "education", "marital"]

ANONYMETER = r"""
import sys, time
import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator
train, synthetic, control = (pd.read_csv(p) for p in sys.argv[1:4])
q = int(sys.argv[4]); aux = sys.argv[5].split(","); secrets = sys.argv[6].split(",")
started = time.perf_counter()
for mode in ("univariate", "multivariate"):
    SinglingOutEvaluator(train, synthetic, n_attacks=q, n_cols=3, control=control, max_attempts=25 * q,
                         seed=1).evaluate(mode=mode)
half = (len(aux) + 1) // 2
LinkabilityEvaluator(train, synthetic, aux_cols=(aux[:half], aux[half:]), n_attacks=q,
                     control=control).evaluate(n_jobs=1)
for secret in secrets:
    InferenceEvaluator(train, synthetic, aux_cols=aux, secret=secret, n_attacks=q, control=control).evaluate(n_jobs=1)
print(time.perf_counter() - started)
"""


def survey(n: int, seed: int) -> pd.DataFrame:
    """n made-up respondents with 15 columns, some of them dependent (education → income, age → health)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    education = np.clip(rng.poisson(2.0, n), 0, 5)
    return pd.DataFrame({
        "age": age, "sex": rng.choice(["f", "m"], n), "region": rng.choice([f"r{i}" for i in range(16)], n),
        "race": rng.choice(list("abcdef"), n, p=[0.6, 0.15, 0.1, 0.08, 0.05, 0.02]), "education": education,
        "marital": rng.choice(list("smdw"), n),
        "income": np.round(np.exp(9.6 + 0.25 * education + rng.normal(0, 0.6, n)), -2),
        "hours": rng.integers(0, 80, n), "kids": rng.integers(0, 5, n),
        "health": np.clip(np.round(4.5 - age / 30 + rng.normal(0, 0.8, n)), 1, 5),
        "smoker": rng.choice(["y", "n"], n), "bmi": np.round(rng.normal(26, 4, n), 1),
        "tenure": rng.integers(0, 40, n), "vote": rng.choice(list("ABCDE"), n),
        "diagnosis": rng.choice([f"d{i}" for i in range(30)], n),
    })  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="5,000 records and 200 queries (a smoke test)")
    parser.add_argument("--rows", type=int, default=None)
    parser.add_argument("--queries", type=int, default=None)
    args = parser.parse_args()
    rows = args.rows or (5_000 if args.quick else 100_000)
    queries = args.queries or (200 if args.quick else 2_000)
    from privrisk.synthetic import SyntheticSettings, run_synthetic

    with tempfile.TemporaryDirectory() as tmp:
        paths = [Path(tmp) / f"{name}.csv" for name in ("train", "synthetic", "control")]
        for i, path in enumerate(paths):
            survey(rows, seed=i).to_csv(path, index=False)
        secrets = [c for c in survey(2, 0).columns if c not in AUX]
        settings = SyntheticSettings(original=paths[0], synthetic=paths[1], control=paths[2], aux=",".join(AUX),
                                     queries=queries, membership=False, distances=False, seed=1)  # fmt: skip
        started, cpu = time.perf_counter(), time.process_time()
        run = run_synthetic(settings)
        ours, cpu = time.perf_counter() - started, time.process_time() - cpu
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        print(f"{rows:,} training, synthetic and control records, 15 columns, {queries:,} queries per attack; "
              f"{len(secrets)} secrets")  # fmt: skip
        print(
            f"privrisk:   {ours:8.1f} s (reading the files included; {cpu:.1f} s of CPU), peak memory {peak:,.0f} MB"
        )
        for o in run.attacks[:4]:
            print(f"  {o.title:28} {o.found:>6,} attacks, risk {100 * o.risk.value:.2f} %")
        peer = os.environ.get("PRIVRISK_ANONYMETER_PYTHON")
        if not peer or not Path(peer).exists():
            print("Anonymeter: not run (set PRIVRISK_ANONYMETER_PYTHON to its virtual environment's Python)")
            return
        try:
            done = subprocess.run([peer, "-c", ANONYMETER, *map(str, paths), str(queries), ",".join(AUX),
                                   ",".join(secrets)], capture_output=True, text=True, check=True,
                                  timeout=3 * 3600)  # fmt: skip
        except subprocess.TimeoutExpired:
            print("Anonymeter: did not finish in 3 hours")
            return
        theirs = float(done.stdout.strip().splitlines()[-1])
        print(f"Anonymeter: {theirs:8.1f} s (reading the files not included)")
        print(f"ratio Anonymeter / privrisk: {theirs / ours:.1f}")


if __name__ == "__main__":
    sys.exit(main())
