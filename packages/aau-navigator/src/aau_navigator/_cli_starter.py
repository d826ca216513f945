"""``aau init`` and ``aau doctor``: create a starter project and check it.

``aau init NAME`` renders a new project from the package's starter templates (``_starter_render``),
checks it with both adapters run (``_doctor``) and publishes it atomically (``_starter_init``).
``aau doctor [PATH]`` prints the doctor's checks; ``--json`` prints the ``doctor-report``
document on stdout. Human output goes to stderr. Exit codes: 0 created / ready, 1 not ready
(a check failed), 2 usage, input or output error (one line).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click
from aau_core import EXIT_BAR_NOT_MET, EXIT_OK, json_option, print_json

from ._starter import ADAPTERS, TEMPLATE_IDS  # --adapter's and --template's choices

if TYPE_CHECKING:  # the doctor loads when a command runs, not for its --help
    from ._doctor import DoctorReport

_MARK = {"pass": "PASS", "warn": "WARN", "fail": "FAIL"}


def _echo_report(report: DoctorReport) -> None:
    for check in report.checks:
        click.echo(f"{_MARK[check.status]}  {check.id:<17} {check.message}", err=True)
    counts = report.counts()
    verdict = "ready" if report.ready else "NOT ready"
    click.echo(f"aau doctor: {verdict}: {counts['pass']} pass, {counts['warn']} warn, "
               f"{counts['fail']} fail ({report.path})", err=True)


def _emit_json(report: DoctorReport) -> None:
    import aau_schemas

    doc = report.to_dict()
    aau_schemas.validate("doctor-report", doc, source="doctor report (internal check)")
    print_json(doc)


@click.command("init", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("name")
@click.option("--output", metavar="DIR", help="Create the project here (default: ./NAME). "
              "Must not exist.")
@click.option("--template", "template_id", type=click.Choice(TEMPLATE_IDS),
              default="public-service-routing", show_default=True, help="Starter template.")
@click.option("--adapter", type=click.Choice(ADAPTERS), default="command", show_default=True,
              help="Adapter the generated CI evaluates (both are always generated).")
@click.option("--title", help="Project title (default: the template's).")
@click.option("--mission", help="One-line mission (default: the template's).")
@click.option("--human-role", help="The accountable human role (default: the template's).")
@click.option("--protected-action", help="What only that person may do (default: the template's).")
@click.option("--routine-outcome", help="Outcome name of the routine slot.")
@click.option("--human-outcome", help="Outcome name of the hand-to-a-person slot.")
@click.option("--stop-outcome", help="Outcome name of the stop slot.")
@json_option("Print the doctor report (doctor-report) of the new project on stdout.")
def init_command(name: str, output: str | None, template_id: str, adapter: str,
                 title: str | None, mission: str | None, human_role: str | None,
                 protected_action: str | None, routine_outcome: str | None,
                 human_outcome: str | None, stop_outcome: str | None, as_json: bool) -> int:
    """Create a starter project NAME: suite, command and HTTP adapters, a test, CI, first receipt.

    The project is written atomically and only after both of its adapters answered every
    case of its suite; an existing path is never overwritten. Nothing reaches the network.

    \b
    Examples:
      aau init my-agent-evidence
      aau init triage --template incident-triage --adapter http --output work/triage
      cd my-agent-evidence && aau evaluate suite.json --command "python adapter_command.py"
    """
    from ._starter import resolve_starter
    from ._starter_init import init_project

    outcomes = {slot: value for slot, value in (("routine", routine_outcome),
                                                ("human", human_outcome),
                                                ("stop", stop_outcome)) if value is not None}
    config = resolve_starter(name, template_id=template_id, adapter=adapter, title=title,
                             mission=mission, human_role=human_role,
                             protected_action=protected_action, outcomes=outcomes)
    report = init_project(config, Path(output) if output else Path(name))
    if as_json:
        _emit_json(report)
        return EXIT_OK
    click.echo(f"Created {report.path} ({template_id}, {adapter} adapter); both adapters "
               "answered every case before it was published.", err=True)
    _echo_report(report)
    run = ('aau evaluate suite.json --command "python adapter_command.py"' if adapter == "command"
           else "python adapter_endpoint.py 8000 &  then  aau evaluate suite.json "
                "--endpoint http://127.0.0.1:8000/evaluate")
    click.echo(f"Next:\n  cd {report.path}\n  {run}\n  aau doctor . --run-adapter", err=True)
    return EXIT_OK


@click.command("doctor", context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("path", default=".", required=False)
@click.option("--run-adapter", is_flag=True,
              help="Also run both adapters over the suite (executes the project's code; the "
                   "HTTP adapter on a free local port). Each must answer every case.")
@json_option("Print the doctor report (doctor-report) on stdout.")
def doctor_command(path: str, run_adapter: bool, as_json: bool) -> int:
    """Check the starter project in PATH (default: the current folder).

    Checks the manifest, the generated files, the suite, the human authority, both adapters
    (they must compile; with --run-adapter they must answer every case), the first receipt,
    the CI workflow (read-only token, actions pinned by commit SHA, exact aau version) and
    template drift (a warning). Exit 0 when ready, 1 when a check failed, 2 when PATH is
    not a folder.

    \b
    Examples:
      aau doctor
      aau doctor my-agent-evidence --run-adapter
      aau doctor . --json
    """
    from ._doctor import doctor_project

    report = doctor_project(path, run_adapter=run_adapter)
    if as_json:
        _emit_json(report)
    else:
        _echo_report(report)
    return EXIT_OK if report.ready else EXIT_BAR_NOT_MET
