"""A small survey of our making, with weights and households: ``examples/microdata_survey.csv`` (the app's example).

Sixty people in 25 households of one to four members, in four regions; age band, sex, a design weight per household
(80 to 400), monthly income and a diagnosis. Drawn once with a fixed seed; the file in ``examples/`` is this
function's output (a test checks it), and the app uses the function since ``examples/`` is not in the wheel.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["example_survey"]


def example_survey() -> pd.DataFrame:
    """The example survey (module docstring).

    Example:
        >>> frame = example_survey()
        >>> len(frame), frame["hid"].nunique(), list(frame.columns)
        (60, 25, ['hid', 'region', 'age', 'sex', 'weight', 'income', 'diagnosis'])
    """
    rng = np.random.default_rng(2024)
    rows: list[dict[str, object]] = []
    hid = 0
    while len(rows) < 60:
        hid += 1
        size = int(rng.choice([1, 2, 2, 3, 4]))
        region = str(rng.choice(["north", "south", "east", "west"], p=[0.4, 0.3, 0.2, 0.1]))
        weight = float(rng.choice([80, 120, 150, 200, 400]))
        for _ in range(size):
            age = str(rng.choice(["18-29", "30-44", "45-64", "65+"], p=[0.2, 0.3, 0.35, 0.15]))
            rows.append({"hid": hid, "region": region, "age": age, "sex": str(rng.choice(["f", "m"])),
                         "weight": weight, "income": int(rng.choice([900, 1500, 2200, 3100, 4500])),
                         "diagnosis": str(rng.choice(["none", "asthma", "diabetes", "depression"],
                                                     p=[0.55, 0.15, 0.15, 0.15]))})  # fmt: skip
    return pd.DataFrame(rows[:60])
