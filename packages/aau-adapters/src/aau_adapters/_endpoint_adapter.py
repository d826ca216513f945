"""The endpoint adapter: each case is POSTed as JSON to the agent's HTTP endpoint.

One pooled keep-alive HTTP/1.1 connection pool (``httpcore``, the engine under ``httpx``) serves
every worker thread. ``--timeout`` bounds the whole exchange: connecting, waiting for a pooled
connection, sending, and every read, so a server that drips bytes still times out on time.
Failures are told apart:

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

With ``retries`` (``aau evaluate --retries N``), an exchange ending in HTTP 429, a 5xx or
``adapter-unreachable`` is made again after the wait ``_retry`` says (``Retry-After``, else
back-off; capped); each attempt gets the whole ``--timeout``, and the waits count neither
towards it nor towards the latency.

Delayed ACK. Connections are kept alive, so after the first case aau's socket is in Linux's
"interactive" mode, where the kernel delays its ACK of a received segment by up to ~40 ms in the
hope of sending it with data. A server that writes its headers and then its body in two small
writes with Nagle's algorithm on (``http.server`` with ``protocol_version = "HTTP/1.1"``, chunked
answers, uvicorn) holds the body until the headers are ACKed, so every case would wait the full
delayed-ACK timer. Where the platform has ``TCP_QUICKACK`` (Linux), ``_DeadlineStream.read``
sets it before every receive: the kernel clears the option by itself (it is not sticky), and set
just before a read it makes the kernel ACK what that read consumes at once. It costs one system
call per read and changes nothing on the wire but the ACK's timing. Elsewhere (macOS, Windows,
the BSDs: no such socket option) the pooled connection is kept as it is, with ``TCP_NODELAY`` on
our side (``httpcore`` sets it, so our own request never waits): a connection per case would pay
a handshake (a TLS one for https) on every case, and whether a fresh connection escapes those
stacks' delayed ACK is up to each of them, so the remedy there is the server's (``TCP_NODELAY``,
or headers and body in one write). docs/evaluate.md says this to users. Our own side writes a
request in one piece: ``httpcore`` writes its headers and body apart, and ``_DeadlineStream``
gathers them until the first read (or 64 KiB), one segment instead of two (~5-15 % less CPU per
exchange here).

aau sets ``Content-Type: application/json`` (plus the ``Host`` and ``Content-Length`` that HTTP
requires) and sends, after them, only the headers it is given (``headers``, ``aau evaluate
--header 'NAME: VALUE'``, checked by ``_endpoint_headers.check_headers``: no CR/LF/NUL, none of
the names aau sets or that would change the framing), on every attempt. Their values are never
written (not in details, receipts or the checkpoint; ``describe`` gives none, and only their
names are bound for ``--resume``); no other credentials or environment values are sent, no proxy
is taken from the environment, no redirect is followed (a 3xx is ``adapter-http-<status>``, so a
header never goes to another host), a body is read as sent (a compressed body is not JSON, and
is never inflated), and the receipt records only the URL's host and port.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import urlsplit

import attrs
import httpcore
from aau_core import UsageError

from . import _failure_codes as fc
from ._adapter import AdapterAnswer
from ._endpoint_headers import check_headers
from ._protocol import MAX_RESPONSE_BYTES, ResponseError, encode_request, parse_response
from ._retry import DEFAULT_MAX_WAIT_S, check_retries, is_retryable, retry_wait_s
from ._suite import Case

_WRITE_SLICE = 65536
_QUICKACK: int | None = getattr(socket, "TCP_QUICKACK", None)  # Linux only (see the docstring)


def check_url(url: str) -> str:
    """Validate an ``--endpoint`` URL.

    Returns:
        the URL's ``host[:port]`` (what receipts record).

    Raises:
        UsageError: empty, not http(s), no host, a bad port, credentials in the URL, or a URL
            that cannot be sent (control characters, a host that is not valid IDNA).
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
    try:
        _core_url(url)
    except (ValueError, TypeError) as exc:
        raise UsageError(f"--endpoint: {url!r} is not a valid URL: {exc}") from None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    return f"{host}:{port}" if port is not None else host


class _DeadlineBackend(httpcore.NetworkBackend):
    """A network backend that holds every socket operation to the calling thread's deadline.

    ``httpcore`` gives each read its own timeout; here each read, write and connect gets
    ``min(timeout, time left before the deadline)``, and none starts after the deadline. It also
    keeps the open streams so that ``cancel`` can shut their sockets down, which wakes a thread
    blocked in ``recv`` at once (closing a socket from another thread does not).
    """

    def __init__(self) -> None:
        self._inner = httpcore.SyncBackend()
        self._local = threading.local()
        self._streams: set[_DeadlineStream] = set()
        self._lock = threading.Lock()
        self._cancelled = False

    def set_deadline(self, deadline: float | None) -> None:
        self._local.deadline = deadline

    def budget(self, timeout: float | None, expired: type[Exception]) -> float | None:
        deadline = getattr(self._local, "deadline", None)
        if deadline is None:
            return timeout
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise expired("the case's time is up")
        return remaining if timeout is None else min(timeout, remaining)

    def track(self, stream: _DeadlineStream) -> _DeadlineStream:
        with self._lock:
            cancelled = self._cancelled
            if not cancelled:
                self._streams.add(stream)
        if cancelled:
            stream.shutdown()
        return stream

    def forget(self, stream: _DeadlineStream) -> None:
        with self._lock:
            self._streams.discard(stream)

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            streams = list(self._streams)
        for stream in streams:
            stream.shutdown()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        if self._cancelled:
            raise httpcore.ConnectError("cancelled")
        inner = self._inner.connect_tcp(host, port, self.budget(timeout, httpcore.ConnectTimeout),
                                        local_address, socket_options)
        return self.track(_DeadlineStream(inner, self))

    def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:  # not used: the pool is never given a unix socket
        inner = self._inner.connect_unix_socket(
            path, self.budget(timeout, httpcore.ConnectTimeout), socket_options)
        return self.track(_DeadlineStream(inner, self))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _DeadlineStream(httpcore.NetworkStream):
    """One connection's stream, with every operation clamped by ``_DeadlineBackend.budget``.

    Writes are gathered until the next read (or 64 KiB), so a request leaves in one write, and
    every read first sets ``TCP_QUICKACK`` where it exists (the module docstring says why).
    """

    def __init__(self, inner: httpcore.NetworkStream, backend: _DeadlineBackend) -> None:
        self._inner = inner
        self._backend = backend
        self._sock = inner.get_extra_info("socket")
        self._pending = bytearray()

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        if self._pending:  # the request's last bytes, sent as one write
            try:
                self._flush(timeout)
            except httpcore.WriteError:
                pass  # as httpcore does on a failed write: the server may have answered already
        # re-armed before every receive: the kernel leaves quick-ACK mode whenever we send
        if _QUICKACK is not None and self._sock is not None:
            try:
                self._sock.setsockopt(socket.IPPROTO_TCP, _QUICKACK, 1)
            except OSError:
                pass
        return self._inner.read(max_bytes, self._backend.budget(timeout, httpcore.ReadTimeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        """Buffer ``buffer``; send once 64 KiB are pending or at the next ``read`` (httpcore
        writes a request's headers and body apart: this sends a small request in one segment)."""
        self._pending += buffer
        if len(self._pending) >= _WRITE_SLICE:
            self._flush(timeout)

    def _flush(self, timeout: float | None) -> None:
        view = memoryview(self._pending)
        try:
            for start in range(0, len(view), _WRITE_SLICE):
                self._inner.write(bytes(view[start:start + _WRITE_SLICE]),
                                  self._backend.budget(timeout, httpcore.WriteTimeout))
        finally:
            view.release()
            self._pending.clear()

    def close(self) -> None:
        self._backend.forget(self)
        self._inner.close()

    def start_tls(
        self,
        ssl_context: Any,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.NetworkStream:
        self._backend.forget(self)
        inner = self._inner.start_tls(ssl_context, server_hostname,
                                      self._backend.budget(timeout, httpcore.ConnectTimeout))
        return self._backend.track(_DeadlineStream(inner, self._backend))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)

    def shutdown(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _classify(exc: Exception) -> str:
    if isinstance(exc, httpcore.TimeoutException):
        return fc.ADAPTER_TIMEOUT
    if isinstance(exc, httpcore.NetworkError):  # connect, read and write errors
        return fc.ADAPTER_UNREACHABLE
    if isinstance(exc, httpcore.RemoteProtocolError):
        text = str(exc).lower()
        if "disconnected" in text or "peer closed" in text or "without sending" in text:
            return fc.ADAPTER_UNREACHABLE
        return fc.ADAPTER_PROTOCOL_ERROR
    if isinstance(exc, (httpcore.ProtocolError, httpcore.UnsupportedProtocol)):
        return fc.ADAPTER_PROTOCOL_ERROR
    if isinstance(exc, OSError):
        return fc.ADAPTER_UNREACHABLE
    return fc.ADAPTER_PROTOCOL_ERROR


def _content_coding(resp: httpcore.Response) -> str | None:
    """The response's ``Content-Encoding`` other than ``identity`` (as sent, at most 40
    characters, printable ASCII only), or ``None``."""
    codings = [value.decode("latin-1").strip() for name, value in resp.headers
               if name.lower() == b"content-encoding"]
    sent = ", ".join(c for c in codings if c and c.lower() != "identity")
    if not sent:
        return None
    return "".join(c if " " <= c <= "~" else "?" for c in sent)[:40]


def _retry_after(resp: httpcore.Response) -> str | None:
    """The first ``Retry-After`` header of ``resp`` as text, or ``None``."""
    for name, value in resp.headers:
        if name.lower() == b"retry-after":
            return value.decode("latin-1")
    return None


_PLAIN_URL = re.compile(r"^https?://[A-Za-z0-9.\-]+(:[0-9]{1,5})?(/[A-Za-z0-9\-._~/%!$&'()*+,;=:@]*)?"
                        r"(\?[A-Za-z0-9\-._~/%!$&'()*+,;=:@?]*)?$")


def _core_url(url: str) -> httpcore.URL:
    """The URL in ``httpcore`` form: IDNA host, percent-encoded path and query, no fragment.

    Plain ASCII URLs (the usual ``http://127.0.0.1:8080/evaluate``) are split with the standard
    library; anything else (non-ASCII hosts or paths, fragments, characters needing escapes) is
    normalised by ``httpx.URL``, imported only then, since it costs ~60 ms of start-up.
    """
    if _PLAIN_URL.match(url):
        parts = urlsplit(url)
        target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
        assert parts.hostname is not None
        return httpcore.URL(scheme=parts.scheme.encode("ascii"),
                            host=parts.hostname.encode("ascii"), port=parts.port,
                            target=target.encode("ascii"))
    import httpx

    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ValueError(str(exc)) from None
    return httpcore.URL(scheme=parsed.raw_scheme, host=parsed.raw_host, port=parsed.port,
                        target=parsed.raw_path)


class EndpointAdapter:
    """POSTs each request to ``url``; with ``retries``, tries an infrastructure failure again.

    Args:
        url: the endpoint (checked with ``check_url``).
        timeout_s: seconds allowed per attempt for the whole exchange (> 0).
        concurrency: connections kept in the pool (match the run's concurrency).
        max_response_bytes: body cap in bytes.
        retries: further attempts allowed per unit (>= 0; 0 = one exchange) after an exchange
            ending in ``adapter-http-429``, ``adapter-http-5xx`` or ``adapter-unreachable``
            (``_retry.is_retryable``). Each attempt gets the full ``timeout_s``.
        retry_max_wait_s: the longest wait before one retry, in seconds (>= 0); the wait is the
            response's ``Retry-After`` or the back-off 0.5 s, 1 s, 2 s, ... (``_retry``), capped.
        sleep: waits the given seconds (for tests); default: waits on the adapter's cancel
            event, so ``cancel()`` ends a wait at once.
        clock: the monotonic clock (seconds) the waits are measured with (for tests).
        now: the current time in seconds since the Unix epoch, for an HTTP-date
            ``Retry-After`` (for tests).
        headers: ``(name, value)`` pairs of strings sent after ``Content-Type`` on every
            attempt, in order (checked with ``_endpoint_headers.check_headers``; values are
            sent as given: ``${VAR}`` is expanded by ``parse_headers``, not here). The values
            are kept out of ``describe()``, failure details and ``repr``; ``header_names``
            holds the names.

    Raises:
        aau_core.UsageError: a bad URL (``check_url``), ``retries`` / ``retry_max_wait_s``
            out of range (``_retry.check_retries``), or headers ``check_headers`` refuses.
    """

    kind = "endpoint"

    def __init__(self, url: str, timeout_s: float, concurrency: int = 1,
                 max_response_bytes: int = MAX_RESPONSE_BYTES, *, retries: int = 0,
                 retry_max_wait_s: float = DEFAULT_MAX_WAIT_S,
                 sleep: Callable[[float], object] | None = None,
                 clock: Callable[[], float] = time.monotonic,
                 now: Callable[[], float] = time.time,
                 headers: Sequence[tuple[str, str]] = ()) -> None:
        self.url_host = check_url(url)
        check_retries(retries, retry_max_wait_s)
        checked = check_headers(headers)
        self.header_names = tuple(name for name, _ in checked)
        self._headers = [(b"Content-Type", b"application/json"),
                         *((name.encode("ascii"), value.encode("ascii"))
                           for name, value in checked)]
        self.url = url
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self.retries = retries
        self.retry_max_wait_s = float(retry_max_wait_s)
        self._target = _core_url(url)
        self._backend = _DeadlineBackend()
        self._pool = httpcore.ConnectionPool(
            max_connections=concurrency,
            max_keepalive_connections=concurrency,
            keepalive_expiry=5.0,
            retries=0,
            network_backend=self._backend,
        )
        self._cancelled = threading.Event()
        self._sleep = sleep if sleep is not None else self._cancelled.wait
        self._clock = clock
        self._now = now

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "endpoint", "url_host": "host:port"}`` (no path, query or userinfo)."""
        return {"kind": "endpoint", "url_host": self.url_host}

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        """POST one request; every failure becomes a failure code.

        With ``retries``, an exchange ending in an infrastructure failure is made again after a
        wait, up to ``retries`` more times; the answer is the last attempt's (its failure code,
        and ``latency_s`` = that attempt's exchange time), with ``attempts`` and
        ``retry_wait_s`` (the seconds waited in all, charged neither to the timeout nor to the
        latency). ``cancel()`` during a wait ends it and the unit (``adapter-internal-error``,
        "run cancelled").
        """
        content = encode_request(request)
        attempt, waited = 1, 0.0
        while True:
            answer, retry_after = self._exchange(content, case)
            if attempt > self.retries or not is_retryable(answer.error):
                break
            wait = retry_wait_s(attempt, retry_after, now=self._now(),
                                max_wait_s=self.retry_max_wait_s)
            began = self._clock()
            self._sleep(wait)
            waited += self._clock() - began
            if self._cancelled.is_set():
                return AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0, detail="run cancelled",
                                     attempts=attempt, retry_wait_s=waited)
            attempt += 1
        if attempt == 1:
            return answer
        detail = answer.detail
        if answer.error is not None:
            detail = f"{detail} (after {attempt} attempts, {waited:.1f} s waited)"
        return attrs.evolve(answer, attempts=attempt, retry_wait_s=waited, detail=detail)

    def _exchange(self, content: bytes, case: Case) -> tuple[AdapterAnswer, str | None]:
        """One POST: the answer and the response's ``Retry-After`` value (``None`` if absent or
        the exchange got no non-2xx status)."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        if self._cancelled.is_set():
            return AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0, detail="run cancelled"), None
        limit = {"connect": self.timeout_s, "read": self.timeout_s, "write": self.timeout_s,
                 "pool": self.timeout_s}
        self._backend.set_deadline(deadline)
        try:
            with self._pool.stream(
                "POST", self._target, content=content,
                headers=self._headers,
                extensions={"timeout": limit},
            ) as resp:
                if not 200 <= resp.status < 300:
                    return AdapterAnswer(None, fc.adapter_http(resp.status),
                                         time.monotonic() - started,
                                         detail=f"HTTP status {resp.status}"), _retry_after(resp)
                coding = _content_coding(resp)
                body = bytearray()
                for chunk in resp.iter_stream():
                    body += chunk
                    if len(body) > self.max_response_bytes:
                        return AdapterAnswer(
                            None, fc.ADAPTER_INVALID_RESPONSE, time.monotonic() - started,
                            detail=f"body exceeds {self.max_response_bytes:,} bytes"), None
                    if time.monotonic() > deadline:
                        return AdapterAnswer(None, fc.ADAPTER_TIMEOUT, time.monotonic() - started,
                                             detail=self._late()), None
        except Exception as exc:  # noqa: BLE001 - every transport failure is a failure code
            code = _classify(exc)
            text = " ".join(str(exc).split())[:200] or type(exc).__name__
            detail = self._late() if code == fc.ADAPTER_TIMEOUT else f"{type(exc).__name__}: {text}"
            return AdapterAnswer(None, code, time.monotonic() - started, detail=detail), None
        finally:
            self._backend.set_deadline(None)
        latency = time.monotonic() - started
        if latency > self.timeout_s:
            return AdapterAnswer(None, fc.ADAPTER_TIMEOUT, latency, detail=self._late()), None
        try:
            response = parse_response(bytes(body), case)
        except ResponseError as exc:
            detail = str(exc)
            if coding is not None:
                detail = (f"the body is sent with Content-Encoding: {coding}, and aau never "
                          f"inflates an answer (send it uncompressed): {detail}")
            return AdapterAnswer(None, fc.ADAPTER_INVALID_RESPONSE, latency, detail=detail), None
        return AdapterAnswer(response, None, latency), None

    def _late(self) -> str:
        return f"no complete answer within {self.timeout_s:g} s"

    def cancel(self) -> None:
        """Shut every open connection down so in-flight requests fail at once; later
        invocations fail immediately."""
        self._cancelled.set()
        self._backend.cancel()

    def close(self) -> None:
        """Close the connection pool."""
        self._backend.cancel()
        self._pool.close()
