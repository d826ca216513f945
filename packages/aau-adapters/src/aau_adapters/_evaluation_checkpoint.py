"""The checkpoint of an ``aau evaluate`` run: where it is (``checkpoint_path``), whether the one
there keeps a measurement (``_holds_no_measurement``: one that does not is replaced, with or
without ``--resume``), what it binds (``binding_adapter``, ``run_binding``: what must be equal
for a resume), the program file a refusal names, and what a resume runs again
(``forget_unmeasured``). ``_evaluation.run_evaluation`` opens it with ``aau_core``'s
``open_checkpoint``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from aau_core import InputError, OutputError, UsageError
from aau_schemas import sha256_hex

from ._adapter import Adapter
from ._suite import Suite

BINDING_FORMAT = {"aau-2.0": "v2", "aau-1.0": "aau-1.0"}  # the --format words checkpoints bind


def checkpoint_path(out: str | None, *, resume: bool,
                    force: bool) -> tuple[Path | None, str | None]:
    """Where ``aau evaluate`` keeps its checkpoint: ``OUT.checkpoint.jsonl`` beside ``--out``
    (none without ``--out``), and whether the one there is to be replaced.

    A checkpoint that holds no measurement (``_holds_no_measurement``: its run measured
    nothing) is replaced by any new run, with or without ``--resume``: it keeps no result, so
    neither "add --resume" nor a refused resume after the wiring was fixed (another URL, an
    edited agent) would protect anything.

    Returns:
        ``(path, note)``: ``note`` is the line to print when the checkpoint there is replaced
        for that reason (the caller then opens it as ``--force`` would), else ``None``.

    Raises:
        UsageError: ``--resume`` without ``--out``; or a checkpoint holding a measurement is
            already there and neither ``--resume`` nor ``--force`` says what to do with it.
        OutputError: another process is writing that checkpoint now (its lock is held).
    """
    if out is None:
        if resume:
            raise UsageError("--resume needs --out: the checkpoint is OUT.checkpoint.jsonl")
        return None, None
    path = Path(out).with_name(Path(out).name + ".checkpoint.jsonl")
    from aau_core import checkpoint_writer

    writer = checkpoint_writer(path)
    if writer is not None:  # a live run, not an interrupted one: --resume or --force won't do
        raise OutputError(f"{path}: another {writer} is writing this checkpoint; wait for it "
                          "to finish or use another --out")
    if force or not os.path.lexists(path):
        return path, None
    if _holds_no_measurement(path):
        return path, (f"{path}: the checkpoint there holds no measured unit (its run measured "
                      "nothing), so this run starts over")
    if not resume:
        raise UsageError(f"{path}: a checkpoint of an earlier run is here (interrupted, or with "
                         "units not measured); add --resume to continue it and measure what it "
                         "did not, or --force to start over")
    return path, None


def _holds_no_measurement(path: Path) -> bool:
    """Whether the ``aau evaluate`` checkpoint at ``path`` keeps no measurement: no unit
    finished, every finished unit was not measured, or it holds every unit and none had an
    answer aau could read (a run refused as ``"no-answer"``). An unreadable checkpoint is
    not judged here (``open_checkpoint`` says what is wrong with it)."""
    from aau_core import read_checkpoint

    from ._failure_codes import is_measured
    from ._non_measurement import answer_unread

    try:
        header, finished, _ = read_checkpoint(path)
    except InputError:  # InvalidDocumentError is one too
        return False
    if header.get("producer") != "aau evaluate":
        return False
    codes = [doc.get("adapter_error") for doc in finished.values()]
    if all(not is_measured(code) for code in codes):
        return True
    return len(codes) == header.get("units") and all(answer_unread(code) for code in codes)


def binding_adapter(*, command: str | None, endpoint: str | None,
                    cwd: str | os.PathLike[str] | None = None,
                    headers: Sequence[str] = ()) -> dict[str, Any]:
    """The adapter part of a checkpoint binding.

    The kind with the SHA-256 (hex) of the full ``--command`` string or ``--endpoint`` URL
    (neither is written out: they may hold secrets), or ``{"kind": "mock"}`` when neither is
    given. A command whose argv names a program file inside ``cwd``
    (``_command_adapter.program_file``: ``python agent.py`` names ``agent.py``) also binds that
    file's bytes: ``program_sha256`` (SHA-256 hex) and ``program_argv_index``, so a resume after
    the agent was edited is refused (the path is not written; a file that cannot be read is not
    bound). An endpoint's ``--header`` names are bound (``header_names``, lower-case, sorted,
    only when there are some), never their values: a resume that forgot ``--header
    'Authorization: ...'`` is refused rather than scored on 401s, and a token that rotated
    between a run and its ``--resume`` is the same agent (a command's environment variables are
    not bound either).

    Args:
        command: the ``--command`` string (shlex-split as ``aau evaluate`` splits it).
        endpoint: the ``--endpoint`` URL.
        cwd: the project folder program files are looked for in (default: the current one).
        headers: the ``--header 'NAME: VALUE'`` texts (endpoint only; checked by
            ``choose_adapter`` first): only the names are read.

    Returns:
        ``{"kind": "command", "command_sha256", ["program_sha256", "program_argv_index"]}``,
        ``{"kind": "endpoint", "url_sha256", ["header_names"]}`` or ``{"kind": "mock"}``.

    Raises:
        aau_core.UsageError: the command does not split (``split_command``).
    """
    if command is not None:
        from ._command_adapter import program_file, split_command

        found: dict[str, Any] = {"kind": "command",
                                 "command_sha256": sha256_hex(command.encode("utf-8"))}
        argv = split_command(command)
        index = program_file(argv, cwd)
        if index is not None:
            try:
                data = (Path(cwd or ".") / argv[index]).read_bytes()
            except OSError:
                return found
            found.update(program_sha256=sha256_hex(data), program_argv_index=index)
        return found
    if endpoint is not None:
        found = {"kind": "endpoint", "url_sha256": sha256_hex(endpoint.encode("utf-8"))}
        if headers:
            found["header_names"] = sorted({h.partition(":")[0].strip().lower() for h in headers})
        return found
    return {"kind": "mock"}


def run_binding(loaded: Suite, adapter: Mapping[str, Any], *, repeats: int, timeout: float,
                fmt: str, private: bool) -> dict[str, Any]:
    """The checkpoint binding ``{"suite_digest", "adapter", "config"}`` of a run of ``loaded``
    with this adapter identity (``binding_adapter``) and these settings (``fmt`` a
    ``BINDING_FORMAT`` word); a 1.x suite RFC 8785 cannot canonicalise binds its JSON's hash."""
    from aau_core import checkpoint_json

    try:
        digest = loaded.suite_digest()
    except Exception:  # noqa: BLE001 - a 1.x suite that cannot be canonicalised: hash its JSON
        digest = "sha256:" + sha256_hex(checkpoint_json(loaded.doc).encode())
    return {"suite_digest": digest, "adapter": dict(adapter),
            "config": {"repeats": repeats, "timeout_s": timeout, "format": fmt,
                       "private": private}}


def evaluate_binding(loaded: Any, *, command: str | None, endpoint: str | None, repeats: int,
                     timeout: float, fmt: str, private: bool) -> dict[str, Any]:
    """The checkpoint binding of an ``aau evaluate`` run: the suite's RFC 8785 digest, the
    adapter (``binding_adapter``), and the settings that change results (repeats, timeout,
    format as the ``--format`` word, whether private detail is kept). Concurrency and executor
    are not bound: a resume may change them."""
    return run_binding(loaded, binding_adapter(command=command, endpoint=endpoint), repeats=repeats,
                    timeout=timeout, fmt=fmt, private=private)


def program_name(adapter_binding: Mapping[str, Any], adapter: Adapter) -> str | None:
    """The program file a command binding hashes, as the user wrote it (``agent.py``), to name
    it in a refusal; ``None`` when the binding holds none or the adapter has no argv."""
    index, argv = adapter_binding.get("program_argv_index"), getattr(adapter, "argv", None)
    if isinstance(index, int) and isinstance(argv, (list, tuple)) and 0 <= index < len(argv):
        return str(argv[index])
    return None


def forget_unmeasured(ckpt: Any) -> int:
    """On resume, forget the recorded units that were not measured (their adapter or transport
    failed), so they run again: fixing the agent's surroundings and resuming measures them. (A
    checkpoint that holds no measurement at all is replaced before this: ``checkpoint_path``.)
    Returns how many units were forgotten."""
    from ._failure_codes import is_measured

    stale = [i for i, doc in ckpt.finished.items() if not is_measured(doc["adapter_error"])]
    ckpt.discard(stale)
    return len(stale)
