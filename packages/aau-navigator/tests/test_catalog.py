"""`aau list|find|show|start` over the bundled catalog and aau-harness 1.6's use-cases.json."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import run
from aau_navigator._catalog import BUNDLED_CATALOG, load_catalog, resolve_entry
from aau_navigator._start import local_install_paths, start_commands

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas" / "navigator" / "v1" / "examples" / "valid"
USE_CASES_16 = SHARED / "compat" / "aau-1.6" / "navigator" / "use-cases.json"
EMPTY_16 = SHARED / "compat" / "aau-1.6" / "evidence" / "capsule-root" / "docs" / "use-cases.json"
needs_shared = pytest.mark.skipif(not USE_CASES_16.is_file(), reason=SHARED_MISSING)


def _aau(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# ---------------------------------------------------------------- the bundled catalog

def test_bundled_catalog_is_valid_and_is_the_schema_example() -> None:
    doc = json.loads(BUNDLED_CATALOG.read_text("utf-8"))
    aau_schemas.validate("catalog", doc)
    assert aau_schemas.detect_kind(doc) == "catalog"
    assert BUNDLED_CATALOG.read_bytes() == (EXAMPLES / "catalog-bundled.json").read_bytes()
    assert len(doc["entries"]) == len(load_catalog().entries) == 8


def test_bundled_entries_point_at_files_of_this_repository() -> None:
    for entry in load_catalog().entries:
        assert (REPO / entry.path).is_file(), entry.path
        assert entry.docs and (REPO / entry.docs).is_file(), entry.docs
        assert entry.commands
        for command in entry.commands:
            for word in shlex.split(command):
                if word.startswith(("examples/", "docs/")):
                    assert (REPO / word.split()[-1]).exists(), word


@pytest.mark.slow
def test_every_bundled_command_runs_offline(tmp_path: Path) -> None:
    """Each printed command runs as printed, from a folder holding the repository's examples."""
    (tmp_path / "examples").symlink_to(REPO / "examples")
    bindir = str(Path(sys.executable).parent)
    env = {**{k: v for k, v in os.environ.items() if k != "AAU_DEBUG"},
           "PATH": bindir + os.pathsep + os.environ.get("PATH", "")}
    commands = [c for e in load_catalog().entries for c in start_commands(e, tmp_path)]
    assert len(commands) == 9
    for command in commands:
        # `python` in a printed command is the user's interpreter: here, this one
        argv = [sys.executable if w == "python" else w for w in shlex.split(command)]
        argv = [w.replace("python ", f"{sys.executable} ", 1) for w in argv]
        done = subprocess.run(argv, cwd=tmp_path, env=env, capture_output=True, text=True,
                              timeout=300)
        assert done.returncode == 0, f"{command}\n{done.stderr[-2000:]}"
    written = sorted(p.relative_to(tmp_path).as_posix() for p in (tmp_path / "results").rglob("*.json"))
    assert "results/public-service-routing/receipt.json" in written
    assert "results/river-permit-desk/eval_mock.json" in written
    receipt = json.loads((tmp_path / "results/public-service-routing/receipt.json").read_text())
    aau_schemas.validate("receipt-v2", receipt)


def test_list_prints_every_entry(capsys) -> None:
    code, out, err = _aau(capsys, "list")
    assert code == 0 and err == ""
    for entry in load_catalog().entries:
        assert entry.title in out and entry.path in out


def test_list_filters_and_json_is_a_valid_use_cases_document(capsys) -> None:
    code, out, _ = _aau(capsys, "list", "--capability", "CONTRACT", "--json")
    assert code == 0
    doc = json.loads(out)
    aau_schemas.validate("use-cases", doc)
    assert [e["title"] for e in doc] == ["Heritage Tree Permit", "Transit Pass Continuity",
                                         "Cold Store Outage"]
    code, out, _ = _aau(capsys, "list", "--industry", "public", "--json")
    assert [e["title"] for e in json.loads(out)] == ["Public Service Routing",
                                                     "Transit Pass Continuity"]
    code, out, _ = _aau(capsys, "list", "--industry", "no such sector")
    assert code == 0 and "No use case matched" in out


def test_find_needs_every_term_and_exits_1_on_no_match(capsys) -> None:
    code, out, _ = _aau(capsys, "find", "permit", "ECOLOGIST", "--json")
    assert code == 0
    assert [e["title"] for e in json.loads(out)] == ["River Permit Desk"]
    code, out, _ = _aau(capsys, "find", "permit", "treasurer")
    assert code == 1 and "No use case matched" in out
    code, _, err = _aau(capsys, "find")
    assert code == 2 and "Missing argument" in err


@pytest.mark.parametrize("name", ["river-permit-desk", "River Permit Desk", "RIVER-PERMIT-DESK",
                                  "examples/labs/river-permit-desk.json", "river-permit-desk.json",
                                  "survey ecologist"])
def test_show_resolves_names(capsys, name: str) -> None:
    code, out, err = _aau(capsys, "show", name)
    assert code == 0, err
    assert out.splitlines()[0] == "🎣  River Permit Desk"
    assert "Path:     examples/labs/river-permit-desk.json" in out
    assert "Docs:     docs/labs.md" in out


def test_show_refuses_ambiguous_and_unknown_names(capsys) -> None:
    code, _, err = _aau(capsys, "show", "aau")
    assert code == 2
    assert err.startswith("aau: error: 'aau' matches 8 use cases: 'Public Service Routing'")
    code, _, err = _aau(capsys, "show", "submarine")
    assert (code, err) == (2, "aau: error: no use case matches 'submarine'; try: aau find "
                              "submarine\n")


def test_start_prints_the_commands_and_changes_nothing(capsys, tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, _ = _aau(capsys, "start", "heritage tree permit")
    assert code == 0
    assert ("  aau lab run examples/labs/heritage-tree-permit.json --scenarios "
            "examples/labs/heritage-tree-permit.scenarios.json --mock --out "
            "results/heritage-tree-permit") in out
    assert f"from {tmp_path}:\n  aau examples\n  aau lab run" in out  # tmp_path holds no examples/
    assert list(tmp_path.iterdir()) == []


def test_every_bundled_entry_starts_from_an_empty_folder(capsys, tmp_path, monkeypatch) -> None:
    """Each bundled entry's printed commands, run in order from an empty folder, exit 0: the
    first, ``aau examples``, writes the files the others name (a pip install has no checkout)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AAU_RUN_STORE", "none")
    for entry in load_catalog().entries:
        commands = start_commands(entry, tmp_path, bundled=True)
        if (tmp_path / "examples").exists():
            assert commands[0] != "aau examples", entry.title
        else:
            assert commands[0] == "aau examples", entry.title
        for command in commands:
            if "--command" in command:  # the example agents run as the command adapter
                command = command.replace('"python ', f'"{sys.executable} ')
            code = run(shlex.split(command)[1:])
            assert code == 0, f"{entry.title}: {command}: exit {code}\n{capsys.readouterr().err}"


# ---------------------------------------------------------------- aau-harness 1.6's catalog

@needs_shared
def test_16_use_cases_load_as_is(capsys) -> None:
    catalog = load_catalog(USE_CASES_16)
    assert catalog.kind == "use-cases" and len(catalog.entries) == 71
    raw = json.loads(USE_CASES_16.read_text("utf-8"))
    assert [e.to_dict() for e in catalog.entries] == raw  # nothing added, nothing lost
    code, out, _ = _aau(capsys, "list", "--catalog", str(USE_CASES_16), "--json")
    assert code == 0 and json.loads(out) == raw
    code, out, _ = _aau(capsys, "list", "--catalog", str(USE_CASES_16), "--industry",
                        "security", "--capability", "gate", "--json")
    assert {e["industry"] for e in json.loads(out)} == {"Security Operations"}
    assert all(any("gate" in c for c in e["capabilities"]) for e in json.loads(out))


@needs_shared
def test_16_empty_catalog_loads(capsys) -> None:
    code, out, _ = _aau(capsys, "list", "--catalog", str(EMPTY_16))
    assert code == 0 and "No use case matched" in out
    code, out, _ = _aau(capsys, "list", "--catalog", str(EMPTY_16), "--json")
    assert json.loads(out) == []


@needs_shared
def test_16_show_and_start_as_16_printed_them(capsys) -> None:
    code, out, _ = _aau(capsys, "show", "exception-triage-agent", "--catalog", str(USE_CASES_16))
    assert code == 0
    assert "README:   logistics-supply-chain/exception-triage-agent/README.md" in out
    assert "Failures: logistics-supply-chain/exception-triage-agent/FAILURE_MODES.md" in out
    code, out, _ = _aau(capsys, "start", "Exception Triage", "--catalog", str(USE_CASES_16))
    assert "  python -m pip install -e harness -e logistics-supply-chain/exception-triage-agent\n" \
        "  exception-triage-agent eval --backend mock" in out


def _lab(root: Path, path: str, name: str, deps: list[str]) -> None:
    folder = root / path
    folder.mkdir(parents=True)
    (folder / "pyproject.toml").write_text(
        f'[project]\nname = "{name}"\ndependencies = {json.dumps(deps)}\n', encoding="utf-8")


def test_16_start_installs_local_dependencies_first(tmp_path: Path) -> None:
    """1.6 lab packages depend on sibling labs; the install line lists them first."""
    _lab(tmp_path, "customer-support/refund-resolution-agent", "refund-resolution-agent",
         ["aau-harness>=1.6", "pydantic"])
    _lab(tmp_path, "customer-support/refund-guarded", "refund-guarded",
         ["refund_resolution_agent[extra] >= 0.1", "tool-guards"])
    _lab(tmp_path, "platform/tool-guards", "tool-guards", ["refund-resolution-agent"])
    assert local_install_paths(tmp_path, "customer-support/refund-guarded") == [
        "customer-support/refund-resolution-agent", "platform/tool-guards",
        "customer-support/refund-guarded"]
    docs = tmp_path / "docs"
    docs.mkdir()
    entry = {"path": "customer-support/refund-guarded", "title": "Refund Guarded", "icon": "🛡️",
             "industry": "Customer Support", "capabilities": ["act"], "kind": "controlled A/B",
             "question": "Does a tool guard beat a prompt?", "cli": "refund-guarded"}
    (docs / "use-cases.json").write_text(json.dumps([entry]), encoding="utf-8")
    catalog = load_catalog(docs / "use-cases.json")
    assert catalog.root == tmp_path.resolve()
    assert start_commands(resolve_entry(catalog.entries, "refund guarded"), catalog.root) == [
        "python -m pip install -e harness -e customer-support/refund-resolution-agent "
        "-e platform/tool-guards -e customer-support/refund-guarded",
        "refund-guarded eval --backend mock"]


# ---------------------------------------------------------------- bad catalogs

def test_bad_catalogs_are_one_line_exit_2(capsys, tmp_path: Path) -> None:
    entry = json.loads((EXAMPLES / "catalog-entry-aau-1.6-exception-triage.json").read_text())
    dup = tmp_path / "dup.json"
    dup.write_text(json.dumps([entry, entry]), encoding="utf-8")
    code, _, err = _aau(capsys, "list", "--catalog", str(dup))
    assert code == 2
    assert err == (f"aau: error: {dup}: $[1].path: 'logistics-supply-chain/exception-triage-"
                   "agent' is also the path of entry 0\n")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"catalog_version": "aau-catalog/1.0", "title": "t",
                               "entries": [{**entry, "title": " "}]}), encoding="utf-8")
    code, _, err = _aau(capsys, "show", "x", "--catalog", str(bad))
    assert code == 2 and err.startswith(f"aau: error: {bad}: $.entries[0].title: ")
    assert len(err.splitlines()) == 1
    broken = tmp_path / "broken.json"
    broken.write_text("[{", encoding="utf-8")
    code, _, err = _aau(capsys, "find", "x", "--catalog", str(broken))
    assert code == 2 and err.startswith(f"aau: error: {broken}: $: invalid JSON")
    code, _, err = _aau(capsys, "list", "--catalog", str(tmp_path / "missing.json"))
    assert (code, err) == (2, f"aau: error: {tmp_path / 'missing.json'}: no such file\n")


@pytest.mark.parametrize("value", ["null", "5", '"x"'])
def test_a_catalog_that_is_neither_object_nor_array_says_both_are_accepted(
        capsys, tmp_path: Path, value: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(value)
    code, _, err = _aau(capsys, "list", "--catalog", str(path))
    assert (code, err) == (2, f"aau: error: {path}: $: {value} is neither an aau-catalog/1.0 "
                              "object nor a use-cases array (aau-harness 1.6's "
                              "docs/use-cases.json)\n")
