"""Loading ``aau-byo-agent-suite/1.0`` suites: strict JSON, the suite schema, then code checks.

Order of checks: size cap, strict UTF-8 JSON (BOM tolerated; NaN/Infinity, duplicate keys and
deep nesting rejected), the ``suite`` schema (every violation reported), then what the schema
cannot express (unique ``scenario_id``). Every error names the file and the JSON path.
"""

from __future__ import annotations

import os
from typing import Any

import aau_schemas
import attrs
from aau_core import InvalidDocumentError, read_json_file

DEFAULT_MAX_SUITE_BYTES = 2_000_000
SUITE_MAX_DEPTH = 100


@attrs.frozen
class Case:
    """One case of a suite.

    Attributes:
        index: position in the suite's ``cases`` array (0-based).
        scenario_id: the case id (unique in the suite).
        input: the object sent to the agent as the request's ``input``.
        expected: the case's ``expected`` object as written (never sent to the agent).
        expected_outcome: ``expected["outcome"]``.
        forbidden_actions: the case's ``forbidden_actions`` as written (``[]`` when absent).
    """

    index: int
    scenario_id: str
    input: dict[str, Any]
    expected: dict[str, Any]
    expected_outcome: str
    forbidden_actions: list[str]


@attrs.frozen
class Suite:
    """A loaded, validated suite.

    Attributes:
        source: the file it came from.
        doc: the parsed document (hashes are computed over it).
        suite_id: ``doc["suite_id"]``.
        cases: the cases, in suite order.
    """

    source: str
    doc: dict[str, Any]
    suite_id: str
    cases: tuple[Case, ...]
    _hashes: dict[str, str] = attrs.field(factory=dict, eq=False, repr=False, alias="_hashes")

    @property
    def suite_sha256(self) -> str:
        """aau-harness 1.x ``suite_sha256`` (hex; compact sorted ASCII JSON plus newline)."""
        if "sha256" not in self._hashes:
            self._hashes["sha256"] = aau_schemas.legacy_suite_sha256(self.doc)
        return self._hashes["sha256"]

    def suite_digest(self) -> str:
        """``"sha256:<hex>"`` of the suite's RFC 8785 canonical JSON.

        Raises:
            InvalidDocumentError: the suite holds a value RFC 8785 cannot represent
                (an integer beyond +-(2**53 - 1)).
        """
        if "digest" not in self._hashes:  # computed once: RFC 8785 is slow on big suites
            try:
                self._hashes["digest"] = aau_schemas.canonical_digest(self.doc)
            except aau_schemas.CanonicalizationError as exc:
                raise InvalidDocumentError(
                    [("$", f"cannot compute the RFC 8785 digest: {exc}")], source=self.source
                ) from None
        return self._hashes["digest"]


def suite_from_document(doc: Any, *, source: str = "<suite>") -> Suite:
    """Validate a parsed suite document and build a ``Suite``.

    Raises:
        InvalidDocumentError: schema violations (all of them) or duplicate scenario ids.
    """
    if not aau_schemas.is_valid("suite", doc):
        violations = aau_schemas.iter_violations("suite", doc)
        raise InvalidDocumentError([(v.path, v.message) for v in violations] or
                                   [("$", "not a valid aau-byo-agent-suite/1.0 suite")],
                                   source=source)
    first_seen: dict[str, int] = {}
    problems = []
    cases = []
    for index, raw in enumerate(doc["cases"]):
        sid = raw["scenario_id"]
        if sid in first_seen:
            problems.append((
                aau_schemas.json_path(["cases", index, "scenario_id"]),
                f"duplicate scenario_id {sid!r} (first at $.cases[{first_seen[sid]}])",
            ))
            continue
        first_seen[sid] = index
        cases.append(Case(
            index=index,
            scenario_id=sid,
            input=raw["input"],
            expected=raw["expected"],
            expected_outcome=raw["expected"]["outcome"],
            forbidden_actions=raw.get("forbidden_actions", []),
        ))
    if problems:
        raise InvalidDocumentError(problems, source=source)
    return Suite(source=source, doc=doc, suite_id=doc["suite_id"], cases=tuple(cases))


def load_suite(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_SUITE_BYTES) -> Suite:
    """Read, parse and validate a suite file.

    Args:
        path: the suite file.
        max_bytes: largest accepted file size in bytes (aau-harness 1.6: 2,000,000).

    Returns:
        the ``Suite``.

    Raises:
        aau_core.InputError: unreadable, too large, not strict UTF-8 JSON, or invalid (the
            message names the file and the JSON path of every problem).
    """
    doc = read_json_file(path, max_bytes=max_bytes, max_depth=SUITE_MAX_DEPTH)
    return suite_from_document(doc, source=str(path))
