"""Errors and warnings that privrisk raises.

Every error a user can cause by bad input is a :class:`PrivriskError`. The command line turns it into one line on
stderr and exit code 2; a violated risk threshold is :class:`ThresholdExceeded` and exit code 1 (DESIGN.md).
"""

from __future__ import annotations


class PrivriskError(ValueError):
    """Bad input: a file, a column, a parameter. The message names what was wrong in one line."""


class ThresholdExceeded(Exception):
    """A risk threshold the user set was exceeded. The command line exits with code 1."""


class PrivacyLeakWarning(UserWarning):
    """A computation leaks more than the user may think (as diffprivlib's warning of the same name)."""
