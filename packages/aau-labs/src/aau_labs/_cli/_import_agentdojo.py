"""``aau import agentdojo``: AgentDojo's user tasks as a suite v3 naming its environments.

Registered in the ``aau.importers`` entry-point group (aau-adapters' ``aau import`` group loads
it when named). Presentation only: the document is ``_environments._agentdojo_import``'s.
"""

from __future__ import annotations

import click
from aau_core import EXIT_OK, check_outputs, force_option, json_content, out_option, write_outputs

from .._agentdojo._suite import AGENTDOJO_SUITES
from ._bench import _parse_tasks

_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.command("agentdojo", context_settings=_CONTEXT, epilog="""\b
Examples:
  aau import agentdojo --suite banking --out agentdojo-banking.json
  aau import agentdojo --suite slack --tasks user_task_0,user_task_3 --out slack.json
  aau evaluate agentdojo-banking.json --command "python examples/agents/mcp_agent.py"
  aau import agentdojo --suite banking --attack important_instructions \
      --injection-tasks injection_task_0,injection_task_1 --out banking-attacked.json

\b
Each case names the agentdojo-<suite> environment; expected is {} (AgentDojo's utility on
the final state decides; ground-truth calls are not required). With --attack, one case per
(user task x injection task), the attack's text in the environment's injection vectors; the
receipt reports utility under attack and the attack success rate. Needs aau-labs[agentdojo].
Exit codes: 0 written; 2 usage or input error (nothing written).
""")
@click.option("--suite", required=True, type=click.Choice(AGENTDOJO_SUITES),
              help="The AgentDojo suite.")
@click.option("--benchmark-version", default=None, metavar="V",
              help="AgentDojo benchmark version (default: v1.2.2, the newest in 0.1.35).")
@click.option("--tasks", "tasks_arg", default=None, metavar="ID,...",
              help="Only these user tasks (default: all of the suite).")
@click.option("--attack", default=None, metavar="NAME",
              help="An AgentDojo attack (important_instructions, direct, ignore_previous, "
                   "tool_knowledge, ...): the cases are user tasks x injection tasks under it.")
@click.option("--injection-tasks", "injection_tasks_arg", default=None, metavar="ID,...",
              help="With --attack: only these injection tasks (default: all of the version).")
@out_option("The suite file to write.", required=True, metavar="SUITE")
@force_option("Replace an existing --out file.")
def agentdojo_import_command(suite: str, benchmark_version: str | None, tasks_arg: str | None,
                             attack: str | None, injection_tasks_arg: str | None,
                             out: str, force: bool) -> int:
    """Import AgentDojo's user tasks as a suite v3 whose cases name its environment."""
    from .._environments._agentdojo_import import agentdojo_suite_document

    check_outputs({"--out": out}, force=force)
    doc = agentdojo_suite_document(suite, benchmark_version=benchmark_version,
                                   tasks=_parse_tasks(tasks_arg), attack=attack,
                                   injection_tasks=_parse_tasks(injection_tasks_arg,
                                                                "--injection-tasks"))
    _validate_if_known(doc)
    write_outputs({out: json_content(doc)}, force=force)
    click.echo(f"AgentDojo {suite}: {len(doc['cases'])} case(s) written to {out}", err=True)
    return EXIT_OK


def _validate_if_known(doc: dict) -> None:
    """Validate ``doc`` against the suite v3 schema once it has ``environment`` (a failure is a
    bug of the importer); before that schema change lands the check is left to the tests."""
    import aau_schemas

    case = aau_schemas.schema("suite-v3").get("$defs", {}).get("case", {})
    if "environment" in case.get("properties", {}):
        aau_schemas.validate("suite-v3", doc, source="aau import agentdojo (internal check)")
