"""Benchmark for the app's server: the time and CPU each page opened costs it, with and without the work it keeps.

Each page opened in a browser is a new Shiny session. Shiny 1.8 reads the source of every output, effect and
extended task of the session and walks the stack for every ``reactive.value`` (OpenTelemetry labels, worked out
whether anything traces or not), and renders the page's document again for every ``GET /``. The app keeps both
(``privrisk.app._source_refs``, ``server._app_class``). The baseline, in the same run, is the same app without
them: shiny as it comes.

Each side runs in a process of its own (shiny's functions are replaced process-wide): the app under uvicorn on
loopback, headless Chromium (Debian's) opening every page ``--repeat`` times in new sessions, each until the
server's first results have arrived (``data-privrisk-ready``). Printed per side: the median time to those results
and the process's CPU time per page opened (the server's, with the browser driver's small share), then the ratios.

Run: .venv/bin/python benchmarks/app_sessions.py [--repeat N] [--quick]
(``--quick``: one page, once, without the warm-up: the suite's smoke run, its figures not comparable.)
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from app_first_content import CHROMIUM, serve  # the same server and browser as the first-content benchmark


def side(name: str, repeat: int, pages: int, warm: bool = True) -> dict[str, float]:
    """Open the pages in this process, the app as shipped or (``baseline``) without what it keeps."""
    if name == "baseline":
        import shiny

        import privrisk.app._source_refs as source_refs
        import privrisk.app.server as server_module

        source_refs.install = lambda: False
        server_module._app_class = lambda: shiny.App
    from playwright.sync_api import sync_playwright

    from privrisk.app.pages import PAGES

    server, url = serve()
    ready: list[float] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        if warm:  # the imports and first builds, paid once by either side: not measured
            context = browser.new_context()
            first = context.new_page()
            first.goto(f"{url}?page={PAGES[0].ID}")
            first.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'",
                                    timeout=120_000)  # fmt: skip
            context.close()
        cpu0 = time.process_time()
        for _ in range(repeat):
            for page_def in PAGES[:pages]:
                context = browser.new_context(viewport={"width": 1200, "height": 900})
                page = context.new_page()
                page.goto(f"{url}?page={page_def.ID}", wait_until="commit")
                page.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'",
                                       timeout=120_000)  # fmt: skip
                ready.append(float(page.evaluate("performance.now()")))
                context.close()
        cpu = time.process_time() - cpu0
        browser.close()
    server.should_exit = True
    return {"ready_ms": statistics.median(ready), "cpu_s": cpu / len(ready), "opened": len(ready)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="openings of each page (default 3)")
    parser.add_argument("--quick", action="store_true", help="one page, once, no warm-up (the suite's smoke run)")
    parser.add_argument("--side", choices=("baseline", "privrisk"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    repeat, pages = (1, 1) if args.quick else (max(args.repeat, 1), 99)
    if args.side:
        print(json.dumps(side(args.side, repeat, pages, warm=not args.quick)))
        return
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores")
    got = {}
    for name in ("baseline", "privrisk"):
        command = [sys.executable, __file__, "--side", name, "--repeat", str(repeat)] + (["--quick"] * args.quick)
        out = subprocess.run(command, capture_output=True, text=True, check=True).stdout
        got[name] = json.loads(out.strip().splitlines()[-1])
        r = got[name]
        print(f"{name:<9} {r['opened']:.0f} pages opened: first results after {r['ready_ms']:,.0f} ms (median), "
              f"{r['cpu_s']:.2f} s CPU per page opened")  # fmt: skip
    b, o = got["baseline"], got["privrisk"]
    print(f"baseline / privrisk: {b['ready_ms'] / o['ready_ms']:.2f}× time to results, "
          f"{b['cpu_s'] / o['cpu_s']:.2f}× CPU per page opened")  # fmt: skip
    print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
