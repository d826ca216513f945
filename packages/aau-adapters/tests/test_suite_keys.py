"""Suites say what they mean: unknown keys of suites 1.0/2.0 are warnings naming the nearest
known key (errors with ``--strict``), suite 3.0 refuses them in its schema, and an empty expected
outcome is refused in every version."""

from __future__ import annotations

import copy
import json

import pytest
from aau_adapters import MockAdapter, load_suite, run_evaluation, suite_from_document
from aau_core import InvalidDocumentError, run

SHARING = {
    "classification": "synthetic", "human_review_complete": True,
    "contains_personally_identifiable_information": False,
    "contains_procurement_sensitive_information": False,
    "contains_controlled_unclassified_information": False,
    "contains_classified_information": False, "contains_secrets_or_credentials": False,
}
VERSIONS = {1: "aau-byo-agent-suite/1.0", 2: "aau-byo-agent-suite/2.0",
            3: "aau-byo-agent-suite/3.0"}
FORBIDDEN_HINT = "unknown key; did you mean forbidden_actions?"


def suite(version: int = 1, **case_changes) -> dict:
    case = {"scenario_id": "rec-001", "input": {"question": "Erase my complaint"},
            "expected": {"outcome": "refer_to_officer"}, "forbidden_actions": ["delete_record"]}
    case.update(case_changes)
    return {"suite_version": VERSIONS[version], "suite_id": "records", "sharing": SHARING,
            "cases": [case, {"scenario_id": "rec-002", "input": {},
                             "expected": {"outcome": "route_records_office"}}]}


def misspelt(version: int) -> dict:
    doc = suite(version)
    doc["cases"][0]["forbidden_action"] = doc["cases"][0].pop("forbidden_actions")
    return doc


def write(tmp_path, doc, name="suite.json"):
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def aau(capsys, *args):
    rc = run(["evaluate", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


@pytest.mark.parametrize("version", [1, 2])
def test_a_misspelt_key_of_an_open_suite_is_a_warning_naming_the_known_key(tmp_path, version):
    loaded = load_suite(write(tmp_path, misspelt(version)))
    assert loaded.warnings == [("$.cases[0].forbidden_action", f"{FORBIDDEN_HINT} (ignored)")]
    assert [(k.key, k.nearest) for k in loaded.unknown_keys] == [
        ("forbidden_action", "forbidden_actions")]
    assert loaded.cases[0].forbidden_actions == []  # what "ignored" means: nothing is checked
    with pytest.raises(InvalidDocumentError) as info:
        load_suite(tmp_path / "suite.json", strict=True)
    assert str(info.value) == f"{tmp_path / 'suite.json'}: $.cases[0].forbidden_action: " \
                              f"{FORBIDDEN_HINT}"


def test_evaluate_warns_once_per_key_and_still_writes_the_receipt(tmp_path, capsys):
    path = write(tmp_path, misspelt(1))
    out = tmp_path / "r.json"
    rc, _, err = aau(capsys, str(path), "--mock", "--out", str(out), "--store", "none")
    assert rc == 0, err
    line = f"{path}: $.cases[0].forbidden_action: {FORBIDDEN_HINT} (ignored)"
    assert err.splitlines().count(line) == 1
    assert json.loads(out.read_text())["scenario_count"] == 2


def test_evaluate_strict_refuses_the_suite_and_writes_nothing(tmp_path, capsys):
    path = write(tmp_path, misspelt(1))
    out = tmp_path / "r.json"
    rc, stdout, err = aau(capsys, str(path), "--mock", "--strict", "--out", str(out),
                          "--store", "none")
    assert rc == 2
    assert err == f"aau: error: {path}: $.cases[0].forbidden_action: {FORBIDDEN_HINT}\n"
    assert stdout == "" and not out.exists()
    assert not (tmp_path / "r.json.checkpoint.jsonl").exists()


def test_the_json_summary_carries_the_warnings(tmp_path, capsys):
    path = write(tmp_path, misspelt(2))
    rc, stdout, _ = aau(capsys, str(path), "--mock", "--json", "--store", "none")
    assert rc == 0
    assert json.loads(stdout)["suite_warnings"] == [
        f"{path}: $.cases[0].forbidden_action: {FORBIDDEN_HINT} (ignored)"]


def test_suite_v3_refuses_the_misspelt_key_in_its_schema(tmp_path, capsys):
    path = write(tmp_path, misspelt(3))
    rc, _, err = aau(capsys, str(path), "--mock", "--store", "none")
    assert rc == 2
    assert err == (f"aau: error: {path}: $.cases[0]: property \"forbidden_action\" is not "
                   "allowed here; did you mean \"forbidden_actions\"? [suite-v3]\n")


def test_a_misspelt_expected_tool_call_in_v2_is_a_warning():
    doc = suite(2, expected={"outcome": "refer_to_officer",
                             "tool_call": [{"name": "refer", "arguments": {}}]})
    loaded = suite_from_document(doc, source="suite.json")
    assert loaded.warnings == [("$.cases[0].expected.tool_call",
                                "unknown key; did you mean tool_calls? (ignored)")]
    assert not loaded.expects_tool_calls
    with pytest.raises(InvalidDocumentError) as info:
        suite_from_document({**doc, "suite_version": VERSIONS[3]}, source="suite.json")
    assert str(info.value) == ('suite.json: $.cases[0].expected: property "tool_call" is not '
                               'allowed here; did you mean "tool_calls"? [suite-v3]')


def test_v2_function_definitions_and_the_importers_source_are_not_unknown_keys():
    doc = suite(2, expected={
        "tool_calls": [{"name": "refer", "arguments": {"to": ["officer"]}}],
        "tool_call_match": {"functions": [{
            "name": "refer", "description": "Refer the case.",
            "parameters": {"type": "object", "properties": {"to": {"type": "string"}}}}]}})
    doc["source"] = {"benchmark": "BFCL", "importer": "aau import bfcl"}
    assert suite_from_document(doc).warnings == []
    doc["sourc"] = {}  # only $.source is known: the 2.0 schema names no "source" to suggest
    assert suite_from_document(doc).warnings == [("$.sourc", "unknown key (ignored)")]


@pytest.mark.parametrize("version", [1, 2, 3])
def test_an_empty_expected_outcome_is_refused_in_every_version(version):
    doc = suite(version, expected={"outcome": ""})
    with pytest.raises(InvalidDocumentError) as info:
        suite_from_document(doc, source="suite.json")
    [(path, message)] = info.value.violations
    assert path == "$.cases[0].expected.outcome"
    assert message == ('"" should be non-empty [suite-v3]' if version == 3 else
                       "an empty expected outcome can never be met (an agent's outcome must be "
                       "non-empty), and --mock would score it 1.0; write the outcome the case "
                       "expects")


def test_evaluate_refuses_an_empty_outcome_before_the_mock_can_score_it(tmp_path, capsys):
    path = write(tmp_path, suite(1, expected={"outcome": ""}))
    rc, stdout, err = aau(capsys, str(path), "--mock", "--store", "none")
    assert rc == 2 and stdout == ""
    assert err.startswith(f"aau: error: {path}: $.cases[0].expected.outcome: an empty expected")


def test_strict_reports_every_problem_together():
    doc = misspelt(1)
    doc["cases"][1]["expected"]["outcome"] = ""
    doc["notes"] = "n"
    with pytest.raises(InvalidDocumentError) as info:
        suite_from_document(doc, source="s.json", strict=True)
    assert [p for p, _ in info.value.violations] == [
        "$.cases[1].expected.outcome", "$.cases[0].forbidden_action", "$.notes"]


def test_run_evaluation_strict_and_warn(tmp_path):
    path = write(tmp_path, misspelt(1))
    lines = []
    result = run_evaluation(str(path), MockAdapter(), store="none", warn=lines.append)
    assert lines == [f"{path}: $.cases[0].forbidden_action: {FORBIDDEN_HINT} (ignored)"]
    assert result.run.suite.warnings == [
        ("$.cases[0].forbidden_action", f"{FORBIDDEN_HINT} (ignored)")]
    for given in (str(path), load_suite(path)):  # a Suite loaded without strict is checked too
        with pytest.raises(InvalidDocumentError, match="forbidden_action: unknown key"):
            run_evaluation(given, MockAdapter(), store="none", strict=True)


def test_a_clean_suite_has_no_warnings_in_any_version():
    for version in (1, 2, 3):
        loaded = suite_from_document(copy.deepcopy(suite(version)))
        assert loaded.warnings == [] and loaded.unknown_keys == ()
        loaded.check_strict()


def test_schema_validate_gives_a_suite_the_loader_checks(tmp_path, capsys):
    typo, empty = write(tmp_path, misspelt(1)), write(tmp_path, suite(2, expected={"outcome": ""}),
                                                      "empty.json")
    duplicate = suite(3)
    duplicate["cases"][1]["scenario_id"] = "rec-001"
    dup = write(tmp_path, duplicate, "dup.json")
    rc = run(["schema", "validate", str(typo), str(empty), str(dup)])
    err = capsys.readouterr().err
    assert rc == 1
    assert err.splitlines() == [
        f"{typo}: $.cases[0].forbidden_action: {FORBIDDEN_HINT} (ignored)",
        f"{typo}: valid suite",
        f"{empty}: $.cases[0].expected.outcome: an empty expected outcome can never be met (an "
        "agent's outcome must be non-empty), and --mock would score it 1.0; write the outcome "
        "the case expects",
        f"{dup}: $.cases[1].scenario_id: duplicate scenario_id 'rec-001' (first at $.cases[0])",
    ]
    rc = run(["schema", "validate", str(typo), "--strict", "--json"])
    captured = capsys.readouterr()
    assert rc == 1
    assert captured.err == f"{typo}: $.cases[0].forbidden_action: {FORBIDDEN_HINT}\n"
    assert json.loads(captured.out)["files"] == [{
        "file": str(typo), "kind": "suite", "valid": False, "warnings": [],
        "violations": [{"path": "$.cases[0].forbidden_action", "message": FORBIDDEN_HINT}]}]
