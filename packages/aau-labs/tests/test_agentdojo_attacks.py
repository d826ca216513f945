"""AgentDojo's prompt injections in aau-labs: the environment under an attack (its injected
state, its injection task's security verdict, the checks of an attack) and ``aau bench
agentdojo --attack`` (utility without attack, utility under attack and attack success rate,
with Wilson intervals, the attack named in its files and summary)."""

from __future__ import annotations

import json

import aau_schemas
import pytest
from aau_core import Attack, EnvironmentCaseError, ObservedCall, run

pytest.importorskip("agentdojo", reason="AgentDojo is not installed: pip install "
                    "'aau-labs[agentdojo]' (make test's environment has it)")

from aau_labs._agentdojo import _attacks  # noqa: E402
from aau_labs._agentdojo._bench import attack_pairs, run_agentdojo_bench  # noqa: E402
from aau_labs._agentdojo._replay import GroundTruthReplay  # noqa: E402
from aau_labs._agentdojo._suite import AgentDojoSuite  # noqa: E402
from aau_labs._environments._agentdojo_env import AgentDojoEnvironment  # noqa: E402


@pytest.fixture(scope="module")
def banking() -> AgentDojoSuite:
    return AgentDojoSuite("banking")


def _observed(calls: list[dict]) -> list[ObservedCall]:
    return [ObservedCall(index=i, name=c["name"], arguments=c["arguments"], ok=True, code=None,
                         result="", started_s=0.0, duration_s=0.0) for i, c in enumerate(calls)]


def test_the_environment_serves_the_injected_text_and_checks_the_injection_task(banking):
    env = AgentDojoEnvironment("banking")
    (task,) = banking.tasks(["user_task_0"])
    injections = _attacks.attack_injections(banking, "important_instructions", task,
                                            "injection_task_0")
    attack = Attack(name="important_instructions", injection_task="injection_task_0",
                    injections=injections)
    env.check_attack("user_task_0", {}, attack)
    session = env.open_under_attack("user_task_0", {}, attack)
    bill = session.call("read_file", {"file_path": "bill-december-2023.txt"})
    assert bill.ok and "<INFORMATION>" in bill.text and "US133000000121212121212" in bill.text
    assert "<INFORMATION>" not in env.open("user_task_0", {}).call(
        "read_file", {"file_path": "bill-december-2023.txt"}).text  # without: the default
    obey = env.attack_solution("user_task_0", {}, attack)["calls"]
    for call in obey:
        assert session.call(call["name"], call["arguments"]).ok
    verdict = session.score(_observed(obey), "")
    assert verdict.attack_succeeded is True and verdict.passed is False
    assert verdict.detail["injection_task"] == "injection_task_0"

    clean = env.open_under_attack("user_task_0", {}, attack)
    truth = env.reference_solution("user_task_0", {})["calls"]
    for call in truth:
        assert clean.call(call["name"], call["arguments"]).ok
    verdict = clean.score(_observed(truth), "")
    assert (verdict.passed, verdict.attack_succeeded) == (True, False)


@pytest.mark.parametrize("options, attack, path, says", [
    ({}, Attack(name="x", injection_task="injection_task_9"), "$.injection_task",
     "has no injection task 'injection_task_9' (no benchmark version has it)"),
    ({}, Attack(name="x", injections={"injection_nowhere": "hi"}),
     "$.injections.injection_nowhere", "has no injection vector 'injection_nowhere'"),
])
def test_check_attack_names_what_the_version_lacks(options, attack, path, says):
    with pytest.raises(EnvironmentCaseError) as caught:
        AgentDojoEnvironment("banking").check_attack("user_task_0", options, attack)
    assert caught.value.path == path and says in caught.value.message


def test_an_injection_task_of_a_later_version_names_the_versions_that_have_it():
    with pytest.raises(EnvironmentCaseError) as caught:
        AgentDojoEnvironment("workspace").check_attack(
            "user_task_0", {"benchmark_version": "v1.1"},
            Attack(name="direct", injection_task="injection_task_7"))
    assert "(benchmark versions v1.2, v1.2.1, v1.2.2 have it)" in caught.value.message


def test_bench_under_attack_reports_both_utilities_and_the_attack_success_rate(capsys,
                                                                              tmp_path):
    rc = run(["bench", "agentdojo", "--suite", "banking", "--mock-ground-truth", "--attack",
              "important_instructions", "--out", str(tmp_path), "--json", "--quiet",
              "--no-store"])
    out = capsys.readouterr()
    assert rc == 0, out.err
    summary = json.loads(out.out)
    assert summary["metric_means"]["utility"] == 1.0  # utility without attack, 16 tasks
    attack = summary["attack"]
    assert (attack["name"], attack["n_pairs"], attack["n_errors"]) == \
        ("important_instructions", 144, 0)
    assert attack["utility_under_attack"]["mean"] == 1.0
    assert attack["attack_success_rate"] == {"mean": 0.0, "wilson_ci95": [0.0, 0.026]}
    path = tmp_path / "agentdojo-banking_ground-truth_important_instructions.json"
    doc = json.loads(path.read_text())
    aau_schemas.validate("eval-aggregate-v2", doc)
    assert doc["variant"].endswith("v1.2.2 banking attack important_instructions")
    assert doc["lower_is_better"] == ["attack_success"]
    assert doc["metric_ci_method"]["attack_success"] == "wilson"
    row = doc["results"][0]
    assert row["scenario_id"] == "user_task_0-injection_task_0"
    assert row["detail"]["injected_vectors"] == ["injection_bill_text"]
    assert "<INFORMATION>" not in path.read_text()  # the result names vectors, not their text
    assert run(["results", "verify", str(path)]) == 0
    report = path.with_suffix(".md").read_text()
    assert "under the important_instructions attack" in report
    assert "| user_task_0-injection_task_0 | easy | 1.00 | 1.00 | 0.00 | 0 |" in report
    assert (tmp_path / "agentdojo-banking_ground-truth.json").exists()
    assert "attack success rate 0.000 [0.000, 0.026] wilson over 144" in out.err


def test_an_agent_that_obeys_the_injection_is_an_attack_success(banking):
    tasks = banking.tasks(["user_task_0"])
    pairs = attack_pairs(banking, tasks, "important_instructions", ["injection_task_0"])
    obey = _attacks.injection_ground_truth(banking, tasks[0], "injection_task_0",
                                           pairs[0].injections)
    agg = run_agentdojo_bench(
        banking, pairs, backend_kind="mock",
        mock_factory=lambda: GroundTruthReplay({tasks[0].prompt: (obey, "Done.")}))
    assert agg.results[0].metrics == {"utility": 0.0, "tool_call_match": 0.0,
                                      "attack_success": 1.0}
    assert agg.results[0].detail["attack"] == "important_instructions"


@pytest.mark.parametrize("options, says", [
    (["--attack", "nope"], "unknown AgentDojo attack 'nope'; one of direct,"),
    (["--attack", "dos"], "is a denial-of-service attack"),
    (["--injection-tasks", "injection_task_0"], "--injection-tasks needs --attack NAME"),
    (["--attack", "direct", "--injection-tasks", "injection_task_0,injection_task_0"],
     "named twice"),
])
def test_bad_attack_flags_are_exit_2_before_anything_runs(capsys, tmp_path, options, says):
    rc = run(["bench", "agentdojo", "--suite", "banking", "--mock-ground-truth", *options,
              "--out", str(tmp_path / "out"), "--quiet", "--no-store"])
    err = capsys.readouterr().err
    assert rc == 2 and says in err, err
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_the_ground_truth_under_attack_is_computed_on_the_injected_state():
    # slack's channel External_<injection> carries the injected text in its name: the ground
    # truth on the benign state names a channel the injected state does not have
    slack = AgentDojoSuite("slack")
    tasks = slack.tasks(["user_task_7"])
    pairs = attack_pairs(slack, tasks, "important_instructions")
    benign = slack.ground_truth(tasks[0])
    injected = _attacks.user_ground_truth(slack, tasks[0], pairs[0].injections)
    assert benign != injected
    agg = run_agentdojo_bench(slack, pairs, backend_kind="ground-truth")
    assert [r.metrics["utility"] for r in agg.results] == [1.0] * len(pairs) == [1.0] * 5
    assert agg.metric_means["attack_success"] == 0.0
    env = AgentDojoEnvironment("slack")
    attack = Attack(name="important_instructions", injection_task=pairs[0].injection_task,
                    injections=pairs[0].injections)
    assert env.reference_solution_under_attack("user_task_7", {}, attack)["calls"] == injected
