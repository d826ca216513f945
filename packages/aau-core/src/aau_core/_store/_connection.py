"""Opening the run store's SQLite file (``_run_store``): a writer's connection in WAL mode, a
reader's read-only one (``immutable`` in a folder it cannot write to, when that is exact), and
why a file is not a run store.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

from .._errors import InputError, OutputError

BUSY_TIMEOUT_S = 60.0
"""How long a connection waits for another one's lock, in seconds."""


def connect_store(path: Path, *, read_only: bool) -> sqlite3.Connection:
    """A connection to the store at ``path``: read-only (``open_read_only``), else a writer's in
    WAL mode (the file and its folder are created). Both wait ``BUSY_TIMEOUT_S`` for locks.

    Raises:
        InputError: read-only and no file there; ``path`` is a folder; not an SQLite file.
        OutputError: the file cannot be created or opened.
    """
    if path.is_dir():
        raise InputError(f"a folder, not a run store file; give the file (e.g. "
                         f"{path / 'runs.sqlite'})", source=str(path))
    try:
        if read_only:
            if not path.is_file():
                raise InputError("no run store here (nothing has been recorded yet)",
                                 source=str(path))
            db = open_read_only(path)
        else:
            if path.parent != Path("") and not path.parent.is_dir():
                path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(str(path), timeout=BUSY_TIMEOUT_S, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
        db.execute(f"PRAGMA busy_timeout={int(BUSY_TIMEOUT_S * 1000)}")
        db.execute("PRAGMA foreign_keys=ON")
    except sqlite3.DatabaseError as exc:
        if type(exc) is sqlite3.DatabaseError:  # "file is not a database", not an I/O error
            raise InputError(f"not a run store: {exc}", source=str(path)) from None
        raise OutputError(f"{path}: cannot open the run store: {exc}") from None
    except sqlite3.Error as exc:
        raise OutputError(f"{path}: cannot open the run store: {exc}") from None
    except OSError as exc:
        raise OutputError(f"{path}: cannot create the run store: {exc.strerror or exc}") from None
    return db


def open_read_only(path: Path) -> sqlite3.Connection:
    """A read-only connection to ``path``, which exists.

    A store is in WAL mode, and a read-only reader of a WAL database still creates the
    ``-shm`` index beside it. In a folder the reader may not write to (a shared or archived
    store), that fails ("attempt to write a readonly database"). There, when no ``-wal`` file
    holds changes not yet in the file, the store is opened ``immutable``: SQLite then reads the
    file alone, which is exact, since nobody can write to it either (a writer has to create its
    own side files in that folder). When a ``-wal`` file with changes is there, reading without
    the index would miss them, and the error says what to do.

    Raises:
        InputError: the folder is read-only and the changes in ``-wal`` need the index.
        sqlite3.Error: any other failure (``connect_store`` reports it).
    """
    uri = path.resolve().as_uri()
    options: dict[str, Any] = {"uri": True, "timeout": BUSY_TIMEOUT_S, "isolation_level": None,
                               "check_same_thread": False}
    db = sqlite3.connect(f"{uri}?mode=ro", **options)
    try:
        db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()  # the first read opens it
        return db
    except sqlite3.OperationalError as exc:
        db.close()
        if "readonly" not in str(exc) and "unable to open" not in str(exc):
            raise
        wal = path.with_name(path.name + "-wal")
        if wal.is_file() and wal.stat().st_size > 0:
            raise InputError(f"cannot read the run store: its folder is read-only, and the changes "
                             f"in {wal.name} need an index SQLite has to create beside it ({exc}); "
                             "copy the store and its -wal file to a writable folder",
                             source=str(path)) from None
    db = sqlite3.connect(f"{uri}?mode=ro&immutable=1", **options)
    db.execute("SELECT COUNT(*) FROM sqlite_master").fetchone()
    return db


def not_a_store(db: sqlite3.Connection) -> str | None:
    """Why an SQLite file is not a run store, or ``None``: it has tables, but no
    ``schema_version`` (an empty file is a store with nothing recorded yet)."""
    tables = [row[0] for row in db.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
    if not tables or "schema_version" in tables:
        return None
    shown = ", ".join(tables[:5]) + (f" and {len(tables) - 5} more" if len(tables) > 5 else "")
    return (f"not a run store: an SQLite database of something else (tables {shown}, no "
            "schema_version); aau does not add its tables to it, give another --store")


__all__ = ["BUSY_TIMEOUT_S", "connect_store", "not_a_store", "open_read_only"]
