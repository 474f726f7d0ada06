"""The intruder's audit of noise scaled to a data-dependent sensitivity, and the effective ε of derived queries (Sarathy and Muralidhar 2009)."""

from __future__ import annotations

from privrisk.audit.intruder import (
    AuditResult,
    DerivedScale,
    audit_data_dependent,
    audit_sweep,
    data_dependent_sensitivity,
    derived_scale,
    leave_one_out,
)

__all__ = [
    "AuditResult",
    "DerivedScale",
    "audit_data_dependent",
    "audit_sweep",
    "data_dependent_sensitivity",
    "derived_scale",
    "leave_one_out",
]
