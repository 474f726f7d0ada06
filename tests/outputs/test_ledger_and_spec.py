"""The outputs ledger (chain, key, lock) and the spec and policy readers."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from privrisk.errors import PrivriskError
from privrisk.outputs import OutputSpec, OutputsSettings, check_frame, parse_spec, read_policy, run_outputs
from privrisk.outputs.ledger import append_outputs, ledger_specs, read_outputs_ledger

FRAME = pd.DataFrame({"region": ["N"] * 15 + ["S"] * 12, "age": list(range(20, 35)) + list(range(40, 52))})
KEY = b"k" * 32


def _passing():
    return check_frame(FRAME, [OutputSpec(name="T1", kind="count", rows=("region",), where="age >= 18")])


def test_append_read_and_reuse(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    entry = append_outputs(path, _passing())
    assert (
        entry is not None and entry["prev"] == "0" * 64 and entry["kind"] == "outputs" and entry["seq"] == 1
    )
    # The same result again: it was not checked against the output now in the ledger, and its name is taken.
    with pytest.raises(PrivriskError, match="not checked against"):
        append_outputs(path, _passing())
    checked = run_outputs(
        OutputsSettings(data=FRAME, spec=(OutputSpec(name="T2", kind="count", rows=("region",)),), ledger=path,
                        append=False)
    )  # fmt: skip
    second = append_outputs(path, checked)
    assert second is not None and second["prev"] == entry["hash"] and second["seq"] == 2
    assert len(read_outputs_ledger(path)) == 2
    assert ledger_specs(path) == (
        OutputSpec(name="T1", kind="count", rows=("region",), where="age >= 18"),
        OutputSpec(name="T2", kind="count", rows=("region",)),
    )


def test_an_edit_is_found_and_a_key_is_needed(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    append_outputs(path, _passing(), key=KEY)
    with pytest.raises(PrivriskError, match="keyed ledger; give its key"):
        read_outputs_ledger(path)
    assert len(read_outputs_ledger(path, key=KEY)) == 1
    doc = json.loads(path.read_text())
    doc["entries"][0]["outputs"][0]["cells"][0]["value"] = 99
    path.write_text(json.dumps(doc))
    with pytest.raises(PrivriskError, match="entry 1's checksum does not match"):
        read_outputs_ledger(path, key=KEY)


def test_a_failing_set_is_not_appended(tmp_path) -> None:
    path = tmp_path / "ledger.json"
    failing = check_frame(FRAME, [OutputSpec(name="T1", kind="count", rows=("age",))])
    assert failing.status == "fail"
    assert append_outputs(path, failing) is None and not path.exists()


def test_spec_fields_and_errors() -> None:
    (o,) = parse_spec('[[output]]\nname = "Q"\nkind = "quantile"\nvariable = "x"\nq = 0.9\nrows = "g"')
    assert o.q == 0.9 and o.rows == ("g",)
    (m,) = parse_spec('[[output]]\nname = "M"\nkind = "logit"\nformula = "y ~ 0 + x + C(s)"')
    assert m.variable == "y" and m.terms == (("x", False), ("s", True))
    for text, match in [
        ('[[output]]\nname = "Q"\nkind = "quantile"\nvariable = "x"', "'q'"),
        ('[[output]]\nname = "A"\nkind = "count"\n[[output]]\nname = "A"\nkind = "count"', "named twice"),
        ('[[output]]\nname = "M"\nkind = "ols"\nformula = "y ~ x * z"', "not supported"),
        ('[[output]]\nname = "S"\nkind = "sum"', "'variable' is needed"),
        ('[[output]]\nname = "S"\nkind = "cube"', "kind 'cube'"),
        ('[[output]]\nkind = "count"', "'name'"),
    ]:
        with pytest.raises(PrivriskError, match=match):
            parse_spec(text)


def test_policy_reader(tmp_path) -> None:
    p = tmp_path / "p.yaml"
    p.write_text("safe_threshold: 5\nsafe_nk_k: 1\n")
    policy = read_policy(p)
    assert policy.safe_threshold == 5 and policy.safe_nk_k == 1.0
    p.write_text("- a\n")
    with pytest.raises(PrivriskError, match="policy"):
        read_policy(p)


def test_notebook_calls_return_the_table_and_its_check() -> None:
    import numpy as np

    from privrisk.outputs import crosstab, logit, ols, pivot_table

    frame = pd.DataFrame({"g": ["a"] * 12 + ["b"] * 12, "h": ["x", "y"] * 12, "v": np.arange(24.0)})
    table, check = crosstab(frame, "g", "h")
    assert table.loc["a", "x"] == 6 and check.status == "fail"  # 6 < 10
    means, check = pivot_table(frame, "g", "v")
    assert means["value"].tolist() == pytest.approx([5.5, 17.5]) and check.outputs[0]["kind"] == "mean"
    coef, check = ols(frame, "v ~ C(g)")
    assert coef["coefficient"].tolist() == pytest.approx([5.5, 12.0]) and check.status == "pass"
    frame["y"] = [0.0, 1.0, 1.0] * 8
    coef, check = logit(frame, "y ~ v")
    assert check.outputs[0]["dof"] == 22
