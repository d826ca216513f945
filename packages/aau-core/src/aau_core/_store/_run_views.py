"""A stored run as it is shown: the ``aau runs show --json`` document and the HTML page.

``RunShow`` is the ``run-show`` document (schema ``run-store/v1/run-show``); ``run_html`` is the
page ``aau runs show --html`` writes and ``aau view`` serves. Both read what ``_run_store`` keeps.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs

from ._run_store import RunSummary, StoredScenario, document_report


@attrs.frozen
class RunShow:
    """``aau runs show --json`` (schema ``run-show``): the run, its scenarios, its document."""

    run: RunSummary
    scenarios: list[StoredScenario]
    document: dict[str, Any]


def run_html(summary: RunSummary, doc: Any, links: tuple[tuple[str, str], ...] = ()) -> str:
    """The HTML report of one stored run (what ``aau runs show --html`` writes and ``aau view``
    serves), titled ``run ID``.

    Args:
        summary: the run's ``RunSummary``.
        doc: its stored document (receipt, eval aggregate or lab result).
        links: ``(href, text)`` navigation links above the report.

    Returns:
        one self-contained HTML page.
    """
    from .._reports._html import render_html_report

    label = f"run {summary.id}" + (f" ({Path(summary.source).name})" if summary.source else "")
    report = document_report(doc, label)
    return render_html_report([(report, doc)], title=f"aau run {summary.id}", links=links)
