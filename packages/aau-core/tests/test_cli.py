"""The `aau` root: plugin loading through entry points, error handling, `aau schema`."""

from __future__ import annotations

import json
import sys
import types
from importlib.metadata import EntryPoint

import click
import pytest
from aau_core import _cli, run


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


def test_version(capsys):
    assert run(["--version"]) == 0
    assert capsys.readouterr().out.startswith("aau ")


def test_schema_list_and_show(capsys):
    assert run(["schema", "list", "--json"]) == 0
    kinds = {k["kind"]: k for k in json.loads(capsys.readouterr().out)["kinds"]}
    for kind in ("suite", "adapter-request", "adapter-response", "receipt-v1",
                 "private-receipt-v1", "receipt-v2", "private-receipt-v2"):
        assert kind in kinds
    assert kinds["receipt-v2"]["version"] == "aau-byo-agent-receipt/2.0"
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
