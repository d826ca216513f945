"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) and SHA-256 digests.

``canonical_json`` is what every aau 2.x hash is computed over. The aau-harness 1.x conventions,
which hash other byte strings, are in ``_legacy.py``.
"""

from __future__ import annotations

import hashlib
from typing import Any

import rfc8785

from ._errors import CanonicalizationError


def canonical_json(doc: Any) -> bytes:
    """Serialise a JSON value to its RFC 8785 canonical bytes (UTF-8).

    Args:
        doc: dicts with str keys, lists/tuples, str, int, float, bool, None.

    Returns:
        the canonical UTF-8 bytes: keys sorted by UTF-16 code units, no whitespace, numbers in
        ECMAScript form (``1.0`` -> ``1``), strings unescaped except as JCS requires.

    Raises:
        CanonicalizationError: NaN or +-Infinity, an integer outside +-(2**53 - 1), a non-str key,
            or a string with a lone surrogate.
    """
    try:
        return rfc8785.dumps(doc)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise CanonicalizationError(f"cannot canonicalise value: {exc}") from exc


def sha256_hex(data: bytes) -> str:
    """Return the lowercase hex SHA-256 of ``data`` (64 characters)."""
    return hashlib.sha256(data).hexdigest()


class _HashSink:
    """A binary sink that feeds SHA-256 in 64 KiB blocks instead of keeping the bytes."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self._buf = bytearray()

    def write(self, data: bytes) -> int:
        self._buf += data
        if len(self._buf) >= 65536:
            self.hash.update(self._buf)
            self._buf.clear()
        return len(data)

    def hexdigest(self) -> str:
        self.hash.update(self._buf)
        self._buf.clear()
        return self.hash.hexdigest()


def canonical_digest(doc: Any) -> str:
    """Return ``"sha256:" + sha256_hex(canonical_json(doc))``, streamed (no copy of the bytes).

    Raises:
        CanonicalizationError: as ``canonical_json``.
    """
    sink = _HashSink()
    try:
        rfc8785.dump(doc, sink)  # type: ignore[arg-type]
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise CanonicalizationError(f"cannot canonicalise value: {exc}") from None
    return "sha256:" + sink.hexdigest()
