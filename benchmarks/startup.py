"""Benchmark: how long the light commands take to start, beside ``python -c "import numpy"`` in the same run.

Each command runs as a fresh process, as a user runs it, round-robin with the baseline so that a busy machine slows
all of them alike; the median of the runs is printed with its ratio to the baseline's median. The targets of issue 14:
``risk``, ``epsilon``, ``table``, ``explain`` and ``--help`` of every command each at most 0.25 s and at most 4x
``import numpy``. ``--before SRC`` runs the same commands against another source tree (for example a checkout of
the previous version's ``src``) in the same rounds, so the before-and-after table comes from one run.

    python benchmarks/startup.py                          # 11 runs of every command and every --help
    python benchmarks/startup.py --quick                  # 3 runs of the light commands and two --help
    python benchmarks/startup.py --before /path/old/src   # and the old tree beside it
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

LIGHT = {
    "risk": ["risk", "--epsilon", "1", "--n", "10", "--json"],
    "epsilon": ["epsilon", "--risk", "0.75", "--json"],
    "table": ["table", "--json"],
    "explain": ["explain", "--epsilon", "ln3", "--n", "100", "--json"],
    "--help": ["--help"],
}
TARGET_SECONDS = 0.25
TARGET_RATIO = 4.0


def _commands(quick: bool) -> dict[str, list[str]]:
    """The light commands, then ``--help`` of every command (of two in quick mode)."""
    from privrisk.cli import COMMANDS

    names = ["study", "presence"] if quick else list(COMMANDS)
    return {**LIGHT, **{f"{name} --help": [name, "--help"] for name in names}}


def _env(src: str | None) -> dict[str, str]:
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.path.abspath(src)
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
    parser.add_argument("--quick", action="store_true", help="3 runs, the light commands and two --help")
    parser.add_argument("--runs", type=int, default=None, help="runs of each command (default 11; quick 3)")
    parser.add_argument("--before", default=None, help="another src tree to time beside this one")
    args = parser.parse_args()
    runs = args.runs or (3 if args.quick else 11)
    commands = _commands(args.quick)
    trees = {"now": _env(None)}
    if args.before is not None:
        trees["before"] = _env(args.before)
    baseline = [sys.executable, "-c", "import numpy"]

    times: dict[tuple[str, str], list[tuple[float, float]]] = {}
    _seconds(baseline, trees["now"])  # warm the file cache: the first run of anything reads from disk
    for _ in range(runs):
        times.setdefault(("baseline", "now"), []).append(_seconds(baseline, trees["now"]))
        for name, cli_args in commands.items():
            for tree, env in trees.items():
                argv = [sys.executable, "-m", "privrisk", *cli_args]
                times.setdefault((name, tree), []).append(_seconds(argv, env))

    def median(key: tuple[str, str], which: int) -> float:
        return statistics.median(t[which] for t in times[key])

    floor, floor_cpu = median(("baseline", "now"), 0), median(("baseline", "now"), 1)
    print(
        f"python -c 'import numpy': median {floor:.3f} s wall, {floor_cpu:.3f} s CPU, of {runs} runs (the baseline)"
    )
    header = f"{'command':<22} {'wall':>7} {'x numpy':>8} {'CPU':>7} {'x numpy':>8}  target"
    if "before" in trees:
        header += f" {'before':>7} {'x numpy':>8} {'CPU':>7} {'speed-up':>9}"
    print(header)
    worst = 0.0
    for name in commands:
        now, cpu = median((name, "now"), 0), median((name, "now"), 1)
        ok = now <= TARGET_SECONDS and now <= TARGET_RATIO * floor
        worst = max(worst, now / floor)
        line = f"{name:<22} {now:>6.3f}s {now / floor:>7.2f}x {cpu:>6.3f}s {cpu / floor_cpu:>7.2f}x  "
        line += f"{'ok' if ok else 'MISSED':<6}"
        if "before" in trees:
            old, old_cpu = median((name, "before"), 0), median((name, "before"), 1)
            line += f" {old:>6.3f}s {old / floor:>7.2f}x {old_cpu:>6.3f}s {old / now:>8.1f}x"
        print(line)
    print(
        f"largest wall-clock ratio to import numpy: {worst:.2f}x (target <= {TARGET_RATIO:g}x and <= {TARGET_SECONDS} s)"
    )


if __name__ == "__main__":
    main()
