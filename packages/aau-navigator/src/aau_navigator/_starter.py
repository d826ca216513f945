"""Starter templates and the configuration of one starter project (``aau init``'s inputs).

A starter template (package data ``templates/starter/templates.json``) names a title, a one-line
summary, a mission, the accountable human role and the protected action, three outcome slots
(``routine``, ``human``, ``stop``), ordered rules mapping a case input field to a slot, and the
synthetic cases. ``resolve_starter`` applies ``aau init``'s flags to a template and returns a
``StarterConfig``; ``build_suite`` turns it into an ``aau-byo-agent-suite/1.0`` document.

The format and the three template ids are aau-harness 1.6's (reference §1.3, §1.5 "Starter",
§2.8); the wording and the cases are aau's own.
"""

from __future__ import annotations

import importlib.metadata
import json
import re
from functools import lru_cache
from importlib.resources import files
from typing import Any

import attrs
from aau_core import UsageError

STARTER_VERSION = "aau-agent-evidence-starter/1.0"
"""The manifest's ``starter_version`` (kind ``starter-manifest``)."""

MANIFEST_NAME = "aau-starter.json"
STATUS = "synthetic_onboarding_not_production_validation"
STARTER_BOUNDARY = (
    "This starter measures a reviewed synthetic evaluation contract. It is not certification, "
    "deployment approval, professional advice, or authority transfer."
)
TEMPLATE_IDS = ("public-service-routing", "customer-escalation", "incident-triage")
ADAPTERS = ("command", "http")
OUTCOME_SLOTS = ("routine", "human", "stop")
GENERATED_FILES = (
    ".github/workflows/aau-evaluation.yml",
    ".gitignore",
    "README.md",
    "RECEIPT_POLICY.md",
    "adapter_command.py",
    "adapter_endpoint.py",
    "artifacts/first-receipt.json",
    "assets/evidence-flow.svg",
    "suite.json",
    "tests/test_adapter.py",
)
"""The ten files ``aau init`` generates besides the manifest, sorted (the manifest's keys)."""

INSTALL_PACKAGE = "aau-harness"
"""The distribution a starter's CI installs: the umbrella that brings ``aau evaluate`` and
``aau doctor`` (every aau package is released with one shared version)."""

MAX_TEXT_CHARS = 240
_NAME = re.compile(r"[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?")
_NOT_OUTCOME = re.compile(r"[^a-z0-9]+")
_CONTROL = re.compile(r"[\x00-\x1f\x7f\u2028\u2029]")


def package_version() -> str:
    """The installed aau version (``aau-navigator``'s, shared by every aau package), e.g.
    ``"2.0.0.dev0"``; what a starter's manifest records and its CI installs."""
    return importlib.metadata.version("aau-navigator")


def install_spec(version: str) -> str:
    """``"aau-harness==<version>"``: the pip requirement a starter's CI and README use."""
    return f"{INSTALL_PACKAGE}=={version}"


def _package_json(name: str) -> Any:
    """A fresh parse of the package-data file ``templates/starter/<name>``."""
    return json.loads(files("aau_navigator").joinpath(f"templates/starter/{name}")
                      .read_text("utf-8"))


@lru_cache(maxsize=1)
def starter_templates() -> dict[str, dict[str, Any]]:
    """The three starter templates, keyed by template id (parsed package data; do not mutate)."""
    loaded: dict[str, dict[str, Any]] = _package_json("templates.json")
    return loaded


@attrs.frozen
class StarterConfig:
    """Everything that decides a starter project's files.

    Attributes:
        name: project name (1-63 of ``a-z 0-9 -``, no leading or trailing hyphen).
        template_id: one of ``TEMPLATE_IDS``.
        adapter: primary adapter of the CI workflow, ``"command"`` or ``"http"``.
        title, summary, mission, human_role, protected_action: one-line texts.
        outcomes: ``{"routine", "human", "stop"}`` -> outcome string (``[a-z0-9_]+``, distinct).
        rules: ``[{"field", "equals", "outcome_slot"}]``, first match wins.
        default_outcome_slot: the slot when no rule matches.
        cases: ``[{"scenario_id", "expected_slot", "input", "forbidden_actions"}]``.
        version: the aau version recorded in the manifest and pinned in CI.
    """

    name: str
    template_id: str
    adapter: str
    title: str
    summary: str
    mission: str
    human_role: str
    protected_action: str
    outcomes: dict[str, str]
    rules: list[dict[str, Any]]
    default_outcome_slot: str
    cases: list[dict[str, Any]]
    version: str


def _text(flag: str, value: str | None, default: str) -> str:
    if value is None:
        return default
    text = value.strip()
    if not text:
        raise UsageError(f"{flag}: must not be blank")
    if _CONTROL.search(text):
        raise UsageError(f"{flag}: must be one line without control characters")
    if len(text) > MAX_TEXT_CHARS:
        raise UsageError(f"{flag}: at most {MAX_TEXT_CHARS} characters (got {len(text)})")
    return text


def outcome_name(value: str) -> str:
    """Normalise a custom outcome as aau-harness 1.6 does: lowercase, each run of characters
    outside ``a-z 0-9`` becomes ``_``, leading/trailing ``_`` removed (``"Route Human!"`` ->
    ``"route_human"``). Raises ``ValueError`` when nothing is left."""
    result = _NOT_OUTCOME.sub("_", value.lower()).strip("_")
    if not result:
        raise ValueError("must contain a letter or a digit")
    return result


def resolve_starter(
    name: str,
    *,
    template_id: str = "public-service-routing",
    adapter: str = "command",
    title: str | None = None,
    mission: str | None = None,
    human_role: str | None = None,
    protected_action: str | None = None,
    outcomes: dict[str, str] | None = None,
    version: str | None = None,
) -> StarterConfig:
    """Apply ``aau init``'s options to a template.

    Args:
        name: the project name (checked, not changed).
        template_id, adapter: see ``StarterConfig``.
        title, mission, human_role, protected_action: replace the template's text (stripped;
            one line, 1-240 characters).
        outcomes: slot (``routine``/``human``/``stop``) -> custom outcome, normalised by
            ``outcome_name``; the three outcomes must stay distinct.
        version: the aau version to record (default: the installed one).

    Returns:
        the ``StarterConfig``.

    Raises:
        aau_core.UsageError: a bad name, template, adapter, text, slot or outcome; the message
            names the flag.
    """
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        raise UsageError(f"NAME {name!r}: use 1-63 lowercase letters, digits or hyphens, "
                         "starting and ending with a letter or digit")
    if template_id not in TEMPLATE_IDS:
        raise UsageError(f"--template {template_id!r}: choose one of {', '.join(TEMPLATE_IDS)}")
    if adapter not in ADAPTERS:
        raise UsageError(f"--adapter {adapter!r}: choose command or http")
    template = starter_templates()[template_id]
    resolved = dict(template["outcomes"])
    for slot, value in (outcomes or {}).items():
        if slot not in OUTCOME_SLOTS:
            raise UsageError(f"unknown outcome slot {slot!r}: use routine, human or stop")
        try:
            resolved[slot] = outcome_name(value)
        except ValueError as exc:
            raise UsageError(f"--{slot}-outcome {value!r}: {exc}") from None
    if len(set(resolved.values())) != len(resolved):
        raise UsageError("the routine, human and stop outcomes must differ "
                         f"(got {', '.join(resolved[s] for s in OUTCOME_SLOTS)})")
    return StarterConfig(
        name=name,
        template_id=template_id,
        adapter=adapter,
        title=_text("--title", title, template["title"]),
        summary=template["summary"],
        mission=_text("--mission", mission, template["mission"]),
        human_role=_text("--human-role", human_role, template["human_role"]),
        protected_action=_text("--protected-action", protected_action,
                               template["protected_action"]),
        outcomes=resolved,
        rules=[dict(rule) for rule in template["rules"]],
        default_outcome_slot=template["default_outcome_slot"],
        cases=[dict(case) for case in template["cases"]],
        version=version or package_version(),
    )


def build_suite(config: StarterConfig) -> dict[str, Any]:
    """The project's ``suite.json`` document (``aau-byo-agent-suite/1.0``).

    ``suite_id`` is ``<name>-synthetic-smoke``; each case expects its slot's outcome; the
    sharing statements (package data ``suite-sharing.json``) declare synthetic, reviewed
    content with none of the sensitive kinds; ``human_authority`` is the
    configured role and protected action.
    """
    return {
        "suite_version": "aau-byo-agent-suite/1.0",
        "suite_id": f"{config.name}-synthetic-smoke",
        "description": config.mission,
        "sharing": _package_json("suite-sharing.json"),
        "human_authority": {
            "accountable_role": config.human_role,
            "protected_action": config.protected_action,
        },
        "cases": [
            {
                "scenario_id": case["scenario_id"],
                "input": case["input"],
                "expected": {"outcome": config.outcomes[case["expected_slot"]]},
                "forbidden_actions": list(case["forbidden_actions"]),
            }
            for case in config.cases
        ],
    }
