"""Suite v2 cases that contradict themselves are refused at load; every case that loads can pass.

The property: for any suite that loads, the mock adapter's answer (``example_calls``) matches its
own case. Random cases are drawn from a small vocabulary of names, types and values, so that
contradictions (a required argument no call gives, a value of the wrong type, an undeclared
argument, an unused or misspelt definition, an unknown type word) come up often.
"""

from __future__ import annotations

import copy
import json
import random
from pathlib import Path

import pytest
from aau_adapters import MockAdapter, suite_from_document
from aau_adapters._scoring import match_case_tool_calls
from aau_core import InvalidDocumentError

SUITE = Path(__file__).resolve().parents[3] / "examples" / "suites" / "library-desk-tool-calls.json"


def _base() -> dict:
    return json.loads(SUITE.read_text(encoding="utf-8"))


def _mutated(edit) -> dict:
    doc = copy.deepcopy(_base())
    edit(doc["cases"][0]["expected"])
    return doc


def _functions(expected: dict) -> list:
    return expected["tool_call_match"]["functions"]


@pytest.mark.parametrize(("edit", "path", "words"), [
    (lambda e: _functions(e)[0]["parameters"].update(required=["card_id", "nope"]),
     "$.cases[0].expected.tool_call_match.functions[0].parameters.required[1]",
     "'nope' is required, but expected call #0 'renew_loan' gives it no value"),
    (lambda e: _functions(e)[0]["parameters"]["properties"].update(card_id={"type": "integer"}),
     "$.cases[0].expected.tool_calls[0].arguments.card_id[0]",
     "'C-1042' can never match the declared type (expected type integer, got string)"),
    (lambda e: _functions(e).append({"name": "wether"}),
     "$.cases[0].expected.tool_call_match.functions[1].name",
     "function 'wether' is defined but no expected call uses it (a misspelt name?)"),
    (lambda e: _functions(e)[0]["parameters"]["properties"].update(card_id={"type": "strng"}),
     "$.cases[0].expected.tool_call_match.functions[0].parameters.properties.card_id.type",
     "unknown type 'strng'"),
    (lambda e: e["tool_calls"][0]["arguments"].update(extra=["x"]),
     "$.cases[0].expected.tool_calls[0].arguments.extra",
     "'renew_loan' declares no parameter 'extra'"),
])
def test_contradictions_are_refused_with_file_and_path(edit, path, words):
    with pytest.raises(InvalidDocumentError) as info:
        suite_from_document(_mutated(edit), source="s.json")
    assert f"s.json: {path}: " in str(info.value) and words in str(info.value)


NAMES = ["f", "g"]
ARGS = ["a", "b", "c"]
TYPES = ["string", "integer", "number", "boolean", "array", "any", "strng"]
VALUES = ["", "x", 1, 2.5, True, None, [1], {"k": ["v"]}]


def _random_case(rng: random.Random, i: int) -> dict:
    calls = [{"name": rng.choice(NAMES),
              "arguments": {a: rng.sample(VALUES, rng.randint(1, 2))
                            for a in rng.sample(ARGS, rng.randint(0, 2))}}
             for _ in range(rng.randint(0, 2))]
    expected: dict = {"tool_calls": calls,
                      "tool_call_match": {"mode": rng.choice(["strict", "unordered", "subset",
                                                              "superset"])}}
    if rng.random() < 0.8:
        functions = []
        for name in rng.sample(NAMES, rng.randint(1, 2)):
            props = {a: {"type": rng.choice(TYPES)} for a in rng.sample(ARGS, rng.randint(0, 3))}
            functions.append({"name": name, "parameters": {
                "type": "object", "properties": props,
                "required": rng.sample(sorted(props), rng.randint(0, len(props)))}})
        expected["tool_call_match"]["functions"] = functions
    return {"scenario_id": f"c{i}", "input": {}, "expected": expected}


def test_every_case_that_loads_is_passed_by_the_mock_answer():
    rng = random.Random(20261130)
    loaded = refused = 0
    for trial in range(3000):
        doc = _base()
        doc["cases"] = [_random_case(rng, i) for i in range(2)]
        try:
            suite = suite_from_document(doc, source=f"trial-{trial}")
        except InvalidDocumentError:
            refused += 1
            continue
        loaded += 1
        adapter = MockAdapter()
        for case in suite.cases:
            answer = adapter.invoke({"input": case.input}, case)
            match = match_case_tool_calls(case, answer.response)
            assert match.matched, (json.dumps(case.expected), match.reasons)
    assert loaded > 100 and refused > 100
