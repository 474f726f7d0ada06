"""``privrisk outputs`` with cell-key-perturbed count tables: the terminal and the JSON say which outputs were
perturbed and with which table; bad inputs are one-line errors with exit 2."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from helpers import one_line_error

ROOT = Path(__file__).resolve().parents[2]
PTABLE = ROOT / "examples" / "census" / "ptable_D2_V1.csv"
DATA = "region,sex,key\n" + "".join(
    f"{r},{s},{(7 * k + 3) % 100 / 100}\n" for k, (r, s) in enumerate([("N", "f")] * 12 + [("S", "m")] * 15)
)


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    data = tmp_path / "d.csv"
    data.write_text(DATA)
    shutil.copy(PTABLE, tmp_path / "ptable.csv")
    return tmp_path, data


def _spec(folder: Path, text: str) -> Path:
    spec = folder / "spec.toml"
    spec.write_text(text)
    return spec


def test_the_terminal_and_the_json_name_the_perturbed_outputs_and_their_table(cli, files) -> None:
    tmp, data = files
    spec = _spec(tmp, '[cell_key]\nrecord_key = "key"\n\n[[output]]\nname = "T1"\nrows = ["region"]\n'
                      'perturbation = "ptable.csv"\n\n[[output]]\nname = "T2"\nrows = ["sex"]\n')  # fmt: skip
    r = cli("outputs", data, "--spec", spec)
    assert r.code == 0, r.err
    assert "Perturbed: T1 with ptable.csv (noise at most ±2, zeros kept; record keys: key)" in r.out
    doc = json.loads(cli("outputs", data, "--spec", spec, "--json").out)
    assert doc["summary"]["outputs_perturbed"] == ["T1"]
    t1, t2 = doc["outputs"]
    assert t1["perturbation"] == {"table": "ptable.csv", "name": "ptable ptable.csv", "max_noise": 2,
                                  "zeros_unperturbed": True, "record_key": "key"}  # fmt: skip
    assert "perturbation" not in t2
    for cell in t1["cells"]:
        lo, hi = cell["consistent"]
        assert abs(cell["value"] - cell["true_value"]) <= 2 and lo <= cell["true_value"] <= hi


@pytest.mark.parametrize(
    ("output", "cell_key", "fragments"),
    [
        ('perturbation = "missing.csv"', "", ["--spec", "'T1'", "'perturbation'", "no such file"]),
        ('kind = "sum"\nvariable = "key"\nperturbation = "ptable.csv"', "",
         ["--spec", "'T1'", "'perturbation'", "for count tables", "kind sum"]),
        ('weights = "key"\nperturbation = "ptable.csv"', "", ["--spec", "'T1'", "weighted count"]),
        ('perturbation = 3', "", ["--spec", "'T1'", "'perturbation'", "path"]),
        ('perturbation = "spec.toml"', "", ["--spec", "'T1'", "'perturbation'"]),
        ('perturbation = "ptable.csv"', '[cell_key]\nrecord_key = "nope"\n', ["--spec", "record_key", "'nope'"]),
        ('perturbation = "ptable.csv"', '[cell_key]\nrecord_key = "region"\n',
         ["--spec", "record key", "'region'", "[0, 1)"]),
        ('perturbation = "ptable.csv"', '[cell_key]\nseed = 3\n', ["--spec", "[cell_key]", "'seed'"]),
    ],
)  # fmt: skip
def test_bad_inputs_are_one_line_errors(cli, files, output, cell_key, fragments) -> None:
    tmp, data = files
    spec = _spec(tmp, f'{cell_key}\n[[output]]\nname = "T1"\nrows = ["region"]\n{output}\n')
    one_line_error(cli("outputs", data, "--spec", spec), *fragments)


def test_a_perturbed_output_is_not_appended_to_a_ledger(cli, files) -> None:
    tmp, data = files
    spec = _spec(tmp, '[[output]]\nname = "T1"\nrows = ["region"]\nperturbation = "ptable.csv"\n')
    ledger = tmp / "ledger.json"
    one_line_error(
        cli("outputs", data, "--spec", spec, "--ledger", ledger), "--ledger", "'T1'", "without appending"
    )
    assert not ledger.exists()
    r = cli("outputs", data, "--spec", spec, "--ledger", ledger, "--no-append")
    assert r.code == 0, r.err
