"""`aau evaluate --resume` edge cases: a torn last line, a unit recorded twice, an edited agent.

Each test runs a real interrupted run: a command agent in the project folder (`python agent.py`,
run with the test folder as the working directory, so its program file is bound) hangs on the
last scenario; once the checkpoint holds the other units, the run is killed with SIGKILL. The
checkpoint is then changed the way a crash, a copy or an edit would, and resumed. The agent
appends each scenario it is asked about to a side file, so the tests count invocations.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import aau_schemas
import pytest
from _helpers import stable_receipt

ROOT = Path(__file__).resolve().parents[1]
CASES = 5
AGENT = """\
import json, os, sys, time
req = json.loads(sys.stdin.readline())
with open(os.environ["AAU_SIDE"], "a") as f:
    f.write(req["scenario_id"] + "\\n")
if req["scenario_id"] == os.environ.get("AAU_HANG"):
    time.sleep(120)
n = int(req["scenario_id"].rsplit("-", 1)[1])
outcome = "route_official_source" if n % 2 else "handoff_to_staff"
print(json.dumps({"outcome": outcome, "submitted": True, "actions_attempted": [],
                  "actions_executed": []}))
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    base = json.loads((ROOT / "examples/suites/public-service-routing.json").read_text())
    base["cases"] = [dict(base["cases"][0], scenario_id=f"s-{i:03d}") for i in range(CASES)]
    (tmp_path / "suite.json").write_text(json.dumps(base), encoding="utf-8")
    (tmp_path / "agent.py").write_text(AGENT, encoding="utf-8")
    return tmp_path


def _args(*extra: str) -> list[str]:
    return [sys.executable, "-m", "aau_core", "evaluate", "suite.json", "--command",
            "python agent.py", "--out", "r.json", "--quiet", *extra]


def _env(project: Path, side: str, **extra: str) -> dict[str, str]:
    path = os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")])
    return dict(os.environ, PATH=path, AAU_SIDE=str(project / side), AAU_RUN_STORE="none",
                **extra)


def _evaluate(project: Path, *extra: str, side: str = "side.txt") -> subprocess.CompletedProcess:
    return subprocess.run(_args(*extra), cwd=project, env=_env(project, side),
                          capture_output=True, text=True, timeout=120)


def _unit_lines(ckpt: Path) -> int:
    try:
        return max(ckpt.read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def _interrupted(project: Path) -> Path:
    """Run until every unit but the hanging last one is recorded, then SIGKILL the run."""
    ckpt = project / "r.json.checkpoint.jsonl"
    proc = subprocess.Popen(_args(), cwd=project, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=_env(project, "side-first.txt", AAU_HANG=f"s-{CASES - 1:03d}"))
    try:
        deadline = time.monotonic() + 60
        while _unit_lines(ckpt) < CASES - 1:
            assert proc.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert not (project / "r.json").exists()
    return ckpt


def _asked(project: Path) -> list[str]:
    return (project / "side.txt").read_text().splitlines()


def _reference(project: Path) -> dict:
    done = subprocess.run(_args()[:-3] + ["--out", "ref.json"], cwd=project,
                          env=_env(project, "side-ref.txt"), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return json.loads((project / "ref.json").read_text())


def test_a_torn_last_line_is_reported_its_unit_rerun_and_the_receipt_unchanged(project):
    ckpt = _interrupted(project)
    data = ckpt.read_bytes()
    header = json.loads(data.split(b"\n")[0])
    assert header["checkpoint_version"] == "aau-checkpoint/1.1"
    assert header["binding"]["adapter"]["program_argv_index"] == 1
    assert header["binding"]["adapter"]["program_sha256"] == aau_schemas.sha256_hex(
        AGENT.encode())
    aau_schemas.validate("checkpoint", header, source=str(ckpt))
    ckpt.write_bytes(data[:-20])  # the last unit line (line 5) torn by the crash
    torn_unit = json.loads(data.split(b"\n")[CASES - 1])["result"]["row"]["scenario_id"]

    result = _evaluate(project, "--resume", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        "aau: warning: r.json.checkpoint.jsonl: line 5 was torn (no final newline); dropped it, "
        "that unit runs again")
    assert json.loads(result.stdout)["resume"] == {"units_reused": CASES - 2, "torn_line": 5,
                                                   "duplicates_collapsed": 0}
    assert sorted(_asked(project)) == sorted([torn_unit, f"s-{CASES - 1:03d}"])
    receipt = json.loads((project / "r.json").read_text())
    assert stable_receipt(receipt) == stable_receipt(_reference(project))
    assert not ckpt.exists()


def test_an_identical_duplicate_collapses_and_no_finished_unit_is_asked_again(project):
    ckpt = _interrupted(project)
    lines = ckpt.read_text().splitlines()
    # the same unit again, as another writer would have serialised it (key order, spaces)
    again = json.dumps(dict(reversed(list(json.loads(lines[2]).items()))))
    ckpt.write_text("\n".join([*lines, again]) + "\n")
    unit = json.loads(lines[2])["result"]["row"]

    result = _evaluate(project, "--resume", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines()[0] == (
        f"aau: warning: r.json.checkpoint.jsonl:6: unit 1 ({unit['scenario_id']}, repeat 0) is "
        "recorded twice, identically (first at line 3); kept one")
    assert json.loads(result.stdout)["resume"] == {"units_reused": CASES - 1, "torn_line": None,
                                                   "duplicates_collapsed": 1}
    assert _asked(project) == [f"s-{CASES - 1:03d}"]  # only the unit that never finished
    assert stable_receipt(json.loads((project / "r.json").read_text())) == stable_receipt(_reference(project))


def test_a_conflicting_duplicate_stops_the_resume_with_the_file_and_both_lines(project):
    ckpt = _interrupted(project)
    lines = ckpt.read_text().splitlines()
    other = json.loads(lines[1])
    other["result"]["row"]["latency_s"] += 1.0
    ckpt.write_text("\n".join([*lines, json.dumps(other)]) + "\n")
    result = _evaluate(project, "--resume")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "aau: error: r.json.checkpoint.jsonl:6: $.index: unit 0 (s-000, repeat 0) is recorded "
        "twice with different results (first at line 2); start over with --force"]
    assert not (project / "r.json").exists() and not (project / "side.txt").exists()
    # --force starts over: every unit is asked again
    result = _evaluate(project, "--force")
    assert result.returncode == 0, result.stderr
    assert sorted(_asked(project)) == [f"s-{i:03d}" for i in range(CASES)]


def test_an_edited_agent_refuses_to_resume_and_a_1_0_checkpoint_predates_the_binding(project):
    ckpt = _interrupted(project)
    agent = project / "agent.py"
    agent.write_text(AGENT.replace('"handoff_to_staff"', '"route_official_source"'))
    result = _evaluate(project, "--resume")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "aau: error: r.json.checkpoint.jsonl: checkpoint is from a different configuration (the "
        "agent's program file agent.py changed); start over with --force instead of --resume"]
    assert not (project / "side.txt").exists()
    agent.write_text(AGENT)  # changed back: the same bytes resume

    # the same checkpoint as a 1.0 writer made it (no program binding) cannot vouch for agent.py
    from aau_core._run._checkpoint import binding_sha256

    lines = ckpt.read_text().splitlines()
    header = json.loads(lines[0])
    header["checkpoint_version"] = "aau-checkpoint/1.0"
    for key in ("program_sha256", "program_argv_index"):
        del header["binding"]["adapter"][key]
    header["binding_sha256"] = binding_sha256(header["binding"])
    aau_schemas.validate("checkpoint", header, source="1.0 header")
    old = ckpt.with_name("old.jsonl")
    old.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    os.replace(old, ckpt)
    result = _evaluate(project, "--resume")
    assert result.returncode == 2
    assert result.stderr.splitlines() == [
        "aau: error: r.json.checkpoint.jsonl: checkpoint predates program binding "
        "(aau-checkpoint/1.0 does not record the agent's program file agent.py, so a changed "
        "agent would go unseen); start over with --force instead of --resume"]

    ckpt.write_text("\n".join(lines) + "\n")  # the 1.1 checkpoint, agent unchanged: resumes
    result = _evaluate(project, "--resume")
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("aau: warning") == 0
    assert _asked(project) == [f"s-{CASES - 1:03d}"]
