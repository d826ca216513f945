"""What a model judge is asked and how its reply becomes a label (``aau review judge``).

The prompt is a text file sent as the system prompt: ``judge_prompt.md``, shipped with the
package, unless ``--prompt FILE`` replaces it; the labels record the SHA-256 of its exact bytes.
Each unit is one user message, ``judge_message``: a JSON object (sorted keys, 2-space indent) with
``unit`` (the unit's ``input``, ``response`` and ``error`` as tasks.json has them, and its
``expected`` in an unblinded pack; never the automatic verdicts, never the unit's ids), the
``verdicts`` and the pack's ``categories`` (``id`` and ``description``).

A reply is read by ``parse_reply``, in this order; any rule broken makes it a ``ReplyError``
(a judge error, never a label; no verdict is ever guessed):

1. its text blocks joined (thinking blocks and tool calls are not the answer);
2. a reply that is exactly one fenced block (```` ```json ... ``` ````, or a bare fence, with
   only whitespace around it) is unwrapped; any other text around the JSON is refused;
3. the text is decoded by aau's strict model-side decoder (``aau_core._files._model_json``:
   no NaN or infinities, no duplicate key, no text after the value);
4. the value is an object with ``verdict`` (``pass``, ``fail`` or ``unsure``), ``categories``
   (a list of distinct ids of the pack's taxonomy; absent means none) and optionally ``note``
   (a string of at most 500 characters; empty or blank means no note), and no other key;
5. a ``pass`` names no failure category (a pass with a failure is a contradiction, not a label).
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import attrs
from aau_core import InputError, UsageError
from aau_core._files._model_json import (  # internal to the monorepo
    ModelJsonError,
    decode_model_json,
)
from aau_schemas import sha256_hex

from ._models import Taxonomy, Unit
from ._protocol import VERDICTS, pass_contradiction

DEFAULT_PROMPT = "judge_prompt.md"
"""The default prompt's file name inside the ``aau_review`` package."""
MAX_PROMPT_BYTES = 200_000
MAX_NOTE_CHARS = 500
_KEYS = ("verdict", "categories", "note")
_FENCE = re.compile(r"\A\s*```[A-Za-z]*[ \t]*\n(.*?)\n?[ \t]*```\s*\Z", re.DOTALL)


class ReplyError(ValueError):
    """A judge's reply that is not a label; ``reason`` is one line saying why."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


@attrs.frozen
class JudgePrompt:
    """The judge's system prompt: its ``text``, the SHA-256 of its bytes and where it came from
    (the file given, or ``aau_review/judge_prompt.md``)."""

    text: str
    sha256: str
    source: str


@attrs.frozen
class JudgeVerdict:
    """A reply read as a label: verdict, category ids (tuple), note or ``None``."""

    verdict: str
    categories: tuple[str, ...]
    note: str | None


def read_prompt(path: str | Path | None = None) -> JudgePrompt:
    """Read the judge's prompt: ``path``, or the default prompt shipped with the package.

    Args:
        path: a UTF-8 text file (at most 200,000 bytes), or ``None`` for the default.

    Returns:
        a ``JudgePrompt``; ``sha256`` is of the file's exact bytes.

    Raises:
        UsageError: the file cannot be read.
        InputError: it is empty, too large or not UTF-8 text.
    """
    if path is None:
        data = resources.files("aau_review").joinpath(DEFAULT_PROMPT).read_bytes()
        source = f"aau_review/{DEFAULT_PROMPT}"
    else:
        source = str(path)
        try:
            with open(path, "rb") as fh:
                data = fh.read(MAX_PROMPT_BYTES + 1)
        except OSError as exc:
            raise UsageError(f"--prompt {path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > MAX_PROMPT_BYTES:
        raise InputError(f"the prompt is larger than {MAX_PROMPT_BYTES} bytes", source=source)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InputError("the prompt is not UTF-8 text", source=source) from None
    if not text.strip():
        raise InputError("the prompt is empty", source=source)
    return JudgePrompt(text=text, sha256=sha256_hex(data), source=source)


def judge_message(unit: Unit, taxonomy: Taxonomy) -> str:
    """The user message that asks the judge about ``unit`` (module docstring for its shape)."""
    shown: dict[str, Any] = {"input": unit.input, "response": unit.response, "error": unit.error}
    if unit.expected is not None:
        shown["expected"] = unit.expected
    doc = {"unit": shown, "verdicts": list(taxonomy.verdicts),
           "categories": [{"id": c.id, "description": c.description}
                          for c in taxonomy.categories]}
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=False)


def _field(block: Any, name: str) -> Any:
    return block.get(name) if isinstance(block, dict) else getattr(block, name, None)


def reply_text(response: Any) -> str:
    """The text of a backend's answer: its ``text`` blocks joined, in order (``""`` for none)."""
    blocks = _field(response, "content") or []
    return "".join(str(_field(b, "text") or "") for b in blocks if _field(b, "type") == "text")


def _shown(text: str) -> str:
    return repr(text if len(text) <= 60 else text[:60] + "...")


def parse_reply(text: str, taxonomy: Taxonomy) -> JudgeVerdict:
    """Read a judge's reply as a label (module docstring, rules 2-5).

    Args:
        text: the reply's text (``reply_text``).
        taxonomy: the pack's taxonomy (the category ids allowed).

    Returns:
        a ``JudgeVerdict``.

    Raises:
        ReplyError: the reply is not a label; ``reason`` says why, e.g.
            ``not JSON: duplicate key "verdict"`` or ``verdict 'maybe' is not one of pass,
            fail, unsure``.
    """
    fenced = _FENCE.match(text)
    body = fenced.group(1) if fenced else text
    try:
        value = decode_model_json(body).value
    except ModelJsonError as exc:
        why = exc.reason if exc.reason.startswith("not JSON") else f"not JSON: {exc.reason}"
        raise ReplyError(f"{why} (reply {_shown(text.strip())})") from None
    if not isinstance(value, dict):
        raise ReplyError(f"not a JSON object (reply {_shown(text.strip())})")
    extra = sorted(set(value) - set(_KEYS))
    if extra:
        raise ReplyError(f"unknown key(s) {', '.join(map(repr, extra))}; a reply has verdict, "
                         "categories and note")
    verdict = value.get("verdict")
    if verdict not in VERDICTS:
        raise ReplyError(f"verdict {verdict!r} is not one of {', '.join(VERDICTS)}"
                         if "verdict" in value else "no verdict")
    categories = value.get("categories", [])
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise ReplyError("categories is not a list of category ids")
    if len(set(categories)) != len(categories):
        raise ReplyError("a category is named twice")
    declared = {c.id for c in taxonomy.categories}
    unknown = [c for c in categories if c not in declared]
    if unknown:
        raise ReplyError(f"category {unknown[0]!r} is not in the pack's taxonomy "
                         f"({', '.join(sorted(declared)) or 'none declared'})")
    contradiction = pass_contradiction(verdict, categories)
    if contradiction:
        raise ReplyError(contradiction)
    note = value.get("note")
    if note is not None and not isinstance(note, str):
        raise ReplyError("note is not a string")
    note = note.strip() if note else None
    if note and len(note) > MAX_NOTE_CHARS:
        raise ReplyError(f"note is longer than {MAX_NOTE_CHARS} characters ({len(note)})")
    return JudgeVerdict(verdict=verdict, categories=tuple(categories), note=note or None)
