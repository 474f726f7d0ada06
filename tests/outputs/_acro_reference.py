"""Run ACRO (from PyPI) on data sets and print, per table, the cells each of its checks flags, as JSON.

Run by the ACRO comparison test with an interpreter that has ``acro`` installed (ACRO pins pandas ≤ 2.3.3, so it
may live in a virtual environment of its own): ``python _acro_reference.py requests.json``. Each request names a
CSV file, the table (count, mean or sum; ``rows``; optional ``columns``; ``variable``) and gets back, per ACRO
check, the labels (row, column) of the cells it flags.
"""

from __future__ import annotations

import json
import logging
import sys

CHECKS = ("MinimumThresholdCheck", "NKCheck", "PPercentCheck", "PresenceOfZeroCheck")


def main() -> None:
    # Imported here: the test collector imports this file in an interpreter without ACRO.
    import acro
    import pandas as pd

    logging.disable(logging.CRITICAL)
    requests = json.loads(open(sys.argv[1], encoding="utf-8").read())
    answers = []
    session = acro.ACRO(suppress=False)
    for req in requests:
        df = pd.read_csv(req["csv"], dtype={c: str for c in [req["rows"], req.get("columns")] if c})
        index = df[req["rows"]]
        if req.get("columns"):
            kwargs = {}
            if req["kind"] != "count":
                kwargs = {"values": df[req["variable"]], "aggfunc": req["kind"]}
            session.crosstab(index, df[req["columns"]], **kwargs)
        else:
            session.pivot_table(df, index=[req["rows"]], values=[req["variable"]], aggfunc=[req["kind"]])
        key = list(session.results.results)[-1]
        record = session.results.results[key]
        table = record.output[0]
        flagged = {}
        for check in CHECKS:
            cells = record.sdc["cells"].get(check, [])
            labels = []
            for r, c in cells:
                col = str(table.columns[c]) if req.get("columns") else None
                labels.append([str(table.index[r]), col])
            flagged[check] = sorted(labels, key=str)
        answers.append({"status": record.status, "flagged": flagged})
    sys.stdout.write(json.dumps(answers))


if __name__ == "__main__":
    main()
