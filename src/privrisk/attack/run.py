"""One way in to the Lee–Clifton attack on a column: :class:`AttackSettings`, :func:`run_attack`, :class:`AttackRun`.

``privrisk attack`` maps its options onto an :class:`AttackSettings`, calls :func:`run_attack` and formats the
:class:`AttackRun` it returns; the rules about which settings go together, the defaults and the turning of settings
into a computation live here once. A bad setting raises :class:`~privrisk.errors.PrivriskError` whose ``param``
names the field (``trials``, ``target_risk``, …), so the command line can name its option and a page its input.

The attacker (Lee and Clifton 2011; Allmann et al. 2024, §2.2) knows every record of the column X and that one
answer γ = f(X \\ {xᵢ}) + Laplace(Δf/ε) was released without one unknown record i. :func:`run_attack` simulates the
Bayes-optimal attacker (:func:`privrisk.posterior.simulate_attack`) beside the exact average success, the exact
worst-case risk (the most telling answer) and Lee and Clifton's bound ρ_mw = 1/(1 + (n − 1)·e^(−ε·Δv/Δf))
(Allmann et al., eq. 4), with Δf the global sensitivity of the query over the chosen universe and Δv the range of
the answers over the worlds.

Example (Allmann et al., Table 1: the distances {1, 3, 10, 17, 675}; the mean's Δf over them is 674/2 = 337):
    >>> run = run_attack(AttackSettings(data=[1, 3, 10, 17, 675], query="mean", epsilon=1, trials=2_000))
    >>> run.result.n_worlds, run.sensitivity, round(run.result.exact_risk, 4), round(run.result.bound, 4)
    (5, 337.0, 0.2908, 0.2919)
    >>> AttackSettings(data=[1, 3, 10, 17, 675], query="mean", epsilon=1, trials=0)
    Traceback (most recent call last):
    ...
    privrisk.errors.PrivriskError: trials: must be at least 1, got 0
"""

from __future__ import annotations

import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from privrisk._format import percent
from privrisk._validation import (
    Query,
    check_bounds,
    check_choice,
    check_number,
    check_query,
    is_blank,
    parse_epsilon,
    set_checked,
    text_or_none,
)
from privrisk.errors import PrivriskError, deprecation_message
from privrisk.posterior import WORLDS, AttackResult, Worlds
from privrisk.progress import Progress, report

if TYPE_CHECKING:
    import pandas as pd

    from privrisk.io.data import NumericColumn
    from privrisk.sensitivity import Universe

__all__ = [
    "DEFAULT_SEED",
    "DEFAULT_TRIALS",
    "MAX_TRIALS",
    "OUT_FILES",
    "SCHEMA_VERSION",
    "AttackRun",
    "AttackSettings",
    "attack_sentence",
    "run_attack",
    "share_text",
]

DEFAULT_TRIALS = 100_000
"""Simulated attacks by default: the 95 % interval is then about ±0.3 percentage points wide."""
MAX_TRIALS = 10_000_000
"""At most this many simulated attacks (about a minute; the Clopper–Pearson interval is then narrower than
±0.0004). The exact risk needs no simulation, so more would only cost time."""
DEFAULT_SEED = 1
SCHEMA_VERSION = 1
OUT_FILES = ("attack.json", "risk_vs_epsilon.csv", "manifest.json", "figures/*")
"""What :meth:`AttackRun.write` puts into its folder (``io.files.check_outputs`` refuses an input among them)."""


def _whole(value: Any, name: str) -> int:
    """A whole number from an int, a whole float or its text; True and False are not counts."""
    number = check_number(value, name=name)
    if number != int(number):
        raise PrivriskError(f"{name}: must be a whole number, got {value!r}", param=name)
    return int(number)


@dataclass(frozen=True, kw_only=True)
class AttackSettings:
    """Everything ``privrisk attack`` takes, the data among it, checked together when made.

    Each field may be given as the command line parses it or as a page's text field holds it (``"ln3"``,
    ``"0,100"``, ``"20000"``; empty text is "not given"); it is stored normalised (floats, ints, tuples).

    Args:
        data: a data file (CSV, Parquet, Stata, SPSS) or a table, whose ``column`` is read with ``missing``; a
            column read already (:class:`~privrisk.io.data.NumericColumn`); or the values themselves (a
            sequence, array or Series; missing codes are dropped from them as from a file).
        query: one of ``count, sum, mean, median, min, max, variance, std`` (``var`` for ``variance``).
        epsilon: ε > 0 of the release (``1``, ``"ln3"``).
        column: the numeric column of a data file or table the query runs on (required for them).
        universe: bounds ``(lo, hi)`` or ``"lo,hi"`` of the values a record may take, or a
            :class:`~privrisk.sensitivity.Universe` chosen already; default the column's own distinct values
            (Allmann et al., §3.2). Not together with ``universe_file``.
        universe_file: a file whose column ``universe_column`` holds the universe's values.
        universe_column: that file's column (with ``universe_file`` only).
        universe_min: lower the universe's minimum to this value (0 where 0 is a valid answer, Allmann et al.,
            §4.2); at most the lower bound of ``universe``.
        missing: missing codes dropped from the column and the universe file: ``"negative"`` or ``"-1,-3"``.
        trials: simulated attacks, 1 to :data:`MAX_TRIALS`.
        seed: the random seed (≥ 0); the same seed gives the same numbers.
        worlds: ``"many"`` (the missing record among all n, Lee and Clifton) or ``"two"`` (the two records whose
            absence moves the answer most).
        target_risk: also give the largest ε whose exact risk stays at or below this probability, in (0, 1);
            once the data are read, it must exceed 1/n, what guessing among the n worlds achieves.

    Raises:
        PrivriskError: naming the field of a value or combination that does not hold.

    Example:
        >>> s = AttackSettings(data="survey.csv", column="hours", query="VAR", epsilon="ln3", universe="0,100",
        ...                    trials="20000")
        >>> s.query, round(s.epsilon, 4), s.universe, s.trials, s.seed, s.worlds
        ('variance', 1.0986, (0.0, 100.0), 20000, 1, 'many')
        >>> AttackSettings(data=[1, 2], query="mean", epsilon=1, universe="0,100", universe_file="u.csv")
        Traceback (most recent call last):
        ...
        privrisk.errors.PrivriskError: universe: give either the bounds LO,HI or a universe file, not both
    """

    data: Any = field(default=None, repr=False, compare=False)
    column: str | None = None
    query: str
    epsilon: float | str | None
    universe: tuple[float, float] | str | Universe | None = None
    universe_file: str | os.PathLike[str] | None = None
    universe_column: str | None = None
    universe_min: float | str | None = None
    missing: str | None = None
    trials: int | str = DEFAULT_TRIALS
    seed: int | str = DEFAULT_SEED
    worlds: str = "many"
    target_risk: float | str | None = None

    def __post_init__(self) -> None:
        from privrisk.sensitivity import Universe
        from privrisk.sensitivity.column import checked_column

        column = checked_column(self.data, self.column, settings="AttackSettings")
        if self.epsilon is None or is_blank(self.epsilon):
            raise PrivriskError("epsilon: required, e.g. 1 or ln3", param="epsilon")
        epsilon = parse_epsilon(self.epsilon, name="epsilon")
        if is_blank(self.query):
            raise PrivriskError("query: required, e.g. mean", param="query")
        query = check_query(self.query)
        kind = check_choice(self.worlds if not is_blank(self.worlds) else "many", WORLDS, name="worlds")
        trials = _whole(self.trials, "trials")
        if trials < 1:
            raise PrivriskError(f"trials: must be at least 1, got {trials}", param="trials")
        if trials > MAX_TRIALS:
            raise PrivriskError(
                f"trials: at most {MAX_TRIALS:,} simulated attacks (the exact risk needs no simulation), "
                f"got {trials:,}",
                param="trials",
            )
        seed = _whole(self.seed, "seed")
        if seed < 0:
            raise PrivriskError(f"seed: must be a whole number of at least 0, got {seed}", param="seed")
        risk = None if is_blank(self.target_risk) else check_number(self.target_risk, name="target_risk")
        if risk is not None and not 0 < risk < 1:
            raise PrivriskError(
                f"target_risk: must lie strictly between 0 and 1, got {risk:g}", param="target_risk"
            )
        universe: Any = None
        if isinstance(self.universe, Universe):
            universe = self.universe  # chosen already (the app's page), checked when it was made
        elif not is_blank(self.universe):
            universe = check_bounds(self.universe, name="universe")
        universe_file = None if is_blank(self.universe_file) else self.universe_file
        universe_column = text_or_none(self.universe_column)
        if universe is not None and universe_file is not None:
            raise PrivriskError(
                "universe: give either the bounds LO,HI or a universe file, not both", param="universe"
            )
        if universe_file is not None and universe_column is None:
            raise PrivriskError(
                "universe_column: name the column of the universe file that holds the universe",
                param="universe_column",
            )
        if universe_column is not None and universe_file is None:
            raise PrivriskError(
                f"universe_column: {universe_column!r} is read from a universe file; give the file too",
                param="universe_column",
            )
        low = None if is_blank(self.universe_min) else check_number(self.universe_min, name="universe_min")
        if isinstance(universe, Universe) and (universe_file is not None or low is not None):
            raise PrivriskError(
                "universe: a universe already chosen takes no universe file or lowered minimum",
                param="universe",
            )
        if low is not None and universe is not None and low > universe[0]:
            # The same words as Universe.with_min, which checks a universe read from data when it is read.
            raise PrivriskError(
                f"universe_min: {low:g} is above the smallest value {universe[0]:g} of the universe",
                param="universe_min",
            )
        missing = text_or_none(self.missing)
        if missing is not None:
            from privrisk.io.data import parse_missing

            parse_missing(missing)  # refuses a bad list now, not after the file is read
        checked = {
            "query": query,
            "epsilon": epsilon,
            "column": column,
            "universe": universe,
            "universe_file": universe_file,
            "universe_column": universe_column,
            "universe_min": low,
            "missing": missing,
            "trials": trials,
            "seed": seed,
            "worlds": kind,
            "target_risk": risk,
        }
        set_checked(self, checked)  # a frozen dataclass normalises itself once, while it is made


def share_text(p: float) -> str:
    """A probability as a percentage that keeps three significant digits when it is small.

    Example:
        >>> share_text(0.2908), share_text(0.0314), share_text(3.14e-05)
        ('29.1%', '3.14%', '0.00314%')
    """
    if 0 < p < 0.001:
        return f"{100 * p:.3g}%"
    return percent(p, 2 if p < 0.1 else 1)


def attack_sentence(doc: Mapping[str, Any]) -> str:
    """The result in words, with natural frequencies: ``doc`` is :meth:`AttackRun.to_dict`'s document.

    The attacker's average success and guessing alone are counted out of one base (``natural_frequencies``), so
    that "about 6 times in 10,000" stands beside "about 2 times", never beside a guess counted in another base.
    """
    from privrisk._format import natural_frequencies

    n = doc["n_worlds"]
    success, guessing = natural_frequencies(doc["expected_success"], doc["guess"])  # one base for both
    phrase, base, guess = success.text(), success.base, guessing.text()
    setting = (
        f"knows all {doc['n']:,} records and must tell which one was left out of the release"
        if doc["worlds"] == "many"
        else "knows all records and must tell which of two was left out (the two that move the answer most)"
    )
    return (
        f"An attacker who {setting}, seeing one answer of the {doc['query']} released with ε = "
        f"{doc['epsilon']:.4g}, is right {phrase} times in {base:,} (simulated: "
        f"{share_text(doc['simulated_success'])}); guessing among the {n:,} possibilities would be right {guess} "
        f"times. The most telling answer makes it at most {share_text(doc['exact_risk'])} sure, within Lee and "
        f"Clifton's bound of {share_text(doc['bound'])}."
    )


@dataclass(frozen=True)
class AttackRun:
    """What :func:`run_attack` found: the simulated attack beside the exact values and the bound, the worlds, the
    universe and the column as read; JSON with :meth:`to_dict`, words with :meth:`sentence`, files with
    :meth:`write`."""

    settings: AttackSettings
    result: AttackResult
    data: NumericColumn = field(repr=False)
    universe: Universe = field(repr=False)
    universe_description: str
    world_answers: np.ndarray = field(repr=False)
    """fᵢ of the worlds the attacker tells apart (all n, or the smallest and the largest with ``worlds="two"``)."""
    file: str | None = None
    tight_epsilon: float | None = None
    lee_clifton_epsilon: float | None = None

    @property
    def column(self) -> str:
        """The column's name, as the settings give it (else as the column was read)."""
        return self.settings.column or self.data.name

    @property
    def n(self) -> int:
        """How many records the column holds once its missing values are dropped."""
        return int(self.data.values.size)

    @property
    def sensitivity(self) -> float:
        """Δf, the global sensitivity of the query over the universe, to which the noise is calibrated."""
        return self.result.sensitivity

    @property
    def world_range(self) -> float:
        """Δv, the range of the answers over the worlds the attacker tells apart."""
        f = self.world_answers
        return float(f.max() - f.min())

    @property
    def guess(self) -> float:
        """What guessing alone achieves: 1/n of the worlds."""
        return 1.0 / self.result.n_worlds

    def to_dict(self) -> dict[str, Any]:
        """The JSON document ``privrisk attack --json`` prints, ``schema_version`` first.

        Example:
            >>> run = run_attack(AttackSettings(data=[1, 3, 10, 17, 675], query="mean", epsilon=1, trials=100))
            >>> doc = run.to_dict()
            >>> doc["schema_version"], doc["n_worlds"], doc["guess"], doc["world_range"], doc["universe"]["kind"]
            (1, 5, 0.2, 168.5, 'values')
        """
        u = self.universe
        doc: dict[str, Any] = {
            "schema_version": SCHEMA_VERSION,
            **self.result.to_dict(),
            "column": self.column,
            "n": self.n,
            "world_range": self.world_range,
            "guess": self.guess,
            "universe": {
                "kind": "interval" if u.is_interval else "values",
                "lo": u.lo,
                "hi": u.hi,
                "description": self.universe_description,
            },
            "data": self.data.to_dict(),
        }
        if self.settings.target_risk is not None:
            doc.update(
                target_risk=self.settings.target_risk,
                tight_epsilon=self.tight_epsilon,
                lee_clifton_epsilon=self.lee_clifton_epsilon,
            )
        return doc

    def sentence(self) -> str:
        """The result in words (:func:`attack_sentence`), as the command line prints it and the manifest keeps it."""
        return attack_sentence(self.to_dict())

    def curve(self, epsilons: Any = None) -> pd.DataFrame:
        """Guessing, the average success, the exact risk and the bound at each ε (default: around the run's ε).

        One row per ε, columns ``epsilon, guess, expected_success, exact_risk, bound``: the table
        ``risk_vs_epsilon.csv`` of :meth:`write`.
        """
        import pandas as pd

        from privrisk.posterior import exact_risk, expected_success, lee_clifton_bound
        from privrisk.reports.plots.attack import epsilon_grid

        grid = (
            epsilon_grid(self.result.epsilon)
            if epsilons is None
            else np.atleast_1d(np.asarray(epsilons, float))
        )
        f, df = self.world_answers, self.sensitivity
        return pd.DataFrame(
            {
                "epsilon": grid,
                "guess": np.full(grid.size, self.guess),
                "expected_success": expected_success(f, grid, df),
                "exact_risk": exact_risk(f, grid, df),
                "bound": lee_clifton_bound(f, grid, df),
            }
        )

    def title(self) -> str:
        """The title of the figure and the manifest."""
        return f"Attack on the {self.result.query} of {self.column!r} ({self.result.n_worlds:,} worlds)"

    def write(self, folder: str | os.PathLike[str], *, source: str | os.PathLike[str] | None = None) -> Path:
        """Write ``attack.json``, ``risk_vs_epsilon.csv``, ``figures/`` and ``manifest.json`` (whole or not at all).

        Args:
            folder: the folder to write into (made if missing; files of other names in it are left alone).
            source: what the manifest calls the data (default: the file the run read, if it read one).

        Returns:
            The path of ``manifest.json``.
        """
        from privrisk.io.files import atomic_dir, write_json
        from privrisk.reports.manifest import write_manifest
        from privrisk.reports.plots.attack import plot_risk_vs_epsilon

        doc = self.to_dict()
        curve = self.curve()
        title = self.title()
        where = source if source is not None else self.file
        parameters: dict[str, Any] = {} if where is None else {"file": str(where)}
        parameters.update(
            {k: doc[k] for k in ("column", "query", "epsilon", "worlds", "trials", "seed")},
            universe=self.universe_description,
        )
        summary_keys = ("n_worlds", "sensitivity", "guess", "simulated_success", "ci_low", "ci_high",
                        "expected_success", "exact_risk", "bound")  # fmt: skip
        with atomic_dir(folder) as tmp:
            write_json(tmp / "attack.json", doc)
            curve.to_csv(tmp / "risk_vs_epsilon.csv", index=False)
            figure = plot_risk_vs_epsilon(curve, doc, tmp / "figures" / "risk_vs_epsilon", title=title)
            write_manifest(
                tmp,
                kind="attack",
                title=title,
                parameters=parameters,
                summary={k: doc[k] for k in summary_keys},
                findings=[attack_sentence(doc)],
                tables=[{"title": "Risk and success against ε", "path": "risk_vs_epsilon.csv"}],
                figures=[
                    {
                        "title": "Lee–Clifton bound, exact risk and the attacker's success against ε",
                        "svg": f"figures/{figure['svg']}",
                        "png": f"figures/{figure['png']}",
                    }
                ],
            )
        return Path(folder) / "manifest.json"


def run_attack(
    settings: AttackSettings, *legacy: AttackSettings, progress: Progress | None = None
) -> AttackRun:
    """Read the column, choose the universe, and attack: simulated beside exact, with Lee and Clifton's bound.

    Args:
        settings: what to run (:class:`AttackSettings`, checked when it was made), the data among it.
        legacy: the old call ``run_attack(data, settings)`` still works for one release (with a
            :class:`DeprecationWarning`): the data first, then settings without data.
        progress: ``progress(done, message)`` as the steps start (:class:`privrisk.progress.Progress`).

    Returns:
        An :class:`AttackRun`.

    Raises:
        PrivriskError: no data (``data``); a file or column that cannot be read; fewer than 2 values (each world
            leaves one record out, and no database is empty); values outside the universe; a universe over which
            the query's global sensitivity is 0 (``universe``); a ``target_risk`` at or below 1/n
            (``target_risk``).

    Example (two worlds: the two distances whose absence moves the median most, 6.5 and 13.5, over [0, 1000];
    the exact risk is then ρ_tw = 1/(1 + e^(−ε·Δv/Δf)) = 1/(1 + e^(−2·7/500)), Allmann et al., eq. 6):
        >>> s = AttackSettings(data=[1, 3, 10, 17, 675], query="median", epsilon=2, universe=(0, 1000),
        ...                    worlds="two", trials=1_000)
        >>> run = run_attack(s)
        >>> run.sensitivity, run.world_range, round(run.result.exact_risk, 4)
        (500.0, 7.0, 0.507)
    """
    from privrisk import risk as R
    from privrisk.io.data import NumericColumn
    from privrisk.posterior import simulate_attack, tight_epsilon, worlds
    from privrisk.sensitivity import Universe, choose_universe, global_sensitivity
    from privrisk.sensitivity.column import column_values

    if legacy:
        warnings.warn(deprecation_message("run_attack(data, settings)", "run_attack(AttackSettings(data=…, …))"),
                      DeprecationWarning, stacklevel=2)  # fmt: skip
        settings = replace(legacy[0], data=settings)
    s = settings
    if s.data is None:
        raise PrivriskError("data: give a data file (with its column) or the values", param="data")
    report(progress, 0.0, "reading the column")
    col, file = column_values(s.data, s.column, missing=s.missing)
    if file is not None:
        where = f"{file}: column {s.column!r}"
    elif isinstance(s.data, NumericColumn):
        where = f"column {col.name!r}"
    else:
        where = "data"  # the values themselves: the field that holds them
    n = int(col.values.size)
    if n < 2:
        # A file's column is named by the file (no parameter); values given directly are the data.
        head = "data:" if where == "data" else f"{where} has"
        raise PrivriskError(
            f"{head} {n} usable value(s); the attacker's worlds leave one record out, so at least 2 are needed",
            param="data" if where == "data" else None,
        )
    q = cast(Query, s.query)
    report(progress, 0.1, "choosing the universe")
    if isinstance(s.universe, Universe):
        u, how = s.universe, s.universe.describe()
    else:
        universe = cast("tuple[float, float] | None", s.universe)
        low = cast("float | None", s.universe_min)
        u, how = choose_universe(col.values, universe, s.universe_file, s.universe_column, low, s.missing)
    u.check_sample(col.values, name=where)
    df = global_sensitivity(q, u)
    if df == 0:
        raise PrivriskError(
            f"universe: the global sensitivity of the {q} over {u.describe()} is 0, so no Laplace noise is "
            "defined; give a wider universe (bounds LO,HI)",
            param="universe",
        )
    kind = cast(Worlds, s.worlds)
    n_worlds = n if kind == "many" else 2
    target = cast("float | None", s.target_risk)
    if target is not None and target <= 1.0 / n_worlds:
        raise PrivriskError(
            f"target_risk: must exceed 1/n = {1.0 / n_worlds:.4g}, what guessing among {n_worlds:,} worlds achieves",
            param="target_risk",
        )
    eps = cast(float, s.epsilon)
    report(progress, 0.2, "simulating the attacks")
    result = simulate_attack(col.values, q, eps, sensitivity=df, trials=cast(int, s.trials),
                             seed=cast(int, s.seed), worlds=kind)  # fmt: skip
    report(progress, 0.9, "the exact risks")
    f = worlds(col.values, q)
    if kind == "two":
        f = f[[f.argmin(), f.argmax()]]
    tight = lc = None
    if target is not None:
        dv = float(f.max() - f.min())
        # Lee and Clifton's ε solves ρ_mw = target with Δv/Δf; worlds that all answer alike leak nothing at any ε.
        lc = float(R.epsilon_for_risk(target, result.n_worlds, dv / df)) if dv > 0 else float("inf")
        tight = tight_epsilon(f, target, df)
    report(progress, 1.0, "done")
    return AttackRun(s, result, col, u, how, f, file, tight, lc)
