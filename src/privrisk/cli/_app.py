"""The Typer application every command module registers with."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="privrisk",
    help="How much risk does a statistical release carry? Differential-privacy risk in numbers and words.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
    context_settings={"help_option_names": ["-h", "--help"]},
)
