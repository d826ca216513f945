"""Recording a run from the command that made it: ``record_run`` (what ``aau evaluate`` and
``aau lab run`` call after their outputs are written), its never-failing form
``record_run_or_warn`` (a store that cannot be written costs a warning, never the receipt),
``record_file_or_warn`` (a document read back from the file just written), and ``store_choice``
(``--store`` / ``--no-store`` checked before a command runs, the store kept out of packs).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from .._errors import InputError, OutputError, UsageError
from ._run_store import (
    DISABLED,
    MAX_DOCUMENT_BYTES,
    STORE_ENV,
    RunStore,
    default_store,
    pack_holding,
    resolve_store,
)
from ._stored_documents import not_recorded


def record_run(doc: Mapping[str, Any], *, store: str | os.PathLike[str] | None = None,
               source: str | None = None, checked_kind: str | None = None) -> int | None:
    """Record one run document in the run store (what ``aau evaluate`` and ``aau lab run`` call
    after their outputs are written).

    Args:
        doc: a receipt (v1/v2), eval aggregate (v1/v2) or lab result, as parsed JSON.
        store: ``--store``'s value (see ``resolve_store``); ``None`` for the default.
        source: the file the document was written to, if any.
        checked_kind: as ``RunStore.add``'s (``None``, the default, checks ``doc``).

    Returns:
        the run id, or ``None`` when recording is off (``none``).

    Raises:
        InputError: the document is not a valid run document, or the store is newer than
            this aau; OutputError: the store cannot be opened or written;
            UsageError: a bad ``store`` value.
    """
    path = resolve_store(store)
    if path is None:
        return None
    try:
        with RunStore(path) as run_store:
            return run_store.add(doc, source=source, checked_kind=checked_kind)[0]
    except sqlite3.Error as exc:
        raise OutputError(f"{path}: cannot record the run: {exc}") from None


def record_run_or_warn(doc: Mapping[str, Any], *, store: str | os.PathLike[str] | None = None,
                       source: str | None = None,
                       warn: Callable[[str], None] | None = None, checked_kind: str | None = None
                       ) -> int | None:
    """``record_run`` for commands whose own outputs are already written: any failure becomes one
    warning line (``aau: warning: run not recorded in the run store: ...``) and ``None``, so the
    command's exit code and files are unchanged."""
    try:
        return record_run(doc, store=store, source=source, checked_kind=checked_kind)
    except Exception as exc:  # noqa: BLE001 - never lose a written receipt to the store
        return not_recorded("run", exc, warn)


def store_choice(store: str | None, no_store: bool, *,
                 reads: Iterable[str | os.PathLike[str]] = ()) -> str:
    """Check ``--store`` / ``--no-store`` before a command runs; return the value to record with
    (``"none"`` for ``--no-store``), or raise now rather than after the run.

    The store is never inside a pack: with neither ``--store`` nor ``$AAU_RUN_STORE`` the value
    is ``default_store(reads)`` (beside the pack when the current directory is in one); a named
    store inside a pack is refused (``check_store_outside_packs``).

    Args:
        store: ``--store``'s value, or ``None``.
        no_store: ``--no-store``.
        reads: the pack folders the command reads (a pack aau wrote is recognised anyway).

    Raises:
        UsageError: both given, a ``--store`` value ``resolve_store`` refuses, or a store
            inside a pack.
    """
    if no_store:
        if store is not None:
            raise UsageError("--store and --no-store contradict each other; give one")
        return DISABLED
    named = store if store is not None else os.environ.get(STORE_ENV)
    path = resolve_store(store)
    if named is None:
        return str(default_store(reads))
    if path is not None:
        check_store_outside_packs(path, f"--store {named}" if store is not None else
                                  f"{STORE_ENV}={named}", reads=reads)
    return named


def check_store_outside_packs(path: str | os.PathLike[str], named: str, *,
                              reads: Iterable[str | os.PathLike[str]] = ()) -> None:
    """Refuse a run store at ``path``, ``named`` by the user (``"--store X"``,
    ``"AAU_RUN_STORE=X"``), inside a pack folder: one of
    ``reads`` or a pack aau wrote (``pack_holding``). A pack holds exactly its own files; a
    store written into it would make every check of the pack fail.

    Raises:
        UsageError: one line naming the option or variable, its value and the pack.
    """
    pack = pack_holding(Path(path).parent, reads)
    if pack is None:
        return
    where = os.path.relpath(pack)
    where = "this folder, a pack" if where == "." else f"the pack {where}"
    raise UsageError(f"{named}: inside {where}; a pack holds only its own files (a "
                     "run store there breaks its check); name a store outside the pack, e.g. "
                     f"{os.path.relpath(pack.parent / '.aau' / 'runs.sqlite')}")


def record_file_or_warn(path: str | os.PathLike[str], *, store: str | None) -> int | None:
    """``record_run_or_warn`` for a run document a command has just written to ``path`` (read
    back, so the stored document is the file's)."""
    from .._files._strict_json import read_json_file

    if resolve_store(store) is None:
        return None
    try:
        doc = read_json_file(path, max_bytes=MAX_DOCUMENT_BYTES)
    except InputError as exc:
        import sys

        print(f"aau: warning: run not recorded in the run store: {exc}", file=sys.stderr)
        return None
    return record_run_or_warn(doc, store=store, source=os.fspath(path))
