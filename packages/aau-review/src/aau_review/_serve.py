"""The labelling page of ``aau review serve``: one rater, one pack, on 127.0.0.1 only.

The server is the standard library's ``ThreadingHTTPServer``, as ``aau view``
(``aau_core._store._view``) uses. Every URL starts with a random token,
``http://127.0.0.1:PORT/TOKEN/``; any request whose path does not start with ``/TOKEN/`` is
refused with 403 before anything else is looked at (the token is compared in constant time).
Under the token there are exactly these routes, and nothing maps a URL to a file on disk, so no
path can reach the pack's other files, another rater's labels or anything else:

- ``GET /TOKEN/`` the page; ``GET /TOKEN/page.css`` and ``/TOKEN/page.js`` its style and script
  (package files ``_page/``, read once; no external resource, a Content-Security-Policy of
  ``'self'`` only);
- ``GET /TOKEN/api/state`` the rater, taxonomy, the rater's unit ids in order and the rater's
  own labels so far (``LabellingSession.state``);
- ``GET /TOKEN/api/units/UNIT`` one unit assigned to the rater (403 for another rater's unit,
  404 for no unit of the pack);
- ``POST /TOKEN/api/labels/UNIT`` with a JSON label (``LabellingSession.save``): 200 with the
  label saved and the progress, 400 with ``{"error": "$.path: message"}`` for a malformed
  label or a body aau's strict JSON reader refuses (``$: duplicate key "verdict"``, NaN), 403/404 as above, 415 for a body that is not ``application/json``, 413 over 64 KiB.

Any other path under the token is 404, any other method 405. Responses are never cached.
"""

from __future__ import annotations

import json
import secrets
import sys
import threading
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any
from urllib.parse import urlsplit

import click
from aau_core import AauError, InputError, OutputError, UsageError, loads_strict
from aau_core._run._checkpoint_lock import (  # internal to the monorepo: the one writer lock
    acquire_lock,
    lock_path,
    release_lock,
)
from aau_core._store._view import serve_until_interrupted  # internal to the monorepo

from ._labelling import LabellingSession, LabelRefused

HOST = "127.0.0.1"
MAX_BODY_BYTES = 65_536
"""Largest label request read, in bytes."""
CSP = ("default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
       "img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
_ASSETS = {"": ("page.html", "text/html; charset=utf-8"),
           "page.css": ("page.css", "text/css; charset=utf-8"),
           "page.js": ("page.js", "text/javascript; charset=utf-8")}


def _asset_bytes() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("aau_review") / "_page"
    return {route: ((folder / name).read_bytes(), ctype)
            for route, (name, ctype) in _ASSETS.items()}


def make_handler(session: LabellingSession, token: str) -> type[BaseHTTPRequestHandler]:
    """A request handler class serving ``session`` under ``/token/`` (module docstring)."""
    assets = _asset_bytes()
    prefix = f"/{token}/"

    class Handler(BaseHTTPRequestHandler):
        server_version = "aau-review-serve"
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms ACK wait

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            """Quiet: request lines would print the token and every save."""

        def _send(self, status: int, body: bytes, ctype: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("Content-Security-Policy", CSP)
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)

        def _json(self, status: int, doc: Any) -> None:
            self._send(status, json.dumps(doc, ensure_ascii=False).encode("utf-8"),
                       "application/json; charset=utf-8")

        def _error(self, status: int, message: str) -> None:
            self._json(status, {"error": message})

        def _route(self) -> str | None:
            """The path below the token, or None (403 sent) without the right token."""
            path = urlsplit(self.path).path
            given = path[:len(prefix)]
            if len(path) < len(prefix) or not secrets.compare_digest(given.encode(),
                                                                     prefix.encode()):
                self._error(HTTPStatus.FORBIDDEN, "refused: this server answers only the URL "
                                                  "aau review serve printed (with its token)")
                return None
            return path[len(prefix):]

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            route = self._route()
            if route is None:
                return
            try:
                if route in assets:
                    body, ctype = assets[route]
                    self._send(HTTPStatus.OK, body, ctype)
                elif route == "api/state":
                    self._json(HTTPStatus.OK, session.state())
                elif route.startswith("api/units/"):
                    self._json(HTTPStatus.OK, session.unit(route[len("api/units/"):]))
                else:
                    self._error(HTTPStatus.NOT_FOUND, "no such page")
            except LabelRefused as exc:
                self._error(exc.status, str(exc))

        do_HEAD = do_GET  # noqa: N815 - stdlib name

        def do_POST(self) -> None:  # noqa: N802 - stdlib name
            route = self._route()
            if route is None:
                return
            if not route.startswith("api/labels/"):
                self._error(HTTPStatus.NOT_FOUND, "no such page")
                return
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                self._error(HTTPStatus.LENGTH_REQUIRED, "a label request needs Content-Length")
                return
            if not 0 <= length <= MAX_BODY_BYTES:
                self._error(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                            f"a label request is at most {MAX_BODY_BYTES} bytes")
                self.close_connection = True
                return
            body = self.rfile.read(length)
            ctype = self.headers.get("Content-Type", "").split(";")[0].strip().lower()
            if ctype != "application/json":
                self._error(HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                            "a label request is JSON (Content-Type: application/json)")
                return
            try:  # aau's strict reader: duplicate keys, NaN/Infinity, bad UTF-8 refused
                request = loads_strict(body)
            except InputError as exc:
                self._error(HTTPStatus.BAD_REQUEST, str(exc))  # "$.path: message"
                return
            try:
                self._json(HTTPStatus.OK, session.save(route[len("api/labels/"):], request))
            except LabelRefused as exc:
                self._error(exc.status, str(exc))
            except AauError as exc:
                self._error(HTTPStatus.INTERNAL_SERVER_ERROR, f"not saved: {exc}")

        def _refuse(self) -> None:
            if self._route() is not None:
                self._error(HTTPStatus.METHOD_NOT_ALLOWED, "only GET and POST are answered")

        do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _refuse  # noqa: N815 - stdlib names

    return Handler


def make_labelling_server(session: LabellingSession, port: int = 0) -> tuple[ThreadingHTTPServer, str]:
    """A listening server for ``session`` on 127.0.0.1 and its URL with a new random token.

    Args:
        session: the rater's labelling session (``open_session``).
        port: TCP port; 0 picks a free one.

    Returns:
        ``(server, "http://127.0.0.1:PORT/TOKEN/")``; call ``server.serve_forever()``.

    Raises:
        UsageError: the port cannot be listened on (in use, or not allowed).
    """
    token = secrets.token_urlsafe(24)
    try:
        server = ThreadingHTTPServer((HOST, port), make_handler(session, token))
    except OSError as exc:
        raise UsageError(f"--port {port}: cannot listen on {HOST}:{port} "
                         f"({exc.strerror or exc}); choose another port, or 0 for a free one"
                         ) from None
    server.daemon_threads = True
    host, real_port = server.server_address[:2]
    return server, f"http://{host}:{real_port}/{token}/"


def serve_labelling(session: LabellingSession, port: int = 0, *,
                    ready: threading.Event | None = None) -> None:
    """Serve the labelling page until Ctrl-C (``KeyboardInterrupt``), then close and return.

    The first stderr line is ``aau review serve: RATER labels PACK at URL (Ctrl-C stops)``,
    the second names the labels file and the progress. ``ready`` is set once listening.

    One writer per labels file: the server holds the labels file's writer lock
    (``LABELS.lock`` beside it, the checkpoint's ``fcntl.flock`` lock) for its whole life, so
    a second server of the same labels file cannot overwrite the first one's saves.

    Raises:
        UsageError: another live process holds the labels file's lock; the port cannot be
            listened on.
    """
    try:
        lock_fd = acquire_lock(session.labels_path, "aau review serve", what="labels file")
    except OutputError as exc:
        raise UsageError(str(exc)) from None
    try:
        _serve_locked(session, port, ready)
    finally:
        if lock_fd >= 0:
            release_lock(lock_path(session.labels_path), lock_fd)


def _serve_locked(session: LabellingSession, port: int, ready: threading.Event | None) -> None:
    server, url = make_labelling_server(session, port)
    state = session.state()

    def announce() -> None:
        click.echo(f"aau review serve: {session.rater} labels {session.pack.path} at {url} "
                   "(Ctrl-C stops)", err=True)
        click.echo(f"labels: {session.labels_path} ({len(state['labels'])} of "
                   f"{len(state['units'])} unit(s) labelled; saved at every label)", err=True)
        sys.stderr.flush()
        if ready is not None:
            ready.set()

    serve_until_interrupted(server, "aau review serve", announce)
