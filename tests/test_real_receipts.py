"""The committed real run (examples/real/) is what it says it is.

- every suite loads (aau's suite reader, suite v2 schema and contradiction checks);
- every receipt and private receipt validates against its schema, each receipt's numbers agree
  with its own rows (``aau_core.check_receipt_consistency``) and it names its committed suite by
  hash; the private receipt has one row per public row, same verdicts;
- provenance.json names the pinned model hash, the llama-cpp-python version and the machine;
- the table in examples/real/README.md is exactly what ``tools/demo_llm.py --table-only`` makes
  of the receipts;
- every recorded exchange in tests/fixtures/llm/ is a real chat completion of the same model;
- the MCP run (examples/real/mcp/, ``demo_llm.py --part mcp``) the same way: suites, receipts
  with their environment and attack verdicts, provenance, its own README table, recordings.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_adapters import load_suite
from aau_core import check_receipt_consistency

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import demo_llm as demo  # noqa: E402

REAL = REPO / "examples" / "real"
FIXTURES = REPO / "tests" / "fixtures" / "llm"
NAMES = sorted(p.stem for p in (REAL / "receipts").glob("*.json"))
MCP = REAL / "mcp"


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _checked(folder: Path, name: str) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """The suite, receipt and private receipt ``name`` of ``folder``, schema-valid, the
    receipt consistent with its rows and naming its suite by digest."""
    suite = load_suite(folder / "suites" / f"{name}.json")
    receipt = _read(folder / "receipts" / f"{name}.json")
    private = _read(folder / "private" / f"{name}.json")
    aau_schemas.validate("receipt-v2", receipt, source=name)
    aau_schemas.validate("private-receipt-v2", private, source=name)
    assert check_receipt_consistency(receipt) == []
    assert receipt["suite_digest"] == suite.suite_digest()
    return suite, receipt, private


def test_the_run_covers_bfcl_and_tau2() -> None:
    assert "bfcl-simple_python" in NAMES and "tau2-mock" in NAMES
    assert {p.stem for p in (REAL / "suites").glob("*.json")} == set(NAMES)
    assert {p.stem for p in (REAL / "private").glob("*.json")} == set(NAMES)
    assert len(_read(REAL / "receipts" / "bfcl-simple_python.json")["results"]) == 30


@pytest.mark.parametrize("name", NAMES)
def test_receipt_validates_and_matches_its_suite(name: str) -> None:
    suite, receipt, private = _checked(REAL, name)
    assert receipt["suite_sha256"] == suite.suite_sha256
    assert receipt["adapter_kind"] == "command"
    assert [r["scenario_id"] for r in receipt["results"]] == [
        c.scenario_id for c in suite.cases]
    assert [r["scenario_id"] for r in private["results"]] == [
        r["scenario_id"] for r in receipt["results"]]
    for public_row, private_row in zip(receipt["results"], private["results"], strict=True):
        # a real answer for every unit: the model server never failed during the run
        assert private_row["error"] is None, private_row
        assert (private_row["tool_call_mismatches"] == []) == public_row["tool_calls_match"]


def test_provenance() -> None:
    provenance = _read(REAL / "provenance.json")
    aau_schemas.validate("demo-llm-provenance", provenance)
    model = provenance["model"]
    assert model["sha256"] == demo.MODELS["0.5b"]["sha256"]
    assert model["bytes"] == demo.MODELS["0.5b"]["bytes"]
    assert provenance["server"]["llama_cpp_python"] == demo.LLAMA_CPP_VERSION
    assert provenance["server"]["build_cmake_args"] == demo.CMAKE_ARGS
    assert provenance["date"][:4].isdigit() and provenance["date"].endswith("Z")
    assert provenance["machine"]["cores"] >= 1 and provenance["machine"]["cpu"]
    assert set(provenance["suites"]) == set(NAMES)


def test_readme_table_matches_the_receipts() -> None:
    expected = demo.results_table(demo.load_receipts(REAL, demo.receipt_names(REAL)))
    assert demo.readme_table(REAL / "README.md") == expected
    # and the table is not vacuous: it reads the real numbers
    receipt = _read(REAL / "receipts" / "bfcl-simple_python.json")
    exact = sum(r["exact"] for r in receipt["results"])
    assert f"| bfcl-simple_python | 30 | {exact} |" in expected


def test_recorded_replies_are_real_completions() -> None:
    provenance = _read(REAL / "provenance.json")
    for path in sorted(FIXTURES.glob("*.json")):
        fixture = _read(path)
        assert fixture["recorded_with"]["sha256"] == provenance["model"]["sha256"]
        assert fixture["exchanges"], path
        for exchange in fixture["exchanges"]:
            assert exchange["path"] == "/v1/chat/completions"
            assert exchange["status"] == 200
            body = json.loads(exchange["response_body"])
            assert body["object"] == "chat.completion"
            assert body["model"] == provenance["model"]["model_id"]
            assert body["choices"][0]["message"]["role"] == "assistant"


def test_the_mcp_run_covers_its_three_suites() -> None:
    for folder in ("suites", "receipts", "private"):
        assert {p.stem for p in (MCP / folder).glob("*.json")} == set(demo.MCP_NAMES), folder
    assert {p.stem for p in (FIXTURES / "mcp").glob("*.json")} == set(demo.MCP_NAMES)


@pytest.mark.parametrize("name", demo.MCP_NAMES)
def test_mcp_receipt_validates_and_matches_its_suite(name: str) -> None:
    suite, receipt, private = _checked(MCP, name)
    assert receipt["adapter_kind"] == "command"
    assert [r["scenario_id"] for r in receipt["results"]] == [c.scenario_id for c in suite.cases]
    for row in receipt["results"]:
        # every unit was measured: an environment verdict, no adapter or server failure
        assert isinstance(row["environment_passed"], bool), row
        assert not [c for c in row["failure_codes"] if c.startswith("adapter-")], row
        if row["environment_passed"]:
            assert "environment-task-failed" not in row["failure_codes"]
    attacked = name.endswith(demo.MCP_ATTACK)
    assert ("attack_success_rate" in receipt["metrics"]) is attacked
    if attacked:
        succeeded = sum(r["attack_succeeded"] is True for r in receipt["results"])
        assert receipt["metrics"]["attack_success_rate"] == succeeded / len(receipt["results"])
    for private_row in private["results"]:
        assert private_row["error"] is None, private_row


def test_mcp_provenance() -> None:
    provenance = _read(MCP / "provenance.json")
    aau_schemas.validate("demo-llm-provenance", provenance)
    assert provenance["model"]["sha256"] == demo.MODELS["0.5b"]["sha256"]
    assert provenance["server"]["n_ctx"] == demo.MCP_N_CTX
    assert f"--max-tokens {demo.MCP_MAX_TOKENS}" in provenance["agent"]
    assert provenance["suites"] == {
        name: f"examples/real/mcp/suites/{name}.json" for name in demo.MCP_NAMES}


def test_readme_mcp_table_matches_the_receipts() -> None:
    receipts = demo.load_receipts(MCP, demo.MCP_NAMES)
    expected = demo.mcp_results_table(receipts)
    assert demo.readme_table(REAL / "README.md", demo.MCP_TABLE_START) == expected
    passed = sum(r["environment_passed"] is True
                 for r in receipts["agentdojo-banking"]["results"])
    assert f"| agentdojo-banking | 16 | {passed} |" in expected


def test_recorded_mcp_replies_are_real_completions() -> None:
    provenance = _read(MCP / "provenance.json")
    for path in sorted((FIXTURES / "mcp").glob("*.json")):
        fixture = _read(path)
        assert fixture["recorded_with"]["sha256"] == provenance["model"]["sha256"]
        assert fixture["exchanges"], path
        for exchange in fixture["exchanges"]:
            assert exchange["status"] == 200, path
            body = json.loads(exchange["response_body"])
            assert body["model"] == provenance["model"]["model_id"]
            assert exchange["request"]["max_tokens"] == demo.MCP_MAX_TOKENS
