"""The options every command shares (``--json``, ``--force``, ``--out``) and the one JSON printer.

Every aau command, in every package, declares these three options with these decorators, so
each means the same everywhere:

- ``--json`` (parameter ``as_json``): machine output on stdout, printed with ``print_json``;
  human output stays on stderr;
- ``--force`` (parameter ``force``): replace existing outputs (what may be replaced is the
  writer's rule: ``aau_core.check_outputs``, ``check_pack_output``);
- ``--out`` (parameter ``out`` unless named otherwise): where the command writes.

``print_json(doc)`` prints the way aau writes files (``render_json``): UTF-8 as is, ``indent=2``,
sorted keys, one trailing newline. A command's help text says what its ``--json`` prints and what
its ``--force`` replaces; the option's default help is the shared wording.

A command that can end not measured (exit 3, ``NotMeasuredError``) wraps the work that can raise
it in ``json_on_not_measured(as_json, ...)``, so that its ``--json`` prints a summary with
``"measured": false`` and why, as ``aau evaluate`` does, before the one error line.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any, Literal, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def json_option(help: str = "Print a JSON summary on stdout.") -> Callable[[F], F]:
    """The ``--json`` flag (parameter ``as_json``, default off).

    Args:
        help: what this command prints (``"Print the verdict as JSON on stdout."``).

    Returns:
        a click decorator.
    """
    return click.option("--json", "as_json", is_flag=True, help=help)


def force_option(help: str = "Replace existing output files.") -> Callable[[F], F]:
    """The ``--force`` flag (parameter ``force``, default off).

    Args:
        help: what this command replaces (``"Replace an existing --out file."``).

    Returns:
        a click decorator.
    """
    return click.option("--force", is_flag=True, help=help)


def out_option(help: str, *, name: str = "out", required: bool = False,
               kind: Literal["file", "folder", "path"] | None = None, path_type: type | None = None,
               metavar: str | None = None, default: Any = None) -> Callable[[F], F]:
    """The ``--out`` option.

    Args:
        help: what is written there (``"Scenario file to write."``).
        name: the parameter name (``"out_dir"``).
        required: the command cannot run without it.
        kind: ``"file"`` (``click.Path(dir_okay=False)``), ``"folder"``
            (``click.Path(file_okay=False)``), ``"path"`` (``click.Path()``), or ``None`` for a
            plain string; existence is never checked here (the writers check it).
        path_type: ``click.Path``'s ``path_type`` (``pathlib.Path`` for a ``Path`` value).
        metavar: the placeholder shown in ``--help``.
        default: the value when not given.

    Returns:
        a click decorator.

    Raises:
        ValueError: ``path_type`` without ``kind``.
    """
    if kind is None and path_type is not None:
        raise ValueError("path_type goes with a kind")
    kwargs: dict[str, Any] = {"help": help, "required": required}
    if default is not None:  # click counts an explicit default=None as a default
        kwargs["default"] = default
    if metavar is not None:
        kwargs["metavar"] = metavar
    if kind is not None:
        kwargs["type"] = click.Path(dir_okay=kind != "file", file_okay=kind != "folder",
                                    path_type=path_type)
    return click.option("--out", name, **kwargs)


def print_json(doc: Any) -> None:
    """Print ``doc`` on stdout as aau writes JSON files (module docstring).

    Args:
        doc: a JSON value.

    Raises:
        ValueError: the value holds NaN or Infinity (never printed: it would not be JSON).
    """
    from .._files._writing import render_json

    click.echo(render_json(doc), nl=False)


@contextlib.contextmanager
def json_on_not_measured(as_json: bool, **context: Any) -> Iterator[None]:
    """Print the ``--json`` summary of a non-measurement raised inside the block, then re-raise.

    A ``NotMeasuredError`` (exit 3) escaping the block is printed, when ``as_json``, as
    ``{**exc.summary(), **context}`` on stdout (``{"measured": false, "reason", "message",
    "not_measured", "units", ...}``), and propagates unchanged: the command still ends with the
    error's one line on stderr and exit 3. Any other exception passes untouched.

    Args:
        as_json: the command's ``--json`` flag.
        context: what identifies the run in this command's summary (``report=None``,
            ``lab="river-permit-desk"``); the same keys as its success summary, with ``None``
            for what was not written.

    Returns:
        a context manager.
    """
    from .._errors import NotMeasuredError

    try:
        yield
    except NotMeasuredError as exc:
        if as_json:
            print_json({**exc.summary(), **context})
        raise
