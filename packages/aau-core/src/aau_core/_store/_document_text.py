"""A stored run's JSON text, written without holding it whole (the run store's ``document``).

``document_pieces`` gives the text ``json.dumps`` would give, in pieces; ``store_document_text``
spools them to a temporary file and copies the bytes into the row with sqlite's incremental blob
I/O. The value is a BLOB of the text's UTF-8 bytes (``json.loads`` reads it as it reads text; in
SQL, ``CAST(document AS TEXT)`` gives the text to sqlite's JSON functions).
"""

from __future__ import annotations

import json
import sqlite3
import tempfile
from collections.abc import Iterator, Mapping
from typing import Any

_DOCUMENT_SEPARATORS = (",", ":")
_SPOOL_CHUNK = 1 << 20


_ENCODER = json.JSONEncoder(ensure_ascii=False, sort_keys=True, separators=_DOCUMENT_SEPARATORS)
_dumps = _ENCODER.encode  # one encoder: json.dumps with options builds a new one per call


def document_pieces(value: Any, depth: int = 2) -> Iterator[str]:
    """The text ``json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))``
    gives, in pieces: objects (with string keys) and arrays down to ``depth`` levels are opened
    here, what lies below is encoded whole by ``json``'s C encoder. Joined, the pieces are that
    text exactly (a test checks it), but no more than one row of a receipt is ever text at once.

    Args:
        value: a JSON value (dicts, lists, tuples, strings, numbers, booleans, ``None``).
        depth: how many levels to open (0: one piece, the whole text).
    """
    if depth > 0 and isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        for i, key in enumerate(sorted(value)):
            yield ("{" if i == 0 else ",") + _dumps(key) + ":"
            yield from document_pieces(value[key], depth - 1)
        yield "}"
    elif depth > 0 and isinstance(value, (list, tuple)) and value:
        for i, item in enumerate(value):
            yield "[" if i == 0 else ","
            yield from document_pieces(item, depth - 1)
        yield "]"
    else:
        yield _dumps(value)


def store_document_text(db: sqlite3.Connection, run_id: int, doc: Mapping[str, Any]) -> None:
    """Write ``doc``'s JSON text (sorted keys, compact) as a BLOB of its UTF-8 bytes into
    ``runs.document`` of row ``run_id``, inside the caller's transaction.

    The text of a 100,000-unit receipt is ~20 MB. Bound as one parameter it was held three times
    at once (``json``'s chunks, the joined string, sqlite's copy), the peak of a large
    ``aau evaluate``. Here it is encoded piece by piece into a spooled temporary file, a
    ``zeroblob`` of that many bytes is reserved, and the bytes are copied in with sqlite's
    incremental blob I/O, 1 MB at a time. A BLOB, not TEXT: sqlite writes a ``zeroblob`` into
    the row without building it, while any TEXT value of that size is built whole, twice (the
    value and the record holding it: 40 MB for a 20 MB text, measured). Rows written before
    this are TEXT; readers take both (``json.loads`` accepts ``bytes``). Python 3.10 (no
    ``blobopen``) binds the bytes.
    """
    if not hasattr(db, "blobopen"):  # Python < 3.11
        db.execute("UPDATE runs SET document = ? WHERE id = ?",
                   (_dumps(doc).encode("utf-8"), run_id))
        return
    with tempfile.TemporaryFile() as spool:
        size = 0
        for piece in document_pieces(doc):
            data = piece.encode("utf-8")
            spool.write(data)
            size += len(data)
        db.execute("UPDATE runs SET document = zeroblob(?) WHERE id = ?", (size, run_id))
        spool.seek(0)
        with db.blobopen("runs", "document", run_id) as blob:
            while chunk := spool.read(_SPOOL_CHUNK):
                blob.write(chunk)


__all__ = ["document_pieces", "store_document_text"]
