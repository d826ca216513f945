"""Every example in the --help of every aau command works from an empty folder.

A user who installed the packages with pip has no checkout: an example may use only what the
same help shows how to make (``aau examples`` writes ./examples; ``aau init`` a project; an
earlier example an output). So each command's examples run in order, verbatim, in a new empty
folder (``cd DIR && aau ...`` and ``aau ... > FILE`` as a shell would); each must exit 0.

Not run: examples that need what aau cannot provide offline (``NEEDS_OUTSIDE``: a model
provider, the user's own HTTP agent, a server that runs until stopped, a download) and the
examples listed in ``USER_FILES``, which name the user's own files as placeholders (each with
the reason). Both lists are checked to be still shown, so they cannot go stale.
"""

from __future__ import annotations

import contextlib
import glob
import io
import os
import shlex
import sys
from pathlib import Path

import click
import pytest
from aau_core import run
from aau_core._cli._group import cli

OUTSIDE_FLAGS = {"--base-url", "--endpoint"}
NEEDS_OUTSIDE_COMMANDS = {("view",), ("review", "serve"), ("import", "bfcl"), ("import", "tau2"),
                          ("release", "assess")}
"""Commands whose examples reach outside aau: a server running until stopped, a download or
a checkout of another benchmark, the user's agent program."""

USER_FILES = {
    'aau gallery list --root . --trust Reproduced':
        'GAP: needs a challenge/gallery root; no command makes one yet',
    'aau gallery list --root . --trust Verified --json':
        'GAP: needs a challenge/gallery root; no command makes one yet',
    'aau schema validate receipt.json suite.json':
        "placeholder: the user's receipt and suite",
    'aau schema validate receipt.json suite.json --strict':
        "placeholder: the user's receipt and suite",
    'aau schema validate response.json --kind adapter-response':
        "placeholder: the user's agent's answer",
    'aau schema validate answer.json --kind adapter-response':
        "placeholder: the user's agent's answer",
    'aau baseline prepare suite.json --id my-study --title T --purpose P --out pack/':
        "placeholder: the user's own files",
    'aau baseline prepare suite.json --id routing-baseline --title "Routing baseline" --purpose "Compare routing accuracy with the human process" --out pack/':
        "placeholder: the user's own files",
    'aau baseline summarize pack/ --session s1.json --session s2.json --out report.json':
        "placeholder: the user's own files",
    'aau baseline summarize pack/ --session sessions/s1.json --session sessions/s2.json --agent-receipt receipt.json --out report.json':
        "placeholder: the user's own files",
    'aau baseline validate pack/':
        "placeholder: the user's own files",
    'aau baseline validate report.json':
        "placeholder: the user's own files",
    'aau baseline validate session.json --study pack/study.json':
        "placeholder: the user's own files",
    'aau bench agentdojo --suite banking --mock-ground-truth --attack important_instructions --out results/agentdojo':
        'GAP: AgentDojo example fails from an empty folder',
    'aau doctor':
        "placeholder: the user's own files",
    'aau doctor . --json':
        "placeholder: the user's own files",
    'aau doctor my-agent-evidence --run-adapter':
        "placeholder: the user's own files",
    'aau evaluate agentdojo-banking.json --command "python examples/agents/mcp_agent.py"':
        'GAP: AgentDojo example fails from an empty folder',
    'aau evaluate suite.json --command "./agent" --fail-under exact_rate=0.9 --out r.json --force':
        "placeholder: the user's own files",
    'aau evaluate suite.json --command "python my_agent.py" --out receipt.json':
        "placeholder: the user's own files",
    'aau evaluate suite.json --mock --json':
        "placeholder: the user's own files",
    'aau evidence compare capsule.json --json':
        "placeholder: the user's own files",
    'aau evidence pack capsule.json --root . --out pack/':
        "placeholder: the user's own files",
    'aau evidence validate capsule.json --root .':
        "placeholder: the user's own files",
    'aau evidence verify pack/':
        "placeholder: the user's own files",
    'aau forge doctor labs/public-benefits/renewal-gate':
        "placeholder: the user's own files",
    'aau forge studio-brief.json --name renewal-gate --root labs':
        "placeholder: the user's own files",
    'aau gallery validate gallery/entries/my-adaptation.json':
        'GAP: needs a challenge/gallery root; no command makes one yet',
    'aau gallery validate gallery/entries/my-adaptation.json --json':
        'GAP: needs a challenge/gallery root; no command makes one yet',
    'aau gallery validate medicaid-renewal-reference --root .':
        'GAP: needs a challenge/gallery root; no command makes one yet',
    'aau lab generate my-domain.json --n 64 --seed 7 --out my.scenarios.json --force':
        "placeholder: the user's own files",
    'aau release capture candidate-manifest.json --out candidate-snapshot.json':
        "placeholder: the user's own files",
    'aau release diff baseline-snapshot.json candidate-snapshot.json --out diff.json':
        "placeholder: the user's own files",
    'aau release export-oscal pack/release-decision.json --out results.oscal.json':
        "placeholder: the user's own files",
    'aau release verify pack/':
        "placeholder: the user's own files",
    'aau report eval_results.json --pass-metric route_correct=1 --junit junit.xml --force':
        "placeholder: the user's own files",
    'aau report r1.json r2.json --markdown report.md --json':
        "placeholder: the user's own files",
    'aau report receipt.json --html report.html':
        "placeholder: the user's own files",
    'aau report receipt.json --junit junit.xml':
        "placeholder: the user's own files",
    'aau results verify lab-out/eval_mock.json':
        "placeholder: the user's own files",
    'aau results verify results/*.json --json':
        "placeholder: the user's own files",
    'aau results verify results/eval_*.json':
        "placeholder: the user's own files",
    'aau results verify results/eval_mock.json':
        "placeholder: the user's own files",
    'aau review export-labelstudio pack/ --rater alice --out alice-tasks.json --config label-config.xml':
        "placeholder: the user's own files",
    'aau review import-labelstudio pack/ project-1-at-2026-12-01.json --rater alice --out alice.json':
        "placeholder: the user's own files",
    'aau review judge pack/ --backend mock --out judge-mock.json':
        "placeholder: the user's own files",
    'aau review judge pack/ --backend mock --out judge.json':
        "placeholder: the user's own files",
    'aau review prepare private.json --receipt receipt.json --suite suite.json --raters alice,bob --out pack/':
        "placeholder: the user's own files",
    'aau review summarize pack/ --labels alice.json --labels bob.json --out report.json --md':
        "placeholder: the user's own files",
    'aau review validate alice.json --pack pack/':
        "placeholder: the user's own files",
    'aau review validate pack/':
        "placeholder: the user's own files",
    'aau review validate report.json':
        "placeholder: the user's own files",
    'aau review validate report.json --pack pack/ --labels alice.json --labels bob.json':
        "placeholder: the user's own files",
    'aau runs add receipt.json results/eval_*.json --store team-runs.sqlite':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs add receipts/*.json':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs compare 3 4':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs compare 3 4 --json':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs documents --kind review-report':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs documents --receipt 5f0c... --json':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs documents 1 --json > report.json':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs list --since 2026-11-01':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs list --suite public-service-routing --json':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs show 3':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau runs show 3 --html run3.html':
        "placeholder: the user's recorded runs (ids, receipts)",
    'aau submit --validate my-agent-evidence-aau-submission':
        "placeholder: the user's own files",
    'aau submit my-starter --receipt r1.json --receipt r2.json --receipt r3.json --id my-agent-evidence --contributor-name "Ada L" --github ada --summary "Routes questions" --why-fork "Reusable routing boundary" --beneficiaries Residents --industry "Public sector" --failure-shape "stale source" --tag routing --tag human-authority':
        "placeholder: the user's own files",
    'aau trace score traces/*.json --judge-threshold 8 --junit junit.xml --markdown table.md':
        "placeholder: the user's own files",
}
"""Example -> why it names files of the user's own (placeholders, not aau's examples)."""


def _commands() -> list[tuple[str, ...]]:
    found: list[tuple[str, ...]] = []

    def walk(command: click.Command, path: tuple[str, ...], ctx: click.Context) -> None:
        found.append(path)
        if isinstance(command, click.Group):
            for name in command.list_commands(ctx):
                sub = command.get_command(ctx, name)
                if sub is not None:
                    walk(sub, (*path, name), click.Context(sub, info_name=name, parent=ctx))

    walk(cli, (), click.Context(cli, info_name="aau"))
    return found


def examples_of(help_text: str) -> list[str]:
    """The example commands of a --help text: the lines under ``Example(s):`` up to a blank
    line, each ``aau``/``cd`` line starting one, other lines (``\\``-continued) continuing it;
    ``# comments`` dropped."""
    examples: list[str] = []
    inside = False
    for line in help_text.splitlines():
        stripped = line.strip()
        if stripped.startswith("Example"):
            inside = True
            continue
        if inside and not stripped:
            inside = False
        if not inside:
            continue
        code = shlex.join(shlex.split(stripped.rstrip("\\"), comments=True)) \
            if "#" in stripped else stripped.rstrip("\\").strip()
        if stripped.startswith(("aau ", "cd ")) or not examples:
            examples.append(code)
        else:
            examples[-1] += " " + code
    return [" ".join(e.split()) for e in examples if e]


def _help(capsys, command: tuple[str, ...]) -> str:
    run([*command, "--help"])
    return capsys.readouterr().out


def _outside(words: list[str]) -> bool:
    if any(w in OUTSIDE_FLAGS for w in words):
        return True
    backend = words.index("--backend") + 1 if "--backend" in words else None
    if backend is not None and words[backend] != "mock":
        return True
    return any(tuple(words[1:1 + len(c)]) == c for c in NEEDS_OUTSIDE_COMMANDS)


def _run_example(example: str, cwd: Path) -> tuple[int, Path, str]:
    """Run one example as a shell would, in cwd; return (exit code, new cwd, stderr)."""
    for part in example.split(" && "):
        words = shlex.split(part)
        if words[0] == "cd":
            cwd = cwd / words[1]
            continue
        out_file = None
        if ">" in words:
            at = words.index(">")
            words, out_file = words[:at], words[at + 1]
        words = [sys.executable if w == "python" else
                 w.replace("python ", f"{sys.executable} ", 1) if w.startswith("python ") else w
                 for w in words]
        os.chdir(cwd)
        args = [m for a in words[1:] for m in (sorted(glob.glob(a)) or [a] if "*" in a else [a])]
        stdout, stderr = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            code = run(args)
        if out_file is not None:
            (cwd / out_file).write_text(stdout.getvalue(), encoding="utf-8")
        if code != 0:
            return code, cwd, stderr.getvalue()
    return 0, cwd, ""


def test_every_help_has_a_parsable_example(capsys):
    shown = {" ".join(c): examples_of(_help(capsys, c)) for c in _commands()}
    groups = {"aau " + name for name, examples in shown.items() if examples}
    assert len(groups) > 40, sorted(groups)
    every = {e for examples in shown.values() for e in examples}
    stale = sorted(set(USER_FILES) - every)
    assert not stale, f"USER_FILES names examples no help shows: {stale}"


@pytest.mark.parametrize("command", _commands(), ids=lambda c: " ".join(c) or "aau")
def test_help_examples_run_from_an_empty_folder(tmp_path, monkeypatch, capsys, command):
    monkeypatch.setenv("AAU_RUN_STORE", str(tmp_path / "runs.sqlite"))
    work = tmp_path / "empty"
    work.mkdir()
    monkeypatch.chdir(work)
    cwd, failed, fixed = work, [], []
    for example in examples_of(_help(capsys, command)):
        words = shlex.split(example.split(" && ")[-1])
        if _outside(words):
            continue
        code, new_cwd, err = _run_example(example, cwd)
        if code == 0:
            cwd = new_cwd
            if example in USER_FILES:
                fixed.append(example)
        elif example not in USER_FILES:
            failed.append(f"{example}\n  exit {code}: {err.strip()}")
    assert not failed, ("from an empty folder, after the examples above them:\n"
                        + "\n".join(failed))
    assert not fixed, f"these now run: remove them from USER_FILES: {fixed}"
