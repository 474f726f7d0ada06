"""A griffe extension for the API pages: read privrisk's docstrings as mkdocstrings expects them.

Two things are rewritten when a docstring is loaded; the source files are not touched:

- ``Example:`` (singular) becomes ``Examples:``. griffe's Google parser knows only the plural as a section; the
  singular is an admonition whose ``>>>`` lines Markdown would read as nested block quotes and whose outputs
  (``[0.25, 0.5]``) as link references. As a section, every example renders as a Python console block.
- Sphinx roles (``:func:`privrisk.exact_risk```, ``:class:`~privrisk.errors.PrivriskError```) become plain code
  spans (``privrisk.exact_risk``, ``PrivriskError``), which Markdown would otherwise print with the role.

Loaded from ``mkdocs.yml`` (``extensions: [docs/_griffe/example_sections.py]``); not part of the package.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

_EXAMPLE = re.compile(r"^(\s*)Example:[ \t]*$", flags=re.M)
_ROLE = re.compile(r":(?:func|meth|class|mod|attr|data|exc|obj):`(~?)([^`]+)`")


def _role(match: re.Match[str]) -> str:
    short, target = match.groups()
    return f"`{target.rsplit('.', 1)[-1] if short else target}`"


def rewrite(text: str) -> str:
    """The docstring as mkdocstrings reads it.

    Example:
        >>> rewrite("Example:\\n    >>> f()")
        'Examples:\\n    >>> f()'
        >>> rewrite("See :func:`privrisk.exact_risk` and :class:`~privrisk.errors.PrivriskError`.")
        'See `privrisk.exact_risk` and `PrivriskError`.'
    """
    return _ROLE.sub(_role, _EXAMPLE.sub(r"\1Examples:", text))


class ExampleSections(griffe.Extension):
    """Rewrite every docstring griffe loads (see the module docstring)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        docstring = obj.docstring
        if docstring is not None:
            docstring.value = rewrite(docstring.value)
