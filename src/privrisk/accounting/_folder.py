"""The report folder of an accounting run: its JSON document and ``manifest.json``, whole or not at all.

Every result of :mod:`privrisk.accounting.run` writes its folder here: ``<kind>.json`` (the run's ``to_dict()``,
the ``--json`` document) and ``manifest.json`` in the keys :mod:`privrisk.reports.manifest` reads (schema 1:
``kind``, ``title``, ``created``, ``privrisk_version``, ``parameters``, ``summary``, ``findings``, ``tables``,
``figures``), so that ``privrisk report`` gathers it like any other folder. The accounting sits on the ground
floor, below :mod:`privrisk.reports.manifest`, so the manifest is written with the ground floor's
:mod:`privrisk.io.files`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any


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
    from privrisk.io.files import atomic_dir, write_json
    from privrisk.io.manifest import MANIFEST, write_manifest

    with atomic_dir(folder) as tmp:
        write_json(tmp / f"{kind}.json", dict(document))
        write_manifest(tmp, kind=kind, title=title, parameters=dict(parameters), summary=dict(summary),
                       findings=list(findings))  # fmt: skip
    return [Path(folder) / f"{kind}.json", Path(folder) / MANIFEST]
