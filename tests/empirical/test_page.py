"""The Shiny-free logic of the app's page Empirical DP, outside the browser: inputs onto EmpiricalSettings (the
preset's columns from the library), the column roles after an upload, the progress of a run."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privrisk.app._shared import Job
from privrisk.app.pages.empirical import (
    FIELDS,
    column_roles,
    empirical_settings,
    run_empirical_job,
)
from privrisk.empirical import CHICAGO
from privrisk.errors import PrivriskError

PAGE = {"preset": "chicago", "period": "", "individual": "", "query": "rate", "value": "", "weight": "",
        "epsilons": "0.03,0.1,0.3", "density": "kde-box", "period_unit": "", "k": "", "aggregate": 1, "window": "",
        "step": "", "lags": "", "joint": "", "condition_on": "", "buckets": 4, "noise": "", "target_delta": "",
        "draws": 20, "seed": 0, "top": 10}  # fmt: skip


def test_the_preset_takes_its_columns_from_the_library():
    s = empirical_settings({**PAGE, "period": "week", "individual": "x"}, "i.csv")
    assert {k: getattr(s, k) for k in CHICAGO} == dict(CHICAGO)
    assert set(FIELDS) - {"file"} == set(PAGE)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"preset": ""}, "period"), ({"preset": "", "period": "m"}, "individual"),
     ({"preset": "", "period": "m", "individual": "id"}, "value"), ({"epsilons": "0"}, "epsilons"),
     ({"noise": "laplace:1", "target_delta": "0.1"}, "target_delta"), ({"k": "x"}, "k"), ({"window": "2"}, "window")],
)  # fmt: skip
def test_an_error_names_the_input_it_belongs_to(change, field):
    with pytest.raises(PrivriskError) as caught:
        empirical_settings({**PAGE, **change}, "i.csv")
    assert caught.value.param == field and field in FIELDS


def test_the_roles_of_an_uploads_columns():
    frame = pd.DataFrame(
        {
            "name": ["a", "b", "c"],
            "Inspection Date": ["2020-01-01"] * 3,
            "License #": [5, 9, 5],
            "failed": [1, 0, 1],
        }
    )
    assert column_roles(frame) == {"period": "Inspection Date", "individual": "License #", "value": "failed"}
    assert column_roles(pd.DataFrame({"name": ["a", "b"], "id": [1, 2]})) == {"individual": "id"}


def test_the_job_moves_the_bar_forward_and_counts_the_individuals(tmp_path):
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"m": np.repeat(np.arange(20), 10), "id": rng.integers(0, 30, 200)})
    path = tmp_path / "d.csv"
    df.to_csv(path, index=False)
    job = Job()
    seen: list[tuple[float, str]] = []
    advance = job.advance

    def watch(fraction, text=None):
        seen.append((fraction, text or ""))
        advance(fraction, text)

    job.advance = watch  # type: ignore[method-assign]
    settings = empirical_settings(
        {**PAGE, "preset": "", "period": "m", "individual": "id", "query": "count"}, path
    )
    run = run_empirical_job(job, settings, "d.csv", tmp_path / "out")
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and fractions[-1] == 1.0
    counted = [t for _, t in seen if t.startswith("Measuring the individuals: ")]
    assert counted and counted[-1] == f"Measuring the individuals: {run.result.footprints:,} done"
    assert (tmp_path / "out" / "manifest.json").is_file()


def test_the_verdict_leads_and_its_warnings_carry_no_e_notation():
    import re

    from privrisk.app.pages.empirical import verdict_ui
    from privrisk.empirical import EmpiricalSettings, run_empirical

    rng = np.random.default_rng(1)
    months = np.repeat(np.arange(60), 50)
    level = np.cumsum(rng.normal(size=60)) * 5  # a random walk: Ljung–Box p far below 10⁻⁵
    df = pd.DataFrame(
        {
            "m": months,
            "id": rng.integers(0, 400, months.size),
            "v": level[months] + rng.normal(size=months.size),
        }
    )
    run = run_empirical(
        EmpiricalSettings(data=df, period="m", individual="id", query="mean", value="v", epsilons=[0.5])
    )
    p = float(run.result.independence["p_value"].iloc[-1])
    assert p < 1e-5 and f"{p:.3g}" in run.warned(Warning)[0]  # the library's text has e-notation …
    html = str(verdict_ui(run))
    assert html.index("empirical-verdict-number") < html.index("Warning:")
    assert "autocorrelated" in html and not re.search(r"\d[eE][+-]?\d", html)  # … the page does not
