"""How the Release page shows a release: the preview (each answer's noise, the warnings, the acknowledgement of a
useless answer, the confirm button), the public part of a release with its statement, and the app's ledger.

Every number and sentence comes from the library (:meth:`~privrisk.release.request.ReleasePreview.rows`,
:attr:`~privrisk.release.result.Release.internal`,
:meth:`~privrisk.release.result.Release.answer_rows`, ``findings``, ``ledger_line``,
:func:`~privrisk.release.statement.statement_html`, :func:`~privrisk.release.history.summarise_ledger`); this
module only lays them out, with e-notation written as powers of ten.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from shiny import ui

from privrisk._format import number, plain

__all__ = [
    "file_stamp",
    "internal_view",
    "ledger_summary",
    "ledger_view",
    "paths_named",
    "preview_view",
    "public_view",
    "scrolled",
    "statement_view",
]


#: The columns of :meth:`ReleasePreview.rows` and the class each cell carries on the page (the tests find them).
_PREVIEW_HEAD = ("answer", "noise", "ε or ρ", "noise scale", "expected error", "95 % interval", "")
_PREVIEW_CLASSES = ("", "", "text-end", "text-end preview-scale", "text-end preview-error", "preview-interval",
                    "preview-warning text-danger")  # fmt: skip


def preview_view(
    p: Any, *, notes: list[str] | tuple[str, ...] = (), confirm: bool = True, acknowledged: bool = False
) -> Any:
    """A preview as the page shows it: the noise of each answer (:meth:`ReleasePreview.rows`), the warnings, and
    the button that confirms it (disabled by its own click, so a double-click sends one confirmation).

    When an answer would be useless (its 95 % interval wider than the range it can take), the button stays
    disabled until the box ``allow_useless`` is ticked (``acknowledged``): a useless answer is never released
    without a word.

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, ReleaseSettings, run_release
        >>> q = ReleaseQuery("income", "mean", 1, (0, 500_000))
        >>> "useless" in str(preview_view(run_release(ReleaseSettings(pd.DataFrame({"income": [1.0]}), q,
        ...                                                           preview=True)).preview))
        True
    """
    rows = [
        ui.tags.tr(*(ui.tags.td(c, class_=k or None) for c, k in zip(row, _PREVIEW_CLASSES, strict=True)))
        for row in p.rows()
    ]
    eps = sum(q.epsilon or 0.0 for q in p.queries)
    rho = sum(q.rho or 0.0 for q in p.queries)
    cost = " and ".join([*([f"ε = {number(eps)}"] if eps else []), *([f"ρ = {number(rho)}"] if rho else [])])
    parts = [
        ui.h3("2. Preview: nothing is drawn or spent yet", class_="fs-5 mt-3"),
        _table(_PREVIEW_HEAD, rows, "release-preview-table", "The preview's table"),
        ui.p(
            "Expected error: how far the published value lies from the data's on average. 95 % interval: in 95 of "
            "100 releases the noise is smaller than this.",
            class_="privrisk-help",
        ),
        *(ui.p(w + ".", class_="text-danger release-warning") for w in p.warnings),
        *(ui.p(n, class_="text-warning-emphasis") for n in notes),
    ]
    if confirm:
        useless = len(p.warnings)
        parts.append(ui.h3("3. Confirm", class_="fs-5"))
        if useless:
            parts.append(
                ui.input_checkbox(
                    "allow_useless",
                    f"Release {'this answer' if useless == 1 else f'these {useless} answers'} although the preview "
                    "says the noise makes it useless (the public statement says so)",
                    value=acknowledged,
                )
            )
        # Disabled by the click itself, before a second click of a double-click can land; the server enables it
        # again when it is done, and a second confirmation of this preview charges nothing. Disabled from the
        # start while a useless answer is not acknowledged.
        button = ui.input_action_button(
            "confirm", f"Release and spend {cost}", class_="btn-danger", onclick="this.disabled = true"
        )
        if useless and not acknowledged:
            button.attrs["disabled"] = "disabled"
        parts.append(button)
    return ui.div(*parts, id="release-preview-panel")


def scrolled(content: Any, name: str) -> Any:
    """A wide table in a box that scrolls sideways, reachable by keyboard (a named, focusable region): on a phone
    every column can be reached."""
    return ui.div(content, style="overflow-x:auto", tabindex="0", role="region", **{"aria-label": name})


def _table(head: Any, rows: list[Any], id: str, name: str) -> Any:
    """A table of ``rows`` under the header ``head``, scrolled sideways when wide (:func:`scrolled`)."""
    return scrolled(
        ui.tags.table(
            ui.tags.thead(ui.tags.tr(*(ui.tags.th(h) for h in head))),
            ui.tags.tbody(*rows),
            class_="table table-sm",
            id=id,
        ),
        name,
    )


def ledger_view(path: Path, summary: Any, error: str | None = None) -> Any:
    """Where the app's ledger is and what it records (:class:`~privrisk.release.history.LedgerSummary`; None:
    nothing recorded yet), or the one-line error reading it gave.

    Example:
        >>> "no release recorded yet" in str(ledger_view(Path("/srv/ledger.json"), None))
        True
    """
    where = ui.tags.code(str(path), id="release-ledger-path")
    if error is not None:
        said: Any = ui.span(error, class_="text-danger", role="alert")
    elif summary is None:
        said = "no release recorded yet (the file is made at the first release)."
    else:
        n = len(summary.entries)
        spent = f"plain sum ε = {number(summary.total_epsilon)}"
        if summary.total_rho:
            spent += f", ρ = {number(summary.total_rho)}"
        budget = "" if summary.budget is None else f"; budget {plain(summary.budget.describe())}"
        said = f"{n:,} release{'s' if n != 1 else ''} recorded; {spent}{budget}."
    return ui.p(
        ui.strong("The ledger "),
        where,
        ": ",
        ui.span(said, id="release-ledger-state"),
        " Every browser session and every release of this app is charged to it.",
        class_="privrisk-help",
        id="release-ledger",
    )


#: The columns of :meth:`Release.answer_rows` and the class each cell carries on the page (the tests find them).
_ANSWER_HEAD = ("answer", "noise", "ε or ρ", "universe", "scale", "noisy value", "95 % interval")
_ANSWER_CLASSES = (
    "",
    "",
    "text-end",
    "",
    "text-end release-scale",
    "text-end release-noisy",
    "release-interval",
)


def statement_view(release: Any) -> Any:
    """The public statement as on its page (:func:`~privrisk.release.statement.statement_html`): the plain words
    shown, the technical annex folded in ``<details>``."""
    from privrisk.release.statement import statement_html

    page = statement_html(release)
    body = page[page.index("<main>") + len("<main>") : page.index("</main>")]
    # The page's own title is this page's h2, "Public statement" an h3; the statement's headings sit below it.
    body = re.sub(r"<h1>.*?</h1>", "", body, flags=re.S)
    body = body.replace("<h2>", '<h4 class="h6">').replace("</h2>", "</h4>")
    # The statement's own style is not loaded inside the app: its table takes the app's.
    body = body.replace("<table>", '<table class="table table-sm">')
    return ui.div(ui.HTML(body), id="release-statement-page", class_="release-statement")


def public_view(
    release: Any,
    *,
    ledger: str | None = None,
    ledger_name: str = "ledger.json",
    useless: list[str] | tuple[str, ...] = (),
) -> Any:
    """The public part of a release as the page shows it, from the library's own rows and sentences
    (:meth:`~privrisk.release.result.Release.answer_rows`, ``findings``, ``ledger_line``), as the command line
    prints them, with the public statement in plain words; a Gaussian answer (ρ, no ε) is shown like a Laplace
    one. ``ledger`` (a private path) is shown as ``ledger_name``. ``useless`` are the preview's warnings of the
    answers released although they are useless: said above the answers.

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, noisy_release
        >>> r = noisy_release(pd.DataFrame({"h": [8.0, 6, 7]}),
        ...                   ReleaseQuery("h", "mean", None, (0, 24), mechanism="gaussian", rho=0.5))
        >>> "ρ = 0.5" in str(public_view(r))
        True
    """
    from privrisk.release.statement import NOISE_NOTE

    rows = [
        ui.tags.tr(
            *(
                ui.tags.td(plain(cell), class_=cls or None)
                for cell, cls in zip(row, _ANSWER_CLASSES, strict=True)
            )
        )
        for row in release.answer_rows()
    ]
    parts = [
        ui.h3("Public: the noisy answers (the true values are never shown)", class_="h5 mt-3"),
        *(
            [
                ui.div(
                    ui.p("Released although the preview warned:", class_="mb-1"),
                    ui.tags.ul(*(ui.tags.li(w + ".") for w in useless)),
                    class_="text-danger",
                    id="release-useless-note",
                )
            ]
            if useless
            else []
        ),
        _table(_ANSWER_HEAD, rows, "release-answers", "The noisy answers"),
        ui.h3("Public statement (depends only on ε and the published n; safe to publish)", class_="h5"),
        statement_view(release),
        ui.tags.details(
            ui.tags.summary("The statement in the command line's words"),
            ui.tags.ul(*(ui.tags.li(plain(line)) for line in release.findings()), id="release-statement"),
            ui.p(NOISE_NOTE, class_="privrisk-help"),
        ),
    ]
    line = release.ledger_line()
    if line is not None:
        if ledger is not None:
            line = line.replace(os.path.realpath(ledger), ledger_name).replace(ledger, ledger_name)
        parts.append(ui.p(plain(line), id="release-ledger-line"))
    note = release.budget_note()
    if note:
        parts.append(ui.p(f"Note: {note}.", class_="text-warning-emphasis"))
    return ui.TagList(*parts)


def internal_view(release: Any) -> Any:
    """The internal assessment (local sensitivity, record counts), for the operator only, in a box marked NOT FOR
    PUBLICATION: beside a noisy mean, min or max it gives back the true value.

    Example:
        >>> import pandas as pd
        >>> from privrisk.release import ReleaseQuery, noisy_release
        >>> r = noisy_release(pd.DataFrame({"h": [8.0, 6, 7]}), ReleaseQuery("h", "count", 1, (0, 24)))
        >>> "withheld" in str(internal_view(r))
        True
    """
    frame = release.internal
    rows = [
        ui.tags.tr(*(ui.tags.td("withheld" if v is None else number(v) if isinstance(v, float) else str(v))
                     for v in record))
        for record in frame.itertuples(index=False)
    ]  # fmt: skip
    return ui.div(
        ui.h3("INTERNAL ASSESSMENT — NOT FOR PUBLICATION", class_="h5 text-danger"),
        ui.p(
            "Shown only to you, the operator. It depends on the data (local sensitivity, record counts, "
            "clamping): beside a noisy mean, min or max it gives back the true value. The command line writes "
            "it only with --internal FILE.",
        ),
        scrolled(
            ui.tags.table(
                ui.tags.thead(ui.tags.tr(*(ui.tags.th(str(h)) for h in frame.columns))),
                ui.tags.tbody(*rows),
                class_="table table-sm",
            ),
            "The internal assessment",
        ),
        ui.p(release.withheld, class_="privrisk-help") if release.withheld else None,
        class_="privrisk-internal",
        id="release-internal-box",
    )


def file_stamp(path: Path) -> tuple[int, int] | None:
    """The ledger's size and modification time (None: not there yet): when they change, the page reads it again."""
    try:
        st = path.stat()
    except OSError:
        return None
    return st.st_size, st.st_mtime_ns


def ledger_summary(path: Path, key: bytes | None) -> Any:
    from privrisk.release.history import summarise_ledger

    return summarise_ledger(path, key=key)


def paths_named(text: str, path: Path, name: str) -> str:
    """A message with the ledger's server path written as its file name (a download holds no server path)."""
    return text.replace(str(path.resolve()), name).replace(str(path), name)
