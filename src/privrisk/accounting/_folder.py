"""The report folder of an accounting run: its JSON document and ``manifest.json``, whole or not at all.

Every result of :mod:`privrisk.accounting.run` writes its folder here: ``<kind>.json`` (the run's ``to_dict()``,
the ``--json`` document) and ``manifest.json`` in the keys :mod:`privrisk.reports.manifest` reads (schema 1:
``kind``, ``title``, ``created``, ``privrisk_version``, ``parameters``, ``summary``, ``findings``, ``tables``,
``figures``), so that ``privrisk report`` gathers it like any other folder. The accounting sits on the ground
floor, below :mod:`privrisk.reports.manifest`, so the manifest is written with the ground floor's
:mod:`privrisk.io.files`.
"""

from __future__ import annotations

import datetime as _dt
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

MANIFEST = "manifest.json"


def write_run_folder(
    folder: str | os.PathLike[str],
    *,
    kind: str,
    title: str,
    document: Mapping[str, Any],
    parameters: Mapping[str, Any],
    summary: Mapping[str, Any],
    findings: list[str],
) -> list[Path]:
    """Write ``folder/<kind>.json`` and ``folder/manifest.json`` whole or not at all; the paths, manifest last.

    Example:
        >>> import json, tempfile, pathlib
        >>> out = pathlib.Path(tempfile.mkdtemp()) / "r"
        >>> paths = write_run_folder(out, kind="risk", title="t", document={"a": 1}, parameters={},
        ...                          summary={"a": 1}, findings=["One."])
        >>> [p.name for p in paths], json.loads(paths[1].read_text())["findings"]
        (['risk.json', 'manifest.json'], ['One.'])
    """
    from privrisk._version import __version__
    from privrisk.io.files import atomic_dir, to_jsonable, write_json

    manifest = dict(schema_version=1, kind=kind, title=title, privrisk_version=__version__,
                    created=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
                    parameters=to_jsonable(dict(parameters)), summary=to_jsonable(dict(summary)),
                    findings=list(findings), tables=[], figures=[])  # fmt: skip
    with atomic_dir(folder) as tmp:
        write_json(tmp / f"{kind}.json", dict(document))
        write_json(tmp / MANIFEST, manifest)
    return [Path(folder) / f"{kind}.json", Path(folder) / MANIFEST]
