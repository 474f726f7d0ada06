"""The small ``manifest.json`` every command that writes an output folder puts beside its results.

``privrisk report`` gathers these into one page, so each names its figures, tables and findings by paths relative to
its folder. Keys:

- ``schema_version`` (1), ``kind`` (``study``, ``presence``, ``audit``, ``empirical``, ``release``, …), ``title``;
- ``created`` (ISO 8601, UTC) and ``privrisk_version``;
- ``parameters``: what the user asked for (plain JSON);
- ``summary``: the headline numbers (plain JSON);
- ``findings``: sentences whose numbers come from this run;
- ``tables``: ``[{"title", "path"}]`` (CSV files), optionally ``"percent_columns"``: the columns that hold
  probabilities, shown as percentages by the report (columns named after a risk, a success or a leak are
  recognised without it);
- ``figures``: ``[{"title", "svg", "png"}]`` (SVG is inlined by the report; PNG for slides).
"""

from __future__ import annotations

import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.io.files import to_jsonable, write_json

__all__ = ["MANIFEST", "read_manifest", "write_manifest"]

MANIFEST = "manifest.json"


def write_manifest(
    out_dir: str | os.PathLike[str],
    *,
    kind: str,
    title: str,
    parameters: dict[str, Any] | None = None,
    summary: dict[str, Any] | None = None,
    findings: list[str] | None = None,
    tables: list[dict[str, Any]] | None = None,
    figures: list[dict[str, str]] | None = None,
) -> Path:
    """Write ``out_dir/manifest.json`` (atomically) and return its path.

    Example:
        >>> import tempfile
        >>> d = tempfile.mkdtemp()
        >>> p = write_manifest(d, kind="study", title="Sampling study", summary={"rows": 3})
        >>> read_manifest(d)["summary"]
        {'rows': 3}
    """
    from privrisk._version import __version__

    document = {
        "schema_version": 1,
        "kind": kind,
        "title": title,
        "created": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "privrisk_version": __version__,
        "parameters": to_jsonable(parameters or {}),
        "summary": to_jsonable(summary or {}),
        "findings": list(findings or []),
        "tables": list(tables or []),
        "figures": list(figures or []),
    }
    path = Path(out_dir) / MANIFEST
    write_json(path, document)
    return path


def read_manifest(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Read and check ``folder/manifest.json``."""
    path = Path(folder) / MANIFEST
    if not path.exists():
        raise PrivriskError(
            f"{folder}: no {MANIFEST} (write a privrisk command's results into {folder} first)"
        )
    if path.is_dir():
        raise PrivriskError(f"{path}: is a folder, not a manifest file")
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise PrivriskError(f"{path}: not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except UnicodeDecodeError:
        raise PrivriskError(f"{path}: not UTF-8 text, so not a privrisk manifest") from None
    except RecursionError:
        raise PrivriskError(f"{path}: nested too deeply to be a privrisk manifest") from None
    except OSError as exc:
        raise PrivriskError(f"{path}: cannot be read ({exc.strerror or exc})") from None
    if not isinstance(document, dict) or document.get("schema_version") != 1 or "kind" not in document:
        raise PrivriskError(f"{path}: not a privrisk manifest (schema_version 1 with a kind)")
    return document
