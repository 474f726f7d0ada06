"""The app's label of each library parameter: the words of the input that sets it.

The library names parameters, never options or labels (docs/architecture.md): an error says
``"max_risk: must be a probability, got 2"`` and carries ``param="max_risk"``. The app names that parameter as
the label of its input ("Largest acceptable risk"), from this table, never as the command line's option
(:mod:`privrisk.cli._names` holds those). A parameter the table does not label is shown humanised
(``"by_hand"`` → "By hand").

Example:
    >>> label("max_risk"), label("universe_min"), label("no_such_thing")
    ('Largest acceptable risk', 'Lowest universe value', 'No such thing')
    >>> label("method", "microdata"), label("method")
    ('Risk method', 'Method')
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

__all__ = ["LABELS", "PAGE_LABELS", "humanise", "label"]

#: Every parameter a library error or warning may name (``grep -rhno 'param="[a-z_]*"' src/privrisk``, and the
#: ``name=`` of the shared checks), with the words of its input; a test fails on a ``param=`` without one.
LABELS: Mapping[str, str] = MappingProxyType(
    {
        "aggregate": "Periods merged",
        "alpha": "Significance level α",
        "append": "Append to the ledger",
        "alphas": "Rényi orders α",
        "at_delta": "δ of the conversion",
        "at_epsilon": "ε of the conversion",
        "atoms": "Cells",
        "dimensions": "Dimensions and their hierarchies",
        "intervals": "Intervals",
        "attack_max_n": "Largest sample attacked",
        "attack_trials": "Simulated attacks per sample",
        "batch_size": "Batch size",
        "allow_inconsistent": "Allow a subset that is not part of the population",
        "allow_large_epsilon": "Allow a total ε above 20",
        "attack": "Run the attack",
        "budget": "Budget",
        "budget_delta": "Budget δ",
        "budget_epsilon": "Budget ε",
        "budget_rho": "Budget ρ",
        "buckets": "Buckets of that knowledge",
        "categories": "Number of categories",
        "column": "Column",
        "compare": "Other ε to show",
        "compose": "Compose K releases",
        "d": "Number of categories",
        "d_in": "Input distance",
        "data": "Data file",
        "dataset": "Research subset",
        "dataset_size": "Number of records",
        "delta": "δ",
        "delta_min": "δ_min",
        "df": "Global sensitivity Δf",
        "deltas_path": "Deltas file",
        "demo": "Example",
        "density": "Density",
        "dis_fraction": "Share of records checked",
        "draws": "Noise draws per database",
        "export": "Export",
        "earlier_data": "Earlier versions of the data",
        "dv": "Local sensitivity Δv",
        "engine": "Engine",
        "epochs": "Epochs",
        "epsilon": "Privacy loss ε",
        "epsilons": "ε values",
        "event": "Event",
        "example": "Example",
        "fail_on_leak": "Fail on a leak",
        "figure_epsilon": "ε of the figure",
        "figure_query": "Query of the figure",
        "file": "Data file",
        "folders": "Report folders",
        "fpr": "False-positive rate",
        "frame": "Example data",
        "g": "Group size",
        "grid": "False-positive rates α",
        "group": "Groups of K people",
        "guarantee": "Guarantee",
        "guarantees": "Guarantees",
        "hierarchies": "Hierarchies",
        "hierarchy": "Hierarchy",
        "history": "Opacus history",
        "hours": "Hours",
        "household": "Household-id column",
        "importance": "Importance order",
        "individual": "Column identifying individuals",
        "internal": "Internal assessment",
        "joint": "Joint release",
        "k": "k",
        "variables": "Variables",
        "tables": "Tables",
        "rounded_part": "Rounded part",
        "registry": "Registry entry",
        "published": "Published value",
        "others": "People known",
        "membership": "Cell membership",
        "least_count": "Least count",
        "facts": "Receipt facts",
        "count": "Count",
        "cells": "Cells per person",
        "bound": "Largest noise",
        "base": "Rounding base",
        "cell_key": "Perturbation table",
        "pram": "PRAM matrices",
        "rounding": "Rounding",
        "allow_useless": "Release an answer that tells nothing reliable",
        "threat_model": "Threat model",
        "synthetic": "Synthetic file",
        "successes": "Successes",
        "secret": "Secrets to infer",
        "query_columns": "Columns per query",
        "membership_targets": "Members attacked",
        "member_scores": "Members' scores",
        "generator": "Generator to retrain",
        "domains": "Public values of the columns",
        "control": "Control records",
        "confidence": "Confidence",
        "aux": "Columns the attacker holds",
        "suda_scores": "SUDA scores",
        "timeout": "Lock timeout",
        "figure_formats": "Figure formats",
        "key": "Ledger key",
        "key_file": "Ledger key",
        "kmap": "k-map",
        "lags": "Lags of the Ljung–Box test",
        "lang": "Language",
        "ledger": "Ledger",
        "ledger_label": "Ledger name",
        "ls_method": "Local sensitivity rule",
        "level": "Level",
        "levels": "Generalisation levels",
        "loss": "Loss",
        "max_atoms": "Largest number of cells",
        "max_n": "Largest sample attacked",
        "max_nodes": "Search",
        "max_risk": "Largest acceptable risk",
        "max_rows": "Rows shown",
        "max_upload": "Upload limit",
        "measurement": "Measurement",
        "mechanism": "Mechanism",
        "memory_limit": "Memory limit",
        "method": "Method",
        "missing_sensitive": "Missing sensitive value",
        "missing": "Missing codes",
        "model": "Estimator",
        "mu": "μ (Gaussian DP)",
        "n": "Number of people n",
        "neighbours": "Neighbours",
        "noise": "Noise",
        "ns": "Possible worlds n",
        "noise_multiplier": "Noise multiplier σ",
        "out": "Output folder",
        "p": "Probability",
        "period": "Period column",
        "period_unit": "Period unit",
        "policy": "Policy",
        "population": "Population table",
        "population_count": "Population count column",
        "population_size": "Population size N",
        "preset": "Example",
        "preview": "Preview only",
        "preview_id": "Preview",
        "prior": "Prior p",
        "proportions": "Proportions",
        "public_n": "Published number of people",
        "qi": "Quasi-identifiers",
        "queries": "Queries",
        "query": "Query",
        "rate": "Sample rate",
        "request": "Release request",
        "ratio": "Δv/Δf",
        "reduction": "Reduce the risk",
        "record": "Record swept",
        "records": "Records",
        "releases": "Releases",
        "repetitions": "Repetitions",
        "response": "Answer r",
        "rho": "ρ (zCDP)",
        "risk": "Largest acceptable risk",
        "sample_rate": "Sample rate",
        "sampling": "Sampling",
        "sampling_fraction": "Sampling fraction",
        "scale": "Noise scale",
        "search": "Search",
        "seed": "Seed",
        "sensitive": "Sensitive variables",
        "sensitivity": "Sensitivity Δ",
        "series": "Series",
        "settings": "Settings",
        "sigma": "Gaussian σ",
        "solve_for": "Solve for",
        "spark_master": "Spark master URL",
        "spark_rollup_classes": "Spark roll-up classes",
        "source": "Data source",
        "spec": "Specification",
        "statistic": "Statistic",
        "step": "Periods between window starts",
        "suda_max_size": "SUDA's largest key size",
        "suppression": "Suppression share",
        "sweep_record": "Record swept",
        "sweep_values": "Values swept",
        "t": "Number of periods",
        "table": "Table",
        "target": "Target",
        "target_delta": "Largest acceptable δ",
        "target_risk": "Largest acceptable risk",
        "targets": "Targets",
        "threads": "Threads",
        "top": "Riskiest listed",
        "trials": "Simulated attacks",
        "truth_probability": "Probability of the truth",
        "u": "u",
        "universe": "Bounds",
        "universe_column": "Universe column",
        "universe_file": "Universe file",
        "universe_min": "Lowest universe value",
        "value": "Value",
        "values": "Values",
        "via": "Conversion",
        "weight": "Rate denominator column",
        "weights": "Sampling-weight column",
        "window": "Window",
        "world_values": "World values",
        "worlds": "Worlds",
    }
)

#: ``{param: {page: label}}`` where a page's input says something else than :data:`LABELS`.
PAGE_LABELS: Mapping[str, Mapping[str, str]] = MappingProxyType(
    {
        "method": {"microdata": "Risk method", "risk": "Sampling", "explain": "Sampling"},
        "n": {"risk": "Possible worlds n"},
        "sample_rate": {"risk": "Poisson sample rate"},
        "scale": {"risk": "Laplace scale b"},
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
        >>> label("epsilon"), label("method", "microdata"), label("n", "risk")
        ('Privacy loss ε', 'Risk method', 'Possible worlds n')
    """
    on_page = PAGE_LABELS.get(param, {}).get(page or "")
    return on_page or LABELS.get(param) or humanise(param)
