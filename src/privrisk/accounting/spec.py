"""One description of a guarantee, checked as a whole: the settings that ``privrisk risk``, ``tradeoff``,
``explain`` and the app's Risk page all map their inputs onto.

A :class:`GuaranteeSpec` holds one field per way to state a guarantee and per modifier. :meth:`GuaranteeSpec.build`
checks every combination and returns a :class:`~privrisk.accounting.Guarantee`:

- exactly one base: ``epsilon`` (with ``delta``: (ε, δ)-DP), ``rho`` (zCDP), ``mu`` (Gaussian DP), ``renyi``
  (a Rényi curve, ``"2:0.5,4:1.1"``), ``mechanism`` (``laplace``, ``gaussian``, ``rr``, ``discrete-laplace``,
  ``discrete-gaussian``, with its ``epsilon``, ``scale`` or ``sigma``, ``sensitivity`` and, for ``rr``,
  ``categories``), ``dpsgd`` (dataset size, batch size, epochs, with ``sigma`` the noise multiplier),
  ``releases`` (a mixed composition, :func:`releases_from_toml`) or ``opacus_history``; or a statistical
  office's method (docs/guide/census.md): ``cell_key`` (a perturbation table, with ``cells``: the cells, each with
  its own key, that hold one person), ``registry`` (an entry of the OpenDP deployments registry), ``pram`` (PRAM's
  transition matrices) or ``rounding`` (``random:B``, or ``deterministic:B``, which is no guarantee: δ = 1);
- then the modifiers in this order: ``sample_rate`` (with ``sampling``, Poisson by default), ``compose``,
  ``group`` (each release is subsampled, the releases compose, a group of k people shares the result). A cell-key
  table does not compose with itself (a cell published again gets the same noise: give ``cells``), and PRAM,
  whose neighbours replace one record, is not subsampled.

An error is a :class:`~privrisk.errors.PrivriskError` whose ``param`` is the field. Its message names fields by
``names`` (``build(names={"sample_rate": "--sample-rate", …})``), so the command line names its options and the
app its labels while this module knows neither.

Example:
    >>> GuaranteeSpec(mu=1.0, compose=4).build().mu           # μ = √4 · 1
    2.0
    >>> GuaranteeSpec(rho=1.0, mu=1.0).build()
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: mu: give exactly one guarantee: epsilon (with delta), rho, mu, renyi, mechanism, dpsgd (with sigma), releases, opacus_history, cell_key (with cells), registry, pram or rounding; got rho and mu
"""

from __future__ import annotations

import math
import os
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import TYPE_CHECKING, Any

from privrisk._validation import check_choice, check_epsilon, check_probability, check_whole, parse_epsilon
from privrisk.errors import PrivriskError

if TYPE_CHECKING:
    from privrisk.accounting.cellkey import PerturbationTable
    from privrisk.accounting.guarantees import Guarantee

__all__ = [
    "BASES",
    "CENSUS_BASES",
    "MECHANISMS",
    "RELEASE_KEYS",
    "SAMPLINGS",
    "GuaranteeSpec",
    "cell_key_table",
    "parse_dpsgd",
    "parse_renyi",
    "pram_matrices",
    "read_releases",
    "registry_entry",
    "releases_from_toml",
]

MECHANISMS = ("laplace", "gaussian", "rr", "discrete-laplace", "discrete-gaussian")
SAMPLINGS = ("poisson", "without-replacement")
#: The fields that state a guarantee; exactly one is given (``epsilon`` belongs to ``mechanism`` when both are).
BASES = (
    "epsilon", "rho", "mu", "renyi", "mechanism", "dpsgd", "releases", "opacus_history", "cell_key", "registry", "pram",
    "rounding",
)  # fmt: skip
#: The bases of a statistical office's methods (:mod:`~privrisk.accounting.cellkey`, :mod:`~privrisk.accounting.pram`,
#: :mod:`~privrisk.accounting.rounding`, :mod:`~privrisk.accounting.registry`).
CENSUS_BASES = ("cell_key", "registry", "pram", "rounding")
#: The keys of one ``[[release]]`` of a mixed composition: a guarantee's fields, with ``count`` for ``compose``.
RELEASE_KEYS = (
    "name", "mechanism", "epsilon", "delta", "rho", "mu", "renyi", "scale", "sigma", "sensitivity", "categories",
    "count", "sample_rate", "sampling",
)  # fmt: skip
#: What each mechanism takes: its noise parameters (exactly one) and whether a sensitivity applies.
_NOISE = {
    "laplace": ("epsilon", "scale"),
    "gaussian": ("sigma",),
    "rr": ("epsilon",),
    "discrete-laplace": ("epsilon", "scale"),
    "discrete-gaussian": ("sigma",),
}
_MAX_RELEASES = 10_000
_TEXT_KEYS = ("name", "mechanism", "sampling", "renyi")


@dataclass(frozen=True)
class GuaranteeSpec:
    """A guarantee as stated by a person: the fields of the module's docstring, all optional.

    Attributes:
        epsilon: ε of ε-DP or (ε, δ)-DP, or of a Laplace mechanism or randomized response (a number or ``ln3``).
        delta: δ of (ε, δ)-DP (with ``epsilon``, no mechanism).
        rho: ρ of ρ-zCDP.
        mu: μ of μ-Gaussian DP.
        renyi: a Rényi curve: ``"2:0.5,4:1.1"`` (orders α > 1 and ε_α), a mapping {α: ε_α} or (α, ε_α) pairs.
        mechanism: one of :data:`MECHANISMS`.
        scale: the Laplace (or discrete Laplace) scale b.
        sigma: the Gaussian σ, or DP-SGD's noise multiplier.
        sensitivity: Δ of the query (default 1; a whole number for the discrete mechanisms).
        categories: k of k-ary randomized response (default 2).
        dpsgd: (dataset size N, batch size B, epochs E), or the text ``"N,B,E"``.
        releases: the releases of a mixed composition, each a :class:`GuaranteeSpec` with ``compose`` as its
            count (:func:`releases_from_toml`), or the path of their TOML file (read when built).
        opacus_history: an Opacus accountant's history, (noise multiplier, sample rate, steps) per entry, or the
            path of its JSON file (read when built; :func:`~privrisk.accounting.guarantee_files.
            read_opacus_history`).
        cell_key: a perturbation table of the cell-key method
            (:class:`~privrisk.accounting.cellkey.PerturbationTable`, or the path of ONS's CSV, ptable's CSV or a
            TOML; :func:`~privrisk.accounting.perturbation_files.read_perturbation_table`).
        cells: with ``cell_key``: the published cells, each with its own key, that hold one person (default 1).
        registry: an entry of the OpenDP deployments registry (a mapping, or the path of its YAML file).
        pram: PRAM's transition matrices: one K × K matrix, several (one per variable), a mapping {variable:
            matrix}, or the path of a CSV (one matrix) or a TOML (one per variable;
            :func:`~privrisk.accounting.pram.read_pram_matrices`).
        rounding: ``"random:B"`` (unbiased random rounding to base B) or ``"deterministic:B"`` (no guarantee).
        sample_rate: each release sees a random sample of this rate γ ∈ (0, 1].
        sampling: ``"poisson"`` (default) or ``"without-replacement"`` (fixed-size samples).
        compose: compose this many such releases.
        group: protect groups of this many people.
        name: a release's name in messages (set by :func:`releases_from_toml`).
    """

    epsilon: float | str | None = None
    delta: float | None = None
    rho: float | None = None
    mu: float | None = None
    renyi: str | Mapping[float, float] | Sequence[tuple[float, float]] | None = None
    mechanism: str | None = None
    scale: float | None = None
    sigma: float | None = None
    sensitivity: float | None = None
    categories: int | None = None
    dpsgd: tuple[int, int, float] | str | None = None
    releases: tuple[GuaranteeSpec, ...] | str | os.PathLike[str] | None = None
    opacus_history: Sequence[Sequence[float]] | str | os.PathLike[str] | None = None
    cell_key: Any = None
    cells: int | None = None
    registry: Any = None
    pram: Any = None
    rounding: str | None = None
    sample_rate: float | None = None
    sampling: str | None = None
    compose: int | None = None
    group: int | None = None
    name: str | None = None

    # ------------------------------------------------------------------------------------------------ checks
    def given(self) -> list[str]:
        """The base fields given, in the order of :data:`BASES` (``epsilon`` counts once a mechanism is given).

        Example:
            >>> GuaranteeSpec(mechanism="laplace", epsilon=1.0).given()
            ['mechanism']
        """
        named = [f for f in BASES if getattr(self, f) is not None]
        if self.mechanism is not None and "epsilon" in named:
            named.remove("epsilon")
        return named

    def build(self, *, names: Mapping[str, str] | None = None) -> Guarantee:
        """Check every combination of the fields and return the guarantee they describe.

        Args:
            names: how messages name each field (default: the field's own name).

        Raises:
            PrivriskError: with ``param`` the field that is wrong or one too many.

        Example:
            >>> g = GuaranteeSpec(mechanism="gaussian", sigma=2.0, sample_rate=0.5).build()
            >>> 0 < g.delta_at(1.0) < GuaranteeSpec(mechanism="gaussian", sigma=2.0).build().delta_at(1.0)
            True
        """
        return _Builder(self, names or {}).build()

    def options(self) -> dict[str, Any]:
        """The fields that are set, as a dict (for labels and for the command that states the same guarantee)."""
        return {f.name: getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None}


class _Builder:
    """One build of a spec: ``n(field)`` is the field as the caller names it."""

    def __init__(self, spec: GuaranteeSpec, names: Mapping[str, str]) -> None:
        self.s = spec
        self.names = names

    def n(self, field: str) -> str:
        return self.names.get(field, field)

    def fail(self, field: str, text: str) -> PrivriskError:
        # The leading field is named by build() (every check here names the bare field, as the library does).
        return PrivriskError(f"{field}: {text}", param=field)

    def one_guarantee(self) -> str:
        n = self.n
        return (
            f"give exactly one guarantee: {n('epsilon')} (with {n('delta')}), {n('rho')}, {n('mu')}, {n('renyi')}, "
            f"{n('mechanism')}, {n('dpsgd')} (with {n('sigma')}), {n('releases')}, {n('opacus_history')}, "
            f"{n('cell_key')} (with {n('cells')}), {n('registry')}, {n('pram')} or {n('rounding')}"
        )

    # ---------------------------------------------------------------------------------------------- numbers
    def positive(self, field: str) -> float:
        value = getattr(self.s, field)
        try:
            x = float(value)
        except (TypeError, ValueError):
            raise self.fail(field, f"{value!r} is not a number") from None
        if not (math.isfinite(x) and x > 0):
            raise self.fail(field, f"must be a number greater than 0, got {value!r}")
        return x

    def whole(self, field: str, minimum: int) -> int:
        return int(check_whole(getattr(self.s, field), name=field, minimum=minimum))

    def epsilon(self) -> float:
        return check_epsilon(self.s.epsilon, name="epsilon")

    # ------------------------------------------------------------------------------------------------ build
    def build(self) -> Guarantee:
        try:
            return self._build()
        except PrivriskError as exc:
            text, param = str(exc), exc.param
            param = _LIBRARY_PARAMS.get(param or "", param)
            if param in _FIELDS and text.startswith(f"{exc.param}:"):
                raise PrivriskError(self.n(param) + text[len(str(exc.param)) :], param=param) from None
            raise

    def _build(self) -> Guarantee:
        s = self.s
        named = s.given()
        if not named:  # a mechanism's or DP-SGD's parameter alone says more than "got none"
            self.check_extras("")
        if len(named) != 1:
            got = " and ".join(self.n(f) for f in named) if named else "none"
            raise self.fail(named[1] if named else "epsilon", f"{self.one_guarantee()}; got {got}")
        base = named[0]
        self.check_extras(base)
        g = self.base(base)
        return self.modify(g, base)

    def check_extras(self, base: str) -> None:
        s = self.s
        if s.delta is not None and base not in ("epsilon", ""):
            if base == "mechanism":
                raise self.fail(
                    "delta", f"not with {self.n('mechanism')} (its own profile gives δ at every ε)"
                )
            raise self.fail("delta", f"only with {self.n('epsilon')} ((ε, δ)-DP), not with {self.n(base)}")
        allowed = {"scale", "sigma", "sensitivity", "categories"} if base == "mechanism" else set()
        if base == "dpsgd":
            allowed = {"sigma"}
        for field in ("scale", "sigma", "sensitivity", "categories"):
            if getattr(s, field) is not None and field not in allowed:
                wanted = (
                    f"{self.n('mechanism')} or {self.n('dpsgd')}" if field == "sigma" else self.n("mechanism")
                )
                raise self.fail(field, f"only with {wanted}")
        if base == "dpsgd":
            for field in ("sample_rate", "compose"):
                if getattr(s, field) is not None:
                    raise self.fail(
                        field, f"not with {self.n('dpsgd')} (its batches set the rate and the steps)"
                    )
        if s.sampling is not None and s.sample_rate is None and base != "dpsgd":
            raise self.fail("sampling", f"only with {self.n('sample_rate')} or {self.n('dpsgd')}")
        if s.cells is not None and base != "cell_key":
            raise self.fail("cells", f"only with {self.n('cell_key')} (the cells with their own keys)")
        if base == "cell_key" and s.compose is not None and s.compose != 1:
            raise self.fail("compose", f"not with {self.n('cell_key')}: a cell published again gets the same noise "
                            f"(its key is its records'); give {self.n('cells')} for different cells that hold the "
                            "person")  # fmt: skip
        if base == "pram" and s.sample_rate is not None:
            raise self.fail("sample_rate", f"not with {self.n('pram')}: its neighbours replace one record, and "
                            "amplification by sampling is stated for adding or removing one")  # fmt: skip

    def base(self, base: str) -> Guarantee:
        import privrisk.accounting._api as A

        s = self.s
        if base == "epsilon":
            eps = self.epsilon()
            if not s.delta:
                return A.pure_dp(eps)
            delta = float(check_probability(s.delta, name="delta", open_high=True))
            return A.approximate_dp(eps, delta)
        if base == "rho":
            return A.zcdp(self.positive("rho"))
        if base == "mu":
            return A.gaussian_dp(self.positive("mu"))
        if base == "renyi":
            orders, values = parse_renyi(s.renyi)
            return A.renyi_dp(orders, values)
        if base == "mechanism":
            return self.mechanism()
        if base == "dpsgd":
            size, batch, epochs = parse_dpsgd(s.dpsgd)
            if s.sigma is None:
                raise self.fail("sigma", f"{self.n('dpsgd')} needs the noise multiplier {self.n('sigma')}")
            try:
                return A.dpsgd(dataset_size=size, batch_size=batch, epochs=epochs,
                               noise_multiplier=self.positive("sigma"), sampling=self.sampling())  # fmt: skip
            except PrivriskError as exc:
                if exc.param in ("sampling", "noise_multiplier"):
                    raise
                raise self.fail("dpsgd", str(exc)) from None  # sizes and epochs: the triple's parts
        if base == "releases":
            return self.releases()
        if base in CENSUS_BASES:
            return self.census(base)
        from privrisk.accounting.interop import from_opacus

        history = s.opacus_history
        if isinstance(history, str | os.PathLike):
            from privrisk.accounting.guarantee_files import read_opacus_history

            history = read_opacus_history(history)
        try:
            return from_opacus(history)  # type: ignore[arg-type]
        except PrivriskError as exc:
            raise self.fail("opacus_history", str(exc).removeprefix("history: ")) from None

    def census(self, base: str) -> Guarantee:
        """A statistical office's method: the module of each builds it, its errors named by the field."""
        s = self.s
        try:
            if base == "cell_key":
                from privrisk.accounting.cellkey_run import CellKeySettings

                cells = 1 if s.cells is None else self.whole("cells", 1)
                return CellKeySettings(cell_key_table(s.cell_key), cells=cells).guarantee()
            if base == "registry":
                from privrisk.accounting.registry import registry_guarantee

                return registry_guarantee(registry_entry(s.registry))
            if base == "pram":
                from privrisk.accounting.pram import pram_guarantee

                matrices = pram_matrices(s.pram)
                return pram_guarantee(list(matrices.values()), variables=list(matrices))
            from privrisk.accounting.rounding import rounding_guarantee

            return rounding_guarantee(s.rounding)  # type: ignore[arg-type]
        except PrivriskError as exc:
            if exc.param in (base, "cells"):
                raise
            text = str(exc)
            head = f"{exc.param}: "
            raise self.fail(base, text[len(head) :] if text.startswith(head) else text) from None

    def sampling(self) -> str:
        how = check_choice(self.s.sampling or "poisson", (*SAMPLINGS, "without_replacement"), name="sampling")
        return how.replace("-", "_")

    def mechanism(self) -> Guarantee:
        import privrisk.accounting._api as A

        s = self.s
        m = check_choice(str(s.mechanism).lower().replace("_", "-"), MECHANISMS, name="mechanism")
        wanted = _NOISE[m]
        present = [f for f in ("epsilon", "scale", "sigma") if getattr(s, f) is not None]
        wrong = [f for f in present if f not in wanted]
        give = " or ".join(self.n(f) for f in wanted)
        if wrong:
            raise self.fail(wrong[0], f"not with {self.n('mechanism')} {m}; give {give}")
        if len(present) != 1:
            raise self.fail(
                wanted[0],
                f"{self.n('mechanism')} {m} needs exactly one of {', '.join(self.n(f) for f in wanted)}",
            )
        if s.categories is not None and m != "rr":
            raise self.fail("categories", f"only with {self.n('mechanism')} rr (k-ary randomized response)")
        if m == "rr":
            if s.sensitivity is not None:
                raise self.fail("sensitivity", "randomized response has no sensitivity")
            k = 2 if s.categories is None else self.whole("categories", 2)
            if k == 2:
                return A.randomised_response_guarantee(epsilon=self.epsilon())
            return A.kary_randomised_response_guarantee(epsilon=self.epsilon(), categories=k)
        if m.startswith("discrete"):
            delta_f = 1 if s.sensitivity is None else self.whole("sensitivity", 1)
            if m == "discrete-gaussian":
                return A.discrete_gaussian_guarantee(sigma=self.positive("sigma"), sensitivity=delta_f)
            # ε = Δ/t, as for the continuous Laplace mechanism.
            scale = self.positive("scale") if s.scale is not None else delta_f / self.epsilon()
            return A.discrete_laplace_guarantee(scale=scale, sensitivity=delta_f)
        delta_s = 1.0 if s.sensitivity is None else self.positive("sensitivity")
        if m == "laplace":
            if s.epsilon is not None:
                return A.laplace_guarantee(epsilon=self.epsilon(), sensitivity=delta_s)
            return A.laplace_guarantee(scale=self.positive("scale"), sensitivity=delta_s)
        return A.gaussian_guarantee(sigma=self.positive("sigma"), sensitivity=delta_s)

    def releases(self) -> Guarantee:
        from privrisk.accounting.composition import compose

        items = self.s.releases or ()
        if isinstance(items, str | os.PathLike):
            items = read_releases(items)
        if not items:
            raise self.fail("releases", "give at least one release")
        parts = []
        for i, release in enumerate(items, start=1):
            if not isinstance(release, GuaranteeSpec):
                raise self.fail("releases", f"release {i} is not a guarantee's settings: {release!r}")
            where = f"release {i}" + (f" ({release.name!r})" if release.name else "")
            if (
                release.releases is not None
                or release.dpsgd is not None
                or release.opacus_history is not None
            ):
                raise self.fail("releases", f"{where}: a release is one mechanism or definition, not a list")
            try:
                parts.append(release.build(names=_RELEASE_NAMES))
            except PrivriskError as exc:
                raise self.fail("releases", f"{where}: {exc}") from None
        return compose(parts)

    def modify(self, g: Guarantee, base: str) -> Guarantee:
        from privrisk.accounting.grouping import group
        from privrisk.accounting.subsampling import subsample

        s = self.s
        if s.sample_rate is not None:
            rate = float(check_probability(s.sample_rate, name="sample_rate", open_low=True))
            if rate < 1:
                g = subsample(g, rate, method=self.sampling())  # type: ignore[arg-type]
        if s.compose is not None and self.whole("compose", 1) > 1:
            g = g.compose(int(s.compose))
        if s.group is not None and self.whole("group", 1) > 1:
            try:
                g = group(g, int(s.group))
            except PrivriskError as exc:
                if exc.param != "k":
                    raise
                raise self.fail("group", str(exc).removeprefix("k: ")) from None
        return g


_RELEASE_NAMES = {"compose": "count"}
_FIELDS = frozenset(f.name for f in fields(GuaranteeSpec))
#: Parameters of the library's functions that stand for a field here.
_LIBRARY_PARAMS = {
    "noise_multiplier": "sigma", "history": "opacus_history", "truth_probability": "epsilon", "alphas": "renyi",
    "epsilons": "renyi", "rate": "sample_rate", "method": "sampling", "k": "compose",
}  # fmt: skip


def parse_renyi(
    curve: str | Mapping[float, float] | Sequence[tuple[float, float]] | None, *, name: str = "renyi"
) -> tuple[list[float], list[float]]:
    """Orders and ε_α of a Rényi curve written ``"2:0.5,4:1.1,8:2.3"`` (ε_α may be ``ln3``), a mapping or pairs.

    Example:
        >>> parse_renyi("2:0.5, 4:1.1")
        ([2.0, 4.0], [0.5, 1.1])
    """
    pairs: list[tuple[Any, Any]]
    if isinstance(curve, str):
        pairs = []
        for part in (p.strip() for p in curve.split(",") if p.strip()):
            order, sep, value = part.partition(":")
            if not sep:
                raise PrivriskError(f"{name}: write each point as order:ε, e.g. 2:0.5,4:1.1; got {part!r}")
            pairs.append((order, value))
    elif isinstance(curve, Mapping):
        pairs = list(curve.items())
    else:
        try:
            pairs = [(a, e) for a, e in (curve or ())]
        except (TypeError, ValueError):
            raise PrivriskError(f"{name}: give (order, ε) pairs, got {curve!r}") from None
    if not pairs:
        raise PrivriskError(f"{name}: give at least one point order:ε, e.g. 2:0.5,4:1.1")
    orders, values = [], []
    for order, value in pairs:
        try:
            alpha = float(order)
        except (TypeError, ValueError):
            raise PrivriskError(f"{name}: the order {order!r} is not a number") from None
        if not (math.isfinite(alpha) and alpha > 1):
            raise PrivriskError(f"{name}: every order must be a finite number greater than 1, got {order!r}")
        orders.append(alpha)
        values.append(parse_epsilon(value, name=name, allow_zero=True) if isinstance(value, str)
                      else check_epsilon(value, name=name, allow_zero=True))  # fmt: skip
    if len(set(orders)) != len(orders):
        raise PrivriskError(f"{name}: each order may appear once")
    return orders, values


def parse_dpsgd(
    value: tuple[int, int, float] | str | Sequence[Any] | None, *, name: str = "dpsgd"
) -> tuple[int, int, float]:
    """(N, B, E) from ``"60000,256,60"`` or a triple: whole N ≥ 1 and 1 ≤ B ≤ N, E > 0.

    Example:
        >>> parse_dpsgd("60000,256,60")
        (60000, 256, 60.0)
    """
    parts: Sequence[Any] = value.split(",") if isinstance(value, str) else (value or ())
    if not isinstance(parts, Sequence) or len(parts) != 3:
        raise PrivriskError(
            f"{name}: give dataset size, batch size and epochs as N,B,EPOCHS, e.g. 60000,256,60"
        )
    try:
        size, batch = (float(str(p).strip()) for p in parts[:2])
        epochs = float(str(parts[2]).strip())
    except ValueError:
        raise PrivriskError(f"{name}: give N,B,EPOCHS as numbers, e.g. 60000,256,60; got {value!r}") from None
    if not all(math.isfinite(x) and x >= 1 and x == int(x) for x in (size, batch)):
        raise PrivriskError(
            f"{name}: the dataset size and the batch size must be whole numbers ≥ 1, got {value!r}"
        )
    if batch > size:
        raise PrivriskError(f"{name}: the batch size {batch:,.0f} exceeds the dataset size {size:,.0f}")
    if not (math.isfinite(epochs) and epochs > 0):
        raise PrivriskError(f"{name}: the epochs must be a finite number greater than 0, got {parts[2]!r}")
    return int(size), int(batch), epochs


def releases_from_toml(text: str, *, name: str = "releases") -> tuple[GuaranteeSpec, ...]:
    """The releases of a mixed composition, read from TOML: one ``[[release]]`` table per kind of release.

    Each table takes the keys of :data:`RELEASE_KEYS`: ``mechanism`` with its parameters (or ``epsilon`` [with
    ``delta``], ``rho``, ``mu``, ``renyi``), ``count`` (default 1), ``sample_rate`` and ``sampling``, and an
    optional ``name``. Values are numbers, except ``epsilon`` (also ``"ln3"``), ``renyi``, ``mechanism``,
    ``sampling`` and ``name``.

    Raises:
        PrivriskError: (``param`` = ``name``) for TOML that does not parse, a missing ``[[release]]``, unknown
            keys or values of the wrong kind, naming the release and the key.

    Example:
        >>> rs = releases_from_toml('''
        ... [[release]]
        ... mechanism = "laplace"
        ... epsilon = 0.5
        ... count = 2
        ... ''')
        >>> GuaranteeSpec(releases=rs).build().epsilon_at(0.0)
        1.0
    """
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PrivriskError(f"{name}: not valid TOML: {exc}", param="releases") from None
    extra = sorted(set(doc) - {"release"})
    if extra:
        raise PrivriskError(f"{name}: unknown table or key {extra[0]!r}; write each release as [[release]]",
                            param="releases")  # fmt: skip
    tables = doc.get("release")
    if not isinstance(tables, list) or not tables:
        raise PrivriskError(f"{name}: give at least one [[release]] table", param="releases")
    if len(tables) > _MAX_RELEASES:
        raise PrivriskError(
            f"{name}: at most {_MAX_RELEASES:,} [[release]] tables (use count)", param="releases"
        )
    out = []
    for i, table in enumerate(tables, start=1):
        where = f"{name}: release {i}"
        if not isinstance(table, dict):
            raise PrivriskError(f"{where}: must be a table of keys", param="releases")
        if isinstance(table.get("name"), str):
            where += f" ({table['name']!r})"
        for key, value in table.items():
            if key not in RELEASE_KEYS:
                raise PrivriskError(f"{where}: unknown key {key!r} (known: {', '.join(RELEASE_KEYS)})",
                                    param="releases")  # fmt: skip
            number = isinstance(value, int | float) and not isinstance(value, bool)
            if key in _TEXT_KEYS:
                ok, kind = isinstance(value, str), "text"
            else:
                ok, kind = number or (key == "epsilon" and isinstance(value, str)), "a number"
                kind += " or text such as 'ln3'" if key == "epsilon" else ""
            if not ok:
                raise PrivriskError(f"{where}: {key} must be {kind}, got {value!r}", param="releases")
        fields_ = {("compose" if k == "count" else k): v for k, v in table.items()}
        out.append(replace(GuaranteeSpec(), **fields_))
    return tuple(out)


def read_releases(path: str | os.PathLike[str], param: str = "releases") -> tuple[GuaranteeSpec, ...]:
    """The releases of a mixed composition from their TOML file (:func:`releases_from_toml`); messages start with
    ``param`` and name the file (:func:`~privrisk.accounting.guarantee_files.read_small_text` reads it)."""
    from privrisk.accounting.guarantee_files import read_small_text

    return releases_from_toml(read_small_text(path, param), name=f"{param}: {path}")


def cell_key_table(value: Any, *, name: str = "cell_key") -> PerturbationTable:
    """The perturbation table ``cell_key`` states: a table as given, or the one a file holds.

    Raises:
        PrivriskError: (param ``name``) for a file that is not a perturbation table, or a value that is neither.
    """
    from privrisk.accounting.cellkey import PerturbationTable
    from privrisk.accounting.perturbation_files import read_perturbation_table

    if isinstance(value, PerturbationTable):
        return value
    if isinstance(value, str | os.PathLike):
        return read_perturbation_table(value, param=name)
    raise PrivriskError(f"{name}: give a perturbation table or the path of one, got {type(value).__name__}",
                        param=name)  # fmt: skip


def registry_entry(value: Any, *, name: str = "registry") -> Mapping[str, Any]:
    """The registry entry ``registry`` states: a mapping as given, or the one a YAML file holds."""
    from privrisk.accounting.registry import read_registry_entry

    if isinstance(value, Mapping):
        return value
    if isinstance(value, str | os.PathLike):
        return read_registry_entry(value, param=name)
    raise PrivriskError(f"{name}: give a registry entry (a mapping) or the path of its YAML file, got "
                        f"{type(value).__name__}", param=name)  # fmt: skip


def pram_matrices(value: Any, *, name: str = "pram") -> dict[str, Any]:
    """PRAM's matrices by variable (one unnamed matrix as "", several as "variable 1", …): a path is read
    (:func:`~privrisk.accounting.pram.read_pram_matrices`), a mapping kept, one matrix or a list of them named.

    Example:
        >>> list(pram_matrices([[0.8, 0.2], [0.2, 0.8]])), list(pram_matrices([[[1, 0], [0, 1]]] * 2))
        ([''], ['variable 1', 'variable 2'])
    """
    from privrisk.accounting.pram import _several, read_pram_matrices

    if isinstance(value, str | os.PathLike):
        return read_pram_matrices(value, param=name)
    if isinstance(value, Mapping):
        if not value:
            raise PrivriskError(f"{name}: give at least one matrix", param=name)
        return {str(k): v for k, v in value.items()}
    if value is None or isinstance(value, str | bytes):
        raise PrivriskError(f"{name}: give a transition matrix, a list of them or a file", param=name)
    items = list(value) if _several(value) else [value]
    if len(items) == 1:
        return {"": items[0]}
    return {f"variable {i}": m for i, m in enumerate(items, start=1)}
