"""One way into the pages and the trade-off figure: settings checked once, and the functions that run them.

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
``names`` (the command line passes its options; default: the field's own name). Each result gives its JSON
document (``to_dict``) and writes its file atomically, whole or not at all (``write``).

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from privrisk._validation import check_epsilon, check_whole, parse_epsilons
from privrisk.accounting.spec import GuaranteeSpec
from privrisk.errors import PrivriskError
from privrisk.io.files import check_outputs, write_text
from privrisk.reports.explain import _language, _others, _people, explainer_numbers
from privrisk.reports.html import MAX_ROWS

if TYPE_CHECKING:
    import numpy as np

    from privrisk.accounting.guarantees import Guarantee

__all__ = [
    "ExplainRun",
    "ExplainSettings",
    "ReportRun",
    "ReportSettings",
    "TradeoffRun",
    "TradeoffSettings",
    "check_figure_target",
    "check_page_target",
    "run_explain",
    "run_report",
    "run_tradeoff",
]

#: The fields of a guarantee that name it on the page (:func:`privrisk.reports.explain.guarantee_name`).
_NAMED = ("epsilon", "delta", "rho", "mu", "mechanism", "scale", "sigma", "sensitivity", "compose", "categories",
          "renyi", "dpsgd")  # fmt: skip
#: The files a figure of the trade-off curve may be.
FIGURE_SUFFIXES = (".svg", ".png")


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
        n: the number of people the attacker picks among (2 to 10¹²), or None.
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
    n: int | None = None
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
        object.__setattr__(self, "n", None if self.n is None else _people(self.n))
        object.__setattr__(self, "lang", _language(self.lang))

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
            return explainer_page(s.epsilon, n=s.n, compare=list(s.compare), lang=s.lang)
        return guarantee_page(self.guarantee, n=s.n, lang=s.lang, name=self.name)

    @property
    def paragraph(self) -> str:
        """The page's paragraph for a consent form."""
        return str(self.document["paragraph"])

    def to_dict(self, out: str | os.PathLike[str] | None = None) -> dict[str, Any]:
        """The page's numbers as the JSON document of ``privrisk explain --json`` (without ``schema_version``),
        with ``out`` the file written (None: none).

        Example:
            >>> doc = run_explain(ExplainSettings(epsilon=1.0, n=21)).to_dict()
            >>> round(doc["many_worlds"], 4) == round(1 / (1 + 20 / math.e), 4), doc["out"]
            (True, None)
        """
        return {**self.document, "out": None if out is None else str(out)}

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` atomically (whole or not at all); returns the path."""
        target = check_page_target(path)
        write_text(target, self.page)
        return target


def run_explain(settings: ExplainSettings) -> ExplainRun:
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
        doc = explainer_document(s.epsilon, n=s.n, compare=list(s.compare), lang=s.lang)
        return ExplainRun(s, None, None, doc)
    name = s.name()
    return ExplainRun(s, s._built, name, guarantee_document(s._built, n=s.n, lang=s.lang, name=name))


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
        """What went into the page, as the JSON document of ``privrisk report --json`` (without
        ``schema_version``): ``out``, ``sections`` (kind, title, folder, figures, tables) and ``problems``."""
        return {"out": None if out is None else str(out), **self.info}

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Write the page to ``path`` atomically (never over one of the folders' files); returns the path."""
        target = check_page_target(path, self.settings.inputs())
        write_text(target, self.page)
        return target


def run_report(settings: ReportSettings) -> ReportRun:
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
        """The curves as the JSON document of ``privrisk tradeoff --json`` (without ``schema_version``).

        Example:
            >>> doc = run_tradeoff(TradeoffSettings(GuaranteeSpec(epsilon=1.0), grid=[0.0, 1.0])).to_dict()
            >>> doc["beta"]                    # β(0) = 1 and β(1) = 0 for every guarantee
            [1.0, 0.0]
            >>> doc["worst_case"]              # of pure ε: randomized response, truthful with e/(1 + e)
            'randomized response, ε = 1 (truthful with probability 73.1 %)'
        """
        g, w = self.guarantee, self.worst_case
        return {"out": None if out is None else str(out), "guarantee": g.label, "conversion": g.conversion,
                "worst_case": w.label, "alpha": self.alpha.tolist(), "beta": self.beta.tolist(),
                "beta_worst_case": self.beta_worst_case.tolist()}  # fmt: skip

    def write(self, path: str | os.PathLike[str]) -> Path:
        """Draw the figure into ``path`` (``.svg`` or ``.png``), atomically: whole or not at all."""
        from privrisk.reports.plots.tradeoff import tradeoff_figure

        target = check_figure_target(path)
        return tradeoff_figure(self.curves(), target, title=f"Trade-off curve of {self.guarantee.label}")


def run_tradeoff(settings: TradeoffSettings) -> TradeoffRun:
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
    return TradeoffRun(s, g, worst, alpha, np.asarray(g.tradeoff(alpha)), np.asarray(worst.tradeoff(alpha)))
