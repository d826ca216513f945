"""``aau forge BRIEF --name NAME``, ``aau forge doctor PATH`` and ``aau new-use-case``.

Human output goes to stderr; ``--json`` prints the forge manifest (``aau forge``) or the doctor
report (``aau forge doctor``) on stdout. Exit codes: 0 done (doctor: publication ready); 1 the
generated lab failed its verification (its files are kept) or the doctor found work left; 2 a
bad brief, flag or an existing destination (one line, nothing written).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click
from aau_core import json_option, print_json

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


def _root_and_verify_options(command: Any) -> Any:
    """``--root``, ``--no-verify`` and ``--quiet``: where a lab is written and how it is verified
    (``aau forge`` and ``aau new-use-case`` alike)."""
    command = click.option("--quiet", "-q", is_flag=True,
                           help="No verification steps on stderr unless one fails.")(command)
    command = click.option(
        "--no-verify", is_flag=True,
        help="Skip installing, generating, testing and mock-running the lab.")(command)
    return click.option("--root", type=click.Path(file_okay=False, path_type=Path),
                        default=Path("."), show_default=True,
                        help="Output root; the lab is ROOT/<industry>/<name>.")(command)


def _step_echo(quiet: bool) -> Any:
    """The verification's progress callback: every step, or with ``--quiet`` a failed one only."""
    return _echo_failed_step if quiet else _echo_step


def _echo_failed_step(step: Any) -> None:
    if not step.passed:
        click.echo(f"  {step.step}: FAILED\n{step.output.rstrip()}", err=True)


def _echo_step(step: Any) -> None:
    if step.step == "install":
        click.echo("verifying the lab (install, generate, tests, mock_eval) ...", err=True)
    mark = "ok" if step.passed else f"FAILED\n{step.output.rstrip()}"
    click.echo(f"  {step.step}: {mark}", err=True)


def _shown(path: Path, root: str) -> str:
    try:
        return os.path.relpath(path, root)
    except ValueError:  # another drive (Windows)
        return str(path)


@click.command(name="doctor", context_settings=CONTEXT)
@click.argument("path", type=click.Path(file_okay=False, path_type=Path), default=".")
@json_option("Print the report as JSON on stdout.")
@click.pass_context
def forge_doctor_command(ctx: click.Context, path: Path, as_json: bool) -> None:
    """Say what a forged lab still needs before publication (eight checks).

    Exit 0 when every check passes, 1 otherwise.

    \b
    Example:
      aau forge doctor public-benefits/renewal-gate --json
    """
    from ._forge_doctor import diagnose_forged_lab, render_diagnosis

    report = diagnose_forged_lab(path)
    if as_json:
        print_json(report)
    else:
        click.echo(render_diagnosis(report), err=True)
    ctx.exit(0 if report["publication_ready"] else 1)


class _ForgeCommand(click.Command):
    """``aau forge``: ``doctor`` as first argument runs ``forge doctor`` (aau-harness 1.6's
    ``aau-forge doctor PATH``); anything else is a brief."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        if args and args[0] == "doctor":
            ctx.meta["aau_forge_doctor_args"] = list(args[1:])
            return []
        return super().parse_args(ctx, args)

    def invoke(self, ctx: click.Context) -> Any:
        rest = ctx.meta.pop("aau_forge_doctor_args", None)
        if rest is None:
            return super().invoke(ctx)
        # no parent context: the parent's usage pieces (BRIEF) would enter the command path
        with forge_doctor_command.make_context(f"{ctx.command_path} doctor", rest) as sub:
            return forge_doctor_command.invoke(sub)


@click.command(name="forge", cls=_ForgeCommand, context_settings=CONTEXT)
@click.argument("brief", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--name", required=True, help="Lab name: package, console script and folder.")
@click.option("--title", default=None, help="Lab title (default: the name in title case).")
@click.option("--seed", type=click.IntRange(min=0), default=None,
              help="Scenario seed (default: derived from the brief, as aau-harness 1.6 did).")
@_root_and_verify_options
@json_option("Print the forge manifest on stdout.")
def forge_command(brief: Path, name: str, title: str | None, seed: int | None, root: Path,
                  no_verify: bool, quiet: bool, as_json: bool) -> None:
    """Turn an AAU Studio brief into a runnable lab package.

    A contract naming Decision Gate, Rights Continuity or Critical Event Fan-Out gives a lab
    on aau's contract lab of that family; any other contract gives the generic scaffold.
    Unless --no-verify, the lab is installed into a temporary folder, generates its
    scenarios, runs its own tests and its mock (offline). `aau forge doctor PATH` says what
    remains before publication.

    \b
    Examples:
      aau forge studio-brief.json --name renewal-gate --root labs
      aau forge doctor labs/public-benefits/renewal-gate
    """
    from ._forge import forge

    result = forge(brief, name, root, seed=seed, title=title, verify=not no_verify,
                   progress=_step_echo(quiet))
    shown = _shown(result.path, str(root))
    click.echo(f"forged {shown} ({result.manifest['generator']['mode']}, "
               f"{result.manifest['generator']['contract']}, seed {result.manifest['seed']})",
               err=True)
    click.echo(f"next: replace every TODO(domain), then run: aau forge doctor {result.path}",
               err=True)
    if as_json:
        print_json(result.manifest)


@click.command(name="new-use-case", context_settings=CONTEXT)
@click.option("--industry", required=True, help="e.g. healthcare, insurance, public-benefits.")
@click.option("--name", required=True, help="Lab name: package, console script and folder.")
@click.option("--seed", type=click.IntRange(min=0), required=True,
              help="The scenario seed the lab generates with by default.")
@click.option("--title", default=None, help="Lab title (default: the name in title case).")
@_root_and_verify_options
def new_use_case_command(industry: str, name: str, seed: int, title: str | None, root: Path,
                         no_verify: bool, quiet: bool) -> None:
    """Scaffold a lab package whose tests and mock evaluation pass from the start.

    The world is a generic placeholder (a request desk with a misleading archetype and a
    mock with a blind spot) on aau-core's runner and agent loop; replace it with your domain.
    Exit 1 when the verification fails (the files are kept), 2 for bad flags or an existing
    folder.

    \b
    Example:
      aau new-use-case --industry healthcare --name prior-auth-desk --seed 41
    """
    from aau_core import BarNotMetError

    from ._forge_verify import verify_lab
    from ._scaffold import lab_names, new_use_case

    dest = new_use_case(industry, name, seed, root, title)
    click.echo(f"created {_shown(dest, str(root))}", err=True)
    if not no_verify:
        pkg = lab_names(industry, name, title).pkg
        steps = verify_lab(dest, pkg, seed=seed, n=30, repeats=3, progress=_step_echo(quiet))
        if not all(step.passed for step in steps):
            raise BarNotMetError(f"{dest}: the lab failed verification at {steps[-1].step}: "
                                 f"{steps[-1].summary}; its files are kept")
    click.echo(f"next: rewrite the domain in {dest / 'src'} (search for TODO(domain)); "
               "the lab's tests tell you when an edit breaks the measurement", err=True)
