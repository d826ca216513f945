"""Preparing a blinded human-baseline pack from a suite (``aau baseline prepare``).

The study keeps each case's ``scenario_id`` and ``input`` only, in blinded order: sorted by the
SHA-256 hex digest of ``"<study_id>:<scenario_id>"`` (aau-harness 1.6's order, so the same suite
and id give the same ``study.json`` bytes and hash). Outcomes are the suite's expected outcomes in
first-seen order. The answer key holds the expected outcomes, in a file of its own.

Participant files (study, session template, README) are derived from the study alone, never from
the answer key, and checked structurally before anything is written: the study passes its closed
schema and ``check_study`` (no ``expected`` key anywhere in an input), and the template and
README are functions of the study. The pack is written with aau-core's shared ``write_pack``: into
a temporary folder beside the destination, the manifest last, checked against its manifest and
read back with ``read_pack``, then renamed into place; an existing destination is refused.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import aau_core
import aau_schemas
from aau_core import InputError, InvalidDocumentError, UsageError
from aau_schemas import sha256_hex

from ._converter import converter
from ._documents import (
    ANSWER_KEY_KIND,
    STUDY_KIND,
    check_answer_key,
    check_outcome_suite,
    check_schema,
    check_study,
    leaked_answers,
    study_sha256,
)
from ._models import AnswerKey, ManifestFile, PackManifest, Study, StudyCase
from ._pack import MANIFEST_NAME, read_pack, session_template
from ._protocol import MANIFEST_VERSION

_SLUG_CHARS = set("abcdefghijklmnopqrstuvwxyz0123456789-")


def _check_flags(study_id: str, title: str, purpose: str) -> None:
    ok_slug = (1 <= len(study_id) <= 63 and set(study_id) <= _SLUG_CHARS
               and not study_id.startswith("-") and not study_id.endswith("-"))
    if not ok_slug:
        raise UsageError(f"--id {study_id!r}: a slug of 1 to 63 lowercase letters, digits and "
                         "inner hyphens")
    for flag, value, limit in (("--title", title, 120), ("--purpose", purpose, 500)):
        if not value.strip() or len(value.strip()) > limit:
            raise UsageError(f"{flag}: 1 to {limit} characters (not counting surrounding spaces)")


def build_study(suite: Any, *, study_id: str, title: str,
                purpose: str) -> tuple[Study, AnswerKey]:
    """The study and answer key models for a loaded ``aau_adapters.Suite`` (v1, or v2 whose
    cases all expect an outcome and no tool calls: ``check_outcome_suite``), each checked
    against its schema and its code rules.

    Raises:
        UsageError: a bad ``study_id`` (slug), ``title`` (<= 120) or ``purpose`` (<= 500).
        InputError: a case without an expected outcome or with expected tool calls, the
            suite has fewer than two distinct expected outcomes, or a case input
            would expose an expected answer (names the suite file and JSON path).
    """
    _check_flags(study_id, title, purpose)
    check_outcome_suite(suite)
    outcomes: list[str] = []
    for case in suite.cases:
        if case.expected_outcome not in outcomes:
            outcomes.append(case.expected_outcome)
    if len(outcomes) < 2:
        raise InputError("a human-baseline study needs at least two distinct expected outcomes",
                         source=suite.source, path="$.cases")
    leaks = [p for c in suite.cases for p in leaked_answers(c.input, f"$.cases[{c.index}].input")]
    if leaks:
        raise InvalidDocumentError(leaks, source=suite.source)
    blinded = sorted(suite.cases, key=lambda c: sha256_hex(
        f"{study_id}:{c.scenario_id}".encode()))
    study = Study(
        study_id=study_id,
        suite_id=suite.suite_id,
        suite_sha256=suite.suite_sha256,
        title=title.strip(),
        purpose=purpose.strip(),
        classification=suite.doc["sharing"]["classification"],
        outcomes=outcomes,
        cases=[StudyCase(scenario_id=c.scenario_id, input=c.input) for c in blinded],
    )
    check_schema(STUDY_KIND, converter.unstructure(study), suite.source)
    check_study(study, suite.source)
    answer_key = AnswerKey(
        study_id=study_id,
        study_sha256=study_sha256(study),
        answers={c.scenario_id: c.expected_outcome for c in suite.cases},
    )
    check_schema(ANSWER_KEY_KIND, converter.unstructure(answer_key), "answer-key.json")
    check_answer_key(answer_key, study, "answer-key.json")
    return study, answer_key


def study_readme(study: Study) -> str:
    """The pack's README (Markdown), from the study's id, title and purpose only."""
    return "\n".join([
        f"# {study.title}",
        "",
        f"Blinded human-baseline pack `{study.study_id}` for suite `{study.suite_id}`: "
        f"{len(study.cases)} case(s), {len(study.outcomes)} outcome(s) plus abstention.",
        "",
        f"Purpose: {study.purpose}",
        "",
        "## Files",
        "",
        "- `study.json`: what participants see, the cases' inputs in blinded order and the",
        "  outcomes to choose from.",
        "- `session-template.json`: one participant's answers; replace the placeholder id with",
        "  12 to 64 random lowercase hex characters, never anything that identifies a person.",
        "- `answer-key.json`: the scorer. The organiser keeps it; participants never see it.",
        "- `manifest.json`: byte length and SHA-256 of the four other files.",
        "",
        "## Filling in a session",
        "",
        "Copy `session-template.json` once per participant, outside this folder (the pack",
        "holds exactly its five files: `cp session-template.json ../s1.json`), and fill in",
        "every response:",
        "",
        "- `outcome`: one of the study's `outcomes`, or `__abstain__` for no answer;",
        "- `confidence`: a whole number from 0 to 100 (percent sure the outcome is right);",
        "- `elapsed_ms`: whole milliseconds spent on the case, 1 to 3,600,000;",
        "- `participant_role`: one of the study's `participant_roles`;",
        "- `session_kind` and `protection_basis`: `synthetic_reference` with `synthetic_only`",
        "  for made-up reference answers; real people's sessions need a recorded institutional",
        "  determination or review (see below).",
        "",
        "Check each file with `aau baseline validate ../s1.json --study study.json`.",
        "",
        "## Before anyone takes part",
        "",
        "The study's `human_protections.review_status` is `not_determined`: aau records no",
        "institutional determination. Synthetic reference sessions may be used at once; sessions",
        "of real people need the determination or review of the responsible institution, recorded",
        "outside this pack, voluntary participation and a way to withdraw. Do not collect names,",
        "contact details, free text or production data, and publish only the aggregate report.",
        "",
        "## Commands",
        "",
        "From this folder (sessions and the report stay outside the pack):",
        "",
        "```bash",
        "aau baseline validate .",
        "aau baseline summarize . --session ../s1.json --session ../s2.json --out ../report.json",
        "```",
        "",
        f"Boundary: {study.boundary}",
        "",
    ])


def pack_files(study: Study, answer_key: AnswerKey) -> dict[str, bytes]:
    """Name -> exact bytes of every pack file, the manifest last (it hashes the others); each
    JSON file is its model unstructured and rendered as aau-harness 1.6 renders it."""
    files = {
        "README.md": study_readme(study).encode("utf-8"),
        "answer-key.json": _render(answer_key),
        "session-template.json": _render(session_template(study)),
        "study.json": _render(study),
    }
    rows = aau_core.build_manifest(files, version=MANIFEST_VERSION)["files"]
    manifest = PackManifest(study_id=study.study_id,
                            files=converter.structure(rows, list[ManifestFile]))
    return {**files, MANIFEST_NAME: _render(manifest)}


def write_study_pack(destination: str | Path, files: dict[str, bytes]) -> Path:
    """Write ``files`` (``pack_files``' output, manifest included) as a new folder
    ``destination``, atomically, and check it with ``read_pack`` before it appears.

    Raises:
        OutputError: ``destination`` exists, or the folder cannot be written, or the staged
            pack fails its manifest or ``read_pack`` (a bug; nothing is left behind).
    """
    return aau_core.write_pack(destination, files, manifest_name=MANIFEST_NAME, verify=read_pack)


def _render(model: Any) -> bytes:
    return aau_schemas.legacy_render_json(converter.unstructure(model)).encode("ascii")
