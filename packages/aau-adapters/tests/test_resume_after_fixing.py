"""What a user does after a run that measured nothing: fix the wiring and run again.

A checkpoint that holds no measurement (its run measured nothing) is replaced by the next run,
with or without ``--resume`` (``_evaluation_checkpoint.checkpoint_path``): before, a corrected endpoint
path was refused twice ("add --resume", then "checkpoint is from a different adapter ... start
over with --force"), and so was an edited agent. A checkpoint that does hold measurements keeps
every refusal: its units came from the agent as it was, and a receipt holds one agent.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

from aau_core import EXIT_NOT_MEASURED, run

STARTS_OVER = "the checkpoint there holds no measured unit (its run measured nothing), so this " \
    "run starts over"


def _aau(capsys, *args: object) -> tuple[int, str]:
    rc = run(["evaluate", *(str(a) for a in args), "--no-store"])
    return rc, capsys.readouterr().err


def _suite(tmp_path: Path, make_suite, n: int) -> Path:
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(make_suite([f"s{i}" for i in range(n)], "fixing").doc),
                    encoding="utf-8")
    return path


def test_a_corrected_endpoint_path_just_runs(tmp_path, capsys, make_suite, http_server):
    server = http_server(lambda doc, handler, _: None if handler.path == "/agent"
                         else (404, {}, b"{}"))
    suite, out, private = _suite(tmp_path, make_suite, 3), tmp_path / "r.json", tmp_path / "p.json"
    base = server.url.rsplit("/", 1)[0]
    rc, err = _aau(capsys, suite, "--endpoint", f"{base}/agnet", "--out", out,
                   "--private-out", private)
    assert rc == EXIT_NOT_MEASURED, err
    assert (tmp_path / "r.json.checkpoint.jsonl").exists() and private.exists()
    rc, err = _aau(capsys, suite, "--endpoint", f"{base}/agent", "--out", out,
                   "--private-out", private)  # the same command, path fixed, no flag
    assert rc == 0, err
    assert STARTS_OVER in err
    assert json.loads(out.read_text(encoding="utf-8"))["coverage"]["measured"] == 3
    assert [r["error"] for r in json.loads(private.read_text(encoding="utf-8"))["results"]] \
        == [None] * 3


def test_resume_after_the_agent_is_edited_starts_over_when_nothing_was_measured(
        tmp_path, capsys, make_suite, python_agent, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the agent's file is in the project: its bytes are bound
    argv = python_agent("sys.exit(3)\n")
    agent = Path(argv[3])  # [python, -I, -S, agent.py, tmp_path]
    suite, out = _suite(tmp_path, make_suite, 2), tmp_path / "r.json"
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out)
    assert rc == EXIT_NOT_MEASURED, err
    agent.write_text(agent.read_text(encoding="utf-8").replace("sys.exit(3)\n", "answer()\n"),
                     encoding="utf-8")
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out, "--resume")
    assert rc == 0, err  # the program file changed, but the checkpoint kept nothing of it
    assert STARTS_OVER in err
    assert json.loads(out.read_text(encoding="utf-8"))["metrics"]["exact_rate"] == 1.0


def test_a_checkpoint_with_measurements_still_refuses_an_edited_agent(
        tmp_path, capsys, make_suite, python_agent, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the agent's file is in the project: its bytes are bound
    argv = python_agent('if SID == "s1":\n    sys.exit(3)\nanswer()\n')
    agent = Path(argv[3])  # [python, -I, -S, agent.py, tmp_path]
    suite, out = _suite(tmp_path, make_suite, 2), tmp_path / "r.json"
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out,
                   "--unmeasured-limit", "0.5")
    assert rc == EXIT_NOT_MEASURED, err  # s0 was measured and is kept
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out)
    assert rc == 2 and "add --resume to continue it and measure what it did not, or --force" in err
    agent.write_text(agent.read_text(encoding="utf-8").replace("sys.exit(3)", "pass"),
                     encoding="utf-8")
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out, "--resume",
                   "--unmeasured-limit", "0.5")
    assert rc == 2 and "changed" in err and "--force" in err
    assert STARTS_OVER not in err


def test_a_refused_resume_names_the_earlier_receipt_it_left(tmp_path, capsys, make_suite,
                                                           python_agent):
    # the first run writes a receipt with 1 of 2 units not measured (checkpoint kept); a resume
    # that still measures too little writes none, and says the file there is the earlier one
    argv = python_agent('if SID == "s1":\n    sys.exit(3)\nanswer()\n')
    suite, out = _suite(tmp_path, make_suite, 2), tmp_path / "r.json"
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out)
    assert rc == 0 and out.exists(), err
    rc, err = _aau(capsys, suite, "--command", shlex.join(argv), "--out", out, "--resume",
                   "--unmeasured-limit", "0.5")
    assert rc == EXIT_NOT_MEASURED
    assert f"no receipt written ({out} is an earlier run's, left as it was)" in err
