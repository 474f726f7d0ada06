"""The intruder's audit of noise scaled to a data-dependent sensitivity, and derived queries (Sarathy and Muralidhar 2009).

- :mod:`privrisk.audit.leave_out`: f(X₋ᵢ), Δf_{n−1}(X₋ᵢ) and leave-two-out values for every record in
  O(n log n); the data-dependent sensitivity Δf_n(X).
- :mod:`privrisk.audit.intruder`: the intruder's audit of one answer (their Table 2, the bound on the missing
  record, the z-test, the same answer under global-sensitivity noise) and the sweep of one record (Table 3).
- :mod:`privrisk.audit.derived`: the effective scale and ε of a query derived from another one (Table 4).
- :mod:`privrisk.audit.run`: the one way in of the command and the app, :class:`AuditSettings` and
  :func:`run_audit`, whose :class:`AuditRun` gives the JSON document (``to_dict``) and the output folder
  (``write``); :class:`~privrisk.audit.derived.DerivedSettings` and :func:`run_derived` for ``privrisk derived``.
- :mod:`privrisk.audit.report`: the writing of the document and the folder (the earlier ``audit_document`` and
  ``write_outputs``, deprecated).

Example:
    >>> round(data_dependent_sensitivity([1, 2, 3, 4, 10], "mean"), 2)
    1.5
"""

from __future__ import annotations

from privrisk.audit.derived import DerivedRun, DerivedSettings, Target, derived_scale, run_derived
from privrisk.audit.intruder import (
    AuditResult,
    Event,
    GlobalAudit,
    audit_data_dependent,
    audit_sweep,
)
from privrisk.audit.leave_out import data_dependent_sensitivity, leave_one_out
from privrisk.audit.report import audit_document, write_outputs
from privrisk.audit.run import AuditRun, AuditSettings, run_audit
from privrisk.errors import renamed_attributes

__all__ = [
    "AuditResult",
    "AuditRun",
    "AuditSettings",
    "DerivedRun",
    "DerivedSettings",
    "Event",
    "GlobalAudit",
    "Target",
    "audit_data_dependent",
    "audit_document",
    "audit_sweep",
    "data_dependent_sensitivity",
    "derived_scale",
    "leave_one_out",
    "run_audit",
    "run_derived",
    "write_outputs",
]

# The old name of DerivedRun, kept one release (it warns).
__getattr__ = renamed_attributes(globals(), {"DerivedScale": "DerivedRun"})
