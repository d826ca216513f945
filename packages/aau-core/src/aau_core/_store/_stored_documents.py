"""Documents the run store keeps beside the runs: evidence about a run that is not itself a run.

A review report (``aau review summarize``) is the first: it says how far a run's automatic
scorers agree with people, and binds the run's receipt by SHA-256. The store records such
documents **generically**, by schema kind: aau-core never imports the package that writes them
(aau-review sits above it). The writer names the kind and the two columns a document is looked
up by; the store checks the document against that kind's schema, keeps it whole and lists it::

    documents   id, doc_digest (unique), kind, suite, receipt_sha256, recorded_at, source,
                document (the JSON text)                                 (migration 3)

Indexes: ``kind`` and ``receipt_sha256``. As with runs, the same document (same RFC 8785
digest) is stored once, in one ``BEGIN IMMEDIATE`` transaction, and recording never loses a
file a command has written (``record_document_or_warn``).
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Callable, Mapping
from typing import Any

import attrs

from .._errors import InputError, OutputError

RUN_KINDS = ("receipt-v1", "receipt-v2", "eval-aggregate-v1", "eval-aggregate-v2", "lab-result")
"""Kinds recorded as runs (``RunStore.add``), never as documents."""


def migration_3(db: sqlite3.Connection) -> None:
    """Migration 3: the ``documents`` table and its indexes (inside the caller's transaction)."""
    for statement in (
            "CREATE TABLE documents (id INTEGER PRIMARY KEY AUTOINCREMENT, doc_digest TEXT NOT "
            "NULL UNIQUE, kind TEXT NOT NULL, suite TEXT, receipt_sha256 TEXT, recorded_at TEXT "
            "NOT NULL, source TEXT, document TEXT NOT NULL)",
            "CREATE INDEX documents_kind ON documents (kind)",
            "CREATE INDEX documents_receipt ON documents (receipt_sha256)"):
        db.execute(statement)


@attrs.frozen
class StoredDocument:
    """One stored document's columns (an item of schema ``stored-document-list``).

    Attributes:
        id: its id (``aau runs document ID``), numbered apart from run ids.
        kind: its schema kind (``review-report``).
        suite: the suite id it concerns, if any.
        receipt_sha256: SHA-256 of the receipt file it binds, if any.
        recorded_at: when it was recorded (UTC ISO 8601).
        source: the file it was written to, if known.
        doc_digest: its RFC 8785 digest (``sha256:<hex>``).
    """

    id: int
    kind: str
    suite: str | None
    receipt_sha256: str | None
    recorded_at: str
    source: str | None
    doc_digest: str


_COLUMNS = "id, kind, suite, receipt_sha256, recorded_at, source, doc_digest"


def add_document(store: Any, doc: Mapping[str, Any], *, kind: str, suite: str | None = None,
                 receipt_sha256: str | None = None,
                 source: str | None = None) -> tuple[int, bool]:
    """Check ``doc`` against ``kind``'s schema and record it in ``store`` (a ``RunStore``).

    Returns:
        ``(document id, created)``; ``created`` is False when the same document was stored.

    Raises:
        InputError: ``kind`` is a run kind (``RunStore.add`` records those) or unknown, or
            ``doc`` is not valid under its schema (``source: $.path: message``).
    """
    import aau_schemas

    from .._files._document_check import check_document
    from ._run_store import _now, _transaction

    if kind in RUN_KINDS or kind not in {k.kind for k in aau_schemas.kinds()}:
        raise InputError(f"{kind!r} is not a document kind the store keeps beside runs",
                         source=source or "<document>")
    check_document(kind, doc, source or "<document>")
    digest = aau_schemas.canonical_digest(doc)
    text = json.dumps(doc, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    with _transaction(store.db):
        row = store.db.execute("SELECT id FROM documents WHERE doc_digest = ?",
                               (digest,)).fetchone()
        if row:
            return int(row[0]), False
        cur = store.db.execute(
            "INSERT INTO documents (doc_digest, kind, suite, receipt_sha256, recorded_at, source, "
            "document) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (digest, kind, suite, receipt_sha256, _now(), source, text))
    return int(cur.lastrowid or 0), True


def list_documents(store: Any, *, kind: str | None = None,
                   receipt_sha256: str | None = None) -> list[StoredDocument]:
    """Stored documents, newest first (by id), optionally of one kind or binding one receipt."""
    where, args = [], []
    if kind:
        where.append("kind = ?")
        args.append(kind)
    if receipt_sha256:
        where.append("receipt_sha256 = ?")
        args.append(receipt_sha256.removeprefix("sha256:"))
    sql = f"SELECT {_COLUMNS} FROM documents"
    if where:
        sql += " WHERE " + " AND ".join(where)
    return [StoredDocument(*row) for row in store.db.execute(sql + " ORDER BY id DESC", args)]


def get_document(store: Any, doc_id: int | str) -> tuple[StoredDocument, dict[str, Any]]:
    """``(columns, document)`` of one stored document.

    Raises:
        InputError: not a number, or no document has this id.
    """
    try:
        key = int(str(doc_id).lstrip("#"))
    except ValueError:
        raise InputError(f"document id {doc_id!r}: expected a number (see aau runs documents)",
                         source=str(store.path)) from None
    row = store.db.execute(f"SELECT {_COLUMNS}, document FROM documents WHERE id = ?",
                           (key,)).fetchone()
    if row is None:
        raise InputError(f"no document {key} in this store (see aau runs documents)",
                         source=str(store.path))
    return StoredDocument(*row[:-1]), json.loads(row[-1])


def record_document_or_warn(doc: Mapping[str, Any], *, kind: str,
                            store: str | os.PathLike[str] | None = None,
                            suite: str | None = None, receipt_sha256: str | None = None,
                            source: str | None = None,
                            warn: Callable[[str], None] | None = None) -> int | None:
    """Record a document a command has already written (``add_document``) in the run store
    ``store`` names (``resolve_store``; ``none`` records nothing). Any failure becomes one
    warning line (``aau: warning: <kind> not recorded in the run store: ...``) and ``None``, so
    the command's exit code and files are unchanged.

    Returns:
        the document id, or ``None`` (recording off, or it failed).
    """
    from ._run_store import RunStore, resolve_store

    try:
        path = resolve_store(store)
        if path is None:
            return None
        with RunStore(path) as run_store:
            return add_document(run_store, doc, kind=kind, suite=suite,
                                receipt_sha256=receipt_sha256, source=source)[0]
    except (InputError, OutputError, sqlite3.Error, OSError) as exc:
        return not_recorded(kind, exc, warn)


def not_recorded(what: str, exc: BaseException, warn: Callable[[str], None] | None) -> None:
    """Report a failed recording as one warning line, ``aau: warning: <what> not recorded in
    the run store: <exc>``, through ``warn`` (default: stderr); returns ``None``."""
    import sys

    message = f"aau: warning: {what} not recorded in the run store: {exc}"
    if warn is not None:
        warn(message)
    else:
        print(message, file=sys.stderr)
