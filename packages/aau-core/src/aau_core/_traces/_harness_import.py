"""``aau trace import``: turn a PraisonAI ``InteractiveTestHarness`` output folder into a trace.

The harness (praisonai ``test interactive``) writes one folder per scenario run::

    transcript.txt        the conversation, as text
    tool_trace.jsonl      one JSON object per tool call, in call order
    result.json           the run's result object
    judge_result.json     {"score", "passed", "reasoning", "threshold", "model"}
    workspace/            the files the agent left behind

It never writes the trace dict ``HarnessEvaluator`` reads, and PraisonAI has no adapter between
the two; ``import_harness_dir`` is that adapter. The trace it builds (schema kind ``trace``):

- ``tool_calls``: the JSONL objects, unchanged (``[]`` when the file is absent or empty);
- ``artifacts``: every regular file below ``workspace/`` as a relative POSIX path, sorted
  (symbolic links are listed by name and never followed);
- ``judge_score``: ``judge_result.json``'s ``score`` (absent when the file is absent or the
  score is null); ``judge``: that whole object;
- ``result``: ``result.json``'s object; ``transcript``: the text;
- ``source``: ``{"format": "praisonai-interactive-test-harness", "files": [what was read]}``.

Every file is optional, but the folder must hold at least one of them. A malformed file is an
``InputError`` naming the file and the line (JSONL) or JSON path.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from .._errors import InputError
from .._files._strict_json import loads_strict, read_json_file

HARNESS_FORMAT = "praisonai-interactive-test-harness"
HARNESS_FILES = ("transcript.txt", "tool_trace.jsonl", "result.json", "judge_result.json")
MAX_FILE_BYTES = 50_000_000


def _read_text(path: Path) -> str:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None
    if len(data) > MAX_FILE_BYTES:
        raise InputError(f"larger than {MAX_FILE_BYTES} bytes", source=str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise InputError(f"line {line}: not UTF-8 text", source=str(path)) from None


def read_tool_trace(path: Path) -> list[dict[str, Any]]:
    """The tool calls of a ``tool_trace.jsonl``: one JSON object per non-blank line.

    Raises:
        InputError: unreadable, not UTF-8, or a line that is not a JSON object; the message
            names the file and ``line N`` (and the JSON path within that line).
    """
    calls: list[dict[str, Any]] = []
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = loads_strict(line)
        except InputError as exc:
            where = f"line {number}" + (f": {exc.path}" if exc.path not in (None, "$") else "")
            message = re.sub(r"\(line 1, column (\d+)\)", r"(column \1)", exc.message)
            raise InputError(message, source=str(path), path=where) from None
        if not isinstance(value, dict):
            raise InputError("a tool call must be a JSON object", source=str(path),
                             path=f"line {number}")
        calls.append(value)
    return calls


def _judge(path: Path) -> dict[str, Any]:
    judge = read_json_file(path, max_bytes=MAX_FILE_BYTES)
    if not isinstance(judge, dict):
        raise InputError("a judge result must be a JSON object", source=str(path), path="$")
    score = judge.get("score")
    if score is not None and (isinstance(score, bool) or not isinstance(score, (int, float))
                              or not math.isfinite(score)):
        raise InputError(f"score must be a number or null, not {score!r}", source=str(path),
                         path="$.score")
    return judge


def workspace_files(folder: Path) -> list[str]:
    """Relative POSIX paths of every file below ``folder``, sorted; links are not followed."""
    found: list[str] = []
    for root, dirs, files in os.walk(folder, followlinks=False):
        base = Path(root)
        found.extend((base / f).relative_to(folder).as_posix() for f in files)
        found.extend((base / d).relative_to(folder).as_posix() for d in dirs
                     if (base / d).is_symlink())
    return sorted(found)


def _entry_type(path: Path) -> str:
    if path.is_dir():
        return "a folder"
    if path.is_file():
        return "a file"
    return "a special file (a device, pipe or socket)"


def import_harness_dir(folder: str | os.PathLike[str]) -> dict[str, Any]:
    """Build a trace from an ``InteractiveTestHarness`` output folder (see the module docstring).

    Args:
        folder: the run's folder.

    Returns:
        the trace dict (valid against the ``trace`` schema).

    Raises:
        InputError: not a folder, none of the harness files present, a harness file that is
            not a file (``tool_trace.jsonl`` a folder) or ``workspace`` that is not a folder, or
            a malformed file.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError("not a folder (want an InteractiveTestHarness output folder)",
                         source=str(root))
    for name in HARNESS_FILES:
        if (root / name).exists() and not (root / name).is_file():
            raise InputError(f"{_entry_type(root / name)}, not a file (the harness writes "
                             f"{name} as a file)", source=str(root / name))
    if (root / "workspace").exists() and not (root / "workspace").is_dir():
        raise InputError(f"{_entry_type(root / 'workspace')}, not a folder (the harness writes "
                         "the agent's files under workspace/)", source=str(root / "workspace"))
    present = [name for name in HARNESS_FILES if (root / name).is_file()]
    has_workspace = (root / "workspace").is_dir()
    if not present and not has_workspace:
        raise InputError("not an InteractiveTestHarness output folder: none of "
                         f"{', '.join(HARNESS_FILES)}, workspace/ found", source=str(root))
    trace: dict[str, Any] = {"tool_calls": [], "artifacts": []}
    if "tool_trace.jsonl" in present:
        trace["tool_calls"] = read_tool_trace(root / "tool_trace.jsonl")
    if has_workspace:
        trace["artifacts"] = workspace_files(root / "workspace")
    if "judge_result.json" in present:
        judge = _judge(root / "judge_result.json")
        if judge.get("score") is not None:
            trace["judge_score"] = judge["score"]
        trace["judge"] = judge
    if "result.json" in present:
        result = read_json_file(root / "result.json", max_bytes=MAX_FILE_BYTES)
        if not isinstance(result, dict):
            raise InputError("a result must be a JSON object", source=str(root / "result.json"),
                             path="$")
        trace["result"] = result
    if "transcript.txt" in present:
        trace["transcript"] = _read_text(root / "transcript.txt")
    trace["source"] = {"format": HARNESS_FORMAT,
                       "files": present + (["workspace/"] if has_workspace else [])}
    return trace
