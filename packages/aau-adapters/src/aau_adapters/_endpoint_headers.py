"""The request headers an endpoint adapter adds (``aau evaluate --endpoint URL --header
'NAME: VALUE'``).

A hosted agent usually sits behind a credential (``Authorization: Bearer ...``, ``X-Api-Key``).
``--header`` sends one on every request, retries included. The rules, in the order they are
checked (each broken rule is a ``UsageError``, exit 2, one line):

1. **Shape** (``parse_headers``): ``NAME: VALUE``, split at the first ``:``.
2. **Name** (``check_headers``; every name before any value is expanded): an HTTP token
   (RFC 9110 §5.6.2: letters, digits and ``!#$%&'*+-.^_`|~``), not a reserved name
   (``RESERVED_HEADERS``, case-insensitive), and not given twice (case-insensitive).
3. **Expansion** (``parse_headers``): each ``${NAME}`` in VALUE, NAME matching
   ``[A-Za-z_][A-Za-z0-9_]*``, is replaced by that variable of aau's own environment, in one pass
   (a variable's value is not expanded again). Any other ``$`` is literal (``$HOME``, ``$5``,
   ``${1}``, a lone ``${``). A variable that is unset, or set but empty (what a CI system gives
   for a secret it does not have), is refused, naming the header and the variable. So a secret
   stays out of argv and shell history: ``--header 'Authorization: Bearer ${AGENT_TOKEN}'``.
4. **Value** (``check_headers``): leading and trailing spaces and tabs are stripped (RFC 9110
   §5.5); what remains is visible ASCII, spaces and tabs only. CR, LF and NUL are refused (they
   would inject headers or end the request early), and so is every other control character and
   any non-ASCII character (RFC 9110 leaves non-ASCII field values undefined; encode it first).

Header values are never written anywhere: no error message here (or anywhere in aau) shows one,
the receipts, checkpoint, run store and ``--json`` summary hold none, and they are not part of a
checkpoint's adapter binding (a token that rotated between a run and its ``--resume`` is the
same agent), as a command adapter's environment variables are not. Names may be shown, and the
binding holds them (``_evaluation_checkpoint.binding_adapter``): a resume without its
``--header`` is refused rather than scored on 401s.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType

from aau_core import UsageError

RESERVED_HEADERS: Mapping[str, str] = MappingProxyType({
    "host": "aau sets it from the --endpoint URL",
    "content-length": "aau sets it from the body",
    "content-type": "aau sends application/json",
    "content-encoding": "aau sends the body uncompressed",
    "transfer-encoding": "it would change how the body is framed",
    "connection": "aau manages its pooled connections",
    "keep-alive": "aau manages its pooled connections",
    "te": "it is a connection option aau does not negotiate",
    "trailer": "aau sends no trailer fields",
    "upgrade": "aau speaks HTTP/1.1 only",
    "expect": "aau sends the body at once, without waiting for 100 Continue",
    "accept-encoding": "aau never inflates a compressed answer (it would not be JSON)",
})
"""Header names ``--header`` refuses (lower-case) -> why, as the refusal says it: the names aau
sets itself, those that would change the request's framing or the connection, and the content
codings aau does not apply."""

_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_CONTROL_NAMES = {"\r": "a carriage return (CR)", "\n": "a line feed (LF)", "\0": "a NUL"}


def parse_headers(options: Iterable[str],
                  environ: Mapping[str, str] | None = None) -> tuple[tuple[str, str], ...]:
    """Parse ``--header 'NAME: VALUE'`` options into checked ``(name, value)`` pairs.

    Every name is checked before any ``${NAME}`` is expanded, so a reserved or repeated name is
    said as such even when its value names an unset variable.

    Args:
        options: the option texts, in the order given (``"Authorization: Bearer ${TOKEN}"``).
        environ: the variables ``${NAME}`` is expanded from (default: ``os.environ``).

    Returns:
        ``((name, value), ...)`` in the order given: the name as written, the value expanded
        and stripped (``check_headers``).

    Raises:
        aau_core.UsageError: ``options`` is one string; an option that is not a string or
            has no ``:`` (its text is not shown: it may be a secret pasted without its name);
            a name ``check_headers`` refuses; a ``${NAME}`` whose variable is unset or empty
            (header and variable named); a value ``check_headers`` refuses.
    """
    if isinstance(options, (str, bytes)):
        raise UsageError("headers must be a sequence of 'NAME: VALUE' strings, not one "
                         f"{type(options).__name__}")
    env = os.environ if environ is None else environ
    split = []
    for number, option in enumerate(options, 1):
        if not isinstance(option, str):
            raise UsageError(f"--header #{number} must be a string 'NAME: VALUE', not "
                             f"{type(option).__name__}")
        name, colon, value = option.partition(":")
        if not colon:
            raise UsageError(f"--header #{number} is not 'NAME: VALUE' (no ':'; its text is not "
                             "shown, since it may hold a secret)")
        split.append((name, value))
    _check_names(name for name, _ in split)

    def expanded(name: str, value: str) -> str:
        def variable(found: re.Match[str]) -> str:
            key = found.group(1)
            if key not in env:
                raise UsageError(f"--header {name}: ${{{key}}} is not set in aau's environment")
            if not env[key]:
                raise UsageError(f"--header {name}: ${{{key}}} is set but empty")
            return env[key]

        return _VARIABLE.sub(variable, value)

    return check_headers([(name, expanded(name, value)) for name, value in split])


def check_headers(headers: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Check ``(name, value)`` header pairs (no expansion: see ``parse_headers``).

    Args:
        headers: ``(name, value)`` pairs of strings, in the order they are to be sent.

    Returns:
        ``((name, value), ...)``: the names as given, each value stripped of leading and
        trailing spaces and tabs.

    Raises:
        aau_core.UsageError: ``headers`` is a string or a mapping, or holds something other
            than a pair of strings; a name that is not an HTTP token (RFC 9110 §5.6.2), is
            reserved (``RESERVED_HEADERS``) or repeats an earlier one (case-insensitive); a
            value holding CR, LF, NUL, another control character or a non-ASCII character. The
            message names the header and the character's position, never the value.
    """
    if isinstance(headers, (str, bytes, Mapping)):
        raise UsageError("headers must be a sequence of (name, value) pairs, not "
                         f"{type(headers).__name__}")
    pairs = list(headers)
    for number, pair in enumerate(pairs, 1):
        if not (isinstance(pair, tuple) and len(pair) == 2
                and all(isinstance(part, str) for part in pair)):
            raise UsageError(f"header #{number} must be a (name, value) pair of strings")
    _check_names(name for name, _ in pairs)
    checked = tuple((name, value.strip(" \t")) for name, value in pairs)
    for name, value in checked:
        _check_value(name, value)
    return checked


def _check_names(names: Iterable[str]) -> None:
    """Refuse a name that is not a token, is reserved or repeats an earlier one."""
    seen: dict[str, str] = {}
    for number, name in enumerate(names, 1):
        if not name:
            raise UsageError(f"--header #{number} has no name before ':' (give 'NAME: VALUE')")
        if not _TOKEN.fullmatch(name):
            bad = next(i for i, c in enumerate(name, 1) if not _TOKEN.fullmatch(c))
            raise UsageError(f"--header #{number}: the name before ':' is not an HTTP token "
                             f"(its character {bad} is not allowed, and the name is not shown "
                             "since it may be a pasted secret; RFC 9110 §5.6.2 allows "
                             "letters, digits and !#$%&'*+-.^_`|~, and no space before ':')")
        folded = name.lower()
        if folded in RESERVED_HEADERS:
            raise UsageError(f"--header {name}: this header cannot be set "
                             f"({RESERVED_HEADERS[folded]})")
        if folded in seen:
            raise UsageError(f"--header {name}: given twice (also as {seen[folded]}); "
                             "send one value")
        seen[folded] = name


def _check_value(name: str, value: str) -> None:
    """Refuse a value with a character outside visible ASCII, space and tab (never shown)."""
    for position, char in enumerate(value, 1):
        if char == "\t" or " " <= char <= "~":
            continue
        if char in _CONTROL_NAMES:
            what, why = _CONTROL_NAMES[char], "; it would inject a header or end the request"
        elif char < " " or char == "\x7f":
            what, why = f"the control character U+{ord(char):04X}", ""
        else:
            what, why = "a non-ASCII character", "; encode it first"
        raise UsageError(f"--header {name}: the value (after ${{VAR}} expansion) holds {what} at "
                         f"character {position}{why} (the value is not shown)")
