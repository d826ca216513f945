"""Reading the navigator's JSON documents: strict parse, size limit, schema check.

Every file the navigator reads (catalogs, challenge catalogs and receipts, gallery entries, lab
results) goes through ``read_document``, so a bad file is always one ``file: $.path: message``
line per problem and exit 2, never a traceback.
"""

from __future__ import annotations

import os
from typing import Any

MAX_DOCUMENT_BYTES = 20_000_000  # far above any catalog or entry; lab results can be large


def read_json(path: str | os.PathLike[str], *, max_bytes: int = MAX_DOCUMENT_BYTES) -> Any:
    """Strictly parse the JSON file ``path`` (no NaN, no duplicate keys, bounded depth).

    Returns:
        the parsed value.

    Raises:
        aau_core.InputError: missing, not a file, over ``max_bytes`` bytes, not UTF-8, or not
            valid JSON; the message names the file.
    """
    from aau_core import read_json_file

    return read_json_file(path, max_bytes=max_bytes)


def read_document(kind: str, path: str | os.PathLike[str]) -> Any:
    """``read_json`` then ``aau_core.check_document``: the parsed, schema-valid document of ``path``.

    Raises:
        aau_core.InputError / aau_core.InvalidDocumentError: as the two steps.
    """
    from aau_core import check_document

    return check_document(kind, read_json(path), str(path))
