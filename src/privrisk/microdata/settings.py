"""The settings of a microdata measurement: one frozen, checked object (:class:`MicrodataSettings`), the file to
measure first.

Its home is here, below the measures that read it (:mod:`~privrisk.microdata.measure`, the suppression, the
recoding); :mod:`privrisk.microdata.run` gives it with the run, as every capability's ``run.py`` does.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from privrisk._validation import check_choice, check_probability, check_whole
from privrisk.errors import PrivriskError
from privrisk.microdata.frequencies import MISSING_RULES, MissingRule
from privrisk.microdata.risk import RISK_METHODS, RiskMethod

__all__ = ["DEFAULT_K", "DEFAULT_RISK_THRESHOLD", "REDUCTIONS", "MicrodataSettings", "Reduction"]

Reduction = Literal["none", "suppress", "recode"]
REDUCTIONS: tuple[Reduction, ...] = ("none", "suppress", "recode")
"""How the risk is reduced before release: not at all, by local suppression, or by global recoding."""

DEFAULT_RISK_THRESHOLD = 0.1
"""The largest individual risk of the default verdict (and the risk above which records are counted) when no
``max_risk`` is set: the usual rule of statistical offices for a scientific-use file."""

DEFAULT_K = 3
"""The smallest f_k of the default verdict when no threshold is set (the usual statistical-office rule)."""

SENSITIVE_MISSING = ("category", "drop")
SUDA_SCORES = ("elliot", "ihsn")


def _names(value: Any, name: str, *, required: bool) -> tuple[str, ...]:
    if value is None:
        items: list[str] = []
    elif isinstance(value, str):
        items = [v.strip() for v in value.split(",") if v.strip()]
    elif isinstance(value, Sequence):
        items = [str(v).strip() for v in value if str(v).strip()]
    else:
        raise PrivriskError(f"{name}: expected column names, got {value!r}", param=name)
    if required and not items:
        raise PrivriskError(f"{name}: name at least one key column (e.g. region,age,sex)", param=name)
    if len(set(items)) != len(items):
        raise PrivriskError(f"{name}: a column is named twice ({', '.join(items)})", param=name)
    return tuple(items)


def _positive(value: Any, name: str) -> float | None:
    """A finite number > 0 (the accounting's check), or None."""
    from privrisk.accounting.guarantees import check_positive

    return None if value is None else check_positive(value, name=name)


#: The thresholds and sizes that may be left unset: an empty text (a form's field left blank) is None.
_OPTIONAL_NUMBERS = ("max_risk", "k", "l", "t", "population_size")


def _hierarchies(value: Any) -> dict[str, object]:
    """``{key: spec}`` from a mapping, ``COLUMN=SPEC`` texts, or one text of them on lines or separated by ``;``."""
    from privrisk.generalisation.hierarchy import parse_hierarchies

    if value is None:
        return {}
    if isinstance(value, Mapping):
        return {str(k).strip(): v for k, v in value.items()}
    if isinstance(value, str):
        # A comma belongs to a specification (breaks:10,20/…), so one text lists them on lines or with ';'.
        value = [part for line in value.splitlines() for part in line.split(";")]
    if isinstance(value, Sequence):
        return parse_hierarchies([str(v) for v in value if str(v).strip()])
    raise PrivriskError(f"hierarchies: expected {{key: spec}} or COLUMN=SPEC texts, got {value!r}",
                        param="hierarchies")  # fmt: skip


def _is_data(data: object) -> bool:
    """A file's name or a pandas DataFrame."""
    import pandas as pd

    return isinstance(data, str | os.PathLike | pd.DataFrame)


def _is_file_spec(spec: object) -> bool:
    return isinstance(spec, str | os.PathLike) and str(spec).strip().lower().startswith("table:")


@dataclass(frozen=True)
class MicrodataSettings:
    """What to measure in a sample file and the thresholds it must meet. Checked when made.

    Attributes:
        data: the sample file (CSV, Parquet, Stata, SPSS) or a pandas DataFrame that
            :func:`~privrisk.microdata.run.run_microdata` measures; None when the data are given to a function
            beside the settings (:func:`~privrisk.microdata.measure.measure_microdata`). Left out of the
            comparison, the hash and :meth:`to_dict`.
        keys: the key variables (quasi-identifiers), at least one.
        weights: the sampling-weight column (F_k = sum of weights), or None (F_k = f_k).
        household: the household-id column, for household risk, or None.
        sensitive: sensitive variables for ℓ-diversity and t-closeness.
        missing: ``"any"`` (a missing key value matches any value, as sdcMicro) or ``"category"``; every measure
            reads it this way (frequencies, risks, attacker models, ℓ and t, SUDA2, suppression).
        missing_sensitive: a missing sensitive value for ℓ: ``"category"`` (a value of its own, as sdcMicro's
            ``ldiversity``) or ``"drop"``.
        suda_scores: ``"elliot"`` (Elliot et al.'s scores, sdcMicro's ``original_scores = TRUE``) or ``"ihsn"``
            (``original_scores = FALSE``, the scores the SDC practice guide prints).
        method: individual risk, ``"approx"`` (sdcMicro's default) or ``"exact"``.
        max_risk: the largest individual risk allowed (a threshold), or None. This, ``k``, ``l``, ``t`` and
            ``population_size`` may also be given as text, as typed (an empty text is None).
        k: the smallest f_k allowed (k-anonymity, a threshold), or None.
        l: the smallest distinct ℓ allowed in every class for every sensitive variable, or None.
        t: the largest t (earth mover's distance) allowed, or None.
        c: the c of recursive (c, ℓ)-diversity.
        suda_max_size: the largest MSU size searched by SUDA2; 0 runs no SUDA2.
        dis_fraction: the sampling fraction of DIS-SUDA.
        population_size: N for population uniqueness (default: the sum of the weights).
        top: how many of the riskiest records and combinations a summary lists.
        reduction: how the risk is reduced before release (:func:`~privrisk.microdata.run.run_microdata`):
            ``"none"``; ``"suppress"``, local suppression (the fewest key values set to missing, which then match
            any value: ``missing="any"`` only) towards ``k`` and/or ``max_risk``; or ``"recode"``, global recoding of the keys through ``hierarchies`` towards
            any of ``k``, ``max_risk``, ``l`` and ``t``.
        importance: with ``"suppress"``: every key once, from the most to the least important (the least
            important are suppressed first); None for the order of ``keys``.
        hierarchies: with ``"recode"``: ``{key: spec}`` (:mod:`privrisk.generalisation.hierarchy`: ``interval:10``,
            ``breaks:…``, ``prefix``, ``date``, ``table:FILE.csv``, ``none``), or ``COLUMN=SPEC`` texts (one text:
            on lines or separated by ``;``). Keys without one keep their values.
        hierarchy_files: whether a hierarchy may name a file (``table:FILE.csv``); a server sets False, so that
            no path a user typed is opened.
        engine: where the group-bys over the records run: ``"duckdb"`` (the file read on this machine) or
            ``"spark"`` (:mod:`privrisk.microdata._spark`: f_k, F_k and the riskiest records grouped in Spark, only
            the key combinations brought back; a file, folder or URI, not a pandas DataFrame). What needs every
            record on one machine (a reduction, SUDA2, ℓ and t) is refused on Spark, naming its
            field. Left out of :meth:`to_dict`: both engines give the same document.
        spark_master: with ``"spark"``, the master URL (default ``local[*]``; an active session is reused).

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> MicrodataSettings(keys="region,age", k=3).keys
        ('region', 'age')
        >>> MicrodataSettings(keys="age", max_risk=2)
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: max_risk: must be a probability in (0, 1], got 2
        >>> MicrodataSettings(keys="sex,age", k=2, reduction="suppress", importance="age,sex").importance
        ('age', 'sex')
        >>> MicrodataSettings(keys="sex,age", k=2, reduction="suppress", hierarchies="age=interval:10")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: reduction: choose local suppression or global recoding through hierarchies, not both
    """

    data: Any = field(default=None, compare=False)
    keys: tuple[str, ...] | str = ()
    weights: str | None = None
    household: str | None = None
    sensitive: tuple[str, ...] | str = ()
    missing: MissingRule = "any"
    method: RiskMethod = "approx"
    max_risk: float | None = None
    k: int | None = None
    l: float | None = None  # noqa: E741 - the paper's name
    t: float | None = None
    c: float = 2.0
    suda_max_size: int = 0
    dis_fraction: float = 0.01
    population_size: float | None = None
    top: int = 20
    reduction: Reduction = "none"
    importance: tuple[str, ...] | str | None = None
    # kept as a dict once checked; left out of the hash, so that the settings stay hashable as before
    hierarchies: Mapping[str, object] | Sequence[str] | str | None = field(default=None, hash=False)
    hierarchy_files: bool = True
    missing_sensitive: str = "category"
    suda_scores: str = "elliot"
    engine: str = "duckdb"
    spark_master: str | None = None

    def __post_init__(self) -> None:
        if self.data is not None and not _is_data(self.data):
            raise PrivriskError(f"data: expected a file name or a pandas DataFrame, got {type(self.data).__name__}",
                                param="data")  # fmt: skip
        keys = _names(self.keys, "keys", required=True)
        sensitive = _names(self.sensitive, "sensitive", required=False)
        set_ = object.__setattr__
        for name in _OPTIONAL_NUMBERS:
            value = getattr(self, name)
            if isinstance(value, str) and not value.strip():
                set_(self, name, None)
        set_(self, "keys", keys)
        set_(self, "sensitive", sensitive)
        for name in ("weights", "household"):
            value = getattr(self, name)
            if value is not None and not str(value).strip():
                set_(self, name, None)
        used = [*keys, *(c for c in (self.weights, self.household) if c)]
        for s in sensitive:
            if s in used:
                raise PrivriskError(f"sensitive: {s!r} is also a key, weight or household column", param="sensitive")
        if self.weights is not None and self.weights in keys:
            raise PrivriskError(f"weights: {self.weights!r} is also a key", param="weights")
        set_(self, "missing", check_choice(self.missing, MISSING_RULES, name="missing"))
        set_(self, "method", check_choice(self.method, RISK_METHODS, name="method"))
        set_(self, "missing_sensitive", check_choice(self.missing_sensitive, SENSITIVE_MISSING,
                                                     name="missing_sensitive"))  # fmt: skip
        set_(self, "suda_scores", check_choice(self.suda_scores, SUDA_SCORES, name="suda_scores"))
        if self.max_risk is not None:
            set_(self, "max_risk", float(check_probability(self.max_risk, name="max_risk", open_low=True)))
        if self.k is not None:
            set_(self, "k", check_whole(self.k, name="k", minimum=1))
        if self.l is not None:
            set_(self, "l", _positive(self.l, "l"))
        if self.t is not None:
            set_(self, "t", float(check_probability(self.t, name="t")))
        c = _positive(self.c, "c")
        set_(self, "c", c)
        set_(self, "suda_max_size", check_whole(self.suda_max_size, name="suda_max_size", minimum=0,
                                                maximum=len(keys)))  # fmt: skip
        set_(self, "dis_fraction", float(check_probability(self.dis_fraction, name="dis_fraction", open_low=True,
                                                           open_high=True)))  # fmt: skip
        set_(self, "population_size", _positive(self.population_size, "population_size"))
        set_(self, "top", check_whole(self.top, name="top", minimum=0))
        if (self.l is not None or self.t is not None) and not sensitive:
            raise PrivriskError("sensitive: ℓ and t need at least one sensitive variable", param="sensitive")
        self._check_reduction(keys)
        self._check_engine()

    def _check_engine(self) -> None:
        """Spark groups a file; what needs every record on one machine is refused there, naming its field."""
        from privrisk.io.engine import engine_and_master

        engine, master = engine_and_master(self.engine, self.spark_master, self.data, done="measured")
        object.__setattr__(self, "engine", engine)
        object.__setattr__(self, "spark_master", master)
        if engine != "spark":
            return
        needs_rows = (("reduction", self.reduction != "none", "a reduction"),
                      ("suda_max_size", self.suda_max_size > 0, "SUDA2"),
                      ("sensitive", bool(self.sensitive), "ℓ and t"))  # fmt: skip
        for name, asked, what in needs_rows:
            if asked:
                raise PrivriskError(f"{name}: not on engine 'spark' ({what} needs every record on one machine); "
                                    "use engine 'duckdb'", param=name)  # fmt: skip

    def _check_reduction(self, keys: tuple[str, ...]) -> None:
        """The reduction's rules: one way at a time, its own inputs only, and a target it can reach."""
        set_ = object.__setattr__
        reduction = check_choice(self.reduction or "none", REDUCTIONS, name="reduction")
        set_(self, "reduction", reduction)
        hierarchies = _hierarchies(self.hierarchies)
        importance = None if self.importance is None else _names(self.importance, "importance", required=False)
        if reduction == "suppress" and hierarchies:
            raise PrivriskError("reduction: choose local suppression or global recoding through hierarchies, not "
                                "both", param="reduction")  # fmt: skip
        if importance and reduction != "suppress":
            raise PrivriskError("importance: only with local suppression (the order in which key values are "
                                "suppressed)", param="importance")  # fmt: skip
        if hierarchies and reduction != "recode":
            raise PrivriskError("hierarchies: only with global recoding", param="hierarchies")
        if importance is not None and sorted(importance) != sorted(keys):
            raise PrivriskError(f"importance: must list the keys {', '.join(keys)} once each", param="importance")
        for name, spec in hierarchies.items():
            if name not in keys:
                raise PrivriskError(f"hierarchies: {name!r} is not a key ({', '.join(keys)})", param="hierarchies")
            if not self.hierarchy_files and _is_file_spec(spec):
                raise PrivriskError(f"hierarchies: no file named in a hierarchy is read here ({name}={spec}); use "
                                    "intervals, breaks, prefix or date", param="hierarchies")  # fmt: skip
        if reduction == "suppress" and self.missing != "any":
            # Suppression makes a value missing so that it matches any value (sdcMicro's rule); were a missing
            # value a category of its own, the suppressed records would form new small classes instead.
            raise PrivriskError("missing: local suppression needs missing = 'any' (a suppressed value matches any "
                                "value); with 'category' it would be a value of its own", param="missing")  # fmt: skip
        if reduction == "suppress" and self.k is None and self.max_risk is None:
            raise PrivriskError("k: give k or max_risk as the target of the suppression", param="k")
        if reduction == "recode":
            if not hierarchies:
                raise PrivriskError("hierarchies: give a hierarchy for at least one key", param="hierarchies")
            if self.k is None and self.max_risk is None and self.l is None and self.t is None:
                raise PrivriskError("k: give at least one target (k, max_risk, l or t) for the recoding",
                                    param="k")  # fmt: skip
        set_(self, "importance", importance or None)
        set_(self, "hierarchies", hierarchies)
        set_(self, "hierarchy_files", bool(self.hierarchy_files))

    @property
    def targets(self) -> dict[str, float]:
        """The thresholds the verdict judges: the ones set, or the defaults (:data:`DEFAULT_K`,
        :data:`DEFAULT_RISK_THRESHOLD`) when none is set (:attr:`default_targets` says which)."""
        set_ = {name: v for name, v in (("k", self.k), ("max_risk", self.max_risk), ("l", self.l), ("t", self.t))
                if v is not None}  # fmt: skip
        return set_ or {"k": DEFAULT_K, "max_risk": DEFAULT_RISK_THRESHOLD}

    @property
    def default_targets(self) -> bool:
        """True when no threshold is set and the verdict judges against the defaults."""
        return all(v is None for v in (self.k, self.max_risk, self.l, self.t))

    @property
    def risk_threshold(self) -> float:
        """The risk above which records are counted: ``max_risk``, or :data:`DEFAULT_RISK_THRESHOLD`."""
        return DEFAULT_RISK_THRESHOLD if self.max_risk is None else float(self.max_risk)

    def to_dict(self) -> dict[str, Any]:
        """The settings of the measurement as plain JSON (the reduction is reported by its run's own keys)."""
        return {
            "keys": list(self.keys), "weights": self.weights, "household": self.household,
            "sensitive": list(self.sensitive), "missing": self.missing, "method": self.method,
            "max_risk": self.max_risk, "k": self.k, "l": self.l, "t": self.t, "c": self.c,
            "suda_max_size": self.suda_max_size, "dis_fraction": self.dis_fraction,
            "population_size": self.population_size, "top": self.top,
            "missing_sensitive": self.missing_sensitive, "suda_scores": self.suda_scores,
        }  # fmt: skip
