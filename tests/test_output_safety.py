"""Every command with outputs follows ``aau_core._files._writing``'s rules: a device, pipe or link is never
replaced (even with --force), two outputs may not be the same file, an output may not be one of
the inputs, and an error leaves no output written (all or nothing)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from _helpers import NOT_REGULAR, REPO, run_aau, special_file, valid_suite, write_json

TRACE = REPO / "examples" / "traces" / "refactor-pass.json"
pytestmark = pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and symlinks")


aau = run_aau
_special = special_file


@pytest.fixture
def receipt(tmp_path, capsys) -> Path:
    suite = write_json(tmp_path / "suite.json", valid_suite(2))
    out = tmp_path / "receipt.json"
    rc, _, err = aau(capsys, "evaluate", suite, "--mock", "--out", out)
    assert rc in (0, 1), err
    return out


def _commands(tmp_path: Path, receipt: Path, option_target: Path) -> list[list[object]]:
    suite = tmp_path / "suite.json"
    return [
        ["trace", "score", TRACE, "--out", option_target],
        ["trace", "score", TRACE, "--junit", option_target],
        ["trace", "import", REPO / "examples" / "traces" / "praison-harness-run", "--out",
         option_target],
        ["report", receipt, "--junit", option_target],
        ["report", receipt, "--markdown", option_target],
        ["evaluate", suite, "--mock", "--out", option_target],
        ["evaluate", suite, "--mock", "--out", tmp_path / "r2.json", "--private-out",
         option_target],
    ]


@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_no_command_replaces_a_device_pipe_or_link_even_with_force(tmp_path, capsys, receipt,
                                                                   kind):
    dest = _special(tmp_path, kind)
    before = os.lstat(dest)
    for args in _commands(tmp_path, receipt, dest):
        rc, _, err = aau(capsys, *args, "--force")
        assert rc == 2, (args, err)
        assert f"{dest}: {NOT_REGULAR}" in err, (args, err)
        after = os.lstat(dest)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode), args
    assert not (tmp_path / "r2.json").exists()
    if kind == "symlink":
        assert (tmp_path / "target.txt").read_text() == "keep\n"


def test_an_error_on_a_later_output_leaves_no_earlier_output(tmp_path, capsys, receipt):
    missing_parent = Path("/proc/aau-no-such-folder/x.xml")
    rc, _, err = aau(capsys, "trace", "score", TRACE, "--out", tmp_path / "a.json",
                     "--junit", missing_parent)
    assert rc == 2 and str(missing_parent) in err
    assert not (tmp_path / "a.json").exists()
    rc, _, err = aau(capsys, "report", receipt, "--junit", tmp_path / "x.xml",
                     "--markdown", missing_parent.with_suffix(".md"))
    assert rc == 2 and not (tmp_path / "x.xml").exists()


def test_two_outputs_naming_one_file_are_refused_before_any_work(tmp_path, capsys):
    rc, _, err = aau(capsys, "trace", "score", TRACE, "--out", tmp_path / "r.json", "--junit",
                     tmp_path / "r.json")
    assert rc == 2
    assert f"--out and --junit name the same file ({tmp_path / 'r.json'})" in err
    assert not (tmp_path / "r.json").exists()


def test_an_output_that_is_an_input_is_refused_even_with_force(tmp_path, capsys, receipt):
    before = receipt.read_bytes()
    rc, _, err = aau(capsys, "report", receipt, "--junit", receipt, "--force")
    assert rc == 2 and f"--junit {receipt}: is also an input of this command" in err
    assert receipt.read_bytes() == before
    trace = tmp_path / "trace.json"
    shutil.copy(TRACE, trace)
    rc, _, err = aau(capsys, "trace", "score", trace, "--markdown", trace, "--force")
    assert rc == 2 and "is also an input" in err
    assert trace.read_bytes() == TRACE.read_bytes()
    suite = tmp_path / "suite.json"
    rc, _, err = aau(capsys, "evaluate", suite, "--mock", "--out", suite, "--force")
    assert rc == 2 and "is also an input" in err


def test_a_missing_parent_outside_the_working_and_temp_folders_is_not_created(tmp_path, capsys,
                                                                             monkeypatch):
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "tmp"))
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    dest = tmp_path / "nonexist" / "x.xml"
    rc, _, err = aau(capsys, "trace", "score", TRACE, "--junit", dest)
    assert rc == 2 and f"folder {tmp_path / 'nonexist'} does not exist" in err
    assert not (tmp_path / "nonexist").exists()
    rc, _, err = aau(capsys, "trace", "score", TRACE, "--junit", "reports/ci/x.xml")
    assert rc == 0, err
    assert (tmp_path / "work" / "reports" / "ci" / "x.xml").is_file()


def test_a_trace_given_twice_is_refused_so_junit_case_names_stay_unique(tmp_path, capsys):
    alias = tmp_path / "alias.json"
    alias.symlink_to(TRACE)
    for second in (TRACE, alias):
        rc, _, err = aau(capsys, "trace", "score", TRACE, second, "--junit", tmp_path / "j.xml")
        assert rc == 2 and f"{second}: the same trace as {TRACE} is given twice" in err
        assert not (tmp_path / "j.xml").exists()


@pytest.mark.parametrize("kind", ["fifo", "symlink"])
def test_lab_generate_and_run_refuse_a_device_pipe_or_link_even_with_force(tmp_path, capsys,
                                                                           kind):
    config = REPO / "examples" / "labs" / "river-permit-desk.json"
    dest = _special(tmp_path, kind)
    rc, _, err = aau(capsys, "lab", "generate", config, "--out", dest, "--force")
    assert rc == 2 and f"{dest}: {NOT_REGULAR}" in err
    out_dir = tmp_path / "lab-out"
    out_dir.mkdir()
    special = _special(out_dir, kind)
    special.rename(out_dir / "eval_mock.md")
    rc, _, err = aau(capsys, "lab", "run", config, "--mock", "--out", out_dir, "--force")
    assert rc == 2 and f"{out_dir / 'eval_mock.md'}: {NOT_REGULAR}" in err
    assert not (out_dir / "eval_mock.json").exists()
    rc, _, err = aau(capsys, "lab", "generate", config, "--out", config, "--force")
    assert rc == 2 and "is also an input" in err
