"""Checkpoints: run_eval(checkpoint=..., resume=True), torn lines, bindings, schema-valid lines."""

from __future__ import annotations

import json
import re
from pathlib import Path

import aau_schemas
import pytest
from aau_core import (
    InputError,
    Interrupted,
    OutputError,
    ScenarioResult,
    open_checkpoint,
    read_checkpoint,
    run_eval,
    run_units,
)
from aau_core._run._checkpoint import ResumeReport

SCENARIOS = [{"scenario_id": f"c-{i:02d}", "p": i / 12} for i in range(12)]
CALLS: list[tuple[str, int]] = []


def run_one(scenario: dict, repeat: int) -> ScenarioResult:
    CALLS.append((scenario["scenario_id"], repeat))
    if scenario["scenario_id"] == "c-05" and repeat == 1:
        raise TimeoutError("agent hung")
    ok = (hash((scenario["scenario_id"], repeat)) % 7) / 7 > scenario["p"] / 2
    return ScenarioResult(scenario["scenario_id"], repeat, {"correct": ok, "score": 0.25 + repeat / 8},
                          cost_usd=0.001 * (repeat + 1), latency_s=0.01 * (repeat + 1),
                          n_api_calls=2, detail={"answer": ["x", repeat]})


def stop_after(n: int):
    def execute(items, fn, *, on_error, concurrency=1, on_done=None, cancel=None):
        count = [0]

        def done(i, r):
            on_done(i, r)
            count[0] += 1
            if count[0] == n:
                raise Interrupted("stop", finished={})
        return run_units(items, fn, on_error=on_error, concurrency=concurrency, on_done=done)
    return execute


def _lines(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def test_run_eval_resumes_without_rerunning_finished_units(tmp_path: Path) -> None:
    CALLS.clear()
    whole = run_eval(SCENARIOS, run_one, repeats=3)
    CALLS.clear()
    ckpt = tmp_path / "run.jsonl"
    for n in (7, 9, 4):  # three interruptions, each after n more units
        with pytest.raises(Interrupted) as info:
            run_eval(SCENARIOS, run_one, repeats=3, checkpoint=ckpt, resume=ckpt.exists(),
                     executor=stop_after(n))
        assert str(ckpt) in str(info.value)
    assert len(CALLS) == 20 and len(set(CALLS)) == 20
    agg = run_eval(SCENARIOS, run_one, repeats=3, checkpoint=ckpt, resume=True)
    assert len(CALLS) == 36 and len(set(CALLS)) == 36  # every unit run exactly once
    assert agg.as_dict({"generated_at": "t"}) == whole.as_dict({"generated_at": "t"})
    assert agg.n_errors == 1
    lines = _lines(ckpt)
    for line in lines:
        aau_schemas.validate("checkpoint", line, source=str(ckpt))
    assert lines[0]["producer"] == "run_eval" and lines[0]["units"] == 36
    assert sorted(x["index"] for x in lines[1:]) == list(range(36))
    # a complete checkpoint resumes to the same aggregate without running anything
    again = run_eval(SCENARIOS, run_one, repeats=3, checkpoint=ckpt, resume=True)
    assert len(CALLS) == 36 and again.metric_means == whole.metric_means


def test_run_eval_refuses_other_bindings_and_an_existing_file(tmp_path: Path) -> None:
    ckpt = tmp_path / "run.jsonl"
    run_eval(SCENARIOS[:3], run_one, repeats=2, checkpoint=ckpt)
    with pytest.raises(OutputError, match="already exists"):
        run_eval(SCENARIOS[:3], run_one, repeats=2, checkpoint=ckpt)
    with pytest.raises(InputError, match=r"different configuration \(repeats\)"):
        run_eval(SCENARIOS[:3], run_one, repeats=3, checkpoint=ckpt, resume=True)
    with pytest.raises(InputError, match=r"different configuration \(ci_method\)"):
        run_eval(SCENARIOS[:3], run_one, repeats=2, checkpoint=ckpt, resume=True,
                 ci_method="aau-compat")
    with pytest.raises(InputError, match="different suite"):
        run_eval(SCENARIOS[:4], run_one, repeats=2, checkpoint=ckpt, resume=True)
    with pytest.raises(InputError, match="different adapter"):
        run_eval(SCENARIOS[:3], lambda s, r: run_one(s, r), repeats=2, checkpoint=ckpt,
                 resume=True)
    with pytest.raises(ValueError, match="needs checkpoint"):
        run_eval(SCENARIOS, run_one, resume=True)


def test_unserialisable_detail_is_that_units_error(tmp_path: Path) -> None:
    def bad(scenario: dict, repeat: int) -> ScenarioResult:
        return ScenarioResult(scenario["scenario_id"], repeat, {"m": 1.0}, detail={"o": object()})

    agg = run_eval(SCENARIOS[:2], bad, repeats=1, checkpoint=tmp_path / "c.jsonl")
    assert agg.n_errors == 2 and "TypeError" in agg.results[0].detail["error"]


BINDING = {"suite_digest": "sha256:" + "0" * 64, "adapter": {"kind": "mock"}, "config": {}}
ROW = {"scenario_id": "a", "repeat": 0, "metrics": {}, "cost_usd": 0, "latency_s": 0,
       "n_api_calls": 0, "detail": {}}


def test_torn_tail_truncated_and_bad_lines_refused(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        c.append(0, ROW)
    whole = path.read_bytes()
    for torn in (b'{"record":"unit","ind', b'\x00\x00\x00\n', b'{"record":"unit","index":1}'):
        path.write_bytes(whole + torn)
        with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                             created_at="x", resume=True) as c:
            assert list(c.finished) == [0]
        assert path.read_bytes() == whole, torn
    # the torn write was a whole unit without its newline: it is dropped, not trusted
    path.write_bytes(whole + json.dumps({"record": "unit", "index": 1, "result": ROW}).encode())
    assert list(read_checkpoint(path)[1]) == [0]
    dup = json.dumps({"record": "unit", "index": 0, "result": ROW}) + "\n"
    path.write_bytes(whole + dup.encode())
    assert read_checkpoint(path)[1] == {0: ROW}  # an identical duplicate collapses (see below)
    far = json.dumps({"record": "unit", "index": 3, "result": ROW}) + "\n"
    path.write_bytes(whole + far.encode())
    with pytest.raises(InputError, match="outside the run's 3 unit"):
        read_checkpoint(path)
    path.write_bytes(whole + b"{not json}\n" + dup.encode())
    with pytest.raises(InputError, match=r"c.jsonl:3: \$: not a JSON line"):
        read_checkpoint(path)
    path.write_bytes(b"")
    with pytest.raises(InputError, match="empty checkpoint"):
        read_checkpoint(path)
    # killed while writing the header: resuming starts a new checkpoint
    path.write_bytes(b'{"checkpoint_version":"aau-che')
    with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                         created_at="2026-11-30T00:00:00Z", resume=True) as c:
        assert c.finished == {}
    assert read_checkpoint(path)[0]["units"] == 3


def test_run_eval_refuses_a_checkpoint_another_process_is_writing(tmp_path: Path) -> None:
    import subprocess
    import sys

    ckpt = tmp_path / "run.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c",
         "import sys, aau_core\n"
         f"c = aau_core.open_checkpoint({str(ckpt)!r}, producer='run_eval', units=1, "
         "binding={'suite_digest': 'x', 'adapter': {}, 'config': {}}, created_at='t', "
         "resume=False)\n"
         "print('ready', flush=True)\nsys.stdin.read()\nc.remove()\n"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        for resume in (False, True):
            with pytest.raises(OutputError, match=rf"another run_eval \(pid {holder.pid}\) is "
                                                  "writing this checkpoint"):
                run_eval(SCENARIOS[:2], run_one, checkpoint=ckpt, resume=resume)
    finally:
        holder.communicate("", timeout=30)
    assert holder.returncode == 0
    assert not ckpt.exists() and not (tmp_path / "run.jsonl.lock").exists()
    run_eval(SCENARIOS[:2], run_one, checkpoint=ckpt)  # free again
    assert not (tmp_path / "run.jsonl.lock").exists()


def _new(path: Path, binding: dict = BINDING, units: int = 3) -> bytes:
    with open_checkpoint(path, producer="run_eval", units=units, binding=binding,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        c.append(0, ROW)
    return path.read_bytes()


def _resume(path: Path, binding: dict = BINDING, **kw):
    return open_checkpoint(path, producer="run_eval", units=3, binding=binding, created_at="x",
                           resume=True, **kw)


def test_a_torn_last_line_is_reported_with_its_line_number_and_why(tmp_path: Path,
                                                                   capsys) -> None:
    path = tmp_path / "c.jsonl"
    whole = _new(path)
    for torn, why in ((b'{"record":"unit","ind', "no final newline"), (b"\x00\x00\x00\n", "not JSON")):
        path.write_bytes(whole + torn)
        with _resume(path) as c:
            assert c.resume == ResumeReport(units_reused=1, torn_line=3, notes=(
                f"{path}: line 3 was torn ({why}); dropped it, that unit runs again",))
            assert c.resume.as_json() == {"units_reused": 1, "torn_line": 3,
                                          "duplicates_collapsed": 0}
            c.print_notes()
        assert path.read_bytes() == whole
        assert capsys.readouterr().err == (f"aau: warning: {path}: line 3 was torn ({why}); "
                                           "dropped it, that unit runs again\n")
    with _resume(path) as c:  # a clean file: nothing to report
        assert c.resume == ResumeReport(units_reused=1) and c.resume.notes == ()
        c.print_notes()
    assert capsys.readouterr().err == ""
    # only the last line can be torn: a bad whole line before a torn tail is corruption
    path.write_bytes(whole + b"\x00\x00\n" + b'{"record":"un')
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}:3: \$: not a JSON line$"):
        _resume(path)
    # killed while writing the header: a new checkpoint, and it says so
    path.write_bytes(b'{"checkpoint_version":"aau-che')
    with _resume(path) as c:
        assert c.finished == {} and c.resume == ResumeReport(units_reused=0, torn_line=1, notes=(
            f"{path}: line 1 (the header) was torn (no final newline); nothing had finished, "
            "so the run starts over",))


def test_identical_duplicates_collapse_and_conflicting_ones_stop(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    whole = _new(path)
    one = {"record": "unit", "index": 1, "result": dict(ROW, scenario_id="b", repeat=1)}
    # the same unit twice, key order and spacing aside: equal as checkpoint_json
    again = json.dumps(dict(reversed(list(one.items()))), indent=None, separators=(", ", ": "))
    path.write_bytes(whole + (json.dumps(one) + "\n" + again + "\n").encode())
    with _resume(path) as c:
        assert c.finished == {0: ROW, 1: one["result"]}
        assert c.resume == ResumeReport(units_reused=2, duplicates_collapsed=1, notes=(
            f"{path}:4: unit 1 (b, repeat 1) is recorded twice, identically (first at line 3);"
            " kept one",))
        c.append(2, ROW)
    assert len(_lines(path)) == 5  # the duplicate stays in the file; it is read as one unit
    changed = json.dumps(dict(one, result=dict(one["result"], cost_usd=0.5)))
    path.write_bytes(whole + (json.dumps(one) + "\n" + changed + "\n").encode())
    for producer, hint in (("run_eval", "delete the checkpoint to start over"),
                           ("aau evaluate", "start over with --force")):
        text = path.read_text().splitlines()
        head = dict(json.loads(text[0]), producer=producer)
        path.write_text("\n".join([json.dumps(head), *text[1:]]) + "\n")
        with pytest.raises(InputError) as info:
            read_checkpoint(path)
        assert str(info.value) == (f"{path}:4: $.index: unit 1 (b, repeat 1) is recorded twice "
                                   f"with different results (first at line 3); {hint}")


def test_run_eval_reports_a_torn_line_on_stderr_and_reruns_that_unit(tmp_path: Path,
                                                                     capsys) -> None:
    CALLS.clear()
    ckpt = tmp_path / "run.jsonl"
    whole = run_eval(SCENARIOS[:3], run_one, repeats=1)
    with pytest.raises(Interrupted):
        run_eval(SCENARIOS[:3], run_one, repeats=1, checkpoint=ckpt, executor=stop_after(2))
    lines = ckpt.read_bytes().split(b"\n")
    ckpt.write_bytes(b"\n".join(lines[:2]) + b"\n" + lines[2][:-5])  # the second unit torn
    torn_unit = json.loads(lines[2])["index"]
    capsys.readouterr()
    CALLS.clear()
    agg = run_eval(SCENARIOS[:3], run_one, repeats=1, checkpoint=ckpt, resume=True)
    assert capsys.readouterr().err == (f"aau: warning: {ckpt}: line 3 was torn (no final "
                                       "newline); dropped it, that unit runs again\n")
    assert sorted(CALLS) == sorted([(SCENARIOS[torn_unit]["scenario_id"], 0),
                                    *[(s["scenario_id"], 0) for i, s in enumerate(SCENARIOS[:3])
                                      if i not in (json.loads(lines[1])["index"], torn_unit)]])
    assert agg.as_dict({"generated_at": "t"}) == whole.as_dict({"generated_at": "t"})


COMMAND = {"kind": "command", "command_sha256": "c" * 64}


def test_the_agents_program_file_is_bound_and_a_1_0_header_predates_it(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    old = dict(BINDING, adapter=dict(COMMAND, program_sha256="a" * 64, program_argv_index=1))
    new = dict(BINDING, adapter=dict(COMMAND, program_sha256="b" * 64, program_argv_index=1))
    _new(path, old)
    assert _lines(path)[0]["checkpoint_version"] == "aau-checkpoint/1.1"
    tail = "; start over with --force instead of --resume"
    cases = [
        (new, "agent.py", "checkpoint is from a different configuration (the agent's program "
                          "file agent.py changed)"),
        (new, None, "checkpoint is from a different configuration (the agent's program file "
                    "argv[1] changed)"),
        (dict(BINDING, adapter=COMMAND), "agent.py", "checkpoint is from a different "
         "configuration (the agent's program file agent.py is no longer a file in the working "
         "directory)"),
        (dict(new, config={"repeats": 2}), "agent.py", "checkpoint is from a different "
         "configuration (the agent's program file agent.py changed, repeats)"),
        (dict(new, adapter=dict(new["adapter"], command_sha256="d" * 64)), "agent.py",
         "checkpoint is from a different adapter"),
    ]
    for binding, name, words in cases:
        with pytest.raises(InputError) as info:
            _resume(path, binding, program_name=name)
        assert str(info.value) == f"{path}: {words}{tail}"
    with _resume(path, old, program_name="agent.py") as c:  # unchanged: resumes
        assert c.finished == {0: ROW}
    # a 1.1 checkpoint made where the file was not in the working directory
    path.unlink()
    _new(path, dict(BINDING, adapter=COMMAND))
    with pytest.raises(InputError) as info:
        _resume(path, new, program_name="agent.py")
    assert str(info.value) == (f"{path}: checkpoint is from a different configuration (the "
                               "agent's program file agent.py was not in the working directory "
                               f"when the checkpoint was made){tail}")
    # a 1.0 header (before program binding) resumes a run that binds no program file ...
    header = dict(_lines(path)[0], checkpoint_version="aau-checkpoint/1.0")
    path.write_text("\n".join([json.dumps(header), *path.read_text().splitlines()[1:]]) + "\n")
    aau_schemas.validate("checkpoint", header, source="1.0 header")
    with _resume(path, dict(BINDING, adapter=COMMAND)) as c:
        assert c.finished == {0: ROW}
    # ... and refuses one that does: it cannot tell whether the agent changed
    with pytest.raises(InputError) as info:
        _resume(path, new, program_name="agent.py")
    assert str(info.value) == (f"{path}: checkpoint predates program binding (aau-checkpoint/1.0"
                               " does not record the agent's program file agent.py, so a changed "
                               f"agent would go unseen){tail}")


def test_discard_forgets_units_so_they_run_again(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    rows = {i: {**ROW, "scenario_id": f"c-{i:02d}"} for i in range(3)}
    with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        for i, row in rows.items():
            c.append(i, row)
    before = path.read_text(encoding="utf-8").splitlines()
    with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                         created_at="x", resume=True) as c:
        c.discard([1, 7])  # 7 was never recorded: ignored
        assert sorted(c.finished) == [0, 2]
        c.append(1, rows[1])  # run again: one line for it, not two
    after = path.read_text(encoding="utf-8").splitlines()
    assert after == [before[0], before[1], before[3], before[2]]
    header, finished, _ = read_checkpoint(path)
    assert header["created_at"] == "2026-11-30T00:00:00Z" and finished == rows


def test_an_edited_binding_sha256_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "c.jsonl"
    with open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                         created_at="2026-11-30T00:00:00Z", resume=False) as c:
        c.append(0, ROW)
    lines = path.read_text(encoding="utf-8").splitlines()
    header = json.loads(lines[0])
    header["binding_sha256"] = "0" * 64
    path.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError) as info:
        open_checkpoint(path, producer="run_eval", units=3, binding=BINDING,
                        created_at="2026-11-30T00:00:00Z", resume=True)
    assert str(info.value).startswith(
        f"{path}: checkpoint is from a different binding (its binding_sha256 does not match the "
        "suite, adapter and settings it records: the header was edited); start over")
