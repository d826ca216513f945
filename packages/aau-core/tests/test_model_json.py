"""The one strict decoder of model-side JSON (aau_core._files._model_json): every rule, exactly."""

from __future__ import annotations

import pytest
from aau_core._files._model_json import (
    DecodedJson,
    ModelJsonError,
    decode_arguments,
    decode_model_json,
    decode_value_at,
)


@pytest.mark.parametrize(("text", "reason"), [
    ('{"city": "Paris", "city": "Rome"}', 'duplicate key "city"'),
    ('{"n": NaN}', "$.n: NaN is not allowed (JSON has no NaN or Infinity)"),
    ('{"n": Infinity}', "$.n: Infinity is not allowed (JSON has no NaN or Infinity)"),
    ('{"n": [-Infinity]}', "$.n[0]: -Infinity is not allowed (JSON has no NaN or Infinity)"),
    ('{"n": 1e999}', "$.n: number 1e999 is too large (overflows to infinity)"),
    ('{"a": {"b": 1, "b": 2}}', '$.a: duplicate key "b"'),
    ('{"q": 1} x', "text after the JSON value at character 8: ' x'"),
    ('{"q": 1}"" x', "text after the JSON value at character 8: '\"\" x'"),
    ('{"q": 1}{"r": 2}', "text after the JSON value at character 8: '{\"r\": 2}'"),
    ('[1]""', "text after the JSON value at character 3: '\"\"'"),  # only an object recovers
    ('{"q": 1', "not JSON at character 7 (Expecting ',' delimiter)"),
    ("  ", "empty (no JSON value)"),
    ("[" * 101 + "]" * 101, "$" + "[0]" * 100 + ": nested deeper than 100 levels"),
])
def test_refused_with_its_reason(text: str, reason: str) -> None:
    with pytest.raises(ModelJsonError) as info:
        decode_model_json(text)
    assert info.value.reason == reason and str(info.value) == reason


def test_clean_json_and_surrounding_whitespace() -> None:
    assert decode_model_json(' {"city": "Paris", "n": 1.5e3}\n') == DecodedJson(
        {"city": "Paris", "n": 1500.0})
    assert decode_model_json("[1, 2]") == DecodedJson([1, 2])


@pytest.mark.parametrize("tail", ['""', '"', ' " "\n', '"""'])
def test_the_one_recovery_stray_quotes_after_an_object(tail: str) -> None:
    decoded = decode_model_json('{"q": 1}' + tail)
    assert decoded.value == {"q": 1}
    assert decoded.recovered == f"dropped stray {tail.strip()!r} after the object"


def test_arguments_empty_is_no_arguments_and_a_non_object_is_refused() -> None:
    assert decode_arguments("") == decode_arguments(" \n") == DecodedJson({})
    assert decode_arguments('{"q": 1}""').recovered == "dropped stray '\"\"' after the object"
    with pytest.raises(ModelJsonError, match=r"^arguments are not a JSON object: '\[1\]'$"):
        decode_arguments("[1]")


def test_scanning_form_leaves_the_rest() -> None:
    text = 'x {"note": "use ``` here"}\n```'
    value, end = decode_value_at(text, 1)
    assert value == {"note": "use ``` here"} and text[end:] == "\n```"
    with pytest.raises(ModelJsonError, match='^duplicate key "a"$'):
        decode_value_at('{"a": 1, "a": 1} tail', 0)
