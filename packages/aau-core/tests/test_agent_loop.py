"""run_tool_agent: submission, refusal, no-submission and turn-limit paths (aau-harness 1.6)."""

from __future__ import annotations

import pytest
from aau_core._agents._cost import CostTracker
from aau_core._agents._loop import (
    NO_SUBMISSION_ERROR,
    OUTPUT_LIMIT_ERROR,
    AgentRun,
    Block,
    MockUsage,
    run_tool_agent,
    turn_limit_error,
    unique_tool_ids,
)

TOOLS = [
    {"name": "lookup", "description": "look up", "input_schema": {"type": "object"}},
    {"name": "submit", "description": "final", "input_schema": {"type": "object"}},
]


class Scripted:
    """A mock backend answering from a list of turns (each a list of blocks or a response)."""

    def __init__(self, *turns):
        self.turns = list(turns)
        self.seen = []
        self.model = "mock"

    def create(self, system, messages, tools):
        self.seen.append([dict(m) for m in messages])
        turn = self.turns.pop(0)
        if isinstance(turn, Block):
            return turn
        return Block(content=turn, stop_reason="tool_use", usage=MockUsage(10, 5))


def use(name, id_, **inp):
    return Block(type="tool_use", id=id_, name=name, input=inp)


def run(backend, max_turns=8, executed=None):
    def execute(name, inp):
        (executed if executed is not None else []).append((name, inp))
        return f"result of {name}"

    cost = CostTracker("mock")
    out = run_tool_agent(backend, "sys", TOOLS, "hello", execute, "submit", cost, max_turns)
    return out, cost


def test_tool_then_submit():
    executed = []
    backend = Scripted(
        [Block(type="text", text="let me look"), use("lookup", "t1", q=1)],
        [use("submit", "t2", answer="x"), use("lookup", "t3", q=2)],
    )
    out, cost = run(backend, executed=executed)
    assert out == AgentRun(
        True,
        {"answer": "x"},
        2,
        [{"name": "lookup", "input": {"q": 1}, "id": "t1"},
         {"name": "submit", "input": {"answer": "x"}, "id": "t2"}],
    )
    assert executed == [("lookup", {"q": 1})]  # tool uses after the submit are ignored
    assert cost.api_calls == 2 and cost.input_tokens == 20
    second = backend.seen[1]
    assert second[0] == {"role": "user", "content": "hello"}
    assert second[1]["role"] == "assistant" and len(second[1]["content"]) == 2
    assert second[2] == {
        "role": "user",
        "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "result of lookup"}],
    }


def test_refusal_counts_the_usage_and_has_no_error():
    refusal = Block(content=[], stop_reason="refusal", usage=MockUsage(3, 1))
    out, cost = run(Scripted([use("lookup", "t1")], refusal))
    assert (out.submitted, out.refused, out.n_turns, out.error) == (False, True, 2, None)
    assert out.tool_calls == [{"name": "lookup", "input": {}, "id": "t1"}]
    assert cost.api_calls == 2


def test_text_only_answer_is_no_submission():
    out, _ = run(Scripted([Block(type="text", text="I think it is x")]))
    assert out == AgentRun(False, None, 1, [], error=NO_SUBMISSION_ERROR)
    assert NO_SUBMISSION_ERROR == "ended turn without submitting a decision"


@pytest.mark.parametrize("stop", ["length", "max_tokens", "model_context_window_exceeded"])
def test_a_reply_cut_at_the_token_limit_is_not_blamed_on_the_model(stop):
    """A last reply cut by a token limit ends the run with OUTPUT_LIMIT_ERROR, not 'ended turn
    without submitting'; every cut turn is listed, a submission made after one included."""
    cut = Block(content=[Block(type="text", text="The answer is")], stop_reason=stop,
                usage=MockUsage(3, 1))
    out, cost = run(Scripted([use("lookup", "t1")], cut))
    assert (out.submitted, out.error, out.cut_turns, out.n_turns) == \
        (False, OUTPUT_LIMIT_ERROR, [2], 2)
    assert cost.api_calls == 2
    cut_call = Block(content=[use("lookup", "t1", q="par")], stop_reason=stop,
                     usage=MockUsage(3, 1))
    out, _ = run(Scripted(cut_call, [use("submit", "t2", answer="x")]))
    assert out.submitted and out.error is None and out.cut_turns == [1]
    ended = Block(content=[Block(type="text", text="done")], stop_reason="end_turn",
                  usage=MockUsage(3, 1))
    out, _ = run(Scripted(ended))
    assert out.error == NO_SUBMISSION_ERROR and out.cut_turns == []


def test_turn_limit():
    backend = Scripted(*[[use("lookup", f"t{i}")] for i in range(3)])
    out, cost = run(backend, max_turns=3)
    assert (out.submitted, out.n_turns, out.error) == (False, 3, "no submission within 3 turns")
    assert turn_limit_error(8) == "no submission within 8 turns"
    assert len(out.tool_calls) == 3 and cost.api_calls == 3


def test_several_tools_in_one_turn_all_run_in_order():
    executed = []
    backend = Scripted([use("lookup", "a", q=1), use("lookup", "b", q=2)], [use("submit", "c")])
    out, _ = run(backend, executed=executed)
    assert out.submitted and out.submission == {} and out.n_turns == 2
    assert executed == [("lookup", {"q": 1}), ("lookup", {"q": 2})]
    assert [r["tool_use_id"] for r in backend.seen[1][2]["content"]] == ["a", "b"]


def test_execute_tool_must_return_text_and_max_turns_positive():
    with pytest.raises(TypeError, match="must return a str"):
        run_tool_agent(
            Scripted([use("lookup", "t1")]),
            "s",
            TOOLS,
            "u",
            lambda n, i: {"not": "text"},
            "submit",
            CostTracker("mock"),
        )
    with pytest.raises(ValueError):
        run(Scripted(), max_turns=0)


def test_block_and_mock_usage():
    assert Block(type="text", text="a") == Block(type="text", text="a")
    assert "text='a'" in repr(Block(type="text", text="a"))
    usage = MockUsage(7, 3)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (0, 0)


@pytest.mark.parametrize(("ids", "unique"), [
    (["call_0", "call_0"], ["call_0", "call_0-2"]),
    (["call_0", "call_0", "call_0"], ["call_0", "call_0-2", "call_0-3"]),
    (["a", "a", "a-2"], ["a", "a-3", "a-2"]),  # a made-up id never takes one the provider gave
    ([None, "", 7], ["aau_call_3_1", "aau_call_3_2", "aau_call_3_3"]),
    (["x", None, "aau_call_3_2"], ["x", "aau_call_3_2-2", "aau_call_3_2"]),
    (["t1", "t2"], ["t1", "t2"]),
])
def test_unique_tool_ids(ids, unique):
    assert unique_tool_ids(ids, 3) == unique


def test_duplicate_and_missing_ids_are_made_unique_and_the_record_keeps_the_providers():
    executed = []
    backend = Scripted(
        [use("lookup", "call_0", q=1), use("lookup", "call_0", q=2), use("lookup", None, q=3),
         use("lookup", "", q=4)],
        [use("submit", "call_0", answer="x")],
    )
    out, _ = run(backend, executed=executed)
    assert out.submitted and [i for _, i in executed] == [{"q": 1}, {"q": 2}, {"q": 3}, {"q": 4}]
    sent = backend.seen[1]
    assert [b.id for b in sent[1]["content"]] == ["call_0", "call_0-2", "aau_call_1_3",
                                                  "aau_call_1_4"]
    assert [r["tool_use_id"] for r in sent[2]["content"]] == ["call_0", "call_0-2",
                                                             "aau_call_1_3", "aau_call_1_4"]
    assert [(c["id"], c.get("sent_id")) for c in out.tool_calls] == [
        ("call_0", None), ("call_0", "call_0-2"), (None, "aau_call_1_3"), ("", "aau_call_1_4"),
        ("call_0", None)]


def test_the_record_carries_the_decoders_flags():
    refused = Block(type="tool_use", id="t1", name="lookup", input={"_unparseable": "{"},
                    input_error="not JSON at character 1 (Expecting property name)")
    recovered = Block(type="tool_use", id="t2", name="submit", input={"answer": "x"},
                      input_recovered="dropped stray '\"\"' after the object")
    out, _ = run(Scripted([refused], [recovered]))
    assert out.tool_calls == [
        {"name": "lookup", "input": {"_unparseable": "{"}, "id": "t1",
         "input_error": "not JSON at character 1 (Expecting property name)"},
        {"name": "submit", "input": {"answer": "x"}, "id": "t2",
         "input_recovered": "dropped stray '\"\"' after the object"}]
