"""``privrisk app``: start the local web app (Shiny) and open the browser on it.

The module is not named ``app`` because importing ``privrisk.cli.app`` would replace the package's Typer ``app``.
"""

from __future__ import annotations

import sys

import typer

from privrisk.cli._app import app

MAX_UPLOAD_HELP = "Largest file a user may upload: 500MB, 2GB, 100k or bytes."


@app.command("app")
def app_command(
    port: int = typer.Option(8000, "--port", help="The port to listen on (0: any free port)."),
    host: str = typer.Option(
        "127.0.0.1",
        "--host",
        help=(
            "The address to listen on; other than loopback, the data is reachable. Requests must name this host "
            "or a loopback name (127.0.0.1, localhost, [::1]) with the port; others are refused."
        ),
    ),
    no_browser: bool = typer.Option(False, "--no-browser", help="Do not open the web browser."),
    max_upload: str = typer.Option("500MB", "--max-upload", help=MAX_UPLOAD_HELP),
) -> None:
    """Start the app in the web browser: every capability on one page each, for people who do not use a terminal.

    Example: privrisk app --port 8000
    """
    from privrisk._validation import parse_size
    from privrisk.app import serve
    from privrisk.errors import PrivriskError

    limit = parse_size(max_upload, name="max_upload")
    if not 0 <= port <= 65535:
        raise PrivriskError(f"--port: must be between 0 and 65535, got {port}")
    serve(
        host=host,
        port=port,
        open_browser=not no_browser,
        max_upload=limit,
        on_started=lambda url: print(f"privrisk app on {url} (Ctrl-C stops it)", file=sys.stderr, flush=True),
    )
