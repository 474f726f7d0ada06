"""Self-contained HTML pages: the shared skeleton and style, inline SVG, and the combined report.

Every page privrisk writes is one HTML file that a browser can open offline: the style and any script are inline,
figures are inline SVG (or PNG as ``data:`` URIs), and nothing is fetched from anywhere. SVG files made by other
tools are sanitised before they are inlined: scripts, event handlers, ``foreignObject`` and references to
anything outside the figure itself are removed, and ids are prefixed so that several figures on one page do not
collide.

:func:`report_page` gathers the ``manifest.json`` files that commands write into their output folders (see
:mod:`privrisk.reports.manifest`) into one page with a table of contents, the findings, the figures and the tables.
"""

from __future__ import annotations

import base64
import csv
import html
import json
import os
import re
import xml.etree.ElementTree as ET
from importlib import resources
from pathlib import Path
from typing import Any

from privrisk._format import VOCABULARY, count, is_probability_key, label, percent_3g, plain, readable
from privrisk._format import number as _number
from privrisk._validation import check_whole
from privrisk.errors import PrivriskError, deprecated_alias
from privrisk.reports.manifest import read_manifest

__all__ = [
    "BASE_CSS",
    "GLOSSARY",
    "MAX_ROWS",
    "asset_text",
    "glossary_link",
    "glossary_section",
    "html_page",
    "inline_svg",
    "json_script",
    "report_page",
    "sanitise_svg",
    "text_html",
]

#: Rows of a CSV table shown in a report before it is cut (the rest is counted and said).
MAX_ROWS = 200

_SVG_NS = "http://www.w3.org/2000/svg"
_XLINK_NS = "http://www.w3.org/1999/xlink"
_DROP_TAGS = {
    "script",
    "foreignObject",
    "metadata",
    "iframe",
    "object",
    "embed",
    "audio",
    "video",
    "handler",
    "listener",
}
_URL = re.compile(r"url\(\s*(['\"]?)(.*?)\1\s*\)", re.IGNORECASE)


def asset_text(name: str) -> str:
    """The text of a package data file of the pages (``privrisk/reports/assets``), read with importlib.resources.

    Example:
        >>> asset_text("base.css").startswith(":root")
        True
    """
    return resources.files("privrisk.reports.assets").joinpath(name).read_text(encoding="utf-8")


#: The style every page shares. Colours chosen for contrast: text on white ≥ 7:1, graphics ≥ 3:1 (WCAG 2.1).
BASE_CSS = asset_text("base.css")


def html_page(
    *, title: str, body: str, lang: str = "en", css: str = "", script: str = "", wide: bool = False
) -> str:
    """A complete, self-contained HTML document: the shared style plus the page's own CSS and script.

    Args:
        title: the document title (plain text; it is escaped).
        body: the HTML inside ``<main>`` (already escaped by the caller).
        lang: the page language (``en``, ``de``), for screen readers and hyphenation.
        css: extra CSS for this page.
        script: inline JavaScript run at the end of the body.
        wide: a wider column, for reports with tables.

    Example:
        >>> page = html_page(title="A & B", body="<p>hi</p>")
        >>> page.startswith("<!DOCTYPE html>") and "<title>A &amp; B</title>" in page
        True
    """
    style = "\n".join(part.strip() for part in (BASE_CSS, css) if part.strip())
    script_tag = f"<script>\n{script.strip()}\n</script>\n" if script.strip() else ""
    scripts = "'unsafe-inline'" if script_tag else "'none'"
    main_class = ' class="wide"' if wide else ""
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{html.escape(lang)}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        # Forbid every fetch: the page must work offline and must not tell anyone it was opened. A page without
        # its own script runs none at all, whatever an inlined figure might still hold.
        '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
        f"style-src 'unsafe-inline'; script-src {scripts}; img-src data:; font-src 'none'\">\n"
        f"<title>{html.escape(title)}</title>\n<style>\n{style}\n</style>\n</head>\n"
        f"<body>\n<main{main_class}>\n{body}\n</main>\n{script_tag}</body>\n</html>\n"
    )


def json_script(element_id: str, document: Any) -> str:
    """Data for a page's script as ``<script type="application/json">``, safe against ``</script>`` inside."""
    text = json.dumps(document, ensure_ascii=False).replace("<", "\\u003c").replace(">", "\\u003e")
    return f'<script type="application/json" id="{html.escape(element_id)}">{text}</script>'


def text_html(text: str) -> str:
    """Text escaped for a page, with a number kept on one line with its unit ("99.98 %" never breaks before %).

    Example:
        >>> text_html("50 % – 99.98 % & more")
        '50\xa0% – 99.98\xa0% &amp; more'
    """
    return html.escape(text).replace(" %", "\u00a0%")


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1] if isinstance(tag, str) else ""


def _safe_reference(value: str) -> bool:
    """Only references inside the figure (``#id``) and inline raster images may stay."""
    value = value.strip()
    return value.startswith("#") or value.lower().startswith(
        ("data:image/png", "data:image/jpeg", "data:image/gif")
    )


def _clean_css(text: str, rename) -> str:
    text = re.sub(r"@import[^;]*;?", "", text, flags=re.IGNORECASE)

    def url(match: re.Match) -> str:
        target = match.group(2).strip()
        if target.startswith("#"):
            return f"url(#{rename(target[1:])})"
        if _safe_reference(target):
            return match.group(0)
        return "none"

    return _URL.sub(url, text)


def _animates_link(element: ET.Element) -> bool:
    """SVG animation can rewrite a link (``<set attributeName="href" to="javascript:…">``): drop such elements."""
    if _local(element.tag) not in {"set", "animate", "animateMotion", "animateTransform", "animateColor"}:
        return False
    target = element.attrib.get("attributeName", "").lower()
    values = " ".join(element.attrib.get(k, "") for k in ("to", "from", "values", "by")).lower()
    return target.endswith("href") or "javascript:" in values or "url(" in values


def sanitise_svg(text: str | bytes, *, prefix: str = "") -> str:
    """An SVG document made safe and self-contained for inlining into an HTML page.

    Drops the XML prologue and doctype, ``<script>``, ``foreignObject`` and similar elements, ``on…`` event
    attributes, and links or ``url(…)`` references to anything but the figure's own ids; prefixes every id (and
    the references to it) with ``prefix`` so that figures do not collide.

    Raises:
        PrivriskError: if the text is not an SVG document.

    Example:
        >>> svg = '<?xml version="1.0"?><svg xmlns="http://www.w3.org/2000/svg" onload="x()">'
        >>> svg += '<script>alert(1)</script><rect id="a" width="1" height="1"/><use href="#a"/></svg>'
        >>> out = sanitise_svg(svg, prefix="f1-")
        >>> "script" in out, "onload" in out, 'id="f1-a"' in out, 'href="#f1-a"' in out
        (False, False, True, True)
    """
    if isinstance(text, bytes):
        data = text
    else:
        data = text.encode("utf-8")
        # An encoding declaration is meaningless once the text is decoded; expat would refuse a mismatch.
        data = re.sub(rb"^\s*<\?xml[^>]*\?>", b"", data)
    try:
        root = ET.fromstring(data)
    except ET.ParseError as exc:
        raise PrivriskError(f"not a well-formed SVG document ({exc})") from None
    if _local(root.tag) != "svg":
        raise PrivriskError(f"not an SVG document (the root element is <{_local(root.tag)}>)")

    def rename(name: str) -> str:
        return f"{prefix}{name}"

    parents = {child: parent for parent in root.iter() for child in parent}
    for element in list(root.iter()):
        if not isinstance(element.tag, str) or _local(element.tag) in _DROP_TAGS or _animates_link(element):
            parent = parents.get(element)
            if parent is not None:
                parent.remove(element)
            continue
        for key in list(element.attrib):
            name = _local(key).lower()
            value = element.attrib[key]
            if name.startswith("on"):
                del element.attrib[key]
            elif name == "id":
                element.attrib[key] = rename(value)
            elif name == "href":
                if value.strip().startswith("#"):
                    element.attrib[key] = "#" + rename(value.strip()[1:])
                elif not _safe_reference(value):
                    del element.attrib[key]
            elif name == "style" or "url(" in value:
                element.attrib[key] = _clean_css(value, rename)
        if _local(element.tag) == "style" and element.text:
            element.text = _clean_css(element.text, rename)
    # Comments and processing instructions were dropped by the parser; the default namespace is written bare.
    ET.register_namespace("", _SVG_NS)
    ET.register_namespace("xlink", _XLINK_NS)
    return ET.tostring(root, encoding="unicode")


#: The American spelling before 0.2, kept one release (public names are spelled the British way).
sanitize_svg = deprecated_alias(sanitise_svg, "sanitize_svg")


def inline_svg(path: str | os.PathLike[str], *, prefix: str = "") -> str:
    """Read an SVG file and return it sanitised for inlining (see :func:`sanitise_svg`)."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise PrivriskError(f"{path}: cannot read ({exc.strerror})") from None
    try:
        return sanitise_svg(data, prefix=prefix)
    except PrivriskError as exc:
        raise PrivriskError(f"{path}: {exc}") from None


def _inside(folder: Path, relative: Any, what: str) -> Path:
    """A path named in a manifest, which must stay inside the manifest's folder."""
    if not isinstance(relative, str) or not relative:
        raise PrivriskError(f"{folder / 'manifest.json'}: {what} needs a path relative to its folder")
    path = (folder / relative).resolve()
    if Path(relative).is_absolute() or not path.is_relative_to(folder.resolve()):
        raise PrivriskError(f"{folder / 'manifest.json'}: {what} path {relative!r} leaves the folder")
    return path


def _csv_table(path: Path, max_rows: int, percent_columns: frozenset[str] = frozenset()) -> tuple[str, int]:
    """The first ``max_rows`` rows of a CSV file as an HTML table, and the number of data rows in the file.

    Cells are shown as people read them (:func:`_cell_text`); the columns in ``percent_columns`` (a manifest
    table's ``percent_columns``) hold probabilities whatever their names.
    """
    with path.open(newline="", encoding="utf-8-sig") as handle:
        sample = handle.read(65536)
        handle.seek(0)
        try:
            dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
        except csv.Error:
            dialect = csv.excel
        reader = csv.reader(handle, dialect)
        header = next(reader, None)
        if header is None:
            return '<p class="muted">(empty table)</p>', 0
        rows = []
        total = 0
        for row in reader:
            if total < max_rows:
                rows.append(row)
            total += 1
    numeric = [all(_is_number(r[i]) for r in rows if i < len(r) and r[i] != "") for i in range(len(header))]
    # The file's column names in the one vocabulary (many_worlds → many-worlds risk ρ_mw); a column without a
    # name in the file still gets a heading on the page.
    head = "".join(
        f'<th scope="col"{" class=num" if numeric[i] else ""}>{html.escape(label(h.strip()) or f"column {i + 1}")}</th>'
        for i, h in enumerate(header)
    )
    body = []
    for row in rows:
        cells = []
        for i, value in enumerate(row):
            cls = " class=num" if i < len(numeric) and numeric[i] else ""
            column = header[i] if i < len(header) else ""
            shown = _cell_text(value, "probability" if column in percent_columns else column)
            cells.append(f"<td{cls}>{text_html(shown)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (
        f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>{"".join(body)}</tbody></table></div>',
        total,
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _cell_text(text: str, column: str) -> str:
    """A CSV cell as people read it: probabilities as percentages, counts with separators, no e-notation."""
    if text in VOCABULARY:
        return VOCABULARY[text]
    if text in ("True", "False"):
        return "yes" if text == "True" else "no"
    if not _is_number(text) or text.strip().lower() in ("nan", "inf", "-inf", "infinity"):
        return text
    value = float(text)
    if is_probability_key(column) and 0 <= value <= 1 and any(c in text.lower() for c in ".e"):
        return percent_3g(value)
    if value == int(value) and "." not in text and "e" not in text.lower():
        name = column.lower()
        return text if any(w in name for w in ("seed", "year", "record", "id", "zip")) else count(value)
    return _number(value)


def _value(value: Any, key: str = "") -> str:
    """A summary or parameter value as HTML: a list of several names or a mapping is a list, the rest readable text."""
    if isinstance(value, dict) and value:
        items = "".join(
            f"<li>{html.escape(label(str(k)))}: {_value(v, str(k))}</li>" for k, v in value.items()
        )
        return f'<ul class="plain">{items}</ul>'
    if (
        isinstance(value, list)
        and len(value) > 2
        and not key.lower().endswith("_range")
        and all(isinstance(v, str) for v in value)
    ):
        return '<ul class="plain">' + "".join(f"<li>{html.escape(v)}</li>" for v in value) + "</ul>"
    return text_html(readable(value, key))


def _key_values(mapping: dict[str, Any], caption: str) -> str:
    if not mapping:
        return ""
    rows = "".join(
        f'<tr><th scope="row">{html.escape(label(str(k)))}</th><td>{_value(v, str(k))}</td></tr>'
        for k, v in mapping.items()
    )
    return (
        f'<div class="scroll"><table><caption class="visually-hidden">{html.escape(caption)}</caption>'
        f'<thead><tr><th scope="col">quantity</th><th scope="col">value</th></tr></thead>{rows}</table></div>'
    )


#: The words a report page uses, each with its one name and a short definition (docs/glossary.md in full).
GLOSSARY: dict[str, str] = {
    "ε (epsilon)": "the privacy-loss parameter: for neighbouring databases the probability of any answer "
    "changes by at most a factor e^ε. ln 3 means ε = ln 3 ≈ 1.099.",
    "many-worlds risk ρ_mw": "the largest probability that an attacker who knows all n possible worlds picks "
    "the true one after one answer: 1/(1 + (n − 1)·e^(−ε·Δv/Δf)) (Lee and Clifton; Allmann et al., eq. 4).",
    "two-worlds risk ρ_tw": "the many-worlds risk for n = 2: the attacker only decides whether one person is "
    "in the data; never below 50 % (Allmann et al., eq. 6).",
    "global risk ρ_gl": "the worst case, n = 2 and Δv = Δf: e^ε/(1 + e^ε); it depends on ε only "
    "(Mehner et al., eq. 3, where it is called P; Allmann et al., eq. 5).",
    "global leak Γ": "how far one answer moves the worst-case attacker from a coin toss (0) towards certainty "
    "(1): 2ρ_gl − 1 (Mehner et al., §3.4, eq. 4).",
    "local leak γ": "the same for n worlds: (ρ_mw − 1/n)/(1 − 1/n) (Mehner et al., §3.4).",
    "global sensitivity Δf": "the largest change of the query between any two neighbouring databases of the "
    "universe; the Laplace noise scale is b = Δf/ε.",
    "local sensitivity Δv": "the largest change of the query between the data at hand and one of its "
    "neighbours.",
    "data-dependent sensitivity Δf_n(X)": "the largest change one record of X makes when it is left out; "
    "noise of scale b_n = Δf_n(X)/ε leaks (Sarathy and Muralidhar, Tables 1 and 2).",
    "effective ε": "the ε an intruder faces for one query when deriving it from another, e.g. the sum as n × "
    "the noisy mean (Sarathy and Muralidhar, Table 4).",
    "δ-presence": "δ = |research class|/|population class|: the probability that a person of the population "
    "in that class is in the research subset (Nergiz et al.; Desfontaines).",
    "k-anonymity, k-map": "every class of the release holds at least k records (k-anonymity) or stands for at "
    "least k people of the population (k-map) (Desfontaines).",
    "empirical δᵢ, δ and total risk δ*": "for an individual i, how far the answers with and without i differ "
    "beyond the factor e^ε; δ is the largest δᵢ, δ* = 1 − Πᵢ(1 − δᵢ) the chance that someone is exposed "
    "(Burchard and Daoud, Theorem 1, Definitions 2 and 3).",
}


def glossary_section(anchor: str = "glossary") -> str:
    """The short glossary every report page ends with (the pages are offline, so it is embedded, not linked).

    Example:
        >>> "many-worlds risk ρ_mw" in glossary_section()
        True
    """
    items = "".join(
        f"<dt>{html.escape(term)}</dt><dd>{html.escape(text)}</dd>" for term, text in GLOSSARY.items()
    )
    return (
        f'<section id="{html.escape(anchor)}" aria-labelledby="{html.escape(anchor)}-h">'
        f'<h2 id="{html.escape(anchor)}-h">Glossary</h2>'
        '<p class="muted">One name per quantity, as in every privrisk command, table and JSON document; the full '
        "glossary and the sources in full are in privrisk's documentation (docs/glossary.md, "
        f"docs/references.md).</p><dl>{items}</dl></section>"
    )


def glossary_link(anchor: str = "glossary") -> str:
    """A line near the top of a page that points to its glossary."""
    return f'<p class="muted">The words and symbols are explained in the <a href="#{html.escape(anchor)}">glossary</a> at the end of this page.</p>'


def _entries(manifest: dict[str, Any], key: str, kind: type) -> list:
    """A manifest's list under ``key``; a single entry is a list of one, and anything else is an error."""
    value = manifest.get(key) or []
    if isinstance(value, kind):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, kind) for v in value):
        title = manifest.get("title") or manifest.get("kind")
        raise PrivriskError(f"manifest.json of {title!r}: {key} must be a list of {kind.__name__} entries")
    return value


def _when(stamp: str) -> str:
    """An ISO time stamp as people write it: "23 November 2026, 06:46 UTC" (the stamp itself if unreadable)."""
    from datetime import UTC, datetime

    try:
        moment = datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    zone = " UTC" if moment.tzinfo is not None else ""
    return f"{moment.day} {moment:%B %Y}, {moment:%H:%M}{zone}"


def _slug(index: int, kind: str) -> str:
    return f"s{index}-" + (re.sub(r"[^a-z0-9]+", "-", kind.lower()).strip("-") or "section")


def _is_internal(table: dict[str, Any]) -> bool:
    """A table not for publication: marked ``internal`` in its manifest, or (folders written before the mark
    existed) a release's ``internal_assessment`` table or one titled NOT FOR PUBLICATION."""
    path = str(table.get("path") or "")
    return bool(
        table.get("internal")
        or Path(path).name.startswith("internal_assessment")
        or "NOT FOR PUBLICATION" in str(table.get("title") or "").upper()
    )


def _section(
    index: int, folder: Path, manifest: dict[str, Any], max_rows: int, include_internal: bool = False
) -> tuple[str, str, int]:
    """One manifest as an HTML section; returns the section, its anchor and the number of problems noted."""
    kind = str(manifest.get("kind", ""))
    title = str(manifest.get("title") or kind)
    anchor = _slug(index, kind)
    problems = 0
    parts = [
        f'<section id="{anchor}" aria-labelledby="{anchor}-h">',
        f'<h2 id="{anchor}-h">{html.escape(title)}</h2>',
    ]
    meta = [f"kind: <strong>{html.escape(kind)}</strong>", f"folder: <code>{html.escape(str(folder))}</code>"]
    if manifest.get("created"):
        meta.append(f"created {html.escape(_when(str(manifest['created'])))}")
    if manifest.get("privrisk_version"):
        meta.append(f"privrisk {html.escape(str(manifest['privrisk_version']))}")
    parts.append(f'<p class="muted">{" · ".join(meta)}</p>')
    findings = _entries(manifest, "findings", str)
    if findings:
        parts.append(
            "<h3>Findings</h3><ul>"
            + "".join(f"<li>{text_html(plain(str(f)))}</li>" for f in findings)
            + "</ul>"
        )
    summary = manifest.get("summary") or {}
    if isinstance(summary, dict) and summary:
        parts.append("<h3>Summary</h3>" + _key_values(summary, f"Summary of {title}"))
    parameters = manifest.get("parameters") or {}
    if isinstance(parameters, dict) and parameters:
        parts.append(
            "<details><summary>Parameters</summary>"
            + _key_values(parameters, f"Parameters of {title}")
            + "</details>"
        )
    for number, figure in enumerate(_entries(manifest, "figures", dict), start=1):
        caption = html.escape(plain(str(figure.get("title") or f"Figure {number}")))
        prefix = f"{anchor}-f{number}-"
        # A path that leaves the folder is a broken or hostile manifest: refuse it rather than read it.
        svg = _inside(folder, figure["svg"], "figure") if figure.get("svg") else None
        png = _inside(folder, figure["png"], "figure") if figure.get("png") else None
        try:
            if svg is not None:
                content = inline_svg(svg, prefix=prefix)
            elif png is not None:
                path = png
                data = base64.b64encode(path.read_bytes()).decode("ascii")
                content = f'<img src="data:image/png;base64,{data}" alt="{caption}">'
            else:
                raise PrivriskError("the figure names neither an SVG nor a PNG file")
            parts.append(
                f'<figure class="figure" role="group" aria-label="{caption}">{content}'
                f"<figcaption>{caption}</figcaption></figure>"
            )
        except (PrivriskError, OSError) as exc:
            problems += 1
            parts.append(f'<p class="problem">Figure “{caption}” left out: {html.escape(str(exc))}</p>')
    for number, table in enumerate(_entries(manifest, "tables", dict), start=1):
        internal = _is_internal(table)
        if internal and not include_internal:
            # The internal assessment depends on the data; beside the noisy answers it gives back true values.
            continue
        caption = html.escape(plain(str(table.get("title") or f"Table {number}")))
        path = _inside(folder, table.get("path"), "table")
        try:
            percent_columns = frozenset(str(c) for c in table.get("percent_columns") or ())
            content, total = _csv_table(path, max_rows, percent_columns)
        except (PrivriskError, OSError, UnicodeDecodeError, csv.Error) as exc:
            problems += 1
            parts.append(f'<p class="problem">Table “{caption}” left out: {html.escape(str(exc))}</p>')
            continue
        where = f"<code>{html.escape(str(path.relative_to(folder.resolve())))}</code>"
        if total <= max_rows:
            note = f"{total:,} row{'s' if total != 1 else ''}, from {where}."
        else:
            note = (
                f"<strong>Showing the first {max_rows:,} of {total:,} rows</strong>; "
                f"the whole table is in {where}."
            )
        if internal:
            parts.append(
                f'<div class="internal" role="note"><h3>INTERNAL, NOT FOR PUBLICATION: {caption}</h3>'
                "<p><strong>This table depends on the data and is not for publication:</strong> beside the noisy "
                "answers it can give back the true values. It is shown because the report was asked to include "
                f'the internal assessment.</p>{content}<p class="muted table-note">{note}</p></div>'
            )
            continue
        parts.append(f'<h3>{caption}</h3>{content}<p class="muted table-note">{note}</p>')
    parts.append("</section>")
    return "\n".join(parts), anchor, problems


# Lists inside a summary's value cell, and the glossary's terms.
_REPORT_CSS = """
ul.plain { margin: 0; padding-left: 1.1rem; }
#glossary dt { font-weight: 600; margin-top: 0.5rem; }
#glossary dd { margin-left: 1.2rem; }
"""


def report_page(
    folders: list[str | os.PathLike[str]],
    *,
    title: str = "privrisk report",
    max_rows: int = MAX_ROWS,
    include_internal: bool = False,
) -> tuple[str, dict[str, Any]]:
    """One self-contained HTML page from the ``manifest.json`` of each folder, in the order given.

    Args:
        folders: output folders of privrisk commands, each with its ``manifest.json``.
        title: the page title.
        max_rows: rows of each table shown before it is cut (the page says how many were left out).
        include_internal: also show tables that are not for publication (a release's internal assessment),
            each marked INTERNAL, NOT FOR PUBLICATION; left out otherwise.

    Returns:
        The page and a summary (``sections``: kind, title, folder, figures, tables; ``problems``: how many
        figures or tables could not be shown; each is also noted in the page).

    Raises:
        PrivriskError: if a folder or its manifest is missing or invalid, or a manifest names a path outside its
            folder.

    Example:
        >>> import tempfile
        >>> from privrisk.reports.manifest import write_manifest
        >>> d = tempfile.mkdtemp()
        >>> _ = write_manifest(d, kind="study", title="Sampling study", findings=["ρ stays below 5 %."])
        >>> page, info = report_page([d])
        >>> "Sampling study" in page, info["sections"][0]["kind"]
        (True, 'study')
    """
    if not folders:
        raise PrivriskError("folders: give at least one folder with a manifest.json", param="folders")
    max_rows = check_whole(max_rows, name="max_rows", minimum=1)
    sections, toc, info = [], [], []
    problems = 0
    for index, name in enumerate(folders, start=1):
        folder = Path(name)
        if not folder.is_dir():
            raise PrivriskError(f"{name}: no such folder")
        manifest = read_manifest(folder)
        section, anchor, bad = _section(index, folder, manifest, max_rows, include_internal)
        problems += bad
        sections.append(section)
        label = html.escape(str(manifest.get("title") or manifest.get("kind")))
        toc.append(
            f'<li><a href="#{anchor}">{label}</a> <span class="muted">({html.escape(str(manifest["kind"]))})</span></li>'
        )
        info.append(
            {
                "kind": manifest["kind"],
                "title": manifest.get("title"),
                "folder": str(folder),
                "figures": len(_entries(manifest, "figures", dict)),
                "tables": sum(
                    1 for t in _entries(manifest, "tables", dict) if include_internal or not _is_internal(t)
                ),
            }
        )
    from privrisk._version import __version__

    body = (
        f"<h1>{html.escape(title)}</h1>\n"
        f'<nav class="toc" aria-label="Contents"><strong>Contents</strong><ol>{"".join(toc)}'
        '<li><a href="#glossary">Glossary</a></li></ol></nav>\n'
        + glossary_link()
        + "\n"
        + "\n".join(sections)
        + "\n"
        + glossary_section()
        + f"\n<footer>Made by privrisk {html.escape(__version__)} from {len(folders)} folder"
        f"{'s' if len(folders) != 1 else ''}. Self-contained: this page loads nothing from the network.</footer>"
    )
    return html_page(title=title, body=body, css=_REPORT_CSS, wide=True), {
        "sections": info,
        "problems": problems,
    }
