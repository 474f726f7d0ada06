"""The result object (frozen, its JSON document, its output folder) and the warning about dependent periods."""

from __future__ import annotations

import dataclasses
import json
import warnings

import numpy as np
import pandas as pd
import pytest

import privrisk
from privrisk.datasets import chicago
from privrisk.empirical import (
    EmpiricalPrivacy,
    empirical_privacy,
    empirical_privacy_of,
    rolling_privacy,
    write_outputs,
)
from privrisk.errors import DependenceWarning
from privrisk.io.files import to_jsonable


def random_walk(months=60, seed=1):
    """Independent records around a level that walks: the monthly means are strongly autocorrelated."""
    rng = np.random.default_rng(seed)
    period = np.repeat(np.arange(months), 50)
    level = np.cumsum(rng.normal(size=months))
    return pd.DataFrame(
        {
            "m": period,
            "id": rng.integers(0, 400, period.size),
            "v": level[period] + rng.normal(size=period.size),
        }
    )


def independent(months=40, seed=2):
    rng = np.random.default_rng(seed)
    period = np.repeat(np.arange(months), 30)
    return pd.DataFrame(
        {"m": period, "id": rng.integers(0, 200, period.size), "v": rng.normal(size=period.size)}
    )


COMMON = dict(period="m", individual="id", query="mean", value="v", epsilons=[0.5])


def test_the_library_warns_when_the_periods_are_autocorrelated():
    with pytest.warns(
        DependenceWarning, match=r"^aggregate: the answers are autocorrelated \(Ljung–Box p = "
    ):
        r = empirical_privacy(random_walk(), **COMMON)
    assert r.dependent and r.independence["p_value"].iloc[-1] < 0.05
    with pytest.warns(DependenceWarning, match=r"^the answers are .* merge consecutive periods first$"):
        empirical_privacy_of(
            random_walk(), lambda rows: rows["v"].mean(), period="m", individual="id", epsilons=[1]
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error", DependenceWarning)
        r = empirical_privacy(independent(), **COMMON)
        assert not r.dependent
        rolling_privacy(random_walk(), window=20, step=20, **COMMON)  # windows of one table: not warned again


def test_the_result_is_frozen_and_its_document_is_plain_json():
    r = empirical_privacy(independent(), **COMMON)
    assert isinstance(r, EmpiricalPrivacy)
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.noise = 1.0  # type: ignore[misc]
    doc = r.to_dict(top=3, file="x.csv")
    assert list(doc)[:8] == ["file", "preset", "query", "periods", "individuals", "k", "density", "rows"]
    assert doc["file"] == "x.csv" and doc["engine"] == "duckdb" and len(doc["top"]) == 3
    assert doc["independence"]["significant"] is False and doc["error_bound"] is None
    assert "noise" not in doc and "joint" not in doc and "out" not in doc
    assert json.loads(json.dumps(to_jsonable(doc))) == to_jsonable(doc)
    noisy = empirical_privacy(independent(), noise=0.5, draws=3, seed=4, **COMMON).to_dict()
    assert noisy["noise"] == {"distribution": "laplace", "scale": 0.5, "draws": 3, "seed": 4}


@pytest.mark.filterwarnings("ignore:empirical.write_outputs is deprecated:DeprecationWarning")
def test_write_outputs(tmp_path):
    r = empirical_privacy(independent(), **COMMON)
    folder = write_outputs(
        tmp_path / "out", r, file="panel.csv", parameters={"period": "m", "epsilons": [9.0]}
    )
    manifest = json.loads((folder / "manifest.json").read_text())
    assert manifest["kind"] == "empirical" and manifest["title"].endswith("of the mean in panel.csv")
    assert manifest["parameters"]["epsilons"] == [0.5] and manifest["parameters"]["period"] == "m"
    assert manifest["summary"]["rows"] == r.to_dict()["rows"]
    for name in ("individuals.parquet", "privacy.csv", "riskiest.csv", "series.csv", "independence.csv"):
        assert (folder / name).exists()
    assert {f["png"] for f in manifest["figures"]} == {"density.png"}


def test_the_chicago_names_still_work_where_they_were():
    assert privrisk.empirical.chicago_like is chicago.chicago_like is privrisk.chicago_like
    assert privrisk.empirical.chicago_clean is chicago.chicago_clean is privrisk.chicago_clean
