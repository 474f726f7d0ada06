"""What a release is asked to do (:class:`Request`) and what it would cost before any ε is spent
(:func:`release_preview`).

A request names everything one release needs: the data, the queries, the published n, the budget, the ledger and
its key, the output folder and the internal assessment's file. It checks every combination of its fields when it
is made, and raises :class:`~privrisk.errors.PrivriskError` naming the field. It is the checked core of
:class:`~privrisk.release.run.ReleaseSettings`, the one way in that the command line and the app map their inputs
onto; :func:`privrisk.release.transaction.carry_out` carries it out. ``ReleaseRequest`` and :func:`preview` are
its earlier names, kept one release (they warn).

The preview needs no data: the noise of each answer depends only on its query, its universe and its ε or ρ (the
global sensitivity Δf). Laplace noise Lap(b) with b = Δf/ε has E|Y| = b and P(|Y| > t) = e^(−t/b), so its 95 %
interval has the half-width b·ln 20 ≈ 3.00·b (Mehner et al., Definition 3); Gaussian noise N(0, σ²) with
σ = Δf/√(2ρ) (Bun and Steinke 2016, Prop. 1.6) has E|Y| = σ·√(2/π) and the half-width 1.96·σ.

Example:
    >>> import pandas as pd
    >>> from privrisk.release.spec import ReleaseQuery
    >>> r = Request(pd.DataFrame({"h": [8, 6, 7]}), (ReleaseQuery("h", "mean", 1, (0, 24)),))
    >>> p = release_preview(r)
    >>> p.queries[0].scale, round(p.queries[0].half_width, 2), p.queries[0].useless
    (12.0, 35.95, True)
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import threading
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk._format import number
from privrisk._validation import check_probability
from privrisk.errors import PrivriskError, deprecation_message
from privrisk.io.files import canonical_json
from privrisk.release import ledger as _ledger
from privrisk.release.budget import Budget
from privrisk.release.mechanisms import (
    LEVEL,
    _certified_scale,
    _half_width,
    check_release_epsilon,
    expected_error,
    gaussian_sigma,
)
from privrisk.release.spec import ReleaseQuery, check_public_n
from privrisk.release.statement import release_statement, verdict
from privrisk.sensitivity import global_sensitivity

__all__ = ["QueryPreview", "ReleasePreview", "Request", "check_useless", "query_preview", "release_preview"]

Data = pd.DataFrame | Mapping[str, Any] | str | os.PathLike[str]


def _path(value: Any, name: str) -> Path | None:
    if value is None:
        return None
    if not isinstance(value, str | os.PathLike) or not str(value).strip():
        raise PrivriskError(f"{name}: give a path, got {value!r}", param=name)
    return Path(value)


@dataclass(frozen=True, eq=False)
class Request:
    """One release, as asked: checked whole when made (every field and every combination of fields).

    Attributes:
        data: a DataFrame (or a mapping of column to values), or a data file (CSV, Parquet, Stata, SPSS) that
            :func:`~privrisk.release.transaction.carry_out` reads (only the queried columns).
        queries: the :class:`~privrisk.release.spec.ReleaseQuery` objects (at least one). Each names its noise
            (``mechanism``: Laplace with ε, or Gaussian with ρ) and its universe.
        public_n: the published number of people in the data (for the many-worlds risk), or None.
        budget: the largest total (:class:`~privrisk.release.budget.Budget`: ε, (ε, δ) or ρ), or None; with a
            ledger None keeps the budget the ledger's last release recorded.
        ledger: the JSON ledger that is charged (created when missing), or None.
        key: the secret of a keyed ledger (at least 16 bytes), or None; only with a ledger. Never shown.
        out: a folder for the public files (:data:`~privrisk.release.outputs.PUBLIC_FILES`), or None.
        internal: a file for the internal assessment (NOT FOR PUBLICATION, mode 0600), or None.
        source: the data's name for messages and the ledger (default: the data file's path).
        spec: the ``release.toml`` the queries came from: recorded in the manifest, never overwritten.
        inputs: other input files (a key file) that no output may replace.
        ledger_label: how the ledger is named in what the release returns and writes (default: its path); the
            app gives the uploaded file's name, so that no server path appears in a download.
        allow_large_epsilon: release even when the total ε exceeds 20 (or ρ exceeds 200), with a
            :class:`~privrisk.errors.PrivacyLeakWarning`; otherwise refused.
        level: the coverage of the reported noise intervals (0.95).
        allow_useless: release even an answer whose interval at ``level`` is wider than the whole range the
            answer can take (:attr:`QueryPreview.useless`); its public statement then says that the answer tells
            nothing reliable. Otherwise :func:`~privrisk.release.transaction.carry_out` refuses such a release
            after the data, the ledger and the budget are checked and before any noise is drawn (the preview
            shows it, and says why it would be refused).

    There is no seed: a release's noise comes from OpenDP's samplers, which draw from the operating system's
    secure randomness and cannot be seeded (a seeded noise could be subtracted again).

    Raises:
        PrivriskError: naming the field (``param``) that is wrong or does not go with another.

    Example:
        >>> Request("a.csv", (ReleaseQuery("h", "mean", 1, (0, 24)),), key=b"k" * 16)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: key: a key is for a ledger; give the ledger too
    """

    data: Data = field(repr=False)
    queries: tuple[ReleaseQuery, ...]
    public_n: int | None = None
    budget: Budget | None = None
    ledger: Path | None = None
    key: bytes | None = field(default=None, repr=False)
    out: Path | None = None
    internal: Path | None = None
    source: str | None = None
    spec: Path | None = None
    inputs: tuple[Path, ...] = ()
    ledger_label: str | None = None
    allow_large_epsilon: bool = False
    level: float = LEVEL
    allow_useless: bool = False

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        if not isinstance(self.data, pd.DataFrame | Mapping | str | os.PathLike):
            raise PrivriskError(
                f"data: give a DataFrame, a mapping of columns or a data file, got {type(self.data).__name__}",
                param="data",
            )
        queries = (self.queries,) if isinstance(self.queries, ReleaseQuery) else tuple(self.queries)
        if not queries:
            raise PrivriskError("queries: a release needs at least one query", param="queries")
        if not all(isinstance(q, ReleaseQuery) for q in queries):
            raise PrivriskError("queries: give ReleaseQuery objects", param="queries")
        set_(self, "queries", queries)
        set_(self, "public_n", check_public_n(self.public_n, "public_n"))
        if self.budget is not None and not isinstance(self.budget, Budget):
            raise PrivriskError(
                f"budget: give a Budget (or None), got {self.budget!r}; privrisk.release.budget.as_budget reads a "
                "number",
                param="budget",
            )
        for name in ("ledger", "out", "internal", "spec"):
            set_(self, name, _path(getattr(self, name), name))
        set_(self, "inputs", tuple(p for p in (_path(x, "inputs") for x in self.inputs) if p is not None))
        if self.key is not None and self.ledger is None:
            raise PrivriskError("key: a key is for a ledger; give the ledger too", param="key")
        set_(self, "key", _ledger.check_key(self.key))
        if self.ledger_label is not None and (self.ledger is None or not str(self.ledger_label).strip()):
            raise PrivriskError(
                "ledger_label: a non-empty name, and only with a ledger", param="ledger_label"
            )
        if self.source is not None and not isinstance(self.source, str):
            raise PrivriskError(f"source: give a name, got {self.source!r}", param="source")
        if self.source is None and not isinstance(self.data, pd.DataFrame | Mapping):
            set_(self, "source", str(self.data))
        for flag in ("allow_large_epsilon", "allow_useless"):
            if not isinstance(getattr(self, flag), bool):
                raise PrivriskError(f"{flag}: give True or False", param=flag)
        set_(self, "level", float(check_probability(self.level, name="level", open_low=True, open_high=True)))
        # Outputs that are the same file as the ledger or each other; the rest (writable, not an input, not a
        # special file) is checked by carry_out() on the file system, before any noise is drawn.
        if self.internal is not None:
            for name, other in (("the ledger", self.ledger), ("the output folder", self.out)):
                if other is not None and _same(other, self.internal):
                    raise PrivriskError(
                        f"internal: {self.internal} is {name}; choose another file", param="internal"
                    )
        # The one check of a total ε above 20 (or ρ above 200): before anything is read or drawn.
        check_release_epsilon(
            math.fsum(q.epsilon for q in queries),
            self.allow_large_epsilon,
            rho=math.fsum(q.rho or 0.0 for q in queries),
        )

    @property
    def ledger_name(self) -> str | None:
        """How the ledger is named in results and files: ``ledger_label`` or its path."""
        if self.ledger is None:
            return None
        return self.ledger_label or str(self.ledger)

    def records(self) -> list[dict[str, Any]]:
        """What the ledger would record of this release's answers."""
        return [q.ledger_record() for q in self.queries]

    def to_dict(self) -> dict[str, Any]:
        """The request as plain JSON (without the key; whether there is one): its canonical form hashes it.

        ``allow_useless`` is left out: it changes whether a release may go ahead, not what is released, so a
        preview stays the preview of the same request once a person has agreed to release a useless answer."""
        return {
            "data": _fingerprint(self.data, [q.column for q in self.queries]),
            "source": self.source,
            "queries": [{**q.to_dict(), "label": q.label} for q in self.queries],
            "public_n": self.public_n,
            "budget": None if self.budget is None else self.budget.to_json(),
            "ledger": None if self.ledger is None else os.path.realpath(self.ledger),
            "keyed": self.key is not None,
            "out": None if self.out is None else str(self.out),
            "internal": None if self.internal is None else str(self.internal),
            "allow_large_epsilon": self.allow_large_epsilon,
            "level": self.level,
        }

    def digest(self) -> str:
        """SHA-256 of the canonical JSON of :meth:`to_dict`: equal for two requests of the same release."""
        return hashlib.sha256(canonical_json(self.to_dict())).hexdigest()


def _same(a: Path, b: Path) -> bool:
    return os.path.realpath(a) == os.path.realpath(b)


def _fingerprint(data: Data, columns: Sequence[str]) -> Any:
    """The data as the preview id sees it: a hash of the queried columns, or a file's path, size and time."""
    if isinstance(data, pd.DataFrame | Mapping):
        h = hashlib.sha256()
        for c in dict.fromkeys(columns):
            if c in data:
                values = pd.Series(np.asarray(data[c]))
                h.update(str(c).encode())
                h.update(pd.util.hash_pandas_object(values, index=False).to_numpy().tobytes())
        return {"columns": h.hexdigest()}
    try:
        st = os.stat(data)
    except OSError:
        return {"file": str(data)}
    return {"file": os.path.realpath(data), "size": st.st_size, "mtime_ns": st.st_mtime_ns}


# --------------------------------------------------------------------------------------------------------------
# The preview
# --------------------------------------------------------------------------------------------------------------


def plausible_width(query: str, lo: float, hi: float, public_n: int | None) -> float | None:
    """How wide the range of possible answers is for data in [lo, hi]: hi − lo for a mean, median, min or max,
    (hi − lo)/2 for a standard deviation, (hi − lo)²/4 for a variance; n (the published n) for a count and
    n·(hi − lo) for a sum; None when n is not known.

    Example:
        >>> plausible_width("mean", 0, 500_000, None), plausible_width("count", 0, 1, None)
        (500000.0, None)
    """
    r = float(hi) - float(lo)
    if query in ("mean", "median", "min", "max"):
        return r
    if query == "std":
        return r / 2
    if query == "variance":
        return r * r / 4
    if public_n is None:
        return None
    return float(public_n) if query == "count" else public_n * r


@dataclass(frozen=True)
class QueryPreview:
    """What one answer's noise would be, before it is drawn.

    Attributes:
        label: the answer's name.
        mechanism: ``laplace`` or ``gaussian``.
        epsilon: its ε (Laplace), or None.
        rho: its ρ (Gaussian), or None.
        sensitivity: the global sensitivity Δf.
        scale: b = Δf/ε (Laplace) or σ = Δf/√(2ρ) (Gaussian), as OpenDP certifies it.
        expected_error: E|noise|: b, or σ·√(2/π).
        half_width: the half-width of the interval that holds the noise at the request's level (95 %).
        plausible_width: the width of the range the answer can take (:func:`plausible_width`), or None.
        useless: whether the interval is wider than half that range: the answer would tell next to nothing.
    """

    label: str
    mechanism: str
    epsilon: float | None
    rho: float | None
    sensitivity: float
    scale: float
    expected_error: float
    half_width: float
    plausible_width: float | None
    useless: bool

    @property
    def warning(self) -> str | None:
        """A sentence when the answer would be useless, else None."""
        if not self.useless or self.plausible_width is None:
            return None
        return (
            f"{self.label}: the 95 % interval (± {number(self.half_width)}) is wider than the whole range its "
            f"answer can take ({number(self.plausible_width)}): the answer would be useless; give a narrower "
            "universe or a larger ε"
        )


@dataclass(frozen=True)
class ReleasePreview:
    """A release before it is drawn: the noise of each answer, the public statement it would have, and whether
    the ledger's budget would take it. Nothing is drawn and nothing is charged.

    Attributes:
        id: the preview's id: SHA-256 of the request's canonical JSON and a random nonce. Give it to
            :func:`~privrisk.release.transaction.carry_out` to publish this preview once, however often asked.
        request_digest: :meth:`Request.digest` of the request previewed.
        queries: one :class:`QueryPreview` per query.
        statement: the public statement this release would have (:func:`~privrisk.release.statement.release_statement`).
        level: the coverage of the intervals.
        refusal: why the budget would refuse the release, or None.
        spent_before: what the ledger has spent (plain sum of ε), or None without a ledger.
        useless_refusal: why :func:`~privrisk.release.transaction.carry_out` would refuse the release because an
            answer would be useless (:func:`check_useless`), or None (none is, or the request allows them).
    """

    id: str
    request_digest: str
    queries: tuple[QueryPreview, ...]
    statement: dict[str, Any]
    level: float
    refusal: str | None = None
    spent_before: float | None = None
    useless_refusal: str | None = None

    @property
    def warnings(self) -> list[str]:
        """One sentence per answer that would be useless."""
        return [w for w in (q.warning for q in self.queries) if w]

    def verdict(self) -> str:
        """The public statement's verdict in plain words (:func:`~privrisk.release.statement.verdict`)."""
        return verdict(self.statement)

    def rows(self) -> list[tuple[str, ...]]:
        """Table rows: answer, noise, ε or ρ, noise scale, expected error, 95 % interval (±), warning."""
        return [
            (
                q.label,
                q.mechanism,
                f"ε = {number(q.epsilon)}" if q.epsilon is not None else f"ρ = {number(q.rho or 0.0)}",
                number(q.scale),
                number(q.expected_error),
                f"± {number(q.half_width)}",
                "useless: wider than the range of the answer" if q.useless else "",
            )
            for q in self.queries
        ]

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON."""
        return {
            "preview_id": self.id,
            "level": self.level,
            "queries": [{**q.__dict__, "warning": q.warning} for q in self.queries],
            "public_statement": self.statement,
            "refusal": self.refusal,
            "spent_before": self.spent_before,
            "warnings": self.warnings,
            "useless_refusal": self.useless_refusal,
        }


#: The previews made in this process: id → the digest of its request (carry_out checks a preview is its request's).
_PREVIEWS: dict[str, str] = {}
_PREVIEWS_LOCK = threading.Lock()


def preview_digest(preview_id: str) -> str | None:
    """The request digest of a preview made in this process, or None."""
    with _PREVIEWS_LOCK:
        return _PREVIEWS.get(preview_id)


def answer_noise(q: ReleaseQuery) -> tuple[float, float]:
    """Δf and the certified scale (b or σ) of one answer."""
    with np.errstate(all="ignore"):
        gs = global_sensitivity(q.query, q.universe)
    scale = gaussian_sigma(gs, q.rho) if q.rho is not None else _certified_scale(gs, q.epsilon)
    return gs, scale


def budget_refusal(request: Request, before: list[dict[str, Any]], kept: Budget | None) -> str | None:
    """The message of the refusal if the release does not fit ``kept`` after the ledger's ``before``."""
    new = request.records()
    if kept is None or kept.fits([*before, *new]):
        return None
    where = request.ledger
    if kept.rho is None and kept.delta is None:
        spent = math.fsum(float(r.get("epsilon", 0.0)) for r in before)
        total = math.fsum(q.epsilon for q in request.queries)
        return _ledger.budget_message(total, spent, kept.limit, where)
    return kept.message([*before, *new], len(new), where)


def ledger_state(request: Request) -> tuple[list[dict[str, Any]], Budget | None]:
    """The ledger's recorded answers (checked) and the budget this release is held to."""
    if request.ledger is None:
        return [], request.budget
    entries = _ledger.read_ledger(request.ledger, request.key)
    kept = (
        request.budget
        if request.budget is not None
        else Budget.from_json(entries[-1]["budget"] if entries else None)
    )
    return _ledger.ledger_records(entries), kept


def check_columns(request: Request) -> None:
    """Fail when a query names a column the data does not have (a data file's header is read, not its rows)."""
    if isinstance(request.data, pd.DataFrame | Mapping):
        available = [str(c) for c in request.data.keys()]
    else:
        from privrisk.io.data import table_columns

        available = list(table_columns(request.data))
    where = f"{request.source}: " if request.source else ""
    for q in request.queries:
        if q.column not in available:
            shown = ", ".join(available[:20]) + (" …" if len(available) > 20 else "")
            raise PrivriskError(f"{where}no column {q.column!r} for {q.label}; the columns are: {shown}")


def query_preview(q: ReleaseQuery, level: float = LEVEL, public_n: int | None = None) -> QueryPreview:
    """What one answer's noise would be (:class:`QueryPreview`): it depends only on the query, its universe, its ε
    or ρ and the published n, never on the data.

    Example:
        >>> q = query_preview(ReleaseQuery("h", "mean", 1, (0, 24)))
        >>> q.scale, q.useless
        (12.0, True)
    """
    gs, scale = answer_noise(q)
    half = _half_width(q.mechanism, scale, level)
    width = plausible_width(q.query, q.universe.lo, q.universe.hi, public_n)
    return QueryPreview(
        label=q.label,
        mechanism=q.mechanism,
        epsilon=q.epsilon if q.rho is None else None,
        rho=q.rho,
        sensitivity=gs,
        scale=scale,
        expected_error=expected_error(q.mechanism, scale),
        half_width=half,
        plausible_width=width,
        useless=width is not None and half > width / 2,
    )


def _useless_message(previews: Sequence[QueryPreview]) -> str | None:
    warnings = [w for w in (q.warning for q in previews) if w]
    if not warnings:
        return None
    return (
        "allow_useless: "
        + "; ".join(warnings)
        + "; or release it anyway, and the public statement says that the answer tells nothing reliable"
    )


def check_useless(request: Request) -> None:
    """Refuse a release with an answer whose interval is wider than the range it can take, unless the request
    allows it (``allow_useless``): such an answer spends privacy and tells nothing reliable.

    Raises:
        PrivriskError: (param ``allow_useless``) naming each such answer, its interval and its range.

    Example:
        >>> import pandas as pd
        >>> check_useless(Request(pd.DataFrame({"h": [8]}), (ReleaseQuery("h", "mean", 1, (0, 24)),)))
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: allow_useless: mean(h): the 95 % interval (± 35.95) is wider than the whole range its answer can take (24): the answer would be useless; give a narrower universe or a larger ε; or release it anyway, and the public statement says that the answer tells nothing reliable
    """
    if request.allow_useless:
        return
    message = _useless_message([query_preview(q, request.level, request.public_n) for q in request.queries])
    if message is not None:
        raise PrivriskError(message, param="allow_useless")


def release_preview(request: Request) -> ReleasePreview:
    """What a release would cost and how noisy its answers would be, before any noise is drawn or ε spent.

    Per query: the noise scale (b = Δf/ε, or σ = Δf/√(2ρ)), the expected absolute error (b, or σ·√(2/π)), the
    half-width of the 95 % interval (b·ln 20, or 1.96·σ) and whether that interval is wider than the whole range the
    answer can take (:func:`plausible_width`): then the answer would be useless, and unless the request allows it
    (``allow_useless``) the preview's ``useless_refusal`` says why publishing would be refused. With a ledger,
    whether its budget would refuse the release (the ledger is read, never written). Only the data's column names
    are read.

    Raises:
        PrivriskError: for a column the data does not have, a corrupt ledger or a wrong key.

    Example:
        >>> import pandas as pd
        >>> q = ReleaseQuery("income", "mean", 1, (0, 500_000))
        >>> p = release_preview(Request(pd.DataFrame({"income": [1.0]}), (q,)))
        >>> p.warnings[0].split(":")[1].strip()
        'the 95 % interval (± 748,933) is wider than the whole range its answer can take (500,000)'
        >>> p.useless_refusal.startswith("allow_useless: mean(income)")
        True
    """
    check_columns(request)
    before, kept = ledger_state(request)
    rows = [query_preview(q, request.level, request.public_n) for q in request.queries]
    digest = request.digest()
    nonce = secrets.token_hex(16)
    preview_id = hashlib.sha256((digest + nonce).encode()).hexdigest()
    with _PREVIEWS_LOCK:
        _PREVIEWS[preview_id] = digest
    delta = kept.delta if kept is not None else None
    return ReleasePreview(
        id=preview_id,
        request_digest=digest,
        queries=tuple(rows),
        statement=release_statement(request.records(), request.public_n, delta=delta),
        level=request.level,
        refusal=budget_refusal(request, before, kept),
        spent_before=None
        if request.ledger is None
        else math.fsum(float(r.get("epsilon", 0.0)) for r in before),
        useless_refusal=None if request.allow_useless else _useless_message(rows),
    )


def preview(request: Request) -> ReleasePreview:
    """Deprecated: use ``run_release(ReleaseSettings(…, preview=True)).preview``
    (:func:`~privrisk.release.run.run_release`); the same preview of the same request."""
    warnings.warn(
        deprecation_message("preview", "run_release(ReleaseSettings(…, preview=True))"), DeprecationWarning,
        stacklevel=2,
    )  # fmt: skip
    return release_preview(request)


def __getattr__(name: str) -> Any:
    """``ReleaseRequest``, the earlier name of :class:`Request`, kept one release (it warns): the same class."""
    if name == "ReleaseRequest":
        warnings.warn(
            deprecation_message("ReleaseRequest", "ReleaseSettings"), DeprecationWarning, stacklevel=2
        )
        return Request
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
