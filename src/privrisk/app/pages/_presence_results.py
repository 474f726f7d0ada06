"""The result of the app's page Presence: the verdict in plain words first; the measures, the classes, the search
and the figure folded below it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from shiny import ui

from privrisk.app._shared import warning_ui
from privrisk.app.pages._presence_tables import classes_frame, estimate_frame, minimal_frame, summary_frame
from privrisk.app.pages._runs import figures_ui, frame_ui

if TYPE_CHECKING:
    from privrisk.presence.run import PresenceRun

__all__ = ["TARGET_NAMES", "results_ui"]

# The thresholds as the page names them (its labels), in the violations it lists.
TARGET_NAMES = {"delta_max": "δ_max allowed", "delta_min": "δ_min allowed", "k": "k", "kmap": "k-map allowed"}


def results_ui(run: PresenceRun, out: Path) -> Any:
    """The verdict first; the measures, classes, search and figure folded below it."""
    verdict = run.verdict()
    tone = "success" if verdict.met else ("warning" if verdict.met is False else "secondary")
    parts: list[Any] = [
        ui.div(
            ui.p(verdict.sentence, class_="lead mb-1"),
            ui.p(verdict.detail, class_="mb-0 small") if verdict.detail else None,
            class_=f"alert alert-{tone} privrisk-verdict",
            id="presence-verdict",
            role="status",
        )
    ]
    failure = run.failure(TARGET_NAMES)
    if failure:
        parts.append(
            ui.p(f"Target missed: {failure} (the command line exits with code 1).", class_="privrisk-failure")
        )
    parts += [warning_ui(w, "presence") for w in run.warnings]
    buttons = [ui.download_button("download_classes", "classes.csv", class_="btn-sm me-2")]
    if (out / "release.csv").is_file():
        buttons.insert(
            0,
            ui.download_button(
                "download_release", "the release table (release.csv)", class_="btn-sm btn-success me-2"
            ),
        )
    buttons.append(ui.download_button("download_all", "the whole folder (.zip)", class_="btn-sm"))
    parts.append(ui.div(*buttons, class_="mb-3"))
    detail: list[Any] = []
    if run.estimate is not None:
        e = run.estimate
        detail += [
            ui.p(e.finding()),
            frame_ui(
                estimate_frame(e),
                id="presence-estimate",
                caption=f"Estimated {e.kmap}-map (an estimate, {e.model} model; no population table)",
            ),
            ui.p("Assumptions: " + e.to_dict()["assumptions"] + ".", class_="privrisk-help"),
        ]
    else:
        assert run.report is not None
        report = run.report
        before, found = report.measured, report.search
        levels = ", ".join(f"{k}={v}" for k, v in before.summary["levels"].items())
        detail += [
            ui.p(f"violated: {v}", class_="privrisk-violation") for v in report.violations(TARGET_NAMES)
        ]
        detail.append(
            frame_ui(summary_frame(before.summary), id="presence-summary", caption=f"Measured at {levels}")
        )
        detail.append(frame_ui(classes_frame(before), id="presence-classes",
                               caption=f"Classes of highest δ ({len(before.classes):,} in all)"))  # fmt: skip
        if found is not None:
            detail.append(
                ui.p(
                    f"Search: {len(found.nodes):,} nodes, {found.evaluated:,} evaluated, "
                    f"{len(found.minimal):,} minimal node(s) meet the targets.",
                    id="presence-search-result",
                )
            )
            if len(found.minimal):
                detail.append(
                    frame_ui(minimal_frame(found), id="presence-minimal", caption="Minimal generalisations")
                )
            if found.best is not None:
                chosen = ", ".join(f"{k}={v}" for k, v in found.best.summary["levels"].items())
                detail += [
                    frame_ui(
                        summary_frame(found.best.summary), id="presence-chosen", caption=f"Chosen: {chosen}"
                    ),
                    frame_ui(
                        classes_frame(found.best),
                        id="presence-chosen-classes",
                        caption="Classes of highest δ after the search",
                    ),
                ]
        detail += [ui.h3("δ per class", class_="h4"), figures_ui(out)]
    parts.append(
        ui.tags.details(
            ui.tags.summary("The measures, the classes and the search (δ, k-anonymity, k-map)"),
            *detail,
            id="presence-detail",
            class_="mb-3",
        )
    )
    return ui.TagList(*parts)
