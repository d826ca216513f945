"""One unit of an environment case (``_environment_unit``), on an in-process tool server that
calls the session directly: the order of the steps, and every way the environment can fail
being that unit's ``environment-unavailable``. (Over real MCP: test_evaluate_environment*.py.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import attrs
from aau_adapters import AdapterAnswer, load_suite
from aau_adapters._environment_unit import run_environment_unit, suite_environments
from aau_adapters._receipt import private_row
from aau_adapters._suite_run import unit_from_checkpoint, unit_to_checkpoint
from aau_core import ObservedCall


@attrs.frozen
class _Record:
    calls: tuple[ObservedCall, ...]
    rejected: tuple[Any, ...]


class _Channel:
    def __init__(self, session: Any, max_calls: int, log: list[str]) -> None:
        self.session, self.max_calls, self.log = session, max_calls, log
        self.url, self.token = "http://127.0.0.1:1/units/u/mcp", "t0k3n"
        self.calls: list[ObservedCall] = []

    def call(self, name: str, arguments: dict[str, Any]) -> None:
        outcome = self.session.call(name, arguments)
        self.calls.append(ObservedCall(index=len(self.calls), name=name, arguments=arguments,
                                       ok=outcome.ok, code=None if outcome.ok else "tool-error",
                                       result=outcome.text, started_s=0.0, duration_s=0.0))

    def close(self) -> _Record:
        self.log.append("close")
        return _Record(tuple(self.calls), ())


class _Server:
    def __init__(self) -> None:
        self.log: list[str] = []
        self.channels: list[_Channel] = []

    def open_unit(self, session: Any, *, max_calls: int, label: str) -> _Channel:
        self.log.append(f"open {label} {max_calls}")
        channel = _Channel(session, max_calls, self.log)
        self.channels.append(channel)
        return channel


class _Agent:
    """Makes ``calls`` on the unit's channel, then answers ``outcome``; or raises ``boom``."""

    kind = "python"

    def __init__(self, server: _Server, calls: list[tuple[str, dict[str, Any]]],
                 outcome: str = "paid", boom: bool = False) -> None:
        self.server, self.calls, self.outcome, self.boom = server, calls, outcome, boom
        self.requests: list[dict[str, Any]] = []

    def invoke(self, request: dict[str, Any], case: Any) -> AdapterAnswer:
        self.requests.append(request)
        channel = self.server.channels[-1]
        for name, arguments in self.calls:
            channel.call(name, arguments)
        if self.boom:
            raise RuntimeError("adapter bug")
        return AdapterAnswer({"outcome": self.outcome, "actions_attempted": [],
                              "actions_executed": [], "submitted": True}, None, 0.5)

    def describe(self) -> dict[str, Any]:
        return {"kind": "python"}


PAY = [("transfer", {"source": "alice", "target": "landlord", "amount": 100})]


def _case(ledger_suite: Any, **extra: Any) -> Any:
    return load_suite(str(ledger_suite([extra]))).cases[0]


def test_a_unit_opens_serves_asks_closes_and_scores(ledger_suite: Any) -> None:
    case = _case(ledger_suite, max_calls=7)
    server = _Server()
    agent = _Agent(server, PAY)
    unit = run_environment_unit("ledger", case, 2, agent, server=lambda: server)
    assert server.log == ["open c0#2 7", "close"]
    request = agent.requests[0]
    assert request["protocol_version"] == "aau-byo-agent-request/1.1"
    assert request["mcp"]["url"] == "http://127.0.0.1:1/units/u/mcp"
    assert request["mcp"]["bearer_token"] == "t0k3n" and request["mcp"]["max_calls"] == 7
    assert "pay_rent" not in str(request)  # the task id is never sent
    assert unit.row["environment_passed"] is True and unit.row["exact"] is True
    assert unit.row["repeat"] == 2
    assert unit.environment.final_state == {"balances": {"alice": 50, "landlord": 100}}
    assert unit.environment.verdict.reason == "rent paid"


def test_each_unit_gets_a_fresh_state(ledger_suite: Any) -> None:
    case = _case(ledger_suite)
    server = _Server()
    first = run_environment_unit("ledger", case, 0, _Agent(server, PAY), server=lambda: server)
    second = run_environment_unit("ledger", case, 1, _Agent(server, PAY), server=lambda: server)
    assert first.row["environment_passed"] and second.row["environment_passed"]
    assert second.environment.calls[0].ok  # a shared state would have 50 left: refused


def test_environment_task_failed(ledger_suite: Any) -> None:
    server = _Server()
    unit = run_environment_unit("ledger", _case(ledger_suite), 0,
                                _Agent(server, [("get_balance", {"account": "alice"})]),
                                server=lambda: server)
    assert unit.row["failure_codes"] == ["environment-task-failed"]
    assert unit.row["observed"]["succeeded"] == 1


def _unavailable(unit: Any, phrase: str) -> None:
    assert unit.answer.error == "environment-unavailable"
    assert phrase in unit.answer.detail
    assert unit.row["failure_codes"][:1] == ["environment-unavailable"]
    assert unit.row["environment_passed"] is False


def test_an_environment_that_cannot_open_costs_its_unit(ledger_suite: Any) -> None:
    server = _Server()
    unit = run_environment_unit("ledger", _case(ledger_suite, task="boom_on_open"), 0,
                                _Agent(server, PAY), server=lambda: server)
    _unavailable(unit, "ledger database unreachable")
    assert server.log == []  # nothing served, the agent never asked


def test_an_environment_whose_scorer_raises_costs_its_unit(ledger_suite: Any) -> None:
    server = _Server()
    unit = run_environment_unit("ledger", _case(ledger_suite, task="boom_on_score"), 0,
                                _Agent(server, PAY), server=lambda: server)
    _unavailable(unit, "scorer crashed")
    assert len(unit.environment.calls) == 1  # what was observed is kept for the private row
    assert server.log[-1] == "close"


def test_an_environment_whose_state_raises_costs_its_unit(ledger_suite: Any) -> None:
    server = _Server()
    unit = run_environment_unit("ledger", _case(ledger_suite, task="boom_on_state"), 0,
                                _Agent(server, PAY), server=lambda: server)
    _unavailable(unit, "state store gone")


def test_the_channel_is_closed_when_the_adapter_raises(ledger_suite: Any) -> None:
    server = _Server()
    try:
        run_environment_unit("ledger", _case(ledger_suite), 0, _Agent(server, PAY, boom=True),
                             server=lambda: server)
    except RuntimeError:
        pass
    assert server.log[-1] == "close"


def test_checkpoint_round_trip_keeps_the_environment_fields(ledger_suite: Any) -> None:
    from aau_schemas import validate

    case = _case(ledger_suite, forbidden=["close_account"])
    server = _Server()
    calls = [*PAY, ("close_account", {"account": "alice"})]
    unit = run_environment_unit("ledger", case, 0, _Agent(server, calls), server=lambda: server)
    doc = unit_to_checkpoint(unit, "python", private=True)
    validate("checkpoint", {"record": "unit", "index": 0, "result": doc}, source="line")
    back = unit_from_checkpoint(case, 0, doc)
    assert back.row == unit.row
    assert back.environment == unit.environment
    assert private_row(back, "python", legacy=False) == private_row(unit, "python", legacy=False)
    assert doc["private"]["trajectory"][1]["code"] == "tool-error"
    # without private detail the public row still survives
    bare = unit_from_checkpoint(case, 0, unit_to_checkpoint(unit, "python", private=False))
    assert bare.row == unit.row and bare.environment.calls == ()


def test_suite_environments(ledger_suite: Any, tmp_path: Path) -> None:
    suite = load_suite(str(ledger_suite([{}, {"task": "boom_on_score"}])))
    assert suite_environments(suite.cases) == (("test-ledger", "ledger 1.0"),)
