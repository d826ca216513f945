"""Strict JSON reading: the one parser every aau input goes through.

Rules (each violation is an ``InputError`` naming the source and the JSON path):

- strict UTF-8; a leading byte-order mark is tolerated and dropped (``decode_text``, the one
  decoding of every text input, JSON or not);
- ``NaN``, ``Infinity``, ``-Infinity`` and numbers that overflow to infinity (``1e400``) are rejected;
- integers longer than Python converts (``sys.get_int_max_str_digits()``, 4,300 digits by
  default) are rejected with their path, not left to raise ``ValueError`` mid-parse;
- duplicate keys in one object are rejected (Python's ``json`` silently keeps the last);
- strings holding lone UTF-16 surrogates (``"\\ud800"``) are rejected (not Unicode text);
- nesting deeper than ``max_depth`` containers is rejected (and never reaches a ``RecursionError``);
- byte length above ``max_bytes`` is rejected before parsing.

A syntax error names its line and column; the two commonest slips get a plainer message:
a trailing comma (``[1, 2,]``, pointing at the comma) and single quotes (``{'a': 1}``).
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path
from typing import Any

from aau_schemas import has_lone_surrogate, json_path

from .._errors import InputError

UTF8_BOM = b"\xef\xbb\xbf"
# other encodings' byte-order marks, UTF-32 first (its little-endian mark starts like UTF-16's)
OTHER_BOMS = (
    (b"\xff\xfe\x00\x00", "UTF-32", "little-endian"),
    (b"\x00\x00\xfe\xff", "UTF-32", "big-endian"),
    (b"\xff\xfe", "UTF-16", "little-endian"),
    (b"\xfe\xff", "UTF-16", "big-endian"),
)
DEFAULT_MAX_DEPTH = 100


class _Rejected:
    """Placeholder the parser hooks leave where a forbidden value was; found by the walk."""

    __slots__ = ("reason",)

    def __init__(self, reason: str) -> None:
        self.reason = reason


class _DuplicateKeyDict(dict):
    """A parsed object that had a repeated key (``duplicate`` names it)."""

    __slots__ = ("duplicate",)


def _pairs_hook(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        dup = next(k for k, _ in pairs if k in seen or seen.add(k))  # type: ignore[func-returns-value]
        marked = _DuplicateKeyDict(out)
        marked.duplicate = dup
        return marked
    return out


def _parse_constant(name: str) -> _Rejected:
    return _Rejected(f"{name} is not allowed (JSON has no NaN or Infinity)")


def _parse_float(text: str) -> float | _Rejected:
    value = float(text)
    if math.isinf(value):
        return _Rejected(f"number {text} is too large (overflows to infinity)")
    return value


def _parse_int(text: str) -> int | _Rejected:
    # CPython refuses to convert integers longer than this (CVE-2020-10735); 0 means no limit
    limit = getattr(sys, "get_int_max_str_digits", lambda: 0)()
    digits = len(text) - (text[0] == "-")
    if limit and digits > limit:
        return _Rejected(f"integer of {digits:,} digits is too long (the limit is {limit:,})")
    return int(text)


def _path_of(node: tuple[Any, ...] | None) -> str:
    parts: list[str | int] = []
    while node is not None:
        node, key = node
        parts.append(key)
    parts.reverse()
    return json_path(parts)


def _walk(value: Any, source: str | None, max_depth: int) -> None:
    # Iterative depth-first walk; `node` is a linked list (parent, key) so paths cost nothing
    # until an error is found.
    stack: list[tuple[Any, tuple[Any, ...] | None, int]] = [(value, None, 0)]
    while stack:
        item, node, depth = stack.pop()
        if isinstance(item, dict):
            if depth >= max_depth:
                raise InputError(
                    f"nested deeper than {max_depth} levels", source=source, path=_path_of(node)
                )
            if isinstance(item, _DuplicateKeyDict):
                raise InputError(
                    f"duplicate key {json.dumps(item.duplicate, ensure_ascii=False)}", source=source, path=_path_of(node)
                )
            for key, child in item.items():
                if has_lone_surrogate(key):
                    raise InputError("key holds a lone surrogate", source=source, path=_path_of(node))
                stack.append((child, (node, key), depth + 1))
        elif isinstance(item, list):
            if depth >= max_depth:
                raise InputError(
                    f"nested deeper than {max_depth} levels", source=source, path=_path_of(node)
                )
            for index, child in enumerate(item):
                stack.append((child, (node, index), depth + 1))
        elif isinstance(item, _Rejected):
            raise InputError(item.reason, source=source, path=_path_of(node))
        elif isinstance(item, str) and has_lone_surrogate(item):
            raise InputError(
                "string holds a lone UTF-16 surrogate (not Unicode text)",
                source=source,
                path=_path_of(node),
            )


_JSON_WHITESPACE = " \t\n\r"


def _position(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    column = pos - (text.rfind("\n", 0, pos) + 1) + 1
    return f"(line {line}, column {column})"


def _trailing_comma(text: str, pos: int) -> tuple[int, str] | None:
    """Where a comma right before ``]`` or ``}`` is, near a parse error at ``pos``, and the closer.

    Python's parser reports the closer (``Expecting value``) or, in newer versions, the comma
    itself (``Illegal trailing comma``); both are recognised.
    """
    if pos < len(text) and text[pos] == ",":
        after = pos + 1
        while after < len(text) and text[after] in _JSON_WHITESPACE:
            after += 1
        if after < len(text) and text[after] in "]}":
            return pos, text[after]
        return None
    if pos < len(text) and text[pos] in "]}":
        before = pos - 1
        while before >= 0 and text[before] in _JSON_WHITESPACE:
            before -= 1
        if before >= 0 and text[before] == ",":
            return before, text[pos]
    return None


def _explain(exc: json.JSONDecodeError) -> str:
    """The parser's message, or a plainer one for the two mistakes people make most."""
    text, pos = exc.doc, exc.pos
    comma = _trailing_comma(text, pos)
    if comma is not None:
        at, closer = comma
        return f'trailing comma before "{closer}" {_position(text, at)}'
    if pos < len(text) and text[pos] == "'":
        what = "property name" if exc.msg.startswith("Expecting property name") else "string"
        return f"{what} in single quotes; JSON needs double quotes {_position(text, pos)}"
    return f"{exc.msg} (line {exc.lineno}, column {exc.colno})"


_STRICT_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs_hook, parse_constant=_parse_constant, parse_float=_parse_float
)
# the same with an integer hook, used only once a decode raised the integer-length ValueError:
# a Python call per integer costs ~4x on integer-heavy documents, so the common case skips it
_LONG_INT_DECODER = json.JSONDecoder(
    object_pairs_hook=_pairs_hook, parse_constant=_parse_constant, parse_float=_parse_float,
    parse_int=_parse_int,
)


def _raw_decode(text: str, index: int = 0) -> tuple[Any, int]:
    """``_STRICT_DECODER.raw_decode``; an integer too long to convert becomes a ``_Rejected``
    marker (found by ``_walk`` with its path) instead of a bare ``ValueError``."""
    try:
        return _STRICT_DECODER.raw_decode(text, index)
    except json.JSONDecodeError:
        raise
    except ValueError:  # "Exceeds the limit (4300 digits) for integer string conversion"
        return _LONG_INT_DECODER.raw_decode(text, index)


def _decode(text: str) -> Any:
    """``_STRICT_DECODER.decode``, long integers marked as ``_raw_decode`` does."""
    try:
        return _STRICT_DECODER.decode(text)
    except json.JSONDecodeError:
        raise
    except ValueError:
        return _LONG_INT_DECODER.decode(text)


def _decode_utf8(raw: bytes, source: str | None) -> str:
    """Strict UTF-8 decoding; a leading byte-order mark is dropped (offsets count it). Bytes
    that are not UTF-8 and start with a UTF-16 or UTF-32 byte-order mark are named as such."""
    skip = len(UTF8_BOM) if raw.startswith(UTF8_BOM) else 0
    try:
        return raw[skip:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(_not_utf8(raw, exc.start + skip), source=source, path="$") from None


def _not_utf8(raw: bytes, offset: int) -> str:
    """``"not valid UTF-8 (byte 7)"``, or for a file that starts with a UTF-16/UTF-32
    byte-order mark ``"not valid UTF-8: the file is UTF-16 (little-endian: it starts with the
    byte-order mark FF FE); save it as UTF-8"``."""
    for mark, encoding, order in OTHER_BOMS:
        if raw.startswith(mark):
            return (f"not valid UTF-8: the file is {encoding} ({order}: it starts with the "
                    f"byte-order mark {mark.hex(' ').upper()}); save it as UTF-8")
    return f"not valid UTF-8 (byte {offset})"


def decode_text(raw: bytes, *, source: str | None = None, lenient: bool = False) -> str:
    """The text of a user's file: UTF-8 with a leading byte-order mark (U+FEFF, as Excel and
    Windows editors write) dropped. Every text input aau reads (JSON, JSON Lines, CSV, YAML,
    Markdown, TOML) is decoded here or by ``read_text_file``, so a BOM never becomes part of a
    first key, column name or heading.

    Args:
        raw: the file's bytes.
        source: label for error messages (the file name).
        lenient: replace undecodable bytes with U+FFFD instead of refusing them (for readers
            that only look for words, such as a lab's README).

    Returns:
        the decoded text, without the BOM.

    Raises:
        InputError: not strict UTF-8 (``lenient`` false); the message names the byte offset,
            or the encoding when the bytes start with a UTF-16 or UTF-32 byte-order mark
            (``FF FE``, ``FE FF``, ``FF FE 00 00``, ``00 00 FE FF``).
    """
    if lenient:
        return raw.decode("utf-8-sig", errors="replace")
    return _decode_utf8(raw, source)


def strip_bom(text: str) -> str:
    """``text`` without a leading U+FEFF (text decoded by someone else, such as a CSV row's
    first column name read by ``csv.DictReader`` from a file opened as ``utf-8``)."""
    return text[1:] if text.startswith("\ufeff") else text


def loads_strict(
    data: bytes | str, *, source: str | None = None, max_depth: int = DEFAULT_MAX_DEPTH
) -> Any:
    """Parse one JSON document under the strict rules in this module's docstring.

    Args:
        data: UTF-8 bytes (a BOM is dropped) or already-decoded text.
        source: label for error messages (a file name, ``"adapter response"``), or ``None``.
        max_depth: most nested containers allowed (the root object counts as depth 1).

    Returns:
        the parsed value (dicts, lists, str, int, float, bool, None).

    Raises:
        InputError: invalid UTF-8, invalid JSON (with line and column), or a rule above broken
            (with the JSON path of the offending value).
    """
    if isinstance(data, (bytes, bytearray, memoryview)):
        text = _decode_utf8(bytes(data), source)
    else:
        text = strip_bom(data)
    value = loads_marked(text, source=source, max_depth=max_depth)
    _walk(value, source, max_depth)
    return value


def loads_marked(text: str, *, source: str | None = None, max_depth: int = DEFAULT_MAX_DEPTH) -> Any:
    """Parse ``text`` as JSON *without* the rules' checks: a forbidden value stays in the result
    as a marker that ``check_value`` refuses. For a caller that judges parts of one document
    separately (the Anthropic backend: each tool input on its own).

    Raises:
        InputError: invalid JSON (line and column), or nesting past Python's recursion limit.
    """
    try:
        return _decode(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"invalid JSON: {_explain(exc)}", source=source, path="$") from None
    except RecursionError:
        raise InputError(
            f"nested deeper than {max_depth} levels", source=source, path="$"
        ) from None


def check_value(value: Any, *, source: str | None = None, max_depth: int = DEFAULT_MAX_DEPTH) -> None:
    """Refuse a value from ``loads_marked`` (or a part of one) that breaks a rule.

    Raises:
        InputError: the first broken rule, with the JSON path relative to ``value``.
    """
    _walk(value, source, max_depth)


def raw_decode_strict(
    text: str, index: int = 0, *, source: str | None = None, max_depth: int = DEFAULT_MAX_DEPTH
) -> tuple[Any, int]:
    """Decode the one JSON value that starts at ``text[index]`` under this module's rules.

    The scanning form of ``loads_strict`` (``json.JSONDecoder.raw_decode``): whatever follows the
    value is left for the caller. No whitespace is skipped before the value.

    Args:
        text: decoded text.
        index: where the value starts (0-based character offset).
        source: label for error messages, or ``None``.
        max_depth: as ``loads_strict``.

    Returns:
        ``(value, end)``: the value and the offset just after it.

    Raises:
        InputError: no JSON value at ``index`` (the message names the character offset), or a
            rule broken (with the JSON path of the offending value).
    """
    try:
        value, end = _raw_decode(text, index)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"not JSON at character {exc.pos} ({exc.msg})", source=source, path="$"
        ) from None
    except RecursionError:
        raise InputError(
            f"nested deeper than {max_depth} levels", source=source, path="$"
        ) from None
    _walk(value, source, max_depth)
    return value, end


def read_text_file(path: str | os.PathLike[str], *, max_bytes: int) -> str:
    """Read a user's text file (``decode_text``: strict UTF-8, a leading BOM dropped).

    Args:
        path: the file.
        max_bytes: largest accepted size in bytes (larger files are rejected unread).

    Returns:
        the text.

    Raises:
        InputError: missing, not a regular file, unreadable, too large, or not UTF-8.
    """
    p = Path(path)
    source = str(path)
    try:
        st = p.stat()
    except FileNotFoundError:
        raise InputError("no such file", source=source) from None
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from None
    if not p.is_file():
        raise InputError("not a regular file", source=source)
    if st.st_size > max_bytes:
        raise InputError(
            f"file is {st.st_size:,} bytes, over the {max_bytes:,}-byte limit", source=source
        )
    try:
        with p.open("rb") as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from None
    if len(raw) > max_bytes:
        raise InputError(f"file is over the {max_bytes:,}-byte limit", source=source)
    return _decode_utf8(raw, source)


def read_json_file(
    path: str | os.PathLike[str],
    *,
    max_bytes: int,
    max_depth: int = DEFAULT_MAX_DEPTH,
) -> Any:
    """Read and strictly parse a JSON file (read by ``read_text_file``).

    Args:
        path: the file.
        max_bytes: largest accepted size in bytes (larger files are rejected unread).
        max_depth: as ``loads_strict``.

    Returns:
        the parsed value.

    Raises:
        InputError: missing, not a regular file, unreadable, too large, or invalid JSON.
    """
    text = read_text_file(path, max_bytes=max_bytes)
    return loads_strict(text, source=str(path), max_depth=max_depth)
