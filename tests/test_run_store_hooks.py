"""aau evaluate, aau lab run and aau bench agentdojo record their runs (--store / --no-store /
AAU_RUN_STORE); a store failure never loses the receipt; two evaluations finishing at once both
land."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "examples" / "suites" / "public-service-routing.json"
AGENT = REPO / "examples" / "agents" / "command_agent.py"
LAB = REPO / "examples" / "labs" / "river-permit-desk.json"


def aau(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "aau"
    return subprocess.run([str(script), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, **(env or {})}, timeout=300)


def stored(store: Path) -> list[tuple]:
    db = sqlite3.connect(store)
    try:
        return db.execute("SELECT id, kind, suite, adapter, source FROM runs ORDER BY id").fetchall()
    finally:
        db.close()


def test_evaluate_records_its_receipt_where_told(tmp_path):
    done = aau("evaluate", SUITE, "--mock", "--out", "r.json", "--store", "runs.sqlite",
               cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    rows = stored(tmp_path / "runs.sqlite")
    assert rows == [(1, "receipt-v2", "public-service-routing-example", "mock", "r.json")]
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    document = json.loads(db.execute("SELECT document FROM runs").fetchone()[0])
    assert document == json.loads((tmp_path / "r.json").read_text())


def test_the_run_evaluate_records_equals_the_run_recorded_from_its_file(tmp_path):
    # aau evaluate records its own receipt without checking it again (checked_kind): what it
    # stores must be, byte for byte, what recording the written file stores (with every check)
    from aau_core import record_run

    done = aau("evaluate", SUITE, "--mock", "--repeats", "2", "--out", "r.json", "--store",
               "runs.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    doc = json.loads((tmp_path / "r.json").read_text())
    record_run(doc, store=tmp_path / "again.sqlite", source="r.json")

    def rows(store: Path) -> dict[str, list[tuple]]:
        db = sqlite3.connect(store)
        try:
            runs = db.execute("SELECT * FROM runs").fetchall()
            names = [d[0] for d in db.execute("SELECT * FROM runs").description]
            keep = [i for i, n in enumerate(names) if n != "recorded_at"]
            return {"runs": [tuple(r[i] for i in keep) for r in runs],
                    "run_scenarios": db.execute("SELECT * FROM run_scenarios").fetchall(),
                    "run_metrics": db.execute("SELECT * FROM run_metrics").fetchall()}
        finally:
            db.close()

    recorded, again = rows(tmp_path / "runs.sqlite"), rows(tmp_path / "again.sqlite")
    assert len(recorded["run_scenarios"]) == doc["scenario_count"] > 0
    assert recorded == again


def test_the_default_store_the_env_var_and_no_store(tmp_path):
    clean = {k: v for k, v in os.environ.items() if k != "AAU_RUN_STORE"}
    script = Path(sys.executable).parent / "aau"
    done = subprocess.run([str(script), "evaluate", str(SUITE), "--mock", "--out", "r.json"],
                          cwd=tmp_path, capture_output=True, text=True, env=clean, timeout=300)
    assert done.returncode == 0, done.stderr
    assert [r[1] for r in stored(tmp_path / ".aau" / "runs.sqlite")] == ["receipt-v2"]
    done = aau("evaluate", SUITE, "--mock", "--out", "r2.json", cwd=tmp_path,
               env={"AAU_RUN_STORE": str(tmp_path / "env.sqlite")})
    assert done.returncode == 0 and len(stored(tmp_path / "env.sqlite")) == 1
    done = aau("evaluate", SUITE, "--mock", "--out", "r3.json", "--no-store", cwd=tmp_path,
               env={"AAU_RUN_STORE": str(tmp_path / "env.sqlite")})
    assert done.returncode == 0 and len(stored(tmp_path / "env.sqlite")) == 1
    done = aau("evaluate", SUITE, "--mock", "--out", "r4.json", cwd=tmp_path,
               env={"AAU_RUN_STORE": "none"})
    assert done.returncode == 0 and (tmp_path / "r4.json").exists()
    assert len(stored(tmp_path / "env.sqlite")) == 1


def test_a_store_failure_warns_and_keeps_the_receipt_and_exit_code(tmp_path):
    (tmp_path / "blocker").write_text("a file where the store's folder should be")
    done = aau("evaluate", SUITE, "--mock", "--out", "r.json", "--store", "blocker/s.sqlite",
               "--fail-under", "exact_rate=1", cwd=tmp_path)
    assert done.returncode == 0
    assert "aau: warning: run not recorded in the run store:" in done.stderr
    assert json.loads((tmp_path / "r.json").read_text())["metrics"]["exact_rate"] == 1.0
    # a store from a newer aau: refused, untouched, the receipt written
    store = tmp_path / "new.sqlite"
    aau("evaluate", SUITE, "--mock", "--out", "a.json", "--store", store, cwd=tmp_path)
    db = sqlite3.connect(store)
    db.execute("INSERT INTO schema_version VALUES (99, 'future')")
    db.commit()
    db.close()
    done = aau("evaluate", SUITE, "--command", f"{sys.executable} {AGENT}", "--out", "b.json",
               "--store", store, "--fail-under", "exact_rate=1", cwd=tmp_path)
    assert done.returncode == 1  # the agent misses a case: the bar's verdict, unchanged
    assert "is newer than this aau supports" in done.stderr and (tmp_path / "b.json").exists()
    assert len(stored(store)) == 1


def test_bad_store_flags_are_refused_before_the_run(tmp_path):
    done = aau("evaluate", SUITE, "--mock", "--out", "r.json", "--store", "postgres://db/x",
               cwd=tmp_path)
    assert done.returncode == 2 and "only sqlite:///PATH URLs" in done.stderr
    done = aau("evaluate", SUITE, "--mock", "--out", "r.json", "--store", "x", "--no-store",
               cwd=tmp_path)
    assert done.returncode == 2 and "contradict" in done.stderr
    assert not (tmp_path / "r.json").exists()


def test_two_evaluations_at_once_both_land(tmp_path):
    script = Path(sys.executable).parent / "aau"
    procs = [subprocess.Popen([str(script), "evaluate", str(SUITE), "--command",
                               f"{sys.executable} {AGENT}", "--repeats", "2", "--concurrency",
                               "4", "--out", f"r{i}.json", "--store", "runs.sqlite"],
                              cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True) for i in range(2)]
    outs = [p.communicate(timeout=300) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    rows = stored(tmp_path / "runs.sqlite")
    assert sorted(r[4] for r in rows) == ["r0.json", "r1.json"]
    db = sqlite3.connect(tmp_path / "runs.sqlite")
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM run_scenarios").fetchone()[0] == 2 * 8


def test_lab_run_records_its_result(tmp_path):
    done = aau("lab", "run", LAB, "--mock", "--repeats", "1", "--out", "lab", "--quiet",
               "--store", "runs.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert stored(tmp_path / "runs.sqlite") == [
        (1, "lab-result", "decision-gate", "mock", str(Path("lab") / "eval_mock.json"))]
    done = aau("lab", "run", LAB, "--mock", "--repeats", "1", "--out", "lab2", "--quiet",
               "--no-store", cwd=tmp_path, env={"AAU_RUN_STORE": str(tmp_path / "x.sqlite")})
    assert done.returncode == 0 and not (tmp_path / "x.sqlite").exists()


def test_bench_agentdojo_records_its_result(tmp_path):
    import pytest

    pytest.importorskip("agentdojo", reason="pip install 'aau-labs[agentdojo]'")
    args = ("bench", "agentdojo", "--suite", "banking", "--mock-ground-truth", "--tasks",
            "user_task_0", "--quiet")
    done = aau(*args, "--out", "b", "--store", "runs.sqlite", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    [(run_id, kind, suite, adapter, source)] = stored(tmp_path / "runs.sqlite")
    assert (run_id, kind, adapter) == (1, "eval-aggregate-v2", "ground-truth")
    assert suite.startswith("agentdojo ") and suite.endswith(" banking")
    assert source == str(Path("b") / "agentdojo-banking_ground-truth.json")
    done = aau(*args, "--out", "b2", "--no-store", cwd=tmp_path,
               env={"AAU_RUN_STORE": str(tmp_path / "x.sqlite")})
    assert done.returncode == 0 and not (tmp_path / "x.sqlite").exists()
    done = aau(*args, "--out", "b3", "--store", "x", "--no-store", cwd=tmp_path)
    assert done.returncode == 2 and "contradict" in done.stderr
    assert not (tmp_path / "b3").exists()  # refused before any run
