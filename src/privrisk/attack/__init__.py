"""The Lee–Clifton attack on a column (``privrisk attack`` and the app's attacker): the one way in is
:mod:`privrisk.attack.run` (:class:`AttackSettings` with the data inside, :func:`run_attack`, :class:`AttackRun`).

Example:
    >>> run = run_attack(AttackSettings(data=[1, 3, 10, 17, 675], query="mean", epsilon=1, trials=2_000))
    >>> run.sensitivity, round(run.result.exact_risk, 4)
    (337.0, 0.2908)
"""

from __future__ import annotations

from privrisk.attack import run
from privrisk.attack.run import *  # noqa: F403  (the run's public names are this package's)

__all__ = run.__all__
