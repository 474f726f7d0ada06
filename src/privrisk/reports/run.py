"""The one way into the pages and the trade-off figure: settings checked once, the run, its result.

A newcomer finds all three here, in the shape every capability has (docs/development.md): a frozen settings
object that checks its fields when made, ``run_<x>(settings, *, progress=None)`` and a result with ``to_dict()``
(the ``--json`` document), ``sentence()`` (the verdict first, in plain words) and ``write(folder)`` (a report
folder with ``manifest.json``, whole or not at all).

- :class:`ExplainSettings` and :func:`run_explain`: the page for the people in the data (``privrisk explain`` and
  the app's Explain page). A pure ε (δ = 0 included) gets the page of Mehner et al. with its slider and the ε
  values to compare beside it; any other guarantee (a :class:`~privrisk.accounting.GuaranteeSpec`) tells the same
  story from its trade-off curve.
- :class:`ReportSettings` and :func:`run_report`: one page from the ``manifest.json`` of many result folders
  (``privrisk report``).
- :class:`TradeoffSettings` and :func:`run_tradeoff`: the trade-off curve β(α) of a guarantee beside the worst case
  with the same (ε, δ) (``privrisk tradeoff``).

Each settings object is frozen and checks its fields when made; an error is a
:class:`~privrisk.errors.PrivriskError` whose ``param`` is the field, with the fields of a guarantee named by
``names`` (the command line passes its options; default: the field's own name).

Two ways to write a result: ``write(folder)`` writes the report folder (the page or figure, the JSON document and
``manifest.json``, so that ``privrisk report`` can gather it); ``write_page(path)`` (explain, report) and
``write_figure(path)`` (tradeoff) write the one file ``--out FILE`` names, atomically, as the commands always did.
``write`` given a file of that kind (``page.html``, ``curve.svg``) still writes that one file, with a
:class:`DeprecationWarning`, for one release. The earlier home of these names, ``privrisk.reports.settings``,
still lends them.

Example:
    >>> run = run_explain(ExplainSettings(epsilon="ln3", n=100))
    >>> round(run.to_dict()["global_risk"], 2), run.to_dict()["shown"]["mw"]
    (0.75, 'about 3')
    >>> ExplainSettings(guarantee=GuaranteeSpec(rho=0.1), compare="ln2")
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: compare: other ε values go beside a pure ε only (give epsilon alone)
"""

from __future__ import annotations

import functools
import math
import os
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from privrisk._validation import check_epsilon, check_whole, parse_epsilons
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.errors import PrivriskError, deprecation_message
from privrisk.io.files import atomic_dir, check_outputs, write_json, write_text
from privrisk.progress import Progress, report
from privrisk.reports.explain import _language, _others, _people, explainer_numbers
from privrisk.reports.html import MAX_ROWS

if TYPE_CHECKING:
    import numpy as np

    from privrisk.accounting.guarantees import Guarantee

__all__ = [
    "FIGURE_SUFFIXES",
    "SCHEMA_VERSION",
    "ExplainRun",
    "ExplainSettings",
    "ReportRun",
    "ReportSettings",
    "TradeoffRun",
    "TradeoffSettings",
    "check_figure_target",
    "check_page_target",
    "page_target",
    "run_explain",
    "run_report",
    "run_tradeoff",
]

#: The fields of a guarantee that name it on the page (:func:`privrisk.reports.explain.guarantee_name`).
_NAMED = ("epsilon", "delta", "rho", "mu", "mechanism", "scale", "sigma", "sensitivity", "compose", "categories",
          "renyi", "dpsgd")  # fmt: skip
#: The files a figure of the trade-off curve may be.
FIGURE_SUFFIXES = (".svg", ".png")
#: The version of the JSON documents (``to_dict``) and of the folders' ``<kind>.json``.
SCHEMA_VERSION = 1


class _NamedChecks:
    """Settings that check themselves when made (``_check``), their errors' leading field named by ``names``."""

    names: Mapping[str, str]

    def __post_init__(self) -> None:
        names = MappingProxyType(dict(self.names))
        object.__setattr__(self, "names", names)
        try:
            self._check(names)
        except PrivriskError as exc:
            param, text = exc.param, str(exc)
            if param is None or param not in names or not text.startswith(f"{param}:"):
                raise
            raise PrivriskError(names[param] + text[len(param) :], param=param) from None

    def _check(self, names: Mapping[str, str]) -> None:  # pragma: no cover - each settings class has its own
        raise NotImplementedError


def check_page_target(
    path: str | os.PathLike[str], inputs: Sequence[str | os.PathLike[str]] = (), *, param: str = "out"
) -> Path:
    """The HTML file a page is written to, refused before any work if it cannot be: a folder, a file in a folder
    that does not exist, one of ``inputs``, or a place that cannot be written.

    Example:
        >>> import tempfile
        >>> check_page_target(tempfile.mkdtemp())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: out: ... is a folder; give the name of the HTML file to write
    """
    target = Path(path)
    if target.is_dir():
        raise PrivriskError(
            f"{param}: {target} is a folder; give the name of the HTML file to write", param=param
        )
    check_outputs(target, list(inputs), param=param)
    if not target.parent.exists():
        raise PrivriskError(f"{param}: the folder {target.parent} does not exist", param=param)
    return target


def page_target(
    out: str | os.PathLike[str] | None, *, numbers_only: bool, numbers_name: str = "numbers_only"
) -> Path | None:
    """The file a page is written to (:func:`check_page_target`), or None when only its numbers are wanted; a
    page that goes nowhere is refused (a front end names the way to ask for the numbers, ``numbers_name``).

    Example:
        >>> page_target(None, numbers_only=True) is None
        True
        >>> page_target(None, numbers_only=False, numbers_name="--json")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: out: give the HTML file to write (or --json for the numbers only)
    """
    if out is None:
        if not numbers_only:
            raise PrivriskError(
                f"out: give the HTML file to write (or {numbers_name} for the numbers only)", param="out"
            )
        return None
    return check_page_target(out)


def _folder(
    folder: str | os.PathLike[str],
    kind: str,
    document: Mapping[str, Any],
    files: Any,
    *,
    title: str,
    sentence: str,
    summary: Mapping[str, Any] | None = None,
    tables: list[dict[str, Any]] | None = None,
    figures: list[dict[str, str]] | None = None,
) -> list[Path]:
    """A result's report folder, whole or not at all: what ``files(tmp)`` writes (it returns the names), the JSON
    document as ``<kind>.json`` and ``manifest.json`` (its summary the document's, its finding the sentence)."""
    from privrisk.reports.manifest import MANIFEST, write_manifest

    target = Path(folder)
    with atomic_dir(target) as tmp:
        names = [*files(tmp), f"{kind}.json"]
        write_json(tmp / f"{kind}.json", document)
        write_manifest(tmp, kind=kind, title=title, summary=dict(document if summary is None else summary),
                       findings=[sentence], tables=tables, figures=figures)  # fmt: skip
    return [target / name for name in [*names, MANIFEST]]


def _one_file(method: str, path: str | os.PathLike[str], suffixes: Sequence[str]) -> bool:
    """Whether ``write(path)`` is the earlier call that wrote one file (``page.html``, ``curve.svg``): it still
    does, for one release, with a warning that names ``method``."""
    if Path(path).suffix.lower() not in suffixes:
        return False
    warnings.warn(deprecation_message("write(file)", f"{method}(file), or write(folder) for a report folder"),
                  DeprecationWarning, stacklevel=3)  # fmt: skip
    return True


# --------------------------------------------------------------------------------------------------------------
# The page for the people in the data
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ExplainSettings(_NamedChecks):
    """What the page for the people in the data explains, checked as a whole when made.

    Args:
        epsilon: ε > 0 of a pure-ε release (the total of all releases; a number or ``ln3``).
        guarantee: any other guarantee, as a :class:`~privrisk.accounting.GuaranteeSpec`; one that states a pure
            ε alone (δ = 0 included) is taken as ``epsilon``. Give this or ``epsilon``.
        n: the number of people the attacker picks among (2 to 10¹²), or None; also as typed (``"1,000"``; an
            empty text is None).
        compare: other ε values to show beside a pure ε (a list, or one text such as ``"ln2,ln7"``).
        lang: ``"en"`` or ``"de"``.
        names: how messages name the guarantee's fields (the command line passes its options); not compared.

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = ExplainSettings(guarantee=GuaranteeSpec(epsilon="ln3", delta=0.0), compare="ln2", lang="DE")
        >>> round(s.epsilon, 4), s.guarantee, [round(c, 4) for c in s.compare], s.lang
        (1.0986, None, [0.6931], 'de')
    """

    epsilon: float | str | None = None
    guarantee: GuaranteeSpec | None = None
    n: int | str | None = None
    compare: Sequence[float | str] | str = ()
    lang: str = "en"
    names: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    _built: Guarantee | None = field(default=None, init=False, compare=False, repr=False)

    def _check(self, names: Mapping[str, str]) -> None:
        spec = self.guarantee
        if spec is not None and self.epsilon is not None:
            raise PrivriskError("guarantee: give epsilon or guarantee, not both", param="guarantee")
        if spec is not None and set(spec.options()) <= {"epsilon", "delta"} and not spec.delta:
            # A pure ε, however it was stated, keeps the page of Mehner et al. with its slider.
            object.__setattr__(self, "epsilon", spec.epsilon)
            object.__setattr__(self, "guarantee", spec := None)
        if spec is None and self.epsilon is None:
            GuaranteeSpec().build(names=names)  # the error that names every way to give a guarantee
        compare = self.compare
        if isinstance(compare, str):  # one text, as typed: "ln2,ln7" (an empty text compares nothing)
            compare = parse_epsilons(compare, name="compare") if compare.strip() else []
        if spec is not None:
            if len(compare):
                raise PrivriskError(
                    f"compare: other ε values go beside a pure ε only (give {names.get('epsilon', 'epsilon')} "
                    "alone)",
                    param="compare",
                )
            object.__setattr__(self, "_built", spec.build(names=names))
        else:
            eps = check_epsilon(self.epsilon, name="epsilon")
            object.__setattr__(self, "epsilon", eps)
            explainer_numbers(eps, lang=self.lang)  # ε beyond what the page tells
        object.__setattr__(self, "compare", _others(compare))
        object.__setattr__(self, "n", _count_of_people(self.n))
        object.__setattr__(self, "lang", _language(self.lang))

    @property
    def people(self) -> int | None:
        """n, checked (:attr:`n` is held as this whole number once made)."""
        return None if self.n is None else int(self.n)

    def name(self) -> str | None:
        """The guarantee in a few symbols for the page's title (None for a pure ε).

        Example:
            >>> ExplainSettings(guarantee=GuaranteeSpec(rho=0.5, compose=10), lang="de").name()
            'ρ = 0,5, 10 Veröffentlichungen'
        """
        if self.guarantee is None:
            return None
        from privrisk.reports.explain import guarantee_name

        options = {k: getattr(self.guarantee, k) for k in _NAMED}
        if options["epsilon"] is not None:
            options["epsilon"] = check_epsilon(options["epsilon"], name="epsilon")
        if isinstance(options["dpsgd"], tuple | list):
            options["dpsgd"] = ",".join(str(v) for v in options["dpsgd"])
        return guarantee_name(**options, lang=self.lang)


@dataclass(frozen=True)
class ExplainRun:
    """The page of :func:`run_explain`: its numbers (:meth:`to_dict`), its HTML (:attr:`page`), its file."""

    settings: ExplainSettings
    guarantee: Guarantee | None
    name: str | None
    document: Mapping[str, Any]

    @functools.cached_property
    def page(self) -> str:
        """The page as one self-contained HTML document."""
        from privrisk.reports.explain import explainer_page, guarantee_page

        s = self.settings
        if self.guarantee is None:
            assert isinstance(s.epsilon, float)
            return explainer_page(s.epsilon, n=s.people, compare=list(s.compare), lang=s.lang)
        return guarantee_page(self.guarantee, n=s.people, lang=s.lang, name=self.name)

    @property
    def paragraph(self) -> str:
        """The page's paragraph for a consent form."""
        return str(self.document["paragraph"])

    def to_dict(self, out: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The page's numbers as the JSON document of ``privrisk explain --json``, with ``out`` the file written
        (None: none).

        Example:
            >>> doc = run_explain(ExplainSettings(epsilon=1.0, n=21)).to_dict()
            >>> round(doc["many_worlds"], 4) == round(1 / (1 + 20 / math.e), 4), doc["out"]
            (True, None)
        """
        return {"schema_version": SCHEMA_VERSION, **self.document, "out": None if out is None else str(out)}

    def sentence(self) -> str:
        """The page's message in plain words: its paragraph for a consent form.

        Example:
            >>> run_explain(ExplainSettings(epsilon="ln3")).sentence()  # doctest: +ELLIPSIS
            "Suppose an attacker knows everyone else's data ... right about 75 times; guessing alone would be right 50 times. ..."
        """
        return self.paragraph

    def write_page(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (``--out FILE``) atomically (whole or not at all); returns the path."""
        target = check_page_target(path)
        write_text(target, self.page)
        return target

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``explain.html``, ``explain.json`` and ``manifest.json`` into ``folder``, whole or not at all;
        returns the paths. (A path ending in ``.html`` is the earlier call: that one page, with a warning.)"""
        if _one_file("write_page", folder, (".html",)):
            return self.write_page(folder)  # type: ignore[return-value]

        def files(tmp: Path) -> list[str]:
            write_text(tmp / "explain.html", self.page)
            return ["explain.html"]

        title = "The page for the people in the data" + (f": {self.name}" if self.name else "")
        return _folder(folder, "explain", self.to_dict(), files, title=title, sentence=self.sentence())


def run_explain(settings: ExplainSettings, *, progress: Progress | None = None) -> ExplainRun:
    """The page for the settings: the numbers of :func:`~privrisk.reports.explain.explainer_document` for a pure
    ε, of :func:`~privrisk.reports.explain.guarantee_document` for any other guarantee.

    Example:
        >>> run = run_explain(ExplainSettings(guarantee=GuaranteeSpec(mu=1.0), n=100))
        >>> run.name, round(run.to_dict()["advantage"], 3)          # 2Φ(½) − 1
        ('μ = 1', 0.383)
    """
    from privrisk.reports.explain import explainer_document, guarantee_document

    s = settings
    if s._built is None:
        assert isinstance(s.epsilon, float)
        doc = explainer_document(s.epsilon, n=s.people, compare=list(s.compare), lang=s.lang)
        run = ExplainRun(s, None, None, doc)
    else:
        name = s.name()
        run = ExplainRun(s, s._built, name, guarantee_document(s._built, n=s.people, lang=s.lang, name=name))
    report(progress, 1.0, "done")
    return run


def _count_of_people(n: int | str | None) -> int | None:
    """n as given, or as typed (``"1,000"``, ``"1_000"``; an empty text is none), checked (2 to 10¹²)."""
    if isinstance(n, str):
        typed = n.strip()
        if not typed:
            return None
        try:
            whole = int(typed.replace(",", "").replace("_", ""))
        except ValueError:
            raise PrivriskError(f"n: {typed!r} is not a whole number", param="n") from None
        return _people(whole)
    return None if n is None else _people(n)


# --------------------------------------------------------------------------------------------------------------
# One page from many result folders
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportSettings:
    """The result folders to gather into one page (``privrisk report``), checked when made.

    Args:
        folders: folders written by privrisk (each with its ``manifest.json``), in the order shown.
        title: the page's title.
        max_rows: rows of each table shown before it is cut (≥ 1).
        include_internal: also show the tables not for publication, marked so.

    Example:
        >>> ReportSettings(folders=[])
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: folders: give at least one folder with a manifest.json
    """

    folders: Sequence[str | os.PathLike[str]]
    title: str = "privrisk report"
    max_rows: int = MAX_ROWS
    include_internal: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "folders", tuple(Path(f) for f in self.folders))
        if not self.folders:
            raise PrivriskError("folders: give at least one folder with a manifest.json", param="folders")
        object.__setattr__(self, "max_rows", check_whole(self.max_rows, name="max_rows", minimum=1))

    def inputs(self) -> list[Path]:
        """What the page reads: each folder's manifest and the tables and figures beside it (an output must be
        none of them)."""
        found: list[Path] = []
        for folder in self.folders:
            assert isinstance(folder, Path)
            found.append(folder / "manifest.json")
            if folder.is_dir():
                found += [
                    p for p in folder.rglob("*") if p.suffix.lower() in (".json", ".csv", ".svg", ".png")
                ]
        return found


@dataclass(frozen=True)
class ReportRun:
    """The page of :func:`run_report` and what went into it."""

    settings: ReportSettings
    page: str
    info: Mapping[str, Any]

    def to_dict(self, out: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """What went into the page, as the JSON document of ``privrisk report --json``: ``out``, ``sections``
        (kind, title, folder, figures, tables) and ``problems``."""
        return {"schema_version": SCHEMA_VERSION, "out": None if out is None else str(out), **self.info}

    def sentence(self) -> str:
        """What the page holds, in plain words: its sections, and what could not be shown.

        Example:
            >>> import tempfile
            >>> from privrisk.reports.manifest import write_manifest
            >>> d = tempfile.mkdtemp(); _ = write_manifest(d, kind="study", title="Sampling study")
            >>> run_report(ReportSettings(folders=[d])).sentence()
            'The page gathers 1 result folder (study); every figure and table is shown.'
        """
        sections = list(self.info.get("sections", []))
        kinds = ", ".join(dict.fromkeys(str(section["kind"]) for section in sections))
        problems = int(self.info.get("problems", 0))
        shown = ("every figure and table is shown" if not problems
                 else f"{problems} figure(s) or table(s) could not be shown; the page says which and why")  # fmt: skip
        count = f"{len(sections)} result folder{'' if len(sections) == 1 else 's'}"
        return f"The page gathers {count} ({kinds}); {shown}."

    def write_page(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` (``--out FILE``) atomically, never over one of the folders' files; returns
        the path."""
        target = check_page_target(path, self.settings.inputs())
        write_text(target, self.page)
        return target

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``report.html``, ``report.json`` and ``manifest.json`` into ``folder``, whole or not at all (never
        into one of the folders it gathers); returns the paths. (A path ending in ``.html`` is the earlier call:
        that one page, with a warning.)"""
        if _one_file("write_page", folder, (".html",)):
            return self.write_page(folder)  # type: ignore[return-value]
        target = Path(folder)
        if any(target.resolve() == Path(f).resolve() for f in self.settings.folders):
            raise PrivriskError(f"out: {target} is one of the folders the page gathers", param="out")

        def files(tmp: Path) -> list[str]:
            write_text(tmp / "report.html", self.page)
            return ["report.html"]

        return _folder(
            target, "report", self.to_dict(), files, title=self.settings.title, sentence=self.sentence()
        )


def run_report(settings: ReportSettings, *, progress: Progress | None = None) -> ReportRun:
    """Read each folder's manifest and build the page (:func:`privrisk.reports.html.report_page`).

    Example:
        >>> import tempfile
        >>> from privrisk.reports.manifest import write_manifest
        >>> d = tempfile.mkdtemp(); _ = write_manifest(d, kind="study", title="Sampling study")
        >>> run_report(ReportSettings(folders=[d])).to_dict()["sections"][0]["title"]
        'Sampling study'
    """
    from privrisk.reports.html import report_page

    s = settings
    page, info = report_page(
        [str(f) for f in s.folders], title=s.title, max_rows=s.max_rows, include_internal=s.include_internal
    )
    report(progress, 1.0, "done")
    return ReportRun(s, page, info)


# --------------------------------------------------------------------------------------------------------------
# The trade-off curve
# --------------------------------------------------------------------------------------------------------------


def check_figure_target(path: str | os.PathLike[str], *, param: str = "out") -> Path:
    """The file the trade-off figure is written to, refused before any work: not ``.svg`` or ``.png``, or a
    place that cannot be written.

    Example:
        >>> check_figure_target("curve.pdf")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: out: give a file ending in .svg or .png, got 'curve.pdf'
    """
    target = Path(path)
    check_outputs(target, [], param=param)
    if target.suffix.lower() not in FIGURE_SUFFIXES:
        raise PrivriskError(f"{param}: give a file ending in .svg or .png, got {target.name!r}", param=param)
    return target


@dataclass(frozen=True)
class TradeoffSettings(_NamedChecks):
    """The trade-off curve to draw, checked when made.

    Args:
        guarantee: the guarantee (:class:`~privrisk.accounting.GuaranteeSpec`).
        at_delta: δ of the worst case beside it, in [0, 1) (None: 10⁻⁶, or the guarantee's own δ if larger).
        grid: the false-positive rates α the curves are computed at, in [0, 1] (None: the figure's grid, dense
            near 0, :func:`privrisk.reports.plots.tradeoff.alpha_grid`).
        names: how messages name the guarantee's fields (the command line passes its options); not compared.

    Example:
        >>> TradeoffSettings(GuaranteeSpec(mu=1.0), at_delta=1.0)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: at_delta: must be in [0, 1), got 1
    """

    guarantee: GuaranteeSpec
    at_delta: float | None = None
    grid: Sequence[float] | None = None
    names: Mapping[str, str] = field(default_factory=dict, compare=False, repr=False)
    _built: Guarantee | None = field(default=None, init=False, compare=False, repr=False)

    def _check(self, names: Mapping[str, str]) -> None:
        import numpy as np

        object.__setattr__(self, "_built", self.guarantee.build(names=names))
        d = self.at_delta
        if d is not None and not (math.isfinite(d) and 0 <= d < 1):
            raise PrivriskError(f"at_delta: must be in [0, 1), got {d:g}", param="at_delta")
        if self.grid is not None:
            a = np.asarray(self.grid, dtype=float).ravel()
            if a.size == 0 or not np.all((a >= 0) & (a <= 1)):
                raise PrivriskError("grid: give false-positive rates in [0, 1]", param="grid")
            object.__setattr__(self, "grid", tuple(float(x) for x in a))


@dataclass(frozen=True)
class TradeoffRun:
    """The curves of :func:`run_tradeoff`: the guarantee's β(α) and the worst case's, at the same α."""

    settings: TradeoffSettings
    guarantee: Guarantee
    worst_case: Guarantee
    alpha: np.ndarray
    beta: np.ndarray
    beta_worst_case: np.ndarray

    def curves(self) -> list[tuple[str, np.ndarray, np.ndarray]]:
        """(label, α, β) of the guarantee and of its worst case, as the figure draws them."""
        return [
            (self.guarantee.label, self.alpha, self.beta),
            (f"worst case: {self.worst_case.label}", self.alpha, self.beta_worst_case),
        ]

    def to_dict(self, out: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The curves as the JSON document of ``privrisk tradeoff --json``.

        Example:
            >>> doc = run_tradeoff(TradeoffSettings(GuaranteeSpec(epsilon=1.0), grid=[0.0, 1.0])).to_dict()
            >>> doc["beta"]                    # β(0) = 1 and β(1) = 0 for every guarantee
            [1.0, 0.0]
            >>> doc["worst_case"]              # of pure ε: randomized response, truthful with e/(1 + e)
            'randomized response, ε = 1 (truthful with probability 73.1 %)'
        """
        g, w = self.guarantee, self.worst_case
        return {"schema_version": SCHEMA_VERSION, "out": None if out is None else str(out), "guarantee": g.label,
                "conversion": g.conversion,
                "worst_case": w.label, "alpha": self.alpha.tolist(), "beta": self.beta.tolist(),
                "beta_worst_case": self.beta_worst_case.tolist()}  # fmt: skip

    def sentence(self) -> str:
        """The curve in plain words: the guarantee, how it was read, and the worst case beside it.

        Example:
            >>> run_tradeoff(TradeoffSettings(GuaranteeSpec(mu=1.0), grid=[0.5])).sentence()
            'The trade-off curve of μ = 1 (Gaussian differential privacy), beside the worst case with the same (ε, δ): (ε = 4.887, δ = 1e-06)-differential privacy.'
        """
        return (f"The trade-off curve of {self.guarantee.label}, beside the worst case with the same (ε, δ): "
                f"{self.worst_case.label}.")  # fmt: skip

    @property
    def title(self) -> str:
        """The figure's title."""
        return f"Trade-off curve of {self.guarantee.label}"

    def write_figure(self, path: str | os.PathLike[str]) -> Path:
        """Draw the figure into ``path`` (``.svg`` or ``.png``; ``--out FILE``), atomically: whole or not at all."""
        from privrisk.reports.plots.tradeoff import tradeoff_figure

        target = check_figure_target(path)
        return tradeoff_figure(self.curves(), target, title=self.title)

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write the figure (``tradeoff.svg`` and ``.png``), the curves (``tradeoff.csv``), ``tradeoff.json`` and
        ``manifest.json`` into ``folder``, whole or not at all; returns the paths. (A path ending in ``.svg`` or
        ``.png`` is the earlier call: that one figure, with a warning.)"""
        if _one_file("write_figure", folder, FIGURE_SUFFIXES):
            return self.write_figure(folder)  # type: ignore[return-value]
        import pandas as pd

        from privrisk.io.files import write_csv
        from privrisk.reports.plots.tradeoff import tradeoff_figures

        figure = {"svg": "tradeoff.svg", "png": "tradeoff.png"}  # the names tradeoff_figures gives the stem

        def files(tmp: Path) -> list[str]:
            assert tradeoff_figures(self.curves(), tmp, "tradeoff", title=self.title) == figure
            curves = {"alpha": self.alpha, "beta": self.beta, "beta_worst_case": self.beta_worst_case}
            write_csv(pd.DataFrame(curves), tmp / "tradeoff.csv")
            return [figure["svg"], figure["png"], "tradeoff.csv"]

        doc = self.to_dict()
        summary = {k: doc[k] for k in ("guarantee", "conversion", "worst_case")}
        return _folder(folder, "tradeoff", doc, files, title=self.title, sentence=self.sentence(), summary=summary,
                       tables=[{"title": "β(α) of the guarantee and of its worst case", "path": "tradeoff.csv"}],
                       figures=[{"title": self.title, **figure}])  # fmt: skip


def run_tradeoff(settings: TradeoffSettings, *, progress: Progress | None = None) -> TradeoffRun:
    """β(α) of the guarantee and of the worst case with the same (ε, δ) (:func:`privrisk.accounting.worst_case`).

    Example (μ-GDP: β(α) = Φ(Φ⁻¹(1 − α) − μ), so β(½) = Φ(−μ)):
        >>> run = run_tradeoff(TradeoffSettings(GuaranteeSpec(mu=1.0), grid=[0.5]))
        >>> round(float(run.beta[0]), 4)
        0.1587
    """
    import numpy as np

    from privrisk.accounting.risks import worst_case
    from privrisk.reports.plots.tradeoff import alpha_grid

    s = settings
    assert s._built is not None
    g = s._built
    worst = worst_case(g, s.at_delta)
    alpha = alpha_grid() if s.grid is None else np.asarray(s.grid, dtype=float)
    run = TradeoffRun(s, g, worst, alpha, np.asarray(g.tradeoff(alpha)), np.asarray(worst.tradeoff(alpha)))
    report(progress, 1.0, "done")
    return run
