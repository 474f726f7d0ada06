"""The ``manifest.json`` of a report folder; it lives in :mod:`privrisk.io.manifest` (the ground floor, so that the
accounting's results write the same manifest), and is read from here as before."""

from __future__ import annotations

from privrisk.io.manifest import MANIFEST, read_manifest, write_manifest

__all__ = ["MANIFEST", "read_manifest", "write_manifest"]
