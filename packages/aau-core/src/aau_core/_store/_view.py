"""The run store in a web browser (``aau view``): on 127.0.0.1 only, read-only.

Pages (all HTML rendered by the Jinja2 templates, values escaped, no script):

- ``/`` — the runs, newest first, each linking to its page; ``?suite=S`` filters; two runs can
  be picked for a comparison (a plain GET form).
- ``/runs/ID`` — the run's HTML report (the page ``aau runs show ID --html`` writes), with a
  link back to the list.
- ``/compare?a=ID&b=ID`` — ``aau runs compare``'s table and flipped scenarios, linking both runs;
  two runs with no scenario in common get a 422 page saying so.

The server is the standard library's ``ThreadingHTTPServer``; each request opens the store
read-only (``mode=ro``), so runs recorded while it serves appear on reload and the server can
never change the store. Only GET and HEAD are answered; anything else is 405.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import click

from .._errors import AauError, NotMeasuredError

HOST = "127.0.0.1"


def _render(name: str, **context: Any) -> str:
    from .._reports._html import _environment

    return _environment().get_template(name).render(**context)


def list_page(store_path: Path, suite: str | None = None) -> str:
    """The run list page (``/``)."""
    from ._run_store import RunStore

    with RunStore(store_path, read_only=True) as run_store:
        runs = run_store.list(suite=suite)
    return _render("runs.html.j2", title="aau runs", links=[], store=str(store_path),
                   suite=suite or "", runs=[r.as_dict() for r in runs])


def run_page(store_path: Path, run_id: str) -> str:
    """One run's report page (``/runs/ID``)."""
    from ._run_store import RunStore
    from ._run_views import run_html

    with RunStore(store_path, read_only=True) as run_store:
        summary, doc = run_store.get(run_id)
    return run_html(summary, doc, links=(("/", "all runs"),))


def compare_page(store_path: Path, run_a: str, run_b: str) -> str:
    """The comparison page (``/compare?a=ID&b=ID``)."""
    from ._compare import compare_stored
    from ._run_store import RunStore

    with RunStore(store_path, read_only=True) as run_store:
        a, b, result = compare_stored(run_store, run_a, run_b)
    return _render("compare.html.j2", title=f"aau runs compare {a.id} {b.id}",
                   links=[("/", "all runs")], a=a.as_dict(), b=b.as_dict(),
                   result=result.as_dict())


def _error_page(status: HTTPStatus, message: str) -> str:
    return _render("error.html.j2", title=f"{status.value} {status.phrase}",
                   links=[("/", "all runs")], message=message)


def make_handler(store_path: Path) -> type[BaseHTTPRequestHandler]:
    """A request handler class serving ``store_path`` (see the module docstring)."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "aau-view"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
            sys.stderr.write(f"aau view: {self.address_string()} {format % args}\n")

        def _send(self, status: HTTPStatus, body: str, *, head: bool = False) -> None:
            data = body.encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Content-Security-Policy",
                             "default-src 'none'; style-src 'unsafe-inline'; img-src data:")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if not head:
                self.wfile.write(data)

        def _page(self) -> tuple[HTTPStatus, str]:
            url = urlsplit(self.path)
            query = {k: v[-1] for k, v in parse_qs(url.query).items()}
            try:
                if url.path == "/":
                    return HTTPStatus.OK, list_page(store_path, query.get("suite") or None)
                if url.path.startswith("/runs/"):
                    return HTTPStatus.OK, run_page(store_path, url.path[len("/runs/"):])
                if url.path == "/compare":
                    if not query.get("a") or not query.get("b"):
                        return HTTPStatus.BAD_REQUEST, _error_page(
                            HTTPStatus.BAD_REQUEST, "compare needs two runs: ?a=ID&b=ID")
                    return HTTPStatus.OK, compare_page(store_path, query["a"], query["b"])
            except NotMeasuredError as exc:  # two runs with no scenario in common
                return HTTPStatus.UNPROCESSABLE_ENTITY, _error_page(
                    HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
            except AauError as exc:
                return HTTPStatus.NOT_FOUND, _error_page(HTTPStatus.NOT_FOUND, str(exc))
            return HTTPStatus.NOT_FOUND, _error_page(HTTPStatus.NOT_FOUND,
                                                     f"no page {url.path}")

        def do_GET(self) -> None:  # noqa: N802 - stdlib name
            status, body = self._page()
            self._send(status, body)

        def do_HEAD(self) -> None:  # noqa: N802 - stdlib name
            status, body = self._page()
            self._send(status, body, head=True)

        def _refuse(self) -> None:
            self._send(HTTPStatus.METHOD_NOT_ALLOWED,
                       _error_page(HTTPStatus.METHOD_NOT_ALLOWED, "aau view is read-only"))

        do_POST = do_PUT = do_DELETE = do_PATCH = _refuse  # noqa: N815 - stdlib names

    return Handler


def serve(store_path: Path, port: int, *, ready: threading.Event | None = None) -> None:
    """Serve until Ctrl-C (``KeyboardInterrupt``), then close the socket and return.

    Args:
        store_path: the run store (must exist; opened read-only per request).
        port: TCP port on 127.0.0.1; 0 picks a free one.
        ready: set once the server listens (tests).

    The first stderr line is ``aau view: serving STORE at http://127.0.0.1:PORT/``.
    """
    server = ThreadingHTTPServer((HOST, port), make_handler(store_path))
    server.daemon_threads = True
    host, real_port = server.server_address[:2]

    def announce() -> None:
        click.echo(f"aau view: serving {store_path} at http://{host}:{real_port}/ "
                   "(Ctrl-C stops)", err=True)
        if ready is not None:
            ready.set()

    serve_until_interrupted(server, "aau view", announce)


def serve_until_interrupted(server: ThreadingHTTPServer, name: str,
                            announce: Callable[[], None] = lambda: None) -> None:
    """Call ``announce()`` (print the URL), then serve ``server`` until Ctrl-C
    (``KeyboardInterrupt``): then print ``NAME: stopped`` on stderr, close the socket and
    return. A Ctrl-C that comes as soon as the URL is printed is caught as well. Used by
    ``aau view`` and ``aau review serve``."""
    try:
        announce()
        server.serve_forever(poll_interval=0.2)
    except KeyboardInterrupt:
        click.echo(f"{name}: stopped", err=True)
    finally:
        server.server_close()
