"""The query and the ε a study's figures and findings show: by default max and the ε nearest 1 (on a log scale)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from privrisk._validation import check_epsilon, check_query
from privrisk.errors import PrivriskError

__all__ = ["figure_choices", "pick_epsilon"]


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
