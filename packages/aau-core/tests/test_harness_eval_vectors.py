"""HarnessEvaluator against PraisonAI 1.7.17's 42 reference vectors, and the schema-hash vectors.

Every vector runs: either our result equals 1.7.17's field by field, or the vector id is in
DIVERGENCES (docs/trace-gates.md lists the same ids) and the test asserts OUR value.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import HarnessEvaluator, TraceError, schema_hash
from aau_core._traces._trace import canonical_schema_text

VECTORS = SHARED / "vectors" / "praison-trace-gates.json"
EXTRA = SHARED / "vectors" / "praison-trace-gates-extra.json"
needs_shared = pytest.mark.skipif(not VECTORS.exists(), reason=SHARED_MISSING)

FIELDS = ("name", "passed", "score", "tool_call_count", "tool_calls_sufficient", "schema_hash",
          "schema_consistent", "artifacts_complete", "missing_artifacts", "judge_score",
          "judge_passed", "metadata")

# vector id -> the fields whose value is ours, not 1.7.17's ("raises": our exception message)
DIVERGENCES = {
    "float_tool_calls_crash": {"raises": "$.tool_calls: tool calls must be a list or an integer "
                                         "count, not number 2.0"},
    "string_tool_calls": {"raises": "$.tool_calls: tool calls must be a list or an integer "
                                    "count, not string 'abc'"},
    "required_artifact_unhashable_crash": {"raises": "required_artifacts[0]: a required artifact "
                                                     "must be a name (a string), not dict "
                                                     "{'path': 'a'}"},
    "string_artifacts_iterated": {"missing_artifacts": ["o"]},
    "required_artifacts_string": {"passed": False, "score": 0.75, "artifacts_complete": False,
                                  "missing_artifacts": ["out"],
                                  "metadata": {"required_artifacts": ["out"]}},
    "judge_nan_string": {"judge_score": None},
    "judge_inf_string": {"passed": False, "score": 0.75, "judge_score": None,
                         "judge_passed": False},
    "judge_out_of_range": {"passed": False, "score": 0.75, "judge_score": None,
                           "judge_passed": False},
}

# vector id -> our judge_error (every other vector's is None); 1.7.17 records none
JUDGE_ERRORS = {
    "judge_malformed_string": ("unparseable", "judge_score 'not-a-number' is not a number"),
    "judge_empty_string": ("unparseable", "judge_score '' is not a number"),
    "judge_list": ("unparseable", "judge_score array [] is not a number"),
    "judge_nan_string": ("not-finite", "judge_score 'nan' is not a finite number"),
    "judge_inf_string": ("not-finite", "judge_score 'inf' is not a finite number"),
    "judge_out_of_range": ("out-of-range",
                           "judge_score 42 is outside the judge's range [0, 10]"),
}


def _decode(value):
    """The vectors' conventions: {"$float": "nan"} and {"__int_keys__": {...}}."""
    if isinstance(value, dict):
        if set(value) == {"$float"}:
            return float(value["$float"])
        if set(value) == {"__int_keys__"}:
            return {int(k): _decode(v) for k, v in value["__int_keys__"].items()}
        return {k: _decode(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decode(v) for v in value]
    return value


def _vectors():
    if not VECTORS.exists():
        return []
    return json.loads(VECTORS.read_text(encoding="utf-8"))


def _same(a, b):
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return a == b and type(a) is type(b) or (a == b and {type(a), type(b)} <= {int, float})


@needs_shared
def test_there_are_42_vectors_and_every_divergence_names_one():
    ids = [v["id"] for v in _vectors()]
    assert len(ids) == 42 == len(set(ids))
    assert set(DIVERGENCES) <= set(ids) and set(JUDGE_ERRORS) <= set(ids)


@needs_shared
@pytest.mark.parametrize("vector", _vectors(), ids=lambda v: v["id"])
def test_vector(vector):
    expected = _decode(vector["expected"])
    ours = DIVERGENCES.get(vector["id"], {})
    evaluator_args = (_decode(vector["trace"]),)
    options = _decode(vector["options"])
    if "raises" in ours:
        with pytest.raises(TraceError) as info:
            HarnessEvaluator(*evaluator_args, name="case", **options).run()
        assert str(info.value) == ours["raises"]
        assert isinstance(info.value, ValueError)
        # 1.7.17 raised TypeError, or (a string of calls) counted its characters
        assert expected.get("raises", "TypeError") == "TypeError"
        assert expected.get("tool_call_count", 3) == 3
        return
    evaluator = HarnessEvaluator(*evaluator_args, name="case", **options)
    result = evaluator.run()
    got = result.to_dict()
    for field in FIELDS:
        want = ours.get(field, expected[field])
        assert _same(got[field], want), (field, got[field], want)
        if field in ours:
            assert not _same(ours[field], expected[field]), f"{field} is not a divergence"
    assert result.overall_score == pytest.approx(got["score"] * 10)
    judge_error = JUDGE_ERRORS.get(vector["id"])
    assert got["judge_error"] == (None if judge_error is None else
                                  {"code": judge_error[0], "message": judge_error[1]})
    eval_result = evaluator.to_eval_result().to_dict()
    assert eval_result.pop("case_name") == "case"
    want_er = dict(expected["eval_result"])
    if ours:
        want_er["passed"], want_er["score"] = got["passed"], got["score"]
        want_er["criteria_scores"] = {g: 1.0 if got[g] else 0.0 for g in want_er["criteria_scores"]}
    assert eval_result == want_er
    # what we write is valid JSON and a valid trace-result
    text = result.to_json()
    assert "NaN" not in text and "Infinity" not in text
    aau_schemas.validate("trace-result", json.loads(text))


@needs_shared
def test_scores_are_unchanged_by_gates_configured():
    for vector in _vectors():
        if vector["id"] in DIVERGENCES:
            continue
        result = HarnessEvaluator(_decode(vector["trace"]), **_decode(vector["options"])).run()
        configured = set(result.gates_configured)
        # an unconfigured gate always passes
        for gate, ok in result.gates().items():
            if gate not in configured:
                assert ok, (vector["id"], gate)


def _extra():
    return json.loads(EXTRA.read_text(encoding="utf-8")) if EXTRA.exists() else {}


@needs_shared
@pytest.mark.parametrize("vector", _extra().get("schema_hash_vectors", []),
                         ids=lambda v: json.dumps(v["tool_schema"])[:40])
def test_schema_hash_vector(vector):
    tool_schema = _decode(vector["tool_schema"])
    assert canonical_schema_text(tool_schema) == vector["canonical"]
    assert schema_hash(tool_schema) == vector["schema_hash"]


@needs_shared
def test_mixed_key_types_is_a_trace_error_not_a_crash():
    assert _extra()["schema_hash_mixed_key_types"].startswith("TypeError")  # 1.7.17
    with pytest.raises(TraceError, match=r"^\$\.tool_schema: keys of mixed types"):
        schema_hash({1: "a", "b": 2})
    with pytest.raises(TraceError, match=r"^\$\.tool_schema\.t: keys of mixed types"):
        HarnessEvaluator({"tool_schema": {"t": {1: "a", "b": 2}}}).run()


def test_reference_hashes_without_the_vector_files():
    # the reference's worked examples (§1.3), so a plain clone checks the bytes too
    assert schema_hash({"read_file": {"params": {"path": "str"}},
                        "write_file": {"params": {"content": "str", "path": "str"}}}) \
        == "079f8cf9589c693b"
    assert schema_hash({"b": 1, "a": [1, 2]}) == "3813f9409eb0095b"
    assert schema_hash({"a": [2, 1], "b": 1}) == "2845ae9f89c46acf"
    assert schema_hash({"n": 1}) == "e5d5f7c1d225fd6b"
    assert schema_hash({"n": 1.0}) == "98f25079e96d7424"
    assert schema_hash({"n": True}) == "be877f6e701a8ac8"
    assert schema_hash({"x": "é"}) == "f8dbff30ddbdfe0e"
    assert schema_hash({}) is None and schema_hash([]) is None and schema_hash(None) is None


@pytest.mark.parametrize("bad, path", [
    ({"t": {"x", "y"}}, "$.tool_schema.t"),
    ({"t": [object()]}, "$.tool_schema.t[0]"),
    ({"t": {("a", "b"): 1}}, "$.tool_schema.t"),
])
def test_process_dependent_values_are_refused(bad, path):
    with pytest.raises(TraceError) as info:
        schema_hash(bad)
    assert info.value.path == path


def test_circular_schema_is_refused():
    loop: dict = {"a": 1}
    loop["self"] = loop
    with pytest.raises(TraceError, match="circular"):
        schema_hash(loop)


def test_schema_hash_is_the_same_in_another_process_with_another_hash_seed():
    schema = {"write_file": {"params": {"path": "str", "content": "str"}}, "z": [3, 1, {"k": None}]}
    code = ("import json, sys; from aau_core import schema_hash; "
            "print(schema_hash(json.loads(sys.argv[1])))")
    digests = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        out = subprocess.run([sys.executable, "-c", code, json.dumps(schema)], env=env,
                             capture_output=True, text=True, check=True)
        digests.add(out.stdout.strip())
    assert digests == {schema_hash(schema)}
    assert len(digests.pop()) == 16
