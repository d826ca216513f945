"""What every adapter returns, and the interface adapters implement."""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from ._suite import Case


@attrs.frozen
class AdapterAnswer:
    """The outcome of one exchange with the agent.

    Attributes:
        response: the normalised four-field response, or ``None`` when the exchange failed.
        error: the adapter failure code (``adapter-timeout``, ...), or ``None`` on success.
        latency_s: wall time of the exchange in seconds (monotonic clock; 0.0 for the mock).
        stderr_tail: last bytes of the command's stderr (decoded, at most 4,096 characters),
            or ``None``; kept only in the private receipt.
        detail: why the exchange failed, one line (``"exited with status 2"``,
            ``"stdout is not one JSON object: ..."``), or ``None``; kept only in the private
            receipt and shown on the terminal, since it may quote what the agent printed.
        attempts: exchanges made for this unit (>= 1): more than 1 only when an opt-in retry
            (``--retries``) repeated a rate-limited or failed exchange.
        retry_wait_s: seconds spent waiting between attempts (``Retry-After`` or back-off);
            charged neither to the unit's timeout nor to ``latency_s``.
    """

    response: dict[str, Any] | None
    error: str | None
    latency_s: float
    stderr_tail: str | None = None
    detail: str | None = None
    attempts: int = 1
    retry_wait_s: float = 0.0


class Adapter(Protocol):
    """An agent connection. Implementations must be safe to call from several threads.

    Attributes:
        kind: ``"command"``, ``"endpoint"``, ``"mock"`` or ``"python"``.
    """

    kind: str

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        """Send one request and return the answer; never raises for agent misbehaviour."""
        ...

    def describe(self) -> dict[str, Any]:
        """Provenance of the adapter: ``{"kind", "argv0"}`` or ``{"kind", "url_host"}``."""
        ...

    def cancel(self) -> None:
        """Make every in-flight ``invoke`` return promptly (Ctrl-C, SIGTERM)."""
        ...

    def close(self) -> None:
        """Release resources (connections, processes)."""
        ...
