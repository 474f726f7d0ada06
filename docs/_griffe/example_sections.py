"""A griffe extension for the API pages: read privrisk's ``Example:`` blocks as Google ``Examples`` sections.

privrisk's docstrings introduce their doctests with ``Example:`` (singular). griffe's Google parser knows only the
plural ``Examples:`` as a section; the singular is an admonition whose ``>>>`` lines Markdown would read as nested
block quotes and whose outputs (``[0.25, 0.5]``) as link references. This extension renames the heading when the
docstring is loaded, so every example renders as a Python console block. The source files are not touched.

Loaded from ``mkdocs.yml`` (``extensions: [docs/_griffe/example_sections.py]``); not part of the package.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.M)


class ExampleSections(griffe.Extension):
    """Rename ``Example:`` section headings to ``Examples:`` in every docstring griffe loads."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None and "Example:" in docstring.value:
            docstring.value = _EXAMPLE.sub(r"\1Examples:", docstring.value)
