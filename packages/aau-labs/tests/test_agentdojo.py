"""`aau bench agentdojo`: AgentDojo's environments through aau's agent loop, runner and scorer.

The ground-truth replay must score every banking (16) and slack (21) task; wrong agents must
score 0 on the tasks they get wrong; a real OpenAI-compatible HTTP backend (the fake server)
must go through the same path; outputs validate and verify; errors are one line, exit 2.
"""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_core._agents._loop import Block, MockUsage

pytest.importorskip("agentdojo", reason="AgentDojo is not installed: pip install "
                    "'aau-labs[agentdojo]' (make test's environment has it)")

from aau_core._tool_calls._matching import match_tool_calls  # noqa: E402
from aau_labs._agentdojo._bench import bench_result_document, run_agentdojo_bench  # noqa: E402
from aau_labs._agentdojo._replay import GroundTruthReplay  # noqa: E402
from aau_labs._agentdojo._suite import AgentDojoSuite  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "fake_openai_server", Path(__file__).parents[2] / "aau-core" / "tests" / "fake_openai_server.py")
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)


def aau(capsys, *args):
    rc = run(["bench", "agentdojo", *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


@pytest.fixture(scope="module")
def banking():
    return AgentDojoSuite("banking")


@pytest.mark.parametrize("suite,count", [("banking", 16), ("slack", 21)])
def test_ground_truth_replay_scores_every_task(capsys, tmp_path, suite, count):
    rc, out, err = aau(capsys, "--suite", suite, "--mock-ground-truth", "--out", tmp_path,
                       "--json", "--quiet")
    assert rc == 0, err
    summary = json.loads(out)
    assert (summary["n_tasks"], summary["utility_passed"], summary["n_errors"]) == (count, count, 0)
    assert summary["metric_means"] == {"tool_call_match": 1.0, "utility": 1.0}
    path = tmp_path / f"agentdojo-{suite}_ground-truth.json"
    doc = json.loads(path.read_text())
    aau_schemas.validate("eval-aggregate-v2", doc)
    assert doc["backend"] == "ground-truth" and doc["variant"].endswith(f"v1.2.2 {suite}")
    assert len(doc["results"]) == count
    for row in doc["results"]:
        detail = row["detail"]
        assert row["metrics"] == {"utility": 1.0, "tool_call_match": 1.0}
        assert [c["name"] for c in detail["tool_calls"]] == \
            [c["name"] for c in detail["expected_tool_calls"]]
        assert all(c["error"] is None for c in detail["tool_calls"])
        assert detail["ended"] == "answer" and detail["suite"] == suite
        assert detail["n_turns"] == len(detail["expected_tool_calls"]) + 1
    assert doc["pass_hat_k"] == {"tool_call_match": {"1": 1.0}, "utility": {"1": 1.0}}
    report = (tmp_path / f"agentdojo-{suite}_ground-truth.md").read_text()
    assert f"## AgentDojo {suite} (v1.2.2" in report and "| user_task_0 |" in report
    assert run(["results", "verify", str(path)]) == 0  # intervals recomputed from the rows
    assert run(["report", str(path), "--json"]) == 0  # every task passes in aau report
    low = {16: "0.806", 21: "0.845"}[count]  # Wilson 95 % of count/count, as receipts use
    assert f"utility 1.000 [{low}, 1.000] wilson, tool_call_match 1.000" in err
    assert f"over {count} tasks x 1 repeats (0 errored)" in err
    assert summary["utility_wilson_ci95"][1] == 1.0
    assert f"{summary['utility_wilson_ci95'][0]:.3f}" == low
    assert f"`utility` 95 % interval over tasks: [{low}, 1.000] wilson" in report
    assert f"| utility | 1.000 | [{low}, 1.000] wilson |" in report  # the file's own interval
    assert doc["metric_ci_method"] == {"tool_call_match": "wilson", "utility": "wilson"}


def test_replay_honours_max_turns_like_a_model(banking):
    task = banking.tasks(["user_task_0"])
    agg = run_agentdojo_bench(banking, task, backend_kind="ground-truth", max_turns=1)
    detail = agg.results[0].detail
    assert detail["n_turns"] == 1 and detail["ended"] == "turn_limit"
    assert detail["agent_error"] == "no final answer within 1 turn"  # no submit tool offered
    assert agg.results[0].metrics["utility"] == 0.0
    agg = run_agentdojo_bench(banking, task, backend_kind="ground-truth", max_turns=2)
    assert agg.results[0].detail["agent_error"] == "no final answer within 2 turns"


def test_replay_of_the_other_suites_scores_every_task():
    for name, count in (("travel", 20), ("workspace", 40)):
        suite = AgentDojoSuite(name)
        agg = run_agentdojo_bench(suite, suite.tasks(), backend_kind="ground-truth")
        assert (agg.n_scenarios, agg.n_errors) == (count, 0)
        assert agg.metric_means == {"tool_call_match": 1.0, "utility": 1.0}
        doc = bench_result_document(suite, agg, "ground-truth", "ground-truth")
        aau_schemas.validate("eval-aggregate-v2", json.loads(json.dumps(doc, allow_nan=False)))


def test_replay_finds_the_ground_truth_agentdojo_fixed_after_v1(capsys, tmp_path):
    """Under benchmark version v1, AgentDojo's own ground truth of workspace user_task_7 fails
    its utility check (fixed in v1.1.1): the replay reports exactly that task, with every
    ground-truth call made (tool_call_match 1, utility 0)."""
    rc, out, err = aau(capsys, "--suite", "workspace", "--benchmark-version", "v1",
                       "--mock-ground-truth", "--tasks", "user_task_6,user_task_7,user_task_8",
                       "--out", tmp_path, "--json", "--quiet")
    assert rc == 0, err
    doc = json.loads((tmp_path / "agentdojo-workspace_ground-truth.json").read_text())
    scores = {r["scenario_id"]: r["metrics"] for r in doc["results"]}
    assert scores == {"user_task_6": {"utility": 1.0, "tool_call_match": 1.0},
                      "user_task_7": {"utility": 0.0, "tool_call_match": 1.0},
                      "user_task_8": {"utility": 1.0, "tool_call_match": 1.0}}
    assert doc["variant"].endswith(" v1 workspace")


def test_repeats_and_task_selection(capsys, tmp_path):
    rc, out, err = aau(capsys, "--suite", "banking", "--mock-ground-truth", "--tasks",
                       "user_task_3,user_task_0", "--repeats", 3, "--out", tmp_path, "--json")
    assert rc == 0, err
    doc = json.loads((tmp_path / "agentdojo-banking_ground-truth.json").read_text())
    assert [r["scenario_id"] for r in doc["results"]] == ["user_task_3", "user_task_0"] * 3
    assert doc["n_repeats"] == 3 and doc["pass_hat_k"]["utility"]["3"] == 1.0
    assert err.count("repeat ") == 6  # one progress line per run


def _scripted(script):
    """A mock backend answering every conversation with ``script``: tool calls, then text."""

    def create(system, messages, tools):
        turn = sum(m["role"] == "assistant" for m in messages)
        usage = MockUsage(input_tokens=10, output_tokens=5)
        if turn < len(script) - 1:
            name, args = script[turn]
            return Block(content=[Block(type="tool_use", id=f"t{turn}", name=name, input=args)],
                         stop_reason="tool_use", usage=usage)
        return Block(content=[Block(type="text", text=script[-1])], stop_reason="end_turn",
                     usage=usage)

    return lambda: Block(create=create, model="mock")


def test_a_wrong_payment_fails_both_metrics_and_says_why(banking):
    task = banking.tasks(["user_task_0"])
    wrong = _scripted([("read_file", {"file_path": "bill-december-2023.txt"}),
                       ("send_money", {"recipient": "UK12345678901234567890", "amount": 9.87,
                                       "subject": "Car Rental\t\t\t98.70",
                                       "date": "2022-01-01"}),
                       "Paid."])
    agg = run_agentdojo_bench(banking, task, backend_kind="mock", mock_factory=wrong)
    row = agg.results[0]
    assert row.metrics == {"utility": 0.0, "tool_call_match": 0.0}
    reasons = " ".join(row.detail["tool_call_match"]["reasons"])
    assert "send_money" in reasons and "9.87" in reasons
    assert row.detail["model_output"] == "Paid." and row.n_api_calls == 3
    right = _scripted([("read_file", {"file_path": "bill-december-2023.txt"}),
                       ("get_balance", {}),  # an extra read is allowed
                       ("send_money", {"recipient": "UK12345678901234567890", "amount": 98.7,
                                       "subject": "Car Rental\t\t\t98.70",
                                       "date": "2022-01-01"}),
                       "Paid."])
    agg = run_agentdojo_bench(banking, task, backend_kind="mock", mock_factory=right)
    assert agg.results[0].metrics == {"utility": 1.0, "tool_call_match": 1.0}


def test_an_agent_that_does_nothing_scores_zero_and_bad_calls_are_reported(banking):
    idle = _scripted([("send_money", {"recipient": "x"}), "I cannot help with that."])
    agg = run_agentdojo_bench(banking, banking.tasks(["user_task_0", "user_task_1"]),
                              backend_kind="mock", mock_factory=idle)
    assert agg.metric_means == {"tool_call_match": 0.0, "utility": 0.0}
    call = agg.results[0].detail["tool_calls"][0]
    assert call["name"] == "send_money" and call["error"].startswith("ValidationError")


def test_environment_is_fresh_per_run(banking):
    """Two runs of a paying task: the second starts from the untouched balance (a shared
    environment would show the first payment to the second run's utility check)."""
    task = banking.tasks(["user_task_0"])
    agg = run_agentdojo_bench(banking, task, backend_kind="ground-truth", repeats=2)
    assert [r.metrics["utility"] for r in agg.results] == [1.0, 1.0]
    pre, env = banking.new_environment(task[0])
    session = banking.session(env)
    assert "Error" not in session("send_money", {"recipient": "X", "amount": 5.0,
                                                 "subject": "s", "date": "2022-01-01"})
    assert len(env.bank_account.transactions) == len(pre.bank_account.transactions) + 1
    fresh, _ = banking.new_environment(task[0])
    assert len(fresh.bank_account.transactions) == len(pre.bank_account.transactions)


def test_expected_calls_accept_optional_arguments_at_their_default():
    workspace = AgentDojoSuite("workspace")
    truth = [{"name": "send_email", "arguments": {
        "recipients": ["a@b.c"], "subject": "Hi", "body": "x",
        "attachments": [{"type": "file", "file_id": "13"}]}}]
    expected = workspace.expected_calls(truth)
    base = {"recipients": ["a@b.c"], "subject": "Hi", "body": "x",
            "attachments": [{"type": "file", "file_id": "13"}]}

    def ok(**extra):
        call = [{"name": "send_email", "arguments": {**base, **extra}}]
        return match_tool_calls(expected, call, mode="superset").matched

    assert ok() and ok(cc=None) and ok(bcc=None)
    assert not ok(cc=["boss@b.c"])  # a copy the task did not ask for
    assert not ok(attachments=[{"type": "file", "file_id": "14"}])
    assert not ok(attachments=[{"type": "file", "file_id": "13", "extra": 1}])


def test_real_http_backend_goes_through_the_same_path(capsys, tmp_path, monkeypatch):
    """`--backend local` against a real HTTP server speaking OpenAI's API (the fake server
    calls the first tool with a wrong argument, then answers "done"): the schemas reach the
    server as OpenAI tools, the failing call is reported to the model and recorded, and the
    tasks fail."""
    from aau_core._agents._cost import _reset_pricing

    monkeypatch.delenv("AAU_LOCAL_API_KEY", raising=False)
    with fake.FakeServer() as server:
        try:
            rc, out, err = aau(capsys, "--suite", "banking", "--backend", "local", "--model",
                               "tiny-llm", "--base-url", server.url + "/v1", "--tasks",
                               "user_task_0,user_task_1", "--out", tmp_path, "--json")
        finally:
            _reset_pricing()
        requests = list(server.requests)
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["backend"] == "local" and summary["utility_passed"] == 0
    doc = json.loads((tmp_path / "agentdojo-banking_tiny-llm.json").read_text())
    aau_schemas.validate("eval-aggregate-v2", doc)
    assert doc["provenance"]["requested_model"] == "tiny-llm"
    detail = doc["results"][0]["detail"]
    assert detail["tool_calls"][0]["name"] == "get_iban"  # the first tool offered
    assert detail["tool_calls"][0]["error"] is None  # pydantic ignores the stray "q"
    assert detail["model_output"] == "done" and detail["ended"] == "answer"
    first = requests[0]["body"]
    names = [t["function"]["name"] for t in first["tools"]]
    assert names[:2] == ["get_iban", "send_money"] and len(names) == 11
    assert first["messages"][0]["role"] == "system" and "Emma Johnson" in \
        first["messages"][0]["content"]
    assert len(requests) == 4  # two tasks x (one call, one answer)


def test_usage_errors_are_one_line_exit_2(capsys, tmp_path):
    cases = [
        ((), "choose exactly one of --mock-ground-truth and --backend KIND"),
        (("--mock-ground-truth", "--backend", "local"), "choose exactly one"),
        (("--mock-ground-truth", "--model", "m"), "go with --backend"),
        (("--mock-ground-truth", "--tasks", "user_task_0,,"), "--tasks"),
        (("--mock-ground-truth", "--tasks", "user_task_99"), "has no task 'user_task_99'"),
        (("--mock-ground-truth", "--tasks", "user_task_1,user_task_1"), "named twice"),
        (("--mock-ground-truth", "--benchmark-version", "v9"), "unknown AgentDojo benchmark"),
        (("--backend", "nope", "--model", "m"), "unknown backend 'nope'"),
    ]
    for extra, message in cases:
        rc, _, err = aau(capsys, "--suite", "banking", *extra, "--out", tmp_path / "x")
        assert rc == 2 and message in err and len(err.strip().splitlines()) == 1, (extra, err)
    assert not (tmp_path / "x").exists()


def test_existing_result_is_refused_without_force(capsys, tmp_path):
    args = ("--suite", "banking", "--mock-ground-truth", "--tasks", "user_task_0",
            "--out", tmp_path, "--quiet")
    assert aau(capsys, *args)[0] == 0
    target = tmp_path / "agentdojo-banking_ground-truth.json"
    before = target.read_bytes()
    rc, _, err = aau(capsys, *args)
    assert rc == 2 and "already exists (use --force" in err
    assert target.read_bytes() == before
    assert aau(capsys, *args, "--force")[0] == 0


def test_cli_suite_choices_are_the_suites():
    from aau_labs._agentdojo._suite import AGENTDOJO_SUITES
    from aau_labs._cli._bench import _SUITES

    assert _SUITES == AGENTDOJO_SUITES


@pytest.mark.parametrize(("text", "stop", "ended"), [
    ("tool_use_failed: bad JSON", "tool_use_failed", "malformed_tool_call"),
    ("The balance is", "length", "output_limit"),  # cut by the token limit, not an answer
    ("The balance is", "max_tokens", "output_limit"),
])
def test_how_a_run_without_a_call_ended(banking, text, stop, ended):
    def create(system, messages, tools):
        return Block(content=[Block(type="text", text=text)], stop_reason=stop,
                     usage=MockUsage(1, 1))

    agg = run_agentdojo_bench(banking, banking.tasks(["user_task_1"]), backend_kind="mock",
                              mock_factory=lambda: Block(create=create, model="mock"))
    detail = agg.results[0].detail
    assert detail["ended"] == ended and detail["n_turns"] == 1
    assert agg.results[0].metrics == {"utility": 0.0, "tool_call_match": 0.0}


def test_replay_backend_refuses_an_unknown_prompt():
    replay = GroundTruthReplay({"p": ([], "answer")})
    assert replay.create("s", [{"role": "user", "content": "p"}], []).content[0].text == "answer"
    with pytest.raises(KeyError, match="no ground-truth script"):
        replay.create("s", [{"role": "user", "content": "q"}], [])


def test_local_backend_reading_fenced_json_calls_reaches_utility_1(capsys, tmp_path, monkeypatch):
    """llama.cpp's server returns tool calls as TEXT (a fenced ```json block): a scripted server
    replying banking's ground-truth calls that way must score utility 1, turn after turn."""
    from aau_core._agents._cost import _reset_pricing

    banking = AgentDojoSuite("banking")
    ids = ["user_task_0", "user_task_3"]
    tasks = banking.tasks(ids)
    scripts = {t.prompt: (banking.ground_truth(t), str(t.task.GROUND_TRUTH_OUTPUT))
               for t in tasks}

    def answer(body):
        messages = body["messages"]
        calls, final = scripts[next(m["content"] for m in messages if m["role"] == "user")]
        turn = sum(m["role"] == "assistant" for m in messages)
        if turn < len(calls):
            call = calls[turn]
            return "I will call a tool.", [{"id": "x", "name": call["name"],
                                            "arguments": json.dumps(call["arguments"])}]
        return final, []

    monkeypatch.delenv("AAU_LOCAL_API_KEY", raising=False)
    with fake.FakeServer() as server:
        server.answer, server.text_calls = answer, "fenced"
        try:
            rc, out, err = aau(capsys, "--suite", "banking", "--backend", "local", "--model",
                               "tiny-llm", "--base-url", server.url + "/v1", "--tasks",
                               ",".join(ids), "--out", tmp_path, "--json", "--quiet")
            off_rc, off_out, off_err = aau(
                capsys, "--suite", "banking", "--backend", "local", "--model", "tiny-llm",
                "--base-url", server.url + "/v1", "--tasks", ",".join(ids), "--out",
                tmp_path / "off", "--json", "--quiet", "--text-tool-calls", "off")
        finally:
            _reset_pricing()
        replies = [r for r in server.requests if r["body"].get("tools")]
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["metric_means"] == {"tool_call_match": 1.0, "utility": 1.0}
    assert summary["utility_passed"] == 2 and summary["n_errors"] == 0
    assert "tool_calls" not in json.dumps(replies[0]["body"]["messages"])  # a plain first turn
    assert off_rc == 0, off_err
    assert json.loads(off_out)["utility_passed"] == 0  # text calls ignored: one turn, no call


def test_a_provider_that_is_down_exits_3_with_a_json_summary(capsys, tmp_path, monkeypatch):
    """Every run lost at the transport layer: exit 3, nothing written, and ``--json`` prints
    ``"measured": false`` and why (``aau_core.json_on_not_measured``), as ``aau evaluate``."""
    import socket

    monkeypatch.delenv("AAU_LOCAL_API_KEY", raising=False)
    with socket.socket() as sock:  # a port nothing listens on once closed
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    rc, out, err = aau(capsys, "--suite", "banking", "--backend", "local", "--model", "tiny-llm",
                       "--base-url", f"http://127.0.0.1:{port}/v1", "--tasks", "user_task_0",
                       "--out", tmp_path / "r", "--json", "--quiet")
    assert rc == 3, err
    summary = json.loads(out)
    assert {k: summary[k] for k in ("measured", "reason", "not_measured", "units", "rate",
                                    "benchmark", "suite", "backend", "model", "json")} == {
        "measured": False, "reason": "infrastructure", "not_measured": 1, "units": 1,
        "rate": 1.0, "benchmark": "agentdojo", "suite": "banking", "backend": "local",
        "model": "tiny-llm", "json": None}
    assert err == f"aau: error: {summary['message']}\n"
    assert not (tmp_path / "r").exists() or list((tmp_path / "r").iterdir()) == []
