"""The releases in the one ledger: what every release against a data set spent, and the budget it was held to.

Differential privacy composes sequentially: the ε of every answer ever released from the same data add up (Mehner
et al., §3.4; Allmann et al., §5.1). Each release is an entry of kind ``release`` in the one ledger of everything
released (:mod:`privrisk.ledger`, which also records checked outputs), so that a budget is enforced across runs,
people and machines that share a file system. The ledger's file rules are the shared ones (a regular file under
one name, no symbolic link, at most 64 MiB, an exclusive lock, an atomic replacement, a SHA-256 chain or, with a
key, HMAC-SHA256 with a header MAC that catches a ledger cut short or emptied); this module adds what a release
entry must hold:

- ``epsilon``: the plain sum of its Laplace answers' ε (0 for a release of Gaussian answers only);
- ``queries``: every answer, ``{column, query, epsilon}`` or ``{column, query, mechanism: "gaussian", rho}``;
- ``data``: the data's name; ``budget``: the budget it was held to (ε, (ε, δ) or ρ), or null;
- ``preview``: the id of the preview it published, when it published one.

A release is charged together with its outputs: the noise is drawn, the outputs are written to temporary names
(``record_release``'s ``before_write``, under the lock, after the budget is checked again), the ledger is
written, and then the outputs are moved into place, with SIGINT and SIGTERM held back (:class:`deferred_signals`)
from the charge to the end. A failure before the charge charges nothing and leaves no output. Neither the hash
chain nor the key detects an older, complete copy of the ledger put back, or a deleted ledger file.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.ledger import KEY_ENV, Key, check_key, deferred_signals, open_ledger, read_key, read_ledger_file
from privrisk.ledger.chain import corrupt, entry_kind
from privrisk.ledger.store import LOCK_TIMEOUT
from privrisk.release.budget import Budget

__all__ = [
    "KEY_ENV",
    "check_key",
    "deferred_signals",
    "ledger_records",
    "read_key",
    "read_ledger",
    "record_release",
    "release_entries",
    "spent_epsilon",
]

# Relative slack for float sums: 0.1 + 0.2 (0.30000000000000004) must fit a budget of 0.3. Sums of thousands of
# ε values are off by far less than 1e−12; no real release spends that little.
TOLERANCE = 1e-12
_PREVIEW_KEY = "preview"
_QUERY_KEYS = {"column", "query", "epsilon"}
_GAUSSIAN_KEYS = {"column", "query", "mechanism", "rho"}


def _positive(value: Any) -> bool:
    return (
        isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value > 0
    )


def _record_ok(q: Any) -> bool:
    """A query record: ``{column, query, epsilon}`` (Laplace, every ledger so far) or ``{column, query,
    mechanism: "gaussian", rho}``."""
    if not isinstance(q, dict) or not all(isinstance(q.get(k), str) for k in ("column", "query")):
        return False
    if set(q) == _QUERY_KEYS:
        return _positive(q["epsilon"])
    return set(q) == _GAUSSIAN_KEYS and q["mechanism"] == "gaussian" and _positive(q["rho"])


def _check_release(path: Path, where: str, entry: dict[str, Any]) -> None:
    """What a release entry must hold beyond the chain's checks (its keys, sequence and hash)."""
    if _PREVIEW_KEY in entry and not isinstance(entry[_PREVIEW_KEY], str):
        raise corrupt(path, f"{where} has a preview id that is not text")
    queries = entry["queries"]
    if not isinstance(queries, list) or not queries:
        raise corrupt(path, f"{where} lists no queries")
    gaussian_only = all(isinstance(q, dict) and q.get("mechanism") == "gaussian" for q in queries)
    # A release of Gaussian answers only spends no pure ε: its entry's ε is 0.
    if not (_positive(entry["epsilon"]) or (gaussian_only and entry["epsilon"] == 0)):
        raise corrupt(path, f"{where} has ε = {entry['epsilon']!r}; every Laplace release spends ε > 0")
    for q in queries:
        if not _record_ok(q):
            raise corrupt(
                path, f"{where} has a query without column, query and ε > 0 (or mechanism gaussian and ρ > 0)"
            )
    parts = math.fsum(q["epsilon"] for q in queries if "epsilon" in q)
    if not math.isclose(parts, entry["epsilon"], rel_tol=TOLERANCE):
        raise corrupt(path, f"{where}: its queries add up to ε = {parts:.12g}, not {entry['epsilon']:.12g}")
    if entry["data"] is not None and not isinstance(entry["data"], str):
        raise corrupt(path, f"{where} names its data with something that is not text")
    if entry["budget"] is not None:
        try:
            Budget.from_json(entry["budget"])
        except (PrivriskError, TypeError, ValueError):
            raise corrupt(path, f"{where} has budget {str(entry['budget'])[:60]}") from None


def release_entries(path: str | os.PathLike[str], entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The release entries among the one ledger's entries (read by :func:`~privrisk.ledger.read_ledger_file`),
    each checked as a release."""
    found = []
    for i, entry in enumerate(entries):
        if entry_kind(entry) == "release":
            _check_release(Path(path), f"entry {i + 1}", entry)
            found.append(entry)
    return found


def read_ledger(path: str | os.PathLike[str], key: Key | None = None) -> list[dict[str, Any]]:
    """The checked releases of a ledger, in order; an empty list when the file does not exist yet.

    The ledger may also hold outputs (:mod:`privrisk.outputs.ledger`); they are checked as part of the chain
    and left out here.

    Args:
        path: the ledger file.
        key: the secret of a keyed ledger (HMAC-SHA256 over every entry and the header); None for an unkeyed one.
            A keyed ledger read without its key, with another key, or an unkeyed ledger read with a key is an
            error.

    Raises:
        PrivriskError: when the ledger exists but is empty, not JSON, of the wrong shape, fails its checksums,
            is a symbolic link, has a second name or is not a regular file.

    Example:
        >>> import tempfile, pathlib
        >>> read_ledger(pathlib.Path(tempfile.mkdtemp()) / "ledger.json")
        []
    """
    return release_entries(path, read_ledger_file(path, key))


def spent_epsilon(path: str | os.PathLike[str], key: Key | None = None) -> float:
    """The total ε a ledger records (sequential composition: the sum of every release's ε).

    Example:
        >>> import tempfile, pathlib
        >>> spent_epsilon(pathlib.Path(tempfile.mkdtemp()) / "ledger.json")
        0.0
    """
    return math.fsum(float(e["epsilon"]) for e in read_ledger(path, key))


def budget_message(epsilon: float, spent: float, budget: float, ledger: Path | None) -> str:
    """One line that says why a release was refused; it starts with ``budget:``, the parameter that was exceeded.

    Example:
        >>> budget_message(1.0, 0.0, 0.5, None)
        'budget: this release needs ε = 1, more than the budget ε = 0.5 allows, of which ε = 0.5 is left; nothing was released and no noise was drawn'
        >>> budget_message(0.3, 0.2, 0.25, Path("l.json"))
        'budget: this release needs ε = 0.3; the ledger l.json has spent ε = 0.2 of the budget ε = 0.25, of which ε = 0.05 is left; nothing was released and no noise was drawn'
    """
    left = max(budget - spent, 0.0)
    status = "which is already spent" if left <= budget * TOLERANCE else f"of which ε = {left:.6g} is left"
    if ledger is None:
        where = f", more than the budget ε = {budget:.6g} allows"
    else:
        where = f"; the ledger {ledger} has spent ε = {spent:.6g} of the budget ε = {budget:.6g}"
    return f"budget: this release needs ε = {epsilon:.6g}{where}, {status}; nothing was released and no noise was drawn"


def ledger_records(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every answer a ledger records, in order (each ``{column, query, epsilon}`` or a Gaussian's record).

    Example:
        >>> ledger_records([{"queries": [{"column": "h", "query": "mean", "epsilon": 0.5}]}])
        [{'column': 'h', 'query': 'mean', 'epsilon': 0.5}]
    """
    return [q for e in entries if entry_kind(e) == "release" for q in e["queries"]]


def _clean(q: dict[str, Any]) -> dict[str, Any]:
    if q.get("mechanism", "laplace") == "gaussian":
        return {
            "column": str(q["column"]),
            "query": str(q["query"]),
            "mechanism": "gaussian",
            "rho": float(q["rho"]),
        }
    return {"column": str(q["column"]), "query": str(q["query"]), "epsilon": float(q["epsilon"])}


def record_release(
    path: str | os.PathLike[str],
    *,
    queries: list[dict[str, Any]],
    budget: float | Budget | None = None,
    data: str | None = None,
    timeout: float = LOCK_TIMEOUT,
    key: Key | None = None,
    before_write: Callable[[dict[str, Any]], None] | None = None,
    preview: str | None = None,
) -> dict[str, Any]:
    """Lock the ledger, check the budget and append one release, atomically.

    Args:
        path: the ledger file (created if missing); the one ledger, which may also record outputs.
        queries: ``[{"column", "query", "epsilon"}]`` for every Laplace answer of the release, ``{"column",
            "query", "mechanism": "gaussian", "rho"}`` for a Gaussian one.
        budget: the largest total the ledger may reach: a number (ε) or a :class:`~privrisk.release.budget.Budget`
            (ε, (ε, δ) or ρ). None keeps the budget of the ledger's last release (or, for a ledger without one,
            only records). A different budget replaces it; ``previous_budget`` in the result tells the caller, who
            should say so.
        data: the data file's name, for the record.
        timeout: seconds to wait for another release or outputs check that holds the lock.
        key: the secret of a keyed ledger (see :func:`read_ledger`); a new ledger written with a key is keyed.
        before_write: called under the lock, after the budget check, with what this function returns, before the
            ledger is written; the release's outputs are written here so that the charge and the outputs go
            together. If it raises, nothing is charged.
        preview: the id of the preview this release publishes, recorded in the entry; a ledger that records it
            already refuses the release (a preview is charged once).

    Returns:
        ``{"spent_before", "spent_after", "budget", "previous_budget", "entry", "records", "history"}``: the
        plain sum of ε before and after, the budget as the ledger keeps it, every answer recorded after this
        release, and the releases before it.

    Raises:
        ThresholdExceeded: when the release would take the ledger's total above the budget (nothing is written).
        PrivriskError: for a corrupt ledger or a lock that is not released in time.

    Example:
        >>> import tempfile, pathlib
        >>> led = pathlib.Path(tempfile.mkdtemp()) / "ledger.json"
        >>> r = record_release(led, queries=[{"column": "h", "query": "mean", "epsilon": 0.5}], budget=1.0)
        >>> r["spent_before"], r["spent_after"], spent_epsilon(led)
        (0.0, 0.5, 0.5)
    """
    raw_key = check_key(key)
    clean = [_clean(q) for q in queries]
    if not clean or not all(_record_ok(q) for q in clean):
        raise PrivriskError("queries: a release spends ε > 0 (or ρ > 0) on at least one query")
    epsilon = math.fsum(q["epsilon"] for q in clean if "epsilon" in q)
    wanted = budget if isinstance(budget, Budget) or budget is None else Budget.from_json(budget)
    with open_ledger(path, raw_key, timeout=timeout) as led:
        p = led.path
        entries = release_entries(p, led.entries)
        done = next((e for e in entries if preview is not None and e.get(_PREVIEW_KEY) == preview), None)
        if done is not None:
            raise PrivriskError(
                f"preview_id: this preview was published already as release {done['seq']} of the ledger {p}; "
                "nothing was charged again",
                param="preview_id",
            )
        spent = math.fsum(float(e["epsilon"]) for e in entries)
        previous = entries[-1]["budget"] if entries else None
        # Leaving out the budget must not lift the budget the ledger was kept under.
        kept = wanted if wanted is not None else Budget.from_json(previous)
        records = [*ledger_records(entries), *clean]
        if kept is not None and not kept.fits(records):
            if kept.rho is None and kept.delta is None:
                raise ThresholdExceeded(budget_message(epsilon, spent, kept.limit, p))
            raise ThresholdExceeded(kept.message(records, len(clean), p))
        body: dict[str, Any] = {
            "epsilon": epsilon,
            "queries": clean,
            "data": data,
            "budget": None if kept is None else kept.to_json(),
        }
        if preview is not None:
            body[_PREVIEW_KEY] = str(preview)
        entry = led.entry("release", body)
        result = {
            "spent_before": spent,
            "spent_after": spent + epsilon,
            "budget": entry["budget"],
            "previous_budget": previous,
            "entry": entry,
            "records": records,
            "history": list(entries),
        }
        if before_write is not None:
            before_write(dict(result))
        led.write(entry)
    return result
