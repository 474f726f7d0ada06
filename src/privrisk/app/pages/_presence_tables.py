"""The tables of the app's page Presence, formatted as ``privrisk presence`` prints them (its numbers unchanged)."""

from __future__ import annotations

from typing import Any

__all__ = ["classes_frame", "estimate_frame", "minimal_frame", "summary_frame"]

SHOWN = 10


def summary_frame(s: dict[str, Any]) -> Any:
    """A summary's measures as the command line's table shows them."""
    import pandas as pd

    from privrisk.presence.report import summary_rows

    rows = summary_rows(s, target="δ_max allowed")
    return pd.DataFrame(rows, columns=["measure", "value"])


def classes_frame(result: Any) -> Any:
    """The classes of highest δ, as the command line prints them."""
    frame = result.classes[~result.classes["suppressed"]].head(SHOWN)
    shown = frame[[*result.prepared.qi, "dataset_count", "population_count", "delta"]].copy()
    shown["delta"] = shown["delta"].map(lambda d: f"{d:.3f}")
    return shown.rename(columns={"dataset_count": "in T", "population_count": "in P", "delta": "δ"})


def minimal_frame(found: Any) -> Any:
    """The minimal generalisations, as the command line prints them."""
    import pandas as pd

    cols = [c for c in found.minimal.columns if c.startswith("level_")]
    rows = []
    for row in found.minimal.head(SHOWN).to_dict(orient="records"):
        rows.append(
            {
                **{c.removeprefix("level_"): str(row[c]) for c in cols},
                "δ_max": f"{row['delta_max']:.3f}",
                "k": str(row["k_anonymity"]),
                "k-map": str(row["k_map"]),
                "suppressed": str(row["suppressed"]),
                f"loss ({found.loss})": f"{row['loss_' + found.loss]:.4g}",
            }
        )
    return pd.DataFrame(rows)


def estimate_frame(e: Any) -> Any:
    """The estimated k-map's measures, as the command line prints them."""
    import pandas as pd

    uniq = e.population_uniqueness
    rows = [
        ("sampling fraction f", f"{e.sampling_fraction:.4g}"),
        ("significance α", f"{e.alpha:g}"),
        ("derived k′ (sample classes must hold ≥ k′)", str(e.derived_k)),
        ("type I error", f"{e.type1_error:.4f}"),
        ("k-anonymity of the sample", str(e.k_anonymity)),
        ("records in classes below k′", f"{e.records_at_risk:,}"),
        ("sample uniques", f"{uniq['sample_uniques']:,}"),
        (
            f"share of them population-unique ({uniq['dankar_model']}, Dankar's rule)",
            f"{uniq['share_of_sample_uniques']:.3f}",
        ),
    ]
    return pd.DataFrame(rows, columns=["measure", "value"])
