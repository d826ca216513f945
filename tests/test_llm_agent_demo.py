"""tools/demo_llm.py without a model: the server is stopped on every exit path, models are pinned.

A stand-in ``llama_cpp.server`` (a standard-library HTTP server answering ``GET /v1/models``, put
first on ``PYTHONPATH``) is started by the demo's own ``llama_server`` context manager, exactly as
the real one is (``python -m llama_cpp.server --port P ...``, own process group). The tests leave
the block normally, by an exception and by Ctrl-C (``KeyboardInterrupt``), and check that the
process group is gone each time; a server that dies before it is ready is a one-line step error.
"""

from __future__ import annotations

import hashlib
import os
import sys
import textwrap
import urllib.request
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tools"))

import demo_llm as demo  # noqa: E402

FAKE_SERVER = textwrap.dedent("""
    import argparse, json, os, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer

    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int)
    args, _ = parser.parse_known_args()
    if os.environ.get("FAKE_LLAMA_FAIL"):
        sys.exit(3)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = json.dumps({"object": "list", "data": [{"id": "fake"}]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    HTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
""")


@pytest.fixture()
def fake_llama(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    package = tmp_path / "fake" / "llama_cpp"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "server.py").write_text(FAKE_SERVER)
    monkeypatch.setenv("PYTHONPATH", str(tmp_path / "fake"))
    return tmp_path


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _start(demo: Any, tmp_path: Path, *, timeout: float = 60) -> Any:
    return demo.llama_server(Path(sys.executable), tmp_path / "m.gguf", "fake",
                             tmp_path / "server.log", timeout)


def _server_pids(base: str) -> list[int]:
    """The pids of processes running the fake server on this base URL's port."""
    port = base.rsplit(":", 1)[1].split("/")[0]
    pids = []
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                cmd = (proc / "cmdline").read_bytes().split(b"\0")
            except OSError:
                continue
            if b"llama_cpp.server" in cmd and port.encode() in cmd:
                pids.append(int(proc.name))
    return pids


@pytest.mark.parametrize("exit_path", ["normal", "error", "ctrl-c"])
def test_server_is_stopped_on_every_exit_path(fake_llama: Path, exit_path: str) -> None:
    raised = {"normal": None, "error": RuntimeError, "ctrl-c": KeyboardInterrupt}[exit_path]
    pids: list[int] = []
    try:
        with _start(demo, fake_llama) as base:
            with urllib.request.urlopen(f"{base}/models", timeout=5) as answer:
                assert answer.status == 200
            pids = _server_pids(base)
            assert pids and all(_alive(pid) for pid in pids)
            if raised is not None:
                raise raised("stop")
    except (RuntimeError, KeyboardInterrupt) as error:
        assert raised is not None and isinstance(error, raised)
    assert pids
    assert not any(_alive(pid) for pid in pids)


def test_a_server_that_dies_before_it_is_ready_is_a_step_error(
        fake_llama: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_LLAMA_FAIL", "1")
    with pytest.raises(demo.StepError, match="exited with code 3 before it was ready"):
        with _start(demo, fake_llama):
            pass


def test_models_are_pinned_and_a_gguf_path_is_hashed(tmp_path: Path) -> None:
    for choice, count in (("0.5b", 6), ("1.5b", 22)):
        pin = demo.MODELS[choice]
        assert len(pin["wheels"]) == count
        assert all(len(digest) == 64 for _, digest in pin["wheels"])
        lines = demo._requirements(pin).splitlines()
        assert lines[0].endswith(f"=={pin['version']} --hash=sha256:{pin['wheels'][0][1]}")
    gguf = tmp_path / "tiny.gguf"
    gguf.write_bytes(b"GGUF" + bytes(100))
    path, facts = demo.ensure_model(tmp_path, str(gguf))
    assert path == gguf.resolve()
    assert facts["sha256"] == hashlib.sha256(gguf.read_bytes()).hexdigest()
    assert facts["bytes"] == 104 and "not pinned" in facts["source"]
    with pytest.raises(demo.StepError, match="not 0.5b, 1.5b or an existing GGUF file"):
        demo.ensure_model(tmp_path, str(tmp_path / "missing.gguf"))


TAU2 = REPO.parent / "shared" / "datasets" / "tau2"


def test_the_mcp_run_scripts_a_user_for_every_tau2_mock_conversation(tmp_path: Path) -> None:
    """``import_mcp_suites``: the τ² mock tasks imported as conversations, each with the scripted
    user of ``TAU2_USER_SCRIPTS``; the suite is schema-valid and names no task the script lacks."""
    pytest.importorskip("mcp")
    if not (TAU2 / "tau2_mock_tasks.json").is_file():
        pytest.skip("the tau2 data live in ../shared/datasets/tau2, beside the repository")
    import json

    from aau_schemas import validate

    [(name, path)] = demo.import_mcp_suites(tmp_path, str(TAU2), {"tau2-mock-conversations"})
    assert name == "tau2-mock-conversations" and path.parent == tmp_path / "suites"
    assert [p.name for p in path.parent.iterdir()] == [path.name]  # the raw import is gone
    doc = json.loads(path.read_text())
    validate("suite-v3", doc, source=str(path))
    assert [c["scenario_id"] for c in doc["cases"]] == list(demo.TAU2_USER_SCRIPTS)
    for case in doc["cases"]:
        assert case["user"] == {"kind": "scripted", "max_turns": 6,
                                "messages": demo.TAU2_USER_SCRIPTS[case["scenario_id"]]}
        assert case["environment"]["name"] == "tau2-mock"


def test_the_readme_gets_the_mcp_table_beside_the_first_and_keeps_both(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text(f"# Real\n\nprose\n\n{demo.TABLE_START}\nold\n{demo.TABLE_END}\n\nmore\n")
    demo.update_readme(tmp_path, "| mcp |\n", demo.MCP_TABLE_START)
    demo.update_readme(tmp_path, "| single |\n")
    demo.update_readme(tmp_path, "| mcp 2 |\n", demo.MCP_TABLE_START)
    text = readme.read_text()
    assert text == (f"# Real\n\nprose\n\n{demo.TABLE_START}\n| single |\n{demo.TABLE_END}\n\n"
                    f"more\n\n{demo.MCP_TABLE_START}\n| mcp 2 |\n{demo.MCP_TABLE_END}\n")
