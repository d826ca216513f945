"""Real model output, replayed: adapter, backend, parser and scorer end to end, without a model.

``tools/demo_llm.py --record tests/fixtures/llm`` saved every raw HTTP exchange between the LLM
agent and ``llama_cpp.server`` during the committed real run (examples/real/). Here a real local
HTTP server answers the agent's ``POST /v1/chat/completions`` with the recorded response body
for the identical request body (the request is the lookup key: a change in what the agent sends
the model shows up as "no recorded reply"), and ``aau evaluate --command
examples/agents/llm_agent.py`` runs on the committed suites. Every unit must get the verdict of
the real run: same ``exact``, ``tool_calls_match`` and failure codes as the committed receipt,
and the same tool calls as the committed private receipt. The HTTP flavour
(``llm_agent_http.py``) is run the same way on one suite.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests._helpers import aau_script
from tests._llm_replay import ReplayServer, serve_replies

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "llm"
REAL = REPO / "examples" / "real"
AGENTS = REPO / "examples" / "agents"
NAMES = sorted(p.stem for p in FIXTURES.glob("*.json"))


def _fixture(name: str) -> dict[str, Any]:
    return json.loads((FIXTURES / f"{name}.json").read_text())


def _verdicts(receipt: dict[str, Any]) -> list[tuple[Any, ...]]:
    return [(r["scenario_id"], r["exact"], r.get("tool_calls_match"), tuple(r["failure_codes"]))
            for r in receipt["results"]]


def _private_calls(private: dict[str, Any]) -> dict[str, Any]:
    return {row["scenario_id"]: (row.get("response") or {}).get("tool_calls")
            for row in private["results"]}


def _evaluate(name: str, adapter: list[str], tmp_path: Path) -> tuple[dict, dict]:
    out, private = tmp_path / f"{name}.json", tmp_path / f"{name}.private.json"
    proc = subprocess.run(
        [aau_script(), "evaluate", str(REAL / "suites" / f"{name}.json"), *adapter,
         "--timeout", "120", "--out", str(out), "--private-out", str(private)],
        capture_output=True, text=True, cwd=REPO, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr
    return json.loads(out.read_text()), json.loads(private.read_text())


def _check_against_real_run(name: str, receipt: dict, private: dict,
                            server: ReplayServer) -> None:
    assert server.unknown == [], "the agent sent a request the real run never sent"
    committed = json.loads((REAL / "receipts" / f"{name}.json").read_text())
    committed_private = json.loads((REAL / "private" / f"{name}.json").read_text())
    assert _verdicts(receipt) == _verdicts(committed)
    assert receipt["metrics"] == {**committed["metrics"],
                                  "mean_latency_s": receipt["metrics"]["mean_latency_s"]}
    assert _private_calls(private) == _private_calls(committed_private)
    assert sum(server.served.values()) == len(receipt["results"])


def test_fixtures_are_present() -> None:
    assert NAMES, f"no recorded replies in {FIXTURES}"
    assert set(NAMES) == {p.stem for p in (REAL / "receipts").glob("*.json")}


@pytest.mark.parametrize("name", NAMES)
def test_command_agent_replays_the_real_run(name: str, tmp_path: Path) -> None:
    fixture = _fixture(name)
    with serve_replies(fixture["exchanges"]) as server:
        agent = shlex.join([sys.executable, str(AGENTS / "llm_agent.py"), "--base-url",
                            server.base_url, "--model", fixture["recorded_with"]["model"]])
        receipt, private = _evaluate(name, ["--command", agent, "--concurrency", "4"], tmp_path)
        _check_against_real_run(name, receipt, private, server)


def test_http_agent_replays_the_real_run(tmp_path: Path) -> None:
    name = "bfcl-parallel" if "bfcl-parallel" in NAMES else NAMES[0]
    fixture = _fixture(name)
    with serve_replies(fixture["exchanges"]) as server:
        proc = subprocess.Popen(
            [sys.executable, str(AGENTS / "llm_agent_http.py"), "--base-url", server.base_url,
             "--model", fixture["recorded_with"]["model"]],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env={**os.environ, "PYTHONUNBUFFERED": "1"})
        try:
            line = proc.stdout.readline() if proc.stdout else ""
            assert line.startswith("listening on http://127.0.0.1:"), line
            url = line.split()[-1]
            receipt, private = _evaluate(name, ["--endpoint", url], tmp_path)
            _check_against_real_run(name, receipt, private, server)
        finally:
            proc.terminate()
            assert proc.wait(10) == 0
