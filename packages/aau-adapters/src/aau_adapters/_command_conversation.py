"""A command agent kept alive for a whole conversation (request 1.2).

The child is started once per unit (argv, own session, as ``_command_adapter``). Each agent turn:
aau writes one request line on stdin (``json.dumps(request) + "\\n"``) and reads stdout up to
the next newline: one JSON object per turn, either ``{"message_to_user": ...}`` (a turn) or the
final answer. Stdout past the line is kept for the next turn. After the final answer, or when
the conversation ends without one, aau closes stdin and waits for the child to exit (until the
turn's deadline), then kills its process group whatever happened (nothing outlives the unit).
``--timeout`` applies to each turn (from sending the request to the end of the answer line).
Stderr is drained all along; its last 4,096 bytes are kept for the private receipt.

How a turn ends (``send``):

- a complete line: parsed as the answer (``_protocol.parse_response``; invalid =
  ``adapter-invalid-response``);
- stdout closed before a line: a partial last line is read as the answer (an agent that prints
  its answer without a newline and exits); nothing at all: the child exited; non-zero status =
  ``adapter-exit-<rc>``, else ``ended=True`` with no answer (``_conversation`` decides:
  ``conversation-no-final-answer`` after a message to the user, ``adapter-invalid-response`` on
  the first turn);
- the deadline: ``adapter-timeout``; more than ``max_response_bytes`` in one line:
  ``adapter-invalid-response``; the process group is killed in both cases.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import time
from typing import Any

from . import _failure_codes as fc
from ._adapter import AdapterAnswer
from ._command_adapter import STDERR_TAIL_BYTES, CommandAdapter, _kill_group, _wait_exit
from ._protocol import ResponseError, encode_request, parse_response
from ._suite import Case

_READ_CHUNK = 65536


class CommandConversation:
    """One live child for one conversation unit.

    Args:
        adapter: the ``CommandAdapter`` (argv, per-turn ``timeout_s``, ``max_response_bytes``).
        case: the case conversed on (for reading answers).

    Attributes:
        ended: true once the child closed stdout without a further answer.
    """

    def __init__(self, adapter: CommandAdapter, case: Case) -> None:
        self._adapter = adapter
        self._case = case
        self._proc: subprocess.Popen[bytes] | None = None
        self._out = bytearray()
        self._err = bytearray()
        self._sel: selectors.BaseSelector | None = None
        self._stdout_open = False
        self._closed = False
        self.ended = False

    def _start(self) -> str | None:
        try:
            self._proc = subprocess.Popen(self._adapter.argv, stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                          start_new_session=True, bufsize=0)
        except OSError as exc:
            return f"cannot start {self._adapter.argv[0]}: {exc.strerror or exc}"
        self._adapter._track(self._proc)
        assert self._proc.stdout and self._proc.stderr
        self._sel = selectors.DefaultSelector()
        self._sel.register(self._proc.stdout, selectors.EVENT_READ)
        self._sel.register(self._proc.stderr, selectors.EVENT_READ)
        self._stdout_open = True
        return None

    def stderr_tail(self) -> str | None:
        """The last 4,096 bytes of the child's stderr so far, decoded (``None`` when empty)."""
        return bytes(self._err[-STDERR_TAIL_BYTES:]).decode("utf-8", errors="replace") or None

    def _answer(self, error: str | None, started: float, detail: str | None = None,
                response: dict[str, Any] | None = None) -> AdapterAnswer:
        return AdapterAnswer(response, error, time.monotonic() - started, self.stderr_tail(),
                             detail)

    def send(self, request: dict[str, Any]) -> AdapterAnswer:
        """Send one turn's request and read the agent's answer line (module docstring).

        Returns:
            the ``AdapterAnswer`` of the turn (``response`` is ``{"message_to_user"}`` for a
            turn, the normalised response for a final answer); ``response`` and ``error`` both
            ``None`` when the child ended without answering (then ``ended`` is true).
        """
        started = time.monotonic()
        if self._adapter._cancelled or self._closed:
            return self._answer(fc.ADAPTER_INTERNAL_ERROR, started, "run cancelled")
        if self._proc is None:
            why = self._start()
            if why is not None:
                return self._answer(fc.ADAPTER_NOT_FOUND, started, why)
        proc = self._proc
        assert proc is not None and proc.stdin is not None and self._sel is not None
        deadline = started + self._adapter.timeout_s
        try:
            proc.stdin.write(encode_request(request))
            proc.stdin.flush()
        except (BrokenPipeError, ConnectionResetError, ValueError):
            pass  # the child stopped reading; its stdout says the rest
        while True:
            newline = self._out.find(b"\n")
            if newline >= 0:
                line = bytes(self._out[:newline])
                del self._out[:newline + 1]
                if not line.strip():
                    continue  # a blank line is no answer
                return self._parse(line, started)
            if len(self._out) > self._adapter.max_response_bytes:
                self.close()
                return self._answer(fc.ADAPTER_INVALID_RESPONSE, started,
                                    f"stdout line exceeded {self._adapter.max_response_bytes:,} "
                                    "bytes; process group killed")
            if not self._stdout_open:
                return self._at_eof(started, deadline)
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close()
                return self._answer(fc.ADAPTER_TIMEOUT, started,
                                    f"no complete answer within {self._adapter.timeout_s:g} s "
                                    "for this turn; process group killed")
            for key, _ in self._sel.select(remaining):
                chunk = os.read(key.fd, _READ_CHUNK)
                if key.fileobj is proc.stdout:
                    if not chunk:
                        self._sel.unregister(proc.stdout)
                        self._stdout_open = False
                    self._out += chunk
                elif not chunk:
                    self._sel.unregister(proc.stderr)
                else:
                    self._err += chunk
                    if len(self._err) > 2 * STDERR_TAIL_BYTES:
                        del self._err[:-STDERR_TAIL_BYTES]

    def _parse(self, line: bytes, started: float) -> AdapterAnswer:
        try:
            response = parse_response(line, self._case)
        except ResponseError as exc:
            return self._answer(fc.ADAPTER_INVALID_RESPONSE, started, str(exc))
        return self._answer(None, started, response=response)

    def _at_eof(self, started: float, deadline: float) -> AdapterAnswer:
        proc = self._proc
        assert proc is not None
        if bytes(self._out).strip():  # a last answer without its newline
            line = bytes(self._out)
            self._out.clear()
            return self._parse(line, started)
        self.ended = True
        if not _wait_exit(proc, deadline):
            self.close()
            return self._answer(fc.ADAPTER_TIMEOUT, started, "stdout closed but the process "
                                "did not exit; process group killed")
        rc = proc.poll()
        if rc:
            return self._answer(fc.adapter_exit(rc), started,
                                f"killed by signal {-rc}" if rc < 0 else f"exited with status {rc}")
        return self._answer(None, started)

    def finish(self) -> str | None:
        """End the conversation: close stdin, wait for the exit (one turn's timeout), kill the
        group, reap. Returns the failure code of a non-zero exit after the final answer
        (``adapter-exit-<rc>``), else ``None``."""
        proc = self._proc
        if proc is None:
            return None
        try:
            if proc.stdin:
                proc.stdin.close()
        except OSError:
            pass
        exited = _wait_exit(proc, time.monotonic() + self._adapter.timeout_s)
        rc = proc.poll() if exited else None
        self.close()
        return fc.adapter_exit(rc) if rc else None

    def close(self) -> None:
        """Kill the child's process group and reap it (idempotent; later turns fail)."""
        proc = self._proc
        self._closed = True
        if proc is None:
            return
        self._proc = None
        self._adapter._untrack(proc)  # before the reap: cancel() never kills a freed pid
        _kill_group(proc)
        proc.wait()
        for stream in (proc.stdin, proc.stdout, proc.stderr):
            try:
                if stream:
                    stream.close()
            except OSError:
                pass
        if self._sel is not None:
            self._sel.close()
            self._sel = None
        self._stdout_open = False
