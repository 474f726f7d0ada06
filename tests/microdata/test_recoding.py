"""Global recoding: the chosen node meets the targets when measured again, and no node below it does."""

from __future__ import annotations

from itertools import product

import numpy as np
import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import build_hierarchy
from privrisk.microdata import MicrodataSettings, measure_microdata
from privrisk.microdata.recoding import recode_microdata


@pytest.fixture
def people():
    rng = np.random.default_rng(3)
    n = 60
    return pd.DataFrame({"age": rng.integers(18, 90, n), "zip": rng.choice(["10115", "10117", "10245", "20095",
                         "20099", "80331"], n), "sex": rng.choice(["f", "m"], n),
                         "w": rng.uniform(10, 100, n), "job": rng.choice(list("abcd"), n)})  # fmt: skip


HIER = {"age": "interval:10", "zip": "prefix"}


@pytest.fixture(autouse=True)
def _no_population_models(monkeypatch):
    """Population uniqueness is no target; its model fits take seconds per measurement, so they are skipped here."""
    import privrisk.microdata.measure as measure

    monkeypatch.setattr(measure, "sample_population_uniqueness", lambda count, population: {})


def passes(frame, levels, settings):
    recoded = frame.copy()
    for key, lvl in levels.items():
        h = build_hierarchy(key, HIER[key], frame[key].tolist())
        recoded[key] = h.generalise(frame[key].to_numpy(dtype=object), lvl)
    return not measure_microdata(recoded, settings).failures()


@pytest.mark.parametrize("targets", [{"k": 3}, {"k": 2, "max_risk": 0.05}, {"l": 2}, {"t": 0.5, "k": 2}])
def test_chosen_node_passes_and_nothing_below_it_does(people, targets):
    settings = MicrodataSettings(keys="age,zip,sex", weights="w", sensitive="job", **targets)
    r = recode_microdata(people, settings, HIER)
    assert r.levels is not None and r.result is not None
    assert r.result.failures() == []
    heights = {k: build_hierarchy(k, HIER[k], people[k].tolist()).height for k in HIER}
    for a, z in product(range(heights["age"]), range(heights["zip"])):
        below = a <= r.levels["age"] and z <= r.levels["zip"] and (a, z) != (r.levels["age"], r.levels["zip"])
        if below:
            assert not passes(people, {"age": a, "zip": z}, settings), (a, z)
    # every node's verdict in the table agrees with the full measurement
    for row in r.nodes.itertuples():
        assert row.passes == passes(people, {"age": row.level_age, "zip": row.level_zip}, settings)


def test_no_node_passes(people):
    settings = MicrodataSettings(keys="age,zip,sex", k=len(people) + 1)
    r = recode_microdata(people, settings, HIER)
    assert r.levels is None and r.minimal.empty


def test_bad_hierarchies(people):
    settings = MicrodataSettings(keys="age,zip", k=2)
    with pytest.raises(PrivriskError, match="hierarchies: 'sex' is not a key"):
        recode_microdata(people, settings, {"sex": "prefix"})
    with pytest.raises(PrivriskError, match="k: give at least one target"):
        recode_microdata(people, MicrodataSettings(keys="age"), {"age": "interval:10"})
