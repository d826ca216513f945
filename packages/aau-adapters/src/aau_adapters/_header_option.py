"""The ``--header`` option, declared once for every command that can take ``--endpoint``
(``aau evaluate``, ``aau release assess``): the texts it collects go to ``choose_adapter``'s
``headers``, which ``_endpoint_headers.parse_headers`` checks and expands."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import click

F = TypeVar("F", bound=Callable[..., Any])


def header_option() -> Callable[[F], F]:
    """The repeatable ``--header 'NAME: VALUE'`` option (parameter ``headers``, a tuple of
    str, default empty).

    Returns:
        a click decorator.
    """
    return click.option(
        "--header", "headers", multiple=True, metavar="'NAME: VALUE'",
        help="Endpoint only: send this header with every request (retries too). Repeatable. "
             "${VAR} in VALUE is read from aau's environment (single-quote it), so a secret "
             "stays out of argv: 'Authorization: Bearer ${AGENT_TOKEN}'. Values are never "
             "recorded; Host, Content-Type, Content-Length, Transfer-Encoding, Connection and "
             "other framing headers are refused.")
