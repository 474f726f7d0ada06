"""The combined report: manifests in, one self-contained page out; SVG sanitising (the command: tests/cli)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

import pytest

from explain_fixtures import HOSTILE_SVG, make_results, matplotlib_svg
from privrisk import PrivriskError, report_page
from privrisk.reports.html import html_page, sanitise_svg
from privrisk.reports.manifest import write_manifest

# --- sanitising ----------------------------------------------------------------------------------------------


def test_hostile_svg_loses_scripts_handlers_and_outside_references():
    out = sanitise_svg(HOSTILE_SVG.encode("latin-1"), prefix="x-")
    root = ET.fromstring(out)  # still well-formed XML, one <svg> root
    assert root.tag.endswith("svg")
    lowered = out.lower()
    for banned in (
        "<script",
        "foreignobject",
        "onload",
        "onclick",
        "example.com",
        "@import",
        "<!doctype",
        "<?xml",
    ):
        assert banned not in lowered, banned
    assert 'id="x-grad"' in out and "url(#x-grad)" in out and 'href="#x-bar"' in out
    assert "Risiko für alle" in out  # the Latin-1 declared encoding was honoured


def test_animation_that_rewrites_links_is_dropped():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg"><a href="#x"><set attributeName="href" to="javascript:alert(1)"/>'
        '<circle r="5"><animate attributeName="r" values="5;6" dur="1s"/></circle></a></svg>'
    )
    out = sanitise_svg(svg)
    assert "javascript" not in out and "<set" not in out and "<animate" in out


def test_two_matplotlib_figures_get_distinct_ids(tmp_path):
    a, b = tmp_path / "a.svg", tmp_path / "b.svg"
    matplotlib_svg(a, "one")
    matplotlib_svg(b, "one")
    sa = sanitise_svg(a.read_bytes(), prefix="f1-")
    sb = sanitise_svg(b.read_bytes(), prefix="f2-")
    ids_a = set(re.findall(r'\bid="([^"]+)"', sa))
    ids_b = set(re.findall(r'\bid="([^"]+)"', sb))
    assert ids_a and not ids_a & ids_b
    # Every internal reference points at an id of the same figure.
    for svg, ids in ((sa, ids_a), (sb, ids_b)):
        refs = set(re.findall(r'href="#([^"]+)"', svg)) | set(re.findall(r"url\(#([^)]+)\)", svg))
        assert refs <= ids


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("<svg", "well-formed"),
        ("<html xmlns='http://www.w3.org/1999/xhtml'/>", "root element is <html>"),
        ("", "well-formed"),
    ],
)
def test_not_an_svg_is_an_error(text, fragment):
    with pytest.raises(PrivriskError, match=fragment):
        sanitise_svg(text)


def test_html_page_forbids_fetches():
    page = html_page(title="t", body="<p>x</p>", lang="de")
    assert "default-src 'none'" in page and '<html lang="de">' in page and "script-src 'none'" in page
    assert "script-src 'unsafe-inline'" in html_page(title="t", body="", script="1;")


# --- the page ------------------------------------------------------------------------------------------------


def test_report_gathers_every_folder(tmp_path):
    folders = make_results(tmp_path)
    page, info = report_page(folders, title="All results")
    assert [s["kind"] for s in info["sections"]] == ["study", "release", "presence"]
    assert info["problems"] == 1  # the missing figure, noted in the page
    toc = re.search(r'<nav class="toc".*?</nav>', page, flags=re.S).group(0)
    assert (
        toc.count("<li>") == 4
        and "#glossary" in toc
        and 'href="#s1-study"' in toc
        and 'href="#s3-presence"' in toc
    )
    assert page.count("<svg") == 3 and page.count("data:image/png;base64,") == 1
    assert "Figure “Lost figure” left out" in page
    # The long table is cut at 200 rows and says so; the short one is whole, with its semicolons understood.
    assert "Showing the first 200 of 500 rows" in page
    study = page.split('id="s1-study"')[1].split("</section>")[0]
    # header, rows, two summary and two parameter rows, each key-value table with its heading row
    assert study.count("<tr>") == 1 + 200 + (1 + 2) + (1 + 2)
    assert "<td>7,9</td>" in page and "2 rows, from <code>answers.csv</code>" in page
    # Text from manifests is escaped, never markup.
    assert "Medians are the riskiest &lt;b&gt;query&lt;/b&gt;." in page
    assert "<script" not in page.lower()
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg", "http://www.w3.org/1999/xlink"}, urls


def test_report_max_rows(tmp_path):
    folders = make_results(tmp_path, rows=30)
    page, _ = report_page(folders[:1], max_rows=10)
    assert "Showing the first 10 of 30 rows" in page
    page, _ = report_page(folders[:1])
    assert "30 rows, from" in page


def test_report_refuses_paths_that_leave_the_folder(tmp_path):
    folder = tmp_path / "evil"
    folder.mkdir()
    (tmp_path / "secret.csv").write_text("a\n1\n")
    write_manifest(folder, kind="audit", title="Audit", tables=[{"title": "t", "path": "../secret.csv"}])
    with pytest.raises(PrivriskError, match="leaves the folder"):
        report_page([folder])
    write_manifest(folder, kind="audit", title="Audit", figures=[{"title": "f", "svg": "/etc/hostname"}])
    with pytest.raises(PrivriskError, match="leaves the folder"):
        report_page([folder])


def test_report_of_a_bare_manifest(tmp_path):
    write_manifest(tmp_path, kind="empirical", title="Empirical DP")
    page, info = report_page([tmp_path])
    assert "Empirical DP" in page and info == {
        "sections": [
            {"kind": "empirical", "title": "Empirical DP", "folder": str(tmp_path), "figures": 0, "tables": 0}
        ],
        "problems": 0,
    }


def test_report_refuses_malformed_lists(tmp_path):
    document = {
        "schema_version": 1,
        "kind": "audit",
        "title": "Audit",
        "findings": "One finding as a string.",
    }
    (tmp_path / "manifest.json").write_text(json.dumps(document))
    page, _ = report_page([tmp_path])
    assert "<li>One finding as a string.</li>" in page
    write_manifest(tmp_path, kind="audit", title="Audit", figures=["plot.svg"])
    with pytest.raises(PrivriskError, match="figures must be a list of dict"):
        report_page([tmp_path])
