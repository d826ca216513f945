"""``aau import``: turn public benchmark data into suite v3 documents (docs/import.md).

- ``aau import bfcl --category CAT [--limit N] [--source PATH] --out SUITE``
- ``aau import tau2 --source PATH --domain airline|retail|mock [--limit N] --out SUITE``
  (``--environment [--db FILE]``: mock cases naming the ``tau2-mock`` environment)
- importers other packages register in the ``aau.importers`` entry-point group (name -> a click
  command; aau-labs registers ``agentdojo``): listed in ``aau import --help`` without being
  imported, loaded when named (``ImporterGroup``).

Every suite written is validated by the suite loader (``suite_from_document``) before it is
written, so ``aau evaluate SUITE --mock`` scores it 1.0; ``--out`` follows the shared output
rules (``check_outputs`` before any work, an atomic write, ``--force`` to replace).
"""

from __future__ import annotations

from typing import Any

import click
from aau_core import (
    EXIT_OK,
    check_outputs,
    force_option,
    json_content,
    out_option,
    render_json,
    write_outputs,
)

_CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
IMPORTERS_ENTRY_POINT_GROUP = "aau.importers"
"""The entry-point group of importers from other packages: name -> a click command."""


def _importer_entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    found: dict[str, Any] = {}
    for ep in entry_points(group=IMPORTERS_ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


class ImporterGroup(click.Group):
    """``aau import``: its own commands plus those of ``aau.importers``, each imported only when
    named; the help lists them by name and package without importing them."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._eps: dict[str, Any] | None = None
        self._plugged: dict[str, click.Command | None] = {}

    def _plugins(self) -> dict[str, Any]:
        if self._eps is None:
            self._eps = {n: ep for n, ep in _importer_entry_points().items()
                         if n not in self.commands}
        return self._eps

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        builtin = super().get_command(ctx, cmd_name)
        if builtin is not None or cmd_name not in self._plugins():
            return builtin
        if cmd_name not in self._plugged:
            ep = self._plugins()[cmd_name]
            try:
                command = ep.load()
            except Exception as exc:  # noqa: BLE001 - a broken importer must not break the rest
                click.echo(f"aau: warning: importer {cmd_name!r} from {ep.value} failed to "
                           f"load: {exc}", err=True)
                command = None
            self._plugged[cmd_name] = command if isinstance(command, click.Command) else None
        return self._plugged[cmd_name]

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = super().get_command(ctx, name) or self._plugged.get(name)
            if command is not None:
                rows.append((name, command.get_short_help_str(formatter.width - 20)))
            elif name in self._plugins():
                ep = self._plugins()[name]
                dist = getattr(getattr(ep, "dist", None), "name", None) or ep.value
                rows.append((name, f"(from {dist}; aau import {name} --help)"))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


@click.group("import", cls=ImporterGroup, context_settings=_CONTEXT)
def import_group() -> None:
    """Import public benchmark data (BFCL, tau2-bench, AgentDojo) as aau suites (suite v3).

    \b
    Examples:
      aau import bfcl --category simple_python --limit 30 --out bfcl-simple.json
      aau import tau2 --source tau2-bench/data/tau2/domains --domain mock --out tau2-mock.json
      aau import tau2 --source ../shared/datasets/tau2 --domain mock --environment --out m.json
      aau import agentdojo --suite banking --out agentdojo-banking.json   # aau-labs
    """


def _write_suite(doc: dict[str, Any], out: str, force: bool, what: str) -> None:
    """Validate ``doc`` as a suite (a failure is a bug in the importer: it says so), write it
    atomically, and print a one-line summary on stderr."""
    from ._suite import DEFAULT_MAX_SUITE_BYTES, suite_from_document

    suite_from_document(doc, source=f"{what} (internal check)")
    text = render_json(doc)
    write_outputs({out: json_content(doc)}, force=force)
    source = doc["source"]
    skipped = source.get("skipped", [])
    line = f"{what}: {len(doc['cases'])} case(s) written to {out}"
    if skipped:
        line += f"; {len(skipped)} skipped (listed in the suite's source.skipped)"
    click.echo(line, err=True)
    if len(text.encode("utf-8")) > DEFAULT_MAX_SUITE_BYTES:
        click.echo(f"note: {out} is {len(text.encode('utf-8')):,} bytes; aau evaluate reads "
                   f"{DEFAULT_MAX_SUITE_BYTES:,} by default: pass --max-suite-bytes, or import "
                   "fewer cases with --limit", err=True)


@import_group.command("bfcl", context_settings=_CONTEXT, epilog="""\b
Examples:
  aau import bfcl --category simple_python --limit 30 --out bfcl-simple.json
  aau import bfcl --category parallel --source ./bfcl_eval-2026.3.23-py3-none-any.whl --out p.json
  aau import bfcl --category irrelevance --source ../shared/datasets/bfcl --out irr.json

\b
Without --source the pinned wheel (bfcl-eval 2026.3.23) is downloaded once with
`pip download --no-deps` into ~/.cache/aau/bfcl (or $AAU_CACHE_DIR/bfcl) and read as a zip;
bfcl-eval is never installed. Exit codes: 0 written; 2 usage or input error (nothing written).
""")
@click.option("--category", required=True,
              type=click.Choice(["simple_python", "multiple", "parallel", "parallel_multiple",
                                 "live_simple", "live_multiple", "irrelevance"]),
              help="The BFCL v4 category to import.")
@click.option("--limit", type=click.IntRange(min=1), metavar="N",
              help="Import the first N records only (in file order).")
@click.option("--source", metavar="PATH",
              help="A folder of BFCL json files, or a bfcl-eval wheel (.whl).")
@click.option("--source-version", metavar="VERSION",
              help="bfcl-eval version to record for a --source folder (a wheel's name says it).")
@click.option("--cache-dir", metavar="DIR",
              help="Where the downloaded wheel is kept (default ~/.cache/aau, or $AAU_CACHE_DIR).")
@out_option("The suite file to write.", required=True, metavar="SUITE")
@force_option("Replace an existing --out file.")
@click.option("--quiet", "-q", is_flag=True,
              help="No download notice on stderr (the summary line stays).")
def bfcl_command(category: str, limit: int | None, source: str | None,
                 source_version: str | None, cache_dir: str | None, out: str,
                 force: bool, quiet: bool) -> int:
    """Import a BFCL v4 category as a suite v3 with expected tool calls.

    Each BFCL record becomes one case: the BFCL id as scenario_id, the question and the
    function definitions (types mapped to JSON Schema) as input, BFCL's ground truth (per
    argument a list of acceptable values) as expected.tool_calls; irrelevance expects no call.
    """
    from pathlib import Path

    from ._bfcl_source import BFCL_VERSION, BFCL_WHEEL, default_cache_dir
    from ._import_bfcl import import_bfcl

    cached = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    # Every file the import may read is an input --out must not name: a wheel given as
    # --source, each JSON file of the folders a --source folder is searched in (a link there
    # is left out: check_outputs refuses a link as --out anyway), and the cached wheel.
    inputs: list[Path] = [cached / "bfcl" / BFCL_WHEEL]
    if source and Path(source).is_dir():
        root = Path(source)
        for where in (root, root / "data", root / "bfcl_eval" / "data"):
            for folder in (where, where / "possible_answer"):
                if folder.is_dir():
                    inputs += [f for f in folder.iterdir()
                               if f.suffix.lower() in (".json", ".jsonl") and f.is_file()
                               and not f.is_symlink()]
    elif source:
        inputs.append(Path(source))
    check_outputs({"--out": out}, inputs=inputs, force=force)
    if source is None and not quiet and not (cached / "bfcl" / BFCL_WHEEL).is_file():
        click.echo(f"downloading bfcl-eval=={BFCL_VERSION} with pip download --no-deps into "
                   f"{cached / 'bfcl'} (once; later imports read the cached wheel) ...", err=True)
    doc = import_bfcl(category, source=source, limit=limit, source_version=source_version,
                      cache_dir=cache_dir)
    _write_suite(doc, out, force, f"BFCL {category}")
    return EXIT_OK


@import_group.command("tau2", context_settings=_CONTEXT, epilog="""\b
Examples:
  aau import tau2 --source ../shared/datasets/tau2 --domain mock --out tau2-mock.json
  aau import tau2 --source ~/src/tau2-bench --domain airline --limit 10 --out air.json

\b
--source is a folder holding tau2_<domain>_tasks.json and tau2_<domain>_policy.md, a
tau2-bench checkout (data/tau2/domains/<domain>/tasks.json and policy.md), or the tasks file
itself (its policy and database beside it, named the same way). Only the expected
actions are scored (mode superset, as tau2's action check); the user simulator, database
state, communicate_info and NL assertions are not (docs/import.md). With --environment
(mock only) the tau2-mock environment judges the final database (docs/import.md).
Exit codes: 0 written; 2 usage or input error (nothing written).
""")
@click.option("--source", required=True, metavar="PATH",
              help="A folder of tau2 task files, a tau2-bench checkout, or the tasks file.")
@click.option("--domain", required=True, type=click.Choice(["airline", "retail", "mock"]),
              help="The tau2 domain to import.")
@click.option("--limit", type=click.IntRange(min=1), metavar="N",
              help="Import the first N tasks only (in file order).")
@click.option("--tools", metavar="FILE",
              help="A JSON array of the domain's tool definitions (OpenAI shape); default: "
                   "inferred from the expected actions.")
@click.option("--environment", is_flag=True,
              help="Cases naming the domain's environment (mock: tau2-mock, from aau-labs): "
                   "aau serves its tools and it judges the final database.")
@click.option("--conversation", is_flag=True,
              help="With --environment: each case a conversation with a model user following "
                   "the task's user scenario (suite v3 user; run with aau evaluate "
                   "--user-backend).")
@click.option("--db", metavar="FILE",
              help="With --environment: the domain database (default: db.json or "
                   "tau2_<domain>_db.json beside the tasks file).")
@out_option("The suite file to write.", required=True, metavar="SUITE")
@force_option("Replace an existing --out file.")
def tau2_command(source: str, domain: str, limit: int | None, tools: str | None,
                 environment: bool, conversation: bool, db: str | None, out: str,
                 force: bool) -> int:
    """Import a tau2-bench domain's tasks as a suite v3 with expected tool calls.

    Each task becomes one case: the policy and the task's ticket (or the user instructions) as
    messages, the tools, and the expected actions as expected.tool_calls. With --environment
    each case names the domain's environment instead (expected {}; its verdict decides) and
    tasks it refuses are skipped with the reason in source.skipped.
    """
    from ._import_tau2 import import_tau2, tau2_files
    from ._import_tau2_environment import tau2_db_path

    if conversation and not environment:
        from aau_core import UsageError

        raise UsageError("--conversation needs --environment")

    inputs = [*tau2_files(source, domain).values(), *([tools] if tools else [])]
    if environment:
        inputs.append(tau2_db_path(source, domain, db))
    check_outputs({"--out": out}, inputs=inputs, force=force)
    doc = import_tau2(source, domain, limit=limit, tools=tools, environment=environment, db=db,
                      conversation=conversation)
    _write_suite(doc, out, force, f"tau2 {domain}")
    return EXIT_OK
