"""Benchmark: the combined report on a result folder with a long table, naive baseline against privrisk.

The naive baseline reads the whole CSV with pandas and renders every row with ``DataFrame.to_html``, as one might
write a report by hand; privrisk streams the file, keeps the first rows it shows and counts the rest. Each case
runs in its own process, after the same imports, so that the peak memory it adds (``ru_maxrss``) is its own. The explainer page's build time is
printed as well.

    python benchmarks/explain.py            # 1,000,000 rows
    python benchmarks/explain.py --quick    # 20,000 rows: a smoke run
"""

from __future__ import annotations

import argparse
import json
import math
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _make_folder(folder: Path, rows: int) -> None:
    import numpy as np
    import pandas as pd

    from privrisk.reports.manifest import write_manifest

    rng = np.random.default_rng(0)
    eps = rng.uniform(0.1, 3.0, rows)
    frame = pd.DataFrame(
        {
            "epsilon": eps,
            "n": rng.integers(10, 10_000, rows),
            "risk": 1 / (1 + np.exp(-eps)),
            "query": rng.choice(["mean", "median", "variance"], rows),
        }
    )
    frame.to_csv(folder / "rows.csv", index=False)
    write_manifest(
        folder, kind="study", title="Benchmark study", tables=[{"title": "All rows", "path": "rows.csv"}]
    )


def _case(name: str, folder: Path) -> dict:
    """Run one case in this process; return its time, the memory it added at its peak, and the page's size."""
    import html

    import pandas as pd

    from privrisk.reports.explain import explainer_page
    from privrisk.reports.html import report_page

    # Both cases import the same libraries first, so the peak they add is their own work.
    base_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    start = time.perf_counter()
    if name == "naive":
        frame = pd.read_csv(folder / "rows.csv")
        page = f"<!DOCTYPE html><title>{html.escape('report')}</title>" + frame.to_html(index=False)
    elif name == "privrisk":
        page, _ = report_page([folder])
    elif name == "explain":
        page = explainer_page(math.log(3), n=100, compare=[math.log(2), math.log(7)], lang="de")
    else:  # pragma: no cover
        raise SystemExit(f"unknown case {name}")
    seconds = time.perf_counter() - start
    added_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024 - base_mib
    return {"case": name, "seconds": seconds, "added_mib": added_mib, "page_bytes": len(page.encode())}


def _run(name: str, folder: Path) -> dict:
    result = subprocess.run(
        [sys.executable, __file__, "--case", name, "--folder", str(folder)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(result.stdout)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="a small smoke run (20,000 rows)")
    parser.add_argument("--rows", type=int, default=None, help="rows of the table (default 1,000,000)")
    parser.add_argument("--case", help=argparse.SUPPRESS)
    parser.add_argument("--folder", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.case:
        print(json.dumps(_case(args.case, Path(args.folder))))
        return
    rows = args.rows or (20_000 if args.quick else 1_000_000)
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _make_folder(folder, rows)
        size = (folder / "rows.csv").stat().st_size / 2**20
        print(f"report on a table of {rows:,} rows ({size:.1f} MiB CSV)")
        naive = _run("naive", folder)
        ours = _run("privrisk", folder)
        for r in (naive, ours):
            print(
                f"  {r['case']:>9}: {r['seconds']:8.3f} s   peak memory added {r['added_mib']:7.1f} MiB   "
                f"page {r['page_bytes'] / 2**20:8.2f} MiB"
            )
        print(
            f"  speed-up {naive['seconds'] / ours['seconds']:.1f}×; memory added: naive {naive['added_mib']:.0f} MiB, "
            f"privrisk {ours['added_mib']:.0f} MiB"
        )
        page = _run("explain", folder)
        print(
            f"explainer page (de, n = 100, 3 ε): built in {page['seconds'] * 1000:.1f} ms, {page['page_bytes'] / 1024:.1f} KiB"
        )


if __name__ == "__main__":
    main()
