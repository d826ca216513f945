"""The aau-harness 1.x hashing conventions, reproduced exactly so that 1.x hashes still verify.

Source: aau-harness 1.6.0 (``evaluate.py``, ``human_baseline.py``, ``release_gate.py``); summarised in
the project's reference notes (aau-1.6 §2.11). Each function names the bytes it hashes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

from ._canonical import sha256_hex


def legacy_suite_bytes(suite: Any) -> bytes:
    """Bytes behind a 1.x ``suite_sha256``: compact, sorted, ASCII-escaped JSON plus ``"\\n"``.

    ``json.dumps(suite, sort_keys=True, separators=(",", ":")) + "\\n"`` encoded as ASCII.
    """
    return (json.dumps(suite, sort_keys=True, separators=(",", ":")) + "\n").encode("ascii")


def _compact_chunks(value: Any, depth: int) -> Iterator[str]:
    # The same text as json.dumps(value, sort_keys=True, separators=(",", ":")), produced in
    # pieces: the top two levels are assembled here, everything below by the C encoder.
    if depth > 0 and isinstance(value, dict) and value:
        yield "{"
        for i, key in enumerate(sorted(value)):
            yield ("," if i else "") + json.dumps(key) + ":"
            yield from _compact_chunks(value[key], depth - 1)
        yield "}"
    elif depth > 0 and isinstance(value, list) and value:
        yield "["
        for i, item in enumerate(value):
            if i:
                yield ","
            yield from _compact_chunks(item, depth - 1)
        yield "]"
    else:
        yield json.dumps(value, sort_keys=True, separators=(",", ":"))


def legacy_suite_sha256(suite: Any) -> str:
    """1.x ``suite_sha256`` (also the baseline study, submission and capsule suite binding).

    Equal to ``sha256_hex(legacy_suite_bytes(suite))``, computed in pieces so that a large suite
    is never held twice more in memory.
    """
    digest = hashlib.sha256()
    for chunk in _compact_chunks(suite, 2):  # the root and its arrays; each case in one piece
        digest.update(chunk.encode("ascii"))
    digest.update(b"\n")
    return digest.hexdigest()


def legacy_render_json(value: Any) -> str:
    """1.x artifact rendering: ``json.dumps(value, indent=2, sort_keys=True) + "\\n"`` (ASCII)."""
    return json.dumps(value, indent=2, sort_keys=True) + "\n"


def legacy_sha256_json(value: Any) -> str:
    """1.x ``sha256_json``: SHA-256 of ``legacy_render_json(value)`` (study, session, report hashes)."""
    return sha256_hex(legacy_render_json(value).encode("ascii"))


def legacy_release_digest(value: Any) -> str:
    """1.x release-gate ``digest``: compact sorted UTF-8 JSON, ``ensure_ascii=False``, no newline."""
    data = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_hex(data.encode("utf-8"))


def legacy_release_render(value: Any) -> str:
    """1.x release-gate file text: ``json.dumps(indent=2, ensure_ascii=False) + "\\n"`` (insertion order)."""
    return json.dumps(value, indent=2, ensure_ascii=False) + "\n"
