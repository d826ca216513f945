"""The fixed values of the review formats (``schemas/review/v1``): version strings, the
verdicts, the scorers a pack takes from a receipt, the pack's file names and limits."""

from __future__ import annotations

from collections.abc import Sequence

MANIFEST_VERSION = "aau-review-manifest/1.0"
TASKS_VERSION = "aau-review-tasks/1.0"
SCORES_VERSION = "aau-review-scores/1.0"
LABELS_VERSION = "aau-review-labels/1.0"
REPORT_VERSION = "aau-review-report/1.0"

MANIFEST_KIND = "review-manifest"
TASKS_KIND = "review-tasks"
SCORES_KIND = "review-scores"
LABELS_KIND = "review-labels"
REPORT_KIND = "review-report"

PASS, FAIL, UNSURE = "pass", "fail", "unsure"
VERDICTS = (PASS, FAIL, UNSURE)
"""What a rater may answer; ``unsure`` is no rating in every statistic (``UNSURE_RULE``)."""
UNSURE_RULE = ("unsure is no rating: it is left out of agreement, kappa, alpha, the consensus "
               "and the scorer comparison, and counted in verdict_counts")

SCORERS = ("exact", "outcome_exact", "tool_calls_match")
"""The public receipt's per-unit columns a pack keeps as automatic scorers (true = pass)."""

MANIFEST_NAME = "manifest.json"
TASKS_NAME = "tasks.json"
SCORES_NAME = "scores.json"
README_NAME = "README.md"
PACK_FILES = (README_NAME, SCORES_NAME, TASKS_NAME)
"""The files the manifest lists; ``manifest.json`` completes the pack."""

MAX_FILE_BYTES = 200_000_000
"""Largest pack or labels file read, in bytes (10,000 units with their inputs fit)."""
MAX_RATERS = 100
MAX_CATEGORIES = 50
BOOTSTRAP_RESAMPLES = 2000
CONFIDENCE = 0.95

MAX_TIME_SPENT_S = 86_400.0
"""The most ``time_spent_s`` one label may hold, in seconds (a day on one unit): the labels
schema's maximum, and the limit of every way labels come in (a ``serve`` save and the sum of a
unit's saves, Label Studio's ``lead_time``, a labels file)."""


def pass_contradiction(verdict: str, categories: Sequence[str]) -> str | None:
    """The one rule of a pass: it names no failure category (a pass with a failure is a
    contradiction, not a label), whoever labels (a person in ``serve`` or Label Studio, a judge,
    a labels file: the labels schema). Returns the refusal message, or ``None`` when the label
    keeps the rule."""
    if verdict == PASS and categories:
        return (f"a pass names failure categories ({', '.join(categories)}): a contradiction, "
                "not a label (choose fail, or clear the categories)")
    return None
