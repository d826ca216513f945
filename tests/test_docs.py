"""The README's promises and the generated docs stay true."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from _helpers import REPO
from aau_core import run


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the quick start has a bash block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()
            if line.split("#", 1)[0].strip()]


def test_quick_start_is_exactly_two_commands_the_makefile_has():
    commands = _quick_start_commands()
    assert commands == ["make demo", "make test"]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("demo", "test"):
        assert re.search(rf"^{target}:", makefile, re.M)


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_schema_reference_is_up_to_date():
    done = subprocess.run([sys.executable, str(REPO / "tools" / "gen_schema_docs.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_readme_and_docs_links_resolve():
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)\)", doc.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            assert (doc.parent / target).exists(), f"{doc.name}: broken link {target}"


def _section(text: str, heading: str) -> str:
    return text.split(f"\n## {heading}\n", 1)[1].split("\n## ", 1)[0]


def test_run_aau_yourself_comes_right_after_the_quick_start():
    text = (REPO / "README.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## (.+)$", text, re.M)
    assert headings[headings.index("Quick start") + 1] == "Run aau yourself"
    section = _section(text, "Run aau yourself")
    assert "make env" in section and "HATCH_DATA_DIR=.hatch" in section
    install = re.search(r"^pip install (.+?)(?:#|$)", section, re.M)
    assert install, "a pip install line for use outside the repository"
    paths = install.group(1).split()
    # a working set: every package of the repository (aau-harness requires all the others)
    assert sorted(paths) == sorted(f"./packages/{p.parent.name}"
                                   for p in (REPO / "packages").glob("*/pyproject.toml"))
    assert paths[0] == "./packages/aau-schemas" and paths[-1] == "./packages/aau-harness"
    for path in paths:
        assert (REPO / path / "pyproject.toml").is_file(), path


def test_make_env_creates_the_environment_and_prints_how_to_activate_it():
    dry = subprocess.run(["make", "-n", "env"], cwd=REPO, capture_output=True, text=True,
                         timeout=60)
    assert dry.returncode == 0, dry.stderr
    assert "env create" in dry.stdout and "env find" in dry.stdout
    assert "bin/activate" in dry.stdout
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    assert re.search(r"^export HATCH_DATA_DIR := \$\(CURDIR\)/\.hatch$", makefile, re.M)


@pytest.mark.skipif(not (REPO / ".venv-tools" / "bin" / "hatch").exists()
                    or not (REPO / ".hatch" / "env").is_dir(),
                    reason="runs only where `make demo` or `make test` has already built "
                           "the workspace environment (make env would otherwise download it)")
def test_make_env_prints_a_source_line_for_an_existing_environment():
    done = subprocess.run(["make", "-s", "env"], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    line = done.stdout.strip().splitlines()[-1]
    match = re.fullmatch(r"source '(.+)/bin/activate'", line)
    assert match, line
    env = Path(match.group(1))
    assert (env / "bin" / "activate").is_file()
    assert (REPO / ".hatch").resolve() in env.resolve().parents


def _minimal_suite() -> dict:
    text = (REPO / "docs" / "evaluate.md").read_text(encoding="utf-8")
    after = text.split("A minimal complete suite to copy", 1)[1]
    block = re.search(r"```json\n(.*?)```", after, re.S)
    assert block, "docs/evaluate.md has the minimal suite in a json block"
    return json.loads(block.group(1))


def test_the_minimal_suite_in_the_docs_is_valid_and_runs(tmp_path, capsys):
    doc = _minimal_suite()
    aau_schemas.validate("suite-v3", doc, source="docs/evaluate.md")
    assert set(doc) == {"suite_version", "suite_id", "sharing", "cases"}
    assert len(doc["cases"]) == 1
    suite = tmp_path / "suite.json"
    suite.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert run(["evaluate", str(suite), "--mock", "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    # documented: without --out the whole receipt is in the summary under "receipt"
    assert summary["receipt_path"] is None and summary["passed"] is True
    aau_schemas.validate("receipt-v2", summary["receipt"])


def test_evaluate_docs_list_every_exit_code():
    from aau_core import _errors

    text = (REPO / "docs" / "evaluate.md").read_text(encoding="utf-8")
    table = text.split("Exit codes", 1)[1].split("\n\n", 2)[1]
    listed = [line.split("|")[1].strip() for line in table.splitlines()[2:]]
    constants = [getattr(_errors, n) for n in dir(_errors) if n.startswith("EXIT_")]
    assert sorted(map(int, listed)) == sorted(constants)  # 0, 1, 2, 3, 70, 130: all, no other
    assert "--debug" in table and "not measured" in table


def test_the_compat_skip_reason_says_what_is_skipped_and_why():
    from _helpers import SHARED_MISSING

    for words in ("aau-harness 1.6", "compatibility", "../shared", "plain clone", "CI"):
        assert words in SHARED_MISSING, words
    assert "user's clone" not in SHARED_MISSING


def test_the_baseline_docs_commands_run(tmp_path, monkeypatch, capsys):
    import shlex

    from aau_core import run

    text = (REPO / "docs" / "baseline.md").read_text(encoding="utf-8")
    block = text.split("```bash\n", 1)[1].split("```", 1)[0]
    lines = [line for line in block.splitlines() if line.startswith("aau baseline ")]
    assert len(lines) == 4
    (tmp_path / "schemas").symlink_to(REPO / "schemas")
    monkeypatch.chdir(tmp_path)
    for line in lines:
        assert run(shlex.split(line)[1:]) == 0, line
    assert "pack: valid human-baseline pack" in capsys.readouterr().err
