"""Text read from documents never controls the terminal: hostile strings (an OSC window-title
sequence, a screen clear, BEL, CR, a C1 control and bidi overrides) go through several
commands' human output and error lines, and no ESC, BEL, CR, C1 or bidi character reaches
stdout or stderr (each is shown as its visible escape, ``\\u001b``)."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from aau_core import terminal_text

REPO = Path(__file__).resolve().parents[1]
AAU = shutil.which("aau", path=str(Path(sys.executable).parent)) or "aau"
EVIL = "Evil\u001b[31mRED\u001b]0;pwn\u0007\u001b[2J\rfake\u009b\u202eabc\u2066"
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _aau(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("AAU_DEBUG", "AAU_RUN_STORE")}
    return subprocess.run([AAU, *argv], cwd=cwd, env=env, capture_output=True, timeout=300)


def _assert_clean(proc: subprocess.CompletedProcess, where: str) -> str:
    for name in ("stdout", "stderr"):
        text = getattr(proc, name).decode("utf-8", errors="replace")
        found = CONTROL.findall(text)
        assert not found, (where, name, found, text[-1500:])
    return proc.stdout.decode() + proc.stderr.decode()


def test_terminal_text_replaces_controls_keeps_newline_and_tab() -> None:
    assert terminal_text("a\tb\nc") == "a\tb\nc"
    assert terminal_text("x\u001b]0;t\u0007y\rz\u0085\u202e") == \
        "x\\u001b]0;t\\u0007y\\u000dz\\u0085\\u202e"
    # inside a JSON string the escape denotes the same character
    assert json.loads(terminal_text(json.dumps("a\u0085\u202e", ensure_ascii=False))) == \
        "a\u0085\u202e"
    assert terminal_text("caf\u00e9 \U0001f3db") == "caf\u00e9 \U0001f3db"


def test_click_echo_into_a_pipe_shows_escapes_instead_of_stripping_them() -> None:
    # click strips ANSI sequences from echo into a stream that is not a terminal; then
    # "c1\x1b[31m" printed as "c1", the same as another scenario id. The safe stream keeps
    # them for terminal_text, so a pipe sees what a terminal sees.
    import io

    import click
    from aau_core._files._terminal import TerminalSafeStream

    piped = io.StringIO()
    click.echo("c1\u202e\x1b[31m | c1", file=TerminalSafeStream(piped))
    assert piped.getvalue() == "c1\\u202e\\u001b[31m | c1\n"


def test_hostile_catalog_title_through_list_show_and_find(tmp_path: Path) -> None:
    catalog = json.loads((REPO / "packages/aau-navigator/src/aau_navigator/catalog.json")
                         .read_text())
    entry = catalog["entries"][0]
    entry["title"] = EVIL
    entry["question"] = EVIL
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(catalog))
    out = _assert_clean(_aau("list", "--catalog", str(path), "--root", str(REPO), cwd=tmp_path),
                        "list")
    assert "\\u001b]0;pwn\\u0007" in out  # (click itself drops CSI colours when not a terminal)
    _assert_clean(_aau("show", entry["path"], "--catalog", str(path), "--root", str(REPO),
                       cwd=tmp_path), "show")
    _assert_clean(_aau("find", "Evil", "--catalog", str(path), "--root", str(REPO),
                       cwd=tmp_path), "find")
    # an invalid catalog quoting the hostile value in its error line
    entry["industry"] = 7
    entry["path"] = EVIL
    path.write_text(json.dumps(catalog))
    proc = _aau("list", "--catalog", str(path), cwd=tmp_path)
    assert proc.returncode == 2
    _assert_clean(proc, "list error")


def test_hostile_suite_through_evaluate_and_report(tmp_path: Path) -> None:
    suite = json.loads((REPO / "examples/suites/public-service-routing.json").read_text())
    suite["title"] = EVIL
    suite["cases"][0]["input"] = {"note": EVIL}
    path = tmp_path / "suite.json"
    path.write_text(json.dumps(suite))
    proc = _aau("evaluate", str(path), "--mock", "--out", str(tmp_path / "r.json"), cwd=tmp_path)
    _assert_clean(proc, "evaluate")
    # a document that is not valid, with hostile values in the error lines
    suite["suite_version"] = EVIL  # an error line quoting the value
    path.write_text(json.dumps(suite))
    proc = _aau("evaluate", str(path), "--mock", "--out", str(tmp_path / "r2.json"),
                cwd=tmp_path)
    assert proc.returncode == 2
    _assert_clean(proc, "evaluate error")
    proc = _aau("schema", "validate", str(path), cwd=tmp_path)
    _assert_clean(proc, "schema validate")


def test_hostile_gallery_entry_through_gallery_and_challenge(tmp_path: Path) -> None:
    nav = REPO / "packages" / "aau-navigator" / "tests"
    sys.path.insert(0, str(nav))
    try:
        from _nav_root import build_root
    except ImportError:
        pytest.skip("the navigator test root builder is not available")
    finally:
        sys.path.remove(str(nav))
    root = build_root(tmp_path / "root")
    entry_path = next((root / "gallery" / "entries").glob("*.json"))
    entry = json.loads(entry_path.read_text())
    entry["summary"] = EVIL
    entry["review"]["scope"] = EVIL
    entry["contributor"]["github"] = "ada\u001b]0;x\u0007"
    entry_path.write_text(json.dumps(entry))
    for argv in (["gallery", "list"], ["gallery", "validate"], ["challenge", "list"],
                 ["challenge", "validate"]):
        _assert_clean(_aau(*argv, "--root", str(root), cwd=tmp_path), " ".join(argv))
