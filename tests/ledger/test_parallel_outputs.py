"""Issue 30: eight parallel ``privrisk outputs … --ledger L`` processes, four releasing a region × sex table for
``age >= 18`` and four the same for ``age >= 19`` (159 people, one 18-year-old woman in West). On main all eight
passed and were appended, and the ledger held both tables, which together show that woman. Now the check and the
append are under one lock: exactly one of the two tables may pass, the ledger never holds both, and every
refusal is one line."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PEOPLE = Path(__file__).parents[2] / "examples" / "outputs" / "people.csv"
SPEC = """[[output]]
name = "{name}"
kind = "count"
rows = ["region"]
columns = ["sex"]
where = "age >= {age}"
"""


@pytest.mark.slow
def test_eight_parallel_requests_are_checked_against_each_other(tmp_path):
    led = tmp_path / "ledger.json"
    specs, where = [], {}
    for age in (18, 19):
        spec = tmp_path / f"age{age}.toml"
        spec.write_text(SPEC.format(name=f"Aged {age} and over", age=age))
        specs += [spec] * 4
        where[spec] = f"age >= {age}"
    command = [
        sys.executable,
        "-m",
        "privrisk",
        "outputs",
        str(PEOPLE),
        "--ledger",
        str(led),
        "--json",
        "--spec",
    ]
    procs = [
        subprocess.Popen([*command, str(spec)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for spec in specs
    ]
    results = [(p.wait(600), *p.communicate()) for p in procs]
    assert all("Traceback" not in err for _, _, err in results), results
    passed = [spec for spec, (code, _, _) in zip(specs, results, strict=True) if code == 0]
    # The first to take the lock passes; the other three of its table find its name taken (exit 2), and the four of
    # the other table find the disclosure with it (exit 1) or, had they come later, the name as well.
    assert len(passed) == 1, results
    assert all(code in (1, 2) for code, _, _ in results if code != 0)
    for code, _, err in results:
        if code == 2:
            assert len(err.strip().splitlines()) == 1 and "a name is kept for the ledger's life" in err
        if code == 1:
            assert re.search(r"disclosures? by differencing", err), err
    doc = json.loads(led.read_text())
    [entry] = doc["entries"]
    assert [o["spec"]["where"] for o in entry["outputs"]] == [where[passed[0]]]
    assert not (tmp_path / "ledger.json.lock").exists()
