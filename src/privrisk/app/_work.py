"""The work of the pages Outputs and Microdata, run in a worker process (never on the server's event loop).

Each function takes plain, picklable arguments (paths, settings, the ledger's path and key), calls the library's
one way in (:func:`privrisk.outputs.check_outputs`, :func:`privrisk.microdata.run_microdata`) as the command line
does, and returns what the page shows, already rendered: the worker does the reading, the computing and the
formatting, the event loop only shows the result. The app's own limits on what one request may ask
(:data:`MAX_OUTPUTS` outputs, :data:`MAX_CATEGORIES` categories in a grouping column) are checked first, each
refused with one line naming the field: they bound the work of one session, they are no disclosure rule.

Example:
    >>> import pandas as pd
    >>> from privrisk.outputs import OutputSpec
    >>> frame = pd.DataFrame({"postcode": [str(i) for i in range(20)]})
    >>> check_request_size((OutputSpec(name="T", kind="count", rows=("postcode",)),), frame, max_categories=10)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: spec: output 'T': the grouping column 'postcode' has 20 categories; the app checks at most 10 (the command line has no such limit)
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError

__all__ = [
    "MAX_CATEGORIES",
    "MAX_OUTPUTS",
    "MICRODATA_DEFAULTS",
    "check_request_size",
    "microdata_report",
    "outputs_report",
]

#: The most outputs one check in the app may hold (a spec of 3,000 tables is refused; the command line has none).
MAX_OUTPUTS = 200
#: The most categories a grouping column (rows or columns of a table) may have in the app.
MAX_CATEGORIES = 10_000
#: The thresholds the Microdata page judges against when none is set: k = 3 and individual risk at most 0.1.
MICRODATA_DEFAULTS = {"k": 3, "max_risk": 0.1}


def check_request_size(
    specs: tuple[Any, ...],
    frame: Any,
    *,
    max_outputs: int = MAX_OUTPUTS,
    max_categories: int = MAX_CATEGORIES,
) -> None:
    """Refuse a request larger than the app checks: more than ``max_outputs`` outputs, or a grouping column with
    more than ``max_categories`` categories (an unknown column is left to the library's own message).

    Raises:
        PrivriskError: (``spec``) one line naming the output and the column.
    """
    if len(specs) > max_outputs:
        raise PrivriskError(
            f"spec: {len(specs):,} outputs; the app checks at most {max_outputs:,} at once (the command line has "
            "no such limit)",
            param="spec",
        )
    counted: dict[str, int] = {}
    for spec in specs:
        for column in spec.variables:
            if column not in frame.columns:
                continue
            if column not in counted:
                counted[column] = int(frame[column].nunique(dropna=False))
            if counted[column] > max_categories:
                raise PrivriskError(
                    f"spec: output {spec.name!r}: the grouping column {column!r} has {counted[column]:,} "
                    f"categories; the app checks at most {max_categories:,} (the command line has no such limit)",
                    param="spec",
                )


def outputs_report(
    data: str,
    spec: str,
    policy: str | None,
    ledger: str | None,
    key: bytes | None,
    earlier: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``privrisk outputs DATA --spec SPEC [--policy P] --ledger L [--earlier-data E …]``, as the Outputs page
    shows it.

    The outputs are checked against everything the ledger records (and, as the library does for a set that
    passes, recorded there), earlier outputs of another version of the data against ``earlier``. Returns the
    verdict (``status``), the report's body and the whole report (HTML).
    """
    from privrisk.io.data import read_table
    from privrisk.outputs import OutputsSettings, run_outputs
    from privrisk.outputs.report import CSS, html_report, report_body
    from privrisk.outputs.spec import read_spec

    specs = read_spec(spec)
    frame = read_table(data)
    check_request_size(specs, frame)
    settings = OutputsSettings(data=frame, spec=spec, policy=policy, ledger=ledger, key=key, earlier_data=earlier)
    result = run_outputs(settings)
    # What the ledger recorded (the library's ``OutputsResult.ledger``: appended, seq), where the library says.
    recorded = getattr(result, "ledger", None)
    return {
        "status": result.status,
        "outputs": len(result.outputs),
        "recorded": {k: recorded.get(k) for k in ("appended", "seq")} if isinstance(recorded, dict) else None,
        "body": f"<style>{CSS}</style>{report_body(result)}",
        "html": html_report(result),
    }


def microdata_report(settings: Any, data: str | None, released: str) -> dict[str, Any]:
    """``privrisk microdata`` as the Microdata page shows it: the run's verdict, reduction, measures and riskiest
    records, with messages naming the page's fields; the released file (after a reduction) written to
    ``released`` (the session's folder). ``data`` None measures the built-in example survey.
    """
    from privrisk.app._labels import label
    from privrisk.io.files import write_csv
    from privrisk.microdata import run_microdata

    if data is None:
        from privrisk.microdata.example import example_survey

        frame: Any = example_survey()
    else:
        frame = Path(data)
    run = run_microdata(dataclasses.replace(settings, data=frame))
    if run.released is not None:
        write_csv(run.released, Path(released))
    top = run.measured.top_records(10)
    return {
        "failures": run.failures(lambda param: label(param, "microdata")),
        "failures_before": len(run.measured.failures()) if run.reduced is not None else None,
        "how": None
        if run.reduced is None
        else ("local suppression" if run.suppression is not None else "global recoding"),
        "reduction": run.reduction,
        "reduced_findings": None if run.reduced is None else list(run.reduced.findings()),
        "findings": list(run.measured.findings()),
        "top": top,
        "released": run.released is not None,
    }
