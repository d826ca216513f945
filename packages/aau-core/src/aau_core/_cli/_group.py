"""The ``aau`` command: a click group whose subcommands come from installed packages.

Each aau package registers its commands in the ``aau.commands`` entry-point group
(``evaluate = "aau_adapters._cli:evaluate_command"``); installing a package adds its commands.
Plugins load lazily, only when their command is named (or when ``--help`` lists them), and a
plugin that fails to import is reported on stderr without breaking the others.

``main()`` turns every expected error into one line on stderr and an exit code (see
``aau_core._errors``); ``--debug`` (or ``AAU_DEBUG=1``) shows tracebacks instead. What a command
prints is made safe for a terminal (``aau_core._files._terminal``).
"""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Sequence
from typing import Any

import click

from .._errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, AauError
from .._files._terminal import terminal_safe_streams

ENTRY_POINT_GROUP = "aau.commands"
# click >= 8.2 raises this for a bare group (click 8.1 prints the help and exits 0 itself)
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


def _entry_points() -> dict[str, Any]:
    from importlib.metadata import entry_points

    found = {}
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        found.setdefault(ep.name, ep)
    return found


class PluginGroup(click.Group):
    """A click group that adds the commands registered under ``aau.commands``."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._eps: dict[str, Any] | None = None
        self._loaded: dict[str, click.Command | None] = {}

    def _plugins(self) -> dict[str, Any]:
        if self._eps is None:
            self._eps = _entry_points()
        return self._eps

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(super().list_commands(ctx)) | set(self._plugins()))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        builtin = super().get_command(ctx, cmd_name)
        if builtin is not None:
            return builtin
        if cmd_name not in self._loaded:
            ep = self._plugins().get(cmd_name)
            command = None
            if ep is not None:
                try:
                    command = ep.load()
                except Exception as exc:  # noqa: BLE001 - a broken plugin must not break `aau`
                    click.echo(
                        f"aau: warning: command {cmd_name!r} from {ep.value} failed to load: {exc}",
                        err=True,
                    )
            self._loaded[cmd_name] = command
        return self._loaded[cmd_name]


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=PluginGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="aau-core", prog_name="aau", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors (also AAU_DEBUG=1).")
def cli(debug: bool) -> None:
    """aau: reproducible, evidence-grade evaluation of tool-using AI agents.

    \b
    Examples:
      aau evaluate examples/suites/public-service-routing.json \\
          --command "python examples/agents/command_agent.py" --out receipt.json
      aau evaluate suite.json --endpoint http://127.0.0.1:8080/evaluate --repeats 3
      aau schema validate receipt.json

    \b
    Exit codes:
      0    ok
      1    a quality bar was not met
      2    usage or input error (nothing ran)
      3    not measured: the agent, adapter or provider failed, so no result was written
      70   internal error: a bug in aau; rerun with --debug for the traceback
      130  interrupted (Ctrl-C)
    """


def _wants_debug(argv: Sequence[str]) -> bool:
    return "--debug" in argv or os.environ.get("AAU_DEBUG", "") not in ("", "0")


def _report(message: str) -> None:
    for line in str(message).splitlines() or [""]:
        click.echo(f"aau: error: {line}", err=True)


def _failing_context(exc: BaseException) -> click.Context | None:
    """The context of the command whose arguments failed to parse, when click left it out.

    Some parser errors (``Option '--kind' requires an argument``) carry no context; the
    innermost frame of the traceback that holds a ``ctx`` still names the failing command.
    """
    found = None
    tb = exc.__traceback__
    while tb is not None:
        ctx = tb.tb_frame.f_locals.get("ctx")
        if isinstance(ctx, click.Context):
            found = ctx
        tb = tb.tb_next
    return found


def _report_click_error(exc: click.ClickException, prog_name: str) -> None:
    """One line for a click error; a usage error names the help of the command that failed."""
    message = " ".join(exc.format_message().split())
    if isinstance(exc, click.UsageError):
        message = message[:-1] if message.endswith(".") else message
        ctx = exc.ctx or _failing_context(exc)
        path = ctx.command_path if ctx is not None else prog_name
        help_names = ctx.help_option_names if ctx is not None else []
        help_flag = "--help" if "--help" in help_names or not help_names else help_names[0]
        message = f"{message} (see '{path} {help_flag}')"
    click.echo(f"aau: error: {message}", err=True)


def _stdout_closed() -> int:
    """Point file descriptor 1 at /dev/null (so no later flush fails) and return exit code 0."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno() if sys.__stdout__ is not None else 1)
    except (OSError, ValueError):
        pass
    return 0


def run(argv: Sequence[str] | None = None, *, command: click.Command | None = None,
        prog_name: str = "aau") -> int:
    """Run the ``aau`` command (or one ``command``) and return its exit code; never raises.

    Args:
        argv: arguments without the program name; ``None`` means ``sys.argv[1:]``.
        command: run this click command instead of the whole group (compatibility aliases).
        prog_name: name shown in usage lines.

    Returns:
        0 success, 1 bar not met, 2 usage or input error, 130 interrupted, 70 internal error.

    Everything the command writes to stdout and stderr passes through
    ``aau_core.terminal_text`` (``terminal_safe_streams``): text from a document cannot
    control the terminal.
    """
    with terminal_safe_streams():
        return _run(argv, command, prog_name)


def _run(argv: Sequence[str] | None, command: click.Command | None, prog_name: str) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    debug = _wants_debug(args)
    # `--debug` is accepted anywhere on the line, not only before the subcommand
    args = [a for a in args if a != "--debug"]
    target = command if command is not None else cli
    stdout = sys.stdout
    try:
        rv = target.main(args=args, prog_name=prog_name, standalone_mode=False)
        sys.stdout.flush()  # a reader gone early shows here, not as a warning at exit
        return rv if isinstance(rv, int) else 0
    except click.exceptions.Exit as exc:
        return int(exc.exit_code)
    except click.exceptions.Abort:
        click.echo("aau: interrupted", err=True)
        return EXIT_INTERRUPTED
    except _NO_ARGS_IS_HELP as exc:
        exc.show()  # a bare group (`aau`, `aau schema`) prints its help, as click does
        return int(exc.exit_code)
    except click.ClickException as exc:
        _report_click_error(exc, prog_name)
        return int(exc.exit_code)
    except AauError as exc:
        if debug:
            traceback.print_exc()
        _report(str(exc))
        return exc.exit_code
    except KeyboardInterrupt:
        click.echo("aau: interrupted", err=True)
        return EXIT_INTERRUPTED
    except BrokenPipeError:
        # stdout closed early (`aau ... | head`): not an error; silence the final flush
        return _stdout_closed()
    except SystemExit:
        # click answers EPIPE itself: it swaps sys.stdout for a wrapper that ignores the
        # final flush, then exits 1; a closed pipe is not an error, so exit 0 as above
        if sys.stdout is not stdout:
            return _stdout_closed()
        raise
    except Exception as exc:  # noqa: BLE001 - last resort: one line, not a traceback
        if debug:
            traceback.print_exc()
            return EXIT_INTERNAL
        _report(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
        return EXIT_INTERNAL


def main() -> None:
    """Console-script entry point for ``aau``."""
    sys.exit(run())


__all__ = ["EXIT_USAGE", "PluginGroup", "cli", "main", "run"]
