"""The shared --json/--force/--out options and the one JSON printer, on every aau command."""

from __future__ import annotations

import json

import click
import pytest
from aau_core import force_option, json_option, out_option, print_json, render_json
from aau_core._cli._group import cli, run
from click.testing import CliRunner


def _commands(group: click.Group, ctx: click.Context, prefix: str = "aau"):
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is None:
            continue
        if isinstance(command, click.Group):
            yield from _commands(command, ctx, f"{prefix} {name}")
        else:
            yield f"{prefix} {name}", command


def test_every_installed_command_declares_json_force_and_out_one_way():
    ctx = click.Context(cli)
    seen = {"--json": 0, "--force": 0}
    for where, command in _commands(cli, ctx):
        for param in command.params:
            if "--json" in getattr(param, "opts", []):
                assert (param.name, param.is_flag, param.opts) == ("as_json", True, ["--json"]), where
                seen["--json"] += 1
            if "--force" in getattr(param, "opts", []):
                assert (param.name, param.is_flag, param.opts) == ("force", True, ["--force"]), where
                seen["--force"] += 1
    assert seen["--json"] >= 20 and seen["--force"] >= 15, seen


def test_print_json_is_the_file_rendering(capsys):
    doc = {"b": [1, {"é": None}], "a": "x"}
    print_json(doc)
    out = capsys.readouterr().out
    assert out == render_json(doc) == '{\n  "a": "x",\n  "b": [\n    1,\n    {\n      "é": null\n    }\n  ]\n}\n'
    with pytest.raises(ValueError):
        print_json(float("nan"))


def test_a_command_prints_json_sorted_indented_utf8(capsys):
    assert run(["schema", "list", "--json"]) == 0
    out = capsys.readouterr().out
    assert out == render_json(json.loads(out))


def test_the_decorators_build_the_shared_options():
    @click.command()
    @json_option()
    @force_option("Replace an existing --out file.")
    @out_option("Folder to write.", name="out_dir", required=True, kind="folder")
    def command(as_json: bool, force: bool, out_dir: str) -> None:
        click.echo(f"{as_json} {force} {out_dir}")

    runner = CliRunner()
    result = runner.invoke(command, ["--json", "--out", "d"])
    assert result.exit_code == 0 and result.output == "True False d\n"
    result = runner.invoke(command, ["--help"])
    assert "Print a JSON summary on stdout." in result.output
    assert "Replace an existing --out file." in result.output
    assert runner.invoke(command, []).exit_code == 2  # --out is required
    with pytest.raises(ValueError, match="path_type goes with a kind"):
        out_option("x", path_type=str)
