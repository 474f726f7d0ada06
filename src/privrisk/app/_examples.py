"""Small example tables built into the app (the repository's ``examples/`` folder is not in the wheel).

``distance_work`` is examples/distance_work.csv: the five distances to work (km) of Allmann et al.'s running
example, §3.2; ``claims`` is examples/claims.csv (30 insurance claims). The same values as those files, so a page
on an example gives the numbers of the command line on the file.

Example:
    >>> frame = example_frame("distance_work")
    >>> frame["distance"].tolist()
    [1, 3, 10, 17, 675]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EXAMPLES", "example_frame"]

#: name → (file in examples/, column → values, what it is)
EXAMPLES: dict[str, tuple[str, dict[str, list[float] | list[int]], str]] = {
    "distance_work": (
        "examples/distance_work.csv",
        {"id": [1, 2, 3, 4, 5], "distance": [1, 3, 10, 17, 675]},
        "distances to work in km, Allmann et al.'s running example (5 people)",
    ),
    "claims": (
        "examples/claims.csv",
        {
            "id": [
                1,
                2,
                3,
                4,
                5,
                6,
                7,
                8,
                9,
                10,
                11,
                12,
                13,
                14,
                15,
                16,
                17,
                18,
                19,
                20,
                21,
                22,
                23,
                24,
                25,
                26,
                27,
                28,
                29,
                30,
            ],
            "claims": [
                9.91,
                9.16,
                10.59,
                11.27,
                10.5,
                11.89,
                10.62,
                12.54,
                9.29,
                8.92,
                13.37,
                8.55,
                11.18,
                9.45,
                12.65,
                9.49,
                11.24,
                8.69,
                9.97,
                10.64,
                7.09,
                10.68,
                9.96,
                9.69,
                9.33,
                10.08,
                10.38,
                12.32,
                9.92,
                100.0,
            ],
        },
        "30 insurance claims",
    ),
}


def example_frame(name: str) -> pd.DataFrame:
    """The example table ``name`` (one of :data:`EXAMPLES`)."""
    import pandas as pd

    if name not in EXAMPLES:
        raise PrivriskError(
            f"example: unknown example {name!r}; one of {', '.join(EXAMPLES)}", param="example"
        )
    return pd.DataFrame(EXAMPLES[name][1])
