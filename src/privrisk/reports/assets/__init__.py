"""Package data of the HTML pages, loaded with :mod:`importlib.resources` (see :func:`privrisk.reports.html.asset_text`).

- ``base.css``: the style every page shares (colours with WCAG 2.1 contrast, print rules);
- ``explain.css`` and ``explain.js``: the explainer page's own style and script (the slider);
- ``explain.en.json``, ``explain.de.json``: every sentence of the explainer page, one file per language, so that
  translators edit text, not Python.
"""
