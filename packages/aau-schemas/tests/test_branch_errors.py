"""``oneOf``/``anyOf`` violations name the deepest real problem, in the branch of the value's type."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_schemas._messages import violation_message
from aau_schemas._validate import _reported_errors
from jsonschema import Draft202012Validator

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


def _reported(schema: dict, instance: object) -> list[tuple[list, str]]:
    errors = Draft202012Validator(schema).iter_errors(instance)
    return [(list(e.absolute_path), violation_message(e))
            for top in errors for e in _reported_errors(top)]


ARRAY_OR_OBJECT = {"anyOf": [
    {"type": "array", "items": {"type": "string"}},
    {"type": "object", "additionalProperties": {"type": "string"}},
    {"type": "null"},
]}


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        # an array goes to the array branch, and on down to the bad item
        (ARRAY_OR_OBJECT, ["a", 1], [([1], '1 is not of type "string"')]),
        # an object goes to the object branch
        (ARRAY_OR_OBJECT, {"x": 5}, [(["x"], '5 is not of type "string"')]),
        # every bad item of the chosen branch is reported
        (ARRAY_OR_OBJECT, {"x": 5, "y": None},
         [(["x"], '5 is not of type "string"'), (["y"], 'null is not of type "string"')]),
        # no branch takes the type: one line naming every allowed type
        (ARRAY_OR_OBJECT, 3, [([], '3 is not of type "array", "object", "null"')]),
        # a string enum does not describe an object: the object branch's problem is reported
        ({"oneOf": [{"enum": ["exact", "any"]},
                    {"type": "object", "additionalProperties": False,
                     "properties": {"tolerance": {"type": "number", "minimum": 0}}}]},
         {"tolerance": -1}, [(["tolerance"], "-1 is less than the minimum of 0")]),
        ({"anyOf": [{"enum": ["exact", "any"]},
                    {"type": "object", "additionalProperties": False,
                     "properties": {"tolerance": {"type": "number"}}}]},
         {"tolerance": 0.1, "bogus": 1}, [([], 'property "bogus" is not allowed here')]),
        # ... and a string goes to the enum
        ({"anyOf": [{"enum": ["exact", "any"]}, {"type": "object"}]}, "exactt",
         [([], '"exactt" is not one of ["exact", "any"]')]),
        # nested: descends again
        ({"anyOf": [{"type": "null"}, {"type": "array", "items": ARRAY_OR_OBJECT}]},
         [["a"], {"k": 2}], [([1, "k"], '2 is not of type "string"')]),
        # an integer branch with a bound: the bound is the problem, not the type
        ({"anyOf": [{"type": "array"}, {"type": "integer", "minimum": 0}]}, -3,
         [([], "-3 is less than the minimum of 0")]),
    ],
)
def test_the_branch_of_the_values_type_is_reported(schema, instance, expected):
    assert sorted(_reported(schema, instance)) == expected


@pytest.mark.parametrize(
    ("doc", "expected"),
    [
        ({"artifacts": ["a", 1]}, ['$.artifacts[1]: 1 is not of type "string", "object"']),
        ({"artifacts": {"x": 5}}, ['$.artifacts.x: 5 is not of type "string", "object"']),
        ({"artifacts": [{"path": 5}]}, ['$.artifacts[0].path: 5 is not of type "string", "null"']),
        ({"tool_calls": "abc"},
         ['$.tool_calls: "abc" is not of type "array", "object", "integer", "null"']),
        ({"tool_calls": -2}, ["$.tool_calls: -2 is less than the minimum of 0"]),
    ],
)
def test_trace_messages(doc, expected):
    assert [str(v) for v in aau_schemas.iter_violations("trace", doc)] == expected


def test_an_object_of_tool_calls_is_a_valid_trace():
    assert aau_schemas.is_valid("trace", {"tool_calls": {"a": 1}})


@pytest.mark.parametrize(
    ("matcher", "expected"),
    [
        ({"tolerance": -1}, ".days.tolerance: -1 is less than the minimum of 0"),
        ({"tolerance": 0.1, "bogus": 1}, '.days: property "bogus" is not allowed here'),
        ("exactt", '.days: "exactt" is not one of ["exact", "verbatim", "case_insensitive", "any"]'),
    ],
)
def test_suite_v2_matcher_messages(matcher, expected):
    suite = json.loads((EXAMPLES / "suites/library-desk-tool-calls.json").read_text("utf-8"))
    suite = copy.deepcopy(suite)
    suite["cases"][0]["expected"]["tool_call_match"]["matchers"] = {"renew_loan": {"days": matcher}}
    [violation] = aau_schemas.iter_violations("suite-v2", suite)
    assert str(violation) == "$.cases[0].expected.tool_call_match.matchers.renew_loan" + expected
