"""The inputs of a study's report: its settings, checked once, and its variables read from a data file.

:class:`StudySettings` holds what the report of a sampling study (Allmann et al. 2024, §4) was asked for: the
study's arguments, the query and ε its figures show, and whether Lee and Clifton's (2011) attacker was run on the
samples too. It is checked when made, so that a bad setting fails before the long computation, and every error
names the field (``figure_epsilon: …``). :func:`read_variables` reads numeric columns of a survey file as the
study takes them, with a description of each for the report's set-up table.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from privrisk._validation import check_epsilon, check_epsilons, check_query, check_whole
from privrisk.errors import PrivriskError
from privrisk.study._samples import (
    DEFAULT_ATTACK_MAX_N,
    DEFAULT_ATTACK_TRIALS,
    DEFAULT_EPSILONS,
    DEFAULT_QUERIES,
    check_max_n,
    check_proportions,
    check_queries,
    check_trials,
)
from privrisk.study.sampling import LsMethod

__all__ = ["StudySettings", "figure_choices", "pick_epsilon", "read_variables"]


def pick_epsilon(epsilons: Sequence[float], wanted: float = 1.0) -> float:
    """The ε nearest to the one wanted (on a log scale), for the figures and the findings.

    Example:
        >>> pick_epsilon([0.1, 0.5, 2.0]), pick_epsilon([0.1, 1.0, 10.0])
        (0.5, 1.0)
    """
    eps = np.asarray(sorted(set(float(e) for e in epsilons)))
    positive = eps[eps > 0]
    if positive.size == 0:
        return float(eps[0])
    return float(positive[np.argmin(np.abs(np.log(positive) - np.log(wanted)))])


def figure_choices(
    queries: Sequence[str],
    epsilons: Sequence[float],
    figure_query: str | None = None,
    figure_epsilon: float | str | None = None,
) -> tuple[str, float]:
    """The query of Figure 2 and the ε of Figure 1 and the findings: by default max and the ε nearest 1.

    Example:
        >>> figure_choices(["mean", "max"], [0.5, 2.0]), figure_choices(["mean"], [0.5, 2.0], "mean", "ln(7.389)")
        (('max', 0.5), ('mean', 2.0))
    """
    if figure_query is None:
        query = "max" if "max" in queries else queries[0]
    else:
        try:
            query = check_query(figure_query)
        except PrivriskError as exc:
            message = str(exc).removeprefix("query: ")
            raise PrivriskError(f"figure_query: {message}", param="figure_query") from None
        if query not in queries:
            raise PrivriskError(
                f"figure_query: {query!r} is not among the queries {','.join(queries)}", param="figure_query"
            )
    if figure_epsilon is None:
        return query, pick_epsilon(epsilons, 1.0)
    eps = check_epsilon(figure_epsilon, name="figure_epsilon")
    hits = [float(e) for e in epsilons if np.isclose(e, eps)]
    if not hits:
        among = ",".join(f"{e:g}" for e in epsilons)
        raise PrivriskError(
            f"figure_epsilon: {eps:g} is not among the epsilons {among}", param="figure_epsilon"
        )
    return query, hits[0]


@dataclass(frozen=True)
class StudySettings:
    """What a study's report was asked for: the study's arguments, what the figures show, and the attack.

    Checked and normalised when made, each error naming its field, so that a bad setting fails before the long
    computation. :meth:`sample_arguments` are the keyword arguments of :func:`~privrisk.sampling_study` and
    :func:`~privrisk.study_attack` (the same samples for both); :meth:`parameters` is what the page, the
    manifest and the JSON document record.

    Args:
        queries, epsilons, proportions, repetitions, seed, universe, universe_min, ls_method: as for
            :func:`~privrisk.sampling_study` (``universe`` here is ``"data"`` or bounds ``(lo, hi)``; proportions
            keep the order given).
        figure_query: the query of Figure 2 and of the findings (default: max, or the first query).
        figure_epsilon: the ε of Figure 1, the key table and the findings; one of ``epsilons`` (default: the
            one nearest 1 on a log scale).
        attack: whether Lee and Clifton's attacker was run on the samples (:func:`~privrisk.study_attack`).
        attack_trials, attack_max_n: its ``trials`` and ``max_n``.

    Example:
        >>> s = StudySettings(queries=["mean", "max"], epsilons=[1.0986122886681098, 5], proportions=[0.5, 1])
        >>> s.figure_query, s.figure_epsilon, s.parameters()["epsilons"]
        ('max', 1.0986122886681098, [1.0986122886681098, 5.0])
        >>> StudySettings(repetitions=0)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: repetitions: must be a whole number ≥ 1, got 0
    """

    queries: Sequence[str] = DEFAULT_QUERIES
    epsilons: Sequence[float] = DEFAULT_EPSILONS
    proportions: Sequence[float] | Literal["auto"] = "auto"
    repetitions: int = 100
    seed: int = 1
    universe: Literal["data"] | tuple[float, float] = "data"
    universe_min: float | None = None
    ls_method: LsMethod = "exact"
    figure_query: str | None = None
    figure_epsilon: float | str | None = None
    attack: bool = False
    attack_trials: int = DEFAULT_ATTACK_TRIALS
    attack_max_n: int | None = DEFAULT_ATTACK_MAX_N

    def __post_init__(self) -> None:
        queries = tuple(check_queries(self.queries))
        epsilons = tuple(float(e) for e in check_epsilons(self.epsilons, name="epsilons", allow_zero=True))
        proportions: tuple[float, ...] | str = self.proportions if isinstance(self.proportions, str) else ()
        if isinstance(self.proportions, str):
            if self.proportions != "auto":
                raise PrivriskError(
                    f"proportions: a list of numbers in (0, 1] or 'auto', got {self.proportions!r}",
                    param="proportions",
                )
        else:
            check_proportions(self.proportions)
            proportions = tuple(float(p) for p in np.atleast_1d(np.asarray(self.proportions, dtype=float)))
        checked: dict[str, Any] = {
            "queries": queries,
            "epsilons": epsilons,
            "proportions": proportions,  # as given: the order the user wrote is what the report repeats
            "repetitions": check_whole(self.repetitions, name="repetitions", minimum=1),
            "attack_trials": check_trials(self.attack_trials, name="attack_trials"),
            "attack_max_n": check_max_n(self.attack_max_n, name="attack_max_n"),
            "seed": check_whole(self.seed, name="seed"),
            "universe": _check_universe(self.universe),
            "universe_min": _check_universe_min(self.universe_min, self.universe),
        }
        if isinstance(self.repetitions, bool) or isinstance(self.seed, bool):
            name = "repetitions" if isinstance(self.repetitions, bool) else "seed"
            raise PrivriskError(f"{name}: must be a whole number, got {getattr(self, name)!r}", param=name)
        if self.ls_method not in ("exact", "paper"):
            raise PrivriskError(
                f"ls_method: must be 'exact' or 'paper', got {self.ls_method!r}", param="ls_method"
            )
        if not isinstance(self.attack, bool):
            raise PrivriskError(f"attack: must be True or False, got {self.attack!r}", param="attack")
        # The attack's settings alone are a mistake (the user meant to attack), not something silently ignored.
        if not self.attack:
            for name, default in (
                ("attack_trials", DEFAULT_ATTACK_TRIALS),
                ("attack_max_n", DEFAULT_ATTACK_MAX_N),
            ):
                if checked[name] != default:
                    raise PrivriskError(f"{name}: only meaningful with the attack (attack=True)", param=name)
        query, eps = figure_choices(queries, epsilons, self.figure_query, self.figure_epsilon)
        checked.update(figure_query=query, figure_epsilon=eps, attack=self.attack)
        for name, value in checked.items():  # a frozen dataclass normalises itself once, while it is made
            object.__setattr__(self, name, value)

    def sample_arguments(self) -> dict[str, Any]:
        """The arguments that choose the samples, the same for the study and its attack."""
        return {
            "queries": list(self.queries),
            "epsilons": list(self.epsilons),
            "proportions": self.proportions if isinstance(self.proportions, str) else list(self.proportions),
            "repetitions": self.repetitions,
            "seed": self.seed,
            "universe": self.universe,
            "universe_min": self.universe_min,
        }

    def parameters(self) -> dict[str, Any]:
        """The settings as plain JSON values, in the order the report lists them."""
        out = self.sample_arguments()
        if not isinstance(self.universe, str):
            out["universe"] = list(self.universe)
        out.update(
            ls_method=self.ls_method, figure_query=self.figure_query, figure_epsilon=self.figure_epsilon
        )
        if self.attack:
            out.update(attack_trials=self.attack_trials, attack_max_n=self.attack_max_n)
        return out


def _check_universe(universe: Any) -> Literal["data"] | tuple[float, float]:
    if isinstance(universe, str) and universe == "data":
        return "data"
    try:
        lo, hi = (float(x) for x in universe)
    except (TypeError, ValueError):
        raise PrivriskError(
            f"universe: 'data' or bounds (lo, hi), got {universe!r}", param="universe"
        ) from None
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise PrivriskError(f"universe: the bounds must be finite, got ({lo:g}, {hi:g})", param="universe")
    if not lo < hi:
        raise PrivriskError(
            f"universe: the lower bound must be below the upper bound, got ({lo:g}, {hi:g})", param="universe"
        )
    return lo, hi


def _check_universe_min(universe_min: Any, universe: Any) -> float | None:
    """A finite number, and with bounds (lo, hi) at most lo: it lowers the universe's minimum, never raises it."""
    if universe_min is None:
        return None
    try:
        if isinstance(universe_min, bool):
            raise TypeError
        value = float(universe_min)
    except (TypeError, ValueError):
        raise PrivriskError(
            f"universe_min: must be a number, got {universe_min!r}", param="universe_min"
        ) from None
    if not math.isfinite(value):
        raise PrivriskError(f"universe_min: must be finite, got {value:g}", param="universe_min")
    bounds = _check_universe(universe)
    if not isinstance(bounds, str) and value > bounds[0]:
        raise PrivriskError(
            f"universe_min: {value:g} is above the universe's lower bound {bounds[0]:g}; it can only lower it",
            param="universe_min",
        )
    return value


def read_variables(
    path: str | os.PathLike[str],
    columns: Sequence[str],
    *,
    labels: Mapping[str, str] | None = None,
    missing: str | None = None,
    universe: Literal["data"] | tuple[float, float] = "data",
    universe_min: float | None = None,
) -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """Numeric columns of a data file for the study: ``{label: values}`` and a description of each variable.

    Missing values and codes are dropped (``missing``: ``"negative"`` or ``"-1,-3"``); a column left with one
    value has no risk to study and is an error. The descriptions are what the report's set-up table and the JSON
    document show.
    """
    from privrisk.io.data import numeric_values, read_table

    labels = labels or {}
    frame = read_table(path, list(columns))
    values, variables = {}, []
    for c in columns:
        col = numeric_values(frame[c], name=c, missing=missing, source=str(path))
        distinct = np.unique(col.values).size
        if distinct < 2:
            raise PrivriskError(
                f"{path}: column {c!r} holds one value only ({col.values[0]:g}); there is no risk to study"
            )
        name = labels.get(c, c)
        values[name] = col.values
        if isinstance(universe, str):
            universe_text = f"its {distinct:,} distinct valid values"
        else:
            universe_text = f"the interval [{universe[0]:g}, {universe[1]:g}]"
        if universe_min is not None:
            universe_text += f", minimum set to {universe_min:g}"
        variables.append(
            {
                "label": name,
                "column": c,
                "source": str(path),
                "n": int(col.values.size),
                "dropped": col.n_dropped,
                "universe": universe_text,
                "summary": col.summary(),
                "data": col.as_dict(),
            }
        )
    return values, variables
