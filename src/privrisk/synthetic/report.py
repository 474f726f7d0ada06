"""A synthetic file's risk in words, as one JSON document, and as an output folder (tables, the figure,
``report.html``, ``manifest.json``).

:meth:`~privrisk.synthetic.run.SyntheticRun.verdict`, :meth:`~privrisk.synthetic.run.SyntheticRun.to_dict` and
:meth:`~privrisk.synthetic.run.SyntheticRun.write` reach them. The verdict comes first, in plain words: how many in
1,000 people an attacker can single out, link or infer something about beyond what the real data's structure allows,
with the interval; then the other attacks, the claim beside the measurement, the distances with their warning.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pandas as pd

from privrisk._format import Verdict, listing, natural_frequencies
from privrisk._format import share as _pct

if TYPE_CHECKING:
    from privrisk.synthetic.outcome import AttackOutcome
    from privrisk.synthetic.run import SyntheticRun

__all__ = ["OUT_FILES", "Verdict", "document", "findings", "verdict", "write_folder"]

#: Every file :func:`write_folder` may write (the membership files only with membership attacks).
OUT_FILES = ("attacks.csv", "membership.csv", "roc.csv", "membership.svg", "membership.png", "report.html",
             "manifest.json")  # fmt: skip


def _per_thousand(p: float) -> str:
    """``about 3 in 1,000`` (the denominator grows until the count is at least 1); ``none``, ``all``.

    Example:
        >>> _per_thousand(0.0031), _per_thousand(0.0), _per_thousand(1.0), _per_thousand(0.00002)
        ('about 3 in 1,000', 'none', 'all', 'about 2 in 100,000')
    """
    f, _ = natural_frequencies(p, base=1000)
    if f.kind in ("none", "all"):
        return f.kind
    return f"{f.text()} in {f.base:,}"


def _percent(p: float) -> str:
    return f"{100 * p:.3g} %"


def _columns(o: AttackOutcome) -> str:
    n = len(o.aux)
    shown = listing(list(o.aux)) if n <= 6 else f"{listing(list(o.aux[:5]))} and {n - 5} more"
    return f"these {n} columns ({shown})" if n > 1 else f"the column {o.aux[0]!r}"


def _what(o: AttackOutcome) -> str:
    """The attacker and what it does, for the verdict's sentence."""
    if o.attack.startswith("singling_out"):
        return "From the synthetic file alone, an attacker can single out"
    if o.attack == "linkability":
        return f"An attacker holding two files with {_columns(o)} between them can link"
    return f"An attacker holding {_columns(o)} can infer {o.secret!r} for"


def verdict(run: SyntheticRun) -> Verdict:
    """The finding in plain words: the riskiest attack's excess risk, as people out of 1,000, with its interval."""
    o = run.riskiest()
    r = o.risk
    control = run.info.get("control_rows") is not None
    beyond = " beyond what the real data's structure allows" if control else ""
    interval = f"{_percent(cast(float, run.settings.confidence))} interval: {_per_thousand(r.low)} to {_per_thousand(r.high)}"
    if r.value == 0:
        headline = "no risk measured" if control else "no attack succeeded"
        sentence = (
            f"No attack did better on the training records than on the control records; the largest risk the "
            f"measurements allow is {_per_thousand(r.high)} people ({o.title})."
            if control
            else f"No attack succeeded; the largest rate the measurements allow is {_per_thousand(r.high)} people "
            f"({o.title})."
        )
    else:
        headline = f"{_per_thousand(r.value)} people ({o.title[0].lower() + o.title[1:]})"
        sentence = f"{_what(o)} {_per_thousand(r.value)} people{beyond} ({interval})."
        if r.low == 0:
            sentence += (
                " The interval reaches down to none: the measurement does not show this risk for certain."
            )
    limit = cast("float | None", run.settings.max_risk)
    if limit is not None:
        worst = max(run.attacks, key=lambda a: a.risk.high)
        if worst.risk.high <= limit:
            sentence += f" Every attack stays below the largest acceptable risk of {_percent(limit)} you set."
        else:
            sentence += f" {worst.title} may exceed the largest acceptable risk of {_percent(limit)} you set."
    return Verdict(headline, sentence)


def findings(run: SyntheticRun) -> list[str]:
    """The verdict, the shortfalls, the riskiest secret, the membership attacks, the claim and the distances."""
    out = [verdict(run).sentence]
    out += [o.note for o in run.attacks if o.note]
    secret = run.riskiest_secret()
    if secret is not None and len([o for o in run.attacks if o.attack == "inference"]) > 1:
        out.append(
            f"Of the {len(run.info['secrets'])} columns tried as secrets, {secret.secret!r} is the riskiest "
            f"(excess risk {_pct(secret.risk.value, 2)}, interval {_pct(secret.risk.low, 2)} to {_pct(secret.risk.high, 2)})."
        )
    for a in run.membership:
        tpr, low, high = a.tpr_at(0.01)
        out.append(
            f"Membership inference ({a.name}): at 1 % false positives it finds {_pct(tpr)} of the members "
            f"(interval {_pct(low)} to {_pct(high)}); it proves ε ≥ {a.bound.epsilon:.2f} "
            f"({_pct(a.bound.confidence, 0)} confidence, δ = {a.bound.delta:g})."
        )
    out += [c.sentence() for c in run.claims]
    if run.distances is not None:
        d = run.distances
        share = (
            ""
            if d.nearer_training is None
            else f"; {_pct(d.nearer_training)} of them are nearer to a training record than to a control record"
        )
        out.append(
            f"{_pct(d.identical)} of the synthetic records are identical to a training record{share}. {d.warning}"
        )
    out += run.notes
    return out


def document(run: SyntheticRun) -> dict[str, Any]:
    """The JSON document of ``privrisk synthetic --json`` (without its ``schema_version``)."""
    v = verdict(run)
    riskiest = run.riskiest()
    secret = run.riskiest_secret()
    s = run.settings
    return {
        "headline": v.headline,
        "sentence": v.sentence,
        "riskiest": riskiest.to_dict(),
        "riskiest_secret": None if secret is None else secret.secret,
        "max_risk": s.max_risk,
        "exceeded": run.exceeded() is not None,
        "attacks": [o.to_dict() for o in run.attacks],
        "membership": [a.to_dict() for a in run.membership],
        "claim": [c.to_dict() for c in run.claims],
        "distances": None if run.distances is None else run.distances.to_dict(),
        "data": run.info,
        "settings": {
            "queries": s.queries,
            "query_columns": s.query_columns,
            "neighbours": s.neighbours,
            "membership_targets": s.membership_targets,
            "confidence": s.confidence,
            "threat_model": s.threat_model,
        },
        "notes": run.notes,
        "findings": findings(run),
        "seconds": run.seconds,
    }


def _membership_frame(run: SyntheticRun) -> pd.DataFrame:
    from privrisk.synthetic.membership import LOW_FPR

    rows = []
    for a in run.membership:
        row: dict[str, Any] = {"attack": a.name}
        for f in LOW_FPR:
            tpr, low, high = a.tpr_at(f)
            row[f"tpr_at_{f:g}"] = tpr
            row[f"tpr_at_{f:g}_low"] = low
            row[f"tpr_at_{f:g}_high"] = high
        row |= {"advantage": a.advantage, "auc": a.auc, "epsilon_lower_bound": a.bound.epsilon}
        rows.append(row)
    return pd.DataFrame(rows)


def write_folder(run: SyntheticRun, folder: str | os.PathLike[str]) -> Path:
    """``attacks.csv``, ``membership.csv``, ``roc.csv``, the membership figure, ``report.html`` and
    ``manifest.json`` into ``folder``, whole or not at all. Returns the path of ``manifest.json``."""
    from privrisk.io.files import atomic_dir, write_csv, write_text
    from privrisk.reports.html import report_page
    from privrisk.reports.manifest import write_manifest

    tables = [{"title": "The attacks: excess risk over the control, with its interval", "path": "attacks.csv",
               "percent_columns": ["risk", "risk_low", "risk_high", "attack_rate", "control_rate",
                                   "baseline_rate"]}]  # fmt: skip
    figures = []
    with atomic_dir(folder) as tmp:
        write_csv(pd.DataFrame([o.row() for o in run.attacks]), tmp / "attacks.csv")
        if run.membership:
            write_csv(_membership_frame(run), tmp / "membership.csv")
            curves = pd.concat([a.curve.assign(attack=a.name) for a in run.membership], ignore_index=True)
            write_csv(curves[["attack", "threshold", "fpr", "tpr"]], tmp / "roc.csv")
            tables.append({"title": "Membership inference: TPR at low FPR, advantage, AUC and the ε it proves",
                           "path": "membership.csv"})  # fmt: skip
            tables.append({"title": "Membership inference: the ROC curves", "path": "roc.csv"})
            from privrisk.reports.plots import save_figure
            from privrisk.synthetic.claim import plot_claim

            ax = plot_claim(run.settings.guarantee(), run.membership)
            paths = save_figure(ax.figure, tmp, "membership")
            figures.append({"title": "Membership inference: the measured ROC curves and the claimed bound",
                            "svg": paths["svg"].name, "png": paths["png"].name})  # fmt: skip
        doc = document(run)
        summary = {"headline": doc["headline"], "riskiest_attack": run.riskiest().title,
                   "risk": run.riskiest().risk.value, "risk_high": run.riskiest().risk.high,
                   "riskiest_secret": doc["riskiest_secret"], "seconds": run.seconds}  # fmt: skip
        parameters = {**doc["settings"], **{k: v for k, v in run.info.items() if k != "columns"}}
        write_manifest(tmp, kind="synthetic", title="Disclosure risk of a synthetic file", parameters=parameters,
                       summary=summary, findings=doc["findings"], tables=tables, figures=figures)  # fmt: skip
        page, _ = report_page([tmp], title="Disclosure risk of a synthetic file")
        write_text(tmp / "report.html", page)
    return Path(folder) / "manifest.json"
