"""Small files of known structure for the synthetic tests: a population with four continuous and two
categorical columns, a training set, a control set, and synthetic files made from them."""

from __future__ import annotations

import numpy as np
import pandas as pd

AUX = "a,b|c,d"
SECRETS = "kind,group"


def population(n: int, seed: int) -> pd.DataFrame:
    """n people: a–d continuous (two decimals), kind depends on a, group on c."""
    rng = np.random.default_rng(seed)
    a, b, c, d = (np.round(rng.normal(0, 1, n), 2) for _ in range(4))
    kind = np.where(a + rng.normal(0, 1, n) > 0, "p", "q")
    kind = np.where(rng.random(n) < 0.3, rng.choice(["r", "s"], n), kind)
    group = np.array(["g1", "g2", "g3"])[(np.clip(c + rng.normal(0, 1, n), -1.5, 1.49) + 1.5).astype(int)]
    return pd.DataFrame({"a": a, "b": b, "c": c, "d": d, "kind": kind, "group": group})


def files(n: int = 1500, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Training records, control records and an independent sample of the same population (what a generator
    that learned only the population would give)."""
    people = population(3 * n, seed)
    return (people[:n].reset_index(drop=True), people[n : 2 * n].reset_index(drop=True),
            people[2 * n :].reset_index(drop=True))  # fmt: skip


def noisy_copy(train: pd.DataFrame, scale: float, seed: int) -> pd.DataFrame:
    """The training records with noise on the continuous columns: a generator that leaks part of its data."""
    rng = np.random.default_rng(seed)
    out = train.copy()
    for c in "abcd":
        out[c] = np.round(out[c] + rng.normal(0, scale, len(out)), 2)
    return out.sample(frac=1.0, random_state=seed).reset_index(drop=True)
