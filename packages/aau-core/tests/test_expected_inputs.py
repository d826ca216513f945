"""Junk given to any public tool-call function gives ToolCallFormatError with a path, nothing else."""

from __future__ import annotations

import itertools

import pytest
from aau_core import (
    ToolCallFormatError,
    calls_from_bfcl,
    check_expected_calls,
    example_calls,
    match_tool_calls,
    normalize_tool_calls,
)
from aau_core._tool_calls._expected import check_matchers, functions_by_name
from aau_core._tool_calls._matching import call_mismatches, standardize_string, value_matches

JUNK = [None, "x", 5, 2.5, True, [], {}, [None], ["x"], [{}], [{"arguments": {}}],
        [{"name": "f", "arguments": []}], [{"name": "f", "arguments": "{}"}],
        [{"name": "", "arguments": {}}], [{"name": 3}], {"f": 1}, {"f": {"a": 1}},
        {"f": {"a": "exactt"}}, {"f": {"a": {"tolerance": -1}}}, {"f": {"a": {"bogus": 1}}},
        [{"name": "f", "arguments": {"a": []}}], [{"name": "f", "arguments": {"a": "x"}}],
        [{"name": "f", "arguments": {"a": [{"k": 1}]}}], [{"name": "f", "parameters": []}],
        [{"name": "f", "parameters": {"properties": {"a": {"type": "strng"}}}}],
        [{"name": "f", "parameters": {"properties": {"a": 1}}}],
        [{"name": "f", "parameters": {"required": "a"}}], [{"f": []}], [{"f": {"a": 3}}],
        {"name": "f"}, {"name": "f", "arguments": {"a": ["x"]}}, object()]

GOOD_EXPECTED = [{"name": "f", "arguments": {"a": ["x", ""]}}]
GOOD_ACTUAL = [{"name": "f", "arguments": {"a": "x"}}]


def _only_documented_errors(fn, *args, **kwargs):
    try:
        fn(*args, **kwargs)
    except ToolCallFormatError as err:
        assert err.path and str(err).startswith(err.path)


def _junk_id(junk) -> str:
    # repr of a bare object() holds its address: ids must be the same in every process (xdist)
    return "object()" if type(junk) is object else repr(junk)


@pytest.mark.parametrize("junk", JUNK, ids=_junk_id)
def test_junk_in_any_position_gives_tool_call_format_error(junk):
    _only_documented_errors(match_tool_calls, junk, GOOD_ACTUAL)
    _only_documented_errors(match_tool_calls, GOOD_EXPECTED, junk)
    _only_documented_errors(match_tool_calls, GOOD_EXPECTED, GOOD_ACTUAL, matchers=junk)
    _only_documented_errors(match_tool_calls, GOOD_EXPECTED, GOOD_ACTUAL, functions=junk)
    _only_documented_errors(match_tool_calls, GOOD_EXPECTED, GOOD_ACTUAL, mode=junk)
    _only_documented_errors(call_mismatches, junk, GOOD_ACTUAL[0])
    _only_documented_errors(call_mismatches, GOOD_EXPECTED[0], junk)
    _only_documented_errors(call_mismatches, GOOD_EXPECTED[0], GOOD_ACTUAL[0], matchers=junk)
    _only_documented_errors(call_mismatches, GOOD_EXPECTED[0], GOOD_ACTUAL[0], function=junk)
    for fn in (normalize_tool_calls, check_expected_calls, check_matchers, functions_by_name,
               calls_from_bfcl, example_calls, standardize_string):
        _only_documented_errors(fn, junk)
    _only_documented_errors(value_matches, "x", junk)
    _only_documented_errors(value_matches, junk, "x")
    _only_documented_errors(value_matches, "x", "x", junk)


@pytest.mark.parametrize(("actual", "path"), [
    ([{"arguments": {}}], "actual[0].name"),
    ("x", "actual"),
    ([{"name": "f", "arguments": []}], "actual[0].arguments"),
    (None, "actual"),
])
def test_match_tool_calls_names_the_path(actual, path):
    with pytest.raises(ToolCallFormatError) as info:
        match_tool_calls(GOOD_EXPECTED, actual)
    assert info.value.path == path


def test_unknown_type_word_is_refused():
    with pytest.raises(ToolCallFormatError, match=r"functions\[0\]\.parameters\.properties\.a\.type"
                       r": unknown type 'strng'"):
        match_tool_calls(GOOD_EXPECTED, GOOD_ACTUAL, functions=[
            {"name": "f", "parameters": {"properties": {"a": {"type": "strng"}}}}])


@pytest.mark.parametrize(("expected", "actual", "mode", "reason"), [
    ([{"name": "weather", "arguments": {}}], [{"name": "time", "arguments": {}}], "strict",
     "call #0 'time': expected function 'weather'"),
    ([{"name": "f", "arguments": {"a": [""]}}], [{"name": "f", "arguments": {"a": ""}}], "strict",
     "call #0 'f': argument 'a': got '', but it must be left out (its only acceptable value is \"\")"),
    ([{"name": "f", "arguments": {"a": ["x", ""]}}], [{"name": "f", "arguments": {"a": "y"}}],
     "strict", "call #0 'f': argument 'a': got 'y', allowed ['x'] or left out"),
    ([{"name": "f", "arguments": {"a": ["x"]}}], [{"name": "f", "arguments": {"a": "y"}}],
     "unordered", "expected call #0 'f' was not made; closest: actual call #0: argument 'a': "
     "got 'y', allowed ['x']"),
    ([{"name": "f", "arguments": {}}], [{"name": "f", "arguments": {}}, {"name": "g"}],
     "subset", "actual call #1 'g' matches no expected call left (extra call)"),
])
def test_reason_texts_are_unambiguous(expected, actual, mode, reason):
    assert reason in match_tool_calls(expected, actual, mode=mode).reasons


def test_every_junk_pair_of_expected_and_actual():
    for expected, actual in itertools.product(JUNK[:12], repeat=2):
        _only_documented_errors(match_tool_calls, expected, actual)
