"""``privrisk app``: start the local web app (Shiny) and open the browser on it.

The module is not named ``app`` because importing ``privrisk.cli.app`` would replace the package's Typer ``app``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from privrisk.cli._app import app

MAX_UPLOAD_HELP = (
    "Largest file a user may upload, the most one browser session uploads in all, and the largest size an "
    "upload may expand to once decompressed: 500MB, 2GB, 100k or bytes."
)
LEDGER_HELP = (
    "The ledger every release and every output check of every browser session is charged to (created at the "
    "first release). Default: ledger.json in your data folder for privrisk (on Linux ~/.local/share/privrisk)."
)
KEY_HELP = (
    "Secret key file of a keyed ledger (HMAC-SHA256; default: the environment variable PRIVRISK_LEDGER_KEY)."
)


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
    ledger: Path | None = typer.Option(None, "--ledger", help=LEDGER_HELP),
    key_file: Path | None = typer.Option(None, "--ledger-key", help=KEY_HELP),
) -> None:
    """Start the app in the web browser: every capability on one page each, for people who do not use a terminal.

    Example: privrisk app --port 8000 --ledger /srv/centre/ledger.json
    """
    from privrisk.app import serve

    # Every rule about these options is the app's settings' (privrisk.app.settings.AppSettings); their errors
    # name the field, which privrisk.cli.main turns into the option.
    serve(
        host=host,
        port=port,
        open_browser=not no_browser,
        max_upload=max_upload,
        ledger=ledger,
        key_file=key_file,
        on_started=lambda url, where: print(
            f"privrisk app on {url} (Ctrl-C stops it); ledger: {where}", file=sys.stderr, flush=True
        ),
    )
