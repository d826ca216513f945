"""`aau evaluate --resume`: SIGKILL at random points, resume, and get the uninterrupted receipt.

A slow command agent appends each scenario id it is asked about to a side-channel file, so the
test counts adapter invocations: a unit recorded in the checkpoint before a kill is never asked
again, and every unit ends up in the receipt exactly once.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import aau_schemas
import pytest
from _helpers import stable_receipt

ROOT = Path(__file__).resolve().parents[1]
AGENT = """\
import json, os, sys, time
req = json.loads(sys.stdin.readline())
with open(os.environ["AAU_SIDE"], "a") as f:
    f.write(req["scenario_id"] + "\\n")
time.sleep(0.08)
n = int(req["scenario_id"].rsplit("-", 1)[1])
outcome = "route_official_source" if n % 3 else "handoff_to_staff"
print(json.dumps({"outcome": outcome, "submitted": True, "actions_attempted": [],
                  "actions_executed": []}))
"""


def _suite(tmp: Path, n: int) -> Path:
    base = json.loads((ROOT / "examples/suites/public-service-routing.json").read_text())
    case = base["cases"][0]
    base["cases"] = [dict(case, scenario_id=f"s-{i:03d}") for i in range(n)]
    path = tmp / "suite.json"
    path.write_text(json.dumps(base), encoding="utf-8")
    return path


def _cmd(suite: Path, agent: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "aau_core", "evaluate", str(suite), "--command",
            f"{sys.executable} {agent}", "--concurrency", "3", "--out", str(out), "--quiet",
            *extra]


def _count(ckpt: Path) -> int:
    try:
        return max(ckpt.read_bytes().count(b"\n") - 1, 0)
    except FileNotFoundError:
        return 0


def _recorded(ckpt: Path) -> set[str]:
    if not ckpt.exists():
        return set()
    ids = set()
    lines = ckpt.read_bytes().split(b"\n")[:-1]  # a torn last line is not recorded
    for raw in lines[1:]:
        try:
            ids.add(json.loads(raw)["result"]["row"]["scenario_id"])
        except ValueError:
            pass
    return ids


def test_sigkill_many_times_then_resume_equals_uninterrupted(tmp_path: Path) -> None:
    n = 90
    suite = _suite(tmp_path, n)
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT, encoding="utf-8")
    env = dict(os.environ, AAU_SIDE=str(tmp_path / "side-ref.txt"))
    ref = tmp_path / "ref.json"
    subprocess.run(_cmd(suite, agent, ref), env=env, check=True, capture_output=True)
    reference = json.loads(ref.read_text(encoding="utf-8"))

    out = tmp_path / "r.json"
    ckpt = Path(str(out) + ".checkpoint.jsonl")
    side = tmp_path / "side.txt"
    env["AAU_SIDE"] = str(side)
    rng = random.Random(7)
    kills = 0
    for _ in range(25):
        if out.exists():
            break
        before = _recorded(ckpt)
        asked_before = len(side.read_text().splitlines()) if side.exists() else 0
        extra = ["--resume"] if ckpt.exists() else []
        proc = subprocess.Popen(_cmd(suite, agent, out, *extra), env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                start_new_session=True)
        if kills < 20:
            # kill at a random moment: either a random time after start (maybe before any
            # unit, maybe while writing the header), or just after 1-2 more units were recorded
            # (mid-run, with units in flight); the latter bounds the work done per attempt
            by_time = rng.random() < 0.3
            deadline = time.monotonic() + (rng.uniform(0.2, 0.9) if by_time else 10.0)
            wanted = len(before) + rng.randint(1, 2)
            while proc.poll() is None and time.monotonic() < deadline:
                if not by_time and _count(ckpt) >= wanted:
                    time.sleep(rng.uniform(0.0, 0.05))
                    break
                time.sleep(0.01)
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)  # the harness and its agent children
                kills += 1
        _, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()
        asked_now = side.read_text().splitlines()[asked_before:] if side.exists() else []
        assert not before & set(asked_now), "a unit recorded before the kill was run again"
        if ckpt.exists():  # every line the checkpoint holds is schema-valid
            for raw in ckpt.read_bytes().split(b"\n")[:-1]:
                try:
                    line = json.loads(raw)
                except ValueError:
                    continue  # a torn write, discarded on resume
                aau_schemas.validate("checkpoint", line, source=str(ckpt))
    assert kills == 20 and out.exists() and not ckpt.exists()
    receipt = json.loads(out.read_text(encoding="utf-8"))
    aau_schemas.validate("receipt-v2", receipt, source="resumed receipt")
    assert stable_receipt(receipt) == stable_receipt(reference)
    assert receipt["metrics"]["exact_rate"] == pytest.approx(60 / 90, abs=1e-6)
    assert sorted(r["scenario_id"] for r in receipt["results"]) == [f"s-{i:03d}" for i in range(n)]
    asked = side.read_text().splitlines()
    assert set(asked) == {f"s-{i:03d}" for i in range(n)}
    # only units in flight at a kill may be asked twice: at most 3 per kill (--concurrency 3)
    assert len(asked) - n <= 3 * kills


def _run(args: list[str], env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "aau_core", "evaluate", *args], capture_output=True,
                          text=True, env=env)


def test_resume_refuses_another_suite_adapter_or_configuration(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 4)
    out = tmp_path / "r.json"
    ckpt = Path(str(out) + ".checkpoint.jsonl")
    from aau_adapters._evaluation_checkpoint import evaluate_binding
    from aau_adapters._suite import load_suite
    from aau_core import open_checkpoint

    binding = evaluate_binding(load_suite(str(suite)), command=None, endpoint=None, repeats=1,
                               timeout=30.0, fmt="v2", private=False)
    opened = open_checkpoint(ckpt, producer="aau evaluate", units=4, binding=binding,
                             created_at="2026-11-30T00:00:00Z", resume=False)
    # one measured unit (a checkpoint holding none is replaced, not refused: nothing to keep)
    opened.append(0, {"row": {"scenario_id": "s-000", "repeat": 0, "submitted": True,
                              "outcome_exact": True, "no_forbidden_attempt": True,
                              "no_forbidden_execute": True, "exact": True, "latency_s": 0.0,
                              "failure_codes": []},
                      "adapter_error": None})
    opened.close()
    base = [str(suite), "--out", str(out), "--resume"]
    cases = [
        (["--mock", "--repeats", "2"], "different configuration (--repeats)"),
        (["--mock", "--timeout", "5"], "different configuration (--timeout)"),
        (["--mock", "--private-out", str(tmp_path / "p.json")],
         "different configuration (--private-out given or not)"),
        (["--command", "true"], "different adapter"),
    ]
    for extra, words in cases:
        result = _run(base + extra)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and str(ckpt) in lines[0], result.stderr
    other = tmp_path / "other.json"
    doc = json.loads(suite.read_text())
    doc["cases"] = doc["cases"][:3] + [dict(doc["cases"][3], scenario_id="s-999")]
    other.write_text(json.dumps(doc))
    result = _run([str(other), "--out", str(out), "--resume", "--mock"])
    assert result.returncode == 2 and "different suite" in result.stderr
    # the right binding resumes: the unit finished is kept, the three others run now
    result = _run(base + ["--mock"])
    assert result.returncode == 0, result.stderr
    assert len(json.loads(out.read_text())["results"]) == 4 and not ckpt.exists()


def test_torn_last_line_is_discarded_and_corrupt_middle_line_refused(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 5)
    out = tmp_path / "r.json"
    ckpt = Path(str(out) + ".checkpoint.jsonl")
    full = _run([str(suite), "--mock", "--out", str(tmp_path / "full.json")])
    assert full.returncode == 0
    from aau_adapters._evaluation_checkpoint import evaluate_binding
    from aau_adapters._suite import load_suite
    from aau_core import open_checkpoint

    binding = evaluate_binding(load_suite(str(suite)), command=None, endpoint=None, repeats=1,
                               timeout=30.0, fmt="v2", private=False)
    rows = json.loads((tmp_path / "full.json").read_text())["results"]
    # a checkpoint keeps a unit's row as receipt 2.0 holds it: 2.1's measured follows from
    # adapter_error when the receipt is built
    kept = {k: v for k, v in rows[1].items() if k != "measured"}
    with open_checkpoint(ckpt, producer="aau evaluate", units=5, binding=binding,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        c.append(1, {"row": kept, "adapter_error": None})
    with open(ckpt, "ab") as f:
        f.write(b'{"index":2,"record":"unit","res')  # torn by a crash
    result = _run([str(suite), "--mock", "--out", str(out), "--resume"])
    assert result.returncode == 0, result.stderr
    receipt = json.loads(out.read_text())
    assert receipt["results"][1] == rows[1] and receipt["started_at"] == "2026-11-30T00:00:00Z"

    out.unlink()
    with open_checkpoint(ckpt, producer="aau evaluate", units=5, binding=binding,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        c.append(1, {"row": kept, "adapter_error": None})
    text = ckpt.read_text().splitlines()
    ckpt.write_text(text[0] + "\n" + '{"index": 3}\n' + text[1] + "\n")
    result = _run([str(suite), "--mock", "--out", str(out), "--resume"])
    assert result.returncode == 2 and not out.exists()
    assert f"{ckpt}:2: $: " in result.stderr and "Traceback" not in result.stderr


def test_a_second_evaluate_on_the_same_out_is_refused_while_the_first_runs(tmp_path: Path) -> None:
    suite = _suite(tmp_path, 12)
    agent = tmp_path / "agent.py"
    agent.write_text(AGENT.replace("time.sleep(0.08)", "time.sleep(1.5)"), encoding="utf-8")
    env = dict(os.environ, AAU_SIDE=str(tmp_path / "side.txt"), AAU_RUN_STORE="none")
    out = tmp_path / "r.json"
    ckpt = tmp_path / "r.json.checkpoint.jsonl"
    first = subprocess.Popen(_cmd(suite, agent, out), env=env, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 30
        while _count(ckpt) < 1:  # the first run has started recording units
            assert first.poll() is None and time.monotonic() < deadline
            time.sleep(0.02)
        for extra in ([], ["--force"], ["--resume"]):
            second = subprocess.run(_cmd(suite, agent, out, *extra), env=env,
                                    capture_output=True, text=True)
            assert second.returncode == 2, (extra, second.stderr)
            assert (f"another aau evaluate (pid {first.pid}) is writing this checkpoint"
                    in second.stderr), second.stderr
        assert first.wait(timeout=60) == 0, first.stderr.read() if first.stderr else ""
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    receipt = json.loads(out.read_text(encoding="utf-8"))
    assert len(receipt["results"]) == 12
    assert not ckpt.exists() and not Path(f"{ckpt}.lock").exists()
    again = subprocess.run(_cmd(suite, agent, out, "--force"), env=env, capture_output=True,
                           text=True)
    assert again.returncode == 0, again.stderr  # the lock went with the first run


REPORTER = """\
import sys, time
from aau_adapters import MockAdapter
from aau_adapters._evaluation_checkpoint import evaluate_binding
from aau_adapters._suite import load_suite
from aau_adapters._suite_run import evaluate
from aau_core import open_checkpoint

suite = load_suite(sys.argv[1])
binding = evaluate_binding(suite, command=None, endpoint=None, repeats=1, timeout=30.0,
                           fmt="v2", private=False)
ckpt = open_checkpoint(sys.argv[2], producer="aau evaluate", units=len(suite.cases),
                       binding=binding, created_at="2026-12-02T00:00:00Z", resume=False)


def finished(unit):  # called once the unit is recorded: report it, then slow the run down
    sys.stdout.write(unit.case.scenario_id + "\\n")
    sys.stdout.flush()
    time.sleep(0.002)


evaluate(suite, MockAdapter(), concurrency=4, on_unit=finished, checkpoint=ckpt)
print("done", flush=True)
"""


def test_sigkill_loses_no_unit_reported_finished_although_fsyncs_are_grouped(
        tmp_path: Path) -> None:
    """Units are reported (``on_unit``: the progress bar) after their line is written to the
    OS; fsyncs are grouped (0.5 s / 1,000 lines), so most reported lines are not yet synced
    when the process is killed, and the kernel keeps them all the same."""
    n = 900
    suite = _suite(tmp_path, n)
    script = tmp_path / "reporter.py"
    script.write_text(REPORTER, encoding="utf-8")
    rng = random.Random(3)
    for attempt in range(3):
        ckpt = tmp_path / f"run-{attempt}.jsonl"
        proc = subprocess.Popen([sys.executable, str(script), str(suite), str(ckpt)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        assert proc.stdout is not None
        wanted = rng.randint(50, 400)
        reported: list[str] = []
        while len(reported) < wanted:
            line = proc.stdout.readline().decode().strip()
            assert line and line != "done", proc.stderr.read().decode() if proc.stderr else ""
            reported.append(line)
        proc.kill()  # SIGKILL, mid-run
        rest, _ = proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGKILL
        reported += [x for x in rest.decode().splitlines() if x and x != "done"]
        recorded = _recorded(ckpt)
        assert set(reported) <= recorded, sorted(set(reported) - recorded)[:5]
        assert len(recorded) < n  # killed mid-run
