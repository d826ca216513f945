"""The endpoint adapter: each case is POSTed as JSON to the agent's HTTP endpoint.

One pooled keep-alive ``httpx.Client`` serves every worker thread. Failures are told apart:

==============================================  =========================
event                                           failure code
==============================================  =========================
no full answer within ``--timeout``             ``adapter-timeout``
connection refused, reset or closed early       ``adapter-unreachable``
HTTP status outside 2xx (redirects included)    ``adapter-http-<status>``
malformed HTTP from the server                  ``adapter-protocol-error``
body over 1,000,000 bytes, not JSON, or not
the 4-field response                            ``adapter-invalid-response``
==============================================  =========================

Only ``Content-Type: application/json`` is set by us; no credentials or environment values are
sent, and the receipt records only the URL's host and port.
"""

from __future__ import annotations

import threading
import time
from typing import Any
from urllib.parse import urlsplit

import httpx
from aau_core import UsageError

from . import _failure_codes as fc
from ._adapter import AdapterAnswer
from ._protocol import MAX_RESPONSE_BYTES, ResponseError, encode_request, parse_response
from ._suite import Case


def check_url(url: str) -> str:
    """Validate an ``--endpoint`` URL.

    Returns:
        the URL's ``host[:port]`` (what receipts record).

    Raises:
        UsageError: empty, not http(s), no host, a bad port, or credentials in the URL.
    """
    if not url or not url.strip():
        raise UsageError("--endpoint is empty; give a URL such as http://127.0.0.1:8080/evaluate")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UsageError(f"--endpoint: {url!r} is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https"):
        raise UsageError(f"--endpoint: {url!r} must start with http:// or https://")
    if not parts.hostname:
        raise UsageError(f"--endpoint: {url!r} has no host")
    if parts.username or parts.password:
        raise UsageError("--endpoint: put credentials in your agent's configuration, not in the "
                         "URL (receipts must never hold them)")
    if any(c.isspace() for c in url):
        raise UsageError(f"--endpoint: {url!r} contains whitespace")
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{host}:{port}" if port is not None else host


def _classify(exc: Exception) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return fc.ADAPTER_TIMEOUT
    if isinstance(exc, (httpx.ConnectError, httpx.ReadError, httpx.WriteError, httpx.CloseError)):
        return fc.ADAPTER_UNREACHABLE
    if isinstance(exc, httpx.RemoteProtocolError):
        text = str(exc).lower()
        if "disconnected" in text or "peer closed" in text or "without sending" in text:
            return fc.ADAPTER_UNREACHABLE
        return fc.ADAPTER_PROTOCOL_ERROR
    if isinstance(exc, (httpx.ProtocolError, httpx.DecodingError, httpx.UnsupportedProtocol)):
        return fc.ADAPTER_PROTOCOL_ERROR
    if isinstance(exc, (OSError, httpx.TransportError)):
        return fc.ADAPTER_UNREACHABLE
    return fc.ADAPTER_PROTOCOL_ERROR


class EndpointAdapter:
    """POSTs each request to ``url``.

    Args:
        url: the endpoint (checked with ``check_url``).
        timeout_s: seconds allowed per case for the whole exchange (> 0).
        concurrency: connections kept in the pool (match the run's concurrency).
        max_response_bytes: body cap in bytes.
    """

    kind = "endpoint"

    def __init__(self, url: str, timeout_s: float, concurrency: int = 1,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.url_host = check_url(url)
        self.url = url
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self._client = httpx.Client(
            timeout=httpx.Timeout(timeout_s),
            limits=httpx.Limits(max_connections=concurrency,
                                max_keepalive_connections=concurrency),
            follow_redirects=False,
        )
        self._cancelled = threading.Event()

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "endpoint", "url_host": "host:port"}`` (no path, query or userinfo)."""
        return {"kind": "endpoint", "url_host": self.url_host}

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        """POST one request; every failure becomes a failure code."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        if self._cancelled.is_set():
            return AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0)
        try:
            with self._client.stream(
                "POST", self.url, content=encode_request(request),
                headers={"Content-Type": "application/json"},
            ) as resp:
                if not 200 <= resp.status_code < 300:
                    return AdapterAnswer(None, fc.adapter_http(resp.status_code),
                                         time.monotonic() - started)
                body = bytearray()
                for chunk in resp.iter_bytes():
                    body += chunk
                    if len(body) > self.max_response_bytes:
                        return AdapterAnswer(None, fc.ADAPTER_INVALID_RESPONSE,
                                             time.monotonic() - started)
                    if time.monotonic() > deadline:
                        return AdapterAnswer(None, fc.ADAPTER_TIMEOUT, time.monotonic() - started)
        except Exception as exc:  # noqa: BLE001 - every transport failure is a failure code
            return AdapterAnswer(None, _classify(exc), time.monotonic() - started)
        latency = time.monotonic() - started
        if latency > self.timeout_s:
            return AdapterAnswer(None, fc.ADAPTER_TIMEOUT, latency)
        try:
            response = parse_response(bytes(body))
        except ResponseError:
            return AdapterAnswer(None, fc.ADAPTER_INVALID_RESPONSE, latency)
        return AdapterAnswer(response, None, latency)

    def cancel(self) -> None:
        """Close the connection pool so in-flight requests fail at once."""
        self._cancelled.set()
        self._client.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()
