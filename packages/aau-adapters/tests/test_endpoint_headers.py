"""Request headers of the endpoint adapter (``aau evaluate --endpoint URL --header 'NAME: VALUE'``).

Every header test runs against a real server on 127.0.0.1: conftest's ``http_server``
(``http.server``, which records each request's headers) and, when installed, a Starlette app
under uvicorn. The refusals are run through the command line (exit 2, one line, no request
sent); the secret test runs whole evaluations with a secret header value and reads back every
file they wrote, stdout and stderr, for the secret's bytes.
"""

from __future__ import annotations

import json
import re
import socket
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from aau_adapters import (
    RESERVED_HEADERS,
    EndpointAdapter,
    binding_adapter,
    check_headers,
    choose_adapter,
    parse_headers,
    run_evaluation,
)
from aau_core import UsageError, run

pytestmark = pytest.mark.slow  # starts servers

SECRET = "s3cr3t-7f0c2a9e-token"
ENV = {"AGENT_TOKEN": SECRET}


def _suite_file(tmp_path: Path, make_suite: Any, cases: list[str]) -> str:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(make_suite(cases).doc), encoding="utf-8")
    return str(path)


def _evaluate(tmp_path: Path, make_suite: Any, url: str, *args: str,
              cases: tuple[str, ...] = ("a",)) -> int:
    suite = _suite_file(tmp_path, make_suite, list(cases))
    return run(["evaluate", suite, "--endpoint", url, *args])


# --------------------------------------------------------------------------------------------
# what arrives


def test_the_header_arrives_with_the_expanded_value(tmp_path, capsys, monkeypatch, make_suite,
                                                    http_server):
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    server = http_server()
    rc = _evaluate(tmp_path, make_suite, server.url, "--header",
                   "Authorization: Bearer ${AGENT_TOKEN}", "--json", cases=("a", "b"))
    assert rc == 0, capsys.readouterr().err
    assert len(server.requests) == 2
    for request in server.requests:
        assert request["headers"]["Authorization"] == f"Bearer {SECRET}"
        assert request["headers"]["Content-Type"] == "application/json"


def test_repeated_header_options_all_arrive_as_given(tmp_path, capsys, monkeypatch, make_suite,
                                                     http_server):
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    monkeypatch.setenv("TENANT", "acme")
    server = http_server()
    rc = _evaluate(tmp_path, make_suite, server.url,
                   "--header", "X-Api-Key:${AGENT_TOKEN}",
                   "--header", "X-Tenant:   ${TENANT}-eu  ",   # spaces around the value dropped
                   "--header", "X-Literal: $HOME ${1} $${AGENT_TOKEN",  # no ${NAME}: literal
                   "--header", "X-Empty:")
    assert rc == 0, capsys.readouterr().err
    (request,) = server.requests
    headers = request["headers"]
    assert headers["X-Api-Key"] == SECRET
    assert headers["X-Tenant"] == "acme-eu"
    assert headers["X-Literal"] == "$HOME ${1} $${AGENT_TOKEN"
    assert headers["X-Empty"] == ""
    sent = list(headers)
    assert sent.index("X-Api-Key") < sent.index("X-Tenant") < sent.index("X-Literal")


def test_a_retried_503_then_200_carries_the_header_both_times(tmp_path, capsys, monkeypatch,
                                                              make_suite, http_server):
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    answers = [(503, {}, b"busy")]
    server = http_server(lambda *_: answers.pop() if answers else None)
    rc = _evaluate(tmp_path, make_suite, server.url, "--retries", "1", "--retry-max-wait", "0",
                   "--header", "Authorization: Bearer ${AGENT_TOKEN}", "--json")
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert json.loads(captured.out)["metrics"]["exact_rate"] == 1.0
    assert [r["headers"]["Authorization"] for r in server.requests] == [f"Bearer {SECRET}"] * 2


def test_a_redirect_is_not_followed_so_the_header_stays_with_the_endpoint(
        tmp_path, capsys, monkeypatch, make_suite, http_server):
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    elsewhere = http_server()
    server = http_server(lambda *_: (307, {"Location": elsewhere.url}, b""))
    rc = _evaluate(tmp_path, make_suite, server.url, "--header",
                   "Authorization: Bearer ${AGENT_TOKEN}", "--json")
    captured = capsys.readouterr()
    assert rc == 3  # a 3xx is not an answer aau reads: with no other unit, nothing measured
    assert json.loads(captured.out)["failure_code_counts"] == {"adapter-http-307": 1}
    assert len(server.requests) == 1 and elsewhere.requests == []


def test_a_token_that_expires_mid_run_never_scores_the_agent(tmp_path, capsys, monkeypatch,
                                                             make_suite, http_server):
    # the server takes the token for 2 requests, then answers 401: those units were never
    # asked, so they are not measured (not zeros of the agent); the bar they alone make fail
    # is not judged (exit 3, not 1); the checkpoint is kept, and --resume with a fresh token
    # measures exactly them
    valid = {"token": SECRET, "left": 2}

    def respond(doc, handler, server):
        if handler.headers.get("Authorization") == f"Bearer {valid['token']}" and valid["left"]:
            valid["left"] -= 1
            return None
        return 401, {}, b'{"error": "token expired"}'

    server = http_server(respond)
    out = tmp_path / "r.json"
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    args = ("--header", "Authorization: Bearer ${AGENT_TOKEN}", "--out", str(out),
            "--fail-under", "exact_rate=0.9")
    cases = ("a", "b", "c", "d")
    rc = _evaluate(tmp_path, make_suite, server.url, *args, cases=cases)
    err = capsys.readouterr().err
    assert rc == 3, err
    assert ("--fail-under exact_rate cannot be judged: the bar fails only because 2 of 4 "
            "unit(s) were not measured") in err
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert receipt["coverage"]["measured"] == 2 and receipt["coverage"]["adapter_failures"] == 2
    assert [r["measured"] for r in receipt["results"]] == [True, True, False, False]
    assert "coverage: 2 of 4 unit(s) not measured" in err
    assert (tmp_path / "r.json.checkpoint.jsonl").exists()
    valid.update(token="fresh-token", left=99)
    monkeypatch.setenv("AGENT_TOKEN", "fresh-token")
    rc = _evaluate(tmp_path, make_suite, server.url, *args, "--resume", cases=cases)
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "resumed: 2 unit(s) that were not measured were run again" in err
    assert json.loads(out.read_text(encoding="utf-8"))["coverage"]["measured"] == 4
    assert len(server.requests) == 6 and not (tmp_path / "r.json.checkpoint.jsonl").exists()


def test_a_bar_the_agent_fails_whatever_was_not_measured_is_the_agent_s(
        tmp_path, capsys, make_suite, http_server):
    # a wrong answer on 'a', a 401 on 'b': exact_rate could be 0.5 at best, under a 0.9 bar
    def respond(doc, handler, server):
        if doc["scenario_id"] == "b":
            return 401, {}, b"{}"
        return 200, {}, b'{"outcome": "wrong", "submitted": true}'

    server = http_server(respond)
    rc = _evaluate(tmp_path, make_suite, server.url, "--fail-under", "exact_rate=0.9",
                   "--fail-under", "no_forbidden_execute_rate=0.9",
                   "--out", str(tmp_path / "r.json"), cases=("a", "b"))
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "cannot be judged" not in err
    # the other bar fails only on b's 401: its line says so, although the exit is the agent's
    assert "  bar exact_rate >= 0.9: 0.0 NOT MET\n" in err
    assert ("  bar no_forbidden_execute_rate >= 0.9: 0.5 (coverage 0.5 needs >= 1.0) NOT MET "
            "(not judged: only units not measured make it fail)") in err


def test_python_callers_send_pairs_through_endpoint_adapter_and_choose_adapter(
        make_suite, http_server, monkeypatch):
    server = http_server()
    suite = make_suite(["a"])
    adapter = EndpointAdapter(server.url, 5.0, headers=[("X-Api-Key", " k1 ")])
    try:
        run_evaluation(suite, adapter, timeout_s=5.0, no_store=True)
    finally:
        adapter.close()
    assert adapter.header_names == ("X-Api-Key",)
    assert adapter.describe() == {"kind": "endpoint", "url_host": f"127.0.0.1:{server.port}"}
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    factory = choose_adapter(endpoint=server.url, timeout=5.0,
                             headers=["X-Api-Key: ${AGENT_TOKEN}"])
    run_evaluation(suite, factory, timeout_s=5.0, no_store=True)
    assert [r["headers"]["X-Api-Key"] for r in server.requests] == ["k1", SECRET]


def test_uvicorn_starlette_app_receives_the_header(tmp_path, capsys, monkeypatch, make_suite):
    uvicorn = pytest.importorskip("uvicorn")
    pytest.importorskip("starlette")
    from starlette.applications import Starlette
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    seen: list[dict[str, str]] = []

    async def agent(request: Any) -> JSONResponse:
        await request.body()
        seen.append(dict(request.headers))
        if request.headers.get("authorization") != f"Bearer {SECRET}":
            return JSONResponse({"error": "unauthorized"}, status_code=401)
        return JSONResponse({"outcome": "route:ok", "actions_attempted": [],
                             "actions_executed": [], "submitted": True})

    app = Starlette(routes=[Route("/agent", agent, methods=["POST"])])
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False,
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    try:
        end = time.monotonic() + 10
        while not server.started and time.monotonic() < end:
            time.sleep(0.01)
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/agent"
        monkeypatch.setenv("AGENT_TOKEN", SECRET)
        rc = _evaluate(tmp_path, make_suite, url, "--header",
                       "Authorization: Bearer ${AGENT_TOKEN}", "--json", cases=("a", "b"))
        assert rc == 0, capsys.readouterr().err
        assert json.loads(capsys.readouterr().out)["metrics"]["exact_rate"] == 1.0
        # the control: without the header, this agent refuses every case, so nothing is
        # measured, and the error says what to give
        rc = _evaluate(tmp_path, make_suite, url, "--json")
        assert rc == 3
        summary = json.loads(capsys.readouterr().out)
        assert (summary["reason"], summary["failure_code_counts"]) == (
            "limit", {"adapter-http-401": 1})
        assert "check --header (say, 'Authorization: Bearer ${TOKEN}')" in summary["message"]
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        listener.close()
    assert [h["authorization"] for h in seen[:2]] == [f"Bearer {SECRET}"] * 2


# --------------------------------------------------------------------------------------------
# what is refused: exit 2, one line, nothing sent, no value shown


def _refused(tmp_path: Path, capsys: Any, make_suite: Any, args: list[str],
             url: str = "http://127.0.0.1:9/agent") -> str:
    out = tmp_path / "r.json"
    rc = _evaluate(tmp_path, make_suite, url, "--out", str(out), *args)
    captured = capsys.readouterr()
    assert rc == 2, captured.err
    assert captured.err.count("\n") == 1 and captured.out == ""
    assert "Traceback" not in captured.err
    assert not out.exists()
    return captured.err


def test_an_unset_variable_names_the_header_and_the_variable(tmp_path, capsys, monkeypatch,
                                                              make_suite, http_server):
    monkeypatch.delenv("AGENT_TOKEN", raising=False)
    server = http_server()
    err = _refused(tmp_path, capsys, make_suite,
                   ["--header", "Authorization: Bearer ${AGENT_TOKEN}"], url=server.url)
    assert "--header Authorization: ${AGENT_TOKEN} is not set in aau's environment" in err
    monkeypatch.setenv("AGENT_TOKEN", "")  # what CI gives for a secret it does not have
    err = _refused(tmp_path, capsys, make_suite,
                   ["--header", "Authorization: Bearer ${AGENT_TOKEN}"], url=server.url)
    assert "--header Authorization: ${AGENT_TOKEN} is set but empty" in err
    assert server.requests == []


@pytest.mark.parametrize("value", ["a\r\nX-Evil: 1", "a\nX-Evil: 1", "a\rb", "a\0b",
                                   "a\x0bb", "a\x7fb", "caf\u00e9"])
def test_injection_and_bad_characters_are_refused_without_showing_the_value(
        tmp_path, capsys, monkeypatch, make_suite, http_server, value):
    server = http_server()
    secret_value = f"{SECRET}{value}"
    options = [f"X-Api-Key: {secret_value}"]  # in argv, and (NUL aside) from the environment
    if "\0" not in value:
        monkeypatch.setenv("INJECTED", secret_value)
        options.append("X-Api-Key: ${INJECTED}")
    for option in options:
        err = _refused(tmp_path, capsys, make_suite, ["--header", option], url=server.url)
        assert "--header X-Api-Key: the value (after ${VAR} expansion) holds" in err
        assert SECRET not in err and "Evil" not in err
    assert server.requests == []


@pytest.mark.parametrize("name", ["Host", "content-length", "CONTENT-TYPE", "Transfer-Encoding",
                                  "Connection", "Keep-Alive", "TE", "Upgrade", "Expect",
                                  "Content-Encoding", "Accept-Encoding", "Trailer"])
def test_reserved_names_are_refused_whatever_their_case(tmp_path, capsys, make_suite, name):
    err = _refused(tmp_path, capsys, make_suite, ["--header", f"{name}: {SECRET}"])
    assert f"--header {name}: this header cannot be set (" in err
    assert SECRET not in err
    assert name.lower() in RESERVED_HEADERS


def test_a_name_given_twice_is_refused_whatever_its_case(tmp_path, capsys, make_suite):
    err = _refused(tmp_path, capsys, make_suite,
                   ["--header", f"X-Api-Key: {SECRET}", "--header", f"x-api-key: {SECRET}2"])
    assert "--header x-api-key: given twice (also as X-Api-Key); send one value" in err
    assert SECRET not in err


@pytest.mark.parametrize(("option", "fragment"), [
    (f"Bearer {SECRET}", "--header #1 is not 'NAME: VALUE' (no ':'; its text is not shown"),
    (f": {SECRET}", "--header #1 has no name before ':'"),
    (f"X Api: {SECRET}", "--header #1: the name before ':' is not an HTTP token (its character 2 "),
    (f"X-Api-Key : {SECRET}", "the name before ':' is not an HTTP token (its character 10 "),
    (f"X-K\u00e9y: {SECRET}", "is not an HTTP token (its character 4 "),
])
def test_a_malformed_option_is_refused(tmp_path, capsys, make_suite, option, fragment):
    err = _refused(tmp_path, capsys, make_suite, ["--header", option])
    assert fragment in err
    assert SECRET not in err


@pytest.mark.parametrize("adapter", [["--command", "python agent.py"], ["--mock"]])
def test_header_without_an_endpoint_is_refused(tmp_path, capsys, make_suite, adapter):
    suite = _suite_file(tmp_path, make_suite, ["a"])
    rc = run(["evaluate", suite, *adapter, "--header", "Authorization: Bearer x"])
    captured = capsys.readouterr()
    assert rc == 2 and captured.err.count("\n") == 1 and captured.out == ""
    assert (f"--header applies to --endpoint only (it is sent with each HTTP request); "
            f"{adapter[0]} sends no HTTP request") in captured.err


def test_python_callers_get_the_same_rules():
    env = {"T": SECRET}
    assert parse_headers(["A: ${T}", "B:x"], env) == (("A", SECRET), ("B", "x"))
    assert parse_headers([]) == ()
    for bad, message in [
        ("A: x", "not one str"),
        (["A: ${MISSING}"], r"\$\{MISSING\} is not set"),
        ([b"A: x"], "must be a string"),
    ]:
        with pytest.raises(UsageError, match=message):
            parse_headers(bad, env)  # type: ignore[arg-type]
    for bad, message in [
        ({"A": "x"}, "sequence of \\(name, value\\) pairs, not dict"),
        ([["A", "x"]], "header #1 must be a \\(name, value\\) pair of strings"),
        ([("A", 1)], "pair of strings"),
        ([("Host", "x")], "cannot be set"),
        ([("A", "x\ny")], "line feed"),
    ]:
        with pytest.raises(UsageError, match=message):
            check_headers(bad)  # type: ignore[arg-type]
        with pytest.raises(UsageError, match=message):
            EndpointAdapter("http://127.0.0.1:9/a", 1.0, headers=bad)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match="--header applies to --endpoint only"):
        choose_adapter(mock=True, headers=["A: x"])
    assert callable(choose_adapter(mock=True, headers=()))


def test_every_value_accepted_is_one_h11_sends():
    """Our value rule is at least as strict as the HTTP/1.1 writer's (h11 under httpcore), so
    no value reaches it to be refused there (its error would quote the value)."""
    h11_abnf = pytest.importorskip("h11._abnf")
    field_value = re.compile(h11_abnf.field_value.encode("ascii"))
    for code in range(0x180):  # ASCII, Latin-1 and beyond (all non-ASCII is refused)
        value = f"a{chr(code)}b"
        try:
            ((_, checked),) = check_headers([("X", value)])
        except UsageError:
            continue
        assert field_value.fullmatch(checked.encode("ascii")), hex(code)


# --------------------------------------------------------------------------------------------
# never written; names bound for resume, values never


def test_a_secret_header_value_is_written_nowhere(tmp_path, capsys, monkeypatch, make_suite,
                                                  http_server):
    """Whole runs with a secret header: measured (receipt, private receipt, run store, --json),
    then not measured (the checkpoint and private receipt it keeps, failure details), then a
    refused option; every file under tmp_path and every byte printed is searched."""
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    for name in ("AAU_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    header = ["--header", "Authorization: Bearer ${AGENT_TOKEN}", "--header",
              "X-Api-Key: ${AGENT_TOKEN}"]
    store = str(tmp_path / "runs.sqlite")
    printed = []

    server = http_server()
    rc = _evaluate(work, make_suite, server.url, *header, "--out", "r.json", "--private-out",
                   "p.json", "--store", store, "--json", "--repeats", "2", cases=("a", "b"))
    printed.append(capsys.readouterr())
    assert rc == 0, printed[-1].err
    down = http_server(lambda *_: (503, {"Retry-After": "0"}, b"down"))
    rc = _evaluate(work, make_suite, down.url, *header, "--out", "down.json", "--private-out",
                   "down-p.json", "--store", store, "--json", "--retries", "1",
                   "--retry-max-wait", "0", cases=("a", "b"))
    printed.append(capsys.readouterr())
    assert rc == 3, printed[-1].err
    assert (work / "down.json.checkpoint.jsonl").exists()
    monkeypatch.setenv("AGENT_TOKEN", f"{SECRET}\r\nX-Evil: 1")
    rc = _evaluate(work, make_suite, server.url, *header, "--json")
    printed.append(capsys.readouterr())
    assert rc == 2

    sent = [r["headers"]["Authorization"] for r in server.requests + down.requests]
    assert sent == [f"Bearer {SECRET}"] * 8  # 4 units measured, 2 units x 2 attempts not
    files = [p for p in tmp_path.rglob("*") if p.is_file()]
    assert {"r.json", "p.json", "runs.sqlite", "down-p.json",
            "down.json.checkpoint.jsonl"} <= {p.name for p in files}
    secret = SECRET.encode()
    assert [str(p) for p in files if secret in p.read_bytes()] == []
    for captured in printed:
        assert SECRET not in captured.out and SECRET not in captured.err


def test_a_header_forgotten_the_first_time_may_be_added_on_resume(tmp_path, capsys, monkeypatch,
                                                                  make_suite, http_server):
    # 'a' is public, 'b' needs the token: the first run forgot --header, so b's 401 was not
    # measured; resuming with the header adds it (dropping one is refused: the test below)
    def respond(doc, handler, server):
        if doc["scenario_id"] == "b" and handler.headers.get("Authorization") != f"Bearer {SECRET}":
            return 401, {}, b"{}"
        return None

    server = http_server(respond)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AGENT_TOKEN", SECRET)
    cases = ("a", "b")
    assert _evaluate(tmp_path, make_suite, server.url, "--out", "r.json", cases=cases) == 0
    assert json.loads((tmp_path / "r.json").read_text())["coverage"]["measured"] == 1
    rc = _evaluate(tmp_path, make_suite, server.url, "--out", "r.json", "--resume", "--header",
                   "Authorization: Bearer ${AGENT_TOKEN}", cases=cases)
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "resumed: 1 unit(s) that were not measured were run again" in err
    assert json.loads((tmp_path / "r.json").read_text())["coverage"]["measured"] == 2
    assert [json.loads(r["body"])["scenario_id"] for r in server.requests] == ["a", "b", "b"]


def test_header_names_are_bound_for_resume_and_values_are_not(tmp_path, capsys, monkeypatch,
                                                               make_suite, http_server):
    """A resume that forgot its --header is refused (its units would get 401s); one with a
    rotated token is the same agent: the kept unit stays, the unit not measured runs again and
    carries the new token."""
    monkeypatch.chdir(tmp_path)
    state = {"up": False}

    def respond(doc, handler, server):
        return None if state["up"] or doc["scenario_id"] == "a" else (503, {}, b"down")

    server = http_server(respond)
    monkeypatch.setenv("AGENT_TOKEN", "old-token")
    header = ["--header", "Authorization: Bearer ${AGENT_TOKEN}"]
    options = ["--out", "r.json", "--json", "--unmeasured-limit", "0.5"]
    cases = ("a", "b")
    assert _evaluate(tmp_path, make_suite, server.url, *options, *header, cases=cases) == 3
    capsys.readouterr()
    state["up"] = True
    rc = _evaluate(tmp_path, make_suite, server.url, *options, "--resume", cases=cases)
    assert rc == 2
    assert ("checkpoint is from a different configuration (--header names: authorization when "
            "it was made, none now); give --header with the same names again (a value may "
            "change), or start over with --force") in capsys.readouterr().err
    monkeypatch.setenv("AGENT_TOKEN", "new-token")
    rc = _evaluate(tmp_path, make_suite, server.url, *options, *header, "--resume", cases=cases)
    captured = capsys.readouterr()
    assert rc == 0, captured.err
    assert json.loads(captured.out)["metrics"]["exact_rate"] == 1.0
    asked = [(json.loads(r["body"])["scenario_id"], r["headers"]["Authorization"])
             for r in server.requests]
    assert asked == [("a", "Bearer old-token"), ("b", "Bearer old-token"),
                     ("b", "Bearer new-token")]
    assert set(binding_adapter(command=None, endpoint=server.url)) == {"kind", "url_sha256"}
    assert binding_adapter(command=None, endpoint=server.url,
                           headers=["X-Trace: 1", "authorization: x", "Authorization: y"]
                           )["header_names"] == ["authorization", "x-trace"]
