"""The command line's name of each library parameter whose option is not ``--`` + its name with dashes.

The library names parameters, never options (docs/architecture.md): an error carries ``param="max_nodes"``, and
:func:`privrisk.cli.main` names it as the option of the command that ran: from this table first, else ``--`` +
the parameter with dashes when the command has that option. The app names parameters by their labels
(:mod:`privrisk.app._labels`).

Example:
    >>> option("hierarchies", "presence"), option("epsilon", "risk")
    ('--hierarchy', None)
    >>> option_or_default("max_risk", "microdata")
    '--max-risk'
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["OPTIONS", "option", "option_or_default"]

_GUARANTEE = {
    "history": "--opacus-history",
    "method": "--sampling",
    "noise_multiplier": "--sigma",
    "rate": "--sample-rate",
    "truth_probability": "--epsilon",
}
_LEDGER_KEY = {"key": "--ledger-key", "key_file": "--ledger-key"}

#: ``{command: {param: option}}`` for the options not named after their parameter (a positional argument by
#: its metavar: ``FILE``, ``DATA``, ``DIR``).
OPTIONS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "app": {"key_file": "--ledger-key"},
        "attack": {"target_risk": "--risk"},
        "audit": {"record": "--sweep-record"},
        "calibrate": {"fpr": "--target-tpr", "guarantee": "--solve-for"},
        "demo": {"max_n": "--attack-max-n", "trials": "--attack-trials"},
        "empirical": {"deltas_path": "--deltas-parquet", "frame": "--preset chicago"},
        "explain": _GUARANTEE,
        "ledger": {**_LEDGER_KEY, "curator": "--curator", "region": "--region"},
        "microdata": {
            "data": "FILE",
            "hierarchies": "--hierarchy",
            "method": "--risk-method",
            "reduction": "--suppress",
            "suda_max_size": "--suda",
        },
        "outputs": {"append": "--no-append", **_LEDGER_KEY, "max_atoms": "--max-atoms"},
        "presence": {
            "data": "DATA",
            "dataset": "DATA",
            "hierarchies": "--hierarchy",
            "max_nodes": "--search",
            "model": "--estimator",
        },
        "release": _LEDGER_KEY,
        "report": {"folders": "DIR"},
        "risk": _GUARANTEE,
        "study": {"max_n": "--attack-max-n", "trials": "--attack-trials", "variables": "--label"},
        "table": {"ns": "--n"},
        "table-pattern": {"dimensions": "--dimension", "table": "TABLE"},
        "tradeoff": _GUARANTEE,
    }
)


def option(param: str, command: str) -> str | None:
    """The option of ``command`` for ``param`` where it is not ``--`` + the name with dashes; else None.

    Example:
        >>> option("method", "microdata"), option("method", "risk")
        ('--risk-method', '--sampling')
    """
    return OPTIONS.get(command, {}).get(param)


def option_or_default(param: str, command: str) -> str:
    """The option of ``command`` for ``param``: the table's, else ``--`` + the name with dashes.

    Example:
        >>> option_or_default("suda_max_size", "microdata"), option_or_default("sample_rate", "risk")
        ('--suda', '--sample-rate')
    """
    return option(param, command) or "--" + param.replace("_", "-")
