"""Shared helpers for the cross-package tests (imported by the test modules, not a conftest)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from socketserver import BaseServer
from typing import TypeVar

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared"
COMPAT_EVALUATE = SHARED / "compat" / "aau-1.6" / "evaluate"
EXAMPLE_SUITE = REPO / "examples" / "suites" / "public-service-routing.json"
COMMAND_AGENT = REPO / "examples" / "agents" / "command_agent.py"
HTTP_AGENT = REPO / "examples" / "agents" / "http_agent.py"
SHARED_MISSING = ("compatibility fixtures from aau-harness 1.6 live in ../shared, beside the "
                  "repository; a plain clone has none (CI does), so these comparisons are skipped")


def aau_script() -> str:
    """The `aau` console script of the running environment."""
    path = Path(sys.executable).parent / "aau"
    if not path.exists():
        raise RuntimeError(f"`aau` not installed next to {sys.executable}")
    return str(path)


def agent_command() -> str:
    """A --command string running the example command agent with this interpreter."""
    return f"{sys.executable} {COMMAND_AGENT}"


def valid_suite(cases: int = 2, **overrides: object) -> dict:
    """A minimal valid aau-byo-agent-suite/1.0 document."""
    doc = {
        "suite_version": "aau-byo-agent-suite/1.0",
        "suite_id": "t-suite",
        "sharing": {
            "classification": "synthetic",
            "human_review_complete": True,
            "contains_personally_identifiable_information": False,
            "contains_procurement_sensitive_information": False,
            "contains_controlled_unclassified_information": False,
            "contains_classified_information": False,
            "contains_secrets_or_credentials": False,
        },
        "cases": [
            {"scenario_id": f"c-{i}", "input": {"source_state": "current", "channel_need": "web"},
             "expected": {"outcome": "route_official_source"},
             "forbidden_actions": ["alter_record"]}
            for i in range(cases)
        ],
    }
    doc.update(overrides)
    return doc


def write_json(path: Path, doc: object) -> Path:
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return path


class HttpAgent:
    """Runs examples/agents/http_agent.py on a free port for the duration of a `with` block."""

    def __init__(self, *extra: str) -> None:
        self.extra = extra
        self.proc: subprocess.Popen[str] | None = None
        self.url = ""

    def __enter__(self) -> HttpAgent:
        self.proc = subprocess.Popen(
            [sys.executable, str(HTTP_AGENT), "--port", "0", *self.extra],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        assert self.proc.stdout is not None
        deadline = time.monotonic() + 15
        line = ""
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if "listening on" in line or not line:
                break
        match = re.search(r"(http://\S+)", line)
        if not match:
            self.__exit__()
            raise RuntimeError(f"http agent did not start: {line!r}")
        self.url = match.group(1)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def env_without_debug() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("AAU_DEBUG", None)
    return env


NOT_REGULAR = "is not a regular file (a device, pipe or link); name a regular file"
"""The end of aau's one-line refusal of a device, pipe or link destination."""


def special_file(folder: Path, kind: str) -> Path:
    """A destination that is not a regular file: ``fifo``, ``symlink`` (to ``target.txt``,
    holding ``keep``) or ``device`` (a character device, or a symlink to /dev/null without
    the privilege to make one). POSIX only."""
    import stat

    dest = folder / f"special-{kind}"
    if kind == "fifo":
        os.mkfifo(dest)
    elif kind == "symlink":
        (folder / "target.txt").write_text("keep\n")
        dest.symlink_to(folder / "target.txt")
    else:
        try:
            os.mknod(dest, 0o666 | stat.S_IFCHR, os.makedev(1, 3))  # mknod fakenull c 1 3
        except PermissionError:
            dest.symlink_to("/dev/null")
    return dest


def run_aau(capsys, *args: object) -> tuple[int, str, str]:
    """Run ``aau ARGS`` in this process; ``(exit code, stdout, stderr)``."""
    from aau_core import run

    rc = run([str(a) for a in args])
    captured = capsys.readouterr()
    return rc, captured.out, captured.err


def stable_receipt(receipt: dict) -> dict:
    """A receipt without what differs between two runs of the same agent: its times,
    provenance and latencies (so a resumed run's receipt can equal an uninterrupted one's)."""
    doc = {k: v for k, v in receipt.items() if k not in ("started_at", "finished_at", "provenance")}
    doc["results"] = [{k: v for k, v in r.items() if k != "latency_s"} for r in doc["results"]]
    doc["metrics"] = {k: v for k, v in doc["metrics"].items() if k != "mean_latency_s"}
    doc["metric_ci95"] = {k: v for k, v in doc["metric_ci95"].items() if k != "mean_latency_s"}
    return doc


_Server = TypeVar("_Server", bound=BaseServer)


@contextmanager
def serving(server: _Server) -> Iterator[_Server]:
    """Run ``server.serve_forever`` in a daemon thread for the ``with`` block; shut it down and
    close its socket after."""
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
