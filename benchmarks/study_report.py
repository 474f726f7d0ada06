"""End to end: ``privrisk study`` on continuous data as a user runs it, against the previous report path (issue 14).

The case of issue 14, part 2: 10⁶ lognormal incomes (every value distinct) in a Parquet file, 20 sample
proportions, 100 repetitions, the 7 queries, 6 values of ε; ``python -m privrisk study incomes.parquet -c income
… --out DIR`` writes results.parquet, summary.csv, two figures (PNG and SVG), report.html and manifest.json.

- privrisk: the command itself, in a fresh process (reading, the study, the figures, the page, the files).
- previous: the same command with the figures drawn the previous way (a layout draw, then a second Agg draw for
  the PNG; log axes labelled with mathtext, whose parser is built and run; titles placed by Matplotlib's search
  on every draw), patched into a child process. The study itself is the same in both.

Each is timed by its CPU time (``resource.getrusage`` of the child: on the shared 2-core machine wall times vary
threefold with the load, CPU time little) and its wall time; the load average is printed beside them. A third
run of ours, in a child like the previous one, also times writing the folder (``write_bundle``: Matplotlib's
import, the figures, the page and the files), which both children print. Both ways must write the same
results.parquet and summary.csv.

Issue 25 adds the log-spaced case (20 proportions from 1 % to 100 %) beside the linear one (from 5 %), and the
previous way also draws its samples as before (``Generator.permutation`` and a copy of the prefix, a new block of
draws for every block of repetitions, in the caller's thread; ours draws the next block in a second thread while
the current one is evaluated, into two reused buffers). The same samples either way: both must write the same
results.parquet.

Run: ``python benchmarks/study_report.py`` (the issue's case, the median of ``--repeat`` runs, 3 by default) or
``python benchmarks/study_report.py --quick`` (N = 100,000, 10 repetitions, one run each).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

QUERIES = ["count", "sum", "mean", "median", "min", "max", "variance"]
EPSILONS = [0.1, 0.5, 1.0, 2.0, 5.0, 10.0]
TARGET_SECONDS = 6.0


def write_incomes(path: Path, n: int, seed: int = 0) -> None:
    """n lognormal incomes, every value distinct, as a one-column Parquet file."""
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    income = np.random.default_rng(seed).lognormal(5.0, 0.8, n)
    pq.write_table(pa.table({"income": income}), path)


#: The two sets of 20 proportions: issue 14's (linear from 5 %) and issue 25's (log-spaced from 1 %, heavier: the
#: small samples cost as much per repetition and the largest ones are the same).
SPACINGS = {
    "linear 5 %–100 %": np.round(np.linspace(1 / 20, 1.0, 20), 4),
    "log-spaced 1 %–100 %": np.round(np.geomspace(0.01, 1.0, 20), 4),
}


def study_arguments(path: Path, out: Path, reps: int, spacing: str = "linear 5 %–100 %") -> list[str]:
    proportions = SPACINGS[spacing]
    return ["study", str(path), "-c", "income", "-q", ",".join(QUERIES), "-e", ",".join(map(str, EPSILONS)),
            "-p", ",".join(map(str, proportions)), "-r", str(reps), "--out", str(out)]  # fmt: skip


# ------------------------------------------------------------------------------------------- previous (child)
def _previous_save_figure(fig: Any, folder: Any, stem: str, *, dpi: float = 150, **_: Any) -> dict[str, Path]:
    """save_figure before issue 14: a layout draw, then savefig draws again for the PNG and for the SVG."""
    import matplotlib

    from privrisk.reports.plots._base import _has_layout_engine

    target = Path(folder)
    # The figures are no longer pyplot's: there is nothing to close.
    target.mkdir(parents=True, exist_ok=True)
    if _has_layout_engine(fig):
        fig.canvas.draw()
        fig.set_layout_engine("none")
    paths: dict[str, Path] = {}
    with matplotlib.rc_context({"svg.hashsalt": stem, "svg.fonttype": "none"}):
        for ext in ("png", "svg"):
            paths[ext] = target / f"{stem}.{ext}"
            meta = {"Date": None} if ext == "svg" else {"Software": None}
            fig.savefig(paths[ext], format=ext, dpi=dpi if ext == "png" else None, metadata=meta)
    return paths


def _previous_log_scale(ax: Any, axis: str = "y", *, minor: bool = False) -> None:
    """Matplotlib's own log axis: decades labelled with mathtext, minor ticks as the callers set them."""
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")


def _previous_draw_block(codes: Any, stop: int, seed: int, name: str, reps: range) -> Any:
    """draw_block before issue 25: ``Generator.permutation`` (a copy of N, shuffled) and a copy of its prefix."""
    from privrisk.study._samples import _rep_generator

    out = np.empty((len(reps), stop), dtype=codes.dtype)
    for i, r in enumerate(reps):
        out[i] = _rep_generator(seed, name, r).permutation(codes)[:stop]
    return out


def _previous_drawn_blocks(codes: Any, stop: int, seed: int, name: str, blocks: list[range]) -> Any:
    """The blocks before issue 25: each drawn afresh (new pages) in the caller's thread, then evaluated."""
    for reps in blocks:
        yield reps, _previous_draw_block(codes, stop, seed, name, reps)


def run_child(way: str, argv: list[str]) -> int:
    """``privrisk study`` in this process (the child), the previous figure path patched in for ``previous``.

    The CPU time of writing the folder (``write_bundle``: the figures, the page and the files) is printed last
    on stderr as ``report_cpu=…``.
    """
    # The command imports write_bundle from its home module when it runs, so the home module is patched.
    import privrisk.study.report as command
    from privrisk.cli import main

    if way == "previous":
        from matplotlib.axes import Axes

        import privrisk.study.sampling as sampling

        sampling._drawn_blocks = _previous_drawn_blocks

        import privrisk.reports.plots.study as plots

        plots.save_figure = _previous_save_figure
        plots.log_scale = _previous_log_scale
        set_title = Axes.set_title

        def automatic_title(self: Any, label: str, *args: Any, y: Any = None, **kwargs: Any) -> Any:
            return set_title(self, label, *args, **kwargs)  # Matplotlib searches for the title's place

        Axes.set_title = automatic_title  # type: ignore[method-assign]
    write_bundle, spent = command.write_bundle, []

    def timed_bundle(*args: Any, **kwargs: Any) -> Any:
        start = time.process_time()
        try:
            return write_bundle(*args, **kwargs)
        finally:
            spent.append(time.process_time() - start)

    command.write_bundle = timed_bundle
    code = main(argv)
    print(f"report_cpu={sum(spent)}", file=sys.stderr)
    return code


# ------------------------------------------------------------------------------------------- timing
def timed(command: list[str]) -> tuple[float, float, float | None]:
    """Wall and CPU seconds (user + system, from getrusage of the children) of one command, and the CPU
    seconds of writing the folder if the command reports them (``report_cpu=…`` on stderr)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(command, capture_output=True, text=True)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(
            f"{' '.join(command[:4])} … failed ({proc.returncode}): {proc.stderr.strip()[-500:]}"
        )
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    lines = proc.stderr.strip().splitlines()
    report = float(lines[-1].split("=")[1]) if lines and lines[-1].startswith("report_cpu=") else None
    return wall, cpu, report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="N = 100,000, 10 repetitions, one run each")
    parser.add_argument("--repeat", type=int, default=None, help="runs of each way (the median is printed)")
    parser.add_argument("--child", nargs=argparse.REMAINDER, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child is not None:
        raise SystemExit(run_child(args.child[0], args.child[1:]))

    n, reps = (100_000, 10) if args.quick else (1_000_000, 100)
    repeat = args.repeat or (1 if args.quick else 3)
    print(f"privrisk study on a Parquet file: N = {n:,} lognormal incomes (all distinct), 20 proportions, {reps} "
          f"repetitions, {len(QUERIES)} queries, {len(EPSILONS)} ε; median of {repeat} run{'s' * (repeat > 1)}; "
          "CPU time (user + system) and wall time of the whole command in a fresh process")  # fmt: skip
    all_same = True
    for spacing in SPACINGS:
        all_same &= run_case(spacing, n, reps, repeat, args.quick)
    print(f"load average {', '.join(f'{x:.2f}' for x in os.getloadavg())} (2 cores)")
    if not all_same:
        raise SystemExit(1)


def run_case(spacing: str, n: int, reps: int, repeat: int, quick: bool) -> bool:
    """One set of proportions: ours, ours with the folder's writing timed, and the previous way; the table."""
    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "incomes.parquet"
        write_incomes(data, n)
        ways = {
            "privrisk": [sys.executable, "-m", "privrisk"],  # as a user runs it
            "privrisk, report timed": [sys.executable, __file__, "--child", "privrisk"],
            "previous": [sys.executable, __file__, "--child", "previous"],
        }
        times: dict[str, list[tuple[float, float, float | None]]] = {way: [] for way in ways}
        for run in range(repeat):
            for i, (way, command) in enumerate(ways.items()):  # alternated, so that all see the same load
                out = Path(tmp) / f"{i}-{run}"
                times[way].append(timed([*command, *study_arguments(data, out, reps, spacing)]))
        same = all(
            (Path(tmp) / f"0-0/{name}").read_bytes() == (Path(tmp) / f"2-0/{name}").read_bytes()
            for name in ("results.parquet", "summary.csv")
        )
    median = {
        way: (statistics.median(t[0] for t in runs), statistics.median(t[1] for t in runs))
        for way, runs in times.items()
    }
    report = {way: statistics.median(t[2] or 0.0 for t in times[way]) for way in ("privrisk, report timed",
                                                                                 "previous")}  # fmt: skip
    target = "—" if quick else f"≤ {TARGET_SECONDS:g}"
    print(f"\n{spacing}{'target':>14}{'ours':>10}{'baseline':>10}   (baseline: the draw and figures before "
          "issues 25 and 14)")  # fmt: skip
    width = len(spacing)
    print(
        f"{'  end to end, CPU (s)':{width}}{target:>14}{median['privrisk'][1]:>10.2f}{median['previous'][1]:>10.2f}"
    )
    print(
        f"{'  end to end, wall (s)':{width}}{'':>14}{median['privrisk'][0]:>10.2f}{median['previous'][0]:>10.2f}"
    )
    print(f"{'  writing the folder, CPU (s)':{width}}{'':>14}{report['privrisk, report timed']:>10.2f}"
          f"{report['previous']:>10.2f}")  # fmt: skip
    if not quick:
        met = "met" if median["privrisk"][1] <= TARGET_SECONDS else "NOT met"
        print(f"  target ≤ {TARGET_SECONDS:g} s end to end (CPU time): {met}")
    print(f"  same results.parquet and summary.csv: {'yes' if same else 'NO'}")
    return same


if __name__ == "__main__":
    main()
