"""``privrisk audit`` and ``privrisk derived``: the intruder's view of data-dependent noise and derived queries (003)."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import typer
from rich.markup import escape
from rich.table import Table

from privrisk.audit.intruder import AuditResult, audit_data_dependent, audit_sweep, derived_scale
from privrisk.cli._app import app
from privrisk.cli._common import emit_json, err, floats, out, parse_bounds, parse_epsilon
from privrisk.errors import PrivriskError, ThresholdExceeded
from privrisk.io.data import read_column, table_columns
from privrisk.sensitivity import QUERIES, Universe

MISSING_HELP = "Missing codes to drop: 'negative' (SOEP: −1, −2, …) or a list such as -1,-3."


def _fmt_ratio(log10_ratio: float) -> str:
    """A ratio as 003 prints it: two decimals when small, powers of ten when huge (never 'inf')."""
    if not math.isfinite(log10_ratio):
        return "∞" if log10_ratio > 0 else "0"
    if abs(log10_ratio) >= 6:
        exponent = math.floor(log10_ratio)
        return f"{10 ** (log10_ratio - exponent):.3f}e{exponent:+d}"
    return f"{10**log10_ratio:,.2f}"


def _nouns(column: str) -> tuple[str, str]:
    """'claims' → ('claim', 'claims'); other column names → ('record', 'records')."""
    name = column.strip()
    if name.isalpha() and len(name) > 3 and name.endswith("s") and not name.endswith("ss"):
        return name[:-1], name
    return "record", "records"


def _check_u(u: float | None, response: float | None) -> None:
    if u is not None and response is not None:
        raise PrivriskError("--u: give either --u (the uniform draw) or --response (the answer), not both")
    if u is not None and not (0 < u < 1):
        raise PrivriskError(f"--u: must lie strictly between 0 and 1, got {u:g}")


@app.command("audit")
def audit_command(
    file: Path = typer.Argument(..., help="CSV, Parquet, Stata (.dta) or SPSS (.sav) file."),
    column: str = typer.Option(..., "--column", "-c", help="The numeric column the query runs on."),
    query: str = typer.Option("mean", "--query", "-q", help=f"One of: {', '.join(QUERIES)}."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of the data-dependent noise (e.g. 2, ln3)."),
    u: float | None = typer.Option(None, "--u", help="The uniform draw behind the answer (003: 0.75)."),
    response: float | None = typer.Option(None, "--response", help="The answer r itself, instead of --u."),
    event: str = typer.Option("tail", "--event", help="tail (P(answer ≥ r), as 003) or density (at r)."),
    alpha: float = typer.Option(1e-4, "--alpha", help="1 − confidence of the bound on the missing record."),
    universe: str | None = typer.Option(
        None, "--universe", help="Bounds LO,HI: also audit noise calibrated to the global sensitivity."
    ),
    seed: int | None = typer.Option(None, "--seed", help="Seed for the draw of u when --u is not given."),
    sweep_record: int | None = typer.Option(
        None, "--sweep-record", help="Record number (from 1) whose value --sweep-values varies (Table 3)."
    ),
    sweep_values: str | None = typer.Option(
        None, "--sweep-values", help="Values for --sweep-record, e.g. 14,15,16."
    ),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    out_dir: Path | None = typer.Option(
        None, "--out", help="Folder for CSV tables, figures and manifest.json."
    ),
    fail_on_leak: bool = typer.Option(
        False, "--fail-on-leak", help="Exit with code 1 if any possible missing record breaks e^ε."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """What an intruder holding every record but one learns from one answer with data-dependent noise.

    The provider adds Laplace noise of scale Δf_n(X)/ε, where Δf_n(X) is the largest change one record of this
    data set makes (Sarathy and Muralidhar, 003). For every record that might be missing, the intruder computes
    the scale without it and compares the probabilities of the answer: records whose ratio breaks e^ε are
    marked. Without --u or --response the answer is drawn with --seed: this is an audit, not a release.

    Example: privrisk audit examples/claims.csv --column claims --query mean --epsilon 2 --u 0.75 --universe 0,100
    """
    eps = parse_epsilon(epsilon, name="--epsilon")
    _check_u(u, response)
    if event not in ("tail", "density"):
        raise PrivriskError(f"--event: must be 'tail' or 'density', got {event!r}")
    if not (0 < alpha < 0.5):
        raise PrivriskError(f"--alpha: must lie in (0, 0.5), got {alpha:g}")
    if (sweep_record is None) != (sweep_values is None):
        raise PrivriskError("--sweep-record: give --sweep-record N together with --sweep-values V1,V2,…")
    bounds = parse_bounds(universe) if universe else None
    col = read_column(file, column, missing=missing)
    values = col.values
    n = int(values.size)
    if n < 3:
        raise PrivriskError(
            f"{file}: column {column!r} has {n} value{'s' if n != 1 else ''}; the audit needs at least 3 "
            "(the intruder leaves one record out, and then one more)"
        )
    if sweep_record is not None and not (1 <= sweep_record <= n):
        raise PrivriskError(
            f"--sweep-record: there is no record {sweep_record}; records are numbered 1 to {n}"
        )
    if bounds is not None:
        Universe.from_bounds(*bounds).check_sample(values, name=f"{file}: column {column!r}")
    res = audit_data_dependent(
        values, query, eps, u=u, response=response, event=event, alpha=alpha, universe=bounds, seed=seed
    )
    sweep = None
    if sweep_record is not None:
        sweep = audit_sweep(
            values,
            query,
            eps,
            sweep_record,
            floats(sweep_values, name="--sweep-values"),
            u=res.u,
            response=response,
            event=event,
        )
    noun, plural = _nouns(column)
    sentence = res.sentence(noun, plural)
    gs_sentence = _global_sentence(res)
    doc = {
        "file": str(file),
        "column": column,
        **res.summary(),
        "hypothesis_test": res.hypothesis,
        "sentence": sentence,
        "records": res.records.drop(columns=["log_ratio"]).to_dict(orient="records"),
        "data": col.as_dict(),
    }
    if res.global_audit is not None:
        g = res.global_audit
        doc["global"] = {
            "universe": g.universe,
            "sensitivity": g.sensitivity,
            "scale": g.scale,
            "response": g.response,
            "p1": g.p1,
            "max_ratio": g.max_ratio,
            "violations": g.violations,
            "sentence": gs_sentence,
        }
    if sweep is not None:
        doc["sweep"] = {"record": sweep_record, "rows": sweep.to_dict(orient="records")}
    if out_dir is not None:
        _write_out(out_dir, res, sweep, doc, sentence, gs_sentence, file, column)
    if as_json:
        emit_json(doc)
    else:
        _print_human(res, sweep, sweep_record, col, sentence, gs_sentence, column)
    if fail_on_leak and res.violations:
        raise ThresholdExceeded(
            f"{res.violations:,} possible missing record{'s' if res.violations > 1 else ''} break e^ε = "
            f"{math.exp(res.epsilon):.4g} (--fail-on-leak)"
        )


def _global_sentence(res: AuditResult) -> str | None:
    g = res.global_audit
    if g is None:
        return None
    e = math.exp(res.epsilon)
    if g.violations == 0:
        return (
            f"With noise calibrated to the global sensitivity Δf = {g.sensitivity:.4g} over {g.universe} "
            f"(scale {g.scale:.4g}), no ratio exceeds e^ε = {e:.4g} (largest {g.max_ratio:.4g})."
        )
    return f"With noise calibrated to the global sensitivity, {g.violations} ratios exceed e^ε = {e:.4g}."


def _write_out(out_dir, res, sweep, doc, sentence, gs_sentence, file, column) -> None:
    from privrisk.io.files import atomic_dir
    from privrisk.reports.manifest import write_manifest
    from privrisk.reports.plots.audit import audit_figures

    with atomic_dir(out_dir) as tmp:
        tables = []
        titles = {
            "records": "The intruder's ratio p1/p3 for every possible missing record (Table 2 of 003)",
            "provider": "The provider's and the intruder's numbers for X*",
            "global": "The same answer with noise calibrated to the global sensitivity",
        }
        for name, frame in res.tables().items():
            frame.to_csv(tmp / f"{name}.csv", index=False)
            tables.append({"title": titles[name], "path": f"{name}.csv"})
        if sweep is not None:
            sweep.to_csv(tmp / "sweep.csv", index=False)
            tables.append(
                {
                    "title": "The intruder's ratio as the missing record's value varies (Table 3)",
                    "path": "sweep.csv",
                }
            )
        figures = audit_figures(res, tmp)
        findings = [sentence] + ([gs_sentence] if gs_sentence else [])
        parameters = {
            k: doc[k] for k in ("file", "column", "query", "epsilon", "u", "event", "alpha") if k in doc
        }
        parameters["universe"] = res.global_audit.universe if res.global_audit else None
        summary = {
            k: v
            for k, v in doc.items()
            if k not in ("records", "data", "sweep", "sentence", "file", "column")
        }
        write_manifest(
            tmp,
            kind="audit",
            title=f"Intruder's audit of data-dependent noise: {res.query} of {column!r} in {Path(file).name}",
            parameters=parameters,
            summary=summary,
            findings=findings,
            tables=tables,
            figures=figures,
        )


def _print_human(res: AuditResult, sweep, sweep_record, col, sentence, gs_sentence, column) -> None:
    e = math.exp(res.epsilon)
    err.print(col.summary())
    prov = Table(title=f"Provider: {res.query} of {column!r}, n = {res.n:,}, ε = {res.epsilon:.4g}")
    prov.add_column("quantity")
    prov.add_column("value", justify="right")
    prov.add_row("f_n(X)", f"{res.f_n:.6g}")
    prov.add_row(f"f_n−1(X*) (X* leaves out record {res.star})", f"{res.f_star:.6g}")
    prov.add_row("Δf_n(X)", f"{res.delta_n:.6g}")
    prov.add_row("b_n = Δf_n(X)/ε", f"{res.b_n:.6g}")
    prov.add_row("answer r" + (f" (u = {res.u:.4g})" if res.u is not None else ""), f"{res.response:.6g}")
    label = "P[answer ≥ r]" if res.tail == "upper" else "P[answer ≤ r]"
    if res.event == "density":
        label = "density at r"
    prov.add_row(escape(f"p1 = {label} with X"), f"{res.p1:.4g}")
    prov.add_row(escape(f"p2 = {label} with X*, scale b_n"), f"{res.p2:.4g}")
    prov.add_row("provider's ratio p1/p2", f"{res.p1 / res.p2:.4g}" if res.p2 > 0 else "∞")
    out.print(prov)

    rec = res.records
    show = rec
    note = ""
    if len(rec) > 40:
        order = rec["log10_ratio"].abs().sort_values(ascending=False).index
        show = rec.loc[order[:30]].sort_values("record")
        note = f" (the {len(show)} largest of {len(rec):,}; all in --json or --out)"
    t2 = Table(title=f"Intruder: ratio p1/p3 for each missing record (e^ε = {e:.4g}){note}")
    g = res.global_audit
    for name in ("missing", "value", "f(X₋ᵢ)", "b_n−1", "p3", "p1/p3"):
        t2.add_column(name, justify="right")
    t2.add_column("", justify="left")
    if g is not None:
        t2.add_column("p1/p3, global Δf", justify="right")
    for idx, row in zip(show.index, show.itertuples(index=False), strict=True):
        cells = [
            str(row.record),
            f"{row.value:.6g}",
            f"{row.f_without:.6g}",
            f"{row.b_without:.4g}",
            f"{row.p3:.4g}",
            _fmt_ratio(row.log10_ratio),
            "[bold red]✗[/]" if row.violates else "",
        ]
        if g is not None:
            cells.append(_fmt_ratio(g.records.at[idx, "log_ratio"] / math.log(10)))
        t2.add_row(*cells)
    out.print(t2)
    out.print(f"✗: p1/p3 or p3/p1 exceeds e^ε; {res.violations:,} of {res.n:,} possible missing records.")
    out.print(
        f"Without record {res.star}: f_n−1(X*) = {res.f_star:.6g}, f_n−2(X*) = {res.f_star2:.6g}, "
        f"Δf_n−1(X*) = {res.delta_star:.4g}, b_n−1 = {res.b_star:.4g}; the {100 * (1 - res.alpha):.10g} % "
        f"quantile of the answer is {res.quantile:.7g}"
        + (
            f"; an answer beyond it means the missing value {res.bound_text(6)}."
            if res.bound_kind != "none"
            else "; no value of the missing record moves the query that far."
        )
    )
    h = res.hypothesis
    if h["applies"]:
        out.print(
            f"z-test of the intruder (003): the other {res.n - 1:,} records have mean {h['mean']:.4g} and standard "
            f"deviation {h['sd']:.4g}; the {res.query} from them is {h['centre']:.4g} with standard error "
            f"{h['se']:.3g}; z = {h['z']:.4g}, p = {h['p_value']:.3g}."
        )
    else:
        out.print(
            f"z-test of the intruder: not applicable to the {res.query} (no normal sampling distribution)."
        )
    if gs_sentence:
        out.print(gs_sentence)
    if sweep is not None:
        t3 = Table(title=f"Ratio p1/p3 as record {sweep_record}'s value varies (Table 3 of 003)")
        for name in ("value", "answer r", "p1/p3", ""):
            t3.add_column(name, justify="right" if name else "left")
        for row in sweep.itertuples(index=False):
            t3.add_row(
                f"{row.value:.6g}",
                f"{row.response:.6g}",
                _fmt_ratio(row.log10_ratio),
                "[bold red]✗[/]" if row.violates else "",
            )
        out.print(t3)
    out.print(sentence)


# --------------------------------------------------------------------------------------------------------------
# privrisk derived
# --------------------------------------------------------------------------------------------------------------


def _read_values(text: str, column: str | None, missing: str | None) -> tuple[np.ndarray, str]:
    """--values as a data file (with --column, or its only column), a list 1,2,3 or a range 1..10."""
    path = Path(text)
    if path.exists():
        if column is None:
            cols = table_columns(path)
            if len(cols) != 1:
                raise PrivriskError(f"--column: {path} has {len(cols)} columns; name the one to use")
            column = cols[0]
        return read_column(path, column, missing=missing).values, f"{path}: {column}"
    raw = text.strip()
    if ".." in raw and "," not in raw:
        a, _, b = raw.partition("..")
        try:
            lo, hi = int(a), int(b)
        except ValueError:
            raise PrivriskError(
                f"--values: {text!r} is neither a file, a list 1,2,3 nor a range 1..10"
            ) from None
        if hi < lo:
            raise PrivriskError(f"--values: the range {text!r} is empty")
        return np.arange(lo, hi + 1, dtype=float), raw
    if not any(ch.isdigit() for ch in raw):
        raise PrivriskError(f"--values: {text!r}: no such file, and not a list of numbers")
    return np.asarray(floats(raw, name="--values")), "the values given"


@app.command("derived")
def derived_command(
    values: str = typer.Option(..., "--values", help="A data file, a list 1,2,3 or a range 1..10."),
    epsilon: str = typer.Option(..., "--epsilon", "-e", help="ε of each query's data-dependent noise."),
    target: str = typer.Option("sum", "--target", help="The query the intruder wants: count, sum or mean."),
    via: str = typer.Option(
        "mean", "--via", help="The released query it is derived from: count, sum or mean."
    ),
    column: str | None = typer.Option(None, "--column", "-c", help="The column, when --values is a file."),
    alpha: float = typer.Option(1e-4, "--alpha", help="Noise ranges are the (α, 1 − α) quantiles."),
    missing: str | None = typer.Option(None, "--missing", help=MISSING_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """The scale and ε an intruder effectively faces for one query when deriving it from another (003, Table 4).

    Each query gets Laplace noise of its own data-dependent scale Δf_n(X)/ε. Since sum = n·mean, the released
    mean times n estimates the sum with scale n·b_mean, often far below b_sum: the sum's effective ε is
    Δf_sum/(n·b_mean). Linear relations among count, sum and mean only.

    Example: privrisk derived --values 101..110 --epsilon 2 --target sum --via mean
    """
    eps = parse_epsilon(epsilon, name="--epsilon")
    if not (0 < alpha < 0.5):
        raise PrivriskError(f"--alpha: must lie in (0, 0.5), got {alpha:g}")
    for name, q in (("--target", target), ("--via", via)):
        if q.strip().lower() not in QUERIES and q.strip().lower() != "var":
            raise PrivriskError(f"{name}: unknown query {q!r}; choose count, sum or mean")
    x, source = _read_values(values, column, missing)
    if x.size < 3:
        raise PrivriskError(f"--values: {source} has {x.size} values; at least 3 are needed")
    d = derived_scale(x, eps, target=target, via=via, alpha=alpha)
    ratio = d.effective_epsilon / eps
    sentence = (
        f"Releasing the {d.via} with ε = {eps:.4g} lets an intruder estimate the {d.target} as "
        f"{_factor(d.factor)}·{d.via} with noise of scale {d.effective_scale:,.6g} instead of "
        f"{d.scale[d.target]:,.6g}: for the {d.target} that is ε = {d.effective_epsilon:,.6g}, "
        f"{ratio:,.6g} times the ε you set."
    )
    if as_json:
        emit_json({"source": source, **d.summary(), "epsilon_ratio": ratio, "sentence": sentence})
        return
    table = Table(title=f"{d.target} via {d.via} (n = {d.n:,}; 003 Table 4)")
    frame = d.table()
    table.add_column("")
    for c in frame.columns:
        table.add_column(c, justify="right")
    for idx, row in frame.iterrows():
        table.add_row(str(idx), *("" if not np.isfinite(v) else f"{v:.8g}" for v in row))
    out.print(table)
    hw = d.summary()["half_width"]
    conf = f"{100 * alpha:.10g} %–{100 * (1 - alpha):.10g} %"
    out.print(
        f"Noise range ({conf}): ±{hw[d.target]:,.2f} asking for the {d.target} directly, "
        f"±{hw['effective']:,.2f} through the {d.via}."
    )
    out.print(sentence)


def _factor(a: float) -> str:
    if a == 1:
        return "1"
    if a >= 1:
        return f"{a:g}"
    return f"(1/{1 / a:g})"
