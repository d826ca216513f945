"""`aau forge --quiet` / `aau new-use-case --quiet`: the verification prints only a failed step."""

from __future__ import annotations

from types import SimpleNamespace

from aau_navigator._cli_forge import _step_echo, forge_command, new_use_case_command


def test_quiet_verification_prints_only_a_failure(capsys):
    ok = SimpleNamespace(step="install", passed=True, output="")
    bad = SimpleNamespace(step="tests", passed=False, output="1 failed\n")
    for step in (ok, bad):
        _step_echo(True)(step)
    assert capsys.readouterr().err == "  tests: FAILED\n1 failed\n"
    for step in (ok, bad):
        _step_echo(False)(step)
    assert capsys.readouterr().err.splitlines()[:2] == [
        "verifying the lab (install, generate, tests, mock_eval) ...", "  install: ok"]


def test_both_commands_have_quiet():
    for command in (forge_command, new_use_case_command):
        assert "quiet" in {p.name for p in command.params}
