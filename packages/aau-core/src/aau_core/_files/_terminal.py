"""Text made safe for a terminal: what a document says is shown, never obeyed.

A document's text (a catalog title, a scenario id, a gallery summary, a file name, a value in
an error line) printed as is can drive the terminal: ``ESC ] 0 ; ... BEL`` sets the window
title, ``ESC [ 2 J`` clears the screen, ``CR`` and cursor moves overwrite a line already shown,
and the bidi overrides U+202A-U+202E / U+2066-U+2069 reorder what is displayed.
``terminal_text`` replaces each such character by its visible escape (``\\u001b``,
``\\u202e``): every C0 control except ``\\n`` and ``\\t``, DEL, every C1 control (U+0080-U+009F)
and the bidi embedding, override and isolate characters.

``terminal_safe_streams`` applies it to everything written to ``sys.stdout`` and
``sys.stderr`` while a command runs (``aau_core.run`` uses it), so every human line of every
command is covered, including error lines quoting a document. JSON output is unchanged in
meaning: JSON escapes C0 controls itself, and a C1 or bidi character inside a JSON string
becomes its ``\\uXXXX`` escape, which denotes the same string. rich, which draws its own
progress bars and colours, writes through unchanged: text handed to rich must be passed
through ``terminal_text`` first.
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterable, Iterator
from typing import Any, TextIO

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def _escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"  # also a valid JSON escape of the same character


def terminal_text(text: str) -> str:
    """``text`` with every character that could control a terminal replaced by its visible
    escape (``"\\u001b"``, ``"\\u0007"``, ``"\\u202e"``; inside a JSON string the same
    character); ``\\n`` and ``\\t`` are kept.

    Args:
        text: any text, typically read from a document.

    Returns:
        The same text when it holds no such character (the common case, no copy made).
    """
    return _UNSAFE.sub(_escape, text) if _UNSAFE.search(text) else text


class TerminalSafeStream:
    """A text stream that writes ``terminal_text`` of what it is given to ``stream``.

    Writes made by rich (its own progress bars and colours) pass unchanged. ``buffer`` is not
    offered, so nothing bypasses the stream by writing bytes.
    """

    color = None
    """Present so that click does not strip ANSI sequences from what ``click.echo`` writes here
    when the stream is not a terminal (``click._compat.should_strip_ansi`` leaves a stream with
    a ``color`` attribute alone): stripped, ``c1\x1b[31m`` would print as ``c1``, the same as
    another id; here it prints as ``c1\u001b[31m`` on a terminal and in a pipe alike."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``terminal_text(text)`` (rich's own writes as given)."""
        if isinstance(text, str) and not _from_rich():
            text = terminal_text(text)
        return self.stream.write(text)

    def writelines(self, lines: Iterable[str]) -> None:
        """Write each line as ``write`` does."""
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        if name == "buffer":
            raise AttributeError(name)
        return getattr(self.stream, name)


def _from_rich() -> bool:
    """True when the caller of ``write`` is rich (its console writes rendered output)."""
    try:
        frame = sys._getframe(2)
    except ValueError:  # called from the outermost frame
        return False
    return str(frame.f_globals.get("__name__", "")).startswith("rich.")


@contextlib.contextmanager
def terminal_safe_streams() -> Iterator[None]:
    """Within the block, ``sys.stdout`` and ``sys.stderr`` are ``TerminalSafeStream`` s.

    Streams already wrapped are left alone; on exit each is put back only if the block did not
    replace it meanwhile (click swaps ``sys.stdout`` when a pipe closes early).
    """
    saved = {}
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is not None and not isinstance(stream, TerminalSafeStream):
            wrapped = TerminalSafeStream(stream)
            setattr(sys, name, wrapped)
            saved[name] = (stream, wrapped)
    try:
        yield
    finally:
        for name, (stream, wrapped) in saved.items():
            if getattr(sys, name) is wrapped:
                setattr(sys, name, stream)
