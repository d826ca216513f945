"""The ``aau`` command: a click group whose subcommands come from installed packages.

Each aau package registers its commands in the ``aau.commands`` entry-point group
(``evaluate = "aau_adapters._cli:evaluate_command"``); installing a package adds its commands.
A command module loads only when its command is named (run, or its own ``--help``). ``aau
--help`` lists every command without importing any: the one-line help comes from the
``aau.command_help`` group, one table per package (``aau-adapters =
"aau_adapters._command_help:COMMAND_HELP"``, command name -> the first sentence of its
docstring, a module with no imports). A command with no entry there (a third-party plugin) is
imported for its help, as before. A plugin that fails to import is reported on stderr without
breaking the others. click shortens the first sentence to the terminal's width exactly as it
would the whole docstring, so the listing is the one an importing group prints.
``tests/test_startup_imports.py`` keeps ``aau --help`` to the stdlib, click and these registry
modules, and fails, printing the table to paste, when a table drifts from its docstrings.

``main()`` turns every expected error into one line on stderr and an exit code (see
``aau_core._errors``); ``--debug`` (or ``AAU_DEBUG=1``) shows tracebacks instead. What a command
prints is made safe for a terminal (``aau_core._files._terminal``).
"""

from __future__ import annotations

import contextlib
import functools
import os
import signal
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from gettext import gettext as _
from typing import Any

import click

from .._errors import EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE, AauError
from .._files._terminal import terminal_safe_streams

ENTRY_POINT_GROUP = "aau.commands"
HELP_ENTRY_POINT_GROUP = "aau.command_help"
# click >= 8.2 raises this for a bare group (click 8.1 prints the help and exits 0 itself)
_NO_ARGS_IS_HELP: Any = getattr(click.exceptions, "NoArgsIsHelpError", ())


@functools.lru_cache(maxsize=1)
def _installed_entry_points() -> dict[str, list[Any]]:
    """The two groups the ``aau`` command reads, scanned once and cached on disk while nothing
    installed changes (``aau_core._installed``: the scan and its import are the cost)."""
    from .._installed import entry_points_of

    return entry_points_of((ENTRY_POINT_GROUP, HELP_ENTRY_POINT_GROUP))


def _entry_points() -> dict[str, Any]:
    """Command name -> its ``aau.commands`` entry point (the first one of a name wins)."""
    found = {}
    for ep in _installed_entry_points()[ENTRY_POINT_GROUP]:
        found.setdefault(ep.name, ep)
    return found


def _help_entry_points() -> list[Any]:
    """The ``aau.command_help`` entry points: each names one package's help table."""
    return list(_installed_entry_points()[HELP_ENTRY_POINT_GROUP])


class PluginGroup(click.Group):
    """A click group that adds the commands registered under ``aau.commands``.

    Its help lists them with the one-line help of ``aau.command_help``, importing none of them
    (``format_commands``); a command loads in ``get_command``, when it is named.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._eps: dict[str, Any] | None = None
        self._loaded: dict[str, click.Command | None] = {}
        self._help: dict[str, str] | None = None

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

    def _command_help(self) -> dict[str, str]:
        """Command name -> one-line help, from every package's ``aau.command_help`` table."""
        if self._help is None:
            self._help = {}
            for ep in _help_entry_points():
                try:
                    table = ep.load()
                except Exception as exc:  # noqa: BLE001 - its commands are imported for help
                    click.echo(f"aau: warning: command help {ep.value} failed to load: {exc}",
                               err=True)
                    continue
                if isinstance(table, Mapping):
                    for name, text in table.items():
                        if isinstance(name, str) and isinstance(text, str):
                            self._help.setdefault(name, text)
        return self._help

    def _listed_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command to list: loaded already, or a stand-in carrying its registered help.

        The stand-in's help is the command's first sentence, which click shortens to the
        width exactly as it would the whole docstring; without registered help the command
        is loaded.
        """
        builtin = super().get_command(ctx, cmd_name)
        if builtin is not None:
            return builtin
        if cmd_name not in self._loaded and cmd_name in self._plugins():
            text = self._command_help().get(cmd_name)
            if text is not None:
                return click.Command(cmd_name, help=text)
        return self.get_command(ctx, cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """click's "Commands" section (same layout and widths), without importing commands."""
        commands = []
        for name in self.list_commands(ctx):
            command = self._listed_command(ctx, name)
            if command is not None and not command.hidden:
                commands.append((name, command))
        if commands:
            limit = formatter.width - 6 - max(len(name) for name, _command in commands)
            rows = [(name, command.get_short_help_str(limit)) for name, command in commands]
            with formatter.section(_("Commands")):
                formatter.write_dl(rows)


CONTEXT_SETTINGS = {"help_option_names": ["-h", "--help"], "max_content_width": 100}


@click.group(cls=PluginGroup, context_settings=CONTEXT_SETTINGS)
@click.version_option(package_name="aau-core", prog_name="aau", message="%(prog)s %(version)s")
@click.option("--debug", is_flag=True, help="Show tracebacks for errors (also AAU_DEBUG=1).")
def cli(debug: bool) -> None:
    """aau: reproducible, evidence-grade evaluation of tool-using AI agents.

    \b
    Examples:
      aau examples         # writes ./examples: the suite and agent below (aau-navigator)
      aau evaluate examples/suites/public-service-routing.json \\
          --command "python examples/agents/command_agent.py" --out receipt.json
      aau evaluate suite.json --endpoint http://127.0.0.1:8080/evaluate --repeats 3
      aau schema validate receipt.json

    \b
    Exit codes:
      0    ok
      1    a quality bar was not met
      2    usage or input error (nothing ran)
      3    not measured: the adapter or provider failed, so there is no result to judge
      70   internal error: a bug in aau; rerun with --debug for the traceback
      130  interrupted (Ctrl-C or SIGTERM)
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
    control the terminal. SIGTERM (CI cancellation, ``docker stop``, Kubernetes, ``timeout``)
    is handled exactly like Ctrl-C: a run exits 130 and keeps its checkpoint for ``--resume``,
    and ``aau view`` or ``aau review serve`` prints ``NAME: stopped`` and returns 0.
    """
    with terminal_safe_streams(), _sigterm_as_ctrl_c():
        return _run(argv, command, prog_name)


@contextlib.contextmanager
def _sigterm_as_ctrl_c() -> Iterator[None]:
    """While the command runs, SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does (Python's
    default SIGINT handler); the previous handler is restored on return. Off the main thread,
    or when SIGTERM is ignored (as Python leaves an ignored SIGINT), it is left alone.
    ``run_units`` installs its own handler for both signals while units run."""
    if threading.current_thread() is not threading.main_thread() \
            or signal.getsignal(signal.SIGTERM) is signal.SIG_IGN:
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


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
            _print_traceback()
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
            _print_traceback()
            return EXIT_INTERNAL
        _report(f"internal error: {type(exc).__name__}: {exc} (run with --debug for a traceback)")
        return EXIT_INTERNAL


def main() -> None:
    """Console-script entry point for ``aau``."""
    sys.exit(run())


def _print_traceback() -> None:
    """``--debug``'s traceback of the exception being handled (``traceback`` loads only here:
    it costs every run ~9 ms of start-up)."""
    import traceback

    traceback.print_exc()


__all__ = ["EXIT_USAGE", "PluginGroup", "cli", "main", "run"]

