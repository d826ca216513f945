"""The one place the adapter options (``--command`` / ``--endpoint`` / ``--mock`` /
``--timeout`` / ``--retries`` / ``--retry-max-wait`` / ``--header``) become an adapter:
``aau evaluate``, ``aau release assess`` and ``aau doctor``.

``choose_adapter`` checks everything that can be checked without starting anything (exactly
one adapter; a positive, finite timeout; the command splits; the URL is an http(s) URL;
retries and headers only for an endpoint, in range; each header's ``${VAR}`` set) and
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
                   mock: bool = False, timeout: float = 30.0, concurrency: int = 1,
                   retries: int = 0, retry_max_wait: float | None = None,
                   headers: Sequence[str] = ()) -> Callable[[], Adapter]:
    """Check the adapter options and return a factory for the adapter they name.

    Args:
        command: a ``--command`` string (shlex-split, no shell) or an argv list taken as is.
        endpoint: an ``--endpoint`` http(s) URL.
        mock: ``--mock`` (the protocol self-test adapter).
        timeout: seconds allowed per case (``--timeout``).
        concurrency: requests in flight at once (the endpoint adapter's connection pool).
        retries: ``--retries``: further attempts per unit after HTTP 429, a 5xx or an
            unreachable endpoint (>= 0; endpoint only: a command that fails is the agent's
            failure, not the transport's, and the mock cannot fail).
        retry_max_wait: ``--retry-max-wait``: the longest wait before one retry, in seconds
            (>= 0; endpoint only); ``None`` = 60 s.
        headers: ``--header`` texts, ``"NAME: VALUE"`` (endpoint only), parsed and expanded
            from ``os.environ`` now by ``_endpoint_headers.parse_headers`` (``${NAME}`` only),
            and sent on every attempt.

    Returns:
        a function with no arguments that checks the program can be started (command adapter)
        and returns a new ``CommandAdapter``, ``EndpointAdapter`` or ``MockAdapter``.

    Raises:
        UsageError: not exactly one of command, endpoint and mock; a timeout that is not a
            positive number; a command that does not split; a bad URL; ``retries`` other than
            0 or ``retry_max_wait`` given without an endpoint, or out of range; ``headers``
            without an endpoint, or refused by ``parse_headers`` (a bad shape or name, an unset
            or empty variable, CR/LF/NUL in a value; never showing a value). The factory raises
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
    if endpoint is None and (retries != 0 or retry_max_wait is not None):
        option = "--retries" if retries != 0 else "--retry-max-wait"
        raise UsageError(f"{option} applies to --endpoint only (it retries HTTP 429, 5xx and "
                         f"unreachable endpoints); {chosen[0]} has no transport to retry")
    if endpoint is None and headers:
        raise UsageError("--header applies to --endpoint only (it is sent with each HTTP "
                         f"request); {chosen[0]} sends no HTTP request")
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
        from ._endpoint_headers import parse_headers
        from ._retry import DEFAULT_MAX_WAIT_S, check_retries

        check_url(endpoint)
        url = endpoint
        max_wait = DEFAULT_MAX_WAIT_S if retry_max_wait is None else retry_max_wait
        check_retries(retries, max_wait)
        pairs = parse_headers(headers)

        def endpoint_adapter() -> Adapter:
            from ._endpoint_adapter import EndpointAdapter

            return EndpointAdapter(url, timeout, concurrency=concurrency, retries=retries,
                                   retry_max_wait_s=max_wait, headers=pairs)

        return endpoint_adapter

    def mock_adapter() -> Adapter:
        from ._mock_adapter import MockAdapter

        return MockAdapter()

    return mock_adapter
