"""``privrisk attack``: the Lee–Clifton attacker run against a column, beside the exact risk and the bound."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.table import Table

from privrisk._validation import QUERIES, check_choice, check_query
from privrisk.cli._app import app
from privrisk.cli._common import MISSING_HELP, emit_json, err, out, parse_epsilon, percent
from privrisk.cli.sensitivity import UNIVERSE_MIN_HELP
from privrisk.errors import PrivriskError
from privrisk.io.files import check_outputs

if TYPE_CHECKING:
    import numpy as np

# What --out DIR receives (io.files.check_outputs refuses an input among them).
OUT_FILES = ("attack.json", "risk_vs_epsilon.csv", "manifest.json", "figures/*")
MAX_TRIALS = 10_000_000  # about a minute; the Clopper–Pearson interval is then narrower than ±0.0004


@app.command("attack")
def attack_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option(..., "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of the release (e.g. 1, ln3)."),
    universe: str | None = typer.Option(
        None,
        "--universe",
        help="Bounds LO,HI of the values a record may take (default: the column's values).",
    ),
    universe_file: Path | None = typer.Option(
        None, "--universe-file", help="A file whose column is the universe."
    ),
    universe_column: str | None = typer.Option(None, "--universe-column", help="That file's column."),
    universe_min: float | None = typer.Option(None, "--universe-min", help=UNIVERSE_MIN_HELP),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    trials: int = typer.Option(100_000, "--trials", help="Number of simulated attacks."),
    seed: int = typer.Option(1, "--seed", help="Random seed; the same seed gives the same numbers."),
    worlds_kind: str = typer.Option(
        "many",
        "--worlds",
        help="many: pick the missing record among all n (Lee–Clifton); two: tell apart the two records "
        "whose absence changes the answer most.",
    ),
    target_risk: float | None = typer.Option(
        None, "--risk", help="Also give the largest ε whose exact risk stays at or below this probability."
    ),
    out_dir: Path | None = typer.Option(
        None,
        "--out",
        help="Also write DIR/attack.json, DIR/risk_vs_epsilon.csv, a figure of the risks against ε and "
        "DIR/manifest.json.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Simulate the Lee–Clifton attacker: which record is missing from the data behind one noisy answer?

    The attacker knows every record but not which one was left out of the release; the answer carries Laplace
    noise calibrated to the query's global sensitivity. Prints the simulated success rate with its 95 %
    Clopper–Pearson interval, the exact average success it estimates, the exact worst-case risk (the most
    telling answer) and Lee and Clifton's bound ρ_mw with Δv = the range of the answers over the worlds.

    With --out DIR it also draws the bound, the exact risk and the average success against ε.

    Example: privrisk attack examples/distance_work.csv --column distance --query mean --epsilon 1
    """
    from privrisk import risk as R
    from privrisk.io.data import read_column
    from privrisk.posterior import WORLDS, simulate_attack, tight_epsilon, worlds
    from privrisk.sensitivity import choose_universe, global_sensitivity

    if out_dir is not None:
        check_outputs(out_dir, [file, universe_file], param="--out", folder=True, files=OUT_FILES)
    eps = parse_epsilon(epsilon, name="--epsilon")
    q = check_query(query)
    kind = check_choice(worlds_kind, WORLDS, name="worlds")
    if trials < 1:
        raise PrivriskError(f"--trials: must be at least 1, got {trials}")
    if trials > MAX_TRIALS:
        raise PrivriskError(
            f"--trials: at most {MAX_TRIALS:,} simulated attacks (the exact risk needs no simulation), got {trials:,}"
        )
    if seed < 0:
        raise PrivriskError(f"--seed: must be a whole number of at least 0, got {seed}")
    if target_risk is not None and not 0 < target_risk < 1:
        raise PrivriskError(f"--risk: must lie strictly between 0 and 1, got {target_risk:g}")
    col = read_column(file, column, missing=missing)
    if col.values.size < 2:
        raise PrivriskError(
            f"{file}: column {column!r} has {col.values.size} usable value(s); the attacker's worlds leave one "
            "record out, so at least 2 are needed"
        )
    u, how = choose_universe(col.values, universe, universe_file, universe_column, universe_min, missing)
    u.check_sample(col.values, name=f"{file}: column {column!r}")
    df = global_sensitivity(q, u)
    if df == 0:
        raise PrivriskError(
            f"--universe: the global sensitivity of the {q} over {u.describe()} is 0, so no Laplace noise is "
            "defined; give a wider universe with --universe LO,HI"
        )
    n_worlds = int(col.values.size) if kind == "many" else 2
    if target_risk is not None and target_risk <= 1.0 / n_worlds:
        raise PrivriskError(
            f"--risk: must exceed 1/n = {1.0 / n_worlds:.4g}, what guessing among {n_worlds:,} worlds achieves"
        )
    result = simulate_attack(col.values, q, eps, sensitivity=df, trials=trials, seed=seed, worlds=kind)
    f = worlds(col.values, q)
    if kind == "two":
        f = f[[f.argmin(), f.argmax()]]
    dv = float(f.max() - f.min())
    doc: dict[str, Any] = {
        **result.to_dict(),
        "column": column,
        "n": int(col.values.size),
        "world_range": dv,
        "guess": 1.0 / result.n_worlds,
        "universe": {
            "kind": "interval" if u.is_interval else "values",
            "lo": u.lo,
            "hi": u.hi,
            "description": how,
        },
        "data": col.as_dict(),
    }
    if target_risk is not None:
        lc = float(R.epsilon_for_risk(target_risk, result.n_worlds, dv / df)) if dv > 0 else float("inf")
        doc.update(
            target_risk=target_risk,
            tight_epsilon=tight_epsilon(f, target_risk, df),
            lee_clifton_epsilon=lc,
        )
    if out_dir is not None:
        _write_outputs(out_dir, doc, f, df, file)
    if as_json:
        emit_json(doc)
        return
    err.print(col.summary())
    err.print(f"Universe: {how}; global sensitivity Δf = {df:.6g}.")
    who = "all n" if kind == "many" else "the two most different"
    table = Table(
        title=f"Attack on the {q} of {column!r}: {who} worlds ({result.n_worlds:,}), ε = {eps:.4g}",
        caption="measure: how often the attacker finds the missing record, from guessing alone to Lee and "
        "Clifton's bound; value: a probability (the simulated success with its 95 % interval).",
    )
    table.add_column("measure")
    table.add_column("value", justify="right")
    table.add_row("guessing alone (1/n)", _share(doc["guess"]))
    table.add_row(
        f"simulated success ({trials:,} trials, seed {seed})",
        f"{_share(result.simulated_success)} [{_share(result.ci_low)}, {_share(result.ci_high)}]",
    )
    table.add_row("expected success (exact)", _share(result.expected_success))
    table.add_row("exact risk (most telling answer)", _share(result.exact_risk))
    table.add_row(f"Lee–Clifton bound ρ_mw (Δv/Δf = {dv / df:.4g})", _share(result.bound))
    if target_risk is not None:
        table.add_row(f"largest ε with exact risk ≤ {target_risk:g}", f"{doc['tight_epsilon']:.6g}")
        table.add_row(f"Lee–Clifton ε for risk {target_risk:g}", f"{doc['lee_clifton_epsilon']:.6g}")
    out.print(table)
    out.print(_sentence(doc))


def _write_outputs(out_dir: Path, doc: dict[str, Any], f: np.ndarray, df: float, file: Path) -> None:
    """The JSON document, the curve over ε as CSV, its figure and the manifest, written whole or not at all."""
    import numpy as np
    import pandas as pd

    from privrisk.io.files import atomic_dir, write_json
    from privrisk.posterior import exact_risk, expected_success, lee_clifton_bound
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots.attack import epsilon_grid, plot_risk_vs_epsilon

    grid = epsilon_grid(doc["epsilon"])
    curve = pd.DataFrame(
        {
            "epsilon": grid,
            "guess": np.full(grid.size, doc["guess"]),
            "expected_success": expected_success(f, grid, df),
            "exact_risk": exact_risk(f, grid, df),
            "bound": lee_clifton_bound(f, grid, df),
        }
    )
    title = f"Attack on the {doc['query']} of {doc['column']!r} ({doc['n_worlds']:,} worlds)"
    with atomic_dir(out_dir) as tmp:
        write_json(tmp / "attack.json", {"schema_version": 1, **doc})
        curve.to_csv(tmp / "risk_vs_epsilon.csv", index=False)
        figure = plot_risk_vs_epsilon(curve, doc, tmp / "figures" / "risk_vs_epsilon", title=title)
        write_manifest(
            tmp,
            kind="attack",
            title=title,
            parameters={
                "file": str(file),
                "column": doc["column"],
                "query": doc["query"],
                "epsilon": doc["epsilon"],
                "worlds": doc["worlds"],
                "trials": doc["trials"],
                "seed": doc["seed"],
                "universe": doc["universe"]["description"],
            },
            summary={
                k: doc[k]
                for k in (
                    *("n_worlds", "sensitivity", "guess", "simulated_success", "ci_low", "ci_high"),
                    *("expected_success", "exact_risk", "bound"),
                )
            },
            findings=[_sentence(doc)],
            tables=[{"title": "Risk and success against ε", "path": "risk_vs_epsilon.csv"}],
            figures=[
                {
                    "title": "Lee–Clifton bound, exact risk and the attacker's success against ε",
                    "svg": f"figures/{figure['svg']}",
                    "png": f"figures/{figure['png']}",
                }
            ],
        )
    err.print(f"Wrote {out_dir}/attack.json, risk_vs_epsilon.csv, figures/ and manifest.json.")


def _share(p: float) -> str:
    """A probability as a percentage that keeps three significant digits when it is small (0.00314%)."""
    if 0 < p < 0.001:
        return f"{100 * p:.3g}%"
    return percent(p, 2 if p < 0.1 else 1)


def _sentence(doc: dict[str, Any]) -> str:
    """The result in words, with natural frequencies."""
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
        f"{_share(doc['simulated_success'])}); guessing among the {n:,} possibilities would be right {guess} "
        f"times. The most telling answer makes it at most {_share(doc['exact_risk'])} sure, within Lee and "
        f"Clifton's bound of {_share(doc['bound'])}."
    )
