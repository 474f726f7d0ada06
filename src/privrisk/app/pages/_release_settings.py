"""The Release page's inputs as one :class:`~privrisk.release.run.ReleaseSettings`, the library's one way in, as
the command line maps its options onto it: the data (the session's upload or an example), the queries (the
builder's rows, or an uploaded ``release.toml``), the published n, the budget, the app's ledger and its key.

The page reads its inputs and nothing more: every rule is the settings' (a bound typed ``0,5``, a public n that is
no whole number, a budget that does not read), and its error names the field, which the page shows at its input.

Example:
    >>> public_n_value(" 30,000 "), public_n_value(""), public_n_value("many")
    (30000.0, None, 'many')
"""

from __future__ import annotations

import warnings
from typing import Any

from privrisk.app._examples import EXAMPLES, example_frame
from privrisk.app._shared import error_message, upload_path
from privrisk.app.pages._release_builder import ROW_KINDS
from privrisk.app.pages._release_form import ROW_FIELDS, ROWS, row_queries
from privrisk.errors import PrivriskError
from privrisk.release.run import ReleaseSettings

__all__ = ["inputs_stamp", "page_data", "page_settings", "public_n_value"]


def public_n_value(text: str) -> Any:
    """The published n as typed: a number without its thousands separators, the text itself when it is none (the
    settings then say why), or None when empty."""
    cleaned = text.strip().replace(",", "").replace("_", "")
    if not cleaned:
        return None
    try:
        return float(cleaned)
    except ValueError:
        return cleaned


def page_data(input: Any, uploads: Any) -> tuple[str | None, Any]:
    """The data's name and table: the example chosen, else the session's upload, else none (the settings say so)."""
    if input.example():
        return EXAMPLES[input.example()][0], example_frame(input.example())
    if uploads.current() is not None:
        return uploads.current().name, uploads.read()
    return None, None


def inputs_stamp(input: Any, uploads: Any) -> tuple[Any, ...]:
    """Every input a release depends on: a preview is shown (and confirmed) only while they are unchanged."""
    rows = tuple(input[f"q{i}_{f}"]() for i in range(1, ROWS + 1) for f in ROW_FIELDS)
    return (uploads.current(), input.example(), input.queries_from(), input.spec(), rows, input.missing(),
            input.public_n(), input.budget(), input.allow_large_epsilon())  # fmt: skip


def page_settings(
    input: Any,
    uploads: Any,
    app: Any,
    shown: dict[str, str],
    *,
    acknowledged: bool,
    preview: bool = False,
    preview_id: str | None = None,
) -> tuple[ReleaseSettings, list[str]]:
    """The settings of the page's release, and the library's warnings in the page's words.

    ``app`` is the server's settings (its ledger, key and the ledger's name); ``shown`` learns the server path of
    an uploaded ``release.toml`` and the name to show for it (no server path appears in a message).
    ``acknowledged`` is the operator's consent to a useless answer (``allow_useless``).

    Raises:
        AtRow: the library's error of one of the builder's queries, to show at that row.
        PrivriskError: naming the settings' field.
    """
    name, frame = page_data(input, uploads)
    spec, queries = None, None
    if input.queries_from() == "spec":
        spec, spec_name = upload_path(input.spec())
        shown[str(spec)] = spec_name
    else:
        queries = row_queries({k: input[k]() for k in ROW_KINDS}, input.missing().strip() or None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        settings = ReleaseSettings(
            frame, queries, public_n=public_n_value(input.public_n()), budget=input.budget().strip() or None,
            ledger=app.ledger_path(), key=app.key, source=name, spec=spec, ledger_label=app.ledger_name,
            allow_large_epsilon=bool(input.allow_large_epsilon()), allow_useless=acknowledged, preview=preview,
            preview_id=preview_id,
        )  # fmt: skip
    notes = [f"Warning: {error_message(PrivriskError(str(w.message)), 'release')}" for w in caught]
    return settings, notes
