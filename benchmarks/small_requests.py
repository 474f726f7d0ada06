"""Benchmark: the whole output check of small requests (remedies and their audits included), against the code
before three changes of 2026-12-02, in one run.

Small data is where most requests of a research data centre sit, and it was slower than large data: the atoms'
intervals (exact up to 100 atoms, the rounded linear bounds up to 500) were worked out again in every audit of the
request's remedies, which read only the findings, and rounds of whole tables went on while each settled a single
end, and the searches for points meant for 10⁵ atoms ran before the programmes however small the system. The
baseline sets ``release_audit.ATOM_INTERVALS`` to True, ``extremes.WHOLE_LEAST`` and ``extremes.SEARCHES_FROM``
to 0 (the code before); privrisk runs as shipped. Each request is checked by ``check_frame``, as ``privrisk
outputs`` does; the script says whether both give the same document (``--json``'s; the atoms' file, not in it, may mark other atoms
exact: ``tight``, a whole solution met at both ends, which the rounds may or may not meet on the way).

- ``typical``: ``benchmarks/outputs.py``'s 20 tables (counts, means) over 20,000 records of 3 regions × 2 sexes ×
  5 age bands × 4 levels of education: 360 atoms.
- ``survey``: seven tables over 200 records with missing values (``tests/outputs/test_engines.py``'s kind:
  counts with margins, a weighted count, sums, a mean, a median, a maximum).

Run: .venv/bin/python benchmarks/small_requests.py [--quick]   (--quick: the survey's first three tables alone, 40 records)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

import privrisk.outputs.extremes as extremes
import privrisk.outputs.release_audit as release_audit
from outputs import make_data, to_toml, typical_specs
from privrisk.io.files import to_jsonable
from privrisk.outputs import OutputSpec, check_frame, parse_spec

SURVEY = (
    OutputSpec(name="T1", kind="count", rows=("region",), columns=("sex",), margins=True),
    OutputSpec(name="T2", kind="sum", rows=("region",), variable="income", where="age >= 30"),
    OutputSpec(name="T3", kind="mean", rows=("sex",), variable="income"),
    OutputSpec(name="T4", kind="count", rows=("band",), weights="w"),
    OutputSpec(name="T5", kind="median", rows=("region",), variable="age"),
    OutputSpec(name="T6", kind="max", rows=("sex",), variable="income", where="region = 'N'"),
    OutputSpec(name="T7", kind="sum", rows=("sex",), variable="w", weights="w"),
)


def survey(n: int, seed: int = 1) -> pd.DataFrame:
    """``n`` people of a small survey: a region (some missing), sex, age, an income band, income, a weight."""
    rng = np.random.default_rng(seed)
    region = rng.choice(np.array(["N", "S", "E", "All", None], dtype=object), n, p=[0.4, 0.3, 0.2, 0.05, 0.05])
    income = np.round(rng.gamma(2.0, 900.0, n), 2)
    income[rng.random(n) < 0.1] = np.nan
    return pd.DataFrame({"region": region, "sex": rng.choice([1, 2], n), "age": rng.integers(16, 90, n),
                         "band": rng.choice([1.5, 2.5, 3.0], n), "income": income,
                         "w": np.round(rng.uniform(0.5, 40.0, n), 3)})  # fmt: skip


def _document(frame: pd.DataFrame, specs: Any) -> tuple[float, float, dict[str, Any]]:
    started, cpu = time.perf_counter(), time.process_time()
    run = check_frame(frame, specs)
    wall, used = time.perf_counter() - started, time.process_time() - cpu
    return wall, used, json.loads(json.dumps(to_jsonable(run.to_dict())))


# As shipped, read before any switch: the benchmark measures whatever the module holds, not a copy of it.
SHIPPED = (release_audit.ATOM_INTERVALS, extremes.WHOLE_LEAST, extremes.SEARCHES_FROM)


def _switch(on: bool) -> None:
    release_audit.ATOM_INTERVALS, extremes.WHOLE_LEAST, extremes.SEARCHES_FROM = SHIPPED if on else (True, 0.0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="the survey's first three tables alone, 40 records")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    cases: list[tuple[str, pd.DataFrame, Any]] = [("survey", survey(40 if args.quick else 200),
                                                   SURVEY[:3] if args.quick else SURVEY)]  # fmt: skip
    if not args.quick:
        levels = {"region": 3, "sex": 2, "ageband": 5, "edu": 4}
        cases.insert(0, ("typical", make_data(20_000, levels), parse_spec(to_toml(typical_specs()))))
    for label, frame, specs in cases:
        _switch(False)
        w1, c1, before = _document(frame, specs)
        _switch(True)
        w2, c2, after = _document(frame, specs)
        same = before == after
        summary = after["summary"]
        print(f"{label}: {len(frame):,} records, {len(specs)} outputs, {summary['atoms']:,} atoms; the code before "
              f"(baseline) {w1:.1f} s wall, {c1:.1f} s CPU; privrisk {w2:.1f} s wall, {c2:.1f} s CPU; baseline / "
              f"privrisk = {w1 / w2:.2f}× wall; the same document: {same}", flush=True)  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
