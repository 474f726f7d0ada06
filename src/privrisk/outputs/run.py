"""Output checking's one way in: :class:`OutputsSettings` in, :func:`run_outputs`, :class:`OutputsRun` out.

:func:`run_outputs` reads the data and the spec, computes every output with DuckDB, applies the primary
rules to each cell (:mod:`privrisk.outputs.rules`), finds what all outputs (this run's and the ledger's) reveal
together (:mod:`privrisk.outputs.differencing`) and proposes what to do about it
(:mod:`privrisk.outputs.recommend`). The command line and the app page both call it; :func:`check_frame` is the
same check of a DataFrame for notebooks.

With a ledger (:mod:`privrisk.outputs.ledger`, in the one ledger of everything released) the request is checked
against every output released before, by position, and a set that passes is appended, the check and the append
under one lock: requests made at the same time are checked against each other, and only what was checked
against the ledger as it is gets into it. A name the ledger has already is refused; earlier outputs computed on
another version of the data are checked with that version (``earlier_data``,
:mod:`privrisk.outputs.versions`) or refused when today's data does not give their numbers again.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.outputs._source import viewable_file
from privrisk.outputs.knowledge import derive
from privrisk.outputs.policy import Policy, read_policy
from privrisk.outputs.rules import worst
from privrisk.outputs.spec import MODELS, OutputSpec, read_spec
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    from privrisk.outputs.ledger import Released

__all__ = ["OutputsRun", "OutputsSettings", "check_frame", "run_outputs"]

SCHEMA_VERSION = 1


def _path(value: Any, name: str, *, optional: bool) -> Path | None:
    if value is None and optional:
        return None
    if isinstance(value, bool) or not isinstance(value, str | os.PathLike):
        raise PrivriskError(f"{name}: must be a file path, not {type(value).__name__}", param=name)
    if not str(value).strip():
        raise PrivriskError(f"{name}: the path is empty", param=name)
    return Path(value)


@dataclass(frozen=True)
class OutputsSettings:
    """What to check: the data, the spec of outputs, the policy and an outputs ledger. Checked when made.

    Attributes:
        data: the microdata: a file (CSV, Parquet, Stata, SPSS) or a DataFrame.
        spec: ``outputs.toml``, or the outputs as :class:`OutputSpec` objects.
        policy: an ACRO policy file (YAML) or a :class:`Policy`; ACRO's defaults if None.
        ledger: the one ledger of everything released: the outputs released before (their specs and numbers)
            join the differencing, and a set that passes is appended (see ``append``).
        key: the ledger's HMAC key, if it was written with one.
        max_atoms: the largest grid of atoms crossed in full (above it, only the observed combinations).
        append: with a ledger, append the outputs if they all pass, checked and appended under the ledger's lock
            (the default); False only checks against the ledger.
        timeout: seconds to wait for the ledger's lock held by another release or outputs check.
        earlier_data: earlier versions of the data (files or DataFrames), for the ledger's outputs computed on
            them: each earlier output is matched to its version by its fingerprint, and the versions are checked
            as one population whose newcomers and leavers are groups like any other
            (:mod:`privrisk.outputs.versions`). Without it, an earlier output whose numbers today's data does not
            give again is refused.
        engine: where the group-bys over the records run: ``duckdb`` (this machine, the default) or ``spark``
            (a CSV or Parquet file, folder or URI: Spark counts the combinations of the columns the outputs read,
            only those come back, and the same check runs over them; :mod:`privrisk.outputs._spark`). What needs
            every record on one machine is refused on Spark, naming its field: a DataFrame, a ledger (its data
            version digests each record), a model's fit, ``[derived]`` knowledge, cell-key perturbation.
        spark_master: with engine ``spark``, the master URL (``local[*]`` by default; an active session is reused).

    Example:
        >>> OutputsSettings(data="d.csv", spec="outputs.toml").max_atoms
        200000
        >>> OutputsSettings(data="d.csv", spec="outputs.toml", key=b"k")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: key: a ledger key needs a ledger
    """

    data: str | os.PathLike[str] | pd.DataFrame
    spec: str | os.PathLike[str] | tuple[OutputSpec, ...]
    policy: str | os.PathLike[str] | Policy | None = None
    ledger: str | os.PathLike[str] | None = None
    key: bytes | None = None
    max_atoms: int = 200_000
    append: bool = True
    timeout: float = 300.0
    earlier_data: tuple[str | os.PathLike[str] | pd.DataFrame, ...] = ()
    engine: str = "duckdb"
    spark_master: str | None = None

    def __post_init__(self) -> None:
        set_ = object.__setattr__
        earlier = self.earlier_data
        if isinstance(earlier, str | os.PathLike | pd.DataFrame):
            earlier = (earlier,)
        if not isinstance(earlier, list | tuple):
            raise PrivriskError(
                f"earlier_data: give files or DataFrames, not {type(earlier).__name__}", param="earlier_data"
            )
        for item in earlier:
            if not isinstance(item, pd.DataFrame):
                _path(item, "earlier_data", optional=False)
        set_(self, "earlier_data", tuple(earlier))
        if not isinstance(self.data, pd.DataFrame):
            _path(self.data, "data", optional=False)
        if isinstance(self.spec, list | tuple):
            specs = tuple(self.spec)
            if not specs or not all(isinstance(s, OutputSpec) for s in specs):
                raise PrivriskError("spec: give a file or at least one OutputSpec", param="spec")
            names = [s.name for s in specs]
            dupes = sorted({n for n in names if names.count(n) > 1})
            if dupes:
                raise PrivriskError(f"spec: output {dupes[0]!r} is named twice", param="spec")
            set_(self, "spec", specs)
        else:
            _path(self.spec, "spec", optional=False)
        if not isinstance(self.policy, Policy):
            _path(self.policy, "policy", optional=True)
        ledger = _path(self.ledger, "ledger", optional=True)
        if isinstance(self.max_atoms, bool) or not isinstance(self.max_atoms, int) or self.max_atoms < 1:
            raise PrivriskError(
                f"max_atoms: must be a whole number ≥ 1, not {self.max_atoms!r}", param="max_atoms"
            )
        if self.earlier_data and ledger is None:
            raise PrivriskError(
                "earlier_data: earlier versions of the data are compared with a ledger's outputs: give a ledger",
                param="earlier_data",
            )
        if self.key is not None:
            if ledger is None:
                raise PrivriskError("key: a ledger key needs a ledger", param="key")
            if not isinstance(self.key, bytes | bytearray) or not self.key:
                raise PrivriskError("key: must be non-empty bytes", param="key")
            from privrisk.ledger import check_key

            check_key(self.key)
        if not isinstance(self.append, bool):
            raise PrivriskError(f"append: must be true or false, not {self.append!r}", param="append")
        if (
            isinstance(self.timeout, bool)
            or not isinstance(self.timeout, int | float)
            or not 0 <= self.timeout < float("inf")
        ):
            raise PrivriskError(
                f"timeout: must be a number of seconds ≥ 0, not {self.timeout!r}", param="timeout"
            )
        if ledger is not None:
            # The ledger is written after the check: it must not be one of the inputs it would overwrite.
            named = [(n, getattr(self, n)) for n in ("data", "spec", "policy")]
            for name, other in named + [("earlier data", e) for e in self.earlier_data]:
                if isinstance(other, str | os.PathLike) and Path(other).resolve() == ledger.resolve():
                    raise PrivriskError(f"ledger: {ledger} is also the {name} file", param="ledger")
        self._check_engine()

    def _check_engine(self) -> None:
        """Spark groups a file; what needs every record on one machine is refused there, naming its field."""
        from privrisk.io.engine import engine_and_master

        engine, master = engine_and_master(self.engine, self.spark_master, self.data, done="checked")
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "spark_master", master)
        if engine != "spark":
            return
        if self.ledger is not None:
            raise PrivriskError("ledger: not on engine 'spark' (the ledger's data version digests every record in "
                                "the file's order on one machine); use engine 'duckdb'", param="ledger")  # fmt: skip
        if isinstance(self.spec, tuple):
            refuse_on_spark(self.spec)


def refuse_on_spark(specs: Sequence[OutputSpec]) -> None:
    """Refuse, naming the output, what needs every record on one machine: a model's fit, the spec's
    ``[derived]`` variables (computed record by record), cell-key perturbation (each record's key).

    Example:
        >>> refuse_on_spark([OutputSpec(name="M", kind="ols", formula="y ~ x")])
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: spec: output 'M' is a model (ols): not on engine 'spark' (its fit needs every record on one machine); use engine 'duckdb'
    """
    for s in specs:
        if s.kind in MODELS:
            why = "its fit needs every record on one machine"
        elif s.ptable is not None:
            why = "cell-key perturbation needs each record's key on one machine"
        else:
            continue
        what = f"is a model ({s.kind})" if s.kind in MODELS else "is perturbed"
        raise PrivriskError(f"spec: output {s.name!r} {what}: not on engine 'spark' ({why}); use engine 'duckdb'",
                            param="spec")  # fmt: skip
    knowledge = getattr(specs, "knowledge", None)
    if knowledge is not None and knowledge.derived:
        raise PrivriskError("spec: [derived]: not on engine 'spark' (derived variables are computed record by "
                            "record on one machine); use engine 'duckdb'", param="spec")  # fmt: skip


@dataclass(frozen=True)
class OutputsRun:
    """Every output with its cells and their statuses, the differencing findings and the recommendations."""

    outputs: list[dict[str, Any]]
    disclosures: list[dict[str, Any]]
    recommendations: list[dict[str, Any]]
    atoms: pd.DataFrame
    summary: dict[str, Any]
    policy: Policy
    specs: tuple[OutputSpec, ...] = field(default=())
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    #: The data version (:func:`~privrisk.outputs.ledger.data_version`) of each output of the request, by name.
    versions: dict[str, dict[str, Any]] = field(default_factory=dict, repr=False)
    #: Earlier outputs (their names here) whose released numbers today's data does not give again.
    earlier_changed: tuple[str, ...] = ()
    #: With a ledger: ``path``, ``head`` (the last outputs entry checked against), ``appended``, ``seq``.
    ledger: dict[str, Any] | None = None
    #: What the intruder is assumed to know beyond the spec (dependencies found in the data, declared hierarchies).
    assumed: list[dict[str, Any]] = field(default_factory=list)
    #: The groups that the differencing's budgets left undecided, in words (``summary.atoms_undecided`` counts all).
    undecided_groups: list[str] = field(default_factory=list)

    @property
    def status(self) -> str:
        """pass when every cell passes and nothing is disclosed; fail otherwise (review: a person should look)."""
        if self.disclosures:
            return "fail"
        status = worst(o["status"] for o in self.outputs)
        # Atoms the programs could not decide in their time may hide a disclosure: a person looks.
        return "review" if status == "pass" and self.summary.get("atoms_undecided") else status

    def sentence(self) -> str:
        """The verdict in plain words, first: may be released, or why not and how many findings."""
        from privrisk.outputs.report import verdict_sentence

        return verdict_sentence(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """The JSON document (``schema_version`` 1)."""
        return {
            "schema_version": SCHEMA_VERSION,
            "status": self.status,
            "outputs": self.outputs,
            "disclosures": [{k: v for k, v in d.items() if k != "atom"} for d in self.disclosures],
            "recommendations": self.recommendations,
            "summary": self.summary,
            "assumed": self.assumed,
            "undecided_groups": self.undecided_groups,
            "policy": self.policy.to_dict(),
            "ledger": None
            if self.ledger is None
            else {k: self.ledger[k] for k in ("path", "appended", "seq") if k in self.ledger},
        }

    def write(self, folder: str | os.PathLike[str]) -> list[Path]:
        """Write the report folder (HTML, JSON, CSVs) whole or not at all; the files written."""
        from privrisk.outputs.report import write_report

        return write_report(self, folder)


def run_outputs(
    settings: OutputsSettings,
    *,
    progress: Progress | None = None,
    before_append: Callable[[OutputsRun], None] | None = None,
) -> OutputsRun:
    """Check the outputs of a spec against the data and every output in the ledger; append them if they pass.

    With ``settings.ledger`` the request is checked against every output the ledger records (in the order
    released), and, with ``settings.append`` (the default), a set that passes is appended: the check the entry
    rests on and the append happen under the ledger's lock, so that requests made at the same time are checked
    against each other (a request checked while another was appended is checked again under the lock).

    Args:
        settings: what to check (:class:`OutputsSettings`).
        progress: told when the data is read, checked and (with a ledger) appended to the ledger.
        before_append: called with the result under the ledger's lock, before the ledger is written (without a
            ledger or without ``append``: before returning); write the result's files to temporary names here,
            so that the report and the ledger go together. If it raises, nothing is appended.

    Raises:
        PrivriskError: for bad input: an unreadable file, a spec that is not TOML, an unknown column, a
            ``where`` that is not a condition (the message names the output and the field); an output named as
            one the ledger has already; earlier outputs whose numbers today's data does not give again; a ledger
            that is corrupt, a link or not a regular file, or whose lock is not taken in time.

    Example:
        >>> import pandas as pd, tempfile, pathlib
        >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> frame = pd.DataFrame({"region": ["N"] * 12 + ["S"] * 15})
        >>> table = OutputSpec(name="T1", kind="count", rows=("region",))
        >>> r = run_outputs(OutputsSettings(data=frame, spec=(table,), ledger=led))
        >>> r.status, r.ledger["appended"], r.ledger["seq"]
        ('pass', True, 1)
        >>> r.sentence()
        'May be released: every cell passes the rules, and no combination of the outputs pins down a group below the threshold.'
        >>> run_outputs(OutputsSettings(data=frame, spec=(table,), ledger=led))
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: spec: output 'T1' is in the ledger ... already (outputs entry 1 of ...); a name is kept for the ledger's life and never replaced: give this output another name
    """
    from privrisk.io.data import read_table

    report(progress, 0.0, "Reading the data and the spec")
    specs = settings.spec if isinstance(settings.spec, tuple) else read_spec(settings.spec)
    policy = settings.policy if isinstance(settings.policy, Policy) else read_policy(settings.policy)
    source = None if isinstance(settings.data, pd.DataFrame) else str(settings.data)
    if settings.engine == "spark":
        refuse_on_spark(specs)
        report(progress, 0.1, "Grouping the records in Spark, checking every output and what they give away")
        result: OutputsRun | None = _check_on_spark(settings, specs, policy)
    else:
        viewed = (
            None if settings.ledger is not None or _needs_records(specs) else viewable_file(settings.data)
        )
        if viewed is not None:
            report(progress, 0.1, "Checking every output and what they give away together")
        result = None if viewed is None else _check_file(viewed, specs, policy, settings.max_atoms, source)
    if result is not None:
        if before_append is not None:
            before_append(result)
        report(progress, 1.0, "Checked")
        return result
    frame = settings.data if isinstance(settings.data, pd.DataFrame) else read_table(settings.data)
    noisy = [s.name for s in specs if s.ptable is not None]
    if noisy and settings.ledger is not None and settings.append:
        raise PrivriskError(
            f"ledger: output {noisy[0]!r} is released with cell-key perturbation, which the ledger cannot record "
            "yet: check it against the ledger without appending it",
            param="ledger",
        )

    report(progress, 0.1, "Checking every output and what they give away together")

    def check(entries: Sequence[dict[str, Any]]) -> OutputsRun:
        return _against_ledger(frame, specs, policy, settings, entries, source)

    if settings.ledger is None:
        result = check_frame(frame, specs, policy, max_atoms=settings.max_atoms, source=source)
    elif not settings.append:
        from privrisk.ledger import read_ledger_file

        result = check(read_ledger_file(settings.ledger, settings.key))
    else:
        result = _check_and_append(settings, check, before_append)
        report(progress, 1.0, "Checked")
        return result
    if before_append is not None:
        before_append(result)
    report(progress, 1.0, "Checked")
    return result


def _needs_records(specs: Sequence[OutputSpec]) -> bool:
    """Whether the check needs every record in memory: derived variables (computed and compared record by
    record) or a perturbed output (each record's key)."""
    knowledge = getattr(specs, "knowledge", None)
    return bool(knowledge is not None and knowledge.derived) or any(s.ptable is not None for s in specs)


def _check_file(
    path: Path,
    specs: Sequence[OutputSpec],
    policy: Policy,
    max_atoms: int,
    source: str | None,
    grouped: list[str] | None = None,
) -> OutputsRun | None:
    """The check of a CSV or Parquet file on DuckDB's view of it (:mod:`privrisk.outputs._source`): only the
    aggregates come back, and a model's rows; None when a column's type is not viewed (the file is read).

    ``grouped`` are the source's columns when the file is Spark's frequency table of it
    (:mod:`privrisk.outputs._spark`): no model, no data versions (the ledger's) then."""
    from privrisk.io.engine import interruptible
    from privrisk.outputs._checked import checked
    from privrisk.outputs._source import file_data
    from privrisk.outputs._spark import MULTIPLICITY

    with file_data(path, multiplicity=None if grouped is None else MULTIPLICITY) as data:
        if data is None:
            return None
        columns = data.columns if grouped is None else grouped
        versions = (lambda named: data.versions(named, source)) if grouped is None else (lambda named: {})
        return interruptible(data.con, lambda: OutputsRun(**checked(
            data.con, specs, policy, columns=columns, records=data.records, rows=data.frame, versions=versions,
            max_atoms=max_atoms, knowledge=getattr(specs, "knowledge", None),
            record_key=getattr(specs, "record_key", None),
        )))  # fmt: skip


def _check_on_spark(settings: OutputsSettings, specs: Sequence[OutputSpec], policy: Policy) -> OutputsRun:
    """The check of a file grouped by Spark (:mod:`privrisk.outputs._spark`): its frequency table on DuckDB's
    view, or in memory when it has no records or a column of a type the view does not give."""
    from privrisk.outputs._spark import frequency_file, records_in_memory

    with frequency_file(settings.data, specs, settings.spark_master) as (path, columns):
        result = _check_file(path, specs, policy, settings.max_atoms, None, grouped=columns)
        frame = records_in_memory(path, columns) if result is None else None
    if result is not None:
        return result
    run = check_frame(frame, specs, policy, max_atoms=settings.max_atoms)  # type: ignore[arg-type]
    return dataclasses.replace(run, versions={})


def _check_and_append(
    settings: OutputsSettings,
    check: Callable[[Sequence[dict[str, Any]]], OutputsRun],
    before_append: Callable[[OutputsRun], None] | None,
) -> OutputsRun:
    """Check against the ledger as it is, then under its lock: again if other outputs were appended meanwhile,
    and append the set if it passed (the lock is held for the append, not for the first, long check)."""
    from privrisk.ledger import open_ledger, read_ledger_file
    from privrisk.outputs.ledger import KIND, outputs_entry, outputs_head

    assert settings.ledger is not None
    seen = read_ledger_file(settings.ledger, settings.key)
    result = check(seen)
    with open_ledger(settings.ledger, settings.key, timeout=settings.timeout) as led:
        if outputs_head(led.entries) != outputs_head(seen):
            result = check(led.entries)
        entry = led.entry(KIND, outputs_entry(result, result.versions)) if result.status == "pass" else None
        state = {**(result.ledger or {}), "appended": entry is not None, "seq": entry and entry["seq"]}
        result = dataclasses.replace(result, ledger=state)
        if before_append is not None:
            before_append(result)
        if entry is not None:
            led.write(entry)
    return result


def _against_ledger(
    frame: pd.DataFrame,
    specs: tuple[OutputSpec, ...],
    policy: Policy,
    settings: OutputsSettings,
    entries: Sequence[dict[str, Any]],
    source: str | None,
) -> OutputsRun:
    """The check of a request against the earlier outputs that ``entries`` record (names new, data the same)."""
    from privrisk.outputs._checked import _earlier_names
    from privrisk.outputs.ledger import outputs_head, released_outputs, taken_names, version_change

    earlier = released_outputs(entries, settings.ledger)
    taken_names(specs, earlier, settings.ledger)
    from privrisk.outputs.ledger import data_version
    from privrisk.outputs.versions import placed_versions, versioned_request

    knowledge = getattr(specs, "knowledge", None)
    today = derive(frame, knowledge)
    placed, versions = placed_versions(frame, specs, earlier, settings.earlier_data)
    if any(placed):
        one = versioned_request(frame, specs, earlier, placed, versions, settings.data)
        result = check_frame(one.frame, one.specs, policy, earlier=one.earlier, max_atoms=settings.max_atoms)
        result = one.finish(result, specs, data_versions(today, specs, source))
    else:
        result = check_frame(
            frame, specs, policy, earlier=earlier, max_atoms=settings.max_atoms, source=source
        )
    moved = set(result.earlier_changed)
    changed = 0
    digests: dict[str, str] = {}
    lenient = []
    for r, name, where in zip(earlier, _earlier_names(earlier, specs), placed, strict=True):
        if r.spec.kind in MODELS or where:
            continue
        how = version_change(r.data, data_version(today, r.spec, file=source, cache=digests))
        changed += how is not None
        if name in moved:
            what = f"on another version of the data ({how})" if how else "on other data"
            given = " none of the earlier data given is that version;" if settings.earlier_data else ""
            raise PrivriskError(
                f"ledger: the earlier output {r.spec.name!r} in {settings.ledger} ({r.where()}) was computed {what}, "
                f"and today's data does not give its numbers again;{given} give the data it was computed on as "
                "earlier data, and the two versions are checked as one population",
                param="ledger",
            )
        if how is not None:
            lenient.append(r.spec.name)
    assumed = list(result.assumed)
    if lenient:
        assumed.append({"kind": "same population", "variables": [], "sentence": (
            f"{_listed(lenient)} {'was' if len(lenient) == 1 else 'were'} computed on another version of the data, "
            "whose numbers today's data gives again: checked as if computed on today's data (give the earlier data "
            "to check the versions' newcomers and leavers too).")})  # fmt: skip
    result = dataclasses.replace(result, assumed=assumed)
    summary = {**result.summary, "earlier_data_changed": changed}
    state = {"path": str(settings.ledger), "head": outputs_head(entries), "appended": False, "seq": None}
    return dataclasses.replace(result, summary=summary, ledger=state)


def _listed(names: Sequence[str]) -> str:
    quoted = [repr(n) for n in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def check_frame(
    frame: pd.DataFrame,
    specs: tuple[OutputSpec, ...] | list[OutputSpec],
    policy: Policy | None = None,
    *,
    earlier: Sequence[OutputSpec | Released] = (),
    max_atoms: int = 200_000,
    source: str | None = None,
) -> OutputsRun:
    """Check outputs against a DataFrame (the library's entry for notebooks; :func:`run_outputs` reads files).

    ``earlier`` are outputs released before (from the ledger): they take part in the differencing, each one by
    its position (one named as an output of the request or as an earlier one is renamed, never left out), and
    are not checked again. A :class:`~privrisk.outputs.ledger.Released` enters with the numbers released then
    (its cells that today's data no longer has are left out); a bare spec is recomputed from the data.
    ``source`` names the data file in the data versions of the outputs.

    Example:
        >>> import pandas as pd
        >>> f = pd.DataFrame({"region": ["N"] * 12 + ["S"] * 3})
        >>> r = check_frame(f, [OutputSpec(name="T1", kind="count", rows=("region",))])
        >>> r.status, [c["status"] for c in r.outputs[0]["cells"]]
        ('fail', ['pass', 'fail'])
    """
    from privrisk.outputs._checked import checked
    from privrisk.outputs.compute import connect

    policy = policy or Policy()
    # The spec's knowledge ([derived], nested, [domains]): the derived variables are computed from their
    # definitions, and the intruder of the differencing (and of every remedy's audit) knows all of it.
    knowledge = getattr(specs, "knowledge", None)
    record_key = getattr(specs, "record_key", None)
    keyed = _keyed(frame, specs, record_key, knowledge)
    frame = derive(frame, knowledge)
    con = connect(frame)
    try:
        return OutputsRun(**checked(
            con, specs, policy, columns=list(frame.columns), records=len(frame),
            rows=lambda cond: frame if cond is None else con.sql(f"SELECT * FROM data WHERE {cond}").df(),
            versions=lambda named: data_versions(frame, named, source), earlier=earlier, max_atoms=max_atoms,
            knowledge=knowledge, keyed=keyed, record_key=record_key,
        ))  # fmt: skip
    finally:
        con.close()


def _keyed(frame: pd.DataFrame, specs: Sequence[OutputSpec], record_key: str | None, knowledge: Any) -> Any:
    """A connection that sees the data with each record's key (None when no output is perturbed)."""
    if not any(s.ptable is not None for s in specs):
        return None
    from privrisk.outputs.compute import connect
    from privrisk.outputs.knowledge import derive
    from privrisk.outputs.perturbed import KEY_COLUMN, record_keys

    keys = record_keys(frame, record_key)
    return connect(derive(frame, knowledge).assign(**{KEY_COLUMN: keys}))


def data_versions(
    frame: pd.DataFrame, specs: Sequence[OutputSpec], source: str | None
) -> dict[str, dict[str, Any]]:
    from privrisk.outputs.ledger import data_version

    digests: dict[str, str] = {}
    return {spec.name: data_version(frame, spec, file=source, cache=digests) for spec in specs}
