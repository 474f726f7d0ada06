"""The sampling study of Allmann et al. (2020, §4): risks over sample proportions and repetitions, Lee and
Clifton's (2011) attacker on every sample, and the study's report.

- :mod:`~privrisk.study.sampling`: :func:`sampling_study` and :func:`study_summary`, with the samples it draws
  (:func:`study_samples`, :func:`study_proportions`, :func:`sample_sizes`);
- :mod:`~privrisk.study.attack`: :func:`study_attack` on the very same samples, and :func:`merge_attack`;
- :mod:`~privrisk.study.variables`: :func:`read_variables` from a file or a table;
- :mod:`~privrisk.study.report`: findings, key tables, the page, and :func:`write_bundle`, which writes the
  report's folder (results, summary, figures, ``report.html``, ``manifest.json``);
- :mod:`~privrisk.study.run`: :class:`StudySettings` (the data among them, checked once) and :func:`run_study`,
  the one way in that ``privrisk study``, ``privrisk demo`` and the app's Study page all take; its
  :class:`StudyRun` gives the JSON document, the verdict and the report folder (``inputs`` is its old name).

The names are imported when first used: the attack needs SciPy and the report Matplotlib, which a study without
them (``sampling_study`` alone, or ``--json`` of a run without the attack) does not pay for.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from privrisk.study.attack import merge_attack, study_attack
    from privrisk.study.report import StudyBundle, write_bundle
    from privrisk.study.run import StudyRun, StudySettings, run_study
    from privrisk.study.sampling import (
        sample_sizes,
        sampling_study,
        study_proportions,
        study_samples,
        study_summary,
    )
    from privrisk.study.variables import read_variables

_HOMES = {
    "StudyBundle": "report",
    "StudyRun": "run",
    "StudySettings": "run",
    "merge_attack": "attack",
    "read_variables": "variables",
    "run_study": "run",
    "sample_sizes": "sampling",
    "sampling_study": "sampling",
    "study_attack": "attack",
    "study_proportions": "sampling",
    "study_samples": "sampling",
    "study_summary": "sampling",
    "write_bundle": "report",
}
__all__ = [
    "StudyBundle",
    "StudyRun",
    "StudySettings",
    "merge_attack",
    "read_variables",
    "run_study",
    "sample_sizes",
    "sampling_study",
    "study_attack",
    "study_proportions",
    "study_samples",
    "study_summary",
    "write_bundle",
]


def __getattr__(name: str) -> Any:
    """Import a public name from its module when it is first asked for (see the module's docstring)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_HOMES})
