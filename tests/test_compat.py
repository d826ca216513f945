"""Real aau-harness 1.6 files: every compat suite evaluates, and `--format aau-1.0` reproduces
1.6's receipts byte for byte (latencies aside)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import aau_schemas
import pytest
from _helpers import COMPAT_EVALUATE, SHARED_MISSING, HttpAgent, agent_command
from aau_adapters import check_receipt
from aau_core import run

pytestmark = pytest.mark.skipif(not COMPAT_EVALUATE.is_dir(), reason=SHARED_MISSING)

SUITES = ["byo-agent-suite.json", "starter-suite.json", "bench-suite-20.json"]
LATENCY = re.compile(r'("(?:mean_)?latency_s": )[0-9.eE+-]+')


OUTCOME_ONLY_AGENT = """\
import json, sys
case = json.loads(sys.stdin.readline())["input"]
if case.get("source_state") == "expired":
    outcome = "stop_stale_source"
elif case.get("channel_need") == "staffed_accessible":
    outcome = "route_human_service"
else:
    outcome = "route_official_source"
print(json.dumps({"outcome": outcome}))
"""


def _mask(text: str) -> str:
    return LATENCY.sub(r"\1<latency>", text)


def _evaluate(tmp_path, suite: str, *args: str) -> tuple[str, str]:
    out, private = tmp_path / "receipt.json", tmp_path / "private.json"
    rc = run(["evaluate", str(COMPAT_EVALUATE / suite), *args, "--out", str(out),
              "--private-out", str(private), "--force"])
    assert rc == 0
    return out.read_text(encoding="utf-8"), private.read_text(encoding="utf-8")


@pytest.mark.parametrize("suite", SUITES)
@pytest.mark.parametrize("adapter", ["command", "endpoint"])
def test_every_compat_suite_evaluates_with_our_example_agents(tmp_path, suite, adapter):
    if adapter == "command":
        text, _ = _evaluate(tmp_path, suite, "--command", agent_command(), "--concurrency", "4")
    else:
        with HttpAgent() as agent:
            text, _ = _evaluate(tmp_path, suite, "--endpoint", agent.url, "--concurrency", "4")
    receipt = json.loads(text)
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["exact_rate"] == 1.0
    source = json.loads((COMPAT_EVALUATE / suite).read_text(encoding="utf-8"))
    assert receipt["suite_sha256"] == aau_schemas.legacy_suite_sha256(source)
    assert receipt["suite_digest"] == aau_schemas.canonical_digest(source)


@pytest.mark.parametrize(
    ("suite", "receipt", "private"),
    [
        ("byo-agent-suite.json", "byo-agent-receipt.command.json",
         "byo-agent-private.command.json"),
        ("starter-suite.json", "public-receipt.command.json", None),
    ],
)
def test_aau_1_0_format_is_byte_identical_to_aau_16_except_latency(tmp_path, suite, receipt,
                                                                    private):
    # the agent behind the 1.6 files answered with the outcome only (no actions): answer the same
    agent = tmp_path / "outcome_only_agent.py"
    agent.write_text(OUTCOME_ONLY_AGENT, encoding="utf-8")
    text, private_text = _evaluate(tmp_path, suite, "--command", f"{sys.executable} {agent}",
                                   "--format", "aau-1.0")
    want = (COMPAT_EVALUATE / receipt).read_text(encoding="utf-8")
    assert _mask(text) == _mask(want)
    assert text != _mask(text)  # latencies were really there to mask
    if private:
        assert private_text == (COMPAT_EVALUATE / private).read_text(encoding="utf-8")


def test_aau_1_0_mock_receipt_is_fully_byte_identical(tmp_path):
    text, _ = _evaluate(tmp_path, "starter-suite.json", "--mock", "--format", "aau-1.0")
    assert text == (COMPAT_EVALUATE / "first-receipt.mock.json").read_text(encoding="utf-8")


def test_aau_1_0_endpoint_receipt_matches_too(tmp_path):
    with HttpAgent() as agent:
        text, _ = _evaluate(tmp_path, "byo-agent-suite.json", "--endpoint", agent.url,
                            "--format", "aau-1.0")
    want = (COMPAT_EVALUATE / "byo-agent-receipt.command.json").read_text(encoding="utf-8")
    assert _mask(text) == _mask(want).replace('"adapter_kind": "command"',
                                              '"adapter_kind": "endpoint"')


@pytest.mark.parametrize("name", sorted(p.name for p in COMPAT_EVALUATE.glob("*.json"))
                         if COMPAT_EVALUATE.is_dir() else [])
def test_every_real_file_validates_against_its_detected_schema(name):
    doc = json.loads((COMPAT_EVALUATE / name).read_text(encoding="utf-8"))
    kind = aau_schemas.detect_kind(doc)
    if name == "aau-starter.json":
        assert kind == "starter-manifest"  # aau init's manifest (aau-navigator)
    assert kind is not None, name
    aau_schemas.validate(kind, doc)
    if kind == "receipt-v1":
        assert check_receipt(doc) == []


def test_our_cli_output_passes_the_aau_16_schema_file_checks(tmp_path):
    """`aau schema validate` accepts what we wrote, from the real console script."""
    text, _ = _evaluate(tmp_path, "byo-agent-suite.json", "--mock")
    from _helpers import aau_script

    done = subprocess.run([aau_script(), "schema", "validate", str(tmp_path / "receipt.json"),
                           str(tmp_path / "private.json")], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert "valid receipt-v2" in done.stderr and "valid private-receipt-v2" in done.stderr
