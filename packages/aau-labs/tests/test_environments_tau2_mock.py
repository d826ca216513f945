"""The tau2-mock environment through aau_core's contract, on τ²-bench's own mock data
(../shared/datasets/tau2): every task check_case accepts reaches its expected final state when
its expected actions are called (passed); a wrong call fails with the differing JSON path; a
missing action fails an ACTION basis; refused tasks say why; sessions are isolated."""

from __future__ import annotations

import builtins
import json
from pathlib import Path

import pytest
from aau_core import EnvironmentCaseError, MissingExtraError, ObservedCall, load_environment
from aau_labs._environments._tau2_mock import first_difference, initial_database

DATA = Path(__file__).resolve().parents[3] / ".." / "shared" / "datasets" / "tau2"
needs_data = pytest.mark.skipif(not (DATA / "tau2_mock_tasks.json").is_file(),
                                reason=f"τ² mock data not found at {DATA} (../shared is absent)")

ACCEPTED = ["create_task_1", "create_task_1_with_env_assertions", "update_task_1",
            "update_task_with_message_history", "update_task_with_initialization_data",
            "update_task_with_initialization_actions", "impossible_task_1"]
REFUSED = {"create_task_1_nl_eval": "$.options.expected_actions",
           "update_task_with_history_and_env_assertions": "$.options.expected_actions",
           "update_task_with_user_tools":
               "$.options.initial_state.initialization_actions[0].env_type"}


def _options(task):
    from aau_adapters._import_tau2_environment import tau2_environment_options

    return tau2_environment_options(task, json.loads((DATA / "tau2_mock_db.json").read_text()))


@pytest.fixture(scope="module")
def tasks():
    return {t["id"]: t for t in json.loads((DATA / "tau2_mock_tasks.json").read_text())}


def _run(session, calls):
    observed = []
    for i, (name, arguments) in enumerate(calls):
        out = session.call(name, arguments)
        observed.append(ObservedCall(index=i, name=name, arguments=arguments, ok=out.ok,
                                     code=None if out.ok else "tool-error", result=out.text,
                                     started_s=0.0, duration_s=0.0))
    return observed


@needs_data
def test_which_tasks_are_accepted_and_why_the_others_are_not(tasks):
    env = load_environment("tau2-mock")
    accepted = []
    for task_id, task in tasks.items():
        try:
            env.check_case(task_id, _options(task))
            accepted.append(task_id)
        except EnvironmentCaseError as exc:
            assert exc.path == REFUSED[task_id], (task_id, exc.path, exc.message)
            assert "\n" not in exc.message
    assert accepted == ACCEPTED and len(accepted) + len(REFUSED) == len(tasks) == 10


@needs_data
@pytest.mark.parametrize("task_id", ACCEPTED)
def test_expected_actions_through_the_contract_pass(tasks, task_id):
    env = load_environment("tau2-mock")
    options = _options(tasks[task_id])
    session = env.open(task_id, options)
    assert [t.name for t in session.tools()] == ["create_task", "update_task_status",
                                                 "transfer_to_human_agents"]
    reference = env.reference_solution(task_id, options)
    assert reference["answer"] is None
    calls = _run(session, [(c["name"], c["arguments"]) for c in reference["calls"]])
    assert [(c.name, c.arguments) for c in calls] == [
        (a["name"], a["arguments"]) for a in options["expected_actions"]]
    assert all(c.ok for c in calls), [c.result for c in calls]
    verdict = session.score(calls, "done")
    assert verdict.passed, verdict.reason
    assert "communicate_info" in verdict.detail["not_judged"]


@needs_data
def test_initial_state_is_applied(tasks):
    for task_id in ("update_task_with_message_history", "update_task_with_initialization_data",
                    "update_task_with_initialization_actions"):
        db = initial_database(_options(tasks[task_id]))
        assert db["tasks"]["task_2"] == {"task_id": "task_2", "title": "Project Review",
                                         "description": "Review Q4 project status",
                                         "status": "pending"}, task_id
        assert db["users"]["user_1"]["tasks"] == ["task_1", "task_2"]
        assert db["users"]["user_1"]["name"] == "Test User"  # merged, not replaced


@needs_data
def test_a_wrong_action_fails_naming_the_path(tasks):
    env = load_environment("tau2-mock")
    session = env.open("update_task_1", _options(tasks["update_task_1"]))
    calls = _run(session, [("update_task_status", {"task_id": "task_1", "status": "pending"})])
    verdict = session.score(calls, None)
    assert not verdict.passed
    assert verdict.reason == "final database differs at $.tasks.task_1.status"
    assert verdict.detail["first_difference"] == "$.tasks.task_1.status"
    # nothing called at all: the same path
    fresh = env.open("create_task_1", _options(tasks["create_task_1"]))
    assert fresh.score([], None).reason == "final database differs at $.tasks.task_2"


@needs_data
def test_action_basis_needs_the_transfer_and_tool_errors_are_not_ok(tasks):
    env = load_environment("tau2-mock")
    options = _options(tasks["impossible_task_1"])
    session = env.open("impossible_task_1", options)
    verdict = session.score([], None)  # DB unchanged, but the transfer is missing
    assert not verdict.passed and "transfer_to_human_agents" in verdict.reason
    calls = _run(session, [("create_task", {"user_id": "nobody", "title": "x"}),
                           ("update_task_status", {"task_id": "task_9", "status": "completed"}),
                           ("transfer_to_human_agents", {"summary": "wants deletion"})])
    assert [c.ok for c in calls] == [False, False, True]
    assert calls[0].result.startswith("Error: user 'nobody' not found")
    assert session.score(calls, None).passed  # compare_args [] : any summary


@needs_data
def test_sessions_are_isolated(tasks):
    env = load_environment("tau2-mock")
    options = _options(tasks["create_task_1"])
    one, two = env.open("create_task_1", options), env.open("create_task_1", options)
    out = one.call("create_task", {"user_id": "user_1", "title": "Important Meeting"})
    assert out.ok and out.value == {"task_id": "task_2", "title": "Important Meeting",
                                    "description": None, "status": "pending"}
    assert "task_2" in one.final_state()["tasks"] and "task_2" not in two.final_state()["tasks"]
    assert options["database"]["tasks"].keys() == {"task_1"}  # the options are not mutated


@pytest.mark.parametrize("options,path", [
    ({}, "$.options.database"),
    ({"database": {"tasks": {}, "users": {}}}, "$.options.expected_actions"),
    ({"database": {"tasks": {}, "users": {}}, "extra": 1}, "$.options.extra"),
    ({"database": {"tasks": {}, "users": {}},
      "expected_actions": [{"name": "create_task", "arguments": {"user_id": "u", "title": "t"}}]},
     "$.options.expected_actions[0]"),
    ({"database": {"tasks": {}, "users": {"u": {"user_id": "u", "tasks": []}}},
      "expected_actions": [{"name": "create_task", "arguments": {"user_id": "u", "title": "t"}}],
      "reward_basis": ["NL_ASSERTION"]}, "$.options.reward_basis"),
])
def test_check_case_refuses_bad_options(options, path):
    with pytest.raises(EnvironmentCaseError) as info:
        load_environment("tau2-mock").check_case("t", options)
    assert info.value.path == path


def test_first_difference():
    assert first_difference({"a": [1, 2]}, {"a": [1, 2.0]}) is None
    assert first_difference({"a": [1, 2]}, {"a": [1]}) == "$.a[1]"
    assert first_difference({"a": True}, {"a": 1}) == "$.a"
    assert first_difference({"a b": 1}, {}) == '$["a b"]'


def test_agentdojo_environment_without_agentdojo_is_one_line(monkeypatch):
    from aau_labs._environments._agentdojo_env import AgentDojoEnvironment

    real = builtins.__import__

    def no_agentdojo(name, *args, **kwargs):
        if name == "agentdojo" or name.startswith("agentdojo."):
            raise ImportError(name)
        return real(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_agentdojo)
    with pytest.raises(MissingExtraError) as info:
        AgentDojoEnvironment("banking")
    assert "aau-labs[agentdojo]" in str(info.value) and "\n" not in str(info.value)
