"""A small survey-like example for the app's page Synthetic and the docs: training and control records of one
made-up population, and a synthetic file made from the training records by one of the generators.

Example:
    >>> train, synthetic, control = example_files("histogram:1")
    >>> len(train), len(control), list(train.columns)
    (1000, 1000, ['age', 'sex', 'region', 'education', 'income', 'health'])
"""

from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["EXAMPLE_GENERATORS", "example_files", "example_population"]

#: The example's synthetic files: the generator (as ``--generator`` takes it) and what it is.
EXAMPLE_GENERATORS = {
    "histogram:1": "a Laplace-noised histogram, ε = 1 (differentially private)",
    "marginals": "each column drawn on its own (not private, copies no record)",
    "copy": "a copy of the training records (no privacy at all)",
}


def example_population(n: int, seed: int = 0) -> pd.DataFrame:
    """n made-up survey respondents: age, sex, region, education, yearly income, health (1 to 5)."""
    rng = np.random.default_rng(seed)
    age = rng.integers(18, 90, n)
    education = np.clip(rng.poisson(2.0, n), 0, 4)
    income = np.round(np.exp(9.6 + 0.25 * education + 0.01 * np.minimum(age, 65) + rng.normal(0, 0.5, n)), -2)
    health = np.clip(np.round(4.5 - age / 30 + rng.normal(0, 0.8, n)), 1, 5).astype(int)
    return pd.DataFrame({
        "age": age,
        "sex": rng.choice(["f", "m"], n),
        "region": rng.choice([f"region {i}" for i in range(1, 9)], n),
        "education": education,
        "income": income,
        "health": health,
    })  # fmt: skip


def example_files(
    generator: str = "histogram:1", seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """(training records, synthetic file, control records) of the example: 1,000 training and 1,000 control
    respondents of :func:`example_population`, and 1,000 synthetic records made by ``generator``."""
    from privrisk.synthetic.generators import generate, parse_generator

    people = example_population(2000, seed)
    train, control = people[:1000].reset_index(drop=True), people[1000:].reset_index(drop=True)
    kind, epsilon = parse_generator(generator)
    synthetic = generate(train, kind, epsilon=epsilon, size=len(train), seed=seed + 1)
    return train, synthetic, control
