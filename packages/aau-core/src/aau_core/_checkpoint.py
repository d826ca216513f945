"""Run checkpoints: an append-only JSONL file of finished units, so an interrupted run resumes.

Format (schema kind ``checkpoint``, ``schemas/checkpoint/v1/``): the first line is a header
``{"checkpoint_version": "aau-checkpoint/1.0", "record": "header", "producer", "created_at",
"units", "binding", "binding_sha256"}``; every later line is ``{"record": "unit", "index",
"result"}`` for one finished unit, in finishing order. ``binding`` holds what must be equal for a
resume (``suite_digest``, ``adapter`` identity, ``config``); ``binding_sha256`` is the SHA-256
of its canonical JSON (sorted keys, ``","``/``":"`` separators, UTF-8).

Durability: each unit line is written with one ``write`` on a file opened ``O_APPEND`` and then
``fsync``'d before the next unit is recorded, so after a crash, SIGKILL or power loss at most the
line being written is lost. Such a torn last line (no final newline, or not parseable JSON) is
discarded on resume and the file truncated to the last whole line; any other bad line is an
input error. A unit that had finished but whose line was torn is simply run again.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ._errors import InputError, InvalidDocumentError, OutputError
from ._io import check_writable

CHECKPOINT_VERSION = "aau-checkpoint/1.0"
CHECKPOINT_KIND = "checkpoint"


def canonical_json(value: Any) -> str:
    """``value`` as canonical JSON: sorted keys, no spaces, non-ASCII kept (hashed as UTF-8).

    Raises:
        TypeError: ``value`` is not JSON-serialisable; ValueError: it holds NaN or infinity.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def binding_sha256(binding: Mapping[str, Any]) -> str:
    """SHA-256 (64 lowercase hex) of ``canonical_json(binding)`` encoded as UTF-8."""
    return hashlib.sha256(canonical_json(dict(binding)).encode("utf-8")).hexdigest()


def _validate(doc: Any, source: str) -> None:
    import aau_schemas

    if not aau_schemas.is_valid(CHECKPOINT_KIND, doc):
        violations = [(v.path, v.message) for v in aau_schemas.iter_violations(CHECKPOINT_KIND,
                                                                                doc)]
        raise InvalidDocumentError(violations or [("$", "not a valid checkpoint line")],
                                   source=source)


def read_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[int, Any], int]:
    """Read and check a checkpoint file.

    Args:
        path: the checkpoint.

    Returns:
        ``(header, finished, good_bytes)``: the header line, ``{unit index: result}`` of the
        unit lines, and the byte length of the whole lines read (a torn last line excluded).

    Raises:
        InputError: the file cannot be read, is empty, or its first line is not a header;
            a unit line repeats an index or names one outside the run
            (``PATH:LINE: $.index: ...``).
        InvalidDocumentError: a line (other than a torn last one) is not JSON or breaks the
            schema (``PATH:LINE: $.path: message``).
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the checkpoint: {exc.strerror or exc}",
                         source=source) from None
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline; else a torn last line
    good = len(data) - len(tail)
    header: dict[str, Any] | None = None
    finished: dict[int, Any] = {}
    for number, raw in enumerate(lines, start=1):
        where = f"{source}:{number}"
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if number == len(lines) and header is not None:  # a torn write, newline included
                good -= len(raw) + 1
                break
            raise InvalidDocumentError([("$", "not a JSON line")], source=where) from None
        _validate(doc, where)
        if number == 1:
            if doc.get("record") != "header":
                raise InputError("the first line is not a checkpoint header", source=where,
                                 path="$.record")
            header = doc
            continue
        if doc.get("record") != "unit":
            raise InputError("a second header", source=where, path="$.record")
        index = doc["index"]
        if index >= header["units"]:  # type: ignore[index]
            raise InputError(f"unit {index} is outside the run's {header['units']} unit(s)",  # type: ignore[index]
                             source=where, path="$.index")
        if index in finished:
            raise InputError(f"unit {index} is recorded twice", source=where, path="$.index")
        finished[int(index)] = doc["result"]
    if header is None:
        raise InputError("empty checkpoint (no header line)", source=source)
    return header, finished, good


class Checkpoint:
    """An open checkpoint: the finished units read on resume, and ``append`` for new ones.

    Attributes:
        path: the checkpoint file.
        header: its header line (a dict).
        finished: ``{unit index: result}`` already recorded (empty for a new checkpoint).

    Use ``open_checkpoint`` to make one; ``append`` is safe from several threads.
    """

    def __init__(self, path: Path, header: dict[str, Any], finished: dict[int, Any],
                 fd: int) -> None:
        self.path = path
        self.header = header
        self.finished = finished
        self._fd = fd
        self._lock = threading.Lock()

    @property
    def created_at(self) -> str:
        """When the run first started (the header's ``created_at``)."""
        return str(self.header["created_at"])

    def append(self, index: int, result: Any) -> None:
        """Record unit ``index`` with ``result`` (JSON-serialisable): one line, then fsync.

        Raises:
            TypeError, ValueError: ``result`` is not plain JSON.
            OSError: the write failed (disk full, ...).
        """
        line = (canonical_json({"record": "unit", "index": index, "result": result})
                + "\n").encode("utf-8")
        with self._lock:
            os.write(self._fd, line)
            os.fsync(self._fd)
            self.finished[index] = result

    def close(self) -> None:
        """Close the file (the checkpoint stays on disk)."""
        with self._lock:
            if self._fd >= 0:
                os.close(self._fd)
                self._fd = -1

    def remove(self) -> None:
        """Close and delete the checkpoint (after the run's final output is written)."""
        self.close()
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path.parent if str(path.parent) else ".", os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _mismatch(old: Mapping[str, Any], new: Mapping[str, Any]) -> str:
    parts = []
    if old.get("suite_digest") != new.get("suite_digest"):
        parts.append("suite")
    if old.get("adapter") != new.get("adapter"):
        parts.append("adapter")
    if old.get("config") != new.get("config"):
        old_c, new_c = old.get("config") or {}, new.get("config") or {}
        keys = sorted(k for k in set(old_c) | set(new_c) if old_c.get(k) != new_c.get(k))
        parts.append("configuration (" + ", ".join(keys) + ")")
    return " and ".join(parts) or "binding"


def open_checkpoint(path: str | os.PathLike[str], *, producer: str, units: int,
                    binding: Mapping[str, Any], created_at: str, resume: bool,
                    force: bool = False) -> Checkpoint:
    """Start a new checkpoint, or reopen one to resume.

    Args:
        path: the checkpoint file.
        producer: ``"aau evaluate"`` or ``"run_eval"``.
        units: units in the whole run (>= 1).
        binding: ``{"suite_digest": "sha256:...", "adapter": {...}, "config": {...}}``.
        created_at: RFC 3339 UTC start time, written to a new header.
        resume: reopen an existing checkpoint and keep its finished units.
        force: without ``resume``, replace an existing checkpoint.

    Returns:
        the open ``Checkpoint`` (``finished`` holds the units recorded so far).

    Raises:
        InputError: ``resume`` and the file is missing or unreadable; or it was written for
            another suite, adapter or configuration (one line naming which), or by another
            producer, or for another unit count.
        InvalidDocumentError: a line breaks the schema (see ``read_checkpoint``).
        OutputError: without ``resume``, the file exists and ``force`` is false, or it is a
            folder, link or device.
    """
    target = Path(path)
    binding = dict(binding)
    digest = binding_sha256(binding)
    if resume and target.is_file() and not target.is_symlink() and b"\n" not in target.read_bytes():
        resume, force = False, True  # killed while writing the header: nothing finished yet
    if resume:
        if not target.is_file() or target.is_symlink():
            raise InputError("no checkpoint to resume here (run without --resume to start)",
                             source=str(target))
        header, finished, good = read_checkpoint(target)
        if header["binding_sha256"] != digest or header["binding"] != binding:
            raise InputError(f"checkpoint is from a different {_mismatch(header['binding'], binding)}"
                             "; start over with --force instead of --resume", source=str(target))
        if header["producer"] != producer or header["units"] != units:
            raise InputError(f"checkpoint was written by {header['producer']} for "
                             f"{header['units']} unit(s), not {producer} for {units}",
                             source=str(target))
        fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        if os.fstat(fd).st_size != good:  # drop a torn last line
            os.ftruncate(fd, good)
            os.fsync(fd)
        return Checkpoint(target, header, finished, fd)
    check_writable(target, force=force)
    header = {"checkpoint_version": CHECKPOINT_VERSION, "record": "header", "producer": producer,
              "created_at": created_at, "units": units, "binding": binding,
              "binding_sha256": digest}
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # allowed by check_writable's rules
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
        os.write(fd, (canonical_json(header) + "\n").encode("utf-8"))
        os.fsync(fd)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from None
    _fsync_dir(target)
    return Checkpoint(target, header, {}, fd)
