"""Benchmark: how long the light commands take to start, beside ``python -c "import numpy"`` in the same run.

Each command runs as a fresh process, as a user runs it, round-robin with the baseline so that a busy machine slows
all of them alike; the best (fastest) and the median of the runs are printed with their ratios to the baseline's.
Targets: issue 25, every light command (``--version``, ``risk --epsilon 1``, ``--help``, …) at most 2.5x
``import numpy`` (best of the runs); issue 14, ``--help`` of every command at most 4x and 0.25 s (an idle machine's
figure). ``--before SRC`` runs the same commands against another source tree (for example a checkout of the
previous version's ``src``) in the same rounds, so the before-and-after table comes from one run.

Bytecode: an installed package has its ``.pyc`` files (pip compiles them), so the children read and write
compiled bytecode under a private temporary prefix (``PYTHONPYCACHEPREFIX``) even where the environment sets
``PYTHONDONTWRITEBYTECODE`` (this machine's does; privrisk's modules would then be compiled from source on every
start while numpy's come compiled). ``--no-bytecode`` keeps the environment's setting.

    python benchmarks/startup.py                          # 11 runs of every command and every --help
    python benchmarks/startup.py --quick                  # 2 runs of the light commands and two --help
    python benchmarks/startup.py --before /path/old/src   # and the old tree beside it
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

LIGHT = {
    "--version": ["--version"],
    "risk --epsilon 1": ["risk", "--epsilon", "1"],
    "risk": ["risk", "--epsilon", "1", "--n", "10", "--json"],
    "epsilon": ["epsilon", "--risk", "0.75", "--json"],
    "table": ["table", "--json"],
    "explain": ["explain", "--epsilon", "ln3", "--n", "100", "--json"],
    "--help": ["--help"],
}
TARGET_RATIO = 2.5  # issue 25, the light commands (best of the runs)
HELP_RATIO, HELP_SECONDS = 4.0, 0.25  # issue 14, --help of every command (median)


def _commands(quick: bool) -> dict[str, list[str]]:
    """The light commands, then ``--help`` of every command (of two in quick mode)."""
    from privrisk.cli import COMMANDS

    names = ["study", "presence"] if quick else list(COMMANDS)
    return {**LIGHT, **{f"{name} --help": [name, "--help"] for name in names}}


def _env(src: str | None, pycache: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
    if pycache is not None:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = pycache
    env.setdefault("COLUMNS", "100")
    return env


def _seconds(argv: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall-clock and CPU seconds (user + system) of one process; CPU time varies less on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} exited {proc.returncode}: {proc.stderr.decode()[-500:]}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="2 runs, the light commands and two --help")
    parser.add_argument("--runs", type=int, default=None, help="runs of each command (default 11; quick 2)")
    parser.add_argument("--before", default=None, help="another src tree to time beside this one")
    parser.add_argument("--no-bytecode", action="store_true", help="keep the environment's bytecode setting")
    args = parser.parse_args()
    runs = args.runs or (2 if args.quick else 11)  # quick: the test suite's smoke run, not a measurement
    commands = _commands(args.quick)
    with tempfile.TemporaryDirectory(prefix="privrisk-pycache-") as tmp:
        pycache = None if args.no_bytecode else tmp
        trees = {"now": _env(None, pycache)}
        if args.before is not None:
            trees["before"] = _env(args.before, pycache)
        times = _time_all(commands, trees, runs)
    _report(commands, trees, times, runs)
    print(f"load average (1, 5, 15 min): {', '.join(f'{x:.2f}' for x in os.getloadavg())} on "
          f"{os.cpu_count()} cores; bytecode {'as the environment says' if args.no_bytecode else 'cached'}")  # fmt: skip


def _time_all(commands, trees, runs: int) -> dict[tuple[str, str], list[tuple[float, float]]]:
    baseline = [sys.executable, "-c", "import numpy"]
    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    # Warm the file cache (and the bytecode cache): the first run of anything reads from disk.
    _seconds(baseline, trees["now"])
    for cli_args in commands.values():
        for env in trees.values():
            _seconds([sys.executable, "-m", "privrisk", *cli_args], env)
    for _ in range(runs):
        times.setdefault(("baseline", "now"), []).append(_seconds(baseline, trees["now"]))
        for name, cli_args in commands.items():
            for tree, env in trees.items():
                argv = [sys.executable, "-m", "privrisk", *cli_args]
                times.setdefault((name, tree), []).append(_seconds(argv, env))
    return times


def _report(commands, trees, times, runs: int) -> None:
    def best(key: tuple[str, str], which: int) -> float:
        return min(t[which] for t in times[key])

    def median(key: tuple[str, str], which: int) -> float:
        return statistics.median(t[which] for t in times[key])

    floor, floor_med = best(("baseline", "now"), 0), median(("baseline", "now"), 0)
    floor_cpu = best(("baseline", "now"), 1)
    print(f"python -c 'import numpy': best {floor:.3f} s, median {floor_med:.3f} s wall, CPU best "
          f"{best(('baseline', 'now'), 1):.3f} s, of {runs} runs (the baseline)")  # fmt: skip
    header = f"{'command':<20} {'best':>7} {'x numpy':>8} {'median':>7} {'x numpy':>8} {'CPU':>7} {'x numpy':>8}  target"
    if "before" in trees:
        header += f" {'before':>7} {'x numpy':>8} {'speed-up':>9}"
    print(header)
    worst = 0.0
    for name in commands:
        now, med, cpu = best((name, "now"), 0), median((name, "now"), 0), best((name, "now"), 1)
        if name in LIGHT:
            target = f"≤ {TARGET_RATIO:g}x best"
            ok = now <= TARGET_RATIO * floor
            worst = max(worst, now / floor)
        else:
            target = f"≤ {HELP_RATIO:g}x, {HELP_SECONDS} s"
            ok = med <= HELP_RATIO * floor_med and med <= HELP_SECONDS
        line = f"{name:<20} {now:>6.3f}s {now / floor:>7.2f}x {med:>6.3f}s {med / floor_med:>7.2f}x {cpu:>6.3f}s {cpu / floor_cpu:>7.2f}x  "
        line += f"{target:<15} {'ok' if ok else 'MISSED':<6}"
        if "before" in trees:
            old = best((name, "before"), 0)
            line += f" {old:>6.3f}s {old / floor:>7.2f}x {old / now:>8.1f}x"
        print(line)
    print(
        f"largest ratio of a light command to import numpy (best of {runs}): {worst:.2f}x (target ≤ {TARGET_RATIO:g}x)"
    )


if __name__ == "__main__":
    main()
