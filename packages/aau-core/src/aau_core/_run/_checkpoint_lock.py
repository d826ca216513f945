"""The checkpoint's writer lock: an OS advisory lock on ``PATH.lock`` beside the checkpoint.

``acquire_lock`` takes it (``fcntl.flock``, exclusive, non-blocking) and writes the holder's
pid and producer into the file; ``release_lock`` deletes the file and drops the lock;
``lock_holder`` says who holds it. The OS drops the lock when the process dies, so a killed run
never leaves a stale lock. Where ``fcntl`` is missing (Windows) there is no lock. Used by
``_checkpoint`` and by ``aau review serve`` (one server per labels file).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from .._errors import OutputError


def lock_path(path: str | os.PathLike[str]) -> Path:
    """The lock file of checkpoint ``path``: ``PATH.lock`` beside it."""
    target = Path(path)
    return target.with_name(target.name + ".lock")


def release_lock(lock: Path, fd: int) -> None:
    """Delete lock file ``lock`` (while still holding it), then close ``fd``, dropping the lock."""
    try:
        lock.unlink()  # still held: a waiting writer re-checks the file it locked is this path
    except OSError:
        pass
    os.close(fd)


def lock_holder(fd: int) -> str:
    """``"aau evaluate (pid 123)"``: who wrote the open lock file ``fd`` (``?`` when unknown)."""
    try:
        text = os.pread(fd, 200, 0).decode("utf-8", "replace").strip()
    except OSError:
        text = ""
    pid, _, producer = text.partition(" ")
    return f"{producer or 'another process'} (pid {pid if pid.isdigit() else '?'})"


def acquire_lock(target: Path, producer: str, what: str = "checkpoint") -> int:
    """Take the writer's lock of checkpoint ``target``; -1 where locks are unsupported.

    ``what`` names the file in the refusal (``aau review serve`` locks a labels file the same
    way: ``"labels file"``).

    Raises:
        OutputError: another live process holds it.
    """
    try:
        import fcntl
    except ImportError:
        return -1
    lock = lock_path(target)
    for _ in range(50):
        try:
            fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o666)
        except OSError as exc:
            raise OutputError(f"{lock}: cannot write: {exc.strerror or exc}") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            holder = lock_holder(fd)
            os.close(fd)
            raise OutputError(f"{target}: another {holder} is writing this {what}; wait "
                              "for it to finish or write elsewhere") from None
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(lock))
        except OSError:
            same = False
        if not same:  # the holder deleted it as we opened it: lock the new file instead
            os.close(fd)
            time.sleep(0.01)
            continue
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()} {producer}\n".encode(), 0)
        return fd
    raise OutputError(f"{target}: cannot take the {what}'s lock (its lock file keeps "
                      "changing)")
