"""Declared defaults (rule 7 of ``aau_core._tool_calls._matching``): an argument left out and the
same argument given its declared JSON Schema ``default`` get the same verdict, whichever way the
expected call was written."""

from __future__ import annotations

from typing import Any

import pytest
from aau_core import match_tool_calls
from aau_core._tool_calls._matching import call_mismatches

WEATHER_FN = {"name": "get_weather",
              "parameters": {"type": "object",
                             "properties": {"city": {"type": "string"},
                                            "unit": {"type": "string", "default": "celsius"},
                                            "days": {"type": "integer", "default": 1}},
                             "required": ["city"]}}


def call(**arguments: Any) -> dict[str, Any]:
    return {"name": "get_weather", "arguments": arguments}


# expected written four ways x actual written two ways: same verdict within each row
@pytest.mark.parametrize("expected", [
    call(city=["Oslo"]),                      # unit not named: left out
    call(city=["Oslo"], unit=[""]),           # must be left out
    call(city=["Oslo"], unit=["celsius"]),    # the default, explicitly
    call(city=["Oslo"], unit=["celsius", ""]),
])
@pytest.mark.parametrize("actual", [call(city="Oslo"), call(city="Oslo", unit="celsius"),
                                    call(city="Oslo", unit="Celsius")])
def test_left_out_and_the_declared_default_are_alike(expected: dict[str, Any],
                                                     actual: dict[str, Any]) -> None:
    assert call_mismatches(expected, actual, function=WEATHER_FN) == []


@pytest.mark.parametrize(("expected", "reason"), [
    (call(city=["Oslo"]), "unexpected argument 'unit' (got 'kelvin')"),
    (call(city=["Oslo"], unit=["celsius"]), "argument 'unit': got 'kelvin', allowed ['celsius']"),
    (call(city=["Oslo"], unit=["celsius", ""]),
     "argument 'unit': got 'kelvin', allowed ['celsius'] or left out"),
])
def test_a_value_other_than_the_default_still_differs(expected: dict[str, Any],
                                                      reason: str) -> None:
    assert call_mismatches(expected, call(city="Oslo", unit="kelvin"),
                           function=WEATHER_FN) == [reason]


def test_an_expected_non_default_value_is_not_met_by_leaving_it_out() -> None:
    assert call_mismatches(call(city=["Oslo"], unit=["fahrenheit"]), call(city="Oslo"),
                           function=WEATHER_FN) == [
        "missing argument 'unit' (allowed ['fahrenheit']; not optional)"]


def test_integer_default_and_the_verbatim_matcher() -> None:
    expected = call(city=["Oslo"], days=[1])
    assert call_mismatches(expected, call(city="Oslo"), function=WEATHER_FN) == []
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", days=1),
                           function=WEATHER_FN) == []
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", days=2),
                           function=WEATHER_FN) == ["unexpected argument 'days' (got 2)"]
    # under verbatim, 'Celsius' is not the default 'celsius': it stays an unexpected argument
    matchers = {"get_weather": {"unit": "verbatim"}}
    assert call_mismatches(call(city=["Oslo"], unit=["celsius"]), call(city="Oslo"),
                           matchers=matchers, function=WEATHER_FN) == []
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", unit="Celsius"),
                           matchers=matchers, function=WEATHER_FN) == [
        "unexpected argument 'unit' (got 'Celsius')"]


def test_a_required_parameter_with_a_default_must_still_be_given() -> None:
    fn = {"name": "get_weather", "parameters": {
        "properties": {"city": {"type": "string", "default": "Oslo"}}, "required": ["city"]}}
    assert call_mismatches(call(city=["Oslo"]), call(), function=fn) == [
        "missing required argument 'city'"]


def test_without_a_definition_there_is_no_default() -> None:
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", unit="celsius")) == [
        "unexpected argument 'unit' (got 'celsius')"]


def test_object_default_compares_by_plain_equality() -> None:
    fn = {"name": "get_weather", "parameters": {"properties": {
        "city": {"type": "string"}, "opts": {"type": "object", "default": {"metric": True}}}}}
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", opts={"metric": True}),
                           function=fn) == []
    assert call_mismatches(call(city=["Oslo"]), call(city="Oslo", opts={"metric": False}),
                           function=fn) == ["unexpected argument 'opts' (got {'metric': False})"]


def test_match_tool_calls_applies_defaults_in_every_mode() -> None:
    expected = [call(city=["Oslo"], unit=["celsius"]), call(city=["Rome"])]
    actual = [call(city="Rome", unit="celsius"), call(city="Oslo")]
    for mode in ("unordered", "subset", "superset"):
        assert match_tool_calls(expected, actual, mode=mode, functions=[WEATHER_FN]).matched
    assert not match_tool_calls(expected, actual, mode="strict", functions=[WEATHER_FN]).matched


# BFCL's own shape (type "dict"), as `aau import bfcl` keeps it: opts.lang declares "en"
NESTED_FN = {"name": "get_weather",
             "parameters": {"type": "dict",
                            "properties": {
                                "city": {"type": "string"},
                                "opts": {"type": "dict",
                                         "properties": {"lang": {"type": "string",
                                                                 "default": "en"},
                                                        "units": {"type": "dict", "properties": {
                                                            "temp": {"type": "string",
                                                                     "default": "celsius"}}}}},
                                "stops": {"type": "array",
                                          "items": {"type": "dict", "properties": {
                                              "wait": {"type": "integer", "default": 0}}}}},
                            "required": ["city"]}}


@pytest.mark.parametrize("expected", [
    call(city=["Oslo"], opts=[{"lang": ["en"]}]),      # BFCL simple_python_5's ground truth
    call(city=["Oslo"], opts=[{"lang": [""]}]),
    call(city=["Oslo"], opts=[{"lang": ["en", ""]}]),
    call(city=["Oslo"], opts=[{}]),
])
@pytest.mark.parametrize("opts", [{}, {"lang": "en"}, {"lang": "EN"}])
def test_nested_left_out_and_the_declared_default_are_alike(expected: dict[str, Any],
                                                            opts: dict[str, Any]) -> None:
    assert call_mismatches(expected, call(city="Oslo", opts=opts), function=NESTED_FN) == []


def test_nested_defaults_apply_at_every_depth_and_inside_arrays() -> None:
    deep = call(city=["Oslo"], opts=[{"units": [{"temp": ["celsius"]}]}])
    assert call_mismatches(deep, call(city="Oslo", opts={"units": {}}), function=NESTED_FN) == []
    assert call_mismatches(call(city=["Oslo"], opts=[{"units": [{}]}]),
                           call(city="Oslo", opts={"units": {"temp": "celsius"}}),
                           function=NESTED_FN) == []
    stops = call(city=["Oslo"], stops=[[{"wait": [0]}, {"wait": [5]}]])
    assert call_mismatches(stops, call(city="Oslo", stops=[{}, {"wait": 5}]),
                           function=NESTED_FN) == []
    assert call_mismatches(stops, call(city="Oslo", stops=[{}, {}]), function=NESTED_FN) == [
        "argument 'stops': got [{}, {}], allowed [[{'wait': [0]}, {'wait': [5]}]]"]


def test_a_nested_value_other_than_the_default_still_differs() -> None:
    assert call_mismatches(call(city=["Oslo"], opts=[{"lang": ["fr"]}]), call(city="Oslo", opts={}),
                           function=NESTED_FN) == [
        "argument 'opts': got {}, allowed [{'lang': ['fr']}]"]
    assert call_mismatches(call(city=["Oslo"], opts=[{}]), call(city="Oslo", opts={"lang": "fr"}),
                           function=NESTED_FN) == [
        "argument 'opts': got {'lang': 'fr'}, allowed [{}]"]


def test_without_a_definition_there_is_no_nested_default() -> None:
    assert call_mismatches(call(city=["Oslo"], opts=[{"lang": ["en"]}]),
                           call(city="Oslo", opts={})) == [
        "argument 'opts': got {}, allowed [{'lang': ['en']}]"]
