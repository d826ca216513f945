"""The agentdojo-* environments through aau_core's contract: the ground truth replayed call by
call (open -> call -> score with ObservedCalls built here) passes every task of the four suites
(banking 16, slack 21, travel 20, workspace 40, measured); wrong trajectories fail; bad cases
are refused at the right path; sessions are isolated."""

from __future__ import annotations

import pytest
from aau_core import (
    Environment,
    EnvironmentCaseError,
    EnvironmentSession,
    ObservedCall,
    environment_names,
    load_environment,
)

pytest.importorskip("agentdojo", reason="AgentDojo is not installed: pip install "
                    "'aau-labs[agentdojo]' (make test's environment has it)")

from aau_labs._agentdojo._suite import AgentDojoSuite  # noqa: E402


def _replay(env, suite, task, answer=None):
    """Play the environment's reference solution (AgentDojo's ground truth) on a session."""
    reference = env.reference_solution(task.task_id, {})
    assert reference["calls"] == suite.ground_truth(task)
    assert reference["answer"] == (task.task.GROUND_TRUTH_OUTPUT or None)
    session = env.open(task.task_id, {})
    calls = []
    for i, call in enumerate(reference["calls"]):
        outcome = session.call(call["name"], call["arguments"])
        calls.append(ObservedCall(index=i, name=call["name"], arguments=call["arguments"],
                                  ok=outcome.ok, code=None if outcome.ok else "tool-error",
                                  result=outcome.text, started_s=0.0, duration_s=0.0))
    final = task.task.GROUND_TRUTH_OUTPUT if answer is None else answer
    return session, calls, session.score(calls, final)


@pytest.mark.parametrize("name,count", [("banking", 16), ("slack", 21), ("travel", 20),
                                        ("workspace", 40)])
def test_ground_truth_through_the_contract_passes_every_task(name, count):
    env = load_environment(f"agentdojo-{name}")
    assert isinstance(env, Environment) and env.name == f"agentdojo-{name}"
    assert env.version.startswith("agentdojo 0.1.35")
    suite = AgentDojoSuite(name)
    tasks = suite.tasks()
    assert len(tasks) == count
    passed = []
    for task in tasks:
        env.check_case(task.task_id, {"benchmark_version": "v1.2.2"})
        session, calls, verdict = _replay(env, suite, task)
        assert isinstance(session, EnvironmentSession)
        assert all(c.ok for c in calls), (task.task_id, [c.result for c in calls if not c.ok])
        if verdict.passed:
            passed.append(task.task_id)
        assert verdict.reason.startswith(f"AgentDojo {name} {task.task_id} (v1.2.2): utility")
    assert len(passed) == count, sorted(set(t.task_id for t in tasks) - set(passed))


def test_tools_state_and_a_wrong_trajectory():
    env = load_environment("agentdojo-banking")
    suite = AgentDojoSuite("banking")
    task = suite.tasks(["user_task_1"])[0]
    session = env.open("user_task_1", {})
    specs = session.tools()
    assert [s.name for s in specs] == [t["name"] for t in suite.tool_schemas()]
    assert all(s.input_schema["type"] == "object" and s.description for s in specs)
    state = session.final_state()
    assert isinstance(state, dict) and "bank_account" in state
    # nothing called, a wrong answer: AgentDojo's utility fails it
    verdict = session.score([], "I don't know")
    assert not verdict.passed and "utility failed" in verdict.reason
    assert verdict.detail["utility"] is False and verdict.detail["ok_calls"] == 0
    # a tool error is ok=False, never an exception
    bad = session.call("get_most_recent_transactions", {"n": "many"})
    assert not bad.ok and bad.text.startswith("Error: ")
    # the ground truth passes; a failed call does not count as a trace
    _, calls, good = _replay(env, suite, task)
    assert good.passed


def test_sessions_are_isolated():
    env = load_environment("agentdojo-banking")
    one, two = env.open("user_task_3", {}), env.open("user_task_3", {})
    before = two.final_state()
    out = one.call("send_money", {"recipient": "GB00", "amount": 12.5, "subject": "x",
                                  "date": "2022-01-01"})
    assert out.ok, out.text
    assert one.final_state() != before and two.final_state() == before


@pytest.mark.parametrize("task,options,path", [
    ("user_task_99", {}, "$.task"),
    ("user_task_0", {"benchmark_version": "v9"}, "$.options.benchmark_version"),
    ("user_task_0", {"benchmark_version": 1}, "$.options.benchmark_version"),
    ("user_task_0", {"seed": 1}, "$.options.seed"),
])
def test_check_case_refuses(task, options, path):
    env = load_environment("agentdojo-slack")
    with pytest.raises(EnvironmentCaseError) as info:
        env.check_case(task, options)
    assert info.value.path == path and "\n" not in info.value.message


def test_every_bundled_name_is_registered():
    assert {"agentdojo-banking", "agentdojo-slack", "agentdojo-travel", "agentdojo-workspace",
            "tau2-mock"} <= set(environment_names())
