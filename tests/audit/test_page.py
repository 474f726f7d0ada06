"""The Shiny-free logic of the app's page Audit, outside the browser: inputs onto AuditSettings, the column choices
after an upload, the tables without e-notation, the run with its progress."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from privrisk.app._shared import Job
from privrisk.app.pages.audit import (
    FIELDS,
    audit_settings,
    id_like,
    intruder_frame,
    numeric_columns,
    provider_frame,
    run_audit_job,
)
from privrisk.errors import PrivriskError

CLAIMS = [9.91, 9.16, 10.59, 11.27, 10.50, 11.89, 10.62, 12.54, 9.29, 8.92, 13.37, 8.55, 11.18, 9.45, 12.65,
          9.49, 11.24, 8.69, 9.97, 10.64, 7.09, 10.68, 9.96, 9.69, 9.33, 10.08, 10.38, 12.32, 9.92, 100.00]  # fmt: skip
PAGE = {"column": "claims", "query": "mean", "epsilon": "2", "u": "0.75", "universe": "0,100", "response": "",
        "event": "tail", "alpha": "0.0001", "seed": "", "sweep_record": "", "sweep_values": "", "missing": "",
        "top": 20}  # fmt: skip


def test_the_pages_inputs_are_the_settings_fields():
    s = audit_settings(PAGE, "claims.csv")
    assert (s.column, s.epsilon, s.u, s.universe, s.top) == ("claims", 2.0, 0.75, (0.0, 100.0), 20)
    assert set(FIELDS) - {"file"} == set(PAGE)


@pytest.mark.parametrize(
    ("change", "field"),
    [({"epsilon": "0"}, "epsilon"), ({"u": "1.5"}, "u"), ({"universe": "100,0"}, "universe"),
     ({"sweep_values": "14"}, "sweep_record"), ({"column": ""}, "column"), ({"response": "14"}, "u")],
)  # fmt: skip
def test_an_error_names_the_input_it_belongs_to(change, field):
    with pytest.raises(PrivriskError) as caught:
        audit_settings({**PAGE, **change}, "claims.csv")
    assert caught.value.param == field and field in FIELDS


def test_no_upload_is_an_error_of_the_file_input():
    with pytest.raises(PrivriskError) as caught:
        audit_settings(PAGE, None)
    assert caught.value.param == "data"  # shown below the file input, the form's first


def test_the_columns_offered_after_an_upload_are_numeric_and_not_ids():
    frame = pd.DataFrame(
        {
            "id": range(1, 31),
            "person": range(101, 131),  # a consecutive run of whole numbers: an id whatever its name
            "name": [f"n{i}" for i in range(30)],
            "licence_no": np.arange(30) * 7,
            "insured": [True, False] * 15,
            "claims": CLAIMS,
            "year": [2020] * 30,
        }
    )
    assert numeric_columns(frame) == ["claims", "year"]
    assert id_like("License #", frame["claims"]) and not id_like("claims", frame["claims"])


def test_the_tables_never_show_e_notation():
    from privrisk.audit import AuditSettings, run_audit

    res = run_audit(AuditSettings(data=CLAIMS, epsilon=2, u=0.75, universe=(0, 100))).result
    text = provider_frame(res).to_string() + intruder_frame(res).to_string()
    assert not re.search(r"\d[eE][+-]?\d", text)
    # Record 30's p3 is about 10⁻²¹ (Table 2: p1/p3 > 99,999,999): written as a power of ten.
    assert "× 10⁻" in intruder_frame(res).set_index("missing").loc["30", "p3"]


def test_the_job_writes_the_commands_folder_and_the_bar_only_moves_forward(tmp_path):
    job = Job()
    seen = []
    advance = job.advance

    def watch(fraction, text=None):
        seen.append(fraction)
        advance(fraction, text)

    job.advance = watch  # type: ignore[method-assign]
    run = run_audit_job(job, audit_settings(PAGE, _claims_file(tmp_path)), "claims.csv", tmp_path / "out")
    assert run.violations == 1 and (tmp_path / "out" / "manifest.json").is_file()
    assert seen == sorted(seen) and seen[-1] == 1.0 and len(seen) >= 7  # read, audit, 4 figures, done


def _claims_file(tmp_path):
    path = tmp_path / "claims.csv"
    path.write_text("id,claims\n" + "".join(f"{i},{v}\n" for i, v in enumerate(CLAIMS, 1)))
    return path
