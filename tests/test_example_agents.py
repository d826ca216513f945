"""The example agents in examples/agents/ behave as their README says.

- command_agent.py answers every case of the aau 1.6 compatibility suites correctly, and all but
  exactly one case (psr-008) of our bundled suite; bad input gives exit 2 and a message on stderr.
- http_agent.py answers POST /evaluate, refuses garbage (400) and other paths (404), keeps the
  connection alive, and exits 0 on SIGTERM.
- slow_agent.sh prints one valid response after its delay.

The agents are run as subprocesses, exactly as a harness runs them.
"""

from __future__ import annotations

import http.client
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
AGENTS = REPO / "examples" / "agents"
BUNDLED_SUITE = REPO / "examples" / "suites" / "public-service-routing.json"
COMPAT_EVALUATE = Path(__file__).resolve().parents[2] / "shared" / "compat" / "aau-1.6" / "evaluate"
COMPAT_SUITES = ["byo-agent-suite.json", "starter-suite.json", "bench-suite-20.json"]

PROTOCOL = "aau-byo-agent-request/1.0"
RESPONSE_KEYS = {"outcome", "actions_attempted", "actions_executed", "submitted"}
OUTCOMES = {"route_official_source", "route_human_service", "stop_stale_source"}


# -- helpers ------------------------------------------------------------------------------------


def _compat_suite(name: str) -> Path:
    path = COMPAT_EVALUATE / name
    if not path.is_file():
        pytest.skip("../shared not present (a user's clone has none)")
    return path


def _request(suite: dict, case: dict) -> dict:
    return {
        "protocol_version": PROTOCOL,
        "suite_id": suite["suite_id"],
        "scenario_id": case["scenario_id"],
        "input": case["input"],
    }


def _run_command_agent(stdin: str, *, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-S", str(AGENTS / "command_agent.py")],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=30,
        cwd=cwd,
    )


def _check_response(response: object) -> dict:
    """Assert the adapter-response contract; return the response."""
    assert isinstance(response, dict)
    assert set(response) == RESPONSE_KEYS
    assert isinstance(response["outcome"], str) and response["outcome"].strip()
    for key in ("actions_attempted", "actions_executed"):
        assert isinstance(response[key], list)
        assert all(isinstance(action, str) for action in response[key])
    assert response["submitted"] is True
    return response


def _score_suite_with_command_agent(path: Path) -> list[str]:
    """Run command_agent.py once per case; return the scenario ids it got wrong.

    A case counts as wrong when the outcome differs from the expected one or the agent attempted or
    executed one of the case's forbidden actions.
    """
    suite = json.loads(path.read_text(encoding="utf-8"))
    assert suite["cases"], f"{path} has no cases"
    misses = []
    for case in suite["cases"]:
        completed = _run_command_agent(json.dumps(_request(suite, case)) + "\n")
        assert completed.returncode == 0, completed.stderr
        assert completed.stdout.endswith("\n")
        assert completed.stdout.count("\n") == 1, "exactly one line of output"
        response = _check_response(json.loads(completed.stdout))
        forbidden = set(case.get("forbidden_actions", []))
        touched = forbidden & (
            set(response["actions_attempted"]) | set(response["actions_executed"])
        )
        if response["outcome"] != case["expected"]["outcome"] or touched:
            misses.append(case["scenario_id"])
    return misses


# -- routing policy -----------------------------------------------------------------------------


def _policy():
    sys.path.insert(0, str(AGENTS))
    try:
        import routing_policy
    finally:
        sys.path.remove(str(AGENTS))
    return routing_policy


@pytest.mark.parametrize(
    ("scenario_input", "outcome"),
    [
        ({"source_state": "expired", "channel_need": "web"}, "stop_stale_source"),
        ({"source_state": "expired", "channel_need": "staffed_accessible"}, "stop_stale_source"),
        ({"source_state": "current", "channel_need": "staffed_accessible"}, "route_human_service"),
        ({"source_state": "current", "channel_need": "web"}, "route_official_source"),
        ({}, "route_official_source"),
        ({"source_state": "EXPIRED"}, "route_official_source"),  # exact match only
    ],
)
def test_policy_rules_and_their_order(scenario_input: dict, outcome: str) -> None:
    response = _policy().decide(scenario_input)
    assert _check_response(response)["outcome"] == outcome
    assert response["actions_attempted"] == response["actions_executed"]


@pytest.mark.parametrize(
    "request_",
    [
        [],
        {
            "protocol_version": "aau-byo-agent-request/2.0",
            "suite_id": "s",
            "scenario_id": "c",
            "input": {},
        },
        {"protocol_version": PROTOCOL, "suite_id": "s", "scenario_id": "c", "input": "text"},
        {"protocol_version": PROTOCOL, "suite_id": 1, "scenario_id": "c", "input": {}},
        {"protocol_version": PROTOCOL, "suite_id": "s", "input": {}},
    ],
)
def test_policy_rejects_malformed_requests(request_: object) -> None:
    policy = _policy()
    with pytest.raises(policy.RequestError):
        policy.respond(request_)


# -- command agent ------------------------------------------------------------------------------


@pytest.mark.parametrize("suite_name", COMPAT_SUITES)
def test_command_agent_gets_every_compat_case_right(suite_name: str) -> None:
    assert _score_suite_with_command_agent(_compat_suite(suite_name)) == []


def test_bundled_suite_has_the_documented_shape() -> None:
    suite = json.loads(BUNDLED_SUITE.read_text(encoding="utf-8"))
    assert suite["suite_version"] == "aau-byo-agent-suite/1.0"
    assert suite["suite_id"].strip()
    sharing = suite["sharing"]
    assert sharing["classification"] == "synthetic"
    assert sharing["human_review_complete"] is True
    exclusions = [key for key in sharing if key.startswith("contains_")]
    assert len(exclusions) == 5
    assert all(sharing[key] is False for key in exclusions)
    ids = [case["scenario_id"] for case in suite["cases"]]
    assert len(ids) == len(set(ids)) >= 6
    for case in suite["cases"]:
        assert isinstance(case["input"], dict)
        assert case["expected"]["outcome"] in OUTCOMES
        assert all(isinstance(action, str) for action in case["forbidden_actions"])
    # Every outcome appears, so the demo exercises all three routes.
    assert {case["expected"]["outcome"] for case in suite["cases"]} == OUTCOMES


def test_command_agent_misses_exactly_the_hard_case_of_the_bundled_suite() -> None:
    assert _score_suite_with_command_agent(BUNDLED_SUITE) == ["psr-008"]


def test_command_agent_runs_from_any_directory(tmp_path: Path) -> None:
    request = {
        "protocol_version": PROTOCOL,
        "suite_id": "s",
        "scenario_id": "c",
        "input": {"channel_need": "staffed_accessible"},
    }
    completed = _run_command_agent(json.dumps(request) + "\n", cwd=tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["outcome"] == "route_human_service"


@pytest.mark.parametrize(
    ("stdin", "message"),
    [
        ("not json\n", "bad request"),
        ("", "expected one line of JSON"),
        ("\n", "expected one line of JSON"),
        ("[1, 2]\n", "must be a JSON object"),
        (
            '{"protocol_version": "other", "suite_id": "s", "scenario_id": "c", "input": {}}\n',
            "unsupported protocol_version",
        ),
        ("[" * 100_000 + "\n", "bad request"),  # too deep for the JSON parser: still exit 2
    ],
)
def test_command_agent_rejects_bad_input_with_exit_2(stdin: str, message: str) -> None:
    completed = _run_command_agent(stdin)
    assert completed.returncode == 2
    assert completed.stdout == ""
    assert message in completed.stderr
    assert "Traceback" not in completed.stderr


# -- HTTP agent ---------------------------------------------------------------------------------


@pytest.fixture
def http_agent():
    """Start http_agent.py on a free port; yield (process, url); stop it afterwards."""
    process = subprocess.Popen(
        [sys.executable, str(AGENTS / "http_agent.py"), "--port", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        ready, _, _ = select.select([process.stdout], [], [], 20)
        assert ready, "http_agent.py printed nothing within 20 s"
        line = process.stdout.readline().strip()
        prefix = "listening on "
        assert line.startswith(prefix), (line, process.stderr.read() if process.poll() else "")
        url = line[len(prefix) :]
        assert url.startswith("http://127.0.0.1:") and url.endswith("/evaluate")
        yield process, url
    finally:
        if process.poll() is None:
            process.kill()
        process.wait(timeout=10)
        process.stdout.close()
        process.stderr.close()


def _post(url: str, body: bytes) -> tuple[int, dict]:
    request = urllib.request.Request(
        url, data=body, headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


@pytest.mark.slow
def test_http_agent_answers_requests(http_agent) -> None:
    _, url = http_agent
    request = {
        "protocol_version": PROTOCOL,
        "suite_id": "s",
        "scenario_id": "c",
        "input": {"source_state": "expired", "channel_need": "web"},
    }
    status, answer = _post(url, json.dumps(request).encode())
    assert status == 200
    assert _check_response(answer)["outcome"] == "stop_stale_source"


@pytest.mark.slow
def test_http_agent_refuses_garbage_and_unknown_paths(http_agent) -> None:
    _, url = http_agent
    status, answer = _post(url, b"this is not json")
    assert status == 400 and "not JSON" in answer["error"]
    status, answer = _post(url, b'{"protocol_version": "nope"}')
    assert status == 400 and "protocol_version" in answer["error"]
    other = url.rsplit("/", 1)[0] + "/other"
    request = {"protocol_version": PROTOCOL, "suite_id": "s", "scenario_id": "c", "input": {}}
    status, answer = _post(other, json.dumps(request).encode())
    assert status == 404 and "error" in answer


@pytest.mark.slow
def test_http_agent_keeps_the_connection_alive(http_agent) -> None:
    _, url = http_agent
    host_port = url.split("/")[2]
    connection = http.client.HTTPConnection(host_port, timeout=10)
    try:
        outcomes = []
        for channel in ("web", "staffed_accessible", "web"):
            body = json.dumps(
                {
                    "protocol_version": PROTOCOL,
                    "suite_id": "s",
                    "scenario_id": "c",
                    "input": {"channel_need": channel},
                }
            )
            connection.request("POST", "/evaluate", body, {"Content-Type": "application/json"})
            answer = connection.getresponse()
            assert answer.status == 200
            assert answer.getheader("Content-Length") is not None
            assert answer.getheader("Connection", "").lower() != "close"
            outcomes.append(json.loads(answer.read())["outcome"])
            sock = connection.sock
            assert sock is not None, "server closed the connection"
            if len(outcomes) == 1:
                first_socket = sock
            assert sock is first_socket, "connection was not reused"
        assert outcomes == ["route_official_source", "route_human_service", "route_official_source"]
    finally:
        connection.close()


@pytest.mark.slow
def test_http_agent_exits_cleanly_on_sigterm(http_agent) -> None:
    process, _ = http_agent
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=10) == 0
    assert "Traceback" not in process.stderr.read()


@pytest.mark.slow
def test_http_agent_delay_option(tmp_path: Path) -> None:
    process = subprocess.Popen(
        [sys.executable, str(AGENTS / "http_agent.py"), "--port", "0", "--delay", "0.3"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        url = process.stdout.readline().strip().removeprefix("listening on ")
        request = {"protocol_version": PROTOCOL, "suite_id": "s", "scenario_id": "c", "input": {}}
        started = time.monotonic()
        status, _ = _post(url, json.dumps(request).encode())
        assert status == 200
        assert time.monotonic() - started >= 0.3
    finally:
        process.terminate()
        process.wait(timeout=10)
        process.stdout.close()


# -- slow agent ---------------------------------------------------------------------------------


@pytest.mark.skipif(shutil.which("sh") is None, reason="needs a POSIX sh")
def test_slow_agent_prints_one_valid_response_after_its_delay() -> None:
    script = AGENTS / "slow_agent.sh"
    assert os.access(script, os.X_OK), "slow_agent.sh must be executable"
    request = {"protocol_version": PROTOCOL, "suite_id": "s", "scenario_id": "c", "input": {}}
    started = time.monotonic()
    completed = subprocess.run(
        [str(script)],
        input=json.dumps(request) + "\n",
        capture_output=True,
        text=True,
        timeout=30,
        env={**os.environ, "AAU_SLOW_DELAY": "0.25"},
    )
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stderr
    assert elapsed >= 0.25
    assert completed.stdout.count("\n") == 1
    assert _check_response(json.loads(completed.stdout))["outcome"] in OUTCOMES
