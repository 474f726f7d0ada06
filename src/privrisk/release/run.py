"""One way in to a noisy release: :class:`ReleaseSettings`, :func:`run_release` and its :class:`ReleaseRun`.

``privrisk release`` and the app's page Release both map their inputs onto a :class:`ReleaseSettings`, call
:func:`run_release` and format the :class:`ReleaseRun` it returns. Every rule about the inputs lives here, and a bad
one raises :class:`~privrisk.errors.PrivriskError` whose ``param`` names the field (``column``, ``spec``,
``budget_rho``, ``allow_useless``, …), so the command line names its option and the app its input.

The queries come one of three ways: as :class:`~privrisk.release.spec.ReleaseQuery` objects (``queries``), from a
``release.toml`` (``spec``), or as one query in the command line's fields (``column``, ``query``, ``epsilon`` or
``mechanism="gaussian"`` with ``rho``, ``universe``, ``missing``). The budget comes as ``budget`` (ε, or a
:class:`~privrisk.release.budget.Budget`), ``budget_epsilon`` with ``budget_delta``, or ``budget_rho``.

``preview=True`` draws nothing: the run holds the :class:`~privrisk.release.request.ReleasePreview` (each answer's
noise, whether the budget would take the release). Otherwise the run is the release as one transaction
(:func:`~privrisk.release.transaction.carry_out`): the outputs are checked, the data read, the noise drawn, the
ledger charged under its lock and the outputs (``out``, ``internal``) moved into place, all or nothing; with the
``preview_id`` of a preview of the same settings, that preview is published once however often it is confirmed.

Example:
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"hours": [8, 6, 30, 7, 9]})
    >>> s = ReleaseSettings(frame, column="hours", query="sum", epsilon=1, universe="0,24", public_n=100)
    >>> run = run_release(s)
    >>> float(run.release.answers.loc[0, "noise_scale"]), run.to_dict()["public_statement"]["epsilon"]
    (24.0, 1.0)
    >>> print(run.sentence())
    An attacker who knows everyone else in the data and wants to tell whether one person is in it would be right about 3 times in 4 at most (the most that ε = 1 allows any noise); guessing, 2 in 4.
    >>> ReleaseSettings(frame, spec="release.toml", column="hours")
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: column: give the queries either in a release.toml or one by one, not both
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pandas as pd

from privrisk._validation import parse_bounds
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.progress import Progress, report
from privrisk.release.budget import Budget
from privrisk.release.mechanisms import LEVEL
from privrisk.release.outputs import SCHEMA_VERSION
from privrisk.release.request import ReleasePreview, Request
from privrisk.release.result import Release
from privrisk.release.spec import ReleaseQuery, check_public_n

__all__ = ["ReleaseRun", "ReleaseSettings", "run_release"]

Data = pd.DataFrame | Mapping[str, Any] | str | os.PathLike[str]
PathLike = str | os.PathLike[str]

#: The fields of one query given as the command line gives it, in the order a missing one is named.
_SINGLE = ("column", "query", "epsilon", "universe", "mechanism", "rho")


@dataclass(frozen=True, eq=False)
class ReleaseSettings:
    """Everything ``privrisk release`` and the page Release take, checked together when made.

    Attributes:
        data: a DataFrame (or a mapping of column to values), or a data file (CSV, Parquet, Stata, SPSS) of which
            only the queried columns are read.
        queries: the :class:`~privrisk.release.spec.ReleaseQuery` objects (or one); or None to give ``spec`` or
            the single query's fields instead.
        public_n: the published number of people in the data (for the many-worlds risk), or None; with ``spec``
            it must agree with the spec's ``public_n`` where both are given.
        budget: the largest total: ε (a number or ``ln3``) or a :class:`~privrisk.release.budget.Budget`; None
            keeps the budget the ledger's last release recorded.
        ledger: the JSON ledger that is charged (created when missing), or None.
        key: the secret of a keyed ledger (at least 16 bytes), or None; only with a ledger. Never shown.
        out: a folder for the public files (:data:`~privrisk.release.outputs.PUBLIC_FILES`), or None.
        internal: a file for the internal assessment (NOT FOR PUBLICATION, mode 0600), or None.
        source: the data's name for messages, the ledger and the JSON document's ``file`` (default: the data
            file's path).
        spec: a ``release.toml`` that lists the queries (and may give ``public_n``); recorded in the manifest.
        inputs: other input files (a key file) that no output may replace.
        ledger_label: how the ledger is named in what the release returns and writes (default: its path).
        allow_large_epsilon: release even when the total ε exceeds 20 (or ρ exceeds 200), with a warning.
        level: the coverage of the reported noise intervals (0.95).
        allow_useless: release even an answer whose interval is wider than the whole range it can take (its
            statement then says that it tells nothing reliable); otherwise such a release is refused.
        column, query, epsilon, mechanism, rho, universe, missing: one query as the command line takes it
            (``universe`` as ``"LO,HI"`` or a pair; ``mechanism`` ``laplace`` with ``epsilon`` or ``gaussian``
            with ``rho``); ``missing`` also applies to a query given so.
        budget_epsilon, budget_delta, budget_rho: the budget as (ε, δ) or ρ of zCDP instead of ``budget``.
        preview: draw nothing: the run holds what the release would cost (:class:`ReleaseRun.preview`).
        preview_id: the id of a preview of the same settings that this release confirms (published once).

    There is no seed: a release's noise comes from OpenDP's samplers, which draw from the operating system's
    secure randomness and cannot be seeded (a seeded noise could be subtracted again).

    Raises:
        PrivriskError: naming the field (``param``) that is wrong or does not go with another.
    """

    data: Data = field(repr=False)
    queries: Sequence[ReleaseQuery] | ReleaseQuery | None = None
    public_n: int | None = None
    budget: Budget | float | str | None = None
    ledger: PathLike | None = None
    key: bytes | str | None = field(default=None, repr=False)
    out: PathLike | None = None
    internal: PathLike | None = None
    source: str | None = None
    spec: PathLike | None = None
    inputs: Sequence[PathLike] = ()
    ledger_label: str | None = None
    allow_large_epsilon: bool = False
    level: float = LEVEL
    allow_useless: bool = False
    column: str | None = None
    query: str | None = None
    epsilon: float | str | None = None
    mechanism: str | None = None
    rho: float | str | None = None
    universe: str | Sequence[float] | None = None
    missing: str | None = None
    budget_epsilon: float | str | None = None
    budget_delta: float | None = None
    budget_rho: float | None = None
    preview: bool = False
    preview_id: str | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__  # a frozen dataclass normalises itself once, while it is made
        if self.data is None:
            raise PrivriskError("data: give a data file or a table", param="data")
        # The field a user gave the budget in is the one a refusal names (read before ``budget`` is normalised).
        given = "budget_epsilon" if self.budget is None and self.budget_epsilon is not None else "budget"
        set_(self, "_budget_param", "budget_rho" if self.budget_rho is not None else given)
        public_n = check_public_n(self.public_n, "public_n")
        queries, public_n = self._queries(public_n)
        budget = self._budget()
        for flag in ("preview", "allow_large_epsilon", "allow_useless"):
            if not isinstance(getattr(self, flag), bool):
                raise PrivriskError(f"{flag}: give True or False", param=flag)
        if self.preview_id is not None and self.preview:
            raise PrivriskError("preview_id: confirms a preview; give it without preview", param="preview_id")
        request = Request(
            self.data, tuple(queries), public_n=public_n, budget=budget, ledger=cast(Any, self.ledger),
            key=cast(Any, self.key), out=cast(Any, self.out), internal=cast(Any, self.internal), source=self.source,
            spec=cast(Any, self.spec), inputs=tuple(cast(Any, self.inputs)), ledger_label=self.ledger_label,
            allow_large_epsilon=self.allow_large_epsilon, level=self.level, allow_useless=self.allow_useless,
        )  # fmt: skip
        # Only what stays the same when made again (dataclasses.replace): the queries, n and budget as given (a
        # spec's or the single query's are the request's), the paths and the key as checked.
        set_(self, "queries", None if self.queries is None else _listed(self.queries))
        for name in ("ledger", "key", "out", "internal", "source", "spec", "inputs", "level"):
            set_(self, name, getattr(request, name))
        set_(self, "_request", request)

    def _queries(self, public_n: int | None) -> tuple[tuple[ReleaseQuery, ...], int | None]:
        """The queries from ``queries``, ``spec`` or the single query's fields (one of them), and the public n."""
        given = [name for name in _SINGLE if getattr(self, name) is not None]
        listed = None if self.queries is None else _listed(self.queries)
        if self.spec is not None:
            from privrisk.release.spec import read_release_spec

            if given or self.missing is not None or listed is not None:
                name = given[0] if given else "missing" if self.missing is not None else "queries"
                raise PrivriskError(
                    f"{name}: give the queries either in a release.toml or one by one, not both", param=name
                )
            parsed = read_release_spec(self.spec)
            if public_n is not None and parsed.public_n is not None and public_n != parsed.public_n:
                raise PrivriskError(
                    f"public_n: {public_n} differs from public_n = {parsed.public_n} in {self.spec}; give one",
                    param="public_n",
                )
            return parsed.queries, public_n if public_n is not None else parsed.public_n
        if listed is not None:
            if given or self.missing is not None:
                name = given[0] if given else "missing"
                raise PrivriskError(
                    f"{name}: give the queries either as ReleaseQuery objects or one by one, not both",
                    param=name,
                )
            return listed, public_n
        gaussian = str(self.mechanism or "").strip().lower() == "gaussian"
        for name in ("column", "query", "rho" if gaussian else "epsilon", "universe"):
            if getattr(self, name) is None:
                raise PrivriskError(f"{name}: required (or give the queries in a release.toml)", param=name)
        universe = self.universe
        bounds = parse_bounds(universe, name="universe") if isinstance(universe, str) else universe
        query = ReleaseQuery(cast(str, self.column), cast(Any, self.query), self.epsilon, cast(Any, bounds),
                             self.missing, mechanism=cast(Any, self.mechanism or "laplace"), rho=cast(Any, self.rho))  # fmt: skip
        return (query,), public_n

    def _budget(self) -> Budget | None:
        if isinstance(self.budget, Budget):
            others = ("budget_epsilon", "budget_delta", "budget_rho")
            extra = next((name for name in others if getattr(self, name) is not None), None)
            if extra is not None:
                raise PrivriskError(f"{extra}: a Budget is whole; give it alone", param=extra)
            return self.budget
        return Budget.from_options(self.budget, self.budget_epsilon, self.budget_delta, self.budget_rho)

    @property
    def request(self) -> Request:
        """The checked request the run carries out (:class:`~privrisk.release.request.Request`)."""
        return cast(Request, getattr(self, "_request"))  # noqa: B009 - set by __post_init__, not a field

    def digest(self) -> str:
        """SHA-256 of the release asked for (:meth:`~privrisk.release.request.Request.digest`): equal for two settings
        of the same release, whatever way they gave the queries; a preview's id is confirmed only by its own."""
        return self.request.digest()

    @property
    def budget_param(self) -> str:
        """The field that gave the budget (``budget``, ``budget_epsilon`` or ``budget_rho``): a refusal names it."""
        return cast(str, getattr(self, "_budget_param"))  # noqa: B009 - set by __post_init__, not a field

    def refusal(self, message: str) -> ThresholdExceeded:
        """A budget's refusal (``budget: …``) naming the field that gave the budget."""
        param = self.budget_param
        if param != "budget" and message.startswith("budget:"):
            message = param + message[len("budget") :]
        return ThresholdExceeded(message, param=param)


@dataclass(frozen=True, eq=False)
class ReleaseRun:
    """What :func:`run_release` did: the release (public answers, statement, internal assessment) or, for a
    preview, what it would cost; the JSON document with :meth:`to_dict`, the verdict with :meth:`sentence`, the
    public files with :meth:`write`.

    Attributes:
        settings: what was asked.
        release: the :class:`~privrisk.release.result.Release` (None for a preview).
        preview: the :class:`~privrisk.release.request.ReleasePreview` (None for a release).
    """

    settings: ReleaseSettings
    release: Release | None = None
    preview: ReleasePreview | None = None

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk release --json`` prints: ``schema_version``, ``file`` (the data's name),
        then the preview's fields or the release's public part (:meth:`~privrisk.release.result.Release.
        public_dict`); the internal assessment is never part of it."""
        found = (
            self.preview.to_dict() if self.preview is not None else cast(Release, self.release).public_dict()
        )
        return {"schema_version": SCHEMA_VERSION, "file": self.settings.source, **found}

    def sentence(self) -> str:
        """The verdict first, in plain words: how often an attacker who knows everyone else would be right, and
        for a preview whether the budget would refuse the release."""
        from privrisk.release.statement import verdict

        if self.preview is None:
            return verdict(cast(Release, self.release).statement)
        said = self.preview.verdict()
        return (
            said
            if self.preview.refusal is None
            else f"{said} The release would be refused: {self.preview.refusal}"
        )

    def exceeded(self) -> ThresholdExceeded | None:
        """The budget's refusal of a previewed release (a release over budget raises it instead), or None."""
        if self.preview is None or self.preview.refusal is None:
            return None
        return self.settings.refusal(self.preview.refusal)

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write the release's public files (``release.json``, ``release.csv``, ``statement.html``, the figures,
        ``manifest.json``) into ``folder``, whole or not at all; the same files as ``out``.

        Raises:
            PrivriskError: (``preview``) for a preview: nothing was released; (``out``) for a folder that is or
                holds an input of the release (the data, the spec, the ledger), a link or a special file.
        """
        from privrisk.io.files import atomic_dir
        from privrisk.release.outputs import write_outputs
        from privrisk.release.transaction import check_public_folder, release_inputs

        if self.release is None:
            raise PrivriskError(
                "preview: a preview releases nothing; run without preview to write", param="preview"
            )
        target = Path(folder)
        check_public_folder(target, release_inputs(self.settings.request))
        with atomic_dir(target) as tmp:
            names = write_outputs(self.release, tmp, parameters(self.settings.request), key=self.settings.key)
        return [target / name for name in names]


def parameters(request: Request) -> dict[str, Any]:
    """What was asked of a release, for its manifest (:func:`~privrisk.release.outputs.release_parameters`)."""
    from privrisk.release.outputs import release_parameters

    return release_parameters(request.queries, file=request.source, spec=request.spec, public_n=request.public_n,
                              budget=request.budget, ledger=request.ledger_name)  # fmt: skip


def run_release(
    settings: ReleaseSettings,
    *,
    progress: Progress | None = None,
    after: Callable[[ReleaseRun], None] | None = None,
) -> ReleaseRun:
    """Preview or carry out the release the settings ask for.

    Args:
        settings: what to release (checked when made).
        progress: told the share done and the step (:class:`privrisk.progress.Progress`), or None.
        after: called with the run once the ledger is charged and the outputs are in place, while SIGINT and
            SIGTERM are still held back: a front end delivers the answer here (prints it, shows it), so that an
            interrupt cannot leave a charged release unseen. Not called for a preview.

    Raises:
        PrivriskError: a column the data does not have, bad outputs, a corrupt ledger or a wrong key, a preview of
            other settings or one published already, or an answer that would be useless (``allow_useless``).
        ThresholdExceeded: when the release would exceed the budget (``param`` names the budget's field);
            nothing is drawn or recorded.

    Example:
        >>> import pandas as pd
        >>> s = ReleaseSettings(pd.DataFrame({"h": [8, 6, 7]}), ReleaseQuery("h", "mean", 1, (0, 24)), preview=True)
        >>> p = run_release(s).preview
        >>> p.queries[0].scale, p.useless_refusal.startswith("allow_useless: mean(h)")
        (12.0, True)
    """
    from privrisk.release.request import release_preview
    from privrisk.release.transaction import carry_out

    if not isinstance(settings, ReleaseSettings):
        raise PrivriskError("settings: give a ReleaseSettings", param="settings")
    request = settings.request
    report(progress, 0.0, "Checking the queries' columns")
    if settings.spec is not None:
        from privrisk.release.spec import check_spec_columns

        check_spec_columns(request.queries, _columns(request.data), spec=cast(Any, settings.spec),
                           source=cast(Any, settings.source or "the data"))  # fmt: skip
    if settings.preview:
        run = ReleaseRun(settings, preview=release_preview(request))
        report(progress, 1.0, "done")
        return run
    runs: list[ReleaseRun] = []

    def deliver(release: Release) -> None:
        runs.append(ReleaseRun(settings, release=release))
        if after is not None:
            after(runs[0])

    try:
        release = carry_out(request, settings.preview_id, after=deliver, progress=progress)
    except ThresholdExceeded as exc:
        if exc.param != "budget":
            raise
        raise settings.refusal(str(exc)) from None
    return runs[0] if runs else ReleaseRun(settings, release=release)


def _listed(queries: Any) -> tuple[Any, ...]:
    """The queries given as a tuple (one query, or any sequence of them; a text is not a sequence of queries)."""
    return (queries,) if isinstance(queries, ReleaseQuery | str) else tuple(queries)


def _columns(data: Any) -> list[str]:
    if isinstance(data, pd.DataFrame | Mapping):
        return [str(c) for c in data.keys()]
    from privrisk.io.data import table_columns

    return list(table_columns(data))
