"""Violation messages show values as JSON literals, never as Python reprs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aau_schemas
import pytest
from aau_schemas._messages import violation_message
from jsonschema import Draft202012Validator

SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def _messages(schema: dict, instance: object) -> list[str]:
    validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
    return [violation_message(e) for e in validator.iter_errors(instance)]


@pytest.mark.parametrize(
    ("schema", "instance", "expected"),
    [
        ({"required": ["outcome"]}, {}, '"outcome" is a required property'),
        ({"required": ["a", "b"]}, {"a": 1}, '"b" is a required property'),
        ({"dependentRequired": {"m": ["t"]}}, {"m": 1},
         '"t" is required when "m" is present'),
        ({"const": False}, True, "false was expected"),
        ({"const": "v/1.0"}, "v/2", '"v/1.0" was expected'),
        ({"enum": ["x", None]}, "y", '"y" is not one of ["x", null]'),
        ({"type": "boolean"}, None, 'null is not of type "boolean"'),
        ({"type": "boolean"}, "yes", '"yes" is not of type "boolean"'),
        ({"type": ["string", "null"]}, 1, '1 is not of type "string", "null"'),
        ({"type": "object"}, [True], '[true] is not of type "object"'),
        ({"properties": {"a": {}}, "additionalProperties": False}, {"a": 1, "b": 2},
         'property "b" is not allowed here'),
        ({"properties": {}, "patternProperties": {"^x-": {}}, "additionalProperties": False},
         {"x-ok": 1, "c": 1, "d": 2}, 'properties "c", "d" are not allowed here'),
        ({"properties": {"forbidden_actions": {}, "input": {}}, "additionalProperties": False},
         {"forbidden_action": []},
         'property "forbidden_action" is not allowed here; did you mean "forbidden_actions"?'),
        # a key already present is no suggestion; each misspelt key gets its own
        ({"properties": {"outcome": {}, "tool_calls": {}, "tool_call_match": {}},
          "additionalProperties": False}, {"outcome": "x", "outcomes": "y", "tool_call": []},
         'properties "outcomes", "tool_call" are not allowed here; did you mean "tool_calls" '
         'for "tool_call"?'),
        ({"minLength": 1}, "", '"" should be non-empty'),
        ({"minLength": 3}, "ab", '"ab" is shorter than 3 characters'),
        ({"maxLength": 1}, "ab", '"ab" is longer than 1 character'),
        ({"minItems": 1}, [], "[] should be non-empty"),
        ({"minItems": 2}, [None], "[null] has fewer than 2 items"),
        ({"maxItems": 1}, [1, 2], "[1, 2] has more than 1 item"),
        ({"minProperties": 1}, {}, "{} should be non-empty"),
        ({"maxProperties": 0}, {"a": False}, '{"a": false} should be empty'),
        ({"pattern": "^[a-z]+$"}, "A'b", '"A\'b" is not one or more lower-case letters'),
        ({"pattern": "(?<=a)b"}, "c", '"c" does not match "(?<=a)b"'),  # not said: shown
        ({"minimum": 1}, 0, "0 is less than the minimum of 1"),
        ({"maximum": 1}, 1.5, "1.5 is greater than the maximum of 1"),
        ({"exclusiveMinimum": 0}, 0, "0 is less than or equal to the exclusive minimum of 0"),
        ({"uniqueItems": True}, ["a", "a"], '["a", "a"] has repeated items'),
        ({"format": "date-time"}, "2026-02-30T00:00:00Z",
         '"2026-02-30T00:00:00Z" is not a valid "date-time"'),
        ({"not": {"required": ["url_host"]}}, {"url_host": "h"}, '"url_host" is not allowed here'),
        ({"not": {"anyOf": [{"required": ["a"]}, {"required": ["b"]}]}}, {"a": 1, "b": None},
         '"a", "b" are not allowed here'),
        ({"propertyNames": {"pattern": "^[0-9]+$"}}, {"x": 1},
         'property name "x" is not one or more digits'),
        # no wording of our own: the library's message, its leading repr rewritten as JSON
        ({"oneOf": [{"type": "string"}, {"type": "integer"}]}, None,
         "null is not valid under any of the given schemas"),
        ({"multipleOf": 2}, 3, "3 is not a multiple of 2"),
    ],
)
def test_values_are_json_literals(schema, instance, expected):
    assert _messages(schema, instance) == [expected]


def test_long_values_are_cut_short():
    [message] = _messages({"type": "null"}, "x" * 500)
    assert message.startswith('"xxx') and message.endswith('..." is not of type "null"')
    assert len(message) < 120
    [message] = _messages({"type": "null"}, {"k": list(range(200))})
    assert message.startswith('{"k": [0, 1, 2') and " ... is not of type" in message


def test_unprintable_values_do_not_break_the_message():
    [message] = _messages({"type": "null"}, "\ud800")
    assert message == '"\\ud800" is not of type "null"'
    message.encode("utf-8")


def test_validate_reports_json_literals_one_line_each():
    doc = {"outcome": "", "submitted": None, "actions_attempted": [True]}
    with pytest.raises(aau_schemas.SchemaError) as info:
        aau_schemas.validate("adapter-response", doc, source="answer.json")
    assert str(info.value).splitlines() == [
        'answer.json: $.actions_attempted[0]: true is not of type "string"',
        'answer.json: $.outcome: "" should be non-empty',
        'answer.json: $.submitted: null is not of type "boolean"',
    ]
    with pytest.raises(aau_schemas.SchemaError) as info:
        aau_schemas.validate("adapter-response", {})
    assert [str(v) for v in info.value.violations] == ['$: "outcome" is a required property']


PYTHON_REPR = re.compile(r"\b(True|False|None)\b|(^|[\s(\[{,:])'")


def _schema_of_example(path: Path) -> str:
    """The ``$id`` of the schema file an example is for, named after it:
    ``private-receipt-*.json`` -> ``private-receipt.schema.json`` of the example's folder (a
    superseded minor's examples are checked against their own file, not the kind's newest)."""
    folder = path.parents[2]
    stems = sorted((p.name[: -len(".schema.json")] for p in folder.glob("*.schema.json")),
                   key=len, reverse=True)
    stem = next(s for s in stems if path.name.startswith(f"{s}-"))
    return f"{aau_schemas.SCHEMA_BASE_URI}{folder.relative_to(SCHEMAS).as_posix()}/{stem}.schema.json"


def _invalid_examples() -> list[Path]:
    return sorted(SCHEMAS.glob("*/v*/examples/invalid/*.json"))


@pytest.mark.parametrize("path", _invalid_examples(), ids=lambda p: p.name)
def test_no_python_repr_in_any_message_for_the_invalid_examples(path):
    doc = json.loads(path.read_text(encoding="utf-8"))
    schema_id = _schema_of_example(path)
    for violation in aau_schemas.iter_violations(schema_id, doc):
        assert "\n" not in violation.message
        assert not PYTHON_REPR.search(violation.message), violation


def test_nearest_key_is_the_most_similar_known_key_above_the_cutoff():
    case_keys = ["expected", "forbidden_actions", "input", "scenario_id"]
    assert aau_schemas.nearest_key("forbidden_action", case_keys) == "forbidden_actions"
    assert aau_schemas.nearest_key("scenarioid", case_keys) == "scenario_id"
    assert aau_schemas.nearest_key("notes", case_keys) is None
    # "judge" is 0.625 like "judge_score": above the default cutoff, below a stricter one
    assert aau_schemas.nearest_key("judge", ["judge_score"]) == "judge_score"
    assert aau_schemas.nearest_key("judge", ["judge_score"], cutoff=0.8) is None
    assert aau_schemas.NEAREST_KEY_CUTOFF == 0.6
