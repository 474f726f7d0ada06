"""The options `privrisk study` and `privrisk demo` share, defined once (typer copies them for each command), and
their mapping onto the settings (which check them)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import typer

from privrisk._validation import QUERIES
from privrisk.cli._common import (
    DEFAULT_ATTACK_MAX_N,
    DEFAULT_ATTACK_TRIALS,
    DEFAULT_EPSILONS,
    DEFAULT_QUERIES,
)

if TYPE_CHECKING:
    from privrisk.study.run import StudySettings

_QUERIES_HELP = f"Comma-separated queries among {', '.join(QUERIES)}."
_PROPORTIONS_HELP = (
    "Sample proportions in (0, 1], e.g. 0.01,0.02,0.05,0.1,0.5,1, or 'auto' (20 on a log scale)."
)

_QUERIES_OPTION = typer.Option(",".join(DEFAULT_QUERIES), "--queries", "-q", help=_QUERIES_HELP)
_EPSILONS_OPTION = typer.Option(
    ",".join(f"{e:g}" for e in DEFAULT_EPSILONS), "--epsilons", "-e", help="Comma-separated ε (ln3 works)."
)
_PROPORTIONS_OPTION = typer.Option("auto", "--proportions", "-p", help=_PROPORTIONS_HELP)
_REPETITIONS_OPTION = typer.Option(
    100, "--repetitions", "-r", help="Samples per proportion (100 in Allmann et al., §4.2)."
)
_SEED_OPTION = typer.Option(1, "--seed", help="Random seed; the same seed gives the same numbers.")
_LS_METHOD_OPTION = typer.Option(
    "exact", "--ls-method", help="exact, or paper (the four-case rule of Allmann et al., §3.2)."
)
_FIGURE_QUERY_OPTION = typer.Option(None, "--figure-query", help="The query of Figure 2 (default: max).")
_FIGURE_EPSILON_OPTION = typer.Option(
    None, "--figure-epsilon", help="The ε of Figure 1 and the findings (default: the one nearest 1)."
)
_OUT_OPTION = typer.Option(..., "--out", "-o", help="Folder for results, figures and report.html.")
_ATTACK_OPTION = typer.Option(
    False, "--attack", help="Also attack every sample: exact risk, expected and simulated success."
)
_ATTACK_TRIALS_OPTION = typer.Option(
    None, "--attack-trials", help=f"Simulated attacks per sample (default {DEFAULT_ATTACK_TRIALS:,})."
)
_ATTACK_MAX_N_OPTION = typer.Option(
    None,
    "--attack-max-n",
    help=f"Skip (NaN) samples with more records than this in the attack (default {DEFAULT_ATTACK_MAX_N:,}).",
)
_JSON_OPTION = typer.Option(False, "--json", help="Print a JSON summary instead of text.")


def _settings(
    queries: str,
    proportions: str,
    attack: bool,
    attack_trials: int | None,
    attack_max_n: int | None,
    **more: Any,
) -> StudySettings:
    """The options as settings, which check them (the attack's options alone among the rest); an option left out
    is a field left out."""
    from privrisk.study.run import StudySettings

    given: dict[str, Any] = {"attack_trials": attack_trials, "attack_max_n": attack_max_n}
    return StudySettings(
        queries=[p.strip() for p in queries.split(",") if p.strip()],
        proportions=proportions,
        attack=attack,
        **{name: value for name, value in given.items() if value is not None},
        **more,
    )
