"""How every command reports an input document that is invalid, of another kind or version.

One rule (aau_core.check_document, aau_schemas.kind_mismatch): another kind or an unknown
version is one line saying so; otherwise up to ten violations, one per line, and a last line
pointing at `aau schema validate FILE` when there are more.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import aau_schemas
import pytest
from aau_core import InvalidDocumentError, check_document
from aau_core._errors import MAX_LISTED_VIOLATIONS

ROOT = Path(__file__).resolve().parents[1]
LABS = ROOT / "examples" / "labs"
GATE = LABS / "river-permit-desk.json"
SUITE_V2 = ROOT / "examples" / "suites" / "library-desk-tool-calls.json"


def _aau(capsys, *args: object) -> tuple[int, str, str]:
    from aau_core import run

    rc = run([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def _errors(err: str) -> list[str]:
    return [line for line in err.splitlines() if line.startswith("aau: error: ")]


def test_many_violations_list_ten_then_point_at_schema_validate(tmp_path, capsys):
    config = tmp_path / "mysvc.json"
    config.write_text('{"service_config_version": "aau-service-config/1.0"}', encoding="utf-8")
    rc, out, err = _aau(capsys, "lab", "generate", config, "--out", tmp_path / "s.json")
    lines = _errors(err)
    assert rc == 2 and out == "" and len(lines) == MAX_LISTED_VIOLATIONS + 1, err
    assert lines[0] == f'aau: error: {config}: $: "title" is a required property [service-config]'
    assert f'{config}: $: "scenario_prefix" is a required property' in err
    assert re.fullmatch(rf"aau: error: {re.escape(str(config))}: \.\.\. and \d+ more violations?; "
                        rf"run `aau schema validate {re.escape(str(config))}` to list all",
                        lines[-1])
    assert not (tmp_path / "s.json").exists()


def test_few_violations_are_all_listed():
    doc = json.loads(GATE.read_text(encoding="utf-8"))
    del doc["title"], doc["seed"]
    with pytest.raises(InvalidDocumentError) as info:
        check_document("gate-config", doc, "g.json")
    assert str(info.value).splitlines() == [
        'g.json: $: "title" is a required property [gate-config]',
        'g.json: $: "seed" is a required property']


def test_schema_problems_returns_what_check_document_raises():
    from aau_core import schema_problems

    doc = json.loads(GATE.read_text(encoding="utf-8"))
    assert schema_problems("gate-config", doc) == []
    del doc["title"], doc["seed"]
    assert schema_problems("gate-config", doc) == [
        ("$", '"title" is a required property'), ("$", '"seed" is a required property')]
    with pytest.raises(InvalidDocumentError) as info:
        check_document("gate-config", doc, "g.json")
    assert info.value.violations == [
        ("$", '"title" is a required property [gate-config]'),
        ("$", '"seed" is a required property')]


def test_unknown_version_of_the_right_kind(tmp_path, capsys):
    config = tmp_path / "g2.json"
    config.write_text(GATE.read_text("utf-8").replace("aau-gate-config/1.0", "aau-gate-config/2.0"),
                      encoding="utf-8")
    rc, _, err = _aau(capsys, "lab", "generate", config, "--out", tmp_path / "s.json")
    assert rc == 2 and _errors(err) == [
        f'aau: error: {config}: $.gate_config_version: not a lab config: "aau-gate-config/2.0" is '
        'not a supported version; gate-config documents carry "aau-gate-config/1.0"']
    assert "None" not in err


def test_a_config_given_as_scenarios(tmp_path, capsys):
    rc, _, err = _aau(capsys, "lab", "run", GATE, "--scenarios", GATE, "--mock",
                      "--out", tmp_path / "r")
    assert rc == 2 and _errors(err) == [
        f'aau: error: {GATE}: $.gate_config_version: this is a gate-config document '
        '("gate_config_version": "aau-gate-config/1.0"), not a gate-scenarios document']


def test_a_v1_suite_with_tool_calls_is_told_to_use_the_newest_version(tmp_path, capsys):
    doc = json.loads(SUITE_V2.read_text(encoding="utf-8"))
    doc["suite_version"] = "aau-byo-agent-suite/1.0"
    suite = tmp_path / "v1.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = _aau(capsys, "evaluate", suite, "--mock", "--out", tmp_path / "o")
    assert rc == 2 and _errors(err) == [
        f'aau: error: {suite}: $.cases[0].expected.tool_calls: expected.tool_calls needs '
        '"suite_version": "aau-byo-agent-suite/3.0" (this suite says aau-byo-agent-suite/1.0; '
        'see docs/tool-calls.md)']


@pytest.mark.parametrize(("doc", "expected", "result"), [
    ({"gate_config_version": "aau-gate-config/1.0"}, "gate-config", None),
    ({"x": 1}, "gate-config", None),  # no version field: the schema says what is missing
    ({"gate_config_version": "aau-gate-config/1.0"}, "gate-scenarios",
     ("$.gate_config_version", 'this is a gate-config document ("gate_config_version": '
      '"aau-gate-config/1.0"), not a gate-scenarios document')),
    ({"suite_version": "aau-byo-agent-suite/9.0"}, ["suite", "suite-v2", "suite-v3"],
     ("$.suite_version", '"aau-byo-agent-suite/9.0" is not a supported version; suite or suite-v2 '
      'or suite-v3 documents carry "aau-byo-agent-suite/1.0", "aau-byo-agent-suite/2.0", '
      '"aau-byo-agent-suite/3.0"')),
    ({"gate_config_version": "aau-gate-config/9"}, "suite",
     ("$.gate_config_version", '"aau-gate-config/9" is not a supported version; gate-config '
      'documents carry "aau-gate-config/1.0"; expected a suite document')),
])
def test_kind_mismatch(doc, expected, result):
    assert aau_schemas.kind_mismatch(doc, expected) == result


def test_validate_reports_another_kind_in_one_line():
    doc = json.loads(GATE.read_text(encoding="utf-8"))
    with pytest.raises(aau_schemas.SchemaError) as info:
        aau_schemas.validate("gate-scenarios", doc)
    assert len(info.value.violations) == 1


def test_lab_generate_caps_n(tmp_path, capsys):
    rc, _, err = _aau(capsys, "lab", "generate", GATE, "--n", 10_001, "--out", tmp_path / "s.json")
    assert rc == 2 and "10001 is not in the range 1<=x<=10000" in err
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(("kind", "page"), [("gate-config", "docs/labs.md"),
                                            ("contract-config", "docs/contract-runtime.md"),
                                            ("service-config", "docs/service-lab.md")])
def test_each_lab_page_documents_every_config_field(kind, page):
    schema = aau_schemas.schema(kind)
    rows = "\n".join(line for line in (ROOT / page).read_text("utf-8").splitlines()
                     if line.startswith("| `"))
    documented = set(re.findall(r"`([A-Za-z_0-9]+)`", rows))
    fields = set(schema["required"]) | set(schema.get("properties", {}))
    assert not fields - documented, f"{page} does not document {sorted(fields - documented)}"
