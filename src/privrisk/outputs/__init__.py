"""Output checking: the disclosure risk of a researcher's outputs, each alone and all together.

A research data centre's output checker decides which tables, means, percentiles and regressions computed on
the microdata may leave. This subpackage computes each output itself from the data (DuckDB), applies the primary
rules of the centre's policy (ACRO's keys and defaults) to every cell, finds by linear programming what all
outputs released so far reveal together (differencing), and proposes suppression, rounding, coarsening or noise,
each with its cost.

- :mod:`privrisk.outputs.spec` — ``outputs.toml``; :mod:`privrisk.outputs.policy` — the policy;
- :mod:`privrisk.outputs.compute` — the cells and their evidence; :mod:`privrisk.outputs.models` — ols, logit;
- :mod:`privrisk.outputs.rules` — the primary rules; :mod:`privrisk.outputs.intervals` — the intruder's
  intervals; :mod:`privrisk.outputs.differencing` — atoms and disclosures;
- :mod:`privrisk.outputs.perturbed` — count tables released with cell-key perturbation (published values, the
  true counts they allow);
- :mod:`privrisk.outputs.recommend` — what to do; :mod:`privrisk.outputs.ledger` — outputs released before;
- :mod:`privrisk.outputs.report` — HTML, JSON and CSVs; :mod:`privrisk.outputs.run` — settings, run and result;
- :mod:`privrisk.outputs.versions` — earlier outputs of another version of the data;
- :mod:`privrisk.outputs.notebook` — ``crosstab``, ``pivot_table``, ``ols``, ``logit``: the table and its check;
- :mod:`privrisk.outputs.table_pattern` — a proven suppression pattern for a hierarchical count table
  (:mod:`privrisk.outputs.hierarchical`), imported on first use.
"""

from typing import Any

from privrisk.errors import lazy_attribute, renamed_attributes
from privrisk.outputs.notebook import crosstab, logit, ols, pivot_table
from privrisk.outputs.policy import Policy, read_policy
from privrisk.outputs.run import OutputsRun, OutputsSettings, check_frame, run_outputs
from privrisk.outputs.spec import OutputSpec, parse_spec, read_spec

# The names before the one shape (issue 33), for one release.
_renamed = renamed_attributes(
    {"__name__": __name__, "OutputsRun": OutputsRun, "run_outputs": run_outputs},
    {"OutputsResult": "OutputsRun", "check_outputs": "run_outputs"},
)
# The table pattern's way in pulls in scipy's graph routines: imported when first named.
_LAZY = dict.fromkeys(("TablePatternRun", "TablePatternSettings", "run_table_pattern"), "privrisk.outputs.table_pattern")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return lazy_attribute(globals(), _LAZY, name)
    return _renamed(name)


__all__ = [
    "OutputSpec",
    "OutputsRun",
    "OutputsSettings",
    "Policy",
    "TablePatternRun",
    "TablePatternSettings",
    "check_frame",
    "crosstab",
    "logit",
    "ols",
    "parse_spec",
    "pivot_table",
    "read_policy",
    "read_spec",
    "run_outputs",
    "run_table_pattern",
]
