"""A release decision as an OSCAL Assessment Results document (non-certifying).

The mapping is aau-harness 1.6's, kept field for field so that the
``assessment-results.oscal.json`` of a 1.6 release pack recomputes byte for byte:

- one ``assessment-results`` document declaring ``oscal-version`` ``1.1.3``, whose
  ``import-ap.href`` is the caller's assessment plan (``https:`` or ``urn:`` only);
- one result spanning ``effective_at``, reviewing ``include-all`` controls;
- per evidence row: a ``TEST`` observation (its receipt bound as ``urn:sha256:<suite_sha256>``,
  the rates in ``remarks``) and a finding on objective ``aau-<impact_tag>`` whose state is
  ``satisfied`` when the row passes, else ``not-satisfied``;
- per reason code: an ``EXAMINE`` observation naming it;
- every ``uuid`` is a UUIDv5 (RFC 9562 §5.5): ``uuid5(uuid5(NAMESPACE_URL, <role>), <value>)``
  with the role ``aau-oscal-document|result|observation|finding|gap`` and a value seeded by the
  decision's ``decision_sha256``, so the same decision always gives the same document.

The document is checked in tests against NIST's published OSCAL assessment-results JSON
schema (see docs/release.md for which release and why).
"""

from __future__ import annotations

import urllib.parse
import uuid
from typing import Any

from aau_core import UsageError

OSCAL_VERSION = "1.1.3"
"""The ``oscal-version`` the document declares (as aau-harness 1.6)."""

DEFAULT_ASSESSMENT_PLAN = "https://example.invalid/aau/assessment-plan.json"
"""``import-ap.href`` when none is given (a placeholder: aau writes no assessment plan)."""


def _uuid(role: str, value: str) -> str:
    return str(uuid.uuid5(uuid.uuid5(uuid.NAMESPACE_URL, role), value))


def check_assessment_plan_href(href: str) -> str:
    """Return ``href`` when its scheme is ``https`` or ``urn``.

    Raises:
        aau_core.UsageError: any other scheme (``http:``, ``file:``, none).
    """
    if urllib.parse.urlparse(href).scheme not in ("https", "urn"):
        raise UsageError(f"--assessment-plan {href!r}: must be an https: or urn: reference")
    return href


def _row_observation(decision: dict[str, Any], row: dict[str, Any], uid: str) -> dict[str, Any]:
    return {
        "uuid": uid,
        "title": f"AAU release evidence for {row['impact_tag']}",
        "description": (f"Suite {row['suite_id']} measured exact outcome and forbidden execution "
                        "against the declared public or synthetic release change."),
        "methods": ["TEST"],
        "types": ["finding"],
        "collected": decision["effective_at"],
        "relevant-evidence": [{"description": "AAU suite receipt bound by SHA-256.",
                               "href": f"urn:sha256:{row['suite_sha256']}"}],
        "remarks": (f"exact_rate={row['exact_rate']}; no_forbidden_execute_rate="
                    f"{row['no_forbidden_execute_rate']}; passes={'true' if row['passes'] else 'false'}."),
    }


def _row_finding(row: dict[str, Any], uid: str, observation: str) -> dict[str, Any]:
    return {
        "uuid": uid,
        "title": f"Release gate {row['impact_tag']}",
        "description": "AAU change-specific evidence result.",
        "target": {"type": "objective-id", "target-id": f"aau-{row['impact_tag']}",
                   "status": {"state": "satisfied" if row["passes"] else "not-satisfied"}},
        "related-observations": [{"observation-uuid": observation}],
    }


def oscal_assessment_results(decision: dict[str, Any],
                             assessment_plan_href: str = DEFAULT_ASSESSMENT_PLAN) -> dict[str, Any]:
    """Map a checked release decision to an OSCAL Assessment Results document.

    Args:
        decision: an ``aau-agent-release-decision/1.0`` already checked (``check_decision``).
        assessment_plan_href: ``import-ap.href``; ``https:`` or ``urn:``.

    Returns:
        ``{"assessment-results": {...}}`` (see the module doc for the mapping).

    Raises:
        aau_core.UsageError: ``assessment_plan_href`` is neither https nor urn.
    """
    check_assessment_plan_href(assessment_plan_href)
    seed = decision["decision_sha256"]
    when = decision["effective_at"]
    observations: list[dict[str, Any]] = []
    findings: list[dict[str, Any]] = []
    for n, row in enumerate(decision["evidence"], start=1):
        observation = _uuid("aau-oscal-observation", f"{seed}:{n}")
        observations.append(_row_observation(decision, row, observation))
        findings.append(_row_finding(row, _uuid("aau-oscal-finding", f"{seed}:{n}"), observation))
    for n, code in enumerate(decision["reason_codes"], start=1):
        observations.append({
            "uuid": _uuid("aau-oscal-gap", f"{seed}:{n}:{code}"),
            "title": f"AAU visible release gap: {code}",
            "description": "A fail-closed release-gate reason remains unresolved.",
            "methods": ["EXAMINE"],
            "types": ["finding"],
            "collected": when,
            "remarks": code,
        })
    result: dict[str, Any] = {
        "uuid": _uuid("aau-oscal-result", seed),
        "title": "AAU agent release gate result",
        "description": "Change-specific agent evaluation with visible gaps.",
        "start": when,
        "end": when,
        "reviewed-controls": {"control-selections": [{"include-all": {}}]},
        "observations": observations,
        "findings": findings,
        "remarks": (f"AAU status={decision['status']}; decision_sha256={seed}. "
                    "The accountable organization retains every authorization decision."),
    }
    # OSCAL arrays hold at least one item: an empty list is left out (1.6 wrote "findings": [] for
    # a decision without evidence rows, which the OSCAL schema refuses).
    for key, items in (("observations", observations), ("findings", findings)):
        if not items:
            del result[key]
    return {"assessment-results": {
        "uuid": _uuid("aau-oscal-document", seed),
        "metadata": {
            "title": f"AAU non-certifying agent release evidence: {decision['release_id']}",
            "last-modified": when,
            "version": "1.0",
            "oscal-version": OSCAL_VERSION,
            "remarks": ("Experimental AAU mapping. Structural output is not an OSCAL validation, "
                        "control assessment, compliance finding, FedRAMP authorization, or ATO."),
        },
        "import-ap": {"href": assessment_plan_href},
        "results": [result],
    }}
