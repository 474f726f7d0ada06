"""``privrisk table-pattern``: a proven suppression pattern for a hierarchical count table.

The run is :func:`privrisk.outputs.table_pattern.run_table_pattern`; this module maps the options onto
:class:`~privrisk.outputs.table_pattern.TablePatternSettings`, calls it and prints. Every rule is the settings'.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, cast

import typer

from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, out
from privrisk.errors import ThresholdExceeded
from privrisk.io.files import check_outputs

THRESHOLD = 10  # privrisk.outputs.table_pattern.DEFAULT_THRESHOLD (the outputs policy's; --help stays light)
OUT_FILES = ["pattern.csv", "result.json", "manifest.json"]


@app.command("table-pattern")
def table_pattern_command(
    table: Path = typer.Argument(
        ..., help="The leaf cells: CSV or Parquet, one column per dimension and a count."
    ),
    dimension: list[str] = typer.Option(
        ...,
        "--dimension",
        "-d",
        help="COLUMN=HIERARCHY, repeatable: a code,parent CSV file (blank parent: the "
        "total) or a specification (prefix, interval:W, breaks:…, date, table:FILE.csv).",
    ),
    count: str | None = typer.Option(
        None, "--count", help="The count column (default: each row is one person)."
    ),
    threshold: int = typer.Option(
        THRESHOLD,
        "--threshold",
        help="A cell with 1 ≤ n < threshold is suppressed (10 is the outputs policy's minimum frequency).",
    ),
    protection: int = typer.Option(
        1, "--protection", help="How far a suppressed small cell must stay movable."
    ),
    zeros: bool = typer.Option(False, "--zeros", help="Suppress zero cells as well."),
    intervals: str = typer.Option(
        "auto",
        "--intervals",
        help="Each suppressed small cell's interval: exact (programmes), bounds (outer, "
        "fast) or auto (exact up to 150,000 cells); the protection is proven either way.",
    ),
    out_dir: Path | None = typer.Option(
        None,
        "--out",
        help="Write pattern.csv (every cell), result.json and manifest.json here (whole or not at all).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """A suppression pattern for a hierarchical count table: primaries by threshold, secondaries by hypercubes, each proven.

    Example: privrisk table-pattern examples/table_pattern/cells.csv --dimension region=examples/table_pattern/regions.csv --dimension age=interval:10 --count n --out pattern/
    """
    from privrisk.outputs.table_pattern import TablePatternSettings

    settings = TablePatternSettings(table=table, dimensions=tuple(dimension), count=count, threshold=threshold,
                                    protection=protection, zeros=zeros, intervals=cast(Any, intervals))  # fmt: skip
    if out_dir is not None:
        check_outputs(out_dir, [table], param="--out", folder=True, files=OUT_FILES)
    run = _run_with_progress(settings)
    if out_dir is not None:
        run.write(out_dir)
        err.print(f"Wrote {out_dir}/ ({', '.join(OUT_FILES)})")
    if as_json:
        emit_json(run.to_dict())
    else:
        s = run.summary()
        out.print(f"{s['cells']:,} cells: {s['primary']:,} primary and {s['secondary']:,} secondary suppressions, "
                  f"{s['unprotected']:,} primaries not proven protected, {s['not_exact']:,} intervals not exact.")  # fmt: skip
        out.print(run.sentence())
    if run.summary()["unprotected"]:
        raise ThresholdExceeded(
            f"protection: {run.summary()['unprotected']:,} primaries are not proven protected",
            param="protection",
        )


def _run_with_progress(settings: Any) -> Any:
    from privrisk.cli._bars import bars
    from privrisk.cli._progress import steps
    from privrisk.outputs.table_pattern import run_table_pattern

    with steps() as show:
        return run_table_pattern(settings, progress=bars(show))


__all__ = ["table_pattern_command"]
