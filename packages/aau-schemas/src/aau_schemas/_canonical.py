"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) and SHA-256 digests.

``canonical_json`` is what every aau 2.x hash is computed over. The aau-harness 1.x conventions,
which hash other byte strings, are in ``_legacy.py``.

The bytes are the ``rfc8785`` package's. For a value with no float, only exact ``dict``/``list``/
``tuple``/``str``/``int``/``bool``/``None``, integers inside +-(2**53 - 1) and no key character
beyond U+FFFF (``_is_plain``), the standard library's C JSON encoder (sorted keys, ``","``/``":"``,
non-ASCII kept) writes those very bytes, about ten times faster (a 100,000-case suite's digest:
~1 s instead of ~10 s): JCS escapes strings exactly as ``json`` does (``rfc8785`` uses the same
table), writes such integers and literals alike, and for keys without astral characters its
UTF-16 order is code-point order. Every other value (a float, whose ECMAScript form differs
from ``repr``; a subclass such as an ``Enum``; a lone surrogate, which UTF-8 refuses) goes to
``rfc8785`` itself.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
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
    fast = _fast_canonical_json(doc)
    if fast is not None:
        return fast
    try:
        return rfc8785.dumps(doc)
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise CanonicalizationError(f"cannot canonicalise value: {exc}") from exc


_INT_LIMIT = 2**53 - 1
_PLAIN_SCALARS = (str, bool, type(None))


def _is_plain(doc: Any) -> bool:
    """Whether the C JSON encoder writes ``doc``'s RFC 8785 bytes (module docstring)."""
    stack = [doc]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in _PLAIN_SCALARS:
            continue
        if kind is int:
            if -_INT_LIMIT <= value <= _INT_LIMIT:
                continue
            return False
        if kind is dict:
            for key in value:
                if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                    return False
            stack.extend(value.values())
        elif kind is list or kind is tuple:
            stack.extend(value)
        else:
            return False
    return True


def _chunks(doc: Any, depth: int = 2) -> Iterator[bytes]:
    """The C encoder's canonical bytes of a plain ``doc``, in pieces: the outer ``depth`` levels
    are written here (keys in code-point order, as ``sort_keys`` sorts them; an array 512 items
    a piece), the values below by ``json.dumps``, so a 100,000-case suite is never one string
    in memory."""
    if depth and type(doc) is dict and doc:
        yield b"{"
        for i, key in enumerate(sorted(doc)):
            yield (b"," if i else b"") + _dumps(key) + b":"
            yield from _chunks(doc[key], depth - 1)
        yield b"}"
    elif depth and type(doc) in (list, tuple) and doc:
        yield b"["
        for start in range(0, len(doc), 512):  # "[a,b]" less its brackets, 512 items a piece
            yield (b"," if start else b"") + _dumps(list(doc[start:start + 512]))[1:-1]
        yield b"]"
    else:
        yield _dumps(doc)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


def _fast_canonical_json(doc: Any, sink: Any = None) -> bytes | None:
    """``canonical_json(doc)`` by the C encoder (written to ``sink.write`` when given, then
    ``b""`` is returned), or ``None`` when ``rfc8785`` must write it (module docstring)."""
    if not _is_plain(doc):
        return None
    try:
        if sink is None:
            return b"".join(_chunks(doc))
        for chunk in _chunks(doc):
            sink.write(chunk)
        return b""
    except (UnicodeEncodeError, ValueError, RecursionError):  # a lone surrogate; a cycle
        return None


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
    """Return ``"sha256:" + sha256_hex(canonical_json(doc))``, streamed (no copy of the bytes):
    through the C encoder when the value is plain (module docstring), else ``rfc8785``.

    Raises:
        CanonicalizationError: as ``canonical_json``.
    """
    sink = _HashSink()
    if _fast_canonical_json(doc, sink) is not None:
        return "sha256:" + sink.hexdigest()
    sink = _HashSink()
    try:
        rfc8785.dump(doc, sink)  # type: ignore[arg-type]
    except (rfc8785.CanonicalizationError, TypeError, ValueError) as exc:
        raise CanonicalizationError(f"cannot canonicalise value: {exc}") from None
    return "sha256:" + sink.hexdigest()
