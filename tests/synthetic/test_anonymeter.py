"""The three attacks against Anonymeter, a peer in its own virtual environment (as ACRO for the outputs).

Set ``PRIVRISK_ANONYMETER_PYTHON`` to the Python of a virtual environment with ``anonymeter`` installed; the test
is skipped without it. Both tools attack the same files with the same number of queries; their success counts on
the training and the control records must agree within their sampling error (the attacks draw their targets and
queries at random, each with its own generator, so they agree in distribution, not record by record).
"""

from __future__ import annotations

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

from privrisk.synthetic import SyntheticSettings, run_synthetic
from synthetic_helpers import files, noisy_copy

PEER = os.environ.get("PRIVRISK_ANONYMETER_PYTHON")
#: Run by Anonymeter's own interpreter (``python -c PEER_SCRIPT TRAIN SYNTHETIC CONTROL QUERIES SEED``): its three
#: evaluators on the CSV files, their counts as JSON. It imports nothing of privrisk.
PEER_SCRIPT = """
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
"""
pytestmark = pytest.mark.skipif(
    not PEER or not Path(PEER).exists(), reason="PRIVRISK_ANONYMETER_PYTHON not set"
)
QUERIES = 300


def _agree(ours: float, n_ours: int, theirs: float, n_theirs: int) -> bool:
    """Two rates agree within four standard errors of their difference, plus 3 points for the tools' details."""
    p = (ours * n_ours + theirs * n_theirs) / (n_ours + n_theirs)
    se = math.sqrt(max(p * (1 - p), 1e-9) * (1 / max(n_ours, 1) + 1 / max(n_theirs, 1)))
    return abs(ours - theirs) <= 4 * se + 0.03


@pytest.mark.parametrize("scale", [0.0, 0.3])
def test_same_rates_as_anonymeter(tmp_path: Path, scale: float) -> None:
    train, control, _ = files(n=1000, seed=4)
    synthetic = noisy_copy(train, scale, seed=2)
    paths = [tmp_path / f"{name}.csv" for name in ("train", "synthetic", "control")]
    for frame, path in zip((train, synthetic, control), paths, strict=True):
        frame.to_csv(path, index=False)
    peer = subprocess.run([PEER, "-c", PEER_SCRIPT, *map(str, paths), str(QUERIES), "3"], capture_output=True,
                          text=True, timeout=900, check=True)  # fmt: skip
    theirs = json.loads(peer.stdout.strip().splitlines()[-1])
    run = run_synthetic(SyntheticSettings(original=paths[0], synthetic=paths[1], control=paths[2],
                                          aux="a,b|c,d", secret="kind", queries=QUERIES, membership=False,
                                          distances=False, seed=3))  # fmt: skip
    ours = {o.attack: o for o in run.attacks}
    for attack, peer_counts in theirs.items():
        # Anonymeter divides by the queries asked for; so do we here, to compare like with like (our own rates are
        # over the queries found, with the shortfall reported).
        o = ours[attack]
        k, kc = o.risk.attack[0], (o.risk.control or (0, 0))[0]
        assert _agree(k / QUERIES, QUERIES, peer_counts["successes"] / QUERIES, QUERIES), (
            attack,
            o.risk,
            peer_counts,
        )
        assert _agree(kc / QUERIES, QUERIES, peer_counts["control"] / QUERIES, QUERIES), (
            attack,
            o.risk,
            peer_counts,
        )
