"""A schema's ``pattern`` said in words, so a violation message never shows a raw regex.

``pattern_in_words("^[a-f0-9]{12,64}$")`` is ``'12 to 64 lower-case hexadecimal characters'``.
The pattern is parsed by the standard library's own regular-expression parser (``re._parser``;
``sre_parse`` before Python 3.11), the parser ``re.compile`` uses, so what is said is what the
pattern means; nothing here re-implements regex syntax. A parsed pattern is read back as a
sequence: characters in a row become one quoted string, a character set becomes its ranges
("lower-case letters, digits or "-"), a repeat its count ("0 to 61 ..."), an alternation "one of
A | B". The anchors, and the ``(?!\\n)`` guard aau's schemas end with (a ``$`` would otherwise
accept a trailing newline), say nothing. A construct this reader does not know (a back
reference, a look-behind, ...) makes the result ``None``: the caller then shows the pattern.
"""

from __future__ import annotations

import json
from typing import Any

try:  # the parser ``re`` itself uses (a private module of the standard library)
    import re._constants as _c  # type: ignore[import-not-found]
    import re._parser as _p  # type: ignore[import-not-found]
except ImportError:  # Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

_RANGES = {("a", "z"): "lower-case letters", ("A", "Z"): "capital letters", ("0", "9"): "digits"}
_CATEGORIES = {_c.CATEGORY_DIGIT: "digits", _c.CATEGORY_SPACE: "whitespace",
               _c.CATEGORY_WORD: "letters, digits or _"}
_HEX = {("a", "f"), ("0", "9")}
# the characters Python's str.isspace() and JSON Schema's \s cover, as aau's schemas list them
_WHITESPACE = {9, 10, 11, 12, 13, 32, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000,
               *range(0x1C, 0x20), *range(0x2000, 0x200B)}
_DATE = "a date YYYY-MM-DD"
_DATE_TIME = "an RFC 3339 date-time such as 2026-01-31T12:00:00Z"


class _Unknown(Exception):
    """A construct this module does not say in words."""


def pattern_in_words(pattern: str) -> str | None:
    """The rule ``pattern`` (a JSON Schema ``pattern``, Python ``re`` syntax) stands for, as a
    noun phrase that follows "is not": ``"text of: "id-", then one or more digits"``.

    Args:
        pattern: the regular expression.

    Returns:
        the phrase, or ``None`` when the pattern does not parse or uses a construct this reader
        does not know (the caller then shows the pattern itself).
    """
    if "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]" in pattern and pattern.startswith("^[0-9]{4}-"):
        return _DATE_TIME
    if pattern.startswith(("^[0-9]{4}-[0-9]{2}-[0-9]{2}$", "^20[0-9]{2}-(?:0[1-9]|1[0-2])-")):
        return _DATE
    try:
        tokens = list(_p.parse(pattern))
        anchored = tokens[:1] == [(_c.AT, _c.AT_BEGINNING)]
        ends = any(t == (_c.AT, _c.AT_END) for t in tokens)
        words = _sequence(tokens)
    except (_Unknown, _c.error, ValueError, TypeError, IndexError, AttributeError):
        return None
    if not words:
        return None
    if not anchored:
        return f"text containing: {words}"
    if not ends:
        return f"text starting with: {words}"
    return words if ", then" not in words else f"text of: {words}"


def _char(code: int) -> str:
    return chr(code)


def _quoted(text: str) -> str:
    return json.dumps(text)  # a JSON literal: control characters escaped, as every message does


def _set(items: list[tuple[Any, Any]]) -> str:
    negate = bool(items) and items[0][0] is _c.NEGATE
    parts: list[str] = []
    ranges = set()
    listed = items[1:] if negate else items
    codes = {av for op, av in listed if op is _c.LITERAL}
    codes |= {c for op, av in listed if op is _c.RANGE for c in range(av[0], av[1] + 1)}
    if {9, 10, 13, 32} <= codes:  # a whitespace list: say so, keep what else it holds
        parts.append("whitespace")
        listed = [(op, av) for op, av in listed
                  if not (op is _c.LITERAL and av in _WHITESPACE)
                  and not (op is _c.RANGE and set(range(av[0], av[1] + 1)) <= _WHITESPACE)]
    for op, av in listed:
        if op is _c.LITERAL:
            parts.append(_quoted(_char(av)))
        elif op is _c.RANGE:
            low, high = _char(av[0]), _char(av[1])
            ranges.add((low, high))
            parts.append(_RANGES.get((low, high), f"{low} to {high}" if low.isalnum()
                                     and high.isalnum() else
                                     f"{_quoted(low)} to {_quoted(high)}"))
        elif op is _c.CATEGORY and av in _CATEGORIES:
            parts.append(_CATEGORIES[av])
        else:
            raise _Unknown(op)
    if not negate and ranges == _HEX and len(parts) == 2:
        text = "lower-case hexadecimal characters"
    elif len(parts) == 1:
        text = parts[0]
    else:
        text = ", ".join(parts[:-1]) + " or " + parts[-1]
    if negate:
        return f"characters other than {text}"
    return text


def _count(low: int, high: int) -> str:
    if high == _c.MAXREPEAT:
        return {0: "any number of", 1: "one or more"}.get(low, f"{low} or more")
    if low == high:
        return str(low)
    return f"{low} to {high}"


def _repeat(what: str, plural: bool, low: int, high: int) -> str:
    """A repeated token: ``0 to 61 digits`` for a character class (``plural``), else
    ``"-x" 2 times``; ``optionally ...`` for ``?``."""
    if (low, high) == (0, 1):
        return f"optionally one of {what}" if plural else f"optionally {what}"
    count = _count(low, high)
    if plural:
        return f"{count} {what}"
    times = {"any number of": "any number of times", "one or more": "one or more times",
             "1": "once"}.get(count, f"{count} times")
    return f"{what} {times}"


def _item(op: Any, av: Any) -> tuple[str, bool]:
    """(words, is_plural_class) of one token that is not a literal."""
    if op is _c.IN:
        return _set(av), True
    if op is _c.ANY:
        return "any characters", True
    if op is _c.CATEGORY and av in _CATEGORIES:
        return _CATEGORIES[av], True
    if op is _c.NOT_LITERAL:
        return f"characters other than {_quoted(_char(av))}", True
    if op is _c.SUBPATTERN:
        return _group(av[-1]), False
    if op is _c.BRANCH:
        return _branch(av[1]), False
    raise _Unknown(op)


def _group(sub: Any) -> str:
    tokens = list(sub)
    if len(tokens) == 1 and tokens[0][0] is _c.BRANCH:
        return _branch(tokens[0][1][1])
    return f"({_sequence(tokens)})"


def _branch(alternatives: Any) -> str:
    said = [_sequence(list(sub)) for sub in alternatives]
    return "one of " + " | ".join(f"({w})" if ", then" in w else w for w in said)


def _sequence(tokens: list[tuple[Any, Any]]) -> str:
    pieces: list[str] = []
    literal = ""
    for index, (op, av) in enumerate(tokens):
        if op is _c.LITERAL:
            literal += _char(av)
            continue
        if literal:
            pieces.append(_quoted(literal))
            literal = ""
        if op is _c.AT:
            continue  # ^ and $
        if op is _c.ASSERT_NOT and index == len(tokens) - 1:
            continue  # the trailing (?!\n) guard
        if op in (_c.MAX_REPEAT, _c.MIN_REPEAT):
            low, high, sub = av
            inner = list(sub)
            if len(inner) == 1 and inner[0][0] is _c.LITERAL:
                what, plural = _quoted(_char(inner[0][1])), False
            elif len(inner) == 1:
                what, plural = _item(*inner[0])
            else:
                what, plural = f"({_sequence(inner)})", False
            pieces.append(_repeat(what, plural, low, high))
            continue
        what, plural = _item(op, av)
        pieces.append(f"one of {what}" if plural and op is not _c.ANY else what)
    if literal:
        pieces.append(_quoted(literal))
    return ", then ".join(pieces)
