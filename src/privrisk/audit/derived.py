"""The effective scale and ε of a query an intruder derives from another one (Sarathy and Muralidhar 2009, Table 4).

Each query gets Laplace noise of its own data-dependent scale b = Δf_n(X)/ε (:mod:`privrisk.audit.leave_out`).
Since sum = n·mean, the released mean times n estimates the sum with scale n·b_mean, often far below b_sum: the
sum's effective ε is Δf_sum/(n·b_mean), which grows with the data's distance from 0 (their Table 4: 4, 44 and
20004 at ε = 2 for X = 1…10, 101…110 and 50001…50010).

Erratum (docs/errata.md): for X = 101…110 the text of Sarathy and Muralidhar states "effective b_Sum = 12.5";
n·b_mean = 10·0.25 = 2.5, as their Table 4 prints. 12.5 is the variance 2·n²·b_mean² of the derived estimate,
which the text gives for X = 1…10.

The one way in of ``privrisk derived``, in the shape of every capability: :class:`DerivedSettings` (the values
first), :func:`run_derived` and its :class:`DerivedRun` (``to_dict``, ``sentence``, ``write(folder)``).
``DerivedScale``, the result's earlier name, still works for one release, with a warning.

Example:
    >>> d = derived_scale(list(range(1, 11)), 2)
    >>> d.effective_scale, d.effective_epsilon
    (2.5, 4.0)
"""

from __future__ import annotations

import dataclasses
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, cast

import numpy as np
from numpy.typing import ArrayLike

from privrisk import _validation as V
from privrisk._format import number as _number
from privrisk.audit.intruder import check_alpha
from privrisk.audit.leave_out import _check_records, _provider
from privrisk.errors import PrivriskError, renamed_attributes
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["MAX_RANGE", "TARGETS", "DerivedRun", "DerivedSettings", "Target", "derived_scale", "run_derived"]

Target = Literal["count", "sum", "mean"]
"""The queries with a linear relation among them (the intruder knows n): sum = n·mean."""
TARGETS: tuple[Target, ...] = ("count", "sum", "mean")


@dataclass(frozen=True)
class DerivedRun:
    """Table 4 of Sarathy and Muralidhar (2009): the scale an intruder faces for ``target`` through ``via`` (the
    result of :func:`run_derived` and :func:`derived_scale`; its earlier name ``DerivedScale`` warns).

    ``f``, ``f_star``, ``delta`` and ``scale`` map each query (target and via) to f_n(X), f_{n−1}(X*), Δf_n(X)
    and b = Δf_n(X)/ε; ``factor`` is a in target = a·via; ``effective_scale`` = |a|·b_via and
    ``effective_epsilon`` = Δf_target/effective_scale.
    """

    target: V.Query
    via: V.Query
    n: int
    epsilon: float
    factor: float
    f: dict[str, float]
    f_star: dict[str, float]
    delta: dict[str, float]
    scale: dict[str, float]
    effective_scale: float
    effective_epsilon: float
    alpha: float
    source: str | None = None
    """Where the values came from (a file and column, a range), when :func:`run_derived` read them."""

    @property
    def epsilon_ratio(self) -> float:
        """The effective ε of the target over the ε that was set (Table 4: 2, 22 and 10002)."""
        return self.effective_epsilon / self.epsilon

    @property
    def variance(self) -> dict[str, float]:
        """The variance 2b² of each query's Laplace noise (theirs: 2·5² = 50 for the sum and 2·0.25² = 0.125 for
        the mean of X = 1…10).

        Example:
            >>> derived_scale(list(range(1, 11)), 2).variance
            {'sum': 50.0, 'mean': 0.125}
        """
        return {q: 2 * b * b for q, b in self.scale.items()}

    @property
    def effective_variance(self) -> float:
        """The variance 2a²b_via² of the derived estimate a·(released answer) (theirs: 2n²b_mean² = 12.5).

        Example:
            >>> derived_scale(list(range(1, 11)), 2).effective_variance
            12.5
        """
        return 2 * self.effective_scale * self.effective_scale

    def half_width(self, scale: float) -> float:
        """Half the (α, 1 − α) range of Laplace(0, b) noise: b·ln(1/(2α)) (theirs: ±42.59 for b = 5)."""
        return scale * math.log(1 / (2 * self.alpha))

    def table(self) -> pd.DataFrame:
        """Rows as their Table 4 with the noise variances 2b² and half-widths (the text beside their Table 4); one
        column for the target and one for the released query."""
        import pandas as pd

        cols = [self.target] if self.target == self.via else [self.target, self.via]
        rows = {
            "f_n(X)": [self.f[c] for c in cols],
            "f_n-1(X*)": [self.f_star[c] for c in cols],
            "Δf_n(X)": [self.delta[c] for c in cols],
            "ε": [self.epsilon for _ in cols],
            "b": [self.scale[c] for c in cols],
            "noise variance 2b²": [self.variance[c] for c in cols],
            "noise half-width": [self.half_width(self.scale[c]) for c in cols],
            "effective b": [self.effective_scale] + [math.nan] * (len(cols) - 1),
            "effective variance": [self.effective_variance] + [math.nan] * (len(cols) - 1),
            "effective half-width": [self.half_width(self.effective_scale)] + [math.nan] * (len(cols) - 1),
            "effective ε": [self.effective_epsilon] + [math.nan] * (len(cols) - 1),
        }
        return pd.DataFrame(rows, index=cols).T

    def summary(self) -> dict[str, Any]:
        """The numbers as plain JSON-able values, with the noise ranges (``half_width``)."""
        return {
            **{name: getattr(self, name) for name in _SUMMARISED},
            "half_width": {
                self.target: self.half_width(self.scale[self.target]),
                "effective": self.half_width(self.effective_scale),
            },
            "variance": self.variance,
            "effective_variance": self.effective_variance,
        }

    def to_dict(self) -> dict[str, Any]:
        """One JSON-able document (``privrisk derived --json`` adds ``schema_version``): :meth:`summary`,
        ``epsilon_ratio`` and the :meth:`sentence`.

        Example:
            >>> doc = derived_scale(list(range(101, 111)), 2).to_dict()
            >>> doc["effective_epsilon"], doc["epsilon_ratio"]
            (44.0, 22.0)
        """
        head = {} if self.source is None else {"source": self.source}
        return {**head, **self.summary(), "epsilon_ratio": self.epsilon_ratio, "sentence": self.sentence()}

    def sentence(self) -> str:
        """What releasing ``via`` does to the ε of ``target``, in one sentence.

        Example:
            >>> derived_scale(list(range(101, 111)), 2).sentence()
            'Releasing the mean with ε = 2 lets an intruder estimate the sum as 10·mean with noise of scale 2.5 instead of 55: for the sum that is ε = 44, 22 times the ε you set.'
        """
        return (
            f"Releasing the {self.via} with ε = {self.epsilon:.4g} lets an intruder estimate the {self.target} as "
            f"{_factor(self.factor)}·{self.via} with noise of scale {self.effective_scale:,.6g} instead of "
            f"{self.scale[self.target]:,.6g}: for the {self.target} that is ε = {self.effective_epsilon:,.6g}, "
            f"{self.epsilon_ratio:,.6g} times the ε you set."
        )

    def sentences(self) -> list[str]:
        """What the command prints below the table: the noise ranges, the variances and the :meth:`sentence`.

        Example:
            >>> for line in derived_scale(list(range(1, 11)), 2).sentences()[:2]:
            ...     print(line)
            Noise range (0.01 % – 99.99 %): ±42.59 asking for the sum directly, ±21.29 through the mean.
            Noise variance 2b²: 50 for the sum asked directly, 0.125 for the mean; 12.5 for the sum estimated as 10·mean (2·10²·0.25²).
        """
        return [self.range_sentence(), self.variance_sentence(), self.sentence()]

    def range_sentence(self) -> str:
        """The (α, 1 − α) noise ranges, asking for the target directly and through ``via``."""
        conf = f"{100 * self.alpha:.10g} % – {100 * (1 - self.alpha):.10g} %"
        return (
            f"Noise range ({conf}): ±{self.half_width(self.scale[self.target]):,.2f} asking for the "
            f"{self.target} directly, ±{self.half_width(self.effective_scale):,.2f} through the {self.via}."
        )

    def variance_sentence(self) -> str:
        """The noise variances 2b² of the published answers and of the derived estimate."""
        published = ", ".join(
            f"{_number(self.variance[q])} for the {q}{' asked directly' if q == self.target else ''}"
            for q in dict.fromkeys((self.target, self.via))
        )
        return (
            f"Noise variance 2b²: {published}; {_number(self.effective_variance)} for the {self.target} estimated "
            f"as {_factor(self.factor)}·{self.via} (2·{_factor(self.factor)}²·{_number(self.scale[self.via])}²)."
        )

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write ``derived.csv`` (the table), ``derived.json`` (:meth:`to_dict`) and ``manifest.json`` into
        ``folder``, whole or not at all; returns the paths.

        Example:
            >>> import tempfile
            >>> [p.name for p in derived_scale(list(range(1, 11)), 2).write(tempfile.mkdtemp())]
            ['derived.csv', 'derived.json', 'manifest.json']
        """
        from privrisk.io.files import atomic_dir, to_jsonable, write_csv, write_json
        from privrisk.reports.manifest import MANIFEST, write_manifest

        target, doc = Path(folder), to_jsonable(self.to_dict())
        with atomic_dir(target) as tmp:
            write_csv(self.table(), tmp / "derived.csv", index=True)
            write_json(tmp / "derived.json", {"schema_version": 1, **doc})
            write_manifest(tmp, kind="derived", title=f"The {self.target} derived from the {self.via}",
                           parameters={"source": self.source, "alpha": self.alpha}, summary=doc,
                           findings=self.sentences(), tables=[{"title": "Table 4 of Sarathy and Muralidhar (2009)",
                                                               "path": "derived.csv"}])  # fmt: skip
        return [target / name for name in ("derived.csv", "derived.json", MANIFEST)]


#: The fields :meth:`DerivedRun.summary` gives as they are.
_SUMMARISED = ("target", "via", "n", "epsilon", "factor", "f", "f_star", "delta", "scale", "effective_scale",
               "effective_epsilon", "alpha")  # fmt: skip


def _factor(a: float) -> str:
    if a == 1:
        return "1"
    if a >= 1:
        return f"{a:g}"
    return f"(1/{1 / a:g})"


def _linear_factor(target: str, via: str, n: int) -> float:
    """a in target = a·via for the linear relations among count, sum and mean (n known to the intruder)."""
    if target == via:
        return 1.0
    if {target, via} == {"sum", "mean"}:
        return float(n) if target == "sum" else 1.0 / n
    if "count" in (target, via) and {target, via} <= set(TARGETS):
        raise PrivriskError(
            f"via: the {target} is not a linear function of the {via} (count = sum/mean is a ratio); "
            "supported: sum via mean, mean via sum, or a query via itself",
            param="via",
        )
    arg, bad = ("target", target) if target not in TARGETS else ("via", via)
    raise PrivriskError(
        f"{arg}: no linear relation between the {target} and the {via} ({bad} is not one of count, sum, mean); "
        "supported: sum via mean, mean via sum, or a query via itself",
        param=arg,
    )


def _check_target(query: str, name: str) -> V.Query:
    word = str(query).strip().lower()
    if word not in V.QUERIES and word != "var":
        raise PrivriskError(f"{name}: unknown query {query!r}; choose count, sum or mean", param=name)
    return cast(V.Query, V.check_query(query, name=name))


def derived_scale(
    values: ArrayLike, epsilon: float, *, target: str = "sum", via: str = "mean", alpha: float = 1e-4
) -> DerivedRun:
    """The effective scale and ε of ``target`` derived from the released ``via`` (Sarathy and Muralidhar 2009).

    Their Table 4. Each query gets data-dependent noise b = Δf_n(X)/ε. Since sum = n·mean, the answer to the mean,
    scaled by n, is an estimate of the sum with effective scale n·b_mean; the effective ε of the sum is
    Δf_sum/(n·b_mean), which grows with the data's distance from 0 (theirs: 4, 44 and 20004 at ε = 2). Linear
    relations among count, sum and mean only (:data:`TARGETS`); others raise.

    Args:
        values: the records, at least three.
        epsilon: ε > 0 of each query's noise.
        target: the query the intruder wants.
        via: the released query it is derived from.
        alpha: the noise ranges are the (α, 1 − α) quantiles, α in (0, 1/2).

    Returns:
        A :class:`DerivedRun`.

    Raises:
        PrivriskError: fewer than three records, ε ≤ 0, an unknown query, no linear relation between target
            and via, α outside (0, 1/2).

    Example:
        >>> d = derived_scale(list(range(101, 111)), 2, target="sum", via="mean")   # Table 4
        >>> d.scale["sum"], d.scale["mean"], d.effective_scale, d.effective_epsilon
        (55.0, 0.25, 2.5, 44.0)
    """
    from privrisk.sensitivity import evaluate

    eps = V.check_epsilon(epsilon)
    a = check_alpha(alpha)
    t, v = _check_target(target, "target"), _check_target(via, "via")
    x = V.check_summable(_check_records(values))
    factor = _linear_factor(t, v, x.size)
    f: dict[str, float] = {}
    f_star: dict[str, float] = {}
    delta: dict[str, float] = {}
    scale: dict[str, float] = {}
    for q in dict.fromkeys((t, v)):
        f_n, _, d, star = _provider(q, x)
        f[q] = f_n
        f_star[q] = float(evaluate(q, np.delete(x, star)))
        delta[q] = d
        scale[q] = d / eps
    eff_b = abs(factor) * scale[v]
    with np.errstate(divide="ignore"):
        eff_eps = delta[t] / eff_b if eff_b > 0 else math.inf
    return DerivedRun(t, v, int(x.size), eps, factor, f, f_star, delta, scale, eff_b, eff_eps, a)


MAX_RANGE = 10_000_000
"""The most values a range ``lo..hi`` may hold: they are held in memory (10⁷ values are 80 MB)."""


@dataclass(frozen=True, kw_only=True)
class DerivedSettings:
    """Everything ``privrisk derived`` takes, checked together when made; :func:`run_derived` computes it.

    Args:
        values: the data: a data file (with ``column``, or its only column), a list ``"1,2,3"``, a range
            ``"1..10"``, or the numbers themselves. (Named after the command's option ``--values``; the one
            shape's name ``data`` waits for the command line to name it ``--values``.)
        epsilon: ε > 0 of each query's data-dependent noise (``2``, ``"ln3"``).
        target: the query the intruder wants: count, sum or mean.
        via: the released query it is derived from.
        column: the column, when ``values`` is a file.
        alpha: the noise ranges are the (α, 1 − α) quantiles, α in (0, 1/2).
        missing: missing codes to drop from a file's column (``"negative"``, ``"-1,-3"``).

    Example:
        >>> run_derived(DerivedSettings(values="101..110", epsilon=2)).effective_epsilon
        44.0
        >>> DerivedSettings(values="1..10", epsilon=2, target="median")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: target: no linear relation between the median and the mean (median is not one of count, sum, mean); supported: sum via mean, mean via sum, or a query via itself
    """

    values: Any = field(repr=False)
    epsilon: float | str
    target: str = "sum"
    via: str = "mean"
    column: str | None = None
    alpha: float = 1e-4
    missing: str | None = None

    def __post_init__(self) -> None:
        eps = V.parse_epsilon(self.epsilon, name="epsilon")
        check_alpha(self.alpha)
        t, v = _check_target(self.target, "target"), _check_target(self.via, "via")
        if t != v:
            _linear_factor(t, v, 10)  # refuses a pair without a linear relation before any data is read
        if isinstance(self.values, str) and not self.values.strip():
            raise PrivriskError(
                "values: the values are empty; give a data file, a list 1,2,3 or a range 1..10",
                param="values",
            )
        for name, value in (("epsilon", eps), ("target", t), ("via", v)):
            object.__setattr__(self, name, value)

    def read(self) -> tuple[np.ndarray, str]:
        """The values and where they came from (``"file.csv: column"``, ``"1..10"``, ``"the values given"``)."""
        given = self.values
        if not isinstance(given, str | os.PathLike):
            x = np.asarray(given, dtype=float).ravel()
            source = "the values given"
        else:
            text = str(given)
            path = Path(text)
            if path.exists():
                from privrisk.io.data import read_column, table_columns

                column = self.column
                if column is None:
                    cols = table_columns(path)
                    if len(cols) != 1:
                        raise PrivriskError(
                            f"column: {path} has {len(cols)} columns; name the one to use", param="column"
                        )
                    column = cols[0]
                return read_column(path, column, missing=self.missing).values, f"{path}: {column}"
            raw = text.strip()
            if ".." in raw and "," not in raw:
                a, _, b = raw.partition("..")
                try:
                    lo, hi = int(a), int(b)
                except ValueError:
                    raise PrivriskError(
                        f"values: {text!r} is neither a file, a list 1,2,3 nor a range 1..10", param="values"
                    ) from None
                if hi < lo:
                    raise PrivriskError(f"values: the range {text!r} is empty", param="values")
                if hi - lo + 1 > MAX_RANGE:
                    raise PrivriskError(
                        f"values: the range {text!r} holds {hi - lo + 1:,} values, more than the {MAX_RANGE:,} "
                        "allowed; give the values as a data file",
                        param="values",
                    )
                return np.arange(lo, hi + 1, dtype=float), raw
            if not any(ch.isdigit() for ch in raw):
                raise PrivriskError(
                    f"values: {text!r}: no such file, and not a list of numbers", param="values"
                )
            x = np.asarray(V.parse_numbers(raw, name="values"))
            source = "the values given"
        if not np.all(np.isfinite(x)):
            raise PrivriskError("values: every value must be a finite number", param="values")
        return x, source


def run_derived(settings: DerivedSettings, *, progress: Progress | None = None) -> DerivedRun:
    """Read the values of ``settings`` and compute :func:`derived_scale` (the command ``privrisk derived``).

    Raises:
        PrivriskError: as :func:`derived_scale`; values neither a file, a list nor a range; fewer than three.
    """
    x, source = settings.read()
    if x.size < 3:
        raise PrivriskError(f"values: {source} has {x.size} values; at least 3 are needed", param="values")
    report(progress, 0.5, "read the values")
    d = derived_scale(
        x, cast(float, settings.epsilon), target=settings.target, via=settings.via, alpha=settings.alpha
    )
    report(progress, 1.0, "done")
    return dataclasses.replace(d, source=source)


__getattr__ = renamed_attributes(
    {"__name__": __name__, "DerivedRun": DerivedRun}, {"DerivedScale": "DerivedRun"}
)
