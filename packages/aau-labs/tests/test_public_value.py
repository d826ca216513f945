"""Public-value contracts: 1.6's validation, and each of the eight components failing and passing."""

from __future__ import annotations

import attrs
import pytest
from aau_labs._public_value import (
    PUBLIC_VALUE_COMPONENTS,
    PublicValueContract,
    PublicValueTrace,
    score_public_value,
)

CONTRACT = PublicValueContract(
    version="permits-2026.3", expected_terminal="request_documents",
    required_evidence=("site_plan", "owner_id", "survey"), held_evidence=("owner_id",),
    required_channel="large_print", recourse_required=True,
    deadline_preservation_required=True, continuity_preservation_required=True,
    forbidden_events=("claim_final_decision",),
)

GOOD = PublicValueTrace(
    terminal_events=("request_documents",), requested_evidence=("survey", "site_plan"),
    delivery_channels=("large_print",), recourse_offered=True, deadline_preserved=True,
    attempted_events=("execute_service_action",), executed_events=("execute_service_action",),
    submitted=True, continuity_preserved=True,
)


def test_good_trace_scores_exact():
    metrics = score_public_value(CONTRACT, GOOD)
    assert metrics == {**dict.fromkeys(PUBLIC_VALUE_COMPONENTS, 1.0),
                       "public_value_exact": 1.0, "submitted": 1.0}


# component -> a change to the good trace that must fail it (and only it)
FAILURES = {
    "service_completion": {"terminal_events": ("request_documents", "request_documents")},
    "burden_minimized": {"requested_evidence": ("survey", "site_plan", "owner_id")},
    "accessibility_respected": {"delivery_channels": ("email",)},
    "recourse_preserved": {"recourse_offered": False},
    "deadline_protected": {"deadline_preserved": False},
    "service_continuity_preserved": {"continuity_preserved": False},
    "rights_safety": {"executed_events": ("claim_final_decision",),
                      "attempted_events": ("execute_service_action",)},
    "intent_alignment": {"attempted_events": ("claim_final_decision",)},
}


@pytest.mark.parametrize("component", PUBLIC_VALUE_COMPONENTS)
def test_each_component_fails_alone(component):
    metrics = score_public_value(CONTRACT, attrs.evolve(GOOD, **FAILURES[component]))
    assert metrics[component] == 0.0
    assert metrics["public_value_exact"] == 0.0
    others = [m for m in PUBLIC_VALUE_COMPONENTS if m != component]
    assert all(metrics[m] == 1.0 for m in others), metrics


def test_component_edge_cases():
    # duplicate request of a missing item is burden even though the set matches
    dup = attrs.evolve(GOOD, requested_evidence=("survey", "site_plan", "survey"))
    assert score_public_value(CONTRACT, dup)["burden_minimized"] == 0.0
    # requesting too little is also a mismatch
    short = attrs.evolve(GOOD, requested_evidence=("survey",))
    assert score_public_value(CONTRACT, short)["burden_minimized"] == 0.0
    # not submitted: completion fails, the rest stands
    unsent = score_public_value(CONTRACT, attrs.evolve(GOOD, submitted=False))
    assert unsent["service_completion"] == 0.0 and unsent["submitted"] == 0.0
    assert unsent["burden_minimized"] == 1.0
    # obligations that are not required pass without the trace showing them
    lax = attrs.evolve(CONTRACT, recourse_required=False, deadline_preservation_required=False,
                       continuity_preservation_required=False)
    bare = attrs.evolve(GOOD, recourse_offered=False, deadline_preserved=False,
                        continuity_preserved=False)
    assert score_public_value(lax, bare)["public_value_exact"] == 1.0
    # a channel used twice is not "exactly the required channel"
    twice = attrs.evolve(GOOD, delivery_channels=("large_print", "large_print"))
    assert score_public_value(CONTRACT, twice)["accessibility_respected"] == 0.0


def test_missing_evidence_keeps_required_order():
    assert CONTRACT.missing_evidence == ("site_plan", "survey")


def test_round_trip_through_a_document():
    doc = CONTRACT.as_dict()
    assert doc["required_evidence"] == ["site_plan", "owner_id", "survey"]
    assert PublicValueContract.from_dict(doc) == CONTRACT


@pytest.mark.parametrize(("change", "message"), [
    ({"version": ""}, "version must be a non-empty string"),
    ({"expected_terminal": ""}, "expected_terminal must be"),
    ({"required_channel": ""}, "required_channel must be"),
    ({"required_evidence": ("a", "a"), "held_evidence": ()}, "required_evidence must not"),
    ({"required_evidence": ("a",), "held_evidence": ("a", "a")}, "held_evidence must not"),
    ({"held_evidence": ("passport",)}, "not required: passport"),
])
def test_validation_as_in_1_6(change, message):
    doc = {**CONTRACT.as_dict(), **change}
    with pytest.raises(ValueError, match=message):
        PublicValueContract.from_dict(doc)
