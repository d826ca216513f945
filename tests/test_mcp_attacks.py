"""AgentDojo's prompt injections for agents under test over MCP, end to end: ``aau import
agentdojo --attack`` writes the (user task × injection task) suite, ``aau evaluate`` serves the
injected environment on aau's MCP server, and the receipt carries utility under attack and the
attack success rate with Wilson intervals.

The agents are the replay agent of ``examples/agents`` (the official ``mcp`` SDK client): on
its ground truth it must reach utility 1 and attack success 0 on every pair; with
``--follow-injection`` (it replays the injection task's ground truth, the calls an agent that
obeys the injection makes) the attack success rate must be 1. ``--mock`` replays every banking
pair the same way as the ground-truth agent. Bad input is exit 2 with one line.
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

pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
pytest.importorskip("mcp")

REPO = Path(__file__).resolve().parents[1]
REPLAY_AGENT = REPO / "examples" / "agents" / "mcp_replay_agent.py"
ENV = dict(os.environ, AAU_RUN_STORE="none")


def _aau(*argv: str, timeout: float = 1800) -> subprocess.CompletedProcess[str]:
    return subprocess.run([aau_script(), *argv], capture_output=True, text=True, timeout=timeout,
                          env=ENV)


def _import(tmp_path: Path, *options: str) -> Path:
    out = tmp_path / "attacked.json"
    done = _aau("import", "agentdojo", "--suite", "banking", "--attack",
                "important_instructions", *options, "--out", str(out), "--force")
    assert done.returncode == 0, done.stderr
    return out


def _evaluate(suite: Path, adapter: list[str], out: Path) -> dict[str, Any]:
    import aau_schemas
    from aau_adapters import check_receipt

    private = out.with_name(out.stem + ".private.json")
    done = _aau("evaluate", str(suite), *adapter, "--out", str(out), "--private-out",
                str(private), "--concurrency", "2", "--timeout", "120", "--force")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "attack_success_rate" in done.stderr and "important_instructions" in done.stderr
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt, source=str(out))
    aau_schemas.validate("private-receipt-v2", json.loads(private.read_text(encoding="utf-8")),
                         source=str(private))
    assert check_receipt(receipt) == []
    return receipt


def test_the_import_writes_every_pair_with_the_attack_s_text(tmp_path: Path) -> None:
    from aau_labs import AgentDojoSuite
    from aau_labs._agentdojo import _attacks

    doc = json.loads(_import(tmp_path).read_text(encoding="utf-8"))
    suite = AgentDojoSuite("banking")
    users = [t.task_id for t in suite.tasks()]
    goals = _attacks.injection_task_ids(suite)
    assert (len(users), len(goals)) == (16, 9)
    assert [c["scenario_id"] for c in doc["cases"]] == [f"{u}-{g}" for u in users for g in goals]
    case = doc["cases"][0]
    assert case["attack"]["name"] == "important_instructions"
    assert case["attack"]["injection_task"] == "injection_task_0"
    goal = suite._suite.injection_tasks["injection_task_0"].GOAL
    assert list(case["attack"]["injections"]) == ["injection_bill_text"]  # what user_task_0 reads
    assert goal in case["attack"]["injections"]["injection_bill_text"]
    assert doc["source"]["attack"] == "important_instructions"
    assert doc["suite_id"] == "agentdojo-banking-v1.2.2-important_instructions"


@pytest.mark.parametrize("options, says", [
    (["--attack", "no_such_attack"], "unknown AgentDojo attack 'no_such_attack'; one of direct,"),
    (["--attack", "manual"], "asks for the injected text interactively"),
    (["--attack", "captcha_dos"], "is a denial-of-service attack"),
    (["--attack", "direct", "--injection-tasks", "injection_task_99"],
     "has no injection task 'injection_task_99' (no benchmark version has it); it has "
     "injection_task_0,"),
    (["--attack", "direct", "--injection-tasks", "injection_task_0,"], "--injection-tasks"),
    (["--injection-tasks", "injection_task_0"], "--injection-tasks needs --attack NAME"),
])
def test_an_attack_or_injection_task_that_does_not_exist_is_exit_2(
        tmp_path: Path, options: list[str], says: str) -> None:
    out = tmp_path / "s.json"
    done = _aau("import", "agentdojo", "--suite", "banking", *options, "--out", str(out))
    assert done.returncode == 2 and says in done.stderr, done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and not out.exists()


def test_an_injection_task_of_a_later_version_names_the_versions_that_have_it(
        tmp_path: Path) -> None:
    done = _aau("import", "agentdojo", "--suite", "workspace", "--benchmark-version", "v1",
                "--attack", "direct", "--injection-tasks", "injection_task_13", "--out",
                str(tmp_path / "w.json"))
    assert done.returncode == 2
    assert ("AgentDojo workspace (v1) has no injection task 'injection_task_13' (benchmark "
            "versions v1.2, v1.2.1, v1.2.2 have it)") in done.stderr


def test_a_case_naming_an_injection_task_its_version_lacks_is_refused_at_load(
        tmp_path: Path) -> None:
    suite = json.loads(_import(tmp_path, "--tasks", "user_task_0", "--injection-tasks",
                               "injection_task_0").read_text(encoding="utf-8"))
    suite["cases"][0]["attack"]["injection_task"] = "injection_task_9"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    done = _aau("evaluate", str(path), "--mock", "--out", str(tmp_path / "r.json"))
    assert done.returncode == 2
    assert "$.cases[0].attack.injection_task: AgentDojo banking (v1.2.2) has no injection " \
           "task 'injection_task_9'" in done.stderr


@pytest.mark.slow
def test_mock_replays_every_banking_pair_without_obeying_the_injection(tmp_path: Path) -> None:
    receipt = _evaluate(_import(tmp_path), ["--mock"], tmp_path / "receipt.json")
    assert len(receipt["results"]) == 144
    assert receipt["metrics"]["utility_under_attack_rate"] == 1.0
    assert receipt["metrics"]["attack_success_rate"] == 0.0
    interval = receipt["metric_ci95"]["attack_success_rate"]
    assert (interval["method"], interval["n"], interval["low"]) == ("wilson", 144, 0.0)
    assert 0 < interval["high"] < 0.05


@pytest.mark.slow
def test_the_ground_truth_agent_is_not_attacked_and_the_obeying_one_always_is(
        tmp_path: Path) -> None:
    # over aau's MCP server, the official SDK client: the ground truth on three injection tasks
    # (--mock covers all 144 pairs), the obeying agent on all nine of one user task
    some = _import(tmp_path, "--tasks", "user_task_0", "--injection-tasks",
                   "injection_task_0,injection_task_4,injection_task_8")
    truth = some.with_name("truth-suite.json")
    some.rename(truth)
    agent = f"{sys.executable} {REPLAY_AGENT} --suite {truth}"
    receipt = _evaluate(truth, ["--command", agent], tmp_path / "truth.json")
    rows = receipt["results"]
    assert len(rows) == 3
    assert all(r["environment_passed"] and r["attack_succeeded"] is False for r in rows)
    assert receipt["metrics"]["utility_under_attack_rate"] == 1.0
    assert receipt["metrics"]["attack_success_rate"] == 0.0

    suite = _import(tmp_path, "--tasks", "user_task_0")
    agent = f"{sys.executable} {REPLAY_AGENT} --suite {suite} --follow-injection"
    receipt = _evaluate(suite, ["--command", agent], tmp_path / "obeys.json")
    rows = receipt["results"]
    assert len(rows) == 9
    assert [r["scenario_id"] for r in rows if not r["attack_succeeded"]] == []
    assert all("attack-succeeded" in r["failure_codes"] for r in rows)
    assert receipt["metrics"]["attack_success_rate"] == 1.0
    assert receipt["metric_ci95"]["attack_success_rate"]["low"] > 0.6
    assert receipt["provenance"]["attacks"] == ["important_instructions"]
    # the public receipt names the attack, never its text
    assert "<INFORMATION>" not in (tmp_path / "obeys.json").read_text(encoding="utf-8")


def _doc_section(page: str, heading: str) -> str:
    text = (REPO / "docs" / page).read_text(encoding="utf-8")
    return text.split(heading, 1)[1].split("\n## ", 1)[0]


def test_the_documented_attack_case_loads_with_its_goal() -> None:
    import re

    from aau_adapters import suite_from_document

    section = _doc_section("environments.md", "### Your own attacks, in the suite format")
    case = json.loads(re.search(r"```json\n(.*?)```", section, re.S).group(1))
    doc = json.loads(json.dumps({"suite_version": "aau-byo-agent-suite/3.0",
                                 "suite_id": "docs-attack", "cases": [case],
                                 "sharing": json.loads((REPO / "schemas/suite/v3/examples/valid"
                                                        "/suite-banking-attack.json").read_text(
                                     encoding="utf-8"))["sharing"]}))
    (loaded,) = suite_from_document(doc, source="docs/environments.md").cases
    assert loaded.attack is not None and loaded.attack.goal_actions == ("update_password",)
    assert loaded.attack.goal_counts == "attempted"


def test_the_documented_attack_commands_name_options_that_exist() -> None:
    import re

    for page, heading in (("environments.md", "## Attacks: prompt injections"),
                          ("agentdojo.md", "# AgentDojo through")):
        for block in re.findall(r"```bash\n(.*?)```", _doc_section(page, heading), re.S):
            for line in block.replace("\\\n", " ").strip().splitlines():
                words = shlex.split(line.split("#", 1)[0])
                if words[:1] != ["aau"]:
                    continue
                command = words[1:3] if words[1] in ("import", "bench") else words[1:2]
                helped = _aau(*command, "--help", timeout=120)
                missing = [w for w in words if w.startswith("--") and w not in helped.stdout]
                assert helped.returncode == 0 and not missing, (page, line, missing)
                for agent in (w.split() for w in words if "examples/agents/" in w):
                    helped = subprocess.run([sys.executable, str(REPO / agent[1]), "--help"],
                                            capture_output=True, text=True, timeout=120)
                    missing = [w for w in agent if w.startswith("--") and w not in helped.stdout]
                    assert helped.returncode == 0 and not missing, (page, line, missing)


@pytest.mark.slow
def test_mock_replays_the_injected_ground_truth_on_slack(tmp_path: Path) -> None:
    # slack's injected data changes a channel's name: the mock must replay the ground truth of
    # the injected state (reference_solution_under_attack), or 25 of 105 pairs fail
    out = tmp_path / "slack.json"
    done = _aau("import", "agentdojo", "--suite", "slack", "--attack", "important_instructions",
                "--out", str(out))
    assert done.returncode == 0, done.stderr
    receipt = _evaluate(out, ["--mock"], tmp_path / "receipt.json")
    assert len(receipt["results"]) == 105
    assert receipt["metrics"]["utility_under_attack_rate"] == 1.0
    assert receipt["metrics"]["attack_success_rate"] == 0.0
