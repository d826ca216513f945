"""The `aau` root: plugin loading through entry points, error handling, `aau schema`."""

from __future__ import annotations

import json
import sys
import types
from importlib.metadata import EntryPoint

import click
import pytest
from aau_core._cli import _group as _cli
from aau_core._cli._group import run


@pytest.fixture
def fake_plugins(monkeypatch):
    module = types.ModuleType("aau_fake_plugin")

    @click.command("hello")
    @click.option("--fail", is_flag=True)
    def hello(fail: bool) -> int:
        """Say hello."""
        click.echo("hello from a plugin")
        return 1 if fail else 0

    @click.command("crash")
    def crash() -> None:
        """Raise an unexpected error."""
        raise RuntimeError("boom")

    module.hello = hello
    module.crash = crash
    monkeypatch.setitem(sys.modules, "aau_fake_plugin", module)
    eps = {
        "hello": EntryPoint("hello", "aau_fake_plugin:hello", _cli.ENTRY_POINT_GROUP),
        "crash": EntryPoint("crash", "aau_fake_plugin:crash", _cli.ENTRY_POINT_GROUP),
        "broken": EntryPoint("broken", "aau_no_such_module:cmd", _cli.ENTRY_POINT_GROUP),
    }
    monkeypatch.setattr(_cli, "_entry_points", lambda: eps)
    monkeypatch.setattr(_cli.cli, "_eps", None)
    monkeypatch.setattr(_cli.cli, "_loaded", {})
    return eps


def test_installed_packages_contribute_their_commands(capsys):
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    assert "evaluate" in out and "schema" in out
    assert "Examples:" in out


def test_plugin_commands_load_and_return_exit_codes(fake_plugins, capsys):
    assert run(["hello"]) == 0
    assert "hello from a plugin" in capsys.readouterr().out
    assert run(["hello", "--fail"]) == 1


def test_a_broken_plugin_does_not_break_the_others(fake_plugins, capsys):
    assert run(["--help"]) == 0
    captured = capsys.readouterr()
    assert "hello" in captured.out
    assert "command 'broken'" in captured.err and "failed to load" in captured.err
    assert run(["hello"]) == 0


def test_unexpected_errors_are_one_line_unless_debug(fake_plugins, capsys):
    assert run(["crash"]) == 70
    err = capsys.readouterr().err
    assert err.strip() == ("aau: error: internal error: RuntimeError: boom "
                           "(run with --debug for a traceback)")
    assert run(["crash", "--debug"]) == 70
    assert "Traceback" in capsys.readouterr().err


def test_unknown_command_and_bad_flag_are_usage_errors(capsys):
    assert run(["no-such-command"]) == 2
    assert "No such command" in capsys.readouterr().err
    assert run(["--no-such-flag"]) == 2


@pytest.mark.parametrize(
    ("args", "fragment", "hint"),
    [
        (["evaluate", "{suite}", "--mock", "--concurrency", "100000"], "'--concurrency'",
         "aau evaluate --help"),
        (["evaluate", "{suite}", "--mock", "--repeats", "0"], "'--repeats'", "aau evaluate --help"),
        (["evaluate", "{suite}", "--mock", "--format", "v3"], "'v3'", "aau evaluate --help"),
        (["evaluate", "{suite}", "--mock", "--no-such-flag"], "No such option",
         "aau evaluate --help"),
        (["no-such-command"], "No such command 'no-such-command'", "aau --help"),
        (["--no-such-flag"], "No such option", "aau --help"),
        (["schema", "show"], "Missing argument 'KIND'", "aau schema show --help"),
        (["schema", "validate", "x.json", "--kind"], "--kind", "aau schema validate --help"),
    ],
)
def test_usage_errors_are_one_line_naming_the_failing_commands_help(tmp_path, capsys, args,
                                                                    fragment, hint):
    suite = tmp_path / "s.json"
    suite.write_text("{}", encoding="utf-8")
    assert run([a.replace("{suite}", str(suite)) for a in args]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("aau: error: ") and fragment in lines[0]
    assert lines[0].endswith(f"(see '{hint}')")
    assert "Usage:" not in captured.err and "Try " not in captured.err


def test_a_compatibility_alias_names_its_own_help(capsys):
    @click.command("alias")
    @click.option("--n", type=click.IntRange(1))
    def alias(n: int) -> int:
        return 0

    assert run(["--n", "0"], command=alias, prog_name="aau-alias") == 2
    err = capsys.readouterr().err
    assert err.splitlines() == [
        "aau: error: Invalid value for '--n': 0 is not in the range x>=1 (see 'aau-alias --help')"
    ]


def test_other_click_errors_are_one_line_too(capsys):
    @click.command("raiser")
    def raiser() -> None:
        raise click.ClickException("something\nwent wrong")

    assert run([], command=raiser) == 1
    assert capsys.readouterr().err == "aau: error: something went wrong\n"


def test_a_bare_group_still_prints_its_help(capsys):
    assert run(["schema"]) == 2
    assert "Commands:" in capsys.readouterr().err


def test_help_lists_every_exit_code(capsys):
    assert run(["--help"]) == 0
    out = capsys.readouterr().out
    section = out.split("Exit codes:", 1)[1]
    for code, words in [("0", "ok"), ("1", "bar"), ("2", "usage"), ("70", "internal error"),
                        ("130", "interrupted")]:
        assert any(line.split()[:1] == [code] and words in line
                   for line in section.splitlines()), (code, section)
    assert "--debug" in section


def test_version(capsys):
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.startswith("aau ")


def test_schema_list_and_show(capsys):
    assert run(["schema", "list", "--json"]) == 0
    kinds = {k["kind"]: k for k in json.loads(capsys.readouterr().out)["kinds"]}
    for kind in ("suite", "adapter-request", "adapter-response", "receipt-v1",
                 "private-receipt-v1", "receipt-v2", "private-receipt-v2"):
        assert kind in kinds
    assert kinds["receipt-v2"]["version"] == "aau-byo-agent-receipt/2.1"  # a minor: reads 2.0
    assert kinds["receipt-v2"]["versions"] == ["aau-byo-agent-receipt/2.0",
                                               "aau-byo-agent-receipt/2.1"]
    assert kinds["suite"]["versions"] == ["aau-byo-agent-suite/1.0"]
    assert kinds["adapter-response"]["versions"] == []
    assert run(["schema", "list"]) == 0
    assert "receipt-v2" in capsys.readouterr().out
    assert run(["schema", "show", "suite"]) == 0
    schema = json.loads(capsys.readouterr().out)
    assert schema["$id"].endswith("suite/v1/suite.schema.json")
    assert run(["schema", "show", "nope"]) == 2
    assert "unknown schema kind 'nope'" in capsys.readouterr().err


def test_schema_validate_exit_codes(tmp_path, capsys):
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"outcome": "x"}), encoding="utf-8")
    assert run(["schema", "validate", str(good), "--kind", "adapter-response"]) == 0
    assert "valid adapter-response" in capsys.readouterr().err

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"outcome": "x", "submitted": "yes"}), encoding="utf-8")
    assert run(["schema", "validate", str(bad), "--kind", "adapter-response", "--json"]) == 1
    captured = capsys.readouterr()
    assert f"{bad}: $.submitted:" in captured.err
    verdict = json.loads(captured.out)["files"][0]
    assert verdict["valid"] is False and verdict["violations"][0]["path"] == "$.submitted"

    garbage = tmp_path / "garbage.json"
    garbage.write_text("{nope", encoding="utf-8")
    assert run(["schema", "validate", str(garbage), "--kind", "suite"]) == 1
    assert "invalid JSON" in capsys.readouterr().err

    assert run(["schema", "validate", str(good)]) == 2  # no version field, no --kind
    assert "pass --kind" in capsys.readouterr().err
    assert run(["schema", "validate", str(tmp_path / "missing.json")]) == 2
    assert run(["schema", "validate", str(good), "--kind", "nope"]) == 2


MINIMAL_SUITE = {
    "suite_version": "aau-byo-agent-suite/1.0",
    "suite_id": "cli-test",
    "sharing": {
        "classification": "synthetic",
        "human_review_complete": True,
        "contains_personally_identifiable_information": False,
        "contains_procurement_sensitive_information": False,
        "contains_controlled_unclassified_information": False,
        "contains_classified_information": False,
        "contains_secrets_or_credentials": False,
    },
    "cases": [{"scenario_id": "c-0", "input": {}, "expected": {"outcome": "ok"}}],
}


def test_out_under_a_file_names_that_file(tmp_path, capsys):
    suite = tmp_path / "s.json"
    suite.write_text(json.dumps(MINIMAL_SUITE), encoding="utf-8")
    agent = tmp_path / "agent.py"
    agent.write_text("", encoding="utf-8")
    assert run(["evaluate", str(suite), "--mock", "--out", str(agent / "r.json")]) == 2
    assert capsys.readouterr().err.splitlines() == [
        f"aau: error: {agent}: is a file, not a folder (cannot write {agent / 'r.json'})"]


def test_schema_list_prints_every_value_whole_in_aligned_columns(capsys):
    import aau_schemas

    assert run(["schema", "list"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split() == ["kind", "version", "schema", "$id"]
    assert "…" not in "\n".join(lines)
    column = lines[0].index("schema $id")
    for kind, line in zip(aau_schemas.kinds(), lines[1:], strict=True):
        assert line.split() == [kind.kind, kind.version or "-", kind.schema_id]
        assert line.index(kind.schema_id) == column
        assert line == line.rstrip()


def test_schema_validate_kind_help_points_at_schema_list(capsys):
    assert run(["schema", "validate", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--kind TEXT Schema kind to check against, a name from `aau schema list`" in out


def test_lazy_exports_load_on_first_use_and_name_missing_distributions():
    import types

    from aau_core._lazy import lazy_exports

    module = types.ModuleType("aau_fake_pkg")
    sys.modules["aau_fake_pkg"] = module
    try:
        getattr_, dir_ = lazy_exports("aau_fake_pkg", {"dumps": "json", "gone": "aau_no_such_mod"},
                                      install_hint={"aau_no_such_mod": "aau-nothing"})
        assert "dumps" not in module.__dict__
        assert getattr_("dumps") is json.dumps
        assert module.__dict__["dumps"] is json.dumps  # cached after the first use
        assert {"dumps", "gone"} <= set(dir_())
        with pytest.raises(ImportError, match="pip install aau-nothing"):
            getattr_("gone")
        with pytest.raises(AttributeError):
            getattr_("other")
    finally:
        del sys.modules["aau_fake_pkg"]


def test_help_lists_a_registered_command_without_importing_it(fake_plugins, monkeypatch, capsys):
    module = types.ModuleType("aau_fake_help")
    module.COMMAND_HELP = {"broken": "Do a thing. More words that click leaves out."}
    monkeypatch.setitem(sys.modules, "aau_fake_help", module)
    monkeypatch.setattr(_cli, "_help_entry_points", lambda: [
        EntryPoint("fake", "aau_fake_help:COMMAND_HELP", _cli.HELP_ENTRY_POINT_GROUP),
        EntryPoint("gone", "aau_no_such_help:COMMAND_HELP", _cli.HELP_ENTRY_POINT_GROUP)])
    monkeypatch.setattr(_cli.cli, "_help", None)
    assert run(["--help"]) == 0
    captured = capsys.readouterr()
    # "broken" cannot be imported: listed from its table, so its module was never tried
    assert "  broken  Do a thing.\n" in captured.out
    assert "command 'broken'" not in captured.err
    # "hello" has no table entry: imported for its help, as before
    assert "  hello   Say hello.\n" in captured.out
    assert sorted(_cli.cli._loaded) == ["crash", "hello"]
    # a table that fails to load is one warning; its commands would be imported instead
    assert captured.err.strip() == ("aau: warning: command help aau_no_such_help:COMMAND_HELP "
                                    "failed to load: No module named 'aau_no_such_help'")
    assert run(["broken"]) == 2  # named, it loads (and fails) as before
    assert "failed to load" in capsys.readouterr().err
