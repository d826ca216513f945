"""`aau evaluate` end to end: exit codes, bad input, outputs, every adapter kind, Ctrl-C."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import aau_schemas
import pytest
from _helpers import (
    EXAMPLE_SUITE,
    HttpAgent,
    aau_script,
    agent_command,
    env_without_debug,
    valid_suite,
    write_json,
)
from aau_adapters import check_receipt
from aau_core import run


def aau(capsys, *args: str) -> tuple[int, str, str]:
    rc = run(["evaluate", *args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


# ---------------------------------------------------------------- success paths

def test_mock_writes_a_schema_valid_v2_receipt(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(3))
    out = tmp_path / "r.json"
    rc, stdout, stderr = aau(capsys, str(suite), "--mock", "--repeats", "2", "--out", str(out))
    assert rc == 0, stderr
    assert stdout == ""
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["adapter_kind"] == "mock"
    assert receipt["provenance"]["adapter"] == {"kind": "mock"}
    assert receipt["repeats"] == 2 and len(receipt["results"]) == 6
    assert [(r["scenario_id"], r["repeat"]) for r in receipt["results"]] == [
        (f"c-{i}", k) for i in range(3) for k in range(2)]
    assert "mock adapter" in stderr
    assert out.read_text(encoding="utf-8").endswith("}\n")


def test_command_adapter_on_the_bundled_suite(tmp_path, capsys):
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    rc, _, stderr = aau(capsys, str(EXAMPLE_SUITE), "--command", agent_command(),
                        "--concurrency", "4", "--out", str(out), "--private-out", str(private))
    assert rc == 0, stderr
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["exact_rate"] == 0.875  # the bundled suite has one hard case
    assert receipt["failure_code_counts"] == {"outcome-mismatch": 1}
    assert receipt["provenance"]["adapter"] == {"kind": "command", "argv0": sys.executable}
    assert receipt["concurrency"] == 4 and receipt["timeout_s"] == 30.0
    detail = json.loads(private.read_text(encoding="utf-8"))
    aau_schemas.validate("private-receipt-v2", detail)
    assert all("input" in row and "expected" in row for row in detail["results"])
    public_text = out.read_text(encoding="utf-8")
    for row in detail["results"]:  # nothing private leaks into the public receipt
        assert row["input"]["question"] not in public_text


def test_endpoint_adapter_with_the_example_http_agent(tmp_path, capsys):
    out = tmp_path / "r.json"
    with HttpAgent() as agent:
        rc, _, stderr = aau(capsys, str(EXAMPLE_SUITE), "--endpoint", agent.url,
                            "--concurrency", "4", "--repeats", "2", "--out", str(out))
    assert rc == 0, stderr
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt)
    assert check_receipt(receipt) == []
    assert receipt["metrics"]["exact_rate"] == 0.875
    assert receipt["pass_hat_k"] == {"1": 0.875, "2": 0.875}
    host = agent.url.split("/")[2]
    assert receipt["provenance"]["adapter"] == {"kind": "endpoint", "url_host": host}
    assert "/evaluate" not in json.dumps(receipt["provenance"])


def test_no_out_prints_the_receipt_on_stdout(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    rc, stdout, _ = aau(capsys, str(suite), "--mock")
    assert rc == 0
    assert json.loads(stdout)["receipt_version"] == "aau-byo-agent-receipt/2.1"


@pytest.mark.parametrize("fmt", ["v2", "aau-1.0"])
def test_the_receipt_on_stdout_is_byte_identical_to_the_out_file(tmp_path, capsys,
                                                                  monkeypatch, fmt):
    """Without --out the receipt is streamed to stdout (never built as one string); the bytes
    are those --out writes, for the same run (clock fixed), non-ASCII text included."""
    import aau_adapters._suite_run as suite_run
    import aau_core

    monkeypatch.setattr(suite_run, "utc_timestamp", lambda: "2026-12-02T00:00:00Z")
    monkeypatch.setattr(aau_core, "utc_timestamp", lambda: "2026-12-02T00:00:00Z")
    doc = valid_suite(40)
    doc["suite_id"] = "t-é-suite"
    doc["cases"][3]["scenario_id"] = "c-ünï-😀"
    suite = write_json(tmp_path / "s.json", doc)
    out = tmp_path / "r.json"
    rc, stdout, _ = aau(capsys, str(suite), "--mock", "--format", fmt, "--concurrency", "1")
    assert rc == 0
    rc, printed, _ = aau(capsys, str(suite), "--mock", "--format", fmt, "--concurrency", "1",
                         "--out", str(out))
    assert rc == 0 and printed == ""
    assert stdout.encode("utf-8") == out.read_bytes()
    if fmt == "v2":  # a 1.0 receipt has no timestamps
        assert json.loads(stdout)["started_at"] == "2026-12-02T00:00:00Z"


def test_the_streamed_receipt_reaches_stdout_in_few_writes(tmp_path, monkeypatch):
    """stdout may be unbuffered (PYTHONUNBUFFERED=1): the streamed receipt is passed on in
    ~1 MB pieces, not one write per JSON token (~9 per row)."""
    import io

    class Counting(io.StringIO):
        writes = 0

        def write(self, text: str) -> int:
            Counting.writes += 1
            return super().write(text)

    stream = Counting()
    monkeypatch.setattr(sys, "stdout", stream)
    suite = write_json(tmp_path / "s.json", valid_suite(5000))
    assert run(["evaluate", str(suite), "--mock", "--quiet"]) == 0
    receipt = json.loads(stream.getvalue())
    assert len(receipt["results"]) == 5000 and len(stream.getvalue()) > 1_400_000
    assert Counting.writes <= 3  # two ~1 MB pieces and the rest


def test_json_without_out_keeps_the_receipt_in_the_summary(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    rc, stdout, stderr = aau(capsys, str(suite), "--mock", "--json")
    assert rc == 0
    summary = json.loads(stdout)
    assert summary["receipt_path"] is None
    aau_schemas.validate("receipt-v2", summary["receipt"])
    assert "inside the JSON summary" in stderr


def test_adapter_failures_explain_themselves(tmp_path, capsys):
    agent = tmp_path / "chatty.py"
    agent.write_text("import json, sys\nsys.stdin.readline()\nprint('INFO: loading model...')\n"
                     "print(json.dumps({'outcome': 'route_official_source'}))\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    private = tmp_path / "p.json"
    rc, _, stderr = aau(capsys, str(suite), "--command", f"{sys.executable} {agent}",
                        "--out", str(tmp_path / "r.json"), "--private-out", str(private))
    assert rc == 3  # no answer could be read: the wiring was measured, not the agent
    assert not (tmp_path / "r.json").exists()
    assert "adapter-invalid-response x2, first at 'c-0' repeat 0: answer is not one JSON " \
        "object" in stderr
    assert "log line before the answer" in stderr
    assert ("nothing was measured: no unit's answer could be read (adapter-invalid-response 2): "
            "the agent must print (or answer) one JSON response object per case") in stderr
    rows = json.loads(private.read_text(encoding="utf-8"))["results"]
    assert all(r["error_detail"].startswith("answer is not one JSON object") for r in rows)


def test_a_run_where_every_unit_failed_two_ways_says_how_many_of_each(tmp_path, capsys):
    agent = tmp_path / "half.py"
    agent.write_text("import json, sys\nreq = json.loads(sys.stdin.readline())\n"
                     "if req['scenario_id'] == 'c-0':\n    print('not json')\n"
                     "else:\n    raise SystemExit(4)\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    rc, _, stderr = aau(capsys, str(suite), "--command", f"{sys.executable} {agent}",
                        "--out", str(tmp_path / "r.json"))
    assert rc == 3  # one unit measured by the coverage, but no answer read on any unit
    assert "adapter-invalid-response x1" in stderr and "adapter-exit-4 x1" in stderr
    assert ("no unit's answer could be read (adapter-exit-4 1, adapter-invalid-response 1)"
            in stderr)


def test_crashing_agent_detail_names_status_and_last_stderr_line(tmp_path, capsys):
    agent = tmp_path / "crash.py"
    agent.write_text("raise SystemExit('model weights not found')\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    rc, _, stderr = aau(capsys, str(suite), "--command", f"{sys.executable} {agent}",
                        "--out", str(tmp_path / "r.json"))
    assert rc == 3  # nothing was measured: no receipt, but the reason is on the terminal
    assert "adapter-exit-1 x1, first at 'c-0' repeat 0: exited with status 1; last stderr " \
        "line: model weights not found" in stderr
    assert not (tmp_path / "r.json").exists()


@pytest.mark.skipif(sys.version_info < (3, 11), reason="ExceptionGroup and ^ markers: 3.11+")
def test_a_traceback_s_decoration_is_not_the_last_stderr_line(tmp_path, capsys):
    """A real exception-group traceback ends in a ``+----`` border and frames lines in ``|``;
    the reason shown is the exception's own line."""
    agent = tmp_path / "group.py"
    agent.write_text("import asyncio\n\nasync def call():\n"
                     "    raise ConnectionError('All connection attempts failed')\n\n"
                     "async def main():\n    async with asyncio.TaskGroup() as group:\n"
                     "        group.create_task(call())\n\nasyncio.run(main())\n",
                     encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    rc, _, stderr = aau(capsys, str(suite), "--command", f"{sys.executable} {agent}",
                        "--out", str(tmp_path / "r.json"))
    assert rc == 3
    assert ("exited with status 1; last stderr line: ConnectionError: All connection attempts "
            "failed") in stderr


def test_a_node_crash_names_its_error_not_node_s_version(tmp_path, capsys):
    import shutil

    node = shutil.which("node")
    if node is None:
        pytest.skip("node is not installed")
    agent = tmp_path / "crash.mjs"
    agent.write_text("throw new Error('deliberate crash');\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    rc, _, stderr = aau(capsys, str(suite), "--command", f"{node} {agent}",
                        "--out", str(tmp_path / "r.json"))
    assert rc == 3
    assert "exited with status 1; last stderr line: Error: deliberate crash" in stderr


@pytest.mark.parametrize("tail,line", [
    (None, ""), ("", ""), ("\n  \n", ""), ("+------------\n", ""),
    ("boom\n    x = f()\n        ^^^\n", "x = f()"),
    ("  | ValueError: bad\n  +------------------------------------\n", "ValueError: bad"),
    ("+-+---------------- 1 ----------------\n", ""),
    ("error: the following arguments are required: --suite\n",
     "error: the following arguments are required: --suite"),
    ("file:///a.mjs:3\n    throw new Error('x');\n    ^\n\nError: deliberate crash\n"
     "    at file:///a.mjs:3:11\n    at ModuleJob.run (node:internal/modules:1:2)\n\n"
     "Node.js v20.20.2\n", "Error: deliberate crash"),
    ('Exception in thread "main" java.lang.IllegalStateException: no model\n'
     "\tat Main.main(Main.java:3)\n",
     'Exception in thread "main" java.lang.IllegalStateException: no model'),
    ("panic: no model\n\ngoroutine 1 [running]:\nmain.main()\n\t/tmp/a.go:5 +0x18\n"
     "exit status 2\n", "panic: no model"),
])
def test_last_stderr_line(tail, line):
    from aau_adapters._command_adapter import last_stderr_line

    assert last_stderr_line(tail) == line


def test_json_prints_a_summary_on_stdout_only(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    out = tmp_path / "r.json"
    rc, stdout, stderr = aau(capsys, str(suite), "--mock", "--json", "--out", str(out))
    assert rc == 0
    summary = json.loads(stdout)
    assert summary["receipt_path"] == str(out)
    assert summary["passed"] is True
    assert summary["metrics"]["exact_rate"] == 1.0
    assert "exact_rate" in stderr  # human output stays on stderr


def test_fail_under_exit_1_but_the_receipt_is_written(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc, stdout, stderr = aau(capsys, str(EXAMPLE_SUITE), "--command", agent_command(),
                             "--fail-under", "exact_rate=0.9", "--fail-under", "submitted_rate=1",
                             "--out", str(out), "--json")
    assert rc == 1
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert receipt["fail_under"] == [
        {"metric": "exact_rate", "threshold": 0.9, "value": 0.875, "passed": False},
        {"metric": "submitted_rate", "threshold": 1.0, "value": 1.0, "passed": True},
    ]
    assert json.loads(stdout)["passed"] is False
    assert "NOT MET" in stderr
    rc, _, _ = aau(capsys, str(EXAMPLE_SUITE), "--command", agent_command(),
                   "--fail-under", "exact_rate=0.875", "--out", str(out), "--force")
    assert rc == 0


def test_aau_1_0_format_validates_and_has_exact_keys(tmp_path, capsys):
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    rc, _, _ = aau(capsys, str(EXAMPLE_SUITE), "--command", agent_command(), "--format",
                   "aau-1.0", "--out", str(out), "--private-out", str(private))
    assert rc == 0
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v1", receipt)
    aau_schemas.validate("private-receipt-v1", json.loads(private.read_text(encoding="utf-8")))
    assert sorted(receipt) == ["adapter_kind", "boundary", "metrics", "privacy",
                               "receipt_version", "results", "scenario_count", "suite_id",
                               "suite_sha256"]
    assert check_receipt(receipt) == []


def test_results_identical_whatever_the_concurrency(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", {
        **valid_suite(0),
        "cases": [{"scenario_id": f"c{i}", "input": {
            "source_state": ["current", "expired"][i % 2],
            "channel_need": ["web", "staffed_accessible", "web"][i % 3]},
            "expected": {"outcome": "route_official_source"}} for i in range(12)]})
    rows = []
    for conc in ("1", "6"):
        out = tmp_path / f"r{conc}.json"
        assert aau(capsys, str(suite), "--command", agent_command(), "--concurrency", conc,
                   "--out", str(out))[0] == 0
        doc = json.loads(out.read_text(encoding="utf-8"))
        rows.append([{k: v for k, v in r.items() if k != "latency_s"} for r in doc["results"]])
    assert rows[0] == rows[1]


# ---------------------------------------------------------------- bad input: exit 2, one line

def _bad_suite_cases(tmp_path: Path) -> dict[str, tuple[Path, str]]:
    """name -> (suite file, a fragment the error line must contain)."""
    d = {}
    def put(name: str, content: bytes | str, fragment: str) -> None:
        p = tmp_path / f"{name}.json"
        p.write_bytes(content if isinstance(content, bytes) else content.encode())
        d[name] = (p, fragment)

    good = valid_suite(2)
    put("not-json", "{ this is not json", "$: invalid JSON")
    put("nan", json.dumps(good).replace('"c-0"', '"c-0", "score": NaN'), "$.cases[0].score")
    put("dup-key", json.dumps(good).replace('"suite_id": "t-suite"',
                                            '"suite_id": "a", "suite_id": "b"'), "duplicate key")
    put("bad-utf8", json.dumps(good).encode().replace(b"t-suite", b"t-\xff"), "UTF-8")
    put("deep", json.dumps({**good, "x": json.loads("[" * 150 + "]" * 150)}), "nested deeper")
    put("dup-id", json.dumps({**good, "cases": good["cases"] + [good["cases"][0]]}),
        "$.cases[2].scenario_id: duplicate scenario_id")
    put("version", json.dumps({**good, "suite_version": "aau-byo-agent-suite/9"}),
        "$.suite_version")
    put("no-cases", json.dumps({**good, "cases": []}), "$.cases")
    sharing = dict(good["sharing"])
    del sharing["contains_secrets_or_credentials"]
    put("sharing", json.dumps({**good, "sharing": sharing}), "$.sharing")
    put("expected", json.dumps({**good, "cases": [{"scenario_id": "x", "input": {},
                                                    "expected": {}}]}), "$.cases[0].expected")
    put("root-array", "[]", "$")
    put("bom-garbage", b"\xef\xbb\xbf\xef\xbb\xbf{}", "$")
    return d


def test_every_bad_suite_is_one_line_naming_file_and_path(tmp_path, capsys):
    for name, (path, fragment) in _bad_suite_cases(tmp_path).items():
        out = tmp_path / f"{name}.receipt.json"
        rc, stdout, stderr = aau(capsys, str(path), "--mock", "--out", str(out))
        assert rc == 2, (name, stderr)
        assert stdout == "", name
        assert not out.exists(), name
        lines = stderr.strip().splitlines()
        assert lines, name
        assert all(line.startswith(f"aau: error: {path}: $") for line in lines), (name, lines)
        assert fragment in stderr, (name, stderr)
        assert "Traceback" not in stderr


def test_suite_size_cap(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    size = suite.stat().st_size
    rc, _, stderr = aau(capsys, str(suite), "--mock", "--max-suite-bytes", str(size - 1))
    assert rc == 2 and "limit" in stderr and str(suite) in stderr
    rc, _, _ = aau(capsys, str(suite), "--mock", "--max-suite-bytes", str(size))
    assert rc == 0


def test_default_cap_is_aau_16s_2_000_000_bytes(tmp_path, capsys):
    doc = valid_suite(1)
    text = json.dumps(doc)
    pad = 2_000_000 - len(text) - len(', "pad": ""')
    doc["pad"] = "x" * pad
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(doc), encoding="utf-8")
    assert suite.stat().st_size == 2_000_000
    assert aau(capsys, str(suite), "--mock")[0] == 0
    suite.write_text(json.dumps({**doc, "pad": doc["pad"] + "x"}), encoding="utf-8")
    rc, _, stderr = aau(capsys, str(suite), "--mock")
    assert rc == 2 and "2,000,000-byte limit; --max-suite-bytes N raises it" in stderr


@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["--command", ""], "--command is empty"),
        (["--command", "   "], "--command is empty"),
        (["--command", "'unbalanced"], "--command"),
        (["--command", "/no/such/agent"], "no such file"),
        (["--command", "no-such-program-aau-test"], "not found"),
        (["--endpoint", ""], "--endpoint is empty"),
        (["--endpoint", "ftp://host/x"], "http://"),
        (["--endpoint", "http://"], "no host"),
        (["--endpoint", "http://host:99999/"], "not a valid URL"),
        (["--endpoint", "http://u:secret@host/"], "credentials"),
        ([], "choose exactly one adapter"),
        (["--mock", "--command", "x"], "choose exactly one adapter"),
        (["--mock", "--timeout", "0"], "--timeout"),
        (["--mock", "--timeout", "-1"], "--timeout"),
        (["--mock", "--timeout", "nan"], "--timeout"),
        (["--mock", "--fail-under", "exact_rate"], "METRIC=VALUE"),
        (["--mock", "--fail-under", "speed=1"], "unknown metric"),
        (["--mock", "--fail-under", "exact_rate=1.5"], "[0, 1]"),
        (["--mock", "--fail-under", "exact_rate=high"], "not a number"),
        (["--mock", "--format", "aau-1.0", "--repeats", "2"], "one repeat"),
        (["--mock", "--repeats", "0"], "--repeats"),
        (["--mock", "--concurrency", "0"], "--concurrency"),
    ],
)
def test_usage_errors_exit_2_with_one_line(tmp_path, capsys, args, fragment):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    out = tmp_path / "r.json"
    rc, stdout, stderr = aau(capsys, str(suite), *args, "--out", str(out))
    assert rc == 2, stderr
    assert fragment in stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    assert stdout == ""


def test_missing_suite_file(tmp_path, capsys):
    rc, _, stderr = aau(capsys, str(tmp_path / "nope.json"), "--mock")
    assert rc == 2 and "nope.json: no such file" in stderr


def test_existing_out_without_force_is_refused_before_running(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    out = tmp_path / "r.json"
    out.write_text("keep me", encoding="utf-8")
    rc, _, stderr = aau(capsys, str(suite), "--mock", "--out", str(out))
    assert rc == 2 and "already exists" in stderr and "--force" in stderr
    assert out.read_text(encoding="utf-8") == "keep me"
    private = tmp_path / "p.json"
    private.write_text("keep", encoding="utf-8")
    rc, _, stderr = aau(capsys, str(suite), "--mock", "--out", str(tmp_path / "new.json"),
                        "--private-out", str(private))
    assert rc == 2 and not (tmp_path / "new.json").exists()
    assert aau(capsys, str(suite), "--mock", "--out", str(out), "--force")[0] == 0
    assert json.loads(out.read_text(encoding="utf-8"))["suite_id"] == "t-suite"


def test_same_file_for_out_and_private_out(tmp_path, capsys):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    rc, _, stderr = aau(capsys, str(suite), "--mock", "--out", str(tmp_path / "x.json"),
                        "--private-out", str(tmp_path / "x.json"))
    assert rc == 2 and "--out and --private-out name the same file" in stderr
    assert not (tmp_path / "x.json").exists()


def test_every_case_unreachable_is_a_non_measurement(tmp_path, capsys):
    """An unreachable endpoint fails every case with its own code: exit 3, not "bar not met",
    and no receipt; the checkpoint keeps every unit's reason."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    sock.close()
    suite = write_json(tmp_path / "s.json", valid_suite(3))
    out = tmp_path / "r.json"
    rc, _, stderr = aau(capsys, str(suite), "--endpoint", f"http://127.0.0.1:{port}/x",
                        "--timeout", "2", "--out", str(out), "--fail-under", "exact_rate=0.5")
    assert rc == 3, stderr
    assert not out.exists()
    lines = (tmp_path / "r.json.checkpoint.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["result"]["adapter_error"] for line in lines[1:]] == [
        "adapter-unreachable"] * 3


# ---------------------------------------------------------------- the real console script

def test_console_script_and_alias(tmp_path):
    suite = write_json(tmp_path / "s.json", valid_suite(1))
    env = env_without_debug()
    done = subprocess.run([aau_script(), "evaluate", str(suite), "--mock", "--json"],
                          capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["adapter_kind"] == "mock"
    alias = Path(aau_script()).with_name("aau-evaluate")
    done = subprocess.run([str(alias), str(suite), "--command", ""], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 2
    assert done.stderr.strip() == "aau: error: --command is empty; give the program to run, " \
        "e.g. --command \"python my_agent.py\""


def test_ctrl_c_keeps_finished_cases_and_writes_no_receipt(tmp_path):
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import json, sys, time\n"
        "req = json.loads(sys.stdin.readline())\n"
        "if req['scenario_id'] != 'c-0':\n"
        "    time.sleep(30)\n"
        "print(json.dumps({'outcome': 'route_official_source'}))\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(4))
    out = tmp_path / "r.json"
    proc = subprocess.Popen(
        [aau_script(), "evaluate", str(suite), "--command", f"{sys.executable} {agent}",
         "--concurrency", "4", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_without_debug(),
    )
    ckpt = tmp_path / "r.json.checkpoint.jsonl"
    time.sleep(2.0)  # c-0 answers at once; the other three hang
    proc.send_signal(signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted after 1 of 4" in stderr
    assert f"finished units kept in {ckpt}: resume with --resume" in stderr
    assert "Traceback" not in stderr
    assert not out.exists()
    rows = _checkpoint_rows(ckpt)  # the checkpoint is the one record of finished units
    assert [r["scenario_id"] for r in rows] == ["c-0"] and rows[0]["exact"] is True
    assert not (tmp_path / "r.json.partial.jsonl").exists()
    leftovers = [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def _checkpoint_rows(path):
    """The receipt rows of the units an interrupted run recorded in its checkpoint."""
    from aau_core import read_checkpoint

    _header, finished, _size = read_checkpoint(path)
    return [finished[i]["row"] for i in sorted(finished)]


@pytest.mark.parametrize("concurrency", ["1", "3"])
def test_two_ctrl_c_in_a_row_still_keep_finished_cases(tmp_path, concurrency):
    """`timeout -s INT` signals the process and then its group: two SIGINTs microseconds apart."""
    agent = tmp_path / "agent.py"
    agent.write_text(
        "import json, sys, time\n"
        "req = json.loads(sys.stdin.readline())\n"
        "if req['scenario_id'] not in ('c-0', 'c-1'):\n"
        "    time.sleep(30)\n"
        "print(json.dumps({'outcome': 'route_official_source'}))\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(6))
    for attempt in range(3):  # the old fault showed about every other time
        out = tmp_path / f"r{attempt}.json"
        proc = subprocess.Popen(
            [aau_script(), "evaluate", str(suite), "--command", f"{sys.executable} {agent}",
             "--concurrency", concurrency, "--out", str(out)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env_without_debug(),
        )
        ckpt = tmp_path / f"r{attempt}.json.checkpoint.jsonl"
        time.sleep(1.5)  # c-0 and c-1 answer at once; then the run is stuck on c-2...
        os.kill(proc.pid, signal.SIGINT)
        os.kill(proc.pid, signal.SIGINT)
        _, stderr = proc.communicate(timeout=30)
        assert proc.returncode == 130, stderr
        assert "Traceback" not in stderr and "internal error" not in stderr, stderr
        assert "interrupted after 2 of 6" in stderr, stderr
        rows = _checkpoint_rows(ckpt)
        assert sorted(r["scenario_id"] for r in rows) == ["c-0", "c-1"]
        assert not out.exists()



# SIGTERM is what CI cancellation, `docker stop`, Kubernetes and `timeout` send: it must stop a
# run exactly like the first Ctrl-C (exit 130, agents' process groups killed, checkpoint kept)

_RECORDING_AGENT = (
    "import json, os, pathlib, sys, time\n"
    "req = json.loads(sys.stdin.readline())\n"
    "folder = pathlib.Path(sys.argv[1])\n"
    "(folder / f'{os.getpid()}.pid').write_text(req['scenario_id'])\n"
    "if req['scenario_id'] != 'c-0' and not (folder / 'fast').exists():\n"
    "    time.sleep(30)\n"
    "print(json.dumps({'outcome': 'route_official_source'}))\n")


def _recording_agent(tmp_path):
    """``(command, folder)``: an agent that writes ``FOLDER/PID.pid`` (its scenario id) when it
    starts, answers c-0 at once and hangs 30 s on any other case unless ``FOLDER/fast`` exists."""
    agent = tmp_path / "agent.py"
    agent.write_text(_RECORDING_AGENT, encoding="utf-8")
    folder = tmp_path / "pids"
    folder.mkdir()
    return f"{sys.executable} {agent} {folder}", folder


def _started(folder):
    """``{pid: scenario_id}`` of every agent process started so far."""
    return {int(p.stem): p.read_text(encoding="utf-8") for p in folder.glob("*.pid")}


def _alive(pid):
    """Whether process ``pid`` still runs (a zombie waiting to be reaped does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        stat = Path(f"/proc/{pid}/stat").read_text(encoding="utf-8")
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def _survivors(pids, wait_s=5.0):
    deadline = time.monotonic() + wait_s
    while True:
        alive = [pid for pid in pids if _alive(pid)]
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
@pytest.mark.parametrize("concurrency", ["1", "4"])
def test_sigterm_is_a_ctrl_c_agents_killed_checkpoint_kept_and_resumed(tmp_path, concurrency):
    command, folder = _recording_agent(tmp_path)
    suite = write_json(tmp_path / "s.json", valid_suite(4))
    out = tmp_path / "r.json"
    ckpt = tmp_path / "r.json.checkpoint.jsonl"
    argv = [aau_script(), "evaluate", str(suite), "--command", command, "--concurrency",
            concurrency, "--out", str(out)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=env_without_debug())
    hanging = 1 if concurrency == "1" else 3
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and proc.poll() is None:  # c-0 done, the others hang
        if len(_started(folder)) == 1 + hanging and ckpt.exists() \
                and len(ckpt.read_text(encoding="utf-8").splitlines()) == 2:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted after 1 of 4" in stderr, stderr
    assert f"finished units kept in {ckpt}: resume with --resume" in stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    assert not out.exists()
    started = _started(folder)
    assert len(started) == 1 + hanging
    assert _survivors(started) == []  # the hanging agents' process groups were killed
    assert [r["scenario_id"] for r in _checkpoint_rows(ckpt)] == ["c-0"]

    (folder / "fast").write_text("", encoding="utf-8")  # same command; the agents now answer
    done = subprocess.run([*argv, "--resume"], capture_output=True, text=True,
                          env=env_without_debug(), timeout=60)
    assert done.returncode == 0, done.stderr
    assert out.exists()
    runs = sorted(_started(folder).values())
    assert runs.count("c-0") == 1  # the unit finished before SIGTERM was not run again
    assert sorted(set(runs)) == ["c-0", "c-1", "c-2", "c-3"]


@pytest.mark.skipif(shutil.which("timeout") is None, reason="needs coreutils timeout")
def test_timeout_s_term_exits_130_and_leaves_no_agent_running(tmp_path):
    """The user's report: `timeout --preserve-status -s TERM 2 aau evaluate ... --concurrency 4`
    exited 143, printed nothing and left 4 agents running. `timeout` signals aau and then its
    own process group: two SIGTERMs microseconds apart."""
    command, folder = _recording_agent(tmp_path)
    suite = write_json(tmp_path / "s.json", valid_suite(20))
    out = tmp_path / "r.json"
    done = subprocess.run(
        ["timeout", "--preserve-status", "-s", "TERM", "3", aau_script(), "evaluate", str(suite),
         "--command", command, "--concurrency", "4", "--out", str(out)],
        capture_output=True, text=True, env=env_without_debug(), timeout=60)
    assert done.returncode == 130, done.stderr
    assert "interrupted" in done.stderr
    assert "Traceback" not in done.stderr and "internal error" not in done.stderr, done.stderr
    assert not out.exists()
    assert _survivors(_started(folder)) == []

def test_help_has_an_example_and_exit_codes():
    done = subprocess.run([aau_script(), "evaluate", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    assert "Examples:" in done.stdout and "Exit codes" in done.stdout
    assert "--fail-under" in done.stdout
    # the receipt version the help names is the one evaluate writes (it once said 2.0 for 2.1)
    from aau_adapters._receipt import RECEIPT_V2

    assert RECEIPT_V2 in "".join(done.stdout.split())  # click wraps at the hyphens


@pytest.mark.skipif(os.name != "posix", reason="process groups are POSIX")
def test_timeout_kills_the_agent_and_scores_adapter_timeout(tmp_path, capsys):
    agent = tmp_path / "hang.py"
    agent.write_text("import time\ntime.sleep(60)\n", encoding="utf-8")
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    out = tmp_path / "r.json"
    t0 = time.monotonic()
    rc, stdout, _ = aau(capsys, str(suite), "--command", f"{sys.executable} {agent}", "--timeout",
                        "0.5", "--concurrency", "2", "--out", str(out), "--json")
    assert time.monotonic() - t0 < 10
    assert rc == 3 and not out.exists()  # every unit timed out: nothing was measured
    assert json.loads(stdout)["failure_code_counts"] == {"adapter-timeout": 2}


def test_out_in_a_new_subfolder_is_created_with_its_checkpoint(tmp_path, capsys, monkeypatch):
    # the checkpoint beside --out is opened before the receipt is written: its folder must be
    # created by the same rule (below the current directory), not fail as an internal error
    monkeypatch.chdir(tmp_path)
    suite = write_json(tmp_path / "s.json", valid_suite(2))
    rc, _, stderr = aau(capsys, str(suite), "--mock", "--out", "runs/today/r.json")
    assert rc == 0, stderr
    aau_schemas.validate("receipt-v2", json.loads((tmp_path / "runs/today/r.json").read_text()))
    assert not (tmp_path / "runs/today/r.json.checkpoint.jsonl").exists()  # removed when done


# ------------------------------------------- a partly crashed run under both receipt formats

CRASHED = Path(__file__).parent / "fixtures" / "crashed-run"
LATENCY = re.compile(r'("(?:mean_)?latency_s": )[0-9.eE+-]+')


def test_aau_1_0_receipt_of_a_crashed_run_is_what_it_was_before_coverage(tmp_path, capsys):
    """--format aau-1.0 keeps aau-harness 1.6's arithmetic byte for byte: the crashed units'
    negative checks stay vacuously true (2 of 8 units exit 1). The fixture is the receipt and
    private detail aau wrote for this run before receipt 2.1 (latencies masked)."""
    out, private = tmp_path / "r.json", tmp_path / "p.json"
    rc, _, err = aau(capsys, str(EXAMPLE_SUITE), "--command",
                     f"{sys.executable} {CRASHED / 'agent.py'}", "--format", "aau-1.0",
                     "--out", str(out), "--private-out", str(private), "--no-store")
    assert rc == 0, err
    text = out.read_text(encoding="utf-8")
    assert LATENCY.sub(r"\1<latency>", text) == (CRASHED / "receipt-1.0.masked.json").read_text(
        encoding="utf-8")
    assert text != LATENCY.sub(r"\1<latency>", text)  # there were latencies to mask
    assert private.read_text(encoding="utf-8") == (CRASHED / "private-1.0.json").read_text(
        encoding="utf-8")
    assert json.loads(text)["metrics"]["no_forbidden_execute_rate"] == 1.0
    assert "2 of 8 unit(s) not measured: 2 adapter (adapter-exit-1 2)" in err  # said, not written


def test_v2_receipt_of_the_same_crashed_run_counts_coverage(tmp_path, capsys):
    out = tmp_path / "r.json"
    rc, _, err = aau(capsys, str(EXAMPLE_SUITE), "--command",
                     f"{sys.executable} {CRASHED / 'agent.py'}", "--out", str(out), "--no-store",
                     "--fail-under", "no_forbidden_execute_rate=0.75")
    assert rc == 3, err  # 0.75 reaches the bar, but 2 of the 8 answers were never read
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert receipt["coverage"] == {"units": 8, "measured": 6, "not_measured": 2,
                                   "adapter_failures": 2, "infrastructure_failures": 0,
                                   "rate": 0.75}
    assert receipt["metrics"]["no_forbidden_execute_rate"] == 0.75  # 1.6 arithmetic said 1.0
    assert receipt["fail_under"] == [{"metric": "no_forbidden_execute_rate", "threshold": 0.75,
                                      "value": 0.75, "passed": False, "coverage": 0.75,
                                      "min_coverage": 1.0}]
    assert check_receipt(receipt) == []
