"""Canonical JSON (RFC 8785, JSON Canonicalization Scheme) and SHA-256 digests.

``canonical_json`` is what every aau 2.x hash is computed over. The aau-harness 1.x conventions,
which hash other byte strings, are in ``_legacy.py``.

The bytes are the ``rfc8785`` package's. For a *plain* value (``_is_plain``): only exact
``dict``/``list``/``tuple``/``str``/``int``/``float``/``bool``/``None``, integers inside
+-(2**53 - 1), floats as below, and no key character beyond U+FFFF, the standard library's C
JSON encoder (sorted keys, ``","``/``":"``, non-ASCII kept) writes those very bytes, about ten
times faster (a 100,000-case suite's digest: ~1 s instead of ~10 s; a 100,000-row receipt's:
~0.3 s instead of ~2 s): JCS escapes strings exactly as ``json`` does (``rfc8785`` uses the same
table), writes such integers and literals alike, and for keys without astral characters its
UTF-16 order is code-point order. Floats: ``rfc8785`` writes a float's ``str`` with a trailing
``.0`` dropped and the exponent forms of ECMAScript's Number::toString; so a finite float that
is not integral and at least 1e-4 in magnitude (below 2**53, as every non-integral double is) is
written as ``repr`` writes it, which the C encoder does, and an integral float below 2**53 in
magnitude as the integer it equals (``1.0`` -> ``1``, ``-0.0`` -> ``0``), which the C encoder
writes once the float is replaced by that ``int`` (done per piece, on a copy: the value is never
changed). Every other value (a float below 1e-4 or integral from 2**53 on, whose forms differ;
NaN, an infinity; a subclass such as an ``Enum``; a lone surrogate, which UTF-8 refuses) goes
to ``rfc8785`` itself.
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
        raise _refused(doc, exc) from exc


def _refused(doc: Any, exc: Exception) -> CanonicalizationError:
    """The error for a ``doc`` that ``rfc8785`` refused with ``exc``: naming the JSON path of
    the first value it cannot write, where one can be found."""
    found = _unrepresentable(doc)
    if found is None:
        return CanonicalizationError(f"cannot canonicalise value: {exc}")
    path, why = found
    return CanonicalizationError(f"cannot canonicalise the value at {path}: {why}", path, why)


def _unrepresentable(doc: Any) -> tuple[str, str] | None:
    """The JSON path of the first value (document order) RFC 8785 cannot write, and why; or
    ``None``. Only called once ``rfc8785`` has refused ``doc``."""
    from ._json_path import json_path

    stack: list[tuple[Any, tuple[str | int, ...]]] = [(doc, ())]
    while stack:
        value, parts = stack.pop()
        kind = type(value)
        why = None
        if kind is int and not -_INT_LIMIT <= value <= _INT_LIMIT:
            why = "an integer beyond +-(2**53 - 1) (write it as a string)"
        elif kind is float and value != value or kind is float and abs(value) == float("inf"):
            why = "NaN or Infinity"
        elif kind is str and has_lone_surrogate(value):
            why = "a string with a lone surrogate"
        elif kind is dict:
            bad = [k for k in value if type(k) is not str or has_lone_surrogate(k)]
            if bad:
                why = f"a key that is not a string of Unicode scalars: {bad[0]!r}"
            else:
                stack.extend((v, (*parts, k)) for k, v in reversed(value.items()))
        elif kind is list or kind is tuple:
            stack.extend((v, (*parts, i)) for i, v in reversed(list(enumerate(value))))
        elif kind not in (str, int, float, bool, type(None)):
            why = f"a {kind.__name__}, not a JSON value"
        if why is not None:
            return json_path(parts), why
    return None


def has_lone_surrogate(text: str) -> bool:
    """Whether ``text`` holds a lone surrogate (U+D800..U+DFFF not in a pair): a ``str`` that
    UTF-8, and so RFC 8785, cannot encode (Python's JSON decoder makes one from ``"\\ud800"``).
    """
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


_INT_LIMIT = 2**53 - 1
_FLOAT_INT_LIMIT = 2.0**53
_REPR_MIN = 1e-4
_PLAIN_SCALARS = (str, bool, type(None))
NOT_PLAIN, PLAIN, PLAIN_WITH_INTEGRAL_FLOATS = 0, 1, 2


def _is_plain(doc: Any) -> int:
    """Whether the C JSON encoder writes ``doc``'s RFC 8785 bytes (module docstring):
    ``PLAIN``, ``PLAIN_WITH_INTEGRAL_FLOATS`` (once its integral floats are ints) or
    ``NOT_PLAIN`` (0)."""
    found = PLAIN
    stack = [doc]
    while stack:
        value = stack.pop()
        kind = type(value)
        if kind in _PLAIN_SCALARS:
            continue
        if kind is int:
            if -_INT_LIMIT <= value <= _INT_LIMIT:
                continue
            return NOT_PLAIN
        if kind is float:
            size = abs(value)
            if size < _FLOAT_INT_LIMIT and value == int(value):  # NaN, inf: not below 2**53
                found = PLAIN_WITH_INTEGRAL_FLOATS
                continue
            if _REPR_MIN <= size < _FLOAT_INT_LIMIT:
                continue
            return NOT_PLAIN
        if kind is dict:
            for key in value:
                if type(key) is not str or not (key.isascii() or max(key) <= "\uffff"):
                    return NOT_PLAIN
            stack.extend(value.values())
        elif kind is list or kind is tuple:
            stack.extend(value)
        else:
            return NOT_PLAIN
    return found


def _integral_floats_as_ints(value: Any) -> Any:
    """A copy of a plain ``value`` with each integral float replaced by its ``int`` (module
    docstring); containers without floats are copied too (cheap: one piece at a time)."""
    kind = type(value)
    if kind is float:
        return int(value) if value == int(value) else value
    if kind is dict:
        return {k: _integral_floats_as_ints(v) for k, v in value.items()}
    if kind is list or kind is tuple:
        return [_integral_floats_as_ints(v) for v in value]
    return value


def _chunks(doc: Any, depth: int = 2, dumps: Any = None) -> Iterator[bytes]:
    """The C encoder's canonical bytes of a plain ``doc``, in pieces: the outer ``depth`` levels
    are written here (keys in code-point order, as ``sort_keys`` sorts them; an array 512 items
    a piece), the values below by ``json.dumps``, so a 100,000-case suite is never one string
    in memory. ``dumps`` writes each piece (default ``_dumps``)."""
    dumps = dumps or _dumps
    if depth and type(doc) is dict and doc:
        yield b"{"
        for i, key in enumerate(sorted(doc)):
            yield (b"," if i else b"") + _dumps(key) + b":"
            yield from _chunks(doc[key], depth - 1, dumps)
        yield b"}"
    elif depth and type(doc) in (list, tuple) and doc:
        yield b"["
        for start in range(0, len(doc), 512):  # "[a,b]" less its brackets, 512 items a piece
            yield (b"," if start else b"") + dumps(list(doc[start:start + 512]))[1:-1]
        yield b"]"
    else:
        yield dumps(doc)


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"),
                      allow_nan=False).encode("utf-8")


def _dumps_integral_floats_as_ints(value: Any) -> bytes:
    return _dumps(_integral_floats_as_ints(value))


def _fast_canonical_json(doc: Any, sink: Any = None) -> bytes | None:
    """``canonical_json(doc)`` by the C encoder (written to ``sink.write`` when given, then
    ``b""`` is returned), or ``None`` when ``rfc8785`` must write it (module docstring)."""
    plain = _is_plain(doc)
    if not plain:
        return None
    dumps = _dumps_integral_floats_as_ints if plain == PLAIN_WITH_INTEGRAL_FLOATS else _dumps
    try:
        if sink is None:
            return b"".join(_chunks(doc, dumps=dumps))
        for chunk in _chunks(doc, dumps=dumps):
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
        raise _refused(doc, exc) from None
    return "sha256:" + sink.hexdigest()
