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


def canonical_digest(doc: Any) -> str:
    """Return ``"sha256:" + sha256_hex(canonical_json(doc))``.

    Raises:
        CanonicalizationError: as ``canonical_json``.
    """
    return "sha256:" + sha256_hex(canonical_json(doc))
