"""Import Berkeley Function-Calling Leaderboard (BFCL v4) categories as suite v3 documents.

BFCL (Apache-2.0, https://github.com/ShishirPatil/gorilla) ships its data inside the
``bfcl-eval`` wheel: ``bfcl_eval/data/BFCL_v4_<category>.json`` (JSON lines: ``id``,
``question`` = turns of chat messages, ``function`` = definitions with BFCL's Python type words)
and ``bfcl_eval/data/possible_answer/BFCL_v4_<category>.json`` (``id``, ``ground_truth`` =
``[{function: {argument: [acceptable values]}}]``, ``""`` meaning "may be left out").

One BFCL record becomes one case (docs/import.md):

- ``scenario_id``: the BFCL id (``simple_python_1``).
- ``input.messages``: the question's single turn of ``{"role", "content"}`` messages.
- ``input.tools``: OpenAI-style tools ``{"type": "function", "function": {...}}``, the BFCL
  definitions with their types mapped to JSON Schema (``bfcl_schema``) and their real names
  (``math.factorial``); an adapter encodes the names for a model with ``_tool_names``.
- ``expected.tool_calls``: the ground truth (``aau_core.calls_from_bfcl``); ``[]`` for
  ``irrelevance`` (the right answer is to call nothing).
- ``expected.tool_call_match``: ``mode`` ``strict`` (one call; simple, multiple, live) or
  ``unordered`` (BFCL's parallel checker ignores order), and ``functions``: the mapped
  definitions of the functions the expected calls use (types and required arguments for the
  matcher; definitions no call uses are left out, as the suite loader refuses them).

A record that cannot become a case every right answer passes is skipped, never changed: more
than one turn, a function without a name, a type word that is not BFCL's, two tools whose
encoded names collide, or ground truth that contradicts its own definitions (the suite loader's
``tool_call_contradictions``). The suite's ``source.skipped`` lists each with its reason.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from aau_core import (
    InputError,
    ToolCallFormatError,
    UsageError,
    calls_from_bfcl,
    check_expected_calls,
    check_functions,
    tool_call_contradictions,
)

from ._bfcl_source import (  # re-exported: the importer's public names
    BFCL_CATEGORIES,
    BFCL_WHEEL,
    read_bfcl,
)
from ._suite import SUITE_V3
from ._tool_names import ToolNameError, tool_name_map

_TYPE_WORDS = {
    "dict": "object", "object": "object",
    "float": "number", "number": "number", "double": "number",
    "integer": "integer", "int": "integer", "long": "integer",
    "string": "string", "str": "string",
    "boolean": "boolean", "bool": "boolean",
    "array": "array", "list": "array", "tuple": "array",
    "null": "null",
    "any": None,
}
_PRUNED = "_pruned"  # internal: popped by import_bfcl into source.pruned
_DROPPED_KEYS = ("optional",)  # BFCL-only markers; "required" lists say the same


class _Skip(Exception):
    """A record that cannot become a case; the message is the reason."""


# ---------------------------------------------------------------------------------------------
# Types


def bfcl_schema(spec: Any, *, path: str = "parameters") -> dict[str, Any]:
    """Map one BFCL parameter definition to JSON Schema, recursively.

    BFCL writes Python type words: ``dict`` -> ``object``, ``float`` -> ``number``, ``tuple``
    (and ``list``) -> ``array``, ``any`` -> no ``type`` (anything), ``int``/``str``/``bool`` ->
    ``integer``/``string``/``boolean``; JSON Schema words stay. ``properties``, ``items`` and
    ``additionalProperties`` are mapped the same way; BFCL's ``optional`` marker is dropped
    (``required`` says it); every other key (``description``, ``enum``, ``default``...) is kept.

    Args:
        spec: the definition (an object).
        path: where it is, for messages (``parameters.properties.unit``).

    Returns:
        a new JSON Schema object.

    Raises:
        ValueError: not an object, or a type word BFCL's Python categories do not use (the
            words are case-sensitive: Java's ``String`` is refused).
    """
    if not isinstance(spec, Mapping):
        raise ValueError(f"{path}: a parameter definition must be an object")
    out: dict[str, Any] = {}
    for key, value in spec.items():
        if key in _DROPPED_KEYS:
            continue
        if key == "type":
            if not isinstance(value, str) or value not in _TYPE_WORDS:
                raise ValueError(f"{path}.type: unknown type word {value!r}")
            word = _TYPE_WORDS[value]
            if word is not None:
                out["type"] = word
        elif key == "properties" and isinstance(value, Mapping):
            out[key] = {name: bfcl_schema(sub, path=f"{path}.properties.{name}")
                        for name, sub in value.items()}
        elif key in ("items", "additionalProperties") and isinstance(value, Mapping):
            out[key] = bfcl_schema(value, path=f"{path}.{key}")
        else:
            out[key] = value
    return out


def bfcl_function(fn: Any) -> dict[str, Any]:
    """Map one BFCL function definition (``name``, ``description``, ``parameters``) to an
    OpenAI-style function object with JSON Schema parameters (``bfcl_schema``); the real name
    is kept.

    Raises:
        ValueError: no non-empty string ``name``, or ``bfcl_schema`` refuses the parameters.
    """
    if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str) or not fn["name"]:
        raise ValueError("a function definition without a name")
    out = {k: v for k, v in fn.items() if k != "parameters"}
    params = fn.get("parameters", {"type": "dict", "properties": {}})
    out["parameters"] = bfcl_schema(params, path=f"{fn['name']}.parameters")
    out["parameters"].setdefault("type", "object")
    return out


# ---------------------------------------------------------------------------------------------
# Records -> cases


def _messages(question: Any) -> list[dict[str, Any]]:
    if not isinstance(question, list) or len(question) != 1:
        turns = len(question) if isinstance(question, list) else "no"
        raise _Skip(f"{turns} turns; only single-turn questions are imported")
    turn = question[0]
    if not isinstance(turn, list) or not turn or not all(
            isinstance(m, dict) and isinstance(m.get("role"), str)
            and isinstance(m.get("content"), str) for m in turn):
        raise _Skip("the question is not a list of {role, content} messages")
    return [{"role": m["role"], "content": m["content"]} for m in turn]


def bfcl_case(record: Mapping[str, Any], ground_truth: Any, mode: str | None) -> dict[str, Any]:
    """Build the suite v3 case of one BFCL record (the module docstring says how).

    Args:
        record: ``{"id", "question", "function"}``.
        ground_truth: BFCL's ``[{fn: {arg: [acceptable]}}]``, or ``None`` for irrelevance.
        mode: the category's matching mode, ``None`` for irrelevance.

    Returns:
        the case object; when acceptable values were dropped (``_prune_impossible``), it also
        holds them under the key ``"_pruned"``, which ``import_bfcl`` moves to
        ``source.pruned``.

    Raises:
        ValueError: the record cannot become a case that a right answer passes (the message
            says why); the importer skips it.
    """
    try:
        return _case(record, ground_truth, mode)
    except _Skip as exc:
        raise ValueError(str(exc)) from None


def _case(record: Mapping[str, Any], ground_truth: Any, mode: str | None) -> dict[str, Any]:
    messages = _messages(record.get("question"))
    defs = record.get("function")
    if not isinstance(defs, list) or not defs:
        raise _Skip("no function definitions")
    try:
        functions = [bfcl_function(fn) for fn in defs]
        tool_name_map(fn["name"] for fn in functions)
        check_functions(functions, path="function")
    except (ValueError, ToolNameError, ToolCallFormatError) as exc:
        raise _Skip(str(exc)) from None
    tools = [{"type": "function", "function": fn} for fn in functions]
    case: dict[str, Any] = {"scenario_id": record["id"],
                            "input": {"messages": messages, "tools": tools}}
    if mode is None:
        case["expected"] = {"tool_calls": []}
        return case
    try:
        calls = calls_from_bfcl(ground_truth)
        check_expected_calls(calls, path="ground_truth")
    except ToolCallFormatError as exc:
        raise _Skip(f"ground truth: {exc}") from None
    used = {c["name"] for c in calls}
    match_functions: list[dict[str, Any]] = []
    for fn in functions:
        if fn["name"] in used and all(fn["name"] != f["name"] for f in match_functions):
            match_functions.append(fn)
    pruned = _prune_impossible(calls, match_functions)
    problems = tool_call_contradictions(calls, match_functions)
    if problems:
        parts, message = problems[0]
        raise _Skip(f"ground truth contradicts the definitions: "
                    f"{'.'.join(str(p) for p in parts)}: {message}")
    case["expected"] = {"tool_calls": calls,
                        "tool_call_match": {"mode": mode, "functions": match_functions}}
    if pruned:
        case[_PRUNED] = pruned
    return case


def _prune_impossible(calls: list[dict[str, Any]], functions: list[dict[str, Any]]
                      ) -> list[dict[str, Any]]:
    """Drop, in place, acceptable values the declared type refuses (BFCL lists ``None`` as an
    acceptable value of a ``string`` parameter, for instance): no JSON answer can ever match
    them, so dropping them changes no verdict, and the first value left is one ``--mock`` can
    answer. A list left empty is not touched (the case is then skipped as contradictory).

    Returns:
        ``[{"call", "argument", "value"}]`` for each value dropped.
    """
    drop: dict[tuple[int, str], set[int]] = {}
    for parts, _message in tool_call_contradictions(calls, functions):
        if len(parts) == 5 and parts[0] == "tool_calls" and isinstance(parts[4], int):
            drop.setdefault((int(parts[1]), str(parts[3])), set()).add(parts[4])
    pruned = []
    for (j, arg), indexes in sorted(drop.items()):
        allowed = calls[j]["arguments"][arg]
        if len(indexes) >= len(allowed):
            continue
        pruned.extend({"call": j, "argument": arg, "value": allowed[n]} for n in sorted(indexes))
        calls[j]["arguments"][arg] = [v for n, v in enumerate(allowed) if n not in indexes]
    return pruned


PUBLIC_SHARING = {
    "classification": "public",
    "human_review_complete": True,
    "contains_personally_identifiable_information": False,
    "contains_procurement_sensitive_information": False,
    "contains_controlled_unclassified_information": False,
    "contains_classified_information": False,
    "contains_secrets_or_credentials": False,
}
"""The ``sharing`` block of an imported suite: public benchmark data, published by its authors
(BFCL Apache-2.0, τ²-bench MIT), imported without personal or sensitive content."""


def import_bfcl(category: str, *, source: str | os.PathLike[str] | None = None,
                limit: int | None = None, source_version: str | None = None,
                cache_dir: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """Import the first ``limit`` records (all when ``None``) of a BFCL category as a suite v3.

    Args:
        category: one of ``BFCL_CATEGORIES``.
        source: a folder of BFCL json files or a bfcl-eval wheel; ``None`` downloads the pinned
            wheel (``cached_bfcl_wheel``).
        limit: how many records to read, from the start of the file (>= 1).
        source_version: the bfcl-eval version to record for a folder (a wheel's name says it).
        cache_dir: as ``cached_bfcl_wheel``.

    Returns:
        the suite document (``aau-byo-agent-suite/3.0``). Its ``source`` records the benchmark,
        package, version, category, files read with their SHA-256, the name encoding, the
        records skipped with their reasons and the impossible acceptable values dropped
        (``pruned``: id, call index, argument, value). The output is deterministic (no dates).

    Raises:
        UsageError: unknown category, bad ``limit``, download failure.
        InputError: missing or malformed data (file and line named); a record without an
            answer; nothing left to import.
    """
    if limit is not None and limit < 1:
        raise UsageError("--limit must be at least 1")
    data = read_bfcl(category, source=source, cache_dir=cache_dir)
    mode = BFCL_CATEGORIES[category]
    records = data.questions if limit is None else data.questions[:limit]
    cases: list[dict[str, Any]] = []
    skipped: list[dict[str, str]] = []
    pruned: list[dict[str, Any]] = []
    for n, record in records:
        if mode is not None and record["id"] not in data.answers:
            raise InputError(f"no ground truth for {record['id']!r}",
                             source=f"{data.files[0]['path']} line {n}", path="$.id")
        try:
            case = bfcl_case(record, data.answers.get(record["id"]), mode)
        except ValueError as exc:
            skipped.append({"id": record["id"], "reason": str(exc)})
            continue
        pruned.extend({"id": record["id"], **p} for p in case.pop(_PRUNED, []))
        cases.append(case)
    if not cases:
        raise InputError(f"no record of {category} could be imported ({len(skipped)} skipped)",
                         source=str(source or data.files[0]["path"]))
    version = data.version or source_version
    suite_id = f"bfcl-v4-{category}" + (f"-first{limit}" if limit is not None else "")
    description = (
        f"BFCL v4 {category}: {len(cases)} case(s) imported from bfcl-eval "
        f"{version or '(version not recorded)'} by `aau import bfcl`. Input: the question and "
        "the function definitions (types mapped to JSON Schema, real names); expected: BFCL's "
        "ground truth, per argument a list of acceptable values"
        + (" (the right answer is to call nothing)." if mode is None else "."))
    src: dict[str, Any] = {
        "benchmark": "BFCL",
        "benchmark_version": "v4",
        "package": "bfcl-eval",
        "version": version,
        "category": category,
        "license": "Apache-2.0",
        "homepage": "https://github.com/ShishirPatil/gorilla/tree/main/berkeley-function-call-leaderboard",
        "files": [{**f, "path": _display_path(f["path"], source)} for f in data.files],
        "records_read": len(records),
        "records_in_file": len(data.questions),
        "imported": len(cases),
        "skipped": skipped,
        "pruned": pruned,
        "match_mode": mode or "none (expected: no call)",
        "tool_name_encoding": "aau_adapters.encode_tool_name: characters outside [A-Za-z0-9_-] "
                              "become '_' when shown to a model; decode_tool_calls maps back",
        "importer": "aau import bfcl",
    }
    if data.wheel_sha256:
        src["wheel"] = {"name": Path(source).name if source else BFCL_WHEEL,
                        "sha256": data.wheel_sha256}
    return {
        "suite_version": SUITE_V3,
        "suite_id": suite_id,
        "description": description,
        "sharing": dict(PUBLIC_SHARING),
        "source": src,
        "cases": cases,
    }


def _display_path(path: str, source: Any) -> str:
    """A file path relative to the ``--source`` folder (stable across machines); wheel member
    paths are kept."""
    if source is None or not Path(source).is_dir():
        return path
    try:
        return Path(path).relative_to(Path(source)).as_posix()
    except ValueError:
        return path
