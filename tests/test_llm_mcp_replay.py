"""The real model's MCP run, replayed offline: every verdict of examples/real/mcp/ again.

``tools/demo_llm.py --part mcp --record tests/fixtures/llm`` saved every chat completion the
local model sent ``examples/agents/mcp_agent.py`` while that agent drove aau's MCP server on
AgentDojo banking (with and without ``important_instructions``) and on the τ² mock conversations
with scripted users. Here :class:`tests._llm_replay.ReplayServer` answers the agent's requests
with the recorded bodies (looked up by the exact request body, so any change in the prompts,
the tool list the MCP server offers, the tool results or the user's messages shows up as "no
recorded reply"), and ``aau evaluate --command mcp_agent.py`` runs on the committed suites with
the demo's own agent options. Each unit must get the real run's environment verdict, attack
verdict and failure codes, the same observed trajectory (tool names, arguments, results) and
the same final environment state as the committed private receipt.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._helpers import aau_script
from tests._llm_replay import serve_replies

pytest.importorskip("mcp", reason="the MCP run needs the official mcp SDK (aau-core[mcp])")
pytest.importorskip("agentdojo", reason="the AgentDojo suites need aau-labs[agentdojo]")

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import demo_llm as demo  # noqa: E402

MCP = REPO / "examples" / "real" / "mcp"
FIXTURES = REPO / "tests" / "fixtures" / "llm" / "mcp"


def _read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


def _verdicts(receipt: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(r["scenario_id"], r["environment_passed"], r.get("attack_succeeded"),
             tuple(r["failure_codes"])) for r in receipt["results"]]


def _observed(private: dict[str, Any]) -> dict[str, Any]:
    return {row["scenario_id"]: (
        [(step["name"], step["arguments"], step["ok"], step.get("result"))
         for step in row["trajectory"]],
        row["final_state"], row["environment_verdict"])
        for row in private["results"]}


@pytest.mark.parametrize("name", demo.MCP_NAMES)
def test_mcp_agent_replays_the_real_run(name: str, tmp_path: Path) -> None:
    fixture = _read(FIXTURES / f"{name}.json")
    out, private_out = tmp_path / "receipt.json", tmp_path / "private.json"
    with serve_replies(fixture["exchanges"]) as server:
        agent = shlex.join(demo.mcp_agent(server.base_url, fixture["recorded_with"]["model"]))
        proc = subprocess.run(
            [aau_script(), "evaluate", str(MCP / "suites" / f"{name}.json"), "--command", agent,
             "--timeout", "300", "--concurrency", "4", "--out", str(out), "--private-out", str(private_out)],
            capture_output=True, text=True, cwd=REPO, timeout=900, check=False)
        assert proc.returncode in (0, 1), proc.stderr
        assert server.unknown == [], "the agent sent a request the real run never sent"
        assert sum(server.served.values()) == len(fixture["exchanges"])
    receipt, private = _read(out), _read(private_out)
    committed = _read(MCP / "receipts" / f"{name}.json")
    assert _verdicts(receipt) == _verdicts(committed)
    assert {k: v for k, v in receipt["metrics"].items() if k != "mean_latency_s"} == {
        k: v for k, v in committed["metrics"].items() if k != "mean_latency_s"}
    assert _observed(private) == _observed(_read(MCP / "private" / f"{name}.json"))
