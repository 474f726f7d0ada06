"""One table of the library's parameters: how the app labels each, and how the command line names it.

The library names parameters, never options or labels (docs/architecture.md): an error says
``"max_risk: must be a probability, got 2"`` and carries ``param="max_risk"``. The two front ends name that
parameter in their own words from this one table: the command line as its option (``--max-risk``, or the option
listed here where a command names it otherwise), the app as the label of its input ("Largest acceptable risk"),
never as an option. A parameter the table does not label is shown humanised (``"by_hand"`` → "By hand").

One warning format as well: :func:`warning_text` is the one line a front end prints for a library warning.

Example:
    >>> label("max_risk"), label("universe_min"), label("no_such_thing")
    ('Largest acceptable risk', 'Lowest universe value', 'No such thing')
    >>> option("record", "audit"), option("record", "risk")
    ('--sweep-record', None)
    >>> renamed("max_risk: must be a probability, got 2", "max_risk", label("max_risk"))
    'Largest acceptable risk: must be a probability, got 2'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

__all__ = [
    "PARAMS",
    "Param",
    "command_options",
    "humanise",
    "label",
    "leading_param",
    "option",
    "renamed",
    "warning_text",
]


@dataclass(frozen=True)
class Param:
    """One library parameter as the front ends name it.

    Args:
        label: The app's words for it: the label of the input that sets it, short enough to start an error line.
        options: ``{command: option}`` for the commands whose option is not ``--`` + the name with dashes.
        page_labels: ``{page: label}`` where a page's input says something else than ``label``.
    """

    label: str
    options: Mapping[str, str] = field(default_factory=dict)
    page_labels: Mapping[str, str] = field(default_factory=dict)


def _p(label: str, options: Mapping[str, str] | None = None, **page_labels: str) -> Param:
    return Param(label, MappingProxyType(dict(options or {})), MappingProxyType(page_labels))


# The accounting commands read a guarantee's parameters under the option names of the guarantee.
_GUARANTEE_COMMANDS = ("risk", "tradeoff", "explain")
_LEDGER_COMMANDS = ("release", "ledger", "outputs")

#: Every parameter a library error or warning may name (``grep -rhno 'param="[a-z_]*"' src/privrisk``, and the
#: ``name=`` of the shared checks), with its label and, where it differs, its option per command.
PARAMS: Mapping[str, Param] = MappingProxyType(
    {
        "aggregate": _p("Periods merged"),
        "alpha": _p("Significance level α"),
        "append": _p("Append to the ledger", {"outputs": "--no-append"}),
        "alphas": _p("Rényi orders α"),
        "at_delta": _p("δ of the conversion"),
        "at_epsilon": _p("ε of the conversion"),
        "atoms": _p("Cells"),
        "attack_max_n": _p("Largest sample attacked"),
        "attack_trials": _p("Simulated attacks per sample"),
        "batch_size": _p("Batch size"),
        "allow_inconsistent": _p("Allow a subset that is not part of the population"),
        "allow_large_epsilon": _p("Allow a total ε above 20"),
        "attack": _p("Run the attack"),
        "budget": _p("Budget"),
        "budget_delta": _p("Budget δ"),
        "budget_epsilon": _p("Budget ε"),
        "budget_rho": _p("Budget ρ"),
        "buckets": _p("Buckets of that knowledge"),
        "categories": _p("Number of categories"),
        "column": _p("Column"),
        "compare": _p("Other ε to show"),
        "compose": _p("Compose K releases"),
        "d": _p("Number of categories"),
        "d_in": _p("Input distance"),
        "data": _p("Data file", {"microdata": "FILE", "presence": "DATA"}),
        "dataset": _p("Research subset", {"presence": "DATA"}),
        "dataset_size": _p("Number of records"),
        "delta": _p("δ"),
        "delta_min": _p("δ_min"),
        "df": _p("Global sensitivity Δf"),
        "deltas_path": _p("Deltas file", {"empirical": "--deltas-parquet"}),
        "demo": _p("Example"),
        "density": _p("Density"),
        "dis_fraction": _p("Share of records checked"),
        "draws": _p("Noise draws per database"),
        "export": _p("Export"),
        "earlier_data": _p("Earlier versions of the data"),
        "dv": _p("Local sensitivity Δv"),
        "engine": _p("Engine"),
        "epochs": _p("Epochs"),
        "epsilon": _p("Privacy loss ε"),
        "epsilons": _p("ε values"),
        "event": _p("Event"),
        "example": _p("Example"),
        "fail_on_leak": _p("Fail on a leak"),
        "figure_epsilon": _p("ε of the figure"),
        "figure_query": _p("Query of the figure"),
        "file": _p("Data file"),
        "folders": _p("Report folders", {"report": "DIR"}),
        "fpr": _p("False-positive rate", {"calibrate": "--target-tpr"}),
        "frame": _p("Example data", {"empirical": "--preset chicago"}),
        "g": _p("Group size"),
        "grid": _p("False-positive rates α"),
        "group": _p("Groups of K people"),
        "guarantee": _p("Guarantee", {"calibrate": "--solve-for"}),
        "guarantees": _p("Guarantees"),
        "hierarchies": _p("Hierarchies", {"presence": "--hierarchy", "microdata": "--hierarchy"}),
        "hierarchy": _p("Hierarchy"),
        "history": _p("Opacus history", dict.fromkeys(_GUARANTEE_COMMANDS, "--opacus-history")),
        "hours": _p("Hours"),
        "household": _p("Household-id column"),
        "importance": _p("Importance order"),
        "individual": _p("Column identifying individuals"),
        "internal": _p("Internal assessment"),
        "joint": _p("Joint release"),
        "k": _p("k"),
        "variables": _p("Variables", {"study": "--label"}),
        "tables": _p("Tables"),
        "rounded_part": _p("Rounded part"),
        "registry": _p("Registry entry"),
        "published": _p("Published value"),
        "others": _p("People known"),
        "membership": _p("Cell membership"),
        "least_count": _p("Least count"),
        "facts": _p("Receipt facts"),
        "count": _p("Count"),
        "cells": _p("Cells per person"),
        "bound": _p("Largest noise"),
        "base": _p("Rounding base"),
        "cell_key": _p("Perturbation table"),
        "pram": _p("PRAM matrices"),
        "rounding": _p("Rounding"),
        "allow_useless": _p("Release an answer that tells nothing reliable"),
        "threat_model": _p("Threat model"),
        "synthetic": _p("Synthetic file"),
        "successes": _p("Successes"),
        "secret": _p("Secrets to infer"),
        "query_columns": _p("Columns per query"),
        "membership_targets": _p("Members attacked"),
        "member_scores": _p("Members' scores"),
        "generator": _p("Generator to retrain"),
        "domains": _p("Public values of the columns"),
        "control": _p("Control records"),
        "confidence": _p("Confidence"),
        "aux": _p("Columns the attacker holds"),
        "suda_scores": _p("SUDA scores"),
        "timeout": _p("Lock timeout"),
        "figure_formats": _p("Figure formats"),
        "key": _p("Ledger key", dict.fromkeys(_LEDGER_COMMANDS, "--ledger-key")),
        "key_file": _p("Ledger key", dict.fromkeys((*_LEDGER_COMMANDS, "app"), "--ledger-key")),
        "kmap": _p("k-map"),
        "lags": _p("Lags of the Ljung–Box test"),
        "lang": _p("Language"),
        "ledger": _p("Ledger"),
        "ledger_label": _p("Ledger name"),
        "ls_method": _p("Local sensitivity rule"),
        "level": _p("Level"),
        "levels": _p("Generalisation levels"),
        "loss": _p("Loss"),
        "max_atoms": _p("Largest number of cells"),
        "max_n": _p("Largest sample attacked", {"study": "--attack-max-n", "demo": "--attack-max-n"}),
        "max_nodes": _p("Search", {"presence": "--search"}),
        "max_risk": _p("Largest acceptable risk"),
        "max_rows": _p("Rows shown"),
        "max_upload": _p("Upload limit"),
        "measurement": _p("Measurement"),
        "mechanism": _p("Mechanism"),
        "memory_limit": _p("Memory limit"),
        "method": _p(
            "Method",
            {**dict.fromkeys(_GUARANTEE_COMMANDS, "--sampling"), "microdata": "--risk-method"},
            microdata="Risk method",
            risk="Sampling",
            explain="Sampling",
        ),
        "missing_sensitive": _p("Missing sensitive value"),
        "missing": _p("Missing codes"),
        "model": _p("Estimator", {"presence": "--estimator"}),
        "mu": _p("μ (Gaussian DP)"),
        "n": _p("Number of people n", risk="Possible worlds n"),
        "neighbours": _p("Neighbours"),
        "noise": _p("Noise"),
        "ns": _p("Possible worlds n", {"table": "--n"}),
        "noise_multiplier": _p("Noise multiplier σ", dict.fromkeys(_GUARANTEE_COMMANDS, "--sigma")),
        "out": _p("Output folder"),
        "p": _p("Probability"),
        "period": _p("Period column"),
        "period_unit": _p("Period unit"),
        "policy": _p("Policy"),
        "population": _p("Population table"),
        "population_count": _p("Population count column"),
        "population_size": _p("Population size N"),
        "preset": _p("Example"),
        "preview": _p("Preview only"),
        "preview_id": _p("Preview"),
        "prior": _p("Prior p"),
        "proportions": _p("Proportions"),
        "public_n": _p("Published number of people"),
        "qi": _p("Quasi-identifiers"),
        "queries": _p("Queries"),
        "query": _p("Query"),
        "rate": _p("Sample rate", dict.fromkeys(_GUARANTEE_COMMANDS, "--sample-rate")),
        "request": _p("Release request"),
        "ratio": _p("Δv/Δf"),
        "reduction": _p("Reduce the risk", {"microdata": "--suppress"}),
        "record": _p("Record swept", {"audit": "--sweep-record"}),
        "records": _p("Records"),
        "releases": _p("Releases"),
        "repetitions": _p("Repetitions"),
        "response": _p("Answer r"),
        "rho": _p("ρ (zCDP)"),
        "risk": _p("Largest acceptable risk"),
        "sample_rate": _p("Sample rate", risk="Poisson sample rate"),
        "sampling": _p("Sampling"),
        "sampling_fraction": _p("Sampling fraction"),
        "scale": _p("Noise scale", risk="Laplace scale b"),
        "search": _p("Search"),
        "seed": _p("Seed"),
        "sensitive": _p("Sensitive variables"),
        "sensitivity": _p("Sensitivity Δ"),
        "series": _p("Series"),
        "settings": _p("Settings"),
        "sigma": _p("Gaussian σ"),
        "solve_for": _p("Solve for"),
        "spark_master": _p("Spark master URL"),
        "spark_rollup_classes": _p("Spark roll-up classes"),
        "source": _p("Data source"),
        "spec": _p("Specification"),
        "statistic": _p("Statistic"),
        "step": _p("Periods between window starts"),
        "suda_max_size": _p("SUDA's largest key size", {"microdata": "--suda"}),
        "suppression": _p("Suppression share"),
        "sweep_record": _p("Record swept"),
        "sweep_values": _p("Values swept"),
        "t": _p("Number of periods"),
        "table": _p("Table"),
        "target": _p("Target"),
        "target_delta": _p("Largest acceptable δ"),
        "target_risk": _p("Largest acceptable risk", {"attack": "--risk"}),
        "targets": _p("Targets"),
        "threads": _p("Threads"),
        "top": _p("Riskiest listed"),
        "trials": _p("Simulated attacks", {"study": "--attack-trials", "demo": "--attack-trials"}),
        "truth_probability": _p("Probability of the truth", dict.fromkeys(_GUARANTEE_COMMANDS, "--epsilon")),
        "u": _p("u"),
        "universe": _p("Bounds"),
        "universe_column": _p("Universe column"),
        "universe_file": _p("Universe file"),
        "universe_min": _p("Lowest universe value"),
        "value": _p("Value"),
        "values": _p("Values"),
        "via": _p("Conversion"),
        "weight": _p("Rate denominator column"),
        "weights": _p("Sampling-weight column"),
        "window": _p("Window"),
        "world_values": _p("World values"),
        "worlds": _p("Worlds"),
    }
)


def humanise(param: str) -> str:
    """A parameter in words, for one the table does not label: ``"max_nodes"`` → ``"Max nodes"``.

    Example:
        >>> humanise("max_risk"), humanise("k")
        ('Max risk', 'K')
    """
    words = param.replace("_", " ").strip()
    return words[:1].upper() + words[1:]


def label(param: str, page: str | None = None) -> str:
    """The app's label of ``param`` (on ``page`` when the page labels it otherwise), or its name humanised.

    Example:
        >>> label("epsilon"), label("method", "microdata"), label("method")
        ('Privacy loss ε', 'Risk method', 'Method')
    """
    entry = PARAMS.get(param)
    if entry is None:
        return humanise(param)
    return entry.page_labels.get(page or "", entry.label)


def option(param: str, command: str) -> str | None:
    """The option of ``command`` for ``param`` where it is not ``--`` + the name with dashes; else None.

    Example:
        >>> option("hierarchies", "presence"), option("epsilon", "risk")
        ('--hierarchy', None)
    """
    entry = PARAMS.get(param)
    return None if entry is None else entry.options.get(command)


def command_options() -> dict[str, dict[str, str]]:
    """The table by command: ``{command: {param: option}}`` for the options not named after their parameter.

    Example:
        >>> command_options()["audit"]
        {'record': '--sweep-record'}
    """
    table: dict[str, dict[str, str]] = {}
    for param, entry in PARAMS.items():
        for command, name in entry.options.items():
            table.setdefault(command, {})[param] = name
    return table


def leading_param(message: str) -> str | None:
    """The parameter a message starts with (``"epsilon: must be …"`` → ``"epsilon"``), if it looks like one.

    Example:
        >>> leading_param("epsilon: must be > 0"), leading_param("data.csv: no such file")
        ('epsilon', None)
    """
    head, sep, _ = str(message).partition(":")
    if sep and head.isidentifier():
        return head
    return None


def renamed(message: str, param: str | None, name: str | None) -> str:
    """``message`` with its leading ``param:`` replaced by ``name:`` (unchanged when it does not start so).

    Example:
        >>> renamed("delta: must be < 1", "delta", "--delta"), renamed("data.csv: empty", "delta", "--delta")
        ('--delta: must be < 1', 'data.csv: empty')
    """
    if not param or not name or not message.startswith(param + ":"):
        return message
    return name + message[len(param) :]


def warning_text(message: Warning | str, name: Callable[[str], str | None] | None = None) -> str:
    """The one line a front end shows for a library warning: whitespace folded, its parameter named.

    The command line prints it after ``privrisk: warning:`` with ``name`` giving the option, the app shows it
    with ``name`` giving the input's label; a warning names its parameter as an error does, by a leading
    ``name:``.

    Example:
        >>> warning_text("window:  fewer than\\n 10 periods", lambda p: label(p))
        'Window: fewer than 10 periods'
    """
    text = " ".join(str(message).split())
    param = leading_param(text)
    if param is None or name is None:
        return text
    return renamed(text, param, name(param))
