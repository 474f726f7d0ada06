"""Which columns an attacker plausibly knows: the threat-model presets, and the secrets tried.

The attacks of linkability and inference need the columns an attacker holds about a person from elsewhere (the
auxiliary columns). Anonymeter leaves them to its users, who keep asking how to choose them; privrisk offers
presets and names the one it used:

- ``quasi-identifiers`` (the default): the columns whose names say they are the usual quasi-identifiers, the
  demographics a neighbour, an employer or a public register knows (age, sex, place, origin, education, marital
  status, occupation; Sweeney 2002; the EU's anonymisation criteria, WP29 Opinion 05/2014, §3). When fewer than
  two columns match, it falls back to ``all-but-secret`` and says so.
- ``all-but-secret``: the attacker knows every column but the one it infers (the strongest attacker, as in
  Stadler et al. 2022's attribute inference); each secret is then searched on its own.

Every column the attacker does not hold is tried as a secret, and the riskiest is named.

Example:
    >>> choose_aux(["age", "sex", "state", "income", "diagnosis"], "quasi-identifiers")
    (('age', 'sex', 'state'), 'quasi-identifiers')
    >>> choose_aux(["x1", "x2", "x3"], "quasi-identifiers")
    ((), 'all-but-secret')
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["DEFAULT_THREAT_MODEL", "QUASI_IDENTIFIER_WORDS", "THREAT_MODELS", "choose_aux", "split_aux"]

THREAT_MODELS = ("quasi-identifiers", "all-but-secret")
DEFAULT_THREAT_MODEL = "quasi-identifiers"

#: Words in a column's name that mark a usual quasi-identifier (matched as whole words of the name, any case).
QUASI_IDENTIFIER_WORDS = (
    "age", "ageyears", "birth", "born", "dob", "yob", "sex", "gender", "female", "male", "zip", "zipcode", "postcode",
    "postal", "plz", "state", "region", "county", "district", "city", "municipality", "country", "bundesland",
    "race", "racef", "ethnicity", "ethnic", "origin", "nationality", "citizenship", "education", "educ",
    "collegeed", "degree", "marital", "married", "occupation", "job", "profession",
)  # fmt: skip

_WORDS = re.compile(r"[a-z]+")


def is_quasi_identifier(name: str) -> bool:
    """Whether a column's name marks a usual quasi-identifier (``age``, ``birth_year``, ``Region``, ``racef``).

    Example:
        >>> [is_quasi_identifier(n) for n in ("birth_year", "Region", "income", "stage")]
        [True, True, False, False]
    """
    words = _WORDS.findall(name.lower())
    return any(w in QUASI_IDENTIFIER_WORDS for w in words) or name.lower() in QUASI_IDENTIFIER_WORDS


def choose_aux(columns: Sequence[str], threat_model: str) -> tuple[tuple[str, ...], str]:
    """The auxiliary columns of a preset, and the preset used (``all-but-secret`` when the names give fewer than
    two quasi-identifiers; then the columns are chosen per secret and the tuple is empty)."""
    if threat_model == "quasi-identifiers":
        found = tuple(c for c in columns if is_quasi_identifier(c))
        if len(found) >= 2:
            return found, threat_model
    return (), "all-but-secret"


def split_aux(aux: Sequence[str]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The attacker's columns split in two for linkability: the first half (rounded up) and the rest.

    Example:
        >>> split_aux(["age", "sex", "state", "race", "education"])
        (('age', 'sex', 'state'), ('race', 'education'))
    """
    half = (len(aux) + 1) // 2
    return tuple(aux[:half]), tuple(aux[half:])
