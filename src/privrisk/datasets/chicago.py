"""A generator in the schema of the Chicago Food Inspections file, and the cleaning of Burchard and Daoud (2022, §5).

The City of Chicago publishes every food inspection (``Inspection ID``, ``License #``, ``Inspection Date``,
``Inspection Type``, ``Results``, …). Burchard and Daoud (2022, §5) measure the empirical privacy of the monthly
failure rate of establishments on it. :func:`chicago_like` makes data of that shape for tests and demos (no network
is needed); :func:`chicago_clean` applies the paper's cleaning to either.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError

__all__ = ["CHICAGO_COLUMNS", "chicago_clean", "chicago_like"]

CHICAGO_COLUMNS = ("Inspection ID", "License #", "Inspection Date", "Inspection Type", "Results")


def chicago_like(
    establishments: int = 32036, months: int = 117, *, start: str = "2010-01-01", seed: int = 0
) -> pd.DataFrame:
    """Inspection-like data in the schema of the Chicago Food Inspections file, for testing and demos.

    The file of Burchard and Daoud (2022, §5): 117 months (2010–2019) and about 32,000 establishments.


    Each establishment has its own failure propensity (Beta distributed) and is inspected at random times:
    a licence inspection when it opens, canvass inspections about once a year, and occasional complaints. Each
    month has its own inspection climate (a random shift of every failure odds), so the monthly failure rate
    varies the way real series do. A failure is followed within weeks by a re-inspection that usually passes;
    a few inspections end as "Out of Business", "No Entry" or "Pass w/ Conditions".

    Example:
        >>> df = chicago_like(200, 24, seed=1)
        >>> list(df.columns) == list(CHICAGO_COLUMNS), bool(df["Results"].isin(["Pass", "Fail"]).mean() > 0.7)
        (True, True)
    """
    rng = np.random.default_rng(seed)
    first = pd.Timestamp(start)
    days = int((first + pd.DateOffset(months=months) - first).days)
    propensity = rng.beta(2.0, 8.0, establishments)
    opening = np.where(rng.random(establishments) < 0.6, 0, rng.integers(0, days, establishments))
    span = days - opening
    canvass = rng.poisson(span / 365.0 * 0.4)
    complaint = rng.poisson(span / 365.0 * 0.15)
    owner = np.concatenate(
        [
            np.arange(establishments),
            np.repeat(np.arange(establishments), canvass),
            np.repeat(np.arange(establishments), complaint),
        ]
    )
    kind = np.concatenate(
        [
            np.full(establishments, "License"),
            np.full(int(canvass.sum()), "Canvass"),
            np.full(int(complaint.sum()), "Complaint"),
        ]
    )
    day = opening[owner] + (rng.random(owner.size) * span[owner]).astype(np.int64)
    day[:establishments] = opening
    month_index = np.array(
        [
            (first + pd.Timedelta(days=int(d))).year * 12 + (first + pd.Timedelta(days=int(d))).month
            for d in range(days)
        ]
    )
    month_index -= month_index[0]
    climate = rng.normal(0.0, 0.3, months + 1)
    logit = np.log(propensity[owner] / (1 - propensity[owner])) + climate[month_index[day]]
    logit += np.where(kind == "Complaint", 0.6, 0.0)
    fail = rng.random(owner.size) < 1.0 / (1.0 + np.exp(-logit))
    results = np.where(fail, "Fail", np.where(rng.random(owner.size) < 0.12, "Pass w/ Conditions", "Pass"))
    odd = rng.random(owner.size)
    results = np.where(odd < 0.03, "Out of Business", np.where(odd < 0.045, "No Entry", results))
    failed = results == "Fail"
    re_owner = owner[failed]
    re_day = np.minimum(day[failed] + rng.integers(7, 35, re_owner.size), days - 1)
    re_kind = np.char.add(kind[failed].astype(str), " Re-Inspection")
    re_results = np.where(rng.random(re_owner.size) < 0.85, "Pass", "Fail")
    all_owner = np.concatenate([owner, re_owner])
    all_day = np.concatenate([day, re_day])
    frame = pd.DataFrame(
        {
            "License #": 1_000_000 + all_owner,
            "Inspection Date": first + pd.to_timedelta(all_day, unit="D"),
            "Inspection Type": np.concatenate([kind.astype(str), re_kind]),
            "Results": np.concatenate([results, re_results]),
        }
    )
    frame = frame.sort_values(["Inspection Date", "License #"], kind="stable").reset_index(drop=True)
    frame.insert(0, "Inspection ID", np.arange(1, len(frame) + 1) + 100_000)
    return frame


def chicago_clean(frame: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, int]]:
    """The cleaning of Burchard and Daoud (2022, §5): keep primary inspections that passed or failed.

    Re-inspections (a source of autocorrelation, §5) and outcomes other than Pass and Fail are dropped; ``failed``
    (1 for a failure) and ``month`` (the start of the inspection's month) are added.


    Kept: inspections triggered by licensing, canvassing or complaints (``Inspection Type`` containing "license",
    "canvass" or "complaint" and not "re-insp"/"reinsp"); results "Pass", "Pass w/ Conditions" (a pass) and
    "Fail". Rows without a licence number (missing or 0, as in the real file) cannot be attributed and are
    dropped. Returns the cleaned rows and how many rows each step dropped.

    Example:
        >>> clean, dropped = chicago_clean(chicago_like(100, 12, seed=2))
        >>> set(clean["Results"]) <= {"Pass", "Fail", "Pass w/ Conditions"}, sorted(dropped)
        (True, ['no licence', 're-inspection or other type', 'result not pass or fail'])
    """
    missing = [
        c for c in ("License #", "Inspection Date", "Inspection Type", "Results") if c not in frame.columns
    ]
    if missing:
        raise PrivriskError(
            f"frame: the file lacks the column(s) {', '.join(map(repr, missing))} of the Chicago "
            "Food Inspections schema",
            param="frame",
        )
    kind = frame["Inspection Type"].astype("string").str.lower().fillna("")
    primary = kind.str.contains("license|licence|canvass|complaint", regex=True) & ~kind.str.contains(
        "re-insp|reinsp|re insp", regex=True
    )
    result = frame["Results"].astype("string").str.strip().str.lower().fillna("")
    passfail = result.isin(["pass", "fail", "pass w/ conditions"])
    licence = pd.to_numeric(frame["License #"], errors="coerce")
    has_licence = licence.notna() & (licence != 0)
    dropped = {
        "re-inspection or other type": int((~primary).sum()),
        "result not pass or fail": int((primary & ~passfail).sum()),
        "no licence": int((primary & passfail & ~has_licence).sum()),
    }
    keep = (primary & passfail & has_licence).to_numpy()
    clean = frame.loc[keep].copy()
    clean["License #"] = licence[keep].astype(np.int64)
    clean["failed"] = (result[keep] == "fail").astype(float).to_numpy()
    try:
        dates = pd.to_datetime(clean["Inspection Date"], errors="raise")
    except (ValueError, TypeError) as exc:
        raise PrivriskError(f"frame: 'Inspection Date' is not a date ({exc})", param="frame") from None
    clean["month"] = dates.dt.to_period("M").dt.start_time
    return clean, dropped
