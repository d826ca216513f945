"""Run checkpoints: an append-only JSONL file of finished units, so an interrupted run resumes.

Format (schema kind ``checkpoint``, ``schemas/checkpoint/v1.1/``): the first line is a header
``{"checkpoint_version": "aau-checkpoint/1.1", "record": "header", "producer", "created_at",
"units", "binding", "binding_sha256"}``; every later line is ``{"record": "unit", "index",
"result"}`` for one finished unit, in finishing order. ``binding`` holds what must be equal for a
resume (``suite_digest``, ``adapter`` identity, ``config``); ``binding_sha256`` is the SHA-256
of its canonical JSON (sorted keys, ``","``/``":"`` separators, UTF-8). 1.0 headers (written
before the minor) are read as they are; they bind no program file (``program_sha256``), so a
resume whose adapter binds one is refused as predating program binding.

Durability: each unit line is handed to the OS with one ``write`` on a file opened ``O_APPEND``
before ``append`` returns, so a crash or SIGKILL loses at most the line being written. The
``fsync`` that makes lines survive a power loss is grouped (``_grouped_fsync``): at most every
0.5 s, sooner when 1,000 lines wait, and always at ``close``/``remove``/``discard`` (the end of
a run, Ctrl-C). A power loss (or kernel crash) can lose the units recorded in the last 0.5 s, at
most 999 of them; a resume runs them again. A torn last line (no final newline, or, when the file
ends with a newline, a last line that is not parseable JSON) is discarded on resume and the file
truncated to the last whole line, and reported (``Checkpoint.resume``): the unit it held runs
again. Two
lines for the same unit that are equal as ``checkpoint_json`` collapse to one, reported; two that
differ stop the resume (an input error naming the file and both lines). Any other bad line is an
input error.

One writer at a time: ``open_checkpoint`` takes an OS advisory lock (``fcntl.flock``, exclusive,
non-blocking) on ``PATH.lock`` beside the checkpoint, writes its pid and producer there, and
holds it until ``close``, ``remove`` or the end of a ``with`` block (the OS drops it when the
process dies, so a killed run never leaves a stale lock). A second writer gets ``another aau
evaluate (pid N) is writing this checkpoint``. Where ``fcntl`` is missing (Windows) there is no
lock.

Lines are attrs models (``CheckpointHeader``, ``CheckpointBinding``, ``CheckpointUnit``) converted
by aau-core's document converter: each line read is checked against the schema, then
structured; each line written is unstructured from its model. ``Checkpoint.header`` and
``finished`` stay plain JSON (``header`` a dict, unit results as recorded) for callers that
read them.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, ClassVar, TextIO

import attrs
from aau_schemas import sha256_hex

from .._errors import InputError, InvalidDocumentError, OutputError
from .._files._writing import check_writable
from ._checkpoint_lock import acquire_lock, lock_holder, lock_path, release_lock
from ._grouped_fsync import GroupedFsync

CHECKPOINT_VERSION = "aau-checkpoint/1.1"
CHECKPOINT_KIND = "checkpoint"


@attrs.frozen
class CheckpointBinding:
    """What must be equal for a resume.

    Attributes:
        suite_digest: ``"sha256:<64 hex>"`` of the suite (or of ``run_eval``'s scenarios).
        adapter: the adapter identity (``aau evaluate``) or ``{"run_one": name}`` (``run_eval``).
        config: every setting that changes results.
    """

    suite_digest: str
    adapter: dict[str, Any]
    config: dict[str, Any]


@attrs.frozen(kw_only=True)
class CheckpointHeader:
    """The first line of a checkpoint.

    Attributes:
        checkpoint_version: ``"aau-checkpoint/1.1"`` (written), or ``"aau-checkpoint/1.0"``
            (read: a header from before program binding).
        record: ``"header"``.
        producer: ``"aau evaluate"`` or ``"run_eval"``.
        created_at: when the run first started (RFC 3339 UTC).
        units: units in the whole run (>= 1).
        binding: the ``CheckpointBinding``.
        binding_sha256: 64 hex of the binding's canonical JSON (``binding_sha256``).
    """

    checkpoint_version: str = CHECKPOINT_VERSION
    record: str = "header"
    producer: str
    created_at: str
    units: int
    binding: CheckpointBinding
    binding_sha256: str


@attrs.frozen
class CheckpointUnit:
    """One finished unit's line.

    Attributes:
        index: the unit's position in the run's unit order, from 0.
        result: its result as JSON (an ``aau evaluate`` unit, or a ``run_eval``
            ``ScenarioResult`` as ``result_to_json`` writes it).
        record: ``"unit"``.
    """

    index: int
    result: Any
    record: str = "unit"

    __aau_document_keys__: ClassVar[tuple[str, ...]] = ("record", "index", "result")


def checkpoint_json(value: Any) -> str:
    """``value`` in the checkpoint's own JSON form: every checkpoint line and the binding hash.

    ``json.dumps`` with sorted keys, ``","``/``":"`` separators, non-ASCII kept (hashed as UTF-8)
    and no NaN or infinity. This is NOT RFC 8785 (``aau_schemas.canonical_json`` is, and returns
    bytes): numbers are written as Python writes them. Kept as it is so that existing
    checkpoints keep their ``binding_sha256`` and resume.

    Args:
        value: a JSON-serialisable value.

    Returns:
        one line of JSON text (no newline).

    Raises:
        TypeError: ``value`` is not JSON-serialisable; ValueError: it holds NaN or infinity.
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                      allow_nan=False)


def binding_sha256(binding: Mapping[str, Any]) -> str:
    """SHA-256 (64 lowercase hex) of ``checkpoint_json(binding)`` encoded as UTF-8."""
    return sha256_hex(checkpoint_json(dict(binding)).encode("utf-8"))


def _validate(doc: Any, source: str) -> None:
    import aau_schemas

    if not aau_schemas.is_valid(CHECKPOINT_KIND, doc):
        violations = [(v.path, v.message) for v in aau_schemas.iter_violations(CHECKPOINT_KIND,
                                                                                doc)]
        raise InvalidDocumentError(violations or [("$", "not a valid checkpoint line")],
                                   source=source)


@attrs.frozen(kw_only=True)
class ResumeReport:
    """What a resume found in its checkpoint, beyond the finished units.

    Attributes:
        units_reused: finished units read back (they are not run again).
        torn_line: the 1-based line number of a torn last line that was dropped (its unit
            runs again), or ``None``.
        duplicates_collapsed: unit lines that repeated an earlier line of the same unit
            exactly (equal as ``checkpoint_json``) and were dropped.
        notes: one line per event above, naming the file and the line numbers (without a
            prefix; ``Checkpoint.print_notes`` writes them as ``aau: warning: ...``).
    """

    units_reused: int
    torn_line: int | None = None
    duplicates_collapsed: int = 0
    notes: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        """``{"units_reused", "torn_line", "duplicates_collapsed"}`` (``aau evaluate --json``'s
        ``resume`` object)."""
        return {"units_reused": self.units_reused, "torn_line": self.torn_line,
                "duplicates_collapsed": self.duplicates_collapsed}


@attrs.frozen
class _Scan:
    header: dict[str, Any]
    finished: dict[int, Any]
    good: int  # byte length of the whole lines kept (a torn last line excluded)
    report: ResumeReport
    lines: dict[int, int]  # unit index -> the line that recorded it


def _unit_name(index: int, result: Any) -> str:
    """``unit 5 (case-3, repeat 1)``: the index and, from either producer's result shape (an
    ``aau evaluate`` row, a ``run_eval`` ScenarioResult), the scenario and repeat."""
    row = result.get("row", result) if isinstance(result, dict) else {}
    sid, repeat = row.get("scenario_id"), row.get("repeat")
    return f"unit {index} ({sid}, repeat {repeat})" if sid is not None else f"unit {index}"


def _start_over_hint(header: Mapping[str, Any]) -> str:
    if header.get("producer") == "aau evaluate":
        return "start over with --force"
    return "delete the checkpoint to start over"


def _scan(path: str | os.PathLike[str]) -> _Scan:
    """Read and check every line of a checkpoint (``read_checkpoint``'s rules), keeping what a
    resume reports: a torn last line and collapsed duplicates."""
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the checkpoint: {exc.strerror or exc}",
                         source=source) from None
    lines = data.split(b"\n")
    tail = lines.pop()  # b"" when the file ends with a newline; else a torn last line
    good = len(data) - len(tail)
    torn: tuple[int, str] | None = (len(lines) + 1, "no final newline") if tail else None
    from .._files._converter import document_converter

    header: dict[str, Any] | None = None
    units = 0
    finished: dict[int, Any] = {}
    first_line: dict[int, int] = {}
    notes: list[str] = []
    collapsed = 0
    for number, raw in enumerate(lines, start=1):
        where = f"{source}:{number}"
        try:
            doc = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if number == len(lines) and header is not None and torn is None:
                good -= len(raw) + 1  # a torn write, newline included
                torn = (number, "not JSON")
                break
            raise InvalidDocumentError([("$", "not a JSON line")], source=where) from None
        _validate(doc, where)
        if number == 1:
            if doc.get("record") != "header":
                raise InputError("the first line is not a checkpoint header", source=where,
                                 path="$.record")
            header = doc
            units = document_converter().structure(doc, CheckpointHeader).units
            continue
        if doc.get("record") != "unit":
            raise InputError("a second header", source=where, path="$.record")
        unit = document_converter().structure(doc, CheckpointUnit)
        index = int(unit.index)
        if index >= units:
            raise InputError(f"unit {index} is outside the run's {units} unit(s)",
                             source=where, path="$.index")
        if index in finished:
            name = _unit_name(index, unit.result)
            if checkpoint_json(finished[index]) != checkpoint_json(unit.result):
                raise InputError(f"{name} is recorded twice with different results (first at "
                                 f"line {first_line[index]}); {_start_over_hint(header or {})}",
                                 source=where, path="$.index")
            notes.append(f"{where}: {name} is recorded twice, identically (first at line "
                         f"{first_line[index]}); kept one")
            collapsed += 1
            continue
        finished[index] = unit.result
        first_line[index] = number
    if header is None:
        raise InputError("empty checkpoint (no header line)", source=source)
    if torn is not None:
        notes.append(f"{source}: line {torn[0]} was torn ({torn[1]}); dropped it, that unit "
                     "runs again")
    report = ResumeReport(units_reused=len(finished), torn_line=torn[0] if torn else None,
                          duplicates_collapsed=collapsed, notes=tuple(notes))
    return _Scan(header, finished, good, report, first_line)


def read_checkpoint(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[int, Any], int]:
    """Read and check a checkpoint file.

    A torn last line (no final newline; or, in a file that ends with a newline, a last line that
    is not JSON) is left out, and so is a unit line equal (as ``checkpoint_json``) to an earlier
    line of the same unit; ``open_checkpoint(..., resume=True)`` reports both
    (``Checkpoint.resume``).

    Args:
        path: the checkpoint.

    Returns:
        ``(header, finished, good_bytes)``: the header line, ``{unit index: result}`` of the
        unit lines, and the byte length of the whole lines read (a torn last line excluded).

    Raises:
        InputError: the file cannot be read, is empty, or its first line is not a header;
            a unit line names an index outside the run, or repeats an index with another
            result (``PATH:LINE: $.index: unit 5 (case-3, repeat 1) is recorded twice with
            different results (first at line 4); start over with --force``).
        InvalidDocumentError: a line (other than a torn last one) is not JSON or breaks the
            schema (``PATH:LINE: $.path: message``).
    """
    scan = _scan(path)
    return scan.header, scan.finished, scan.good


class Checkpoint:
    """An open checkpoint: the finished units read on resume, and ``append`` for new ones.

    Attributes:
        path: the checkpoint file.
        header: its header line (a dict).
        finished: ``{unit index: result}`` recorded when it was opened (empty for a new
            checkpoint); units appended since are on disk only, not kept in memory (a
            100,000-unit run would hold every result twice).
        resume: what the resume found (``ResumeReport``: units reused, a torn last line,
            duplicates collapsed, and a note for each), or ``None`` for a new checkpoint.

    Use ``open_checkpoint`` to make one; ``append`` is safe from several threads.
    """

    def __init__(self, path: Path, header: dict[str, Any], finished: dict[int, Any],
                 fd: int, lock_fd: int = -1, resume: ResumeReport | None = None,
                 lines: dict[int, int] | None = None,
                 syncing: Callable[[int], GroupedFsync] = GroupedFsync) -> None:
        self.path = path
        self.header = header
        self.finished = finished
        self.resume = resume
        self._lines = dict(lines or {})
        self._fd = fd
        self._syncing = syncing  # fd -> its GroupedFsync (tests pass a fake clock and fsync)
        self._sync = syncing(fd)
        self._lock_fd = lock_fd
        self._lock = threading.Lock()
        self._appended = False  # lines appended since it was opened (not in ``finished``)

    @property
    def created_at(self) -> str:
        """When the run first started (the header's ``created_at``)."""
        return str(self.header["created_at"])

    def source_of(self, index: int) -> str:
        """``"PATH:LINE"`` of the line that recorded finished unit ``index`` (``"PATH"`` when
        the line is not known), to name it in an error."""
        line = self._lines.get(index)
        return f"{self.path}:{line}" if line is not None else str(self.path)

    def print_notes(self, file: TextIO | None = None) -> None:
        """Write each of ``resume.notes`` as one ``aau: warning: NOTE`` line (default: stderr);
        nothing for a new checkpoint or a clean resume."""
        for note in self.resume.notes if self.resume is not None else ():
            print(f"aau: warning: {note}", file=file or sys.stderr)

    def append(self, index: int, result: Any) -> None:
        """Record unit ``index`` with ``result`` (JSON-serialisable): one line written to the
        OS before this returns (it survives SIGKILL); its ``fsync`` is grouped (module docstring).

        Raises:
            TypeError, ValueError: ``result`` is not plain JSON.
            OSError: the write or an ``fsync`` failed (disk full, ...).
        """
        from .._files._converter import unstructure_document

        line = (checkpoint_json(unstructure_document(CheckpointUnit(index, result)))
                + "\n").encode("utf-8")
        with self._lock:
            os.write(self._fd, line)
            self._appended = True
            self._sync.wrote()

    def discard(self, indexes: Iterable[int]) -> None:
        """Forget finished units so that they run again (``aau evaluate --resume`` re-runs the
        units that were not measured): the file is rewritten without their lines, atomically
        (``atomic_write_text``: a reader sees the old file or the new one), and appending goes
        on in the new file; ``resume.units_reused`` counts what is left. Indexes not recorded
        are ignored. After appends, the units kept are read back from the file.

        Raises:
            OutputError: the file cannot be rewritten (the old one is then left as it was).
        """
        from .._files._converter import unstructure_document
        from .._files._writing import atomic_write_text

        with self._lock:
            recorded = _scan(self.path).finished if self._appended else self.finished
            drop = set(indexes) & set(recorded)
            if not drop:
                return
            kept = {i: r for i, r in recorded.items() if i not in drop}
            lines = [checkpoint_json(self.header)] + [
                checkpoint_json(unstructure_document(CheckpointUnit(i, r)))
                for i, r in kept.items()]
            atomic_write_text(self.path, "\n".join(lines) + "\n", force=True)  # fsync'd
            self._sync.close(sync=False)  # its lines are in the rewritten file, synced
            os.close(self._fd)
            self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND)
            self._sync = self._syncing(self._fd)
            self.finished, self._appended = kept, False
            self._lines = {i: number for number, i in enumerate(kept, start=2)}
            if self.resume is not None:  # what a resume reuses is what is left
                self.resume = attrs.evolve(self.resume, units_reused=len(kept))

    def _close_file(self, *, sync: bool = True) -> None:
        with self._lock:
            if self._fd >= 0:
                try:
                    self._sync.close(sync=sync)  # the final fsync
                finally:
                    os.close(self._fd)
                    self._fd = -1

    def _release(self) -> None:
        with self._lock:
            if self._lock_fd >= 0:
                release_lock(lock_path(self.path), self._lock_fd)
                self._lock_fd = -1

    def close(self) -> None:
        """Sync and close the file (the checkpoint stays on disk) and give up the writer's lock
        (its ``.lock`` file is deleted).

        Raises:
            OSError: the final ``fsync`` failed (the file is closed and the lock released).
        """
        try:
            self._close_file()
        finally:
            self._release()

    def remove(self) -> None:
        """Close and delete the checkpoint (after the run's final output is written), then
        give up the writer's lock. No final ``fsync``: the file is going."""
        try:
            self._close_file(sync=False)
            self.path.unlink()
        except FileNotFoundError:
            pass
        finally:
            self._release()

    def __enter__(self) -> Checkpoint:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def checkpoint_writer(path: str | os.PathLike[str]) -> str | None:
    """Who is writing checkpoint ``path`` now: ``"aau evaluate (pid 123)"``, or ``None`` when
    no live process holds its lock (or locks are unsupported here)."""
    try:
        import fcntl
    except ImportError:
        return None
    lock = lock_path(path)
    try:
        fd = os.open(lock, os.O_RDONLY)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:
            return lock_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _fsync_dir(path: Path) -> None:
    from .._files._staged_folder import fsync_folder

    fsync_folder(path.parent if str(path.parent) else ".")


def open_checkpoint(path: str | os.PathLike[str], *, producer: str, units: int,
                    binding: Mapping[str, Any], created_at: str, resume: bool,
                    force: bool = False, program_name: str | None = None) -> Checkpoint:
    """Start a new checkpoint, or reopen one to resume.

    Args:
        path: the checkpoint file.
        producer: ``"aau evaluate"`` or ``"run_eval"``.
        units: units in the whole run (>= 1).
        binding: ``{"suite_digest": "sha256:...", "adapter": {...}, "config": {...}}``.
        created_at: RFC 3339 UTC start time, written to a new header.
        resume: reopen an existing checkpoint and keep its finished units.
        force: without ``resume``, replace an existing checkpoint.
        program_name: the program file the binding's ``adapter.program_sha256`` hashes, as the
            user wrote it (``agent.py``); only named in a refusal, never written.

    Returns:
        the open ``Checkpoint`` (``finished`` holds the units recorded so far; with ``resume``,
        ``resume`` says what was found: a torn last line dropped, duplicates collapsed).

    Raises:
        InputError: ``resume`` and the file is missing or unreadable; or it was written for
            another suite, adapter or configuration (one line naming which: ``checkpoint is
            from a different configuration (the agent's program file agent.py changed)``), by
            a 1.0 writer while the adapter now binds a program file (``checkpoint predates
            program binding ...``), by another producer, or for another unit count; or a
            unit is recorded twice with different results.
        InvalidDocumentError: a line breaks the schema (see ``read_checkpoint``).
        OutputError: another process is writing this checkpoint (``another aau evaluate (pid
            N) is writing this checkpoint``); without ``resume``, the file exists and ``force``
            is false, or it is a folder, link or device.
    """
    target = Path(path)
    binding = dict(binding)
    digest = binding_sha256(binding)
    if not resume and not target.parent.is_dir():
        check_writable(target, force=force)  # its rules say whether the folder may be made
        target.parent.mkdir(parents=True, exist_ok=True)
    lock_fd = acquire_lock(target, producer)
    try:
        return _open_locked(target, producer, units, binding, digest, created_at, resume,
                            force, lock_fd, program_name)
    except BaseException:
        if lock_fd >= 0:
            release_lock(lock_path(target), lock_fd)
        raise


def _open_locked(target: Path, producer: str, units: int, binding: dict[str, Any], digest: str,
                 created_at: str, resume: bool, force: bool, lock_fd: int,
                 program_name: str | None) -> Checkpoint:
    restarted = None
    if resume and target.is_file() and not target.is_symlink() and b"\n" not in target.read_bytes():
        resume, force = False, True  # killed while writing the header: nothing finished yet
        restarted = ResumeReport(units_reused=0, torn_line=1, notes=(
            f"{target}: line 1 (the header) was torn (no final newline); nothing had finished, "
            "so the run starts over",))
    if resume:
        if not target.is_file() or target.is_symlink():
            raise InputError("no checkpoint to resume here (run without --resume to start)",
                             source=str(target))
        scan = _scan(target)
        header, finished, good = scan.header, scan.finished, scan.good
        if header["binding_sha256"] != digest or header["binding"] != binding:
            from ._checkpoint_binding import adds_header_names, refusal, resume_advice

            if not adds_header_names(header, binding):  # adding one: forgotten the first time
                raise InputError(f"{refusal(header, binding, program_name)}; "
                                 f"{resume_advice(header, binding)}", source=str(target))
        if header["producer"] != producer or header["units"] != units:
            raise InputError(f"checkpoint was written by {header['producer']} for "
                             f"{header['units']} unit(s), not {producer} for {units}",
                             source=str(target))
        fd = os.open(target, os.O_WRONLY | os.O_APPEND)
        if os.fstat(fd).st_size != good:  # drop a torn last line
            os.ftruncate(fd, good)
            os.fsync(fd)
        return Checkpoint(target, header, finished, fd, lock_fd, scan.report, scan.lines)
    check_writable(target, force=force)
    from .._files._converter import document_converter, unstructure_document

    header = unstructure_document(CheckpointHeader(
        producer=producer, created_at=created_at, units=units,
        binding=document_converter().structure(binding, CheckpointBinding),
        binding_sha256=digest))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # allowed by check_writable's rules
        fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND, 0o666)
        os.write(fd, (checkpoint_json(header) + "\n").encode("utf-8"))
        os.fsync(fd)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from None
    _fsync_dir(target)
    return Checkpoint(target, header, {}, fd, lock_fd, restarted)
