"""One way in to the disclosure risk of a synthetic file: :class:`SyntheticSettings`, :func:`run_synthetic` and
its :class:`SyntheticRun`.

``privrisk synthetic`` and the app's page Synthetic both map their inputs onto a :class:`SyntheticSettings`, call
:func:`run_synthetic` and format the :class:`SyntheticRun` it returns. Every rule about the inputs lives here, and
a bad one raises :class:`~privrisk.errors.PrivriskError` whose ``param`` names the field (``control``, ``aux``,
``generator_guarantee``, …), so the command line names its option and the app its input.

The run reads the three files, checks that they have the same columns and that the control set does not overlap
the training data, chooses the attacker's columns (:mod:`privrisk.synthetic.threat`), and runs the three attacks
of the EU's anonymisation criteria (singling out, linkability, inference: :mod:`~privrisk.synthetic.singling_out`,
:mod:`~privrisk.synthetic.linkability`, :mod:`~privrisk.synthetic.inference`), membership inference
(:mod:`~privrisk.synthetic.membership`), the generator's claim beside it (:mod:`~privrisk.synthetic.claim`) and
the distance metrics with their warning (:mod:`~privrisk.synthetic.distances`).

Example:
    >>> import numpy as np, pandas as pd
    >>> rng = np.random.default_rng(0)
    >>> people = pd.DataFrame({"age": rng.integers(18, 90, 600), "sex": rng.choice(["f", "m"], 600),
    ...                        "region": rng.choice(list("abcd"), 600), "income": rng.integers(1, 9, 600) * 1000})
    >>> train, control = people[:300], people[300:]
    >>> run = run_synthetic(SyntheticSettings(original=train, synthetic=train.copy(), control=control,
    ...                                       queries=200, membership_targets=100, seed=1))
    >>> run.riskiest().risk.value > 0.5
    True
    >>> SyntheticSettings(original=train, synthetic=train, control=control, secret="age", aux="age,sex")
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: secret: 'age' is one of the attacker's columns (aux); a secret is what it does not hold
"""

from __future__ import annotations

import math
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from privrisk import _validation as V
from privrisk._format import share as _pct
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.synthetic.intervals import DEFAULT_CONFIDENCE
from privrisk.synthetic.report import Verdict
from privrisk.synthetic.singling_out import DEFAULT_QUERY_COLUMNS
from privrisk.synthetic.threat import DEFAULT_THREAT_MODEL, THREAT_MODELS

if TYPE_CHECKING:
    from privrisk.accounting.guarantees import Guarantee
    from privrisk.accounting.spec import GuaranteeSpec
    from privrisk.synthetic.claim import ClaimCheck
    from privrisk.synthetic.distances import Distances
    from privrisk.synthetic.membership import MembershipAttack
    from privrisk.synthetic.outcome import AttackOutcome

__all__ = ["DEFAULT_QUERIES", "Progress", "SyntheticRun", "SyntheticSettings", "Verdict", "run_synthetic"]

DEFAULT_QUERIES = 2000
"""Attacks of each kind (queries, targets) unless the user sets another number."""
DEFAULT_MEMBERSHIP_TARGETS = 1000
"""Members (and as many non-members) of each membership attack."""

Progress = Callable[[float, str], None]
"""``progress(fraction, text)``: how far the run is (0 to 1) and what it is doing now; it may raise to stop."""

Data = str | os.PathLike[str] | pd.DataFrame


def _names(value: Any, name: str) -> tuple[str, ...] | None:
    if V.is_blank(value):
        return None
    items = value.split(",") if isinstance(value, str) else [str(v) for v in value]
    found = tuple(i.strip() for i in items if i.strip())
    if len(set(found)) != len(found):
        raise PrivriskError(f"{name}: a column is named twice", param=name)
    return found or None


def _data(value: Any, name: str, *, required: bool) -> Data | None:
    if isinstance(value, pd.DataFrame):
        return value
    if V.is_blank(value):
        if required:
            raise PrivriskError(f"{name}: give the {name} file", param=name)
        return None
    from privrisk.io.data import check_file

    try:
        check_file(value)
    except PrivriskError as exc:
        raise PrivriskError(f"{name}: {exc}", param=name) from None
    return cast(Data, value)


@dataclass(frozen=True, kw_only=True)
class SyntheticSettings:
    """Everything ``privrisk synthetic`` and the page Synthetic take, checked together when made.

    Fields may be given as the command line parses them or as a page's text field holds them (``"2000"``,
    ``"age,sex"``; empty text is "not given").

    Args:
        original: the training records the generator saw (a file, or a DataFrame).
        synthetic: the synthetic file.
        control: real records of the same population the generator never saw (strongly advised: without it the
            rates include what the data's structure gives away, an upper bound).
        aux: the columns the attacker holds (``"age,sex,region"``); ``"age,sex|region,race"`` also sets
            linkability's two parts. Default: the threat model's.
        secret: the columns inferred; default every column the attacker does not hold.
        threat_model: ``quasi-identifiers`` (default) or ``all-but-secret`` (:mod:`privrisk.synthetic.threat`).
        queries: attacks of each kind (singling-out queries, linkability and inference targets).
        query_columns: columns per multivariate singling-out query.
        neighbours: nearest synthetic records linkability considers.
        membership: run the membership attacks (needs the control).
        membership_targets: members (and non-members) each membership attack scores.
        generator: a generator to retrain for the shadow-model attack: ``copy``, ``marginals``, ``rr:EPS``,
            ``histogram:EPS`` (:mod:`privrisk.synthetic.generators`).
        generator_guarantee: the generator's claimed DP guarantee, as :func:`~privrisk.synthetic.claim.
            parse_guarantee` reads it (``epsilon=1``, ``rho=0.5``, …), or a ``GuaranteeSpec``.
        distances: also report DCR and NNDR (with their warning).
        max_risk: the largest acceptable excess risk of any attack, at the upper end of its interval.
        confidence: of every interval and bound.
        seed: the randomness of the attacks (drawn and reported when not given).
    """

    original: Data
    synthetic: Data
    control: Data | None = None
    aux: str | Sequence[str] | None = None
    secret: str | Sequence[str] | None = None
    threat_model: str = DEFAULT_THREAT_MODEL
    queries: int | str = DEFAULT_QUERIES
    query_columns: int | str = DEFAULT_QUERY_COLUMNS
    neighbours: int | str = 1
    membership: bool = True
    membership_targets: int | str = DEFAULT_MEMBERSHIP_TARGETS
    generator: str | None = None
    generator_guarantee: str | GuaranteeSpec | None = None
    distances: bool = True
    max_risk: float | str | None = None
    confidence: float | str = DEFAULT_CONFIDENCE
    seed: int | str | None = None

    def __post_init__(self) -> None:
        from privrisk.accounting.spec import GuaranteeSpec

        aux_text = None if V.is_blank(self.aux) else self.aux
        aux: tuple[str, ...] | None
        parts = None
        if isinstance(aux_text, str) and "|" in aux_text:
            halves = aux_text.split("|")
            if len(halves) != 2:
                raise PrivriskError("aux: write linkability's two parts as a,b|c,d (one |)", param="aux")
            parts = tuple(_names(h, "aux") or () for h in halves)
            if not all(parts):
                raise PrivriskError("aux: each part of a,b|c,d needs at least one column", param="aux")
            aux = parts[0] + parts[1]
            if len(set(aux)) != len(aux):
                raise PrivriskError("aux: a column is in both parts", param="aux")
        else:
            aux = _names(aux_text, "aux")
        secret = _names(self.secret, "secret")
        for s in secret or ():
            if aux and s in aux:
                raise PrivriskError(
                    f"secret: {s!r} is one of the attacker's columns (aux); a secret is what it does not hold",
                    param="secret",
                )
        threat = V.check_choice(self.threat_model or DEFAULT_THREAT_MODEL, THREAT_MODELS, name="threat_model")
        generator = V.text_or_none(self.generator)
        if generator is not None:
            from privrisk.synthetic.generators import parse_generator

            parse_generator(generator)
        spec = self.generator_guarantee
        if V.is_blank(spec):
            spec = None
        elif not isinstance(spec, GuaranteeSpec):
            from privrisk.synthetic.claim import parse_guarantee

            spec = parse_guarantee(str(spec))
        if spec is not None:
            from privrisk.synthetic.claim import build_guarantee

            build_guarantee(spec)  # refused now, not after the attacks
        max_risk = None
        if not V.is_blank(self.max_risk):
            max_risk = float(
                V.check_probability(V.read_number(self.max_risk, name="max_risk"), name="max_risk")
            )
        confidence = float(V.check_probability(V.read_number(self.confidence, name="confidence"), name="confidence",
                                             open_low=True, open_high=True))  # fmt: skip
        seed = V.optional_whole(self.seed, name="seed")
        checked = {
            "original": _data(self.original, "original", required=True),
            "synthetic": _data(self.synthetic, "synthetic", required=True),
            "control": _data(self.control, "control", required=False),
            "aux": aux,
            "secret": secret,
            "threat_model": threat,
            "queries": V.check_whole(self.queries, name="queries", minimum=1),
            "query_columns": V.check_whole(self.query_columns, name="query_columns", minimum=1),
            "neighbours": V.check_whole(self.neighbours, name="neighbours", minimum=1),
            "membership_targets": V.check_whole(
                self.membership_targets, name="membership_targets", minimum=2
            ),
            "generator": generator,
            "generator_guarantee": spec,
            "max_risk": max_risk,
            "confidence": confidence,
            "seed": seed,
        }
        V.set_checked(self, checked)  # a frozen dataclass normalises itself once, while it is made
        object.__setattr__(self, "_parts", parts)

    @property
    def parts(self) -> tuple[tuple[str, ...], tuple[str, ...]] | None:
        """Linkability's two parts when ``aux`` set them (``a,b|c,d``), else None."""
        return cast("tuple[tuple[str, ...], tuple[str, ...]] | None", getattr(self, "_parts", None))

    def guarantee(self) -> Guarantee | None:
        """The claimed guarantee, built (None when none was given)."""
        if self.generator_guarantee is None:
            return None
        from privrisk.synthetic.claim import build_guarantee

        return build_guarantee(cast("GuaranteeSpec", self.generator_guarantee))


@dataclass(frozen=True, eq=False)
class SyntheticRun:
    """What :func:`run_synthetic` found; JSON with :meth:`to_dict`, files with :meth:`write`.

    Attributes:
        settings: what was asked.
        attacks: the outcomes of singling out, linkability and inference (one per secret).
        membership: the membership attacks (empty without a control).
        claims: each membership attack held against the claimed guarantee (empty without one).
        distances: DCR and NNDR, or None.
        info: what was read and chosen: rows, columns, the attacker's columns, the threat model used, the seed.
        seconds: the wall time of the attacks.
        notes: what to know when reading the numbers.
    """

    settings: SyntheticSettings
    attacks: list[AttackOutcome]
    membership: list[MembershipAttack] = field(default_factory=list)
    claims: list[ClaimCheck] = field(default_factory=list)
    distances: Distances | None = None
    info: dict[str, Any] = field(default_factory=dict)
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    def riskiest(self) -> AttackOutcome:
        """The attack whose excess risk is largest for certain (the lower end of its interval), then by its point
        estimate: an attack of a few queries with a wide interval does not hide one measured precisely."""
        return max(self.attacks, key=lambda o: (o.risk.low, o.risk.value, o.risk.high))

    def riskiest_secret(self) -> AttackOutcome | None:
        """The inferred column at most risk, or None without inference."""
        found = [o for o in self.attacks if o.attack == "inference"]
        return max(found, key=lambda o: (o.risk.low, o.risk.value, o.risk.high)) if found else None

    def verdict(self) -> Verdict:
        """The finding in plain words: one number and one sentence."""
        from privrisk.synthetic.report import verdict

        return verdict(self)

    def sentence(self) -> str:
        """The verdict's sentence."""
        return self.verdict().sentence

    def exceeded(self) -> ThresholdExceeded | None:
        """``max_risk`` exceeded by some attack at the upper end of its interval (None when not, or not set)."""
        limit = self.settings.max_risk
        if limit is None:
            return None
        worst = max(self.attacks, key=lambda o: o.risk.high)
        if worst.risk.high <= cast(float, limit):
            return None
        return ThresholdExceeded(
            f"{worst.title}: the excess risk may reach {100 * worst.risk.high:.3g} % (upper end of its "
            f"{100 * self.settings.confidence:.3g} % interval), above the largest acceptable risk of "
            f"{100 * cast(float, limit):.3g} %",
            param="max_risk",
        )

    def findings(self) -> list[str]:
        """The verdict, the claim's comparisons, the distances' warning: sentences for the report."""
        from privrisk.synthetic.report import findings

        return findings(self)

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk synthetic --json`` prints (without its ``schema_version``)."""
        from privrisk.synthetic.report import document

        return document(self)

    def write(self, folder: str | os.PathLike[str]) -> Path:
        """Write the tables, the figure, ``report.html`` and ``manifest.json`` into ``folder`` (whole or not at all).

        Returns:
            The path of ``manifest.json``.
        """
        from privrisk.synthetic.report import write_folder

        return write_folder(self, folder)


def _read(value: Data, name: str) -> pd.DataFrame:
    if isinstance(value, pd.DataFrame):
        frame = value.reset_index(drop=True)
    else:
        from privrisk.io.data import read_table

        try:
            frame = read_table(value)
        except PrivriskError as exc:
            raise PrivriskError(f"{name}: {exc}", param=name) from None
    if len(frame) == 0:
        raise PrivriskError(f"{name}: the file has no records", param=name)
    return frame


def _overlap(original: pd.DataFrame, control: pd.DataFrame, rng: np.random.Generator) -> str | None:
    """Why the control set overlaps the training data, or None.

    Records that are identical by chance are common in files of few columns, so the share of control records
    identical to a training record is compared with the share for records known to be apart: half of the training
    file held out from the other half. A control set that shares records with the training data lies far above.
    """
    if len(original) < 4:
        return None
    h = min(len(original) // 2, len(control))
    held = rng.choice(len(original), size=h, replace=False)
    mask = np.zeros(len(original), dtype=bool)
    mask[held] = True
    keys = pd.util.hash_pandas_object(original, index=False).to_numpy()
    rest = set(keys[~mask].tolist())
    baseline = float(np.mean([k in rest for k in keys[mask]]))
    control_keys = pd.util.hash_pandas_object(control[original.columns], index=False).to_numpy()
    found = np.array([k in rest for k in control_keys])
    share = float(found.mean())
    pooled = (baseline * h + share * len(control)) / (h + len(control))
    spread = math.sqrt(max(pooled * (1 - pooled), 1e-12) * (1 / h + 1 / len(control)))
    if share - baseline > max(0.02, 5 * spread):
        return (
            f"control: {int(found.sum()):,} of its {len(control):,} records ({_pct(share)}) are identical to "
            f"training records, where {_pct(baseline)} would be for records the generator never saw: the control set "
            "overlaps the training data"
        )
    return None


def run_synthetic(settings: SyntheticSettings, *, progress: Progress | None = None) -> SyntheticRun:
    """Read the files and run every attack the settings ask for.

    Args:
        settings: what to attack (:class:`SyntheticSettings`).
        progress: ``progress(fraction, text)`` as the steps start and advance; it may raise to stop the run.

    Raises:
        PrivriskError: files whose columns differ (``synthetic``, ``control``), an empty file, a control set that
            overlaps the training data (``control``), attacker's columns or secrets that are not in the files.
    """
    from privrisk.synthetic import attacks

    if not isinstance(settings, SyntheticSettings):
        raise PrivriskError("settings: expected a SyntheticSettings", param="settings")
    report = progress or (lambda fraction, text: None)
    s = settings
    report(0.0, "Reading the files")
    original = _read(s.original, "original")
    synthetic = _read(s.synthetic, "synthetic")
    control = None if s.control is None else _read(s.control, "control")
    from privrisk.synthetic._frames import check_same_columns

    given = {"original": original, "synthetic": synthetic} | (
        {"control": control} if control is not None else {}
    )
    check_same_columns(given)
    columns = [str(c) for c in original.columns]
    original.columns = columns
    synthetic = synthetic.set_axis([str(c) for c in synthetic.columns], axis=1)[columns]
    if control is not None:
        control = control.set_axis([str(c) for c in control.columns], axis=1)[columns]
    seed = (
        int(cast(int, s.seed)) if s.seed is not None else int(np.random.default_rng().integers(0, 2**31 - 1))
    )
    rng = np.random.default_rng(seed)
    if control is not None:
        problem = _overlap(original, control, rng)
        if problem is not None:
            raise PrivriskError(problem, param="control")
    started = time.perf_counter()
    found = attacks.run_all(s, original, synthetic, control, seed, report)
    return SyntheticRun(s, seconds=time.perf_counter() - started, **found)
