"""The sensitive-data scan of community-evidence submissions, and its privacy-scan document.

The scan's rules (``scan_text``, ``scan_fields``, ``Finding``, ``luhn_valid``, ``ssn_valid``,
``card_network``; their sources and what each finding means) live in aau-core
(``aau_core._files._privacy_scan``), one copy for every package that writes public outputs
(aau-review refuses labels whose notes trip it); they are re-exported here, where aau-evidence's
public API has always named them. This module adds what only submissions need: the
``aau-community-evidence-privacy/1.0`` document and findings at JSON paths.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from aau_core._files._privacy_scan import (  # internal to the monorepo
    FINDING_IDS,
    Finding,
    card_network,
    luhn_valid,
    scan_fields,
    scan_text,
    ssn_valid,
)
from aau_schemas import json_path

__all__ = ["FINDING_IDS", "PRIVACY_BOUNDARY", "PRIVACY_STATUS", "PRIVACY_VERSION", "Finding",
           "card_network", "json_findings", "luhn_valid", "privacy_scan_document",
           "scan_fields", "scan_text", "ssn_valid"]

PRIVACY_VERSION = "aau-community-evidence-privacy/1.0"
PRIVACY_STATUS = "passed_no_common_sensitive_pattern_detected"
PRIVACY_BOUNDARY = ("Pattern absence does not prove a file contains no sensitive information; "
                    "authorized human review remains required.")


def privacy_scan_document(receipt_files: Iterable[str]) -> dict[str, object]:
    """The ``aau-community-evidence-privacy/1.0`` document of a pack whose scan found nothing.

    Args:
        receipt_files: the pack's receipt paths in order (``receipts/run-01.json``, ...).

    Returns:
        ``{privacy_version, status, findings: [], scanned: ["submission metadata",
        "suite.json", *receipt_files], boundary}`` (kind ``submission-privacy-scan``).
    """
    return {
        "privacy_version": PRIVACY_VERSION,
        "status": PRIVACY_STATUS,
        "findings": [],
        "scanned": ["submission metadata", "suite.json", *receipt_files],
        "boundary": PRIVACY_BOUNDARY,
    }


def json_findings(doc: Any, rendered: str, field: str,
                  base: Sequence[str | int] = ()) -> list[tuple[str, str]]:
    """The findings of a parsed JSON document as ``(json_path, message)`` problems.

    Each string, key and integer of ``doc`` is scanned on its own and a finding is reported at
    its JSON path (``$.cases[0].input.note``, ``email_address at character 12`` -- the offset
    within that string). ``rendered`` (the document's text) is scanned too, for what spans a
    key and its value (``"password": "..."``); a finding of a kind no single value showed is
    reported as before, ``("$", "<field>: <finding> at character <offset>")``.

    Args:
        doc: the parsed document (or a part of it, whose path is ``base``).
        rendered: its text as written or rendered.
        field: the name for findings only the text shows.
        base: the JSON path parts of ``doc`` within its file.
    """
    found: list[tuple[str, str]] = []
    kinds: set[str] = set()

    def add(parts: list[str | int], text: str) -> None:
        for f in scan_text(text, ""):
            found.append((json_path(parts), f"{f.finding} at character {f.offset}"))
            kinds.add(f.finding)

    def walk(value: Any, parts: list[str | int]) -> None:
        if isinstance(value, dict):
            for key, item in value.items():
                add([*parts, key], str(key))
                walk(item, [*parts, key])
        elif isinstance(value, list):
            for i, item in enumerate(value):
                walk(item, [*parts, i])
        elif isinstance(value, str):
            add(parts, value)
        elif isinstance(value, int) and not isinstance(value, bool):
            add(parts, str(value))

    walk(doc, list(base))
    found += [("$", f.line()) for f in scan_text(rendered, field) if f.finding not in kinds]
    return found
