"""Benchmark for the app: the time from opening a page to its first content, per page, beside the 1 s target.

The app (``privrisk.app.server.build_app``) runs under uvicorn on loopback in this process; headless Chromium
(Debian's) opens each page at ``?page=<id>`` in a new browser context (a new session). The time is measured in the
browser from the start of the navigation (``performance.now()`` counts from it) until the page's first content is
visible: the page's heading (its visible h2, with the document's h1 naming the page) and its main input (the first
input, select or text field of the page's sidebar, or of the page if it has none). Also shown: when the server's
first results arrived (``data-privrisk-ready``), which the first content does not wait for.

The first page opened in a fresh server is reported apart ("cold"): that session also pays for what the server
imports and prepares once. The issue's target (issue 22, item 8): first content ≤ 1 s.

Run: .venv/bin/python benchmarks/app_first_content.py [--quick] [--repeat N]
(``--quick``, the test suite's smoke run: one opening per page, without waiting for the server's results.)
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time
from typing import Any

CHROMIUM = "/usr/bin/chromium"
TARGET_MS = 1000.0

# True once the active page shows its heading and its main input (laid out, not hidden); then the time.
FIRST_CONTENT = """
() => {
  const h1 = document.querySelector("h1");
  const pane = document.querySelector(".tab-pane.active");
  if (!h1 || !h1.textContent.trim() || !pane) { return null; }
  const shown = (el) => {
    if (!el) { return false; }
    const r = el.getBoundingClientRect();
    const s = getComputedStyle(el);
    return r.width > 0 && r.height > 0 && s.visibility !== "hidden" && s.display !== "none";
  };
  if (!shown(pane.querySelector("h2"))) { return null; }
  const scope = pane.querySelector(".sidebar") || pane;
  const fields = scope.querySelectorAll(
    "input:not([type=hidden]):not([type=file]), select, textarea, .selectize-input, .irs, .btn-file");
  const main = Array.from(fields).find((el) => !(el.tagName === "SELECT" && el.classList.contains("selectized")));
  if (!shown(main)) { return null; }
  return performance.now();
}
"""


def serve() -> tuple[Any, str]:
    import tempfile
    from pathlib import Path

    import uvicorn

    from privrisk.app.server import bound_url, build_app

    app = build_app(ledger=Path(tempfile.mkdtemp()) / "ledger.json")  # never the user's own ledger
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning"))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.02)
    return server, bound_url(server)


def open_once(browser: Any, url: str, page_id: str, results: bool = True) -> tuple[float, float]:
    """(first content, server's first results) in ms from the start of the navigation, in a new session; NaN for
    the results when not waited for."""
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    page = context.new_page()
    try:
        page.goto(f"{url}?page={page_id}", wait_until="commit")
        first = page.wait_for_function(FIRST_CONTENT, timeout=60_000, polling="raf").json_value()
        if not results:
            return float(first), float("nan")
        page.wait_for_function("() => document.documentElement.dataset.privriskReady === '1'", timeout=60_000)
        ready = page.evaluate("performance.now()")
        return float(first), float(ready)
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="one opening per page, first content only (the suite's smoke run)",
    )
    parser.add_argument(
        "--repeat", type=int, default=5, help="openings per page (default 5; the median is shown)"
    )
    args = parser.parse_args()
    repeat = 1 if args.quick else max(args.repeat, 1)

    from playwright.sync_api import sync_playwright

    started = time.perf_counter()
    server, url = serve()
    from privrisk.app.pages import PAGES

    print(f"app built and listening after {1000 * (time.perf_counter() - started):,.0f} ms")
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            results = not args.quick
            cold_first, cold_ready = open_once(browser, url, PAGES[0].ID, results)
            print(f"{'page':<12} {'first content':>14} {'results':>10}   target {TARGET_MS:,.0f} ms")
            mark = "ok" if cold_first <= TARGET_MS else "SLOW"
            print(f"{PAGES[0].ID + ' (cold)':<12} {cold_first:>11,.0f} ms {cold_ready:>7,.0f} ms   {mark}")
            worst = 0.0
            for page in PAGES:
                times = [open_once(browser, url, page.ID, results) for _ in range(repeat)]
                first = statistics.median(t[0] for t in times)
                ready = statistics.median(t[1] for t in times)
                worst = max(worst, first)
                mark = "ok" if first <= TARGET_MS else "SLOW"
                print(f"{page.ID:<12} {first:>11,.0f} ms {ready:>7,.0f} ms   {mark}")
            browser.close()
    finally:
        server.should_exit = True
    print(f"slowest page (median of {repeat}): {worst:,.0f} ms; target ≤ {TARGET_MS:,.0f} ms")


if __name__ == "__main__":
    main()
