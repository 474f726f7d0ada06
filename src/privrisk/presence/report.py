"""One δ-presence assessment as a document: the measured generalisation, the search, and the report folder.

:class:`PresenceReport` gathers what a run found (the tables as prepared, the generalisation measured, the search
if one ran) so that it can be written as one JSON document (:meth:`PresenceReport.to_dict`) or as a folder of CSV
tables, a figure and a ``manifest.json`` (:meth:`PresenceReport.write`) that ``privrisk report`` gathers.
"""

from __future__ import annotations

import math
import os
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from privrisk._format import count, number, percent_3g
from privrisk.presence.measures import PresenceResult, Targets
from privrisk.presence.prepare import Prepared, Source
from privrisk.presence.search import SearchResult, release_table

if TYPE_CHECKING:
    from privrisk.presence.estimate import KMapEstimate

__all__ = [
    "SHOWN",
    "PresenceReport",
    "Verdict",
    "class_rows",
    "estimate_rows",
    "estimate_verdict",
    "finding",
    "levels_text",
    "minimal_rows",
    "report_verdict",
    "summary_rows",
]

ROWS = 200
"""Classes listed in a JSON document (the CSV tables hold all)."""
SHOWN = 10
"""Classes and nodes shown in the terminal's and the page's tables."""


def levels_text(levels: Mapping[str, int]) -> str:
    """A node as ``zip=0,age=2``: the form ``levels`` takes.

    Example:
        >>> levels_text({"zip": 0, "age": 2})
        'zip=0,age=2'
    """
    return ",".join(f"{k}={v}" for k, v in levels.items())


def delta_text(delta: float) -> str:
    """A δ of a class with three significant digits, never e-notation, never 0 for a non-zero δ.

    Example:
        >>> delta_text(0.25), delta_text(1.0), delta_text(1 / 30000), delta_text(0.0)
        ('0.25', '1', '0.0000333', '0')
    """
    d = float(delta)
    if 0 < abs(d) < 1e-4:  # number() writes powers of ten from here on; a share of a class reads as a decimal
        return f"{d:.{2 - math.floor(math.log10(abs(d)))}f}".rstrip("0")
    return number(d, 3)


def class_rows(result: PresenceResult, shown: int = SHOWN) -> tuple[list[str], list[list[str]], str]:
    """The classes of highest δ (released ones), as the terminal and the page show them.

    Returns:
        The column names (the quasi-identifiers, ``in T``, ``in P``, ``δ``), the rows as text, and a note on the
        suppressed classes not shown ("" when none).
    """
    qi = list(result.prepared.qi)
    frame = result.classes[~result.classes["suppressed"]].head(shown)
    rows = [[*(str(r[c]) for c in qi), count(r["dataset_count"]), count(r["population_count"]),
             delta_text(r["delta"])] for r in frame.to_dict(orient="records")]  # fmt: skip
    n_sup = int(result.classes["suppressed"].sum())
    note = f"{n_sup:,} classes ({result.summary['suppressed']:,} records) suppressed, not shown." if n_sup else ""
    return [*qi, "in T", "in P", "δ"], rows, note


def minimal_rows(found: SearchResult, shown: int = SHOWN) -> tuple[list[str], list[list[str]]]:
    """The minimal generalisations of a search: the level of each quasi-identifier, then what the node reaches."""
    cols = [c for c in found.minimal.columns if c.startswith("level_")]
    header = [*(c.removeprefix("level_") for c in cols), "δ_max", "k", "k-map", "suppressed", f"loss ({found.loss})"]
    rows = [[*(str(row[c]) for c in cols), delta_text(row["delta_max"]), count(row["k_anonymity"]),
             count(row["k_map"]), count(row["suppressed"]), number(row["loss_" + found.loss], 4)]
            for row in found.minimal.head(shown).to_dict(orient="records")]  # fmt: skip
    return header, rows


def estimate_rows(e: KMapEstimate) -> list[tuple[str, str]]:
    """An estimate of k-map's measures as (name, value) rows."""
    uniq = e.population_uniqueness
    return [
        ("sampling fraction f", number(e.sampling_fraction, 4)),
        ("significance α", number(e.alpha, 4)),
        ("derived k′ (sample classes must hold ≥ k′)", count(e.derived_k)),
        ("type I error", percent_3g(e.type1_error)),
        ("k-anonymity of the sample", count(e.k_anonymity)),
        ("records in classes below k′", count(e.records_at_risk)),
        ("sample uniques", count(uniq["sample_uniques"])),
        (f"share of them population-unique ({uniq['dankar_model']}, Dankar's rule)",
         percent_3g(uniq["share_of_sample_uniques"])),
    ]  # fmt: skip


@dataclass(frozen=True)
class Verdict:
    """A run in plain words: one sentence, the one number it turns on, and whether the targets are met.

    Attributes:
        sentence: the verdict ("Of the 50 people in the population, …; target at most 50 %: met.").
        number: the number the sentence turns on, as it reads there ("25 %").
        met: whether the targets are met (None when none was set).
        detail: what else to know in one sentence (the table as measured beside the proposed release), or "".
    """

    sentence: str
    number: str
    met: bool | None
    detail: str = ""


def _target_words(t: Targets) -> list[str]:
    said = []
    if t.delta_max is not None:
        said.append(f"at most {percent_3g(t.delta_max)}")
    if t.delta_min is not None:
        said.append(f"at least {percent_3g(t.delta_min)} in every population class")
    if t.k is not None:
        said.append(f"every research class holding at least {count(t.k)} people")
    if t.kmap is not None:
        said.append(f"every class matching at least {count(t.kmap)} people of the population")
    return said


def report_verdict(report: PresenceReport) -> Verdict:
    """The verdict of a run against a population: the largest δ of what the run leaves behind, against the targets.

    δ_max is the probability that an attacker who sees the release and the population table is right to say
    that a person of the most exposed class is in the research subset (Nergiz et al. 2007). After a successful
    search that is the release the search proposes; otherwise the table as measured.

    Example:
        >>> import pandas as pd
        >>> from privrisk.presence import delta_presence
        >>> r = delta_presence(pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [1, 1, 2, 2]}), ["a"], delta_max=0.4)
        >>> v = report_verdict(PresenceReport(r, None))
        >>> v.sentence
        'Of the 4 people in the population, the most exposed could be identified as present in the research subset with probability 50 %; target at most 40 %: not met.'
        >>> v.number, v.met
        ('50 %', False)
    """
    measured, found = report.measured, report.search
    best = found.best if found is not None else None
    shown = best if best is not None else measured
    s = shown.summary
    number_text = percent_3g(s["delta_max"])
    where = " in the release the search proposes" if best is not None else ""
    sentence = (
        f"Of the {count(s['n_population'])} people in the population, the most exposed could be identified as present "
        f"in the research subset with probability {number_text}{where}"
    )
    said = _target_words(report.targets)
    met: bool | None = None
    if said:
        met = best is not None if found is not None else not measured.violations
        sentence += f"; target{'s' if len(said) > 1 else ''} {'; '.join(said)}: {'met' if met else 'not met'}."
    else:
        sentence += "."
    detail = ""
    if best is not None:
        detail = (
            f"The proposed release generalises to {levels_text(best.levels)}; the table as measured "
            f"({levels_text(measured.levels)}) reaches {percent_3g(measured.summary['delta_max'])}"
            f"{' and misses the targets' if measured.violations else ''}."
        )
    elif found is not None:
        detail = "No generalisation of the lattice meets the targets."
    return Verdict(sentence, number_text, met, detail)


def estimate_verdict(e: KMapEstimate) -> Verdict:
    """The verdict of an estimate of k-map without a population table: the records in classes too small.

    Example:
        >>> import pandas as pd
        >>> from privrisk.presence.estimate import estimate
        >>> v = estimate_verdict(estimate(pd.DataFrame({"a": [0, 0, 0, 0, 1, 1, 2]}), ["a"], kmap=5,
        ...                               sampling_fraction=0.1))
        >>> print(v.sentence)
        Of the 7 people in the sample, 3 are in classes of fewer than 4 people, too small for each to match 5 people of the population (estimated from the population's size); target: not met.
    """
    people = "none" if e.records_at_risk == 0 else count(e.records_at_risk)
    sentence = (
        f"Of the {count(e.n)} people in the sample, {people} {'is' if e.records_at_risk == 1 else 'are'} in classes "
        f"of fewer than {count(e.derived_k)} people, too small for each to match {count(e.kmap)} people of the "
        f"population (estimated from the population's size); target: {'met' if e.met else 'not met'}."
    )
    return Verdict(sentence, people, e.met)


def _spec_text(spec: object) -> str:
    if spec is None:
        return "none (raw → *)"
    if isinstance(spec, str):
        return spec
    return f"mapping of {len(spec)} values" if isinstance(spec, Mapping) else type(spec).__name__


def summary_rows(summary: Mapping[str, Any], *, target: str = "δ_max") -> list[tuple[str, str]]:
    """A summary's measures as (name, value) rows, the way the terminal and the app show them.

    ``target`` names the δ_max threshold in the "records at risk" row (the command line names its option).

    Example:
        >>> s = {"delta_max": 0.5, "delta_min": 0.1, "delta_min_present": 0.2, "k_anonymity": 1, "k_map": 2,
        ...      "classes": 3, "population_classes": 5, "unique_records": 1, "n_dataset": 6, "n_population": 50,
        ...      "records_at_risk": None, "suppressed": 0, "loss_precision": 0.25}
        >>> summary_rows(s)[0], summary_rows(s)[-1]
        (('δ_max (largest T/P of a class)', '0.5'), ('information loss (precision)', '0.25'))
    """
    s = summary
    rows = [
        ("δ_max (largest T/P of a class)", delta_text(s["delta_max"])),
        ("δ_min (all population classes)", delta_text(s["delta_min"])),
        ("δ_min over classes in T", delta_text(s["delta_min_present"])),
        ("k-anonymity", count(s["k_anonymity"])),
        ("k-map", count(s["k_map"])),
        ("classes in T / in P", f"{count(s['classes'])} / {count(s['population_classes'])}"),
        ("unique records", count(s["unique_records"])),
        ("records in T / P", f"{count(s['n_dataset'])} / {count(s['n_population'])}"),
    ]
    if s["records_at_risk"] is not None:
        rows.append((f"records at risk (δ > {target})", count(s["records_at_risk"])))
    if s["suppressed"]:
        rows.append(("suppressed records", count(s["suppressed"])))
    rows.append(("information loss (precision)", number(s["loss_precision"], 3)))
    return rows


def finding(summary: Mapping[str, Any], when: str) -> str:
    """One sentence on what δ_max, k-anonymity and k-map of a summary mean for the people in the data.

    Example:
        >>> finding({"delta_max": 0.25, "k_anonymity": 1, "k_map": 10}, "After the search")[:60]
        'After the search, the largest share of a population class th'
    """
    return (
        f"{when}, the largest share of a population class that is in the research subset is δ = "
        f"{delta_text(summary['delta_max'])}: an attacker who sees the release and the population table can be "
        f"{percent_3g(summary['delta_max'])} sure that a person of that class is in the subset. "
        f"Smallest research class k = {summary['k_anonymity']}, smallest population class k-map = "
        f"{summary['k_map']}."
    )


@dataclass(frozen=True, eq=False)
class PresenceReport:
    """A δ-presence run: the generalisation measured, and the search for the least one if it ran.

    Attributes:
        measured: the generalisation measured (its ``prepared`` holds both tables' encoding).
        search: the search, or None.

    Example:
        >>> import pandas as pd
        >>> from privrisk.presence import delta_presence
        >>> r = delta_presence(pd.DataFrame({"a": [1]}), pd.DataFrame({"a": [1, 1, 2]}), ["a"], delta_max=0.4)
        >>> doc = PresenceReport(r, None).to_dict()
        >>> doc["summary"]["delta_max"], doc["violations"]
        (0.5, ['δ_max 0.5 exceeds delta_max 0.4'])
        >>> PresenceReport(r, None).failure({"delta_max": "the largest δ allowed"})
        'δ_max 0.5 exceeds the largest δ allowed 0.4'
    """

    measured: PresenceResult
    search: SearchResult | None = None

    @property
    def targets(self) -> Targets:
        """The thresholds of the run (with the suppression the search allowed)."""
        return self.search.targets if self.search is not None else self.measured.targets

    @property
    def prepared(self) -> Prepared:
        """Both tables as prepared."""
        return self.measured.prepared

    def hierarchies(self) -> dict[str, dict[str, Any]]:
        """Per quasi-identifier: its hierarchy as given, its number of levels, its base level and its kind."""
        prep = self.prepared
        return {
            name: {
                "spec": _spec_text(prep.hierarchy_specs.get(name)),
                "levels": prep.plans[j].hierarchy.height,
                "base_level": prep.enc.base[j],
                "kind": prep.plans[j].hierarchy.kind,
            }
            for j, name in enumerate(prep.qi)
        }

    def violations(self, names: Mapping[str, str] | None = None) -> list[str]:
        """The thresholds the measured generalisation misses, in words (``names`` as in :meth:`Violation.text`)."""
        return [v.text(names) for v in self.measured.violations]

    def to_dict(self, names: Mapping[str, str] | None = None) -> dict[str, Any]:
        """The run as plain JSON (the first 200 classes of each generalisation; the CSV tables hold all).

        Args:
            names: how to name the thresholds in the violations (``{"delta_max": "the largest δ allowed"}``; the command line passes its options); default
                their parameters.
        """
        prep = self.prepared
        doc: dict[str, Any] = {
            "dataset": prep.dataset_label,
            "population": prep.population_label,
            "qi": prep.qi,
            "hierarchies": self.hierarchies(),
            "targets": self.targets.to_dict(),
            "summary": self.measured.summary,
            "violations": self.violations(names),
            "classes": self.measured.classes_records(ROWS),
            "classes_total": len(self.measured.classes),
            "notes": list(prep.notes),
            "engine": prep.engine,
        }
        if self.search is not None:
            doc["search"] = self.search.to_dict(rows=ROWS)
        return doc

    def failure(self, names: Mapping[str, str] | None = None) -> str | None:
        """Why the run misses its targets, in one line, or None when it meets them.

        With a search: when no generalisation meets the targets; without: the measured one's violations.
        ``names`` as for :meth:`to_dict`.
        """
        if self.search is not None:
            if self.search.best is None:
                return f"no generalisation meets the targets ({self.targets.text(names)})"
            return None
        return "; ".join(self.violations(names)) or None

    def findings(self) -> list[str]:
        """What the run found, in sentences."""
        out = [finding(self.measured.summary, "At the measured generalisation")]
        if self.search is not None:
            if self.search.best is not None:
                out.append(finding(self.search.best.summary, "After the search"))
            else:
                out.append("No generalisation of the lattice meets the targets.")
        return out

    def write_outputs(self, folder: str | os.PathLike[str], dataset: Source, *, title: str) -> list[str]:
        """Deprecated: :meth:`write` (one name for writing a result's files in every capability)."""
        warnings.warn(
            "PresenceReport.write_outputs is deprecated; use PresenceReport.write", DeprecationWarning, stacklevel=2
        )
        return self.write(folder, dataset, title=title)

    def write(self, folder: str | os.PathLike[str], dataset: Source, *, title: str) -> list[str]:
        """Write the report folder (atomically) and return the tables written.

        ``classes_measured.csv``; with a search also ``minimal_nodes.csv``, ``lattice.csv`` and, if a node meets the
        targets, ``classes.csv`` and ``release.csv`` (the dataset generalised, suppressed rows removed); without a
        search ``classes.csv``. Then the δ figure and ``manifest.json``.

        Args:
            folder: the folder to write (created; files of the same names are replaced).
            dataset: the research subset (read again for ``release.csv``).
            title: what the run measured, for the manifest's title (``δ-presence: {title}``).
        """
        from privrisk.io.files import atomic_dir, write_csv
        from privrisk.reports.manifest import write_manifest

        before, found = self.measured, self.search
        doc = self.to_dict()
        tables = [{"title": "Classes at the measured generalisation", "path": "classes_measured.csv"}]
        with atomic_dir(Path(folder)) as tmp:
            write_csv(before.classes, tmp / "classes_measured.csv")
            summary = {"measured": before.summary}
            if found is not None:
                write_csv(found.minimal, tmp / "minimal_nodes.csv")
                write_csv(found.nodes, tmp / "lattice.csv")
                tables += [{"title": "Minimal generalisations meeting the targets", "path": "minimal_nodes.csv"},
                           {"title": "Every node of the lattice", "path": "lattice.csv"}]  # fmt: skip
                if found.best is not None:
                    write_csv(found.best.classes, tmp / "classes.csv")
                    write_csv(release_table(dataset, found.best), tmp / "release.csv")
                    tables += [{"title": "Classes of the chosen generalisation", "path": "classes.csv"},
                               {"title": "The release (generalised, suppressed rows removed)", "path": "release.csv"}]  # fmt: skip
                    summary["best"] = found.best.summary
            else:
                write_csv(before.classes, tmp / "classes.csv")
                tables.append({"title": "Classes", "path": "classes.csv"})
            figures = []
            try:
                from privrisk.reports.plots.presence import delta_figure

                figures.append(delta_figure(tmp, before, found.best if found else None))
            except ImportError:  # pragma: no cover - matplotlib is a core dependency
                pass
            write_manifest(tmp, kind="presence", title=f"δ-presence: {title}",
                           parameters={k: doc[k] for k in ("dataset", "population", "qi", "hierarchies", "targets")},
                           summary=summary, findings=self.findings(), tables=tables, figures=figures)  # fmt: skip
        return [t["path"] for t in tables]
