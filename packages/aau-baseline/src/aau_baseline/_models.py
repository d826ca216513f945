"""The human-baseline documents (``schemas/human-baseline/v1``) as frozen attrs models.

One class per object of each schema, named for it; field names are the JSON keys, and a
document's fixed values (versions, boundary texts, the fail-closed protection and privacy blocks,
the manifest's claims) are the fields' defaults, so a writer never spells them out. The session
template is a ``Session`` (same shape, its own schema kind). ``MODELS`` maps each schema kind to
its class; ``tests/test_models.py`` keeps every class equal to its schema (fields, required sets,
the defaults of ``const`` blocks) and round-trips every valid example.

Convert with the package's one converter (``_converter.converter``): ``structure`` only after
the schema check, ``unstructure`` to write.
"""

from __future__ import annotations

from typing import Any

import attrs

from ._protocol import (
    ANSWER_KEY_VERSION,
    COMPARISON_INTERPRETATION,
    MANIFEST_VERSION,
    MEASURES,
    PARTICIPANT_ROLES,
    REPORT_BOUNDARY,
    REPORT_VERSION,
    SESSION_BOUNDARY,
    SESSION_VERSION,
    STUDY_BOUNDARY,
    STUDY_VERSION,
)
from ._summary import HumanMetrics, Response, ScenarioSummary


@attrs.frozen
class HumanProtections:
    """The study's human-protection block: fixed and fail-closed (``review_status``
    ``not_determined``; aau records no institutional determination)."""

    institutional_determination_required: bool = True
    review_status: str = "not_determined"
    direct_identifiers_prohibited: bool = True
    production_data_prohibited: bool = True
    voluntary_participation_required: bool = True
    withdrawal_path_required: bool = True


@attrs.frozen
class StudyCase:
    """One blinded case: the suite case's id and its ``input`` (open object), never its answer."""

    scenario_id: str
    input: dict[str, Any]


@attrs.frozen(kw_only=True)
class Study:
    """``aau-human-baseline-study/1.0`` (``study.json``): cases in blinded order, the outcomes
    to choose from, and the fixed roles, measures, protections and boundary."""

    study_id: str
    suite_id: str
    suite_sha256: str
    title: str
    purpose: str
    classification: str
    outcomes: list[str]
    cases: list[StudyCase]
    study_version: str = STUDY_VERSION
    participant_roles: list[str] = attrs.Factory(lambda: list(PARTICIPANT_ROLES))
    measures: list[str] = attrs.Factory(lambda: list(MEASURES))
    human_protections: HumanProtections = attrs.Factory(HumanProtections)
    boundary: str = STUDY_BOUNDARY


@attrs.frozen(kw_only=True)
class AnswerKey:
    """``aau-human-baseline-answer-key/1.0``: scenario id -> expected outcome, for one study
    (``study_sha256`` is its legacy evidence hash)."""

    study_id: str
    study_sha256: str
    answers: dict[str, str]
    answer_key_version: str = ANSWER_KEY_VERSION


@attrs.frozen(kw_only=True)
class Session:
    """``aau-human-baseline-session/1.0``: one anonymous session's responses; also the shape of
    a pack's ``session-template.json`` (schema kind ``human-baseline-session-template``)."""

    study_id: str
    study_sha256: str
    anonymous_session_id: str
    session_kind: str
    participant_role: str
    protection_basis: str
    responses: list[Response]
    session_version: str = SESSION_VERSION
    boundary: str = SESSION_BOUNDARY


@attrs.frozen
class ManifestFile:
    """One row of a pack manifest: a file's path, byte length and SHA-256 (hex)."""

    path: str
    bytes: int
    sha256: str


@attrs.frozen
class ManifestClaims:
    """The manifest's fixed claims: byte integrity only."""

    byte_integrity_only: bool = True
    institutional_determination_proved: bool = False
    human_subjects_approval_proved: bool = False
    production_validation_proved: bool = False
    workforce_decision_supported: bool = False


@attrs.frozen(kw_only=True)
class PackManifest:
    """``aau-human-baseline-manifest/1.0`` (``manifest.json``): the four other pack files."""

    study_id: str
    files: list[ManifestFile]
    manifest_version: str = MANIFEST_VERSION
    hash_algorithm: str = "sha256"
    claims: ManifestClaims = attrs.Factory(ManifestClaims)


@attrs.frozen
class SessionKinds:
    """How many summarized sessions are of each kind."""

    synthetic_reference: int
    human_observed: int


@attrs.frozen
class ReportSource:
    """What a report summarizes: the session count, kinds and sorted legacy hashes."""

    session_count: int
    session_kinds: SessionKinds
    session_sha256: list[str]


@attrs.frozen(kw_only=True)
class AgentComparison:
    """A descriptive same-suite comparison with a non-mock agent receipt (rates rounded to 4
    places; ``human_minus_agent_exact_rate`` = human - agent)."""

    receipt_sha256: str
    adapter_kind: str
    scenario_count: int
    agent_exact_rate: float
    human_exact_rate: float
    human_minus_agent_exact_rate: float
    interpretation: str = COMPARISON_INTERPRETATION


@attrs.frozen
class HumanProtectionSummary:
    """The report's session kinds, restated, and that aau verified no determination."""

    observed_human_sessions: int
    synthetic_reference_sessions: int
    institutional_determination_verified_by_aau: bool = False


@attrs.frozen
class ReportPrivacy:
    """The report's privacy block: aggregate only, no identifiers, raw rows or free text."""

    participant_identifiers_included: bool = False
    raw_responses_included: bool = False
    free_text_included: bool = False
    aggregate_only: bool = True


@attrs.frozen(kw_only=True)
class Report:
    """``aau-human-baseline-report/1.0``: the aggregate-only summary of a study's sessions."""

    study_id: str
    study_sha256: str
    source: ReportSource
    metrics: HumanMetrics
    per_scenario: list[ScenarioSummary]
    agent_comparison: AgentComparison | None
    human_protection_summary: HumanProtectionSummary
    report_version: str = REPORT_VERSION
    privacy: ReportPrivacy = attrs.Factory(ReportPrivacy)
    boundary: str = REPORT_BOUNDARY


MODELS: dict[str, type] = {
    "human-baseline-study": Study,
    "human-baseline-answer-key": AnswerKey,
    "human-baseline-session": Session,
    "human-baseline-session-template": Session,
    "human-baseline-manifest": PackManifest,
    "human-baseline-report": Report,
}
"""Schema kind -> the model of its documents."""
