"""RFC 8785 canonical JSON, digests, legacy 1.x hashing conventions and JSON-path rendering."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import aau_schemas
import pytest

COMPAT = Path(__file__).resolve().parents[4] / "shared" / "compat" / "aau-1.6" / "evaluate"
needs_shared = pytest.mark.skipif(
    not COMPAT.is_dir(), reason="../shared not present (a user's clone has none); CI has it"
)


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (1.0, b"1"),
        (1e20, b"100000000000000000000"),
        (1e21, b"1e+21"),
        (1e-7, b"1e-7"),
        (-0.0, b"0"),
        (0.1 + 0.2, b"0.30000000000000004"),
        ("é😀\u2028", "\"é😀\u2028\"".encode()),
        ("\x7f\x1f", b'"\x7f\\u001f"'),
        ({"b": 1, "a": [True, None]}, b'{"a":[true,null],"b":1}'),
        # UTF-16 code-unit order: U+1F600 (surrogates D83D..) sorts before U+E000
        ({"\ue000": 1, "😀": 2}, '{"😀":2,"\ue000":1}'.encode()),
    ],
)
def test_canonical_json_matches_rfc8785(value, expected):
    assert aau_schemas.canonical_json(value) == expected


@pytest.mark.parametrize("bad", [float("nan"), float("inf"), 2**53 + 1, {1: "a"}, "\ud800"])
def test_canonical_json_refuses_what_jcs_cannot_represent(bad):
    with pytest.raises(aau_schemas.CanonicalizationError):
        aau_schemas.canonical_json(bad)


@pytest.mark.parametrize(("bad", "path", "reason"), [
    ({"cases": [{"input": {"ok": 1.5, "n": 2**53}}]}, "$.cases[0].input.n", "an integer beyond"),
    ({"a": [0, -(2**53)], "b": 2**60}, "$.a[1]", "an integer beyond"),
    ({"x": {"y z": [float("nan")]}}, "$.x['y z'][0]", "NaN or Infinity"),
    ({"k": {"\ud800": 1}}, "$.k", "a key that is not a string of Unicode scalars"),
    ([{"s": "ok"}, {"s": "\udfff"}], "$[1].s", "a string with a lone surrogate"),
    (2**53, "$", "an integer beyond"),
])
@pytest.mark.parametrize("write", ["canonical_json", "canonical_digest"])
def test_a_refusal_names_the_json_path_of_the_first_bad_value(bad, path, reason, write):
    with pytest.raises(aau_schemas.CanonicalizationError) as info:
        getattr(aau_schemas, write)(bad)
    assert info.value.path == path
    assert info.value.reason.startswith(reason)
    assert str(info.value).startswith(f"cannot canonicalise the value at {path}: {reason}")


def test_canonical_digest_is_sha256_of_canonical_bytes():
    doc = {"z": 1.0, "a": "x"}
    want = "sha256:" + hashlib.sha256(b'{"a":"x","z":1}').hexdigest()
    assert aau_schemas.canonical_digest(doc) == want
    assert aau_schemas.sha256_hex(b"") == hashlib.sha256(b"").hexdigest()


def test_legacy_suite_hash_is_ascii_compact_sorted_with_newline():
    suite = {"b": "é", "a": [1, 2]}
    assert aau_schemas.legacy_suite_bytes(suite) == b'{"a":[1,2],"b":"\\u00e9"}\n'
    assert aau_schemas.legacy_suite_sha256(suite) == hashlib.sha256(
        b'{"a":[1,2],"b":"\\u00e9"}\n').hexdigest()


def test_legacy_render_and_release_digest():
    assert aau_schemas.legacy_render_json({"b": 1, "a": "é"}) == '{\n  "a": "\\u00e9",\n  "b": 1\n}\n'
    assert aau_schemas.legacy_release_digest({"b": 1, "a": "é"}) == hashlib.sha256(
        '{"a":"é","b":1}'.encode()).hexdigest()
    assert aau_schemas.legacy_release_render({"b": 1, "a": "é"}) == '{\n  "b": 1,\n  "a": "é"\n}\n'


@needs_shared
@pytest.mark.parametrize(
    ("suite", "receipt"),
    [
        ("byo-agent-suite.json", "byo-agent-receipt.command.json"),
        ("starter-suite.json", "public-receipt.command.json"),
        ("starter-suite.json", "first-receipt.mock.json"),
    ],
)
def test_legacy_suite_sha256_reproduces_real_aau_16_receipts(suite, receipt):
    doc = json.loads((COMPAT / suite).read_text(encoding="utf-8"))
    want = json.loads((COMPAT / receipt).read_text(encoding="utf-8"))["suite_sha256"]
    assert aau_schemas.legacy_suite_sha256(doc) == want


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        ([], "$"),
        (["cases", 3, "input"], "$.cases[3].input"),
        (["a b", "it's"], "$['a b']['it\\'s']"),
        (["_x1"], "$._x1"),
        (["1abc"], "$['1abc']"),
    ],
)
def test_json_path(parts, expected):
    assert aau_schemas.json_path(parts) == expected


@pytest.mark.parametrize(
    "doc",
    [
        {},
        [],
        {"cases": []},
        {"b": {"y": [1, {"z": "é", "a": None}], "x": {}}, "a": [[], [1.5, True]], "c": "\u2028"},
        {"cases": [{"scenario_id": "s", "input": {"deep": {"er": [1, 2, {"k": "v"}]}}}] * 3},
        "just a string",
    ],
)
def test_streamed_legacy_suite_hash_equals_the_one_shot_bytes(doc):
    assert aau_schemas.legacy_suite_sha256(doc) == hashlib.sha256(
        aau_schemas.legacy_suite_bytes(doc)).hexdigest()


def test_fragment_ids_validate_against_the_subschema():
    rate = aau_schemas.SCHEMA_BASE_URI + "common/v1/defs.schema.json#/$defs/rate"
    assert aau_schemas.is_valid(rate, 0.5)
    assert not aau_schemas.is_valid(rate, "not a rate")
    assert not aau_schemas.is_valid(rate, 1.5)
    with pytest.raises(aau_schemas.SchemaError):
        aau_schemas.validate(rate, 2)


def test_violations_come_in_document_order_with_numeric_indexes():
    suite = {"suite_version": "aau-byo-agent-suite/1.0", "suite_id": "s", "sharing": {
        "classification": "synthetic", "human_review_complete": True,
        "contains_personally_identifiable_information": False,
        "contains_procurement_sensitive_information": False,
        "contains_controlled_unclassified_information": False,
        "contains_classified_information": False, "contains_secrets_or_credentials": False},
        "cases": [{"scenario_id": "ok", "input": {}, "expected": {"outcome": "x"}}] * 12}
    suite["cases"] = [dict(c) for c in suite["cases"]]
    suite["cases"][2]["input"] = 1
    suite["cases"][10]["input"] = 1
    paths = [v.path for v in aau_schemas.iter_violations("suite", suite)]
    assert paths == ["$.cases[2].input", "$.cases[10].input"]


def test_schema_returns_a_private_copy():
    first = aau_schemas.schema("suite")
    first["title"] = "mutated"
    assert aau_schemas.schema("suite")["title"] != "mutated"


def test_the_fast_validator_never_fetches_a_foreign_ref():
    import jsonschema_rs
    from aau_schemas import _validate

    with pytest.raises(Exception) as info:  # noqa: B017 - the error type is jsonschema-rs's
        jsonschema_rs.validator_for({"$ref": "https://example.com/x.json"},
                                    registry=_validate._rs_registry())
    assert "refusing to fetch" in str(info.value) or "example.com" in str(info.value)


def _random_value(rng, depth: int = 0):
    chars = ["a", "Z", "é", "\xff", "\u2028", "\ue000", "\uffff", "\U0001f600", "\x00", "\x1f",
             '"', "\\", "\n", "\t", "\x7f", "\ud800"]

    def text() -> str:
        return "".join(rng.choice(chars) for _ in range(rng.randint(0, 4)))

    roll = rng.random()
    if depth > 3 or roll < 0.3:
        return rng.choice([None, True, False, 0, -1, 17, 2**53 - 1, -(2**53 - 1), 2**53, 1.0,
                           0.5, 1e21, 1e-7, -0.0, text(), text()])
    if roll < 0.65:
        return {text(): _random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randint(0, 4))]


def test_the_c_encoder_fast_path_writes_the_rfc8785_bytes_or_leaves_it_to_rfc8785():
    """canonical_json / canonical_digest take the C JSON encoder for plain values (safe integers,
    floats integral below 2**53 or of magnitude >= 1e-4, no astral key): the bytes (and refusals)
    equal the rfc8785 package's."""
    import random

    import rfc8785
    from aau_schemas._canonical import PLAIN, _is_plain
    from aau_schemas._canonical import PLAIN_WITH_INTEGRAL_FLOATS as INTEGRAL

    rng = random.Random(1)
    plain = 0
    for _ in range(5000):
        value = _random_value(rng)
        try:
            expected = rfc8785.dumps(value)
        except (rfc8785.CanonicalizationError, TypeError, ValueError):
            with pytest.raises(aau_schemas.CanonicalizationError):
                aau_schemas.canonical_json(value)
            with pytest.raises(aau_schemas.CanonicalizationError):
                aau_schemas.canonical_digest(value)
            continue
        assert aau_schemas.canonical_json(value) == expected, value
        assert aau_schemas.canonical_digest(value) == (
            "sha256:" + hashlib.sha256(expected).hexdigest())
        plain += _is_plain(value)
    assert plain > 1000  # the fast path ran, not only the fallback
    big = {"cases": [{"id": f"c-{i}", "n": i, "tags": ["x", "é"]} for i in range(1500)],
           "a": [[1, 2]] * 600, "b": {"c": [None] * 513}, "t": ({"k": (1, 2)},)}
    assert _is_plain(big)
    assert aau_schemas.canonical_json(big) == rfc8785.dumps(big)  # arrays cut 512 items a piece
    assert not _is_plain({"\U0001f600": 1, "\ue000": 2})  # UTF-16 order: rfc8785 decides
    assert not _is_plain([2**53]) and not _is_plain([2.0**53]) and not _is_plain([1e-5])
    assert not _is_plain([float("nan")]) and not _is_plain([float("inf")])
    assert _is_plain([0.5, 1e-4, -123.25]) == PLAIN and _is_plain({"a": [1.0]}) == INTEGRAL
    receipt = {"rows": [{"latency_s": x, "n": 3, "rate": 1.0, "mean": -0.0} for x in
                        (0.0, 0.25, 1e-4, 0.123456789, 2.0**52 + 0.5, 1e15, 9007199254740991.0)]
               * 300}
    assert _is_plain(receipt) == INTEGRAL
    assert aau_schemas.canonical_json(receipt) == rfc8785.dumps(receipt)
    assert b'"rate":1}' in aau_schemas.canonical_json(receipt)
    assert receipt["rows"][0]["rate"] == 1.0 and type(receipt["rows"][0]["rate"]) is float
    edges = [rng.choice([-1, 1]) * rng.uniform(0, 1) * 10.0 ** rng.randint(-8, 22)
             for _ in range(20000)] + [float(i) for i in range(-50, 50)] + [
             1e-4, 9.999999999999999e-05, 1e16, 1e21, 2.0**53 - 1, 5e-324]
    for value in edges:
        assert aau_schemas.canonical_json([value]) == rfc8785.dumps([value]), value
