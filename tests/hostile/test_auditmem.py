"""Issue #12, item 11 (memory): ``privrisk audit --json`` stays bounded in size whatever n is; the per-record
table goes to a file on request (``--records FILE`` or ``records.csv`` in ``--out``) and holds every record.

Not timed: the speed and memory figures at 5 M values are in benchmarks/audit.py.
"""

from __future__ import annotations

import numpy as np
import pandas as pd


def _data(tmp_path, n=100_000):
    rng = np.random.default_rng(0)
    x = np.round(rng.normal(10, 2, n), 2)
    x[-1] = 100.0  # the outlier that sets Δf_n(X): leaving it out moves the mean by (100 − mean(X₋ₙ))/n
    path = tmp_path / "big.csv"
    pd.DataFrame({"v": x}).to_csv(path, index=False)
    return path, x


def test_audit_json_of_100000_values_is_bounded(cli, tmp_path):
    path, x = _data(tmp_path)
    r = cli("audit", path, "-c", "v", "-q", "mean", "-e", "2", "--u", "0.75", "--json")
    assert r.code == 0, r.err
    assert len(r.out.encode()) < 100_000
    doc = r.json
    assert doc["n"] == 100_000 and doc["records_total"] == 100_000 and doc["records_shown"] == 20
    assert len(doc["records"]) == 20
    # By hand: the provider's Δf_n is set by the outlier, the last record, so X* leaves it out.
    rest = x[:-1]
    assert doc["star"] == 100_000
    assert abs(doc["delta_n"] - abs(x.mean() - rest.mean())) < 1e-12
    # The outlier is the riskiest record (the only violation) and is listed.
    assert doc["violations"] == 1 and 100_000 in [row["record"] for row in doc["records"]]
    assert "sentence" in doc and "hypothesis_test" in doc


def test_audit_records_file_has_every_record(cli, tmp_path):
    path, x = _data(tmp_path)
    target = tmp_path / "records.csv"
    r = cli("audit", path, "-c", "v", "-q", "median", "-e", "2", "--u", "0.75", "--records", target)
    assert r.code == 0, r.err
    table = pd.read_csv(target)
    assert len(table) == 100_000 and table["record"].tolist() == list(range(1, 100_001))
    np.testing.assert_array_equal(table["value"].to_numpy(), x)
    # f(X₋ᵢ) of the median by hand for the record holding the largest value: the lower of the two middle values.
    s = np.sort(x)
    assert table["f_without"].iloc[-1] == s[(x.size - 2) // 2]
