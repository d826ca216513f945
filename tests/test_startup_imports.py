"""``aau --help`` imports the stdlib, click and the command registry, nothing else (issue 17).

Start-up crept back to 0.53 s once (``aau --help`` imported every command module to print each
one's short help); these tests keep it lazy:

- ``aau --help`` in a fresh interpreter imports only the stdlib, click (and what click itself
  imports) and the registry modules named in ``REGISTRY``; anything else fails with its name and
  the import chain that brought it in;
- ``aau FAMILY --help`` imports only that family's command module, what its options need
  (``OPTION_NEEDS``, each with its reason) and no third-party package but click;
- the lazy listing is byte for byte the one click prints with every command imported, at a
  wide and a narrow terminal, and every package's ``aau.command_help`` table holds exactly the
  first sentence of each of its commands' docstrings;
- every registered command resolves and ``--help`` of it and of each subcommand exits 0;
- ``import aau_core, aau_adapters, ...`` as a library loads their export tables only.

The chains come from a recorder on ``sys.meta_path`` rather than ``-X importtime``: importtime
does not log modules loaded through ``importlib.import_module`` (which is how entry points
load), so its tree would hide exactly the imports this test is about.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points

import click
import pytest
from aau_core._cli import _group

REGISTRY = {
    "aau_core": "the package holding the group; its __init__ is the lazy export table only",
    "aau_core._lazy": "the lazy export tables every package __init__ is built from",
    "aau_core._cli": "the package of the group (a docstring)",
    "aau_core._cli._group": "the `aau` group: reads the entry points, lists the commands, main()",
    "aau_core._installed": "the entry points and versions installed, cached while none changes",
    "aau_core._errors": "the exit codes and error classes main() turns into one line",
    "aau_core._files": "the package of _terminal (a docstring)",
    "aau_core._files._terminal": "every byte aau prints is made terminal-safe",
    "aau_core._cli._command_help": "aau-core's commands' one-line help (aau.command_help)",
    "aau_adapters": "package of a help table; its __init__ is the lazy export table only",
    "aau_adapters._command_help": "aau-adapters' commands' one-line help",
    "aau_labs": "package of a help table; its __init__ is the lazy export table only",
    "aau_labs._cli": "the package of aau_labs' help table (a docstring)",
    "aau_labs._cli._command_help": "aau-labs' commands' one-line help",
    "aau_baseline": "package of a help table; its __init__ is the lazy export table only",
    "aau_baseline._command_help": "aau-baseline's commands' one-line help",
    "aau_evidence": "package of a help table; its __init__ is the lazy export table only",
    "aau_evidence._command_help": "aau-evidence's commands' one-line help",
    "aau_navigator": "package of a help table; its __init__ is the lazy export table only",
    "aau_navigator._command_help": "aau-navigator's commands' one-line help",
    "aau_review": "package of a help table; its __init__ is the lazy export table only",
    "aau_review._command_help": "aau-review's commands' one-line help",
}
"""The aau modules ``aau --help`` may import, each with the reason it must."""

SHARED_OPTIONS = {
    "aau_core._cli._options": "json_option, force_option, out_option and print_json",
    "aau_core._store._options": "the --store / --no-store options",
    "aau_navigator._cli_options": "--root and --json of the catalog, gallery and challenge",
    "aau_core._files._writing": "the one atomic writer the commands import by name "
                                "(stdlib only, no third-party import)",
}
"""Modules any command family's ``--help`` may import (with their packages)."""

OPTION_NEEDS = {
    "evaluate": {"aau_adapters._suite": "--max-suite-bytes' default",
                 "aau_adapters._header_option": "--header, declared once with release assess"},
    "release": {"aau_adapters._header_option": "assess's --header, declared once with evaluate"},
    "gallery": {"aau_evidence._evidence_levels": "--trust's choices: the evidence levels"},
    "init": {"aau_navigator._starter": "--template's and --adapter's choices"},
    "doctor": {"aau_navigator._starter": "in the module of init, whose options need it"},
    "lab": {"aau_labs._cli._pricing": "--price-per-mtok / --pricing-file, shared with bench"},
    "bench": {"aau_labs._cli._pricing": "--price-per-mtok / --pricing-file, shared with lab"},
}
"""Per command: the module its options need and why (what that module imports comes along,
but still no third-party package besides click and what the option module needs)."""

HEAVY = ("attr", "attrs", "cattrs", "numpy", "httpx", "jsonschema", "rfc8785", "rich",
         "jinja2", "referencing", "openai", "anthropic", "ray")
"""Third-party packages no ``--help`` may import unless an ``OPTION_NEEDS`` module brings them."""

RECORD = r"""
import json, os, sys

before = set(sys.modules)
chains = {}


def _chain():
    # the modules being executed, outermost first, then the line that imports
    mods, where, frame = [], None, sys._getframe(2)
    while frame is not None:
        code = frame.f_code
        if where is None and not code.co_filename.startswith("<frozen") \
                and "importlib" not in code.co_filename:
            where = f"{os.path.relpath(code.co_filename)}:{frame.f_lineno} ({code.co_name})"
        if code.co_name == "<module>":
            mods.append(frame.f_globals.get("__name__", "?"))
        frame = frame.f_back
    return [*reversed(mods), where]


class Recorder:
    def find_spec(self, name, path=None, target=None):
        chains.setdefault(name, _chain())
        return None


sys.meta_path.insert(0, Recorder())
sys.argv = ["aau", *sys.argv[1:]]
from aau_core._cli._group import main  # as the console script does

try:
    main()
except SystemExit as exc:
    code = exc.code
loaded = sorted(set(sys.modules) - before)
print(json.dumps({"code": code, "loaded": loaded,
                  "chains": {m: chains.get(m, ["?"]) for m in loaded}}), file=sys.stderr)
"""


def _imports_of(*args: str) -> tuple[int, str, list[str], dict[str, list[str]]]:
    done = subprocess.run([sys.executable, "-c", RECORD, *args], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "COLUMNS": "100"})
    report = json.loads(done.stderr.strip().splitlines()[-1])
    return report["code"], done.stdout, report["loaded"], report["chains"]


def _is_stdlib(module: str) -> bool:
    return module == "__main__" or module.split(".")[0] in sys.stdlib_module_names


def _through_click(chain: list[str]) -> bool:
    return any(m == "click" or m.startswith("click.") for m in chain[:-1])


def _explain(offenders: list[str], chains: dict[str, list[str]], what: str, fix: str) -> str:
    lines = [f"{what} imported {len(offenders)} module(s) it must not:"]
    for module in offenders:
        *mods, where = chains[module]
        lines.append(f"  {module}\n      chain: {' -> '.join([*mods, module])}\n"
                     f"      imported at: {where}")
    lines.append(fix)
    return "\n".join(lines)


def test_help_imports_only_the_stdlib_click_and_the_command_registry():
    code, out, loaded, chains = _imports_of("--help")
    assert code == 0 and "Commands:" in out
    for ep in entry_points(group=_group.ENTRY_POINT_GROUP):
        assert f"\n  {ep.name} " in out, f"aau --help does not list {ep.name}"
    offenders = [m for m in loaded if not _is_stdlib(m) and m not in REGISTRY
                 and m.split(".")[0] != "click" and not _through_click(chains[m])]
    assert offenders == [], _explain(
        offenders, chains, "aau --help",
        "Import it inside the function that needs it (a command module loads when its command "
        "runs), or, if it is truly part of listing the commands, add it to REGISTRY in "
        "tests/test_startup_imports.py with the reason.")
    assert "aau_core._cli._group" in loaded and "aau_adapters._command_help" in loaded


def _with_packages(modules: list[str]) -> set[str]:
    """The modules and every package above them (``a.b.c`` -> ``a.b.c``, ``a.b``, ``a``)."""
    return {m.rsplit(".", n)[0] for m in modules for n in range(m.count(".") + 1)}


def _families() -> list[str]:
    return sorted(ep.name for ep in entry_points(group=_group.ENTRY_POINT_GROUP))


@pytest.mark.parametrize("name", _families())
def test_family_help_imports_only_its_module_and_what_its_options_need(name):
    ep = _group._entry_points()[name]
    code, out, loaded, chains = _imports_of(name, "--help")
    assert code == 0 and out.startswith(f"Usage: aau {name} ")
    needs = OPTION_NEEDS.get(name, {})
    allowed = {*REGISTRY, *_with_packages([ep.module, *SHARED_OPTIONS, *needs])}

    def brought_by_a_need(module: str) -> bool:
        return any(m in needs for m in chains[module][:-1])

    offenders = [m for m in loaded if m.startswith("aau") and m not in allowed
                 and not brought_by_a_need(m)]
    offenders += [m for m in loaded if m.split(".")[0] in HEAVY and not brought_by_a_need(m)]
    assert offenders == [], _explain(
        offenders, chains, f"aau {name} --help",
        f"Import it inside the command function of {ep.module} that uses it; if an option "
        "really needs it (a choice list, a default), add it to OPTION_NEEDS with the reason.")


LAZY_PACKAGES = ("aau_core", "aau_adapters", "aau_labs", "aau_baseline", "aau_evidence",
                 "aau_navigator", "aau_harness")
"""The packages whose ``__init__`` is a lazy export table (aau_schemas, the bottom of the
chain, imports its few modules eagerly and is not one of them)."""


def test_importing_the_packages_loads_their_export_tables_only():
    code = (f"import json, sys\nbefore = set(sys.modules)\nimport {', '.join(LAZY_PACKAGES)}\n"
            "print(json.dumps(sorted(set(sys.modules) - before)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    loaded = json.loads(done.stdout)
    extra = [m for m in loaded if not _is_stdlib(m) and m not in LAZY_PACKAGES
             and m != "aau_core._lazy"]
    assert extra == [], f"importing the packages imported {extra}: keep their __init__ lazy"


def _help(capsys, args: list[str]) -> str:
    assert _group.run(args) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize("columns", ["100", "52"])
def test_lazy_listing_is_the_listing_of_the_imported_commands(monkeypatch, capsys, columns):
    monkeypatch.setenv("COLUMNS", columns)
    monkeypatch.setattr(_group.cli, "_loaded", {})
    monkeypatch.setattr(_group.cli, "_help", None)
    lazy = _help(capsys, ["--help"])
    assert _group.cli._loaded == {}, "aau --help loaded a command"
    monkeypatch.setattr(_group.cli, "_help", {})  # no registered help: every command imports
    imported = _help(capsys, ["--help"])
    assert sorted(_group.cli._loaded) == _families()
    assert lazy == imported


def test_every_help_table_holds_the_first_sentence_of_each_command():
    expected: dict[str, dict[str, str]] = {}
    for ep in entry_points(group=_group.ENTRY_POINT_GROUP):
        command = ep.load()
        assert not command.short_help and not command.hidden and not command.deprecated, (
            f"{ep.name}: a short_help, hidden or deprecated command needs more than a sentence "
            "in the help table (PluginGroup._listed_command)")
        expected.setdefault(ep.dist.name, {})[ep.name] = command.get_short_help_str(10**6)
    tables = {ep.dist.name: (ep.value, ep.load())
              for ep in entry_points(group=_group.HELP_ENTRY_POINT_GROUP)}
    assert sorted(tables) == sorted(expected), "a package with commands has no help table"
    for dist, commands in expected.items():
        value, table = tables[dist]
        want = dict(sorted(commands.items()))
        assert table == want, (
            f"{value} of {dist} is out of date; set it to:\n"
            + "\n".join(f"    {name!r}: {text!r}," for name, text in want.items()))


def _command_paths(command: click.Command, path: list[str]) -> list[list[str]]:
    found = [path]
    if isinstance(command, click.Group):
        ctx = click.Context(command, info_name=path[-1] if path else "aau")
        for name in command.list_commands(ctx):
            found += _command_paths(command.get_command(ctx, name), [*path, name])
    return found


def test_every_command_resolves_and_its_help_exits_0(capsys):
    ctx = click.Context(_group.cli, info_name="aau")
    paths = []
    for name in _families():
        command = _group.cli.get_command(ctx, name)
        assert isinstance(command, click.Command), f"{name} does not resolve to a command"
        paths += _command_paths(command, [name])
    assert len(paths) > len(_families())  # the groups' subcommands too
    for path in paths:
        out = _help(capsys, [*path, "--help"])
        assert out.startswith(f"Usage: aau {' '.join(path)}"), path
