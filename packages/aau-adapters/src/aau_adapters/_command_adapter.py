"""The command adapter: one child process per case, argv split with shlex, never a shell.

Per case the child gets one request line on stdin and must print one JSON object on stdout and
exit 0. The child runs in its own session (process group), so on timeout, on an oversized answer
and on Ctrl-C the whole group (grandchildren too) is killed with SIGKILL; so is anything the
child left running in its group when it exits (a case is over when its agent exits). Stdout is read
incrementally and capped at 1,000,000 bytes (a flooding child is killed, never buffered);
only the last 4,096 bytes of stderr are kept, for the private receipt.

The answer is read until stdout and stderr close or the child exits, whichever comes first: a
process the agent started and left running (a language server, an MCP server, ``sleep &``)
inherits the pipes and would hold them open past the agent's exit, turning a complete answer
into a timeout. Once the child has exited, what it wrote is drained from the pipes and the
exchange ends. The exit is seen through a pidfd where the platform has one (Linux >= 5.3),
else by checking every ``_EXIT_POLL_S`` while the pipes are quiet.
"""

from __future__ import annotations

import os
import re
import select
import selectors
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Sequence
from typing import Any

from aau_core import UsageError

from . import _failure_codes as fc
from ._adapter import AdapterAnswer
from ._protocol import MAX_RESPONSE_BYTES, ResponseError, encode_request, parse_response
from ._suite import Case

STDERR_TAIL_BYTES = 4096
_READ_CHUNK = 65536
_EXIT_POLL_S = 0.05


def split_command(command: str) -> list[str]:
    """Split a ``--command`` string into argv with POSIX shlex rules.

    Raises:
        UsageError: the string is empty, only whitespace, or has unbalanced quotes.
    """
    try:
        argv = shlex.split(command)
    except ValueError as exc:
        raise UsageError(f"--command: cannot split {command!r}: {exc}") from None
    if not argv:
        raise UsageError("--command is empty; give the program to run, e.g. "
                         "--command \"python my_agent.py\"")
    return argv


def check_program(argv: list[str]) -> None:
    """Fail before the run when ``argv[0]`` cannot be started at all.

    Raises:
        UsageError: ``argv[0]`` is neither an executable path nor found on ``PATH``.
    """
    program = argv[0]
    if os.sep in program or (os.altsep and os.altsep in program):
        if not os.path.isfile(program):
            raise UsageError(f"--command: {program}: no such file")
        if not os.access(program, os.X_OK):
            raise UsageError(f"--command: {program}: not executable (chmod +x, or run it "
                             "through its interpreter)")
    elif shutil.which(program) is None:
        raise UsageError(f"--command: {program}: command not found on PATH")


def program_file(argv: Sequence[str], cwd: str | os.PathLike[str] | None = None) -> int | None:
    """Which argv element names the command's program file in the project, if any.

    The first element that is an existing regular file (symlinks followed) whose path, made
    absolute against ``cwd`` and normalised, lies inside ``cwd``: ``python agent.py`` -> 1,
    ``./agent`` -> 0, ``/usr/bin/python -m pkg`` -> ``None``. ``argv[0]`` counts only when it
    holds a path separator: a bare program name is found on ``PATH``, not in ``cwd``.

    Args:
        argv: the command's argv (``split_command``).
        cwd: the project folder (default: the current working directory).

    Returns:
        the index into ``argv``, or ``None`` when no element names such a file.
    """
    root = os.path.abspath(cwd if cwd is not None else os.getcwd())
    for index, arg in enumerate(argv):
        if not arg or (index == 0 and os.sep not in arg
                       and not (os.altsep and os.altsep in arg)):
            continue
        full = os.path.normpath(os.path.join(root, arg))
        try:
            inside = os.path.commonpath([root, full]) == root
        except ValueError:  # another drive (Windows)
            inside = False
        if inside and os.path.isfile(full):
            return index
    return None


_DECORATION = " \t|+-^~"
_NOT_THE_REASON = re.compile(
    r"^\s+at\s"                      # a stack frame: Node, Java, C#
    r"|^\s+File \""                  # a Python frame (when the traceback is cut)
    r"|^\t"                           # a Go frame's file line
    r"|^goroutine \d+ \["             # Go: where the goroutines' dump starts
    r"|^[\w./*()-]+\(.*\)$"           # a Go frame's function line: main.main()
    r"|^Node\.js v\d"                 # Node's version, printed after every uncaught error
    r"|^exit status \d+$"             # `go run`'s epilogue
)
"""Lines a runtime prints after (or around) the error itself; never the reason shown."""


def last_stderr_line(tail: str | None) -> str:
    """The last line of ``tail`` that says why the child failed, without a runtime's decoration.

    Skipped, from the end: lines with no letter once the decoration (``|+-^~``, blanks) is
    taken off (an exception group's ``+------`` border, Python's ``^^^`` markers), stack frames
    (``    at f (file:1:2)`` of Node and Java, Go's frames and goroutine header) and epilogues
    (Node's ``Node.js v20.20.2``, ``go run``'s ``exit status 2``). An exception group's ``| ``
    frame is taken off the line kept, so ``"    | httpx.ConnectError: All connection attempts
    failed"`` gives ``"httpx.ConnectError: All connection attempts failed"``, and a Node crash
    gives ``"Error: deliberate crash"``.

    Args:
        tail: the child's stderr tail (``None`` or ``""`` when it wrote none).

    Returns:
        the line, stripped of the frame and surrounding blanks; ``""`` when no line is left.
    """
    for line in reversed((tail or "").splitlines()):
        text = line.strip(_DECORATION)
        if not any(ch.isalpha() for ch in text) or _NOT_THE_REASON.search(line):
            continue
        return line.strip().lstrip("|+ ").strip()
    return ""


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    except OSError:
        try:
            proc.kill()
        except OSError:
            pass


def _open_pidfd(proc: subprocess.Popen[bytes]) -> int | None:
    """A pidfd for the child (readable once it has exited), or None where there is none."""
    pidfd_open = getattr(os, "pidfd_open", None)  # Linux >= 5.3
    if pidfd_open is None:
        return None
    try:
        return int(pidfd_open(proc.pid))
    except OSError:  # already reaped (ESRCH) or not allowed
        return None


def _has_exited(proc: subprocess.Popen[bytes]) -> bool:
    """Whether the child has exited, without reaping it where ``os.waitid`` exists."""
    if not hasattr(os, "waitid"):
        return proc.poll() is not None
    try:
        return os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOWAIT | os.WNOHANG) is not None
    except ChildProcessError:  # already reaped
        return True


def _wait_exit(proc: subprocess.Popen[bytes], deadline: float) -> bool:
    """Wait until the child has exited, without reaping it; False at ``deadline``.

    An exited but unreaped child keeps its pid, which is also its process-group id, reserved:
    the group can then be killed without any risk of hitting an unrelated, reused pid.
    """
    pidfd = _open_pidfd(proc)  # Linux >= 5.3: wait without polling
    if pidfd is not None:
        try:
            poller = select.poll()
            poller.register(pidfd, select.POLLIN)  # readable once the child has exited
            remaining = max(deadline - time.monotonic(), 0.0)
            return bool(poller.poll(remaining * 1000))
        finally:
            os.close(pidfd)
    if not hasattr(os, "waitid"):
        try:
            proc.wait(timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            return False
        return True
    delay = 0.0005
    while not _has_exited(proc):
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        time.sleep(min(delay, remaining))
        delay = min(delay * 2, 0.02)
    return True


class CommandAdapter:
    """Runs ``argv`` once per case.

    Args:
        argv: the program and its arguments (see ``split_command``).
        timeout_s: seconds allowed per case, from spawn to exit (> 0).
        max_response_bytes: stdout cap in bytes.
    """

    kind = "command"

    def __init__(self, argv: list[str], timeout_s: float,
                 max_response_bytes: int = MAX_RESPONSE_BYTES) -> None:
        self.argv = list(argv)
        self.timeout_s = timeout_s
        self.max_response_bytes = max_response_bytes
        self._live: set[subprocess.Popen[bytes]] = set()
        self._lock = threading.Lock()
        self._cancelled = False

    def describe(self) -> dict[str, Any]:
        """Return ``{"kind": "command", "argv0": argv[0]}`` (never the other arguments)."""
        return {"kind": "command", "argv0": self.argv[0]}

    def invoke(self, request: dict[str, Any], case: Case) -> AdapterAnswer:
        """Run the command for one case; every failure becomes a failure code."""
        started = time.monotonic()
        deadline = started + self.timeout_s
        if self._cancelled:
            return AdapterAnswer(None, fc.ADAPTER_INTERNAL_ERROR, 0.0, detail="run cancelled")
        try:
            proc = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
                bufsize=0,
            )
        except OSError as exc:
            return AdapterAnswer(None, fc.ADAPTER_NOT_FOUND, time.monotonic() - started,
                                 detail=f"cannot start {self.argv[0]}: {exc.strerror or exc}")
        with self._lock:
            self._live.add(proc)
            if self._cancelled:  # cancel() ran between the check above and the spawn
                _kill_group(proc)
        try:
            stdout, stderr_tail, failure = self._exchange(proc, encode_request(request), deadline)
            if failure is None and not _wait_exit(proc, deadline):
                failure = fc.ADAPTER_TIMEOUT
        finally:
            with self._lock:
                self._live.discard(proc)
            # Whatever the outcome, nothing of this case may outlive it: kill the group while
            # the (possibly exited) leader is still unreaped, then reap it.
            _kill_group(proc)
            proc.wait()
        latency = time.monotonic() - started
        tail = stderr_tail.decode("utf-8", errors="replace")[-STDERR_TAIL_BYTES:] or None
        if failure is not None:
            if failure == fc.ADAPTER_TIMEOUT:
                detail = f"no complete answer within {self.timeout_s:g} s; process group killed"
            else:
                detail = f"stdout exceeded {self.max_response_bytes:,} bytes; process group killed"
            return AdapterAnswer(None, failure, latency, tail, detail)
        if proc.returncode != 0:
            rc = proc.returncode
            detail = (f"killed by signal {-rc}" if rc < 0 else f"exited with status {rc}")
            last = last_stderr_line(tail)
            if last:
                detail += f"; last stderr line: {last[:200]}"
            return AdapterAnswer(None, fc.adapter_exit(rc), latency, tail, detail)
        try:
            response = parse_response(stdout, case)
        except ResponseError as exc:
            return AdapterAnswer(None, fc.ADAPTER_INVALID_RESPONSE, latency, tail, str(exc))
        return AdapterAnswer(response, None, latency, tail)

    def _exchange(
        self, proc: subprocess.Popen[bytes], payload: bytes, deadline: float
    ) -> tuple[bytes, bytes, str | None]:
        """Write ``payload`` to stdin, read stdout (capped) and stderr (tail) until both close.

        Returns ``(stdout, stderr_tail, failure_code_or_None)``.
        """
        assert proc.stdin and proc.stdout and proc.stderr
        out = bytearray()
        err_tail = bytearray()
        failure: str | None = None
        with selectors.DefaultSelector() as sel:
            stdin_fd = proc.stdin.fileno()
            os.set_blocking(stdin_fd, False)
            sel.register(proc.stdin, selectors.EVENT_WRITE)
            sel.register(proc.stdout, selectors.EVENT_READ)
            sel.register(proc.stderr, selectors.EVENT_READ)
            pidfd = _open_pidfd(proc)
            if pidfd is not None:
                sel.register(pidfd, selectors.EVENT_READ)
            view = memoryview(payload)
            sent = 0
            open_readers = 2
            exited = False
            while open_readers and not exited:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    failure = fc.ADAPTER_TIMEOUT
                    break
                events = sel.select(remaining if pidfd is not None
                                    else min(remaining, _EXIT_POLL_S))
                if not events and pidfd is None:
                    exited = _has_exited(proc)
                for key, _ in events:
                    f = key.fileobj
                    if f == pidfd:
                        exited = True
                        continue
                    if f is proc.stdin:
                        try:
                            sent += os.write(stdin_fd, view[sent:sent + _READ_CHUNK])
                        except (BrokenPipeError, ConnectionResetError):
                            sent = len(payload)  # the child does not read stdin: fine
                        except BlockingIOError:
                            continue
                        if sent >= len(payload):
                            sel.unregister(proc.stdin)
                            proc.stdin.close()
                        continue
                    chunk = os.read(key.fd, _READ_CHUNK)
                    if not chunk:
                        sel.unregister(f)
                        open_readers -= 1
                        continue
                    if f is proc.stdout:
                        out += chunk
                        if len(out) > self.max_response_bytes:
                            failure = fc.ADAPTER_INVALID_RESPONSE
                            break
                    else:
                        err_tail += chunk
                        if len(err_tail) > 2 * STDERR_TAIL_BYTES:
                            del err_tail[:-STDERR_TAIL_BYTES]
                if failure is not None:
                    break
            if exited and failure is None:
                # the agent is gone; its leftovers may hold the pipes: take what it wrote
                failure = self._drain(proc, out, err_tail)
            if pidfd is not None:
                os.close(pidfd)
            if failure is not None:
                _kill_group(proc)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                try:
                    stream.close()
                except OSError:
                    pass
        return bytes(out), bytes(err_tail[-STDERR_TAIL_BYTES:]), failure

    def _drain(self, proc: subprocess.Popen[bytes], out: bytearray,
               err_tail: bytearray) -> str | None:
        """Read what is left in the exited child's stdout and stderr without blocking (a
        process it left behind may keep them open); ``ADAPTER_INVALID_RESPONSE`` when stdout
        passes the cap, else None."""
        assert proc.stdout and proc.stderr
        for stream, into in ((proc.stdout, out), (proc.stderr, err_tail)):
            if stream.closed:
                continue
            fd = stream.fileno()
            os.set_blocking(fd, False)
            while True:
                try:
                    chunk = os.read(fd, _READ_CHUNK)
                except (BlockingIOError, OSError):
                    break
                if not chunk:
                    break
                into += chunk
                if into is out and len(out) > self.max_response_bytes:
                    return fc.ADAPTER_INVALID_RESPONSE
                if into is err_tail and len(err_tail) > 2 * STDERR_TAIL_BYTES:
                    del err_tail[:-STDERR_TAIL_BYTES]
        return None

    def open_conversation(self, case: Case) -> Any:
        """A live child for one conversation unit (``_command_conversation``, request 1.2)."""
        from ._command_conversation import CommandConversation

        return CommandConversation(self, case)

    def _track(self, proc: subprocess.Popen[bytes]) -> None:
        """Register a conversation's child so ``cancel`` kills it (killed at once if the run
        was cancelled already)."""
        with self._lock:
            self._live.add(proc)
            if self._cancelled:
                _kill_group(proc)

    def _untrack(self, proc: subprocess.Popen[bytes]) -> None:
        with self._lock:
            self._live.discard(proc)

    def cancel(self) -> None:
        """Kill every running child's process group; later invocations fail immediately."""
        with self._lock:
            self._cancelled = True
            # Under the lock: a child is removed from ``_live`` before it is reaped, so every
            # group killed here still has its leader's pid reserved.
            for proc in self._live:
                _kill_group(proc)

    def close(self) -> None:
        """Kill anything still running."""
        self.cancel()
