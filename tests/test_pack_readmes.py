"""The README aau writes into a human-baseline pack, followed as written from inside the pack
(real ``aau`` commands): session copies and the report stay outside the pack, the README's own
commands succeed, and the pack is still valid afterwards; a session left inside the pack, or a
report written into it, is named plainly with what to do."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO / "examples" / "suites" / "public-service-routing.json"


def aau(*args, cwd: Path) -> subprocess.CompletedProcess:
    script = Path(sys.executable).parent / "aau"
    return subprocess.run([str(script), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env={**os.environ, "AAU_RUN_STORE": "none"}, timeout=300)


def _pack(tmp_path: Path) -> Path:
    done = aau("baseline", "prepare", SUITE, "--id", "my-study", "--title", "T", "--purpose",
               "P", "--out", "pack", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    return tmp_path / "pack"


def _fill(pack: Path, session_id: str) -> dict:
    """The pack's session template filled in: every case answered with the first outcome."""
    doc = json.loads((pack / "session-template.json").read_text(encoding="utf-8"))
    outcome = json.loads((pack / "study.json").read_text(encoding="utf-8"))["outcomes"][0]
    doc["anonymous_session_id"] = session_id
    for response in doc["responses"]:
        response.update(outcome=outcome, confidence=70, elapsed_ms=5000)
    return doc


def test_the_baseline_readme_works_as_written_from_inside_the_pack(tmp_path):
    pack = _pack(tmp_path)
    readme = (pack / "README.md").read_text(encoding="utf-8")
    # the copy step and the check step, as the README words them
    copy = re.search(r"`cp (session-template\.json) (\S+)`", readme)
    assert copy is not None, readme
    check = re.search(r"`(aau baseline validate \S+ --study study\.json)`", readme)
    assert check is not None, readme
    assert (pack / copy.group(1)).is_file()
    block = readme.split("```bash\n", 1)[1].split("```", 1)[0].strip().splitlines()
    sessions = [arg for line in block for arg in re.findall(r"--session (\S+)", line)]
    assert sessions == [copy.group(2), copy.group(2).replace("s1", "s2")]
    for i, name in enumerate(sessions):
        (pack / name).write_text(json.dumps(_fill(pack, f"{i + 1:x}" * 12)),
                                 encoding="utf-8")
        argv = shlex.split(check.group(1).replace(copy.group(2), name))[1:]
        done = aau(*argv, cwd=pack)
        assert done.returncode == 0, done.stderr
    for line in block:  # every command of the README's Commands block
        done = aau(*shlex.split(line)[1:], cwd=pack)
        assert done.returncode == 0, (line, done.stderr)
    assert (tmp_path / "report.json").is_file()
    assert aau("baseline", "validate", ".", cwd=pack).returncode == 0


def test_a_session_left_in_the_pack_and_a_report_into_it_are_named_plainly(tmp_path):
    pack = _pack(tmp_path)
    (tmp_path / "s1.json").write_text(json.dumps(_fill(pack, "a" * 12)), encoding="utf-8")
    done = aau("baseline", "summarize", ".", "--session", "../s1.json", "--out", "report.json",
               cwd=pack)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "aau: error: --out report.json: inside the pack folder, which holds only the pack's own "
        "files; write the report outside it (e.g. in the folder that holds the pack)")
    assert not (pack / "report.json").exists()
    (pack / "s1.json").write_text((tmp_path / "s1.json").read_text(encoding="utf-8"),
                                  encoding="utf-8")
    done = aau("baseline", "summarize", ".", "--session", "s1.json", "--out", "../r.json",
               cwd=pack)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "aau: error: s1.json: an extra file in the pack folder, which holds exactly README.md, "
        "answer-key.json, manifest.json, session-template.json, study.json: keep session "
        "files and reports outside the pack (e.g. ../NAME from inside it) and move this one "
        "out")
