"""The synthetic files of ``examples/`` that the README's and the guide's examples read, and how they are made.

A reader who clones the repository runs every example as printed: the data ships in ``examples/`` (small and
synthetic: no real person is in it) or is made by a one-line command printed beside the example (the Chicago
inspections: :func:`privrisk.datasets.chicago_like`). The files here are written by :func:`write_example_files`
(``python -m privrisk.datasets.examples examples/``), and the tests check that the shipped files are exactly what
it writes.

- ``survey.csv``: 1,000 respondents of a household survey (``pid``, ``region``, ``age`` band, ``sex``, weekly
  work ``hours``, monthly net ``income`` in euros);
- ``survey.dta``: the same survey as a Stata file with the SOEP's negative missing codes (−1 no answer, −2 does
  not apply: the hours of the retired who do not work), for ``--missing negative``;
- ``shops.csv``: 60 shops over 60 months (``month``, ``shop``, ``sales``, food-safety checks ``inspected`` and
  ``failed``), a panel for ``privrisk empirical``;
- ``wages.csv``: the hourly ``wage`` of 80 people (``pid``) over 48 quarters, a panel for ``privrisk empirical``.
"""

from __future__ import annotations

import datetime as dt
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd

__all__ = ["EXAMPLE_FILES", "shops_like", "survey_like", "wages_like", "write_example_files"]

_AGES = ("18-29", "30-44", "45-64", "65+")
# A fixed time stamp, so that the Stata file is the same bytes every time it is written.
_STATA_TIME = dt.datetime(2025, 1, 1)


def survey_like(n: int = 1000, *, seed: int = 20240704, missing_codes: bool = False) -> pd.DataFrame:
    """A synthetic household survey: region, age band, sex, weekly work hours and monthly net income.

    Most people of working age work (about 40 hours a week, fewer part-time), most of those over 65 do not;
    income follows the hours with a log-normal spread, pensions for the retired. With ``missing_codes`` the
    answers carry the SOEP's negative codes: −1 (no answer) for about 4 % of the hours and 8 % of the incomes,
    −2 (does not apply) for the hours of those who do not work after 65.

    Example:
        >>> survey = survey_like(200, seed=1)
        >>> list(survey.columns), bool(survey["hours"].between(0, 80).all())
        (['pid', 'region', 'age', 'sex', 'hours', 'income'], True)
        >>> bool((survey_like(200, seed=1, missing_codes=True)["hours"] < 0).any())
        True
    """
    rng = np.random.default_rng(seed)
    age = rng.choice(_AGES, n, p=[0.18, 0.27, 0.35, 0.20])
    retired = age == "65+"
    works = np.where(retired, rng.random(n) < 0.12, rng.random(n) < 0.82)
    full_time = rng.random(n) < 0.7
    hours = np.where(
        full_time,
        rng.choice([38, 39, 40, 40, 40, 42, 45, 50], n),
        rng.choice([10, 15, 20, 20, 25, 30, 32], n),
    )
    hours = np.clip(hours + rng.integers(-2, 3, n) * (rng.random(n) < 0.3), 1, 80)
    hours = np.where(works, hours, 0)
    wage = rng.lognormal(np.log(17.0), 0.35, n)
    income = np.where(works, hours * 4.33 * wage * 0.68, 0.0)
    pension = rng.lognormal(np.log(1300.0), 0.3, n)
    income = np.where(retired, income + pension, income)
    income = np.round(income, -1)
    frame = pd.DataFrame(
        {
            "pid": np.arange(1, n + 1),
            "region": rng.choice(["north", "east", "south", "west"], n, p=[0.2, 0.2, 0.3, 0.3]),
            "age": age,
            "sex": rng.choice(["f", "m"], n),
            "hours": hours.astype(np.int64),
            "income": income.astype(np.int64),
        }
    )
    if missing_codes:
        frame.loc[retired & ~works, "hours"] = -2
        frame.loc[rng.random(n) < 0.04, "hours"] = -1
        frame.loc[rng.random(n) < 0.08, "income"] = -1
    return frame


def shops_like(shops: int = 60, months: int = 60, *, seed: int = 20150112) -> pd.DataFrame:
    """A monthly panel of shops: sales, food-safety checks and failed checks, one row per shop and month open.

    Each shop has its own size and failure propensity; each month its own demand (sales) and inspection
    climate (failures), independent from month to month (the periods of Burchard and Daoud are independent
    draws); a shop is closed in a month with probability 0.1. The default seed is one whose series (sums, rates,
    counts) the Ljung–Box test does not flag by chance at the 5 % level, so that the guide's examples show no
    warning that the data's independence would contradict.

    Example:
        >>> panel = shops_like(10, 12, seed=1)
        >>> list(panel.columns), bool((panel["failed"] <= panel["inspected"]).all())
        (['month', 'shop', 'sales', 'inspected', 'failed'], True)
    """
    rng = np.random.default_rng(seed)
    size = rng.lognormal(np.log(8000.0), 0.5, shops)
    propensity = rng.beta(2.0, 8.0, shops)
    demand = rng.lognormal(0.0, 0.1, months)
    climate = rng.normal(0.0, 0.3, months)
    month = np.repeat(np.arange(months), shops)
    shop = np.tile(np.arange(shops), months)
    keep = rng.random(month.size) >= 0.1
    month, shop = month[keep], shop[keep]
    sales = np.round(size[shop] * demand[month] * rng.lognormal(0.0, 0.2, month.size))
    inspected = 1 + rng.poisson(1.0, month.size)
    logit = np.log(propensity[shop] / (1 - propensity[shop])) + climate[month]
    failed = rng.binomial(inspected, 1 / (1 + np.exp(-logit)))
    labels = pd.period_range("2015-01", periods=months, freq="M").astype(str)
    return pd.DataFrame(
        {
            "month": np.asarray(labels)[month],
            "shop": shop + 1,
            "sales": sales.astype(np.int64),
            "inspected": inspected,
            "failed": failed,
        }
    )


def wages_like(people: int = 80, quarters: int = 48, *, seed: int = 20100101) -> pd.DataFrame:
    """A quarterly panel of hourly wages: each person's level and quarterly noise of their own.

    Example:
        >>> panel = wages_like(5, 8, seed=1)
        >>> panel.shape, panel["quarter"].min(), panel["quarter"].max()
        ((40, 3), np.int64(1), np.int64(8))
    """
    rng = np.random.default_rng(seed)
    level = rng.lognormal(np.log(18.0), 0.3, people)
    quarter = np.repeat(np.arange(quarters), people)
    pid = np.tile(np.arange(people), quarters)
    wage = np.round(level[pid] * rng.lognormal(0.0, 0.05, quarter.size), 2)
    return pd.DataFrame({"quarter": quarter + 1, "pid": pid + 1, "wage": wage})


#: Each file of ``examples/`` this module makes, and how.
EXAMPLE_FILES: dict[str, Callable[[], pd.DataFrame]] = {
    "survey.csv": survey_like,
    "survey.dta": lambda: survey_like(missing_codes=True),
    "shops.csv": shops_like,
    "wages.csv": wages_like,
}

_LABELS = {
    "pid": "person id",
    "region": "region",
    "age": "age group",
    "sex": "sex",
    "hours": "weekly work hours (-1 no answer, -2 does not apply)",
    "income": "monthly net income, euros (-1 no answer)",
}


def write_example_files(folder: str | Path) -> list[Path]:
    """Write every file of :data:`EXAMPLE_FILES` into ``folder``; the paths written.

    Example:
        >>> import tempfile
        >>> with tempfile.TemporaryDirectory() as folder:
        ...     [p.name for p in write_example_files(folder)]
        ['survey.csv', 'survey.dta', 'shops.csv', 'wages.csv']
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, make in EXAMPLE_FILES.items():
        path = folder / name
        frame = make()
        if path.suffix == ".dta":
            frame.to_stata(
                path, write_index=False, version=118, variable_labels=_LABELS, time_stamp=_STATA_TIME
            )
        else:
            frame.to_csv(path, index=False)
        written.append(path)
    return written


if __name__ == "__main__":  # python -m privrisk.datasets.examples examples/
    for written_path in write_example_files(sys.argv[1] if len(sys.argv) > 1 else "examples"):
        print(written_path)
