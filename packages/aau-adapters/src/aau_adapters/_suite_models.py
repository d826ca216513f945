"""Suite documents as models: ``aau-byo-agent-suite/1.0`` (schema ``suite``), ``/2.0``
(``suite-v2``) and ``/3.0`` (``suite-v3``), with their cases, ``expected`` objects, expected
calls and match rules.

Suites 1.0 and 2.0 are open at every level (unknown keys are kept and hashed), so their open
objects carry an ``extra`` field (aau-core's ``open_extra()``); suite 3.0 is 2.0 closed, so its
own objects (``SharingV3``, ``CaseDocumentV3``, ``ExpectedV3``, ``CaseEnvironmentV3``,
``SuiteDocumentV3``) have none
and share 2.0's closed tool-call parts (``ExpectedCall``, ``ToolCallMatchRules``).
``description`` and ``human_authority`` may hold any JSON value, ``null`` included, so they are
``optional_field(nullable=True)`` (default ``ABSENT``). Structure a suite with
``_documents.structure_document`` (schema first); ``_suite.suite_from_document`` does, and keeps
the model as ``Suite.model``.
"""

from __future__ import annotations

from typing import Any

import attrs
from aau_core._files._converter import open_extra, optional_field  # internal to the monorepo


@attrs.frozen(kw_only=True)
class Sharing:
    """A suite's sharing attestation (``$defs/sharing``): a public or synthetic
    ``classification``, human review done, and every sensitive-content flag false."""

    classification: str
    human_review_complete: bool
    contains_personally_identifiable_information: bool
    contains_procurement_sensitive_information: bool
    contains_controlled_unclassified_information: bool
    contains_classified_information: bool
    contains_secrets_or_credentials: bool
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class ExpectedV1:
    """A suite 1.0 case's ``expected``: the exact ``outcome`` string (other keys kept)."""

    outcome: str
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class ExpectedCall:
    """One expected call (suite 2.0 ``$defs/expected_call``): the function ``name`` and, per
    argument, the non-empty list of acceptable values."""

    name: str
    arguments: dict[str, list[Any]]


@attrs.frozen(kw_only=True)
class ToolCallMatchRules:
    """How a case's calls are matched (suite 2.0 ``$defs/tool_call_match``): ``mode`` (default
    ``strict``), per-tool per-argument ``matchers``, and ``functions`` (open definitions, kept as
    written); ``None`` = not given. docs/tool-calls.md."""

    mode: str | None = optional_field()
    matchers: dict[str, dict[str, Any]] | None = optional_field()
    functions: tuple[dict[str, Any], ...] | None = optional_field()


@attrs.frozen(kw_only=True)
class ExpectedV2:
    """A suite 2.0 case's ``expected``: an ``outcome``, ``tool_calls``, or both, and the
    ``tool_call_match`` rules (other keys kept); ``None`` = not given."""

    outcome: str | None = optional_field()
    tool_calls: tuple[ExpectedCall, ...] | None = optional_field()
    tool_call_match: ToolCallMatchRules | None = optional_field()
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class CaseDocumentV1:
    """One case of a suite 1.0: ``scenario_id``, the ``input`` sent to the agent, what is
    ``expected`` (never sent), and ``forbidden_actions`` (``None`` = not given)."""

    scenario_id: str
    input: dict[str, Any]
    expected: ExpectedV1
    forbidden_actions: tuple[str, ...] | None = optional_field()
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class CaseDocumentV2:
    """One case of a suite 2.0 (as ``CaseDocumentV1``, with an ``ExpectedV2``)."""

    scenario_id: str
    input: dict[str, Any]
    expected: ExpectedV2
    forbidden_actions: tuple[str, ...] | None = optional_field()
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class SuiteDocumentV1:
    """A suite ``aau-byo-agent-suite/1.0``: version, id, sharing attestation and cases;
    ``description`` and ``human_authority`` are any JSON value (``ABSENT`` = not given)."""

    suite_version: str
    suite_id: str
    sharing: Sharing
    cases: tuple[CaseDocumentV1, ...]
    description: Any = optional_field(nullable=True)
    human_authority: Any = optional_field(nullable=True)
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class SuiteDocumentV2:
    """A suite ``aau-byo-agent-suite/2.0`` (as ``SuiteDocumentV1``, with ``CaseDocumentV2``
    cases)."""

    suite_version: str
    suite_id: str
    sharing: Sharing
    cases: tuple[CaseDocumentV2, ...]
    description: Any = optional_field(nullable=True)
    human_authority: Any = optional_field(nullable=True)
    extra: dict[str, Any] = open_extra()


@attrs.frozen(kw_only=True)
class SharingV3:
    """A suite 3.0's sharing attestation (as ``Sharing``, closed: no other key)."""

    classification: str
    human_review_complete: bool
    contains_personally_identifiable_information: bool
    contains_procurement_sensitive_information: bool
    contains_controlled_unclassified_information: bool
    contains_classified_information: bool
    contains_secrets_or_credentials: bool


@attrs.frozen(kw_only=True)
class ExpectedV3:
    """A suite 3.0 case's ``expected`` (as ``ExpectedV2``, closed; ``outcome`` non-empty). A case
    with an ``environment`` may leave every field out (``{}``: the environment's verdict
    decides)."""

    outcome: str | None = optional_field()
    tool_calls: tuple[ExpectedCall, ...] | None = optional_field()
    tool_call_match: ToolCallMatchRules | None = optional_field()


@attrs.frozen(kw_only=True)
class CaseEnvironmentV3:
    """A suite 3.0 case's ``environment`` (``$defs/environment``, closed): the registered
    environment ``name``, its ``task`` id, its own ``options`` and the unit's tool-call budget
    ``max_calls`` (1..10000); ``None`` = not given (the loader's defaults: ``{}`` and 50)."""

    name: str
    task: str
    options: dict[str, Any] | None = optional_field()
    max_calls: int | None = optional_field()


@attrs.frozen(kw_only=True)
class CaseUserV3:
    """A suite 3.0 case's ``user`` (``$defs/user``, closed): ``kind`` (``"scripted"`` or
    ``"model"``), the scripted user's ``messages`` or the model user's ``instructions``
    (``None`` = not given), and the agent's turn limit ``max_turns`` (1..200)."""

    kind: str
    max_turns: int
    messages: tuple[str, ...] | None = optional_field()
    instructions: str | None = optional_field()


@attrs.frozen(kw_only=True)
class AttackGoalV3:
    """A suite 3.0 attack's ``goal`` (closed): the case's ``forbidden_actions`` it targets and
    how they count (``"attempted"`` / ``"executed"``; ``None`` = not given: executed)."""

    forbidden_actions: tuple[str, ...]
    counts: str | None = optional_field()


@attrs.frozen(kw_only=True)
class CaseAttackV3:
    """A suite 3.0 case's ``attack`` (``$defs/attack``, closed): its ``name``, the environment's
    ``injection_task``, the ``injections`` per vector and the ``goal`` (``None`` = not given)."""

    name: str
    injection_task: str | None = optional_field()
    injections: dict[str, str] | None = optional_field()
    goal: AttackGoalV3 | None = optional_field()


@attrs.frozen(kw_only=True)
class CaseDocumentV3:
    """One case of a suite 3.0 (as ``CaseDocumentV2``, closed, with an ``ExpectedV3``), and
    the ``environment`` whose tools aau serves to the agent (``None`` = not given)."""

    scenario_id: str
    input: dict[str, Any]
    expected: ExpectedV3
    forbidden_actions: tuple[str, ...] | None = optional_field()
    environment: CaseEnvironmentV3 | None = optional_field()
    user: CaseUserV3 | None = optional_field()
    attack: CaseAttackV3 | None = optional_field()


@attrs.frozen(kw_only=True)
class SuiteDocumentV3:
    """A suite ``aau-byo-agent-suite/3.0`` (as ``SuiteDocumentV2``, closed), with the importer's
    free-form ``source`` record (``None`` = not given)."""

    suite_version: str
    suite_id: str
    sharing: SharingV3
    cases: tuple[CaseDocumentV3, ...]
    description: Any = optional_field(nullable=True)
    human_authority: Any = optional_field(nullable=True)
    source: dict[str, Any] | None = optional_field()
