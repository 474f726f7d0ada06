"""The Presence page's hierarchy editor: one block of controls per quasi-identifier (as is, intervals of a width,
breaks at given values, code prefixes, dates), a preview of the classes each level makes, and the ``-H`` syntax of
the command line.

The logic holds no Shiny and is tested outside the browser: the controls' values become a
:class:`~privrisk.generalisation.hierarchy.HierarchyChoice` (:func:`choice_from_inputs`, :func:`editor_choices`), the
choices become ``{column: spec}`` (:func:`editor_specs`), the first bad one an error (:func:`editor_error`), the
specifications the command line's options (:func:`hierarchy_options`), and a preview's lines
(:func:`preview_items`). :class:`HierarchyEditor` is the page's server half: its state, its two outputs
(``hierarchy_editor``, ``hierarchy_preview``) and the effect that remembers each column's choice.

Example:
    >>> choices = editor_choices(["zip", "age"], {"age": {"kind": "interval", "width": 10}}, {})
    >>> hierarchy_options(editor_specs(choices))  # zip as is: the command line's default, no option
    ' -H age=interval:10'
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from typing import Any

from privrisk.errors import PrivriskError
from privrisk.generalisation.hierarchy import HierarchyChoice, parse_hierarchy

__all__ = [
    "BREAK_FIELDS",
    "BREAK_LEVELS",
    "CONTROLS",
    "KIND_LABELS",
    "HierarchyEditor",
    "choice_from_inputs",
    "column_block",
    "editor_choices",
    "editor_error",
    "editor_fieldset",
    "editor_specs",
    "hierarchy_options",
    "preset_choices",
    "preview_items",
]

KIND_LABELS = {
    "none": "as is",
    "interval": "intervals of width W",
    "breaks": "breaks at …",
    "prefix": "codes: drop the last digit",
    "date": "dates: day, month, year",
}
BREAK_FIELDS = 6  # number fields per level of breaks
BREAK_LEVELS = 2  # levels of breaks the form offers (the finest, and one coarser)
# Every control of a column's block, by its name within the block.
CONTROLS = (
    "kind",
    "width",
    "start",
    "open",
    *(f"b{level}_{i}" for level in range(1, BREAK_LEVELS + 1) for i in range(BREAK_FIELDS)),
)


def choice_from_inputs(values: Mapping[str, Any]) -> HierarchyChoice:
    """One quasi-identifier's hierarchy from the editor's controls: ``kind``, ``width``, ``start``, ``open`` and
    the break fields ``b{level}_{i}`` (empty fields left out).

    Example:
        >>> choice_from_inputs({"kind": "breaks", "b1_0": 10, "b1_1": 20, "b1_2": None, "b2_0": 10, "open": True}).spec()
        'breaks:10,20,inf/10,inf'
        >>> choice_from_inputs({"kind": "interval", "width": 10, "start": None}).spec()
        'interval:10'
    """
    kind = str(values.get("kind") or "none")
    if kind == "interval":
        return HierarchyChoice("interval", width=values.get("width"), start=values.get("start"))
    if kind == "breaks":
        # The fields as typed, empty ones too: the choice reads them (HierarchyChoice, typed_number).
        breaks: Any = tuple(
            tuple(values.get(f"b{level}_{i}") for i in range(BREAK_FIELDS))
            for level in range(1, BREAK_LEVELS + 1)
        )
        return HierarchyChoice("breaks", breaks=breaks, open_top=bool(values.get("open", True)))
    return HierarchyChoice(kind)


def editor_choices(
    names: Sequence[str], controls: Mapping[str, Mapping[str, Any]], current: Mapping[str, HierarchyChoice]
) -> dict[str, HierarchyChoice | PrivriskError]:
    """Each column's choice: from its controls once they are drawn (their values hold a ``kind``), else the one
    remembered in ``current`` ("as is" where there is none); an error where the controls make no hierarchy.

    Example:
        >>> editor_choices(["age", "zip"], {"age": {"kind": "interval", "width": "x"}}, {"zip": HierarchyChoice("prefix")})
        {'age': PrivriskError("hierarchies: 'x' is not a number"), 'zip': HierarchyChoice(kind='prefix', width=None, start=None, breaks=(), open_top=True)}
    """
    out: dict[str, HierarchyChoice | PrivriskError] = {}
    for name in names:
        values = controls.get(name, {})
        try:
            out[name] = (
                choice_from_inputs(values) if "kind" in values else current.get(name, HierarchyChoice())
            )
        except PrivriskError as exc:
            out[name] = exc
    return out


def editor_specs(choices: Mapping[str, HierarchyChoice | PrivriskError]) -> dict[str, str]:
    """``{column: spec}`` of the editor's choices; a column whose controls do not yet make a hierarchy is left out.

    Example:
        >>> editor_specs({"age": HierarchyChoice("breaks", breaks=((10, 20),)), "zip": HierarchyChoice("interval"),
        ...               "sex": PrivriskError("hierarchies: bad")})
        {'age': 'breaks:10,20,inf'}
    """
    specs: dict[str, str] = {}
    for name, choice in choices.items():
        try:
            spec = choice.spec() if isinstance(choice, HierarchyChoice) else None
        except PrivriskError:
            spec = None
        if spec:
            specs[name] = spec
    return specs


def editor_error(choices: Mapping[str, HierarchyChoice | PrivriskError]) -> PrivriskError | None:
    """The first column whose controls do not make a hierarchy, as the error the page shows at the editor.

    Example:
        >>> editor_error({"age": HierarchyChoice("interval")})
        PrivriskError("hierarchies: age: give the intervals' width, a number above 0")
        >>> editor_error({"age": HierarchyChoice("prefix")}) is None
        True
    """
    for name, choice in choices.items():
        try:
            if isinstance(choice, PrivriskError):
                raise choice
            choice.spec()
        except PrivriskError as exc:
            return PrivriskError(f"hierarchies: {name}: {str(exc).removeprefix('hierarchies: ')}",
                                 param="hierarchies")  # fmt: skip
    return None


def hierarchy_options(specs: Mapping[str, str]) -> str:
    """The command line's ``-H COLUMN=SPEC`` options for the editor's specifications (each quoted for a shell).

    Example:
        >>> hierarchy_options({"age": "breaks:10,30,50,inf", "zip": ""})
        ' -H age=breaks:10,30,50,inf'
    """
    return "".join(f" -H {shlex.quote(f'{name}={spec}')}" for name, spec in specs.items() if spec)


def preview_items(
    choices: Mapping[str, HierarchyChoice | PrivriskError], values: Callable[[str], Sequence[Any]]
) -> list[tuple[str, str]]:
    """Per column, the classes each level of its hierarchy makes of ``values(column)`` (its distinct values), or
    why its controls make no hierarchy.

    Example:
        >>> preview_items({"age": HierarchyChoice("breaks", breaks=((10, 30, 50),))}, lambda name: [10, 12, 43])
        [('age', 'level 1: 10-29, 30-49, 50+')]
    """
    items = []
    for name, choice in choices.items():
        try:
            if isinstance(choice, PrivriskError):
                raise choice
            lines = choice.preview(name, list(values(name)))
        except PrivriskError as exc:
            lines = [str(exc).removeprefix("hierarchies: ").removeprefix(f"hierarchy {name!r}: ")]
        items.append((name, "; ".join(lines)))
    return items


def preset_choices(text: str) -> tuple[dict[str, HierarchyChoice], PrivriskError | None]:
    """The choices a URL's ``hierarchy`` parameter sets (specifications separated by ``;`` or new lines), and the
    error of the last one the editor cannot build (that one is left out).

    Example:
        >>> found, error = preset_choices("age=interval:10; zip=table:h.csv")
        >>> found, str(error).startswith("hierarchies: 'zip=table:h.csv' is not a hierarchy the form can build")
        ({'age': HierarchyChoice(kind='interval', width=10.0, start=None, breaks=(), open_top=True)}, True)
    """
    found: dict[str, HierarchyChoice] = {}
    error: PrivriskError | None = None
    for part in re.split(r"[;\n]", text):
        if not part.strip():
            continue
        try:
            name, spec = parse_hierarchy(part)
            found[name] = HierarchyChoice.from_spec(spec)
        except PrivriskError:
            error = PrivriskError(
                f"hierarchies: {part.strip()!r} is not a hierarchy the form can build (intervals, breaks, prefix "
                "or date); it is not used",
                param="hierarchies",
            )
    return found, error


def _shown(x: float | None) -> float | int | None:
    """A number as a number field shows it: 10, not 10.0."""
    return int(x) if x is not None and float(x).is_integer() else x


# ------------------------------------------------------------------------------------------------ the page's UI


def editor_fieldset(error: Any) -> Any:
    """The editor's place in the page's sidebar: its controls, its preview and ``error`` (the page's error output)."""
    from shiny import ui

    return ui.tags.fieldset(
        ui.tags.legend("Hierarchies", class_="fs-6 mb-1"),
        ui.output_ui("hierarchy_editor"),
        ui.output_ui("hierarchy_preview"),
        error,
        class_="mb-3",
    )


def column_block(
    name: str, choice: HierarchyChoice, control_id: Callable[[str], str], ns: Callable[[str], str]
) -> Any:
    """One column's controls: the kind, then the fields of its kind (shown only for that kind).

    ``control_id(control)`` is a control's id within the page's module, ``ns`` makes it the browser's id.

    Example:
        >>> html = str(column_block("age", HierarchyChoice("interval", width=10.0), lambda c: f"h0v0_{c}",
        ...                         lambda i: f"presence_{i}"))
        >>> 'id="presence_h0v0_width"' in html, 'value="10"' in html  # a whole number shown as 10, not 10.0
        (True, True)
    """
    from shiny import ui

    shown_if = control_id("kind")  # a conditional panel's condition is read inside the module's namespace
    breaks = [*choice.breaks, (), ()][:BREAK_LEVELS]
    fields = []
    for level in range(1, BREAK_LEVELS + 1):
        row = [_shown(x) for x in breaks[level - 1]]
        fields.append(ui.div(
            ui.tags.small("breaks at" if level == 1 else "a coarser level: breaks at (some of the above)"),
            ui.layout_columns(*(
                ui.input_numeric(ns(control_id(f"b{level}_{i}")), f"break {i + 1}",
                                 value=row[i] if i < len(row) else None)  # type: ignore[arg-type]
                for i in range(BREAK_FIELDS)
            ), col_widths=(4, 4, 4, 4, 4, 4)),
        ))  # fmt: skip
    return ui.div(
        ui.input_select(ns(control_id("kind")), name, KIND_LABELS, selected=choice.kind),
        ui.panel_conditional(
            f"input['{shown_if}'] === 'interval'",
            ui.layout_columns(
                # An empty number field is what the user sees for "not given" (Shiny's types say float).
                ui.input_numeric(ns(control_id("width")), "width W",
                                 value=_shown(choice.width)),  # type: ignore[arg-type]
                ui.input_numeric(ns(control_id("start")), "starting at (empty: 0)",
                                 value=_shown(choice.start)),  # type: ignore[arg-type]
                col_widths=(6, 6),
            ),
        ),
        ui.panel_conditional(
            f"input['{shown_if}'] === 'breaks'",
            *fields,
            ui.input_checkbox(ns(control_id("open")), "the last class is open (… and above)",
                              value=choice.open_top),
        ),
        class_="privrisk-hierarchy border-start ps-2 mb-2",
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ the server half


class HierarchyEditor:
    """The editor on a page: its state, its outputs ``hierarchy_editor`` and ``hierarchy_preview``, and the effect
    that remembers each column's choice so that it survives a change of the quasi-identifiers.

    Create it in the page's server function. The page sets the choices from outside the editor (a preset, the
    source, an upload) with ``choices.set(...)`` followed by :meth:`renew`, and reads :meth:`specs` and
    :meth:`error`.

    Args:
        input, session: the page's (module's) Shiny input and session.
        columns: the chosen quasi-identifiers; reactive.
        values: a column's distinct values for the preview; reactive.
        hidden: whether the page brings its own hierarchies (the demo): the editor then says so; reactive.
        initial: the choices before the user changes any.
    """

    def __init__(
        self,
        input: Any,
        session: Any,
        *,
        columns: Callable[[], list[str]],
        values: Callable[[str], list[Any]],
        hidden: Callable[[], bool],
        initial: Mapping[str, HierarchyChoice],
    ) -> None:
        from shiny import reactive, render, ui

        self.choices: reactive.Value[dict[str, HierarchyChoice]] = reactive.value(dict(initial))
        # Bumped when the choices are set from outside the editor (presets, the source, an upload).
        self.version = reactive.value(0)
        slots: dict[str, int] = {}  # a column's controls keep their ids while the column stays chosen

        def control_id(name: str, control: str) -> str:
            # A new generation of ids each time the choices are set from outside (source, upload, URL): the old
            # controls' values, which Shiny keeps, are then never read for the new ones.
            slot = slots.setdefault(name, len(slots))
            return f"h{slot}v{self.version()}_{control}"

        def choices() -> dict[str, HierarchyChoice | PrivriskError]:
            controls = {
                name: {c: input[control_id(name, c)]() for c in CONTROLS if control_id(name, c) in input}
                for name in columns()
            }
            with reactive.isolate():
                current = dict(self.choices())
            return editor_choices(columns(), controls, current)

        self._choices = choices

        @render.ui
        def hierarchy_editor() -> Any:
            names = columns()
            if hidden():
                return ui.p("The demo brings its own hierarchies (states to divisions and regions, age bands).",
                            class_="privrisk-help")  # fmt: skip
            if not names:
                return ui.p("Choose the quasi-identifiers first.", class_="privrisk-help")
            with reactive.isolate():
                current = dict(self.choices())
            return ui.TagList(*(
                column_block(name, current.get(name, HierarchyChoice()), partial(control_id, name), session.ns)
                for name in names
            ))  # fmt: skip

        @reactive.calc
        def specs() -> dict[str, str]:
            return editor_specs(choices())

        self._specs = specs

        @reactive.effect
        def _keep_choices() -> None:
            kept = {n: c for n, c in choices().items() if isinstance(c, HierarchyChoice)}
            with reactive.isolate():
                if any(self.choices().get(n) != c for n, c in kept.items()):
                    self.choices.set({**self.choices(), **kept})

        @render.ui
        def hierarchy_preview() -> Any:
            if hidden():
                return None
            items = [
                ui.tags.li(ui.strong(name), ": ", text) for name, text in preview_items(choices(), values)
            ]
            if not items:
                return None
            return ui.div(ui.tags.small("The classes each level makes:"), ui.tags.ul(*items, class_="small mb-1"),
                          class_="privrisk-preview", id="presence-hierarchy-preview")  # fmt: skip

    def renew(self) -> None:
        """Draw the controls afresh from :attr:`choices` (after the page set them from outside the editor)."""
        from shiny import reactive

        with reactive.isolate():  # the caller's effect does not depend on the generation it bumps
            self.version.set(self.version() + 1)

    def specs(self) -> dict[str, str]:
        """``{column: spec}`` of the editor (a column whose controls do not yet make a hierarchy is left out);
        reactive."""
        return self._specs()

    def error(self) -> PrivriskError | None:
        """The first column whose controls do not make a hierarchy (shown when the run is asked for); reactive."""
        return editor_error(self._choices())
