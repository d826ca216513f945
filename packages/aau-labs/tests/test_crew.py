"""run_crew: delegation, the brief as the specialist's only context, one shared cost (1.6)."""

from __future__ import annotations

import json

from aau_core._agents._cost import CostTracker
from aau_core._agents._loop import Block, MockUsage
from aau_labs._crew import (
    DELEGATE_TOOL,
    UNKNOWN_SPECIALIST_ERROR,
    CrewRun,
    DelegationRecord,
    Specialist,
    make_delegate_tool,
    run_crew,
)


class Scripted:
    """One backend for the whole crew: answers from a list of turns, records what it saw."""

    def __init__(self, *turns):
        self.turns = list(turns)
        self.seen = []  # (system, first user message, number of messages)
        self.model = "mock"

    def create(self, system, messages, tools):
        self.seen.append((system, messages[0]["content"], len(messages), [t["name"] for t in tools]))
        return Block(content=self.turns.pop(0), stop_reason="tool_use",
                     usage=MockUsage(100, 10))


def use(name, id_, **inp):
    return Block(type="tool_use", id=id_, name=name, input=inp)


def lab_specialist(executed, max_turns=8):
    def execute(name, inp):
        executed.append((name, inp))
        return json.dumps({"ph": 7.1})

    return Specialist(
        name="lab", description="reads water-quality samples", system_prompt="you are the lab",
        tool_schemas=[{"name": "read_sample", "description": "", "input_schema": {}},
                      {"name": "report_finding", "description": "", "input_schema": {}}],
        execute_tool=execute, submit_tool="report_finding", max_turns=max_turns,
    )


def orchestrator_tools(specialists):
    return [make_delegate_tool(specialists),
            {"name": "close_case", "description": "", "input_schema": {}}]


def test_delegate_tool_lists_sorted_specialists_and_requires_a_brief():
    specs = {"zeta": Specialist("zeta", "z desc", "", [], lambda n, i: "", "s"),
             "alpha": Specialist("alpha", "a desc", "", [], lambda n, i: "", "s")}
    tool = make_delegate_tool(specs)
    assert tool["name"] == DELEGATE_TOOL
    assert tool["input_schema"]["properties"]["specialist"]["enum"] == ["alpha", "zeta"]
    assert tool["input_schema"]["required"] == ["specialist", "brief"]
    assert tool["input_schema"]["additionalProperties"] is False
    assert "- zeta: z desc" in tool["description"] and "- alpha: a desc" in tool["description"]


def test_specialist_sees_only_the_brief_and_cost_is_shared():
    executed = []
    specs = {"lab": lab_specialist(executed)}
    backend = Scripted(
        [use(DELEGATE_TOOL, "o1", specialist="lab", brief="Sample W-12: is it safe?")],
        [use("read_sample", "s1", sample="W-12")],
        [use("report_finding", "s2", safe=True)],
        [use("close_case", "o2", outcome="safe")],
    )
    orch_calls = []
    cost = CostTracker("mock")
    crew = run_crew(backend, "you orchestrate", orchestrator_tools(specs),
                    "Case 9: a resident asks about well W-12 (secret: the owner is Ada)",
                    lambda n, i: orch_calls.append(n) or "unused", "close_case", specs, cost)
    assert isinstance(crew, CrewRun)
    assert crew.submitted and crew.submission == {"outcome": "safe"}
    assert crew.n_delegations == 1 and crew.called("lab") and not crew.called("law")
    assert crew.delegations == [DelegationRecord("lab", "Sample W-12: is it safe?",
                                                 {"safe": True}, True, 2, None)]
    # the specialist's conversation starts from the brief alone, with its own prompt and tools
    assert backend.seen[1][:3] == ("you are the lab", "Sample W-12: is it safe?", 1)
    assert backend.seen[1][3] == ["read_sample", "report_finding"]
    assert all("Ada" not in str(seen[1]) for seen in backend.seen[1:3])
    assert executed == [("read_sample", {"sample": "W-12"})]
    assert orch_calls == []  # delegate was intercepted, never passed to the orchestrator's tools
    # four model calls (2 orchestrator + 2 specialist) on one bill
    assert cost.api_calls == 4 and cost.input_tokens == 400


def test_finding_is_returned_to_the_orchestrator_as_json():
    specs = {"lab": lab_specialist([])}
    seen_results = []

    class Watching(Scripted):
        def create(self, system, messages, tools):
            last = messages[-1]["content"]
            if system == "you orchestrate" and isinstance(last, list):
                seen_results.append(json.loads(last[0]["content"]))
            return super().create(system, messages, tools)

    backend = Watching(
        [use(DELEGATE_TOOL, "o1", specialist="lab", brief="b")],
        [use("report_finding", "s1", safe=False, reason="nitrate")],
        [use("close_case", "o2", outcome="unsafe")],
    )
    run_crew(backend, "you orchestrate", orchestrator_tools(specs), "case", lambda n, i: "",
             "close_case", specs, CostTracker("mock"))
    assert seen_results == [{"specialist": "lab", "returned_finding": True, "safe": False,
                             "reason": "nitrate"}]


def test_unknown_specialist_is_recorded_and_reported_back():
    specs = {"lab": lab_specialist([])}
    backend = Scripted(
        [use(DELEGATE_TOOL, "o1", specialist="lawyer", brief="is this legal?")],
        [use("close_case", "o2", outcome="x")],
    )
    cost = CostTracker("mock")
    crew = run_crew(backend, "o", orchestrator_tools(specs), "case", lambda n, i: "",
                    "close_case", specs, cost)
    assert crew.delegations == [DelegationRecord("lawyer", "is this legal?", None, False, 0,
                                                 UNKNOWN_SPECIALIST_ERROR)]
    assert crew.called("lawyer") and not crew.called("lab")
    assert cost.api_calls == 2  # no specialist ran


def test_specialist_without_finding_returns_a_note_and_its_error():
    specs = {"lab": lab_specialist([], max_turns=1)}
    backend = Scripted(
        [use(DELEGATE_TOOL, "o1", specialist="lab", brief="b")],
        [use("read_sample", "s1")],  # uses its only turn without submitting
        [use("close_case", "o2", outcome="undetermined")],
    )
    crew = run_crew(backend, "o", orchestrator_tools(specs), "case", lambda n, i: "",
                    "close_case", specs, CostTracker("mock"))
    record = crew.delegations[0]
    assert (record.submitted, record.returned, record.turns) == (False, None, 1)
    assert record.error == "no submission within 1 turns"
    assert crew.submitted


def test_orchestrator_tools_go_to_its_executor_and_turn_limit_applies():
    specs = {"lab": lab_specialist([])}
    backend = Scripted([use("close_case_draft", "o1")], [use("close_case_draft", "o2")])
    calls = []
    crew = run_crew(backend, "o", orchestrator_tools(specs), "case",
                    lambda n, i: calls.append(n) or "ok", "close_case", specs,
                    CostTracker("mock"), max_turns=2)
    assert calls == ["close_case_draft", "close_case_draft"]
    assert not crew.submitted and crew.submission is None and crew.n_delegations == 0
    assert crew.orchestrator.error == "no submission within 2 turns"


def test_public_names_under_aau_labs_and_1_6_names_under_aau_harness():
    import aau_harness
    import aau_labs

    names_16 = ["Specialist", "DelegationRecord", "CrewRun", "make_delegate_tool", "run_crew",
                "ReportFidelity", "ReportSpec", "check_report", "claims_success",
                "PublicValueContract", "PublicValueTrace", "score_public_value"]
    for name in names_16:
        assert getattr(aau_harness, name) is getattr(aau_labs, name), name
    assert aau_labs.run_crew is run_crew
    for name in ["evaluate_service", "generate_service_scenarios", "ServiceMockBackend",
                 "score_service_run", "ServiceToolSession", "ServiceScenario"]:
        assert name in aau_labs.__all__ and getattr(aau_labs, name).__module__.startswith(
            "aau_labs._service.")
