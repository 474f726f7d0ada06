"""A release, carried out: draw the noise, charge the ledger under its lock, and put the outputs in place.

:func:`carry_out` owns the whole transaction of a :class:`~privrisk.release.request.Request` (the checked core of
:class:`~privrisk.release.run.ReleaseSettings`; :func:`~privrisk.release.run.run_release` calls it):

1. the outputs are checked (writable, not an input, not a special file or a symbolic link) and the data read,
   before any noise is drawn;
2. the budget is checked (without the lock), then every query is clamped to its universe and answered with noise
   from OpenDP (:mod:`privrisk.release.mechanisms`);
3. under the ledger's lock the budget is checked again, the outputs are written to temporary names, the ledger
   is charged, and then the outputs are moved into place, with SIGINT and SIGTERM held back from the charge to
   the end (:class:`~privrisk.release.ledger.deferred_signals`).

So either the ledger is charged and the outputs are whole, or neither: a failure (or an interrupt) before the
charge charges nothing and leaves no output, and the renames after the charge go to places checked before any
noise was drawn, in the folder their temporary names share (they fail only if the file system changes meanwhile,
and then the release is charged without its files: the budget is never under-counted). Published with a preview's
id (:func:`~privrisk.release.request.release_preview`), a release is published once: the ledger entry records the
id, and a second call returns the first release without charging again. :func:`publish` is its earlier name, kept
one release (it warns).

Example:
    >>> import pandas as pd
    >>> from privrisk.release.request import Request, release_preview
    >>> from privrisk.release.spec import ReleaseQuery
    >>> request = Request(pd.DataFrame({"h": [8, 6, 7]}), (ReleaseQuery("h", "mean", 5, (0, 24)),))
    >>> p = release_preview(request)
    >>> carry_out(request, preview_id=p.id) is carry_out(request, preview_id=p.id)
    True
"""

from __future__ import annotations

import contextlib
import os
import threading
import warnings
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError, ThresholdExceeded, deprecation_message
from privrisk.io.data import numeric_values
from privrisk.io.files import atomic_dir, atomic_path, check_outputs
from privrisk.progress import Progress, report
from privrisk.release import ledger as _ledger
from privrisk.release.budget import Budget, as_budget
from privrisk.release.mechanisms import LEVEL, _half_width, sample_gaussian, sample_laplace
from privrisk.release.outputs import PUBLIC_FILES, release_parameters, write_internal, write_outputs
from privrisk.release.request import (
    Request,
    answer_noise,
    budget_refusal,
    check_useless,
    ledger_state,
    preview_digest,
    query_preview,
)
from privrisk.release.result import Release, _internal_assessment, _Measured, _with_cumulative
from privrisk.release.spec import ReleaseQuery
from privrisk.release.statement import release_statement
from privrisk.sensitivity import evaluate, local_sensitivity

__all__ = ["carry_out", "noisy_release", "publish"]


@dataclass(frozen=True)
class _Prepared:
    measured: _Measured
    true_value: float = field(repr=False)  # never leaves this module, not even in a repr
    scale: float = 0.0


def _prepare(
    data: pd.DataFrame | Mapping[str, Any], queries: Sequence[ReleaseQuery], source: str | None
) -> tuple[list[_Prepared], dict[str, Any]]:
    """Clamp each query's column to its universe; Δf, Δv, the certified scale and the true value."""
    available = list(data.keys())
    where = f"{source}: " if source else ""
    prepared, summaries = [], {}
    for q in queries:
        if q.column not in available:
            shown = ", ".join(map(str, available[:20])) + (" …" if len(available) > 20 else "")
            raise PrivriskError(f"{where}no column {q.column!r} for {q.label}; the columns are: {shown}")
        col = numeric_values(data[q.column], name=q.column, missing=q.missing, source=source)
        summaries[q.column] = col.as_dict()
        u = q.universe
        outside = int(np.count_nonzero((col.values < u.lo) | (col.values > u.hi)))
        clamped = np.clip(col.values, u.lo, u.hi)
        # Fails on an overflowing Δf before anything else is computed.
        gs, scale = answer_noise(q)
        with np.errstate(all="ignore"):
            ls = float(local_sensitivity(q.query, clamped, u))
            true_value = float(evaluate(q.query, clamped))
        prepared.append(_Prepared(_Measured(q, int(clamped.size), outside, gs, ls), true_value, scale))
    return prepared, summaries


def _draw_release(
    request: Request,
    data: pd.DataFrame | Mapping[str, Any],
    *,
    before_charge: Callable[[Release, list[dict[str, Any]] | None], None] | None = None,
    preview_id: str | None = None,
) -> Release:
    """Answer the request's queries on ``data`` with noise and charge the ledger (the steps of :func:`carry_out`
    after the outputs are checked and the data read)."""
    qs = list(request.queries)
    n_pub = request.public_n
    new = request.records()
    # Every check that can refuse the release runs before any noise is drawn; with a ledger the budget is
    # checked again under the lock when the release is charged.
    before, kept = ledger_state(request)
    refusal = budget_refusal(request, before, kept)
    if refusal is not None:
        raise ThresholdExceeded(refusal)
    prepared, summaries = _prepare(data, qs, request.source)
    # After the inputs (data, its values, columns, ledger, budget) have had their say, before any noise is drawn.
    check_useless(request)
    useless = [query_preview(q, request.level, n_pub).useless for q in qs]
    half = [_half_width(p.measured.query.mechanism, p.scale, request.level) for p in prepared]

    noisy = [
        sample_gaussian(p.true_value, p.scale)
        if p.measured.query.mechanism == "gaussian"
        else sample_laplace(p.true_value, p.scale)
        for p in prepared
    ]
    rows = []
    for p, y, h, bad in zip(prepared, noisy, half, useless, strict=True):
        m = p.measured
        rows.append(
            {
                "label": m.query.label,
                "column": m.query.column,
                "query": m.query.query,
                "mechanism": m.query.mechanism,
                "epsilon": m.query.epsilon if m.query.rho is None else None,
                "rho": m.query.rho,
                "universe_lo": m.query.universe.lo,
                "universe_hi": m.query.universe.hi,
                "global_sensitivity": m.gs,
                "noise_scale": p.scale,
                "noisy_value": y,
                "noise_95": h,
                "interval_lo": y - h,
                "interval_hi": y + h,
                "useless": bad,
            }
        )
    answers = pd.DataFrame(rows)
    internal, withheld = _internal_assessment([p.measured for p in prepared], n_pub)
    name = request.ledger_name

    def build(record: dict[str, Any] | None, budget_: Any) -> Release:
        b = Budget.from_json(budget_) if budget_ is not None and not isinstance(budget_, Budget) else budget_
        delta = b.delta if b is not None and b.delta is not None else None
        statement = release_statement(new, n_pub, delta=delta)
        if record is not None and name is not None:
            statement = _with_cumulative(statement, record, name, n_pub, delta=delta)
            record = {k: v for k, v in record.items() if k not in ("records", "history")}
        return Release(
            answers=answers,
            statement=statement,
            internal=internal,
            data={} if withheld else summaries,
            ledger=record,
            budget=budget_,
            withheld=withheld,
        )

    if request.ledger is None:
        release = build(None, None if request.budget is None else request.budget.to_json())
        if before_charge is not None:
            before_charge(release, None)
        return release

    built: list[Release] = []

    def charge(result: dict[str, Any]) -> None:
        release = build({"path": name, **result}, result["budget"])
        if before_charge is not None:
            before_charge(release, result["history"])
        built.append(release)

    _ledger.record_release(
        request.ledger,
        queries=new,
        budget=request.budget,
        data=request.source,
        key=request.key,
        before_write=charge,
        preview=preview_id,
    )
    return built[0]


def noisy_release(
    data: pd.DataFrame | Mapping[str, Any],
    queries: Sequence[ReleaseQuery] | ReleaseQuery,
    *,
    public_n: int | None = None,
    budget: float | str | Budget | None = None,
    ledger: str | os.PathLike[str] | None = None,
    source: str | None = None,
    level: float = LEVEL,
    allow_large_epsilon: bool = False,
    key: bytes | str | None = None,
    before_charge: Callable[[Release], None] | None = None,
    allow_useless: bool = True,
) -> Release:
    """Release noisy answers to queries on a data set, with the public statement and the internal assessment.

    The keyword form of :func:`carry_out` for a table in memory without an output folder: it makes a
    :class:`~privrisk.release.request.Request` (which checks every argument, and refuses a total ε above
    20 unless ``allow_large_epsilon``) and draws. Everything that can fail on bad input (columns, missing codes,
    universes, ε, the budget, a corrupt ledger) fails before any noise is drawn. With a ledger the noise is drawn,
    then under the ledger's lock the budget is checked again, ``before_charge`` is called with the finished
    release, and only then is the release charged: if anything fails before the charge, nothing is charged.

    Args:
        data: a DataFrame (or a mapping of column name to values).
        queries: the :class:`ReleaseQuery` objects (or one).
        public_n: the published number of people in the data, for the many-worlds risk in the public statement.
            Give only a number that is public anyway; the records actually read are never used for it.
        budget: the largest total: a number (pure ε) or a :class:`~privrisk.release.budget.Budget` (ε, (ε, δ) or
            ρ); with a ledger it bounds the ledger's total after this release, and None keeps the budget of the
            ledger's last release.
        ledger: a JSON ledger file that records every release (created when missing).
        source: the data file's name, for messages and the ledger.
        level: the coverage of the reported noise interval.
        allow_large_epsilon: release even when the total ε exceeds 20, with a
            :class:`~privrisk.errors.PrivacyLeakWarning`; otherwise such a release is refused.
        key: the secret of a keyed ledger (see :func:`privrisk.release.ledger.read_ledger`).
        before_charge: called with the release before the ledger is charged (without a ledger: before
            returning); if it raises, nothing is charged.
        allow_useless: release an answer whose 95 % interval is wider than the whole range it can take (the
            answers go to the caller, and the public statement says that such an answer tells nothing reliable);
            False refuses it as :func:`~privrisk.release.run.run_release` does by default.

    Raises:
        PrivriskError: for bad input or a corrupt ledger.
        ThresholdExceeded: when the release would exceed the budget; nothing is drawn or recorded.

    Example:
        >>> frame = pd.DataFrame({"hours": [8, 6, 30, 7, 9]})
        >>> r = noisy_release(frame, ReleaseQuery("hours", "mean", 1.0, (0, 24)), public_n=100)
        >>> float(r.answers.loc[0, "noise_scale"]), int(r.internal.loc[0, "n_clamped"])
        (12.0, 1)
        >>> round(r.statement["global_risk"], 4), round(r.statement["many_worlds"], 4)
        (0.7311, 0.0267)
    """
    if not isinstance(data, pd.DataFrame | Mapping):
        raise PrivriskError(f"data: give a DataFrame or a mapping of columns, got {type(data).__name__}")
    request = Request(
        data,
        (queries,) if isinstance(queries, ReleaseQuery) else tuple(queries),
        public_n=public_n,
        budget=as_budget(budget),
        ledger=None if ledger is None else Path(ledger),
        key=None if ledger is None else _ledger.check_key(key),
        source=source,
        level=level,
        allow_large_epsilon=allow_large_epsilon,
        allow_useless=allow_useless,
    )
    hook = None if before_charge is None else (lambda r, _history: before_charge(r))
    return _draw_release(request, data, before_charge=hook)


# --------------------------------------------------------------------------------------------------------------
# The transaction
# --------------------------------------------------------------------------------------------------------------

#: Releases published with a preview's id in this process (most recent last): a repeated call returns its release.
_PUBLISHED: OrderedDict[str, Release] = OrderedDict()
_KEEP = 256
_LOCKS: dict[str, threading.Lock] = {}
_LOCKS_LOCK = threading.Lock()


def _refuse_link(path: Path, param: str) -> None:
    """An output must not be a symbolic link: its rename would land where the link points, maybe on another
    file system, after the ledger is charged."""
    if path.is_symlink():
        raise PrivriskError(f"{param}: {path} is a symbolic link; give the real path", param=param)


def release_inputs(request: Request) -> list[Path]:
    """The files a release reads, which no output may be or replace: the data, the spec, the ledger and its lock,
    a key file."""
    data = [] if isinstance(request.data, pd.DataFrame | Mapping) else [Path(request.data)]
    inputs = [*data, *(p for p in (request.spec, request.ledger) if p is not None), *request.inputs]
    if request.ledger is not None:
        # The lock file beside the ledger is an input too: replacing it would give a second release another lock.
        inputs.append(Path(os.path.realpath(request.ledger) + ".lock"))
    return inputs


def check_public_folder(folder: Path, inputs: Sequence[Path]) -> None:
    """Refuse a folder for the public files that is (or holds) a symbolic link, an input or a special file.

    Raises:
        PrivriskError: naming ``out``.
    """
    _refuse_link(folder, "out")
    for name in PUBLIC_FILES:
        _refuse_link(folder / name, "out")
    check_outputs(folder, list(inputs), param="out", folder=True, files=PUBLIC_FILES)


def check_release_outputs(request: Request) -> None:
    """Refuse, before anything is read or drawn, outputs that cannot be written, that are (or would replace) an
    input (the data, the spec, the ledger, a key file), that are special files, or that are symbolic links.

    Raises:
        PrivriskError: naming ``out`` or ``internal``.
    """
    inputs = release_inputs(request)
    if request.out is not None:
        check_public_folder(request.out, inputs)
    if request.internal is not None:
        _refuse_link(request.internal, "internal")
        check_outputs(request.internal, [*inputs, *([request.out] if request.out else [])], param="internal")
        if request.out is not None and os.path.realpath(request.internal.parent) == os.path.realpath(
            request.out
        ):
            if request.internal.name in PUBLIC_FILES:
                raise PrivriskError(
                    f"internal: {request.internal} is one of the public files of the output folder",
                    param="internal",
                )


def _read(request: Request) -> pd.DataFrame | Mapping[str, Any]:
    if isinstance(request.data, pd.DataFrame | Mapping):
        return request.data
    from privrisk.io.data import read_table

    return read_table(request.data, list(dict.fromkeys(q.column for q in request.queries)))


def _transaction(
    request: Request,
    preview_id: str | None,
    after: Callable[[Release], None] | None,
    progress: Progress | None,
) -> Release:
    report(progress, 0.0, "Checking the outputs")
    check_release_outputs(request)
    report(progress, 0.1, "Reading the data")
    data = _read(request)
    report(progress, 0.5, "Drawing the noise and charging the ledger")
    parameters = release_parameters(
        request.queries,
        file=request.source,
        spec=request.spec,
        public_n=request.public_n,
        budget=request.budget,
        ledger=request.ledger_name,
    )
    # SIGINT and SIGTERM are held back from the charge of the ledger until the outputs are in place (and
    # ``after`` has delivered the answer).
    with _ledger.deferred_signals() as guard:
        with contextlib.ExitStack() as stack:
            tmp = stack.enter_context(atomic_dir(request.out)) if request.out is not None else None
            tmp_internal = stack.enter_context(atomic_path(request.internal)) if request.internal else None

            def before_charge(r: Release, history: list[dict[str, Any]] | None) -> None:
                # The noise is drawn; the outputs go to temporary names, then the ledger is charged, then they
                # are moved into place (when the with-blocks end).
                if tmp is not None:
                    write_outputs(r, tmp, parameters, key=request.key, history=history)
                if tmp_internal is not None:
                    write_internal(r, tmp_internal)
                guard.arm()

            release = _draw_release(request, data, before_charge=before_charge, preview_id=preview_id)
        if after is not None:
            after(release)
    return release


def publish(
    request: Request,
    preview_id: str | None = None,
    *,
    after: Callable[[Release], None] | None = None,
) -> Release:
    """Deprecated: use :func:`~privrisk.release.run.run_release` with a
    :class:`~privrisk.release.run.ReleaseSettings` (``preview_id=`` in the settings); the same transaction."""
    warnings.warn(
        deprecation_message("publish", "run_release(ReleaseSettings(…))"), DeprecationWarning, stacklevel=2
    )
    return carry_out(request, preview_id, after=after)


def carry_out(
    request: Request,
    preview_id: str | None = None,
    *,
    after: Callable[[Release], None] | None = None,
    progress: Progress | None = None,
) -> Release:
    """Carry out a release: check the outputs, read the data, draw the noise, charge the ledger under its lock,
    and move the outputs into place; either the ledger is charged and the outputs are whole, or neither.

    Args:
        request: what to release (:class:`~privrisk.release.request.Request`, checked when made).
        preview_id: the id of the :func:`~privrisk.release.request.release_preview` this release confirms. A preview is
            published once: the ledger entry records its id, and publishing it again in this process returns the
            first release without charging (a double-click, a repeated request); in another process, a ledger
            that records the id refuses a second charge (``param`` ``preview_id``). A preview made in this process
            for other settings is refused.
        after: called with the release once the ledger is charged and the outputs are in place, while an
            interrupt is still held back (deliver the answer here: print it, show it).
        progress: told the share done and the step (:class:`privrisk.progress.Progress`), or None.

    Raises:
        PrivriskError: for bad outputs or input, a corrupt ledger, a preview of other settings or one published
            already, or an answer that would be useless when the request does not allow it (``param`` names the
            field: ``allow_useless``).
        ThresholdExceeded: when the release would exceed the budget; nothing is drawn or recorded.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> from privrisk.release.request import Request
        >>> from privrisk.release.spec import ReleaseQuery
        >>> folder = pathlib.Path(tempfile.mkdtemp())
        >>> request = Request(pd.DataFrame({"h": [8, 6, 7]}), (ReleaseQuery("h", "max", 1, (0, 24)),),
        ...                          ledger=folder / "ledger.json", out=folder / "out", allow_useless=True)
        >>> r = carry_out(request)
        >>> r.ledger["entry"]["seq"], (folder / "out" / "statement.html").exists()
        (1, True)
    """
    if not isinstance(request, Request):
        raise PrivriskError("request: give a release request (ReleaseSettings)", param="request")
    if preview_id is None:
        release = _transaction(request, None, after, progress)
        report(progress, 1.0, "done")
        return release
    if (
        not isinstance(preview_id, str)
        or len(preview_id) != 64
        or not all(c in "0123456789abcdef" for c in preview_id)
    ):
        raise PrivriskError(
            "preview_id: give the id of a preview (64 hexadecimal digits)", param="preview_id"
        )
    digest = preview_digest(preview_id)
    if digest is not None and digest != request.digest():
        raise PrivriskError(
            "preview_id: the settings changed since this preview; preview the release again",
            param="preview_id",
        )
    with _LOCKS_LOCK:
        lock = _LOCKS.setdefault(preview_id, threading.Lock())
    with lock:
        with _LOCKS_LOCK:
            done = _PUBLISHED.get(preview_id)
        if done is not None:
            report(progress, 1.0, "done")
            return done
        release = _transaction(request, preview_id, after, progress)
        with _LOCKS_LOCK:
            _PUBLISHED[preview_id] = release
            while len(_PUBLISHED) > _KEEP:
                old, _ = _PUBLISHED.popitem(last=False)
                _LOCKS.pop(old, None)
        report(progress, 1.0, "done")
        return release
