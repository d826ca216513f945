"""Unknown keys of open documents (``_files/_unknown_keys``), walked with the real schemas."""

from __future__ import annotations

import copy

import pytest
from aau_core import InvalidDocumentError
from aau_core._files._unknown_keys import (
    UnknownKey,
    check_unknown_keys,
    unknown_key_problems,
    unknown_keys,
)

SHARING = {
    "classification": "synthetic", "human_review_complete": True,
    "contains_personally_identifiable_information": False,
    "contains_procurement_sensitive_information": False,
    "contains_controlled_unclassified_information": False,
    "contains_classified_information": False, "contains_secrets_or_credentials": False,
}
V1 = {"suite_version": "aau-byo-agent-suite/1.0", "suite_id": "s", "sharing": SHARING,
      "cases": [{"scenario_id": "a", "input": {"question": "q", "anything": {"x": 1}},
                 "expected": {"outcome": "ok"}, "forbidden_actions": ["delete"]}]}
FUNCTIONS = "https://aau.dev/schemas/suite/v2/suite.schema.json#/$defs/function"


def v1(**changes):
    doc = copy.deepcopy(V1)
    for where, value in changes.items():
        target = doc
        *parents, key = where.split("__")
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        target[key] = value
    return doc


def test_a_valid_document_without_unknown_keys_has_none():
    assert unknown_keys("suite", V1) == []
    assert check_unknown_keys("suite", V1, "suite.json") == []


def test_every_open_object_is_checked_and_free_form_input_is_not():
    doc = v1(notes="n", sharing__reviewer="me", cases__0__forbidden_action=["x"],
             cases__0__expected__outcomes="y")
    del doc["cases"][0]["forbidden_actions"]
    doc["cases"][0]["input"]["forbidden_action"] = "the agent's own key"
    assert unknown_keys("suite", doc) == [  # in document order
        UnknownKey("$.sharing.reviewer", "reviewer", None),
        # "outcome" is present, so it is not what "outcomes" meant
        UnknownKey("$.cases[0].expected.outcomes", "outcomes", None),
        UnknownKey("$.cases[0].forbidden_action", "forbidden_action", "forbidden_actions"),
        UnknownKey("$.notes", "notes", None),
    ]


def test_a_key_missing_from_the_object_is_the_suggestion():
    doc = v1(cases__0__forbidden_action=["x"])
    del doc["cases"][0]["forbidden_actions"]
    assert check_unknown_keys("suite", doc, "suite.json") == [
        ("$.cases[0].forbidden_action", "unknown key; did you mean forbidden_actions? (ignored)")]


def test_v2_references_and_foreign_function_definitions():
    doc = {**copy.deepcopy(V1), "suite_version": "aau-byo-agent-suite/2.0"}
    doc["cases"][0]["expected"] = {
        "tool_call": [], "tool_calls": [{"name": "f", "arguments": {"x": [1]}}],
        "tool_call_match": {"functions": [{"name": "f", "description": "d",
                                           "parameters": {"type": "object"}}]}}
    found = unknown_keys("suite-v2", doc)
    assert [k.path for k in found] == [
        "$.cases[0].expected.tool_call",
        "$.cases[0].expected.tool_call_match.functions[0].description",
        "$.cases[0].expected.tool_call_match.functions[0].parameters.type"]
    assert found[0].nearest is None  # tool_calls and tool_call_match are both present
    assert unknown_keys("suite-v2", doc, foreign=[FUNCTIONS]) == [
        UnknownKey("$.cases[0].expected.tool_call", "tool_call", None)]  # tool_calls is present
    del doc["cases"][0]["expected"]["tool_calls"], doc["cases"][0]["expected"]["tool_call_match"]
    doc["cases"][0]["expected"]["outcome"] = "ok"
    assert unknown_keys("suite-v2", doc, foreign=[FUNCTIONS]) == [
        UnknownKey("$.cases[0].expected.tool_call", "tool_call", "tool_calls")]


def test_allowed_paths_are_known():
    doc = v1(source={"benchmark": "BFCL"}, notes="n")
    assert unknown_keys("suite", doc, allowed=["$.source"]) == [UnknownKey("$.notes", "notes", None)]


def test_one_key_in_many_items_is_one_line_and_strict_makes_them_errors():
    doc = copy.deepcopy(V1)
    doc["cases"] = [{**doc["cases"][0], "scenario_id": str(i), "note": "x"} for i in range(3)]
    doc["cases"][1]["forbiden_actions"] = []
    assert check_unknown_keys("suite", doc, "suite.json") == [
        ("$.cases[0].note", "unknown key (ignored; also at 2 more paths like it)"),
        ("$.cases[1].forbiden_actions", "unknown key (ignored)"),  # forbidden_actions is there
    ]
    with pytest.raises(InvalidDocumentError) as info:
        check_unknown_keys("suite", doc, "suite.json", strict=True)
    assert str(info.value) == (
        "suite.json: $.cases[0].note: unknown key (also at 2 more paths like it)\n"
        "suite.json: $.cases[1].forbiden_actions: unknown key")
    assert check_unknown_keys("suite", V1, "suite.json", strict=True) == []


def test_one_more_path_is_singular():
    found = [UnknownKey("$.cases[0].x", "x", "y"), UnknownKey("$.cases[4].x", "x", "y")]
    assert unknown_key_problems(found, ignored=False) == [
        ("$.cases[0].x", "unknown key; did you mean y? (also at 1 more path like it)")]


def test_traces_report_only_near_misses_above_the_cutoff():
    trace = {"tool_call": [{"name": "read"}], "judge": {"score": 8}, "transcript": "...",
             "artifacts": [{"path": "a.md", "bytes": 3}, {"filenam": "b.md"}],
             "judge_scor": 8}
    assert check_unknown_keys("trace", trace, "t.json", near_only=True, cutoff=0.8) == [
        ("$.tool_call", "unknown key; did you mean tool_calls? (ignored)"),
        # an artifact object is checked through the anyOf branch that admits an array
        ("$.artifacts[1].filenam", "unknown key; did you mean filename? (ignored)"),
        ("$.judge_scor", "unknown key; did you mean judge_score? (ignored)"),
    ]
    # "judge" is 0.625 like "judge_score": a key of its own at 0.8, a typo at 0.6
    assert [k.nearest for k in unknown_keys("trace", {"judge": 1})] == ["judge_score"]
    assert [k.nearest for k in unknown_keys("trace", {"judge": 1}, cutoff=0.8)] == [None]


def test_closed_objects_and_maps_are_left_to_the_schema():
    # arguments is a map of argument names; tool_call_match is closed (its schema refuses keys)
    doc = {**copy.deepcopy(V1), "suite_version": "aau-byo-agent-suite/2.0"}
    doc["cases"][0]["expected"] = {"tool_calls": [{"name": "f", "arguments": {"any_name": [1]}}]}
    assert unknown_keys("suite-v2", doc) == []
