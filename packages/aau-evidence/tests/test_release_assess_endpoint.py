"""``aau release assess --endpoint URL --header 'NAME: VALUE'``: a release gate on a hosted agent
behind a credential. The agent is the repository's example command agent behind a real
``http.server`` that refuses a request without the bearer token (HTTP 401)."""

from __future__ import annotations

import http.server
import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from _helpers import COMMAND_AGENT
from _release_workspace import assess_args, make_workspace, run_aau

TOKEN = "tok-9f3c1e55-release-gate"  # noqa: S105 - a test credential, checked never written


@pytest.fixture
def guarded_agent() -> Iterator[str]:
    """The URL of the example agent, answering only ``Authorization: Bearer TOKEN``."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if self.headers.get("Authorization") != f"Bearer {TOKEN}":
                answer, status = b'{"error": "unauthorized"}', 401
            else:
                answer = subprocess.run([sys.executable, str(COMMAND_AGENT)], input=body,
                                        capture_output=True, timeout=30, check=True).stdout
                status = 200
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/agent"
    finally:
        server.shutdown()
        server.server_close()


def test_release_assess_sends_the_header_and_never_writes_it(tmp_path: Path, guarded_agent: str,
                                                             monkeypatch) -> None:
    ws = make_workspace(tmp_path / "ws")
    out = ws / "pack"
    refused = run_aau(*assess_args(ws, out, "--endpoint", guarded_agent))
    assert refused.returncode == 3, refused.stderr  # every case 401: nothing measured
    assert "the endpoint refused the credential, or had none: check --header" in refused.stderr
    assert not out.exists()
    monkeypatch.setenv("AGENT_TOKEN", TOKEN)
    proc = run_aau(*assess_args(ws, out, "--endpoint", guarded_agent, "--header",
                                "Authorization: Bearer ${AGENT_TOKEN}"), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "release_ready"
    assert TOKEN not in proc.stdout + proc.stderr
    written = [p for p in out.rglob("*") if p.is_file()]
    assert written and not [p for p in written if TOKEN.encode() in p.read_bytes()]


def test_release_assess_refuses_a_header_without_an_endpoint(tmp_path: Path) -> None:
    ws = make_workspace(tmp_path / "ws")
    proc = run_aau(*assess_args(ws, ws / "pack", "--mock", "--header", "X-Api-Key: k"))
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("aau: error: --header applies to --endpoint only (it is sent "
                                   "with each HTTP request); --mock sends no HTTP request")
