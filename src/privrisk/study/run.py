"""The one way in to the study's report: checked settings and the variables' values in, the folder written.

``privrisk study``, ``privrisk demo`` and the app's Study page each read their inputs (options, form fields) onto
a :class:`~privrisk.study.inputs.StudySettings`, read the variables (a file through
:func:`~privrisk.study.inputs.read_variables`, or the demo's public survey data), and call :func:`run_study`,
which runs the sampling study of Allmann et al. (2020, §4) and, if asked, Lee and Clifton's (2011) attacker on the
very same samples, and writes the report's folder with :func:`~privrisk.study.report.write_bundle`. They only
format what it returns. Progress goes through one callback for every step, so that a terminal's bars and the
app's progress bar both advance with the real work.
"""

from __future__ import annotations

import importlib
import os
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from privrisk.study.inputs import StudySettings

__all__ = ["STEPS", "OnStep", "run_study", "study_question"]

#: The steps :func:`run_study` reports, in order (the attack's only with ``settings.attack``).
STEPS = ("Sampling study", "Attacking the samples", "Writing the report, the figures and the tables")


#: Called as each step starts, with its name and ``total=`` its number of units (or None); returns ``advance(k)``
#: (or None), as :mod:`privrisk.cli._progress`'s ``step`` does.
OnStep = Callable[..., Callable[..., None] | None]


def _import_the_writers_meanwhile() -> None:
    """Import Matplotlib and the report's writers in a second thread while the study computes.

    Their import is about a third of a second of Python that the report needs only at the end; the study's
    shuffles and array operations mostly run without the GIL, so on two cores the import costs no wall time.
    Python's import locks make a later ``import`` of the same module wait for this one, never run it twice.
    """
    if (os.cpu_count() or 1) < 2 or "matplotlib.backends.backend_agg" in sys.modules:
        return

    def load() -> None:
        for name in ("matplotlib.figure", "matplotlib.backends.backend_agg", "privrisk.reports.plots.study",
                     "pyarrow.parquet"):  # fmt: skip
            try:
                importlib.import_module(name)
            except Exception:  # it fails again, with its message, where the report needs it
                return

    threading.Thread(target=load, name="privrisk-import", daemon=True).start()


def study_question(queries: Sequence[str], variables: Sequence[str]) -> str:
    """The question a study of a user's file answers: its page's first paragraph.

    Example:
        >>> study_question(["mean", "max"], ["income"])
        'How large are the many-worlds, two-worlds and global risks of mean, max on income, and how do they move with ε and the size of the sample?'
    """
    return (
        f"How large are the many-worlds, two-worlds and global risks of {', '.join(queries)} on "
        f"{', '.join(variables)}, and how do they move with ε and the size of the sample?"
    )


def run_study(
    settings: StudySettings,
    values: Mapping[str, np.ndarray],
    folder: str | os.PathLike[str],
    *,
    title: str,
    intro: str | None = None,
    variables: Sequence[Mapping[str, Any]] = (),
    extra_parameters: Mapping[str, Any] | None = None,
    on_step: OnStep | None = None,
    figure_formats: tuple[str, ...] = ("png", "svg"),
) -> Any:
    """Run the study (and its attack) on ``values`` with ``settings`` and write its folder.

    Args:
        settings: the checked settings.
        values: ``{variable: values}``, missing values already dropped (``read_variables`` gives them).
        folder: the report's folder (results.parquet, summary.csv, figures/, report.html, manifest.json).
        title: the page's title.
        intro: its first paragraph (default: :func:`study_question` of the queries and variables).
        variables: one description per variable, as :func:`~privrisk.study.inputs.read_variables` gives them.
        extra_parameters: more settings to record before the study's (e.g. the file read).
        on_step: called as each step of :data:`STEPS` starts; the ``advance`` it returns is called with the
            units done (repetitions for the study and the attack, the files written for the report).
        figure_formats: the figures' files (``("svg",)``: no PNG, for a page that shows the SVG).

    Returns:
        The :class:`~privrisk.study.report.StudyBundle`; its ``seconds`` time the computation (the study and the
        attack), not the reading or the writing.

    Example:
        >>> import tempfile
        >>> settings = StudySettings(queries=["max"], epsilons=[1.0], proportions=[0.5, 1], repetitions=3)
        >>> seen = []
        >>> bundle = run_study(settings, {"x": np.arange(40) % 9}, tempfile.mkdtemp(), title="A study",
        ...                    on_step=lambda name, total=None: seen.append((name, total)) or None)
        >>> bundle.rows, seen[0], seen[-1][0]
        (6, ('Sampling study', 3), 'Writing the report, the figures and the tables')
    """
    from privrisk.study.report import bundle_parts, write_bundle
    from privrisk.study.sampling import sampling_study, study_summary

    def step(name: str, total: int | None) -> Callable[..., None] | None:
        return None if on_step is None else on_step(name, total=total)

    _import_the_writers_meanwhile()
    samples = settings.sample_arguments()
    total = len(values) * settings.repetitions
    started = time.perf_counter()
    results = sampling_study(
        dict(values), **samples, ls_method=settings.ls_method, progress=step(STEPS[0], total)
    )
    if settings.attack:
        from privrisk.study.attack import merge_attack, study_attack

        attack = study_attack(
            dict(values),
            **samples,
            trials=settings.attack_trials,
            max_n=settings.attack_max_n,
            progress=step(STEPS[1], total),
        )
        results = merge_attack(results, attack)
    seconds = time.perf_counter() - started
    return write_bundle(
        folder,
        results,
        study_summary(results),
        settings=settings,
        title=title,
        intro=study_question(settings.queries, list(values)) if intro is None else intro,
        variables=variables,
        extra_parameters=extra_parameters,
        seconds=seconds,
        progress=step(STEPS[2], bundle_parts(settings)),
        figure_formats=figure_formats,
    )
