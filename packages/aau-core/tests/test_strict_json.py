"""Strict JSON reading: every forbidden input is an InputError naming the source and JSON path."""

from __future__ import annotations

import pytest
from aau_core import InputError, loads_strict, read_json_file


def test_plain_document_parses():
    assert loads_strict(b'{"a": [1, 2.5, "x", null, true]}') == {"a": [1, 2.5, "x", None, True]}


def test_utf8_bom_is_tolerated():
    assert loads_strict(b'\xef\xbb\xbf{"a": "\xc3\xa9"}') == {"a": "é"}
    assert loads_strict('\ufeff{"a": 1}') == {"a": 1}


@pytest.mark.parametrize(
    ("data", "path", "fragment"),
    [
        (b'{"a": NaN}', "$.a", "NaN"),
        (b'{"a": [1, Infinity]}', "$.a[1]", "Infinity"),
        (b'{"a": {"b": -Infinity}}', "$.a.b", "-Infinity"),
        (b'{"x": 1e400}', "$.x", "too large"),
        (b'{"x": [0, ' + b"9" * 5000 + b']}', "$.x[1]", "integer of 5,000 digits is too long"),
        (b'{"x": {"y": -' + b"1" * 4301 + b'}}', "$.x.y", "integer of 4,301 digits"),
        (b'{"cases": [{"id": 1, "id": 2}]}', "$.cases[0]", "duplicate key \"id\""),
        (b'{"s": "\\ud800"}', "$.s", "surrogate"),
        (b'{"a": 1', "$", "line 1"),
        (b'\xff\xfe{"a": 1}', "$", "UTF-8"),
        (b'{"a": "\xc3"}', "$", "UTF-8"),
    ],
)
def test_forbidden_input_names_source_and_path(data, path, fragment):
    with pytest.raises(InputError) as info:
        loads_strict(data, source="suite.json")
    err = info.value
    assert err.source == "suite.json"
    assert err.path == path
    assert fragment in str(err)
    assert str(err).startswith(f"suite.json: {path}: ")
    assert "\n" not in str(err)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[1, 2,]', 'trailing comma before "]" (line 1, column 6)'),
        ('{\n  "a": [\n    1,\n    2,\n  ],\n  "b": 1,\n}\n',
         'trailing comma before "]" (line 4, column 6)'),
        ('{"a": 1,\n\t \r\n}', 'trailing comma before "}" (line 1, column 8)'),
        ('{"a": 1, }', 'trailing comma before "}" (line 1, column 8)'),
        ("{'a': 1}", "property name in single quotes; JSON needs double quotes (line 1, column 2)"),
        ('{"a": \'x\'}', "string in single quotes; JSON needs double quotes (line 1, column 7)"),
        # not a trailing comma: the parser's own words
        ('[1,,2]', "Expecting value (line 1, column 4)"),
        ('{"a": 1', "Expecting ',' delimiter (line 1, column 8)"),
        ('[1, 2', "Expecting ',' delimiter (line 1, column 6)"),
    ],
)
def test_syntax_errors_say_what_to_fix(text, message):
    with pytest.raises(InputError) as info:
        loads_strict(text.encode(), source="suite.json")
    assert str(info.value) == f"suite.json: $: invalid JSON: {message}"


def test_a_trailing_comma_as_newer_pythons_report_it():
    """Python >= 3.13 reports the comma itself ("Illegal trailing comma ...")."""
    import json

    from aau_core._files._strict_json import _explain

    exc = json.JSONDecodeError("Illegal trailing comma before end of array", "[1, 2 , ]", 6)
    assert _explain(exc) == 'trailing comma before "]" (line 1, column 7)'


def test_depth_cap_reports_the_path_of_the_too_deep_container():
    doc = '{"a": ' + "[" * 5 + "]" * 5 + "}"
    with pytest.raises(InputError) as info:
        loads_strict(doc, max_depth=4)
    assert info.value.path == "$.a[0][0][0]"  # the 5th container: root counts as 1
    assert loads_strict(doc, max_depth=6) == {"a": [[[[[]]]]]}


@pytest.mark.parametrize("depth", [2_000, 200_000])
def test_very_deep_nesting_is_an_input_error_not_a_recursion_error(depth):
    with pytest.raises(InputError) as info:
        loads_strict("[" * depth + "]" * depth)
    assert "nested deeper" in str(info.value)


def test_read_json_file_size_cap_and_missing_file(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(b'{"a": "' + b"x" * 100 + b'"}')
    assert read_json_file(f, max_bytes=200)["a"] == "x" * 100
    with pytest.raises(InputError, match="over the 50-byte limit"):
        read_json_file(f, max_bytes=50)
    with pytest.raises(InputError, match="no such file"):
        read_json_file(tmp_path / "missing.json", max_bytes=10)
    with pytest.raises(InputError, match="not a regular file"):
        read_json_file(tmp_path, max_bytes=10)


def test_exact_size_limit_is_accepted(tmp_path):
    f = tmp_path / "s.json"
    f.write_bytes(b'{"a": 1}')
    assert read_json_file(f, max_bytes=len(b'{"a": 1}')) == {"a": 1}


def test_an_integer_at_the_conversion_limit_still_parses_everywhere():
    """The longest integer Python converts is a value; one digit more is refused, by the
    whole-document, scanning and marked parsers alike (never a bare ValueError)."""
    import sys

    from aau_core._files._strict_json import check_value, loads_marked, raw_decode_strict

    limit = sys.get_int_max_str_digits()
    assert limit > 0  # CPython's default (4,300); the refusal exists only under a limit
    longest = "7" * limit
    assert loads_strict(f'{{"n": -{longest}}}') == {"n": -int(longest)}
    too_long = longest + "7"
    assert raw_decode_strict(f'[{longest}] tail')[0] == [int(longest)]
    with pytest.raises(InputError, match=r"\$\[0\]: integer of"):
        raw_decode_strict(f"[{too_long}] tail", source="reply")
    marked = loads_marked(f'{{"a": 1, "b": {too_long}}}')
    with pytest.raises(InputError, match=r"\$\.b: integer of"):
        check_value(marked, source="tool input")
