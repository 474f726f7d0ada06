"""``privrisk app``'s rules live in :class:`privrisk.app.AppSettings` (issue 33): the port's range, the upload
limit, the ledger key; each error names its field."""

from __future__ import annotations

import pytest

from privrisk.app.settings import AppSettings
from privrisk.errors import PrivriskError


@pytest.mark.parametrize("port", [0, 1, 8000, 65535])
def test_every_port_in_range_is_taken(port):
    assert AppSettings(port=port).port == port


@pytest.mark.parametrize("port", [-1, 65536, 70000, True, 80.0])
def test_a_port_out_of_range_names_port(port):
    with pytest.raises(PrivriskError, match=r"^port: must be between 0 and 65535") as caught:
        AppSettings(port=port)
    assert caught.value.param == "port"


def test_the_upload_limit_reads_a_size():
    assert AppSettings(max_upload="2GB").max_upload == 2 * 1000**3
    with pytest.raises(PrivriskError, match=r"^max_upload: ") as caught:
        AppSettings(max_upload="lots")
    assert caught.value.param == "max_upload"


def test_a_missing_key_file_names_key_file(tmp_path):
    with pytest.raises(PrivriskError, match=r"^key_file: ") as caught:
        AppSettings(key_file=tmp_path / "none")
    assert caught.value.param == "key_file"


def test_a_key_file_is_read(tmp_path):
    key = tmp_path / "key"
    key.write_bytes(b"k" * 64)
    assert AppSettings(key_file=key).key is not None
