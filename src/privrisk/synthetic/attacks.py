"""Every attack of one run, in order, with the progress of each: :func:`run_all` (called by
:func:`~privrisk.synthetic.run.run_synthetic` once the files are read and checked; it returns the fields of the
:class:`~privrisk.synthetic.run.SyntheticRun`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, cast

import numpy as np
import pandas as pd

from privrisk.errors import PrivriskError
from privrisk.synthetic._frames import encode
from privrisk.synthetic.inference import inference
from privrisk.synthetic.linkability import linkability
from privrisk.synthetic.singling_out import singling_out
from privrisk.synthetic.threat import choose_aux, split_aux

if TYPE_CHECKING:
    from privrisk.synthetic.run import SyntheticSettings

__all__ = ["run_all"]

# The share of the run's bar each step takes (they add up to 1).
_STEPS = (
    ("Singling out, univariate", 0.05),
    ("Singling out, multivariate", 0.25),
    ("Linkability", 0.15),
    ("Inference", 0.25),
    ("Membership inference", 0.2),
    ("Distances", 0.1),
)


class _Bar:
    """Moves ``report`` through the steps; each step's searches advance it a little, up to its share."""

    def __init__(self, report: Callable[[float, str], None]) -> None:
        self.report, self.done, self.share, self.text, self.ticks = report, 0.0, 0.0, "", 0

    def step(self, index: int, text: str | None = None) -> Callable[[], None]:
        self.done += self.share
        name, self.share = _STEPS[index]
        self.text, self.ticks = text or name, 0
        self.report(min(self.done, 1.0), self.text)

        def tick() -> None:
            self.ticks += 1
            inside = self.share * (
                1 - 0.9**self.ticks
            )  # approaches the step's share without knowing its length
            self.report(min(self.done + inside, 1.0), self.text)

        return tick


def _check_columns(names: tuple[str, ...], columns: list[str], param: str) -> None:
    missing = [n for n in names if n not in columns]
    if missing:
        raise PrivriskError(
            f"{param}: no column {missing[0]!r} in the files (columns: {', '.join(columns[:12])}"
            f"{', …' if len(columns) > 12 else ''})",
            param=param,
        )


def _shadow(
    settings: SyntheticSettings,
) -> Callable[[pd.DataFrame, int, np.random.Generator], pd.DataFrame] | None:
    if settings.generator is None:
        return None
    from privrisk.synthetic.generators import generate, parse_generator

    kind, epsilon = parse_generator(settings.generator)

    def retrain(frame: pd.DataFrame, size: int, rng: np.random.Generator) -> pd.DataFrame:
        return generate(frame, kind, epsilon=epsilon, size=size, seed=rng)

    return retrain


def run_all(
    s: SyntheticSettings,
    original: pd.DataFrame,
    synthetic: pd.DataFrame,
    control: pd.DataFrame | None,
    seed: int,
    report: Callable[[float, str], None],
) -> dict[str, Any]:
    """Choose the attacker's columns, run the attacks, and return what a :class:`SyntheticRun` holds besides its
    settings and time: attacks, membership, claims, distances, info, notes."""
    columns = list(original.columns)
    confidence = cast(float, s.confidence)
    notes: list[str] = []
    if s.aux is not None:
        aux, model = cast("tuple[str, ...]", s.aux), "given"
        _check_columns(aux, columns, "aux")
    else:
        aux, model = choose_aux(columns, s.threat_model)
        if model != s.threat_model:
            notes.append(
                "Fewer than two columns are named like quasi-identifiers, so the attacker is taken to know every "
                "column but the secret (the all-but-secret threat model)."
            )
    secrets = cast("tuple[str, ...] | None", s.secret)
    if secrets is not None:
        _check_columns(secrets, columns, "secret")
    else:
        secrets = tuple(c for c in columns if c not in aux)
    if control is None:
        notes.append(
            "No control set was given: the rates count what the structure of the real data gives away too, so "
            "they are upper bounds of the risk the synthetic file adds; membership inference needs a control set."
        )
    bar = _Bar(report)
    enc = encode(original, synthetic, control)
    rng = np.random.default_rng(seed)
    order = rng.permutation(enc.synthetic.rows)
    seeds = rng.integers(0, 2**31 - 1, size=6)
    outcomes = [
        singling_out(enc, mode="univariate", queries=s.queries, confidence=confidence, seed=seeds[0],  # type: ignore[arg-type]
                     progress=bar.step(0)),
        singling_out(enc, mode="multivariate", queries=s.queries, columns=s.query_columns,  # type: ignore[arg-type]
                     confidence=confidence, seed=seeds[1], progress=bar.step(1)),
    ]  # fmt: skip
    tick = bar.step(2)
    held = aux if aux else tuple(columns)
    parts = s.parts or split_aux(held)
    if parts[0] and parts[1]:
        outcomes.append(linkability(enc, parts, targets=s.queries, neighbours=s.neighbours,  # type: ignore[arg-type]
                                    confidence=confidence, seed=seeds[2], order=order, progress=tick))  # fmt: skip
    else:
        notes.append("Linkability needs at least two attacker's columns (one for each file); it was not run.")
    tick = bar.step(3)
    if secrets:
        outcomes += inference(enc, aux, list(secrets), targets=s.queries, confidence=confidence,  # type: ignore[arg-type]
                              seed=seeds[3], order=order, progress=tick)  # fmt: skip
    membership: list[Any] = []
    claims: list[Any] = []
    guarantee = s.guarantee()
    if s.membership and enc.control is not None:
        from privrisk.synthetic.membership import membership_attacks

        tick = bar.step(4)
        membership = membership_attacks(
            enc, targets=s.membership_targets, confidence=confidence, seed=seeds[4],  # type: ignore[arg-type]
            shadow=_shadow(s), decode=enc.decode, encode_like=enc.encode_frame, progress=tick,
        )  # fmt: skip
        if guarantee is not None:
            from privrisk.synthetic.claim import check_claim

            claims = [check_claim(guarantee, a) for a in membership]
    elif guarantee is not None:
        notes.append(
            "The claimed guarantee is compared with membership inference, which needs a control set."
        )
    distances = None
    if s.distances:
        from privrisk.synthetic.distances import distances as measure

        distances = measure(enc, seed=seeds[5], progress=bar.step(5))
    report(1.0, "Done")
    info = {
        "original_rows": len(original),
        "synthetic_rows": len(synthetic),
        "control_rows": None if control is None else len(control),
        "columns": columns,
        "aux": list(aux),
        "threat_model": model,
        "parts": [list(p) for p in parts],
        "secrets": list(secrets),
        "seed": seed,
        "guarantee": None if guarantee is None else guarantee.label,
        "generator": s.generator,
    }
    return {
        "attacks": outcomes,
        "membership": membership,
        "claims": claims,
        "distances": distances,
        "info": info,
        "notes": notes,
    }
