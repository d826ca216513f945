"""The fixed values of the review formats (``schemas/review/v1``): version strings, the
verdicts, the scorers a pack takes from a receipt, the pack's file names and limits."""

from __future__ import annotations

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
