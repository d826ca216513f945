"""The one place the adapter options (``--command`` / ``--endpoint`` / ``--mock`` /
``--timeout``) become an adapter: ``aau evaluate``, ``aau release assess`` and ``aau doctor``.

``choose_adapter`` checks everything that can be checked without starting anything (exactly
one adapter; a positive, finite timeout; the command splits; the URL is an http(s) URL) and
returns a factory: the caller builds the adapter only when it is about to run it, so an input
error found in between leaves nothing to close.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from aau_core import UsageError

if TYPE_CHECKING:  # pragma: no cover
    from ._adapter import Adapter


def choose_adapter(*, command: str | Sequence[str] | None = None, endpoint: str | None = None,
                   mock: bool = False, timeout: float = 30.0,
                   concurrency: int = 1) -> Callable[[], Adapter]:
    """Check the adapter options and return a factory for the adapter they name.

    Args:
        command: a ``--command`` string (shlex-split, no shell) or an argv list taken as is.
        endpoint: an ``--endpoint`` http(s) URL.
        mock: ``--mock`` (the protocol self-test adapter).
        timeout: seconds allowed per case (``--timeout``).
        concurrency: requests in flight at once (the endpoint adapter's connection pool).

    Returns:
        a function with no arguments that checks the program can be started (command adapter)
        and returns a new ``CommandAdapter``, ``EndpointAdapter`` or ``MockAdapter``.

    Raises:
        UsageError: not exactly one of command, endpoint and mock; a timeout that is not a
            positive number; a command that does not split; a bad URL. The factory raises
            ``UsageError`` when the program cannot be started.
    """
    chosen = [name for name, given in (("--command", command is not None),
                                       ("--endpoint", endpoint is not None),
                                       ("--mock", mock)) if given]
    if len(chosen) != 1:
        raise UsageError("choose exactly one adapter: --command CMD, --endpoint URL or --mock"
                         + (f" (got {' and '.join(chosen)})" if chosen else ""))
    if not math.isfinite(timeout) or timeout <= 0:
        raise UsageError(f"--timeout must be a positive number of seconds, not {timeout}")
    if command is not None:
        from ._command_adapter import split_command

        argv = split_command(command) if isinstance(command, str) else list(command)

        def command_adapter() -> Adapter:
            from ._command_adapter import CommandAdapter, check_program

            check_program(argv)
            return CommandAdapter(argv, timeout)

        return command_adapter
    if endpoint is not None:
        from ._endpoint_adapter import check_url  # imports httpx: only when an endpoint is used

        check_url(endpoint)
        url = endpoint

        def endpoint_adapter() -> Adapter:
            from ._endpoint_adapter import EndpointAdapter

            return EndpointAdapter(url, timeout, concurrency=concurrency)

        return endpoint_adapter

    def mock_adapter() -> Adapter:
        from ._mock_adapter import MockAdapter

        return MockAdapter()

    return mock_adapter
