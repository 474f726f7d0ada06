"""One upload per session: a file uploaded on one page is offered on every page that takes data, with sensible
columns and the example's settings cleared; the server keeps its own copy in the session's private folder."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from playwright.sync_api import expect

from browser_helpers import RUN_MS

# A period (text), an identifier (named like one), a text column and one measured quantity: the only column a
# query may run on is income.
TABLE = "month,shop_id,region,income\n" + "".join(
    f"2024-{m:02d},{s},{'north' if s % 2 else 'south'},{1000 + 37 * s + m}.5\n" for m in (1, 2, 3) for s in range(8)
)


class _UploadManager:
    """Shiny's FileUploadManager as far as the app reads it: the session's own upload folder."""

    def __init__(self) -> None:
        self._basedir = tempfile.mkdtemp(prefix="fileupload-")


class _Session:
    """What :func:`privrisk.app._shared.session_folder` needs of a Shiny session, with its own upload folder."""

    def __init__(self) -> None:
        self.ended: list = []
        self._file_upload_manager = _UploadManager()

    def on_ended(self, callback) -> None:
        self.ended.append(callback)


def _shiny_upload(session: _Session, name: str, text: str) -> list[dict[str, str]]:
    """What Shiny's file input gives the server: its own numbered file in a job's folder of the session's upload
    folder."""
    where = Path(tempfile.mkdtemp(dir=session._file_upload_manager._basedir))
    (where / "0.csv").write_text(text)
    return [{"name": name, "datapath": str(where / "0.csv")}]


def test_the_session_keeps_a_checked_copy_every_page_reads(tmp_path, monkeypatch):
    from shiny import reactive

    from privrisk.app._shared import numeric_columns, session_upload
    from privrisk.errors import PrivriskError

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # Shiny's uploads and the session folder in tmp_path
    session = _Session()
    uploads = session_upload(session, max_bytes=10_000)
    assert session_upload(session, max_bytes=10_000) is uploads  # one per session, whichever page asks
    with reactive.isolate():
        assert uploads.current() is None
        with pytest.raises(PrivriskError, match="no file uploaded yet") as caught:
            uploads.checked(param="dataset")
        assert caught.value.param == "dataset"
        info = _shiny_upload(session, "shops.csv", TABLE)
        kept = uploads.keep(info)
        Path(info[0]["datapath"]).unlink()  # Shiny's copy may go: the session's copy stays
        assert uploads.current() == kept and kept.label == "Use shops.csv (uploaded)"
        assert kept.path.read_text() == TABLE and kept.path.parent.parent.parent.name.startswith("privrisk-app-")
        assert uploads.columns() == ["month", "shop_id", "region", "income"]
        assert numeric_columns(uploads.read()) == ["income"]
        # The upload limit holds for the session's upload as for a page's own.
        with pytest.raises(PrivriskError, match="above the upload limit"):
            uploads.keep(_shiny_upload(session, "big.csv", "x\n" + "1\n" * 6000))
        assert uploads.current() == kept
        # A path the user made up is refused: only Shiny's own files are kept.
        with pytest.raises(PrivriskError, match="not an upload of this session"):
            uploads.keep([{"name": "x.csv", "datapath": str(kept.path)}])
        # So is another session's upload (issue 30: its path sent as this session's file input's value).
        other = _Session()
        theirs = _shiny_upload(other, "theirs.csv", TABLE)
        with pytest.raises(PrivriskError, match=r"theirs\.csv: not an upload of this session"):
            uploads.keep(theirs)
        assert session_upload(other, max_bytes=10_000).keep(theirs).name == "theirs.csv"
    for callback in session.ended:
        callback()
    assert not kept.path.exists()


def test_a_gzip_bomb_and_a_parquet_of_too_many_cells_are_refused_before_they_are_read(tmp_path, monkeypatch):
    import gzip

    import pandas as pd
    from shiny import reactive

    from privrisk.app._shared import session_upload
    from privrisk.errors import PrivriskError

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    session = _Session()
    uploads = session_upload(session, max_bytes=10_000)
    with reactive.isolate():
        # 1 kB of gzip that is 1 MB of CSV: above the limit once decompressed, though small on the wire.
        info = _shiny_upload(session, "bomb.csv.gz", "")
        Path(info[0]["datapath"]).write_bytes(gzip.compress(b"x\n" + b"1\n" * 500_000))
        assert Path(info[0]["datapath"]).stat().st_size < 10_000
        with pytest.raises(PrivriskError, match=r"bomb\.csv\.gz: its contents are above the upload limit of 10 kB"):
            uploads.keep(info)
        # The same within the limit is kept and read.
        Path(info[0]["datapath"]).write_bytes(gzip.compress(b"x\n" + b"1\n" * 100))
        uploads.keep(info)
        assert len(uploads.read()) == 100
        # A Parquet file of 20,000 cells of one value: a few hundred bytes, 40 kB as its smallest CSV.
        parquet = _shiny_upload(session, "many.parquet", "")
        pd.DataFrame({"a": [0] * 10_000, "b": [0] * 10_000}).to_parquet(parquet[0]["datapath"])
        assert Path(parquet[0]["datapath"]).stat().st_size < 10_000
        with pytest.raises(PrivriskError, match=r"many\.parquet: its contents are above the upload limit"):
            uploads.keep(parquet)


def test_the_columns_are_found_once_per_upload_and_again_for_the_next(tmp_path, monkeypatch):
    import pandas as pd
    from shiny import reactive

    import privrisk.io.data
    from privrisk.app._shared import session_upload
    from privrisk.errors import PrivriskError

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    reads: list[Path] = []
    read_table = privrisk.io.data.read_table

    def counted(path, columns=None):
        reads.append(Path(path))
        return read_table(path, columns)

    monkeypatch.setattr(privrisk.io.data, "read_table", counted)
    session = _Session()
    uploads = session_upload(session, max_bytes=1_000_000)
    with reactive.isolate():
        with pytest.raises(PrivriskError, match="no file uploaded yet"):
            uploads.profile()
        first = uploads.keep(_shiny_upload(session, "shops.csv", TABLE))
        # Every page asks (audit, empirical, release, study, sensitivity): the rows are read once.
        for _ in range(5):
            profile = uploads.profile()
        assert reads == [first.path]
        # By hand: month is text, shop_id 0..7 repeats (named like an id), region text, income the one measure.
        assert profile.names == ("month", "shop_id", "region", "income")
        assert profile.numeric == ("income",) and profile.ids == ("shop_id",)
        text = str(pd.Series(["north"]).dtype)  # object before pandas 3, str from it
        assert profile.dtypes == {"month": text, "shop_id": "int64", "region": text, "income": "float64"}
        # The next upload is read (once) in its turn; its header too.
        second = uploads.keep(_shiny_upload(session, "visits.csv", "visit,minutes\n1,5\n2,7\n3,9\n"))
        assert uploads.profile().names == ("visit", "minutes") and uploads.columns() == ["visit", "minutes"]
        uploads.profile()
        assert reads == [first.path, second.path]
        # A file whose rows do not read: its header still names the columns; the error comes again unread.
        # (Its last line has four fields, after the rows DuckDB samples to learn the columns.)
        bad = uploads.keep(_shiny_upload(session, "bad.csv", "a,b\n" + "1,2\n" * 30_000 + "1,2,3,4\n"))
        assert uploads.columns() == ["a", "b"]
        for _ in range(2):
            with pytest.raises(PrivriskError, match=r"bad\.csv") as caught:
                uploads.profile()
            assert str(bad.path) not in str(caught.value)  # the user's file is named, never the server's copy
        assert reads == [first.path, second.path, bad.path]


def test_keep_upload_keeps_each_upload_and_shows_a_refused_ones_error(tmp_path, monkeypatch):
    import asyncio

    from shiny import reactive

    from privrisk.app._shared import keep_upload, session_upload

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    session = _Session()
    uploads = session_upload(session, max_bytes=10_000)
    file: reactive.Value = reactive.value(None)
    message: reactive.Value = reactive.value(None)
    keep_upload("file", {"file": file}, uploads, message, lambda exc: f"File: {exc}")

    def upload(info) -> None:
        file.set(info)
        asyncio.run(reactive.flush())  # what Shiny does after each message from the browser

    asyncio.run(reactive.flush())
    with reactive.isolate():
        assert uploads.current() is None and message() is None  # nothing uploaded: nothing kept, nothing said
    upload(_shiny_upload(session, "big.csv", "x\n" + "1\n" * 6000))
    with reactive.isolate():
        assert uploads.current() is None
        assert message().startswith("File: big.csv: the file is 12 kB, above the upload limit of 10 kB")
    upload(_shiny_upload(session, "shops.csv", TABLE))
    with reactive.isolate():
        assert message() is None  # a good file clears the last one's error
        assert uploads.current().name == "shops.csv" and uploads.current().path.read_text() == TABLE
    # Without a text, the message is the error itself (a page that places it by its parameter).
    errors: reactive.Value = reactive.value(None)
    other: reactive.Value = reactive.value(None)
    keep_upload("other", {"other": other}, uploads, errors)
    other.set([{"name": "x.csv", "datapath": str(tmp_path / "made-up.csv")}])
    asyncio.run(reactive.flush())
    with reactive.isolate():
        assert "upload is no longer there" in str(errors()) and uploads.current().name == "shops.csv"


def test_every_page_that_asked_is_offered_each_new_upload_once(tmp_path, monkeypatch):
    import asyncio

    from shiny import reactive

    from privrisk.app._shared import session_upload

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    session = _Session()
    uploads = session_upload(session, max_bytes=10_000)
    offered: list[tuple[str, str]] = []
    for page in ("audit", "presence"):

        @uploads.on_new
        def _offer(kept, page=page) -> None:
            offered.append((page, kept.name))

    asyncio.run(reactive.flush())
    assert offered == []  # no upload yet: nothing offered
    with reactive.isolate():
        uploads.keep(_shiny_upload(session, "shops.csv", TABLE))
    asyncio.run(reactive.flush())
    assert offered == [("audit", "shops.csv"), ("presence", "shops.csv")]
    with reactive.isolate():
        uploads.keep(_shiny_upload(session, "visits.csv", "visit,minutes\n1,5\n"))
    asyncio.run(reactive.flush())
    asyncio.run(reactive.flush())  # nothing new: nothing offered again
    assert offered[2:] == [("audit", "visits.csv"), ("presence", "visits.csv")]


@pytest.mark.browser
def test_a_file_uploaded_on_audit_is_used_on_presence_and_empirical(page, goto, upload, tmp_path):
    data = tmp_path / "shops.csv"
    data.write_text(TABLE)
    goto(page, "page=audit&source=file")
    upload(page, "audit-file", data)
    expect(page.locator("#audit-command-line")).to_contain_text("privrisk audit shops.csv --column income")
    expect(page.locator("#audit-universe")).to_have_value("")
    expect(page.locator("#audit-source")).to_contain_text("Use shops.csv (uploaded)")

    page.locator(".nav-link[data-value='presence']").click()
    source = page.locator("#presence-source input[value='file']")
    expect(source).to_be_checked()
    expect(page.locator("#presence-source")).to_contain_text("Use shops.csv (uploaded) as T")
    expect(page.locator("#presence-command-line")).to_contain_text("shops.csv")
    # The example's quasi-identifiers and hierarchies are gone; the file's columns are offered.
    qi = page.locator("#presence-qi")
    assert qi.evaluate("s => Array.from(s.selectedOptions).map(o => o.value)") == []
    page.locator("#presence-qi + .selectize-control .selectize-input").click()
    options = page.locator("#presence-qi + .selectize-control .selectize-dropdown .option")
    expect(options).to_have_text(["month", "shop_id", "region", "income"])
    page.keyboard.press("Escape")

    page.locator(".nav-link[data-value='empirical']").click()
    expect(page.locator("#empirical-source input[value='file']")).to_be_checked()
    expect(page.locator("#empirical-source")).to_contain_text("Use shops.csv (uploaded)")
    for name, chosen in (("period", "month"), ("individual", "shop_id"), ("value", "income")):
        expect(page.locator(f"#empirical-{name}")).to_have_value(chosen)
    expect(page.locator("#empirical-preset")).to_have_value("")
    # No second upload: the page's own file input is still empty, and the run reads the session's file.
    assert page.locator("#empirical-file").evaluate("f => f.files.length") == 0
    page.locator("#empirical-run").click()
    expect(page.locator("#empirical-status .privrisk-error, #empirical-verdict").first).to_be_visible(timeout=RUN_MS)
    expect(page.locator("#empirical-status")).not_to_contain_text("no file uploaded")
    # Nothing shows the server's copy.
    assert "privrisk-app-" not in page.content()


@pytest.mark.browser
def test_a_file_uploaded_on_audit_is_offered_on_release_study_and_sensitivity(page, goto, upload, tmp_path):
    data = tmp_path / "shops.csv"
    data.write_text(TABLE)
    goto(page, "page=audit&source=file")
    upload(page, "audit-file", data)
    expect(page.locator("#audit-source")).to_contain_text("Use shops.csv (uploaded)")

    # Release: the file is the data (no example chosen), the builder's first query runs on the one numeric non-id
    # column, and no example's ε or bounds are left in it.
    page.locator(".nav-link[data-value='release']").click()
    expect(page.locator("#release-example")).to_have_value("")
    expect(page.locator("#release-example option[value='']")).to_have_text("Use shops.csv (uploaded)")
    expect(page.locator("#release-q1_column")).to_have_value("income")
    expect(page.locator("#release-q2_column")).to_have_value("")
    expect(page.locator("#release-q1_lower")).to_have_value("")
    expect(page.locator("#release-command-line")).to_contain_text("privrisk release shops.csv --column income")

    page.locator(".nav-link[data-value='study']").click()
    expect(page.locator("#study-source input[value='file']")).to_be_checked()
    expect(page.locator("#study-source")).to_contain_text("Use shops.csv (uploaded)")
    expect(page.locator("#study-command-line")).to_contain_text("privrisk study shops.csv --column income")
    assert page.locator("#study-column").evaluate("s => Array.from(s.selectedOptions).map(o => o.value)") == [
        "income"
    ]

    page.locator(".nav-link[data-value='sensitivity']").click()
    expect(page.locator("#sensitivity-example")).to_have_value("")
    expect(page.locator("#sensitivity-example option[value='']")).to_have_text("Use shops.csv (uploaded)")
    expect(page.locator("#sensitivity-column")).to_have_value("income")
    expect(page.locator("#sensitivity-command-line")).to_contain_text("privrisk sensitivity shops.csv --column income")
    # No second upload: the page's own file input is empty, and its numbers come from the session's file.
    assert page.locator("#sensitivity-file").evaluate("f => f.files.length") == 0
    expect(page.locator(".privrisk-error:visible")).to_have_count(0)
    # 3 months × 8 shops = 24 incomes, read from the session's copy of the file.
    expect(page.locator("#sensitivity-data-summary")).to_contain_text("24 of 24 values of 'income' used")

    # Outputs shares the data file only (its outputs.toml stays its own upload).
    page.locator(".nav-link[data-value='outputs']").click()
    expect(page.locator("#outputs-data-name")).to_have_text("Data: shops.csv (uploaded)")

    # A page's own upload becomes the session's: a file uploaded on Sensitivity replaces it on Release.
    other = tmp_path / "visits.csv"
    other.write_text("visit_id,minutes\n" + "".join(f"{i},{(7 * i) % 50}\n" for i in range(1, 21)))
    page.locator(".nav-link[data-value='sensitivity']").click()
    upload(page, "sensitivity-file", other)
    expect(page.locator("#sensitivity-column")).to_have_value("minutes")
    page.locator(".nav-link[data-value='release']").click()
    expect(page.locator("#release-example option[value='']")).to_have_text("Use visits.csv (uploaded)")
    expect(page.locator("#release-q1_column")).to_have_value("minutes")
    assert "privrisk-app-" not in page.content()
