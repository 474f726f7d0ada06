"""Run Anonymeter's three evaluators on CSV files and print their counts as JSON (run with Anonymeter's Python).

    python anonymeter_peer.py TRAIN SYNTHETIC CONTROL QUERIES SEED

This file is run by Anonymeter's own interpreter, in its own virtual environment; it imports nothing of privrisk.
"""

import json
import sys

import pandas as pd
from anonymeter.evaluators import InferenceEvaluator, LinkabilityEvaluator, SinglingOutEvaluator


def main() -> None:
    train, synthetic, control = (pd.read_csv(p) for p in sys.argv[1:4])
    queries, seed = int(sys.argv[4]), int(sys.argv[5])
    out = {}
    for mode in ("univariate", "multivariate"):
        ev = SinglingOutEvaluator(
            train,
            synthetic,
            n_attacks=queries,
            n_cols=3,
            control=control,
            max_attempts=25 * queries,
            seed=seed,
        )
        ev.evaluate(mode=mode)
        res = ev.results()
        out[f"singling_out_{mode}"] = {"successes": int(res.n_success), "control": float(res.n_control)}
    link = LinkabilityEvaluator(
        train, synthetic, aux_cols=(["a", "b"], ["c", "d"]), n_attacks=queries, control=control
    )
    link.evaluate(n_jobs=1)
    res = link.results()
    out["linkability"] = {"successes": int(res.n_success), "control": float(res.n_control)}
    inf = InferenceEvaluator(
        train, synthetic, aux_cols=["a", "b", "c", "d"], secret="kind", n_attacks=queries, control=control
    )
    inf.evaluate(n_jobs=1)
    res = inf.results()
    out["inference"] = {"successes": int(res.n_success), "control": float(res.n_control)}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
