"""One δ-presence assessment as a document: the measured generalisation, the search, and the report folder.

:class:`PresenceReport` gathers what a run found (the tables as prepared, the generalisation measured, the search
if one ran) so that it can be written as one JSON document (:meth:`PresenceReport.to_dict`) or as a folder of CSV
tables, a figure and a ``manifest.json`` (:meth:`PresenceReport.write_outputs`) that ``privrisk report`` gathers.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from privrisk._format import percent_3g
from privrisk.presence.measures import PresenceResult, Targets
from privrisk.presence.prepare import Prepared, Source
from privrisk.presence.search import SearchResult, release_table

__all__ = ["PresenceReport", "finding", "summary_rows"]

ROWS = 200
"""Classes listed in a JSON document (the CSV tables hold all)."""


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
        (('δ_max (largest T/P of a class)', '0.5'), ('information loss (precision)', '0.250'))
    """
    s = summary
    rows = [
        ("δ_max (largest T/P of a class)", f"{s['delta_max']:.4g}"),
        ("δ_min (all population classes)", f"{s['delta_min']:.4g}"),
        ("δ_min over classes in T", f"{s['delta_min_present']:.4g}"),
        ("k-anonymity", f"{s['k_anonymity']:,}"),
        ("k-map", f"{s['k_map']:,}"),
        ("classes in T / in P", f"{s['classes']:,} / {s['population_classes']:,}"),
        ("unique records", f"{s['unique_records']:,}"),
        ("records in T / P", f"{s['n_dataset']:,} / {s['n_population']:,}"),
    ]
    if s["records_at_risk"] is not None:
        rows.append((f"records at risk (δ > {target})", f"{s['records_at_risk']:,}"))
    if s["suppressed"]:
        rows.append(("suppressed records", f"{s['suppressed']:,}"))
    rows.append(("information loss (precision)", f"{s['loss_precision']:.3f}"))
    return rows


def finding(summary: Mapping[str, Any], when: str) -> str:
    """One sentence on what δ_max, k-anonymity and k-map of a summary mean for the people in the data.

    Example:
        >>> finding({"delta_max": 0.25, "k_anonymity": 1, "k_map": 10}, "After the search")[:60]
        'After the search, the largest share of a population class th'
    """
    return (
        f"{when}, the largest share of a population class that is in the research subset is δ = "
        f"{summary['delta_max']:.3g}: an attacker who sees the release and the population table can be "
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
