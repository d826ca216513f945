"""Import Berkeley Function-Calling Leaderboard (BFCL v4) categories as suite v2 documents.

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
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
from aau_core import (
    InputError,
    ToolCallFormatError,
    UsageError,
    calls_from_bfcl,
    check_expected_calls,
    check_functions,
    loads_strict,
    tool_call_contradictions,
)
from aau_schemas import sha256_hex

from ._tool_names import ToolNameError, tool_name_map

BFCL_VERSION = "2026.3.23"
"""The bfcl-eval release downloaded when no ``--source`` is given."""

BFCL_WHEEL = f"bfcl_eval-{BFCL_VERSION}-py3-none-any.whl"
BFCL_WHEEL_SHA256 = "3bb6dfa5f0c68ad403c9ec50b00db2bb3b4cc9b38ab1ff33f48fe30d853d3a0a"
"""SHA-256 of ``BFCL_WHEEL`` as PyPI serves it; a downloaded wheel must have it."""

BFCL_CATEGORIES: dict[str, str | None] = {
    "simple_python": "strict",
    "multiple": "strict",
    "parallel": "unordered",
    "parallel_multiple": "unordered",
    "live_simple": "strict",
    "live_multiple": "strict",
    "irrelevance": None,
}
"""Category -> matching mode (``None``: no call expected, so no mode is needed)."""

MAX_BFCL_FILE_BYTES = 50_000_000
_WHEEL_DATA = "bfcl_eval/data"
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


@attrs.frozen
class BfclFiles:
    """The raw data of one category, read from a folder or a wheel.

    Attributes:
        questions: ``(line number, parsed record)`` in file order.
        answers: id -> ``ground_truth`` (empty for ``irrelevance``).
        files: ``[{"path", "sha256"}]`` of the files read (paths inside the wheel, or as given).
        version: the bfcl-eval version (from the wheel name), or ``None`` when unknown.
        wheel_sha256: SHA-256 of the wheel read, or ``None`` for a folder.
    """

    questions: list[tuple[int, dict[str, Any]]]
    answers: dict[str, Any]
    files: list[dict[str, str]]
    version: str | None
    wheel_sha256: str | None


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
# Reading


def _json_lines(data: bytes, source: str) -> list[tuple[int, dict[str, Any]]]:
    """Parse JSON lines strictly; blank lines are skipped. Errors name ``source`` and the line."""
    out = []
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"not UTF-8 at byte {exc.start}", source=source) from None
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        record = loads_strict(line, source=f"{source} line {n}")
        if not isinstance(record, dict) or not isinstance(record.get("id"), str):
            raise InputError("a BFCL record must be an object with a string id",
                             source=f"{source} line {n}", path="$")
        out.append((n, record))
    return out


def _answers(records: list[tuple[int, dict[str, Any]]], source: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for n, record in records:
        if "ground_truth" not in record:
            raise InputError("no ground_truth", source=f"{source} line {n}", path="$")
        out[record["id"]] = record["ground_truth"]
    return out


def _find(folder: Path, patterns: Sequence[str]) -> Path | None:
    """The first file in ``folder`` whose lower-cased name matches one of ``patterns``."""
    if not folder.is_dir():
        return None
    names = sorted(p for p in folder.iterdir() if p.is_file())
    for pattern in patterns:
        for p in names:
            if re.fullmatch(pattern, p.name.lower()):
                return p
    return None


def _read_file(path: Path) -> bytes:
    try:
        size = path.stat().st_size
        if size > MAX_BFCL_FILE_BYTES:
            raise InputError(f"file is {size:,} bytes, over the {MAX_BFCL_FILE_BYTES:,}-byte "
                             "limit", source=str(path))
        return path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=str(path)) from None


def read_bfcl_folder(folder: str | os.PathLike[str], category: str) -> BfclFiles:
    """Read one category from a folder of BFCL json files.

    Looked for, in ``folder``, ``folder/data`` and ``folder/bfcl_eval/data`` (an unpacked wheel
    or a checkout), names compared case-insensitively: the questions ``BFCL_v4_<category>.json``
    (or ``bfcl_v4_<category>.<anything>.json[l]``, e.g. ../shared/datasets/bfcl's
    ``bfcl_v4_simple_python.head5.jsonl``), and the answers ``possible_answer/BFCL_v4_<category>
    .json`` beside it or ``bfcl_v4_<category>.answers.<anything>.json[l]`` in the same folder.

    Raises:
        InputError: the folder or a file is missing, unreadable or not BFCL JSON lines.
    """
    root = Path(folder)
    if not root.is_dir():
        raise InputError("no such folder", source=str(folder))
    stem = re.escape(f"bfcl_v4_{category}")
    q_patterns = [rf"{stem}\.jsonl?", rf"{stem}\.(?!answers\.)[^/]*\.jsonl?"]
    for where in (root, root / "data", root / "bfcl_eval" / "data"):
        questions_path = _find(where, q_patterns)
        if questions_path is not None:
            break
    else:
        raise InputError(f"no BFCL_v4_{category}.json here (nor in data/ or bfcl_eval/data/)",
                         source=str(folder))
    raw = _read_file(questions_path)
    questions = _json_lines(raw, str(questions_path))
    files = [{"path": str(questions_path), "sha256": sha256_hex(raw)}]
    answers: dict[str, Any] = {}
    if BFCL_CATEGORIES.get(category):
        answers_path = (_find(questions_path.parent / "possible_answer", q_patterns[:1])
                        or _find(questions_path.parent, [rf"{stem}\.answers(\.[^/]*)?\.jsonl?"]))
        if answers_path is None:
            raise InputError(f"no answers for {category}: expected possible_answer/"
                             f"BFCL_v4_{category}.json or bfcl_v4_{category}.answers.*.json[l] "
                             f"beside {questions_path.name}", source=str(folder))
        raw = _read_file(answers_path)
        answers = _answers(_json_lines(raw, str(answers_path)), str(answers_path))
        files.append({"path": str(answers_path), "sha256": sha256_hex(raw)})
    return BfclFiles(questions, answers, files, None, None)


def read_bfcl_wheel(wheel: str | os.PathLike[str], category: str) -> BfclFiles:
    """Read one category from a ``bfcl-eval`` wheel without installing it.

    Raises:
        InputError: not a readable zip, or the category's files are missing or malformed.
    """
    source = str(wheel)
    try:
        raw_wheel = Path(wheel).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", source=source) from None
    wheel_sha256 = sha256_hex(raw_wheel)
    match = re.match(r"bfcl_eval-([^-]+)-", Path(wheel).name)
    # the pinned hash proves the version, whatever the file is called; else the name says it
    version = (BFCL_VERSION if wheel_sha256 == BFCL_WHEEL_SHA256
               else match.group(1) if match else None)
    members = [f"{_WHEEL_DATA}/BFCL_v4_{category}.json"]
    if BFCL_CATEGORIES.get(category):
        members.append(f"{_WHEEL_DATA}/possible_answer/BFCL_v4_{category}.json")
    try:
        with zipfile.ZipFile(wheel) as zf:
            data = []
            for member in members:
                try:
                    info = zf.getinfo(member)
                except KeyError:
                    raise InputError(f"the wheel has no {member}", source=source) from None
                if info.file_size > MAX_BFCL_FILE_BYTES:
                    raise InputError(f"{member} is over {MAX_BFCL_FILE_BYTES:,} bytes",
                                     source=source)
                data.append(zf.read(member))
    except (zipfile.BadZipFile, OSError) as exc:
        raise InputError(f"not a readable wheel (zip): {exc}", source=source) from None
    questions = _json_lines(data[0], f"{source}!{members[0]}")
    answers = (_answers(_json_lines(data[1], f"{source}!{members[1]}"), f"{source}!{members[1]}")
               if len(data) > 1 else {})
    files = [{"path": m, "sha256": sha256_hex(d)} for m, d in zip(members, data, strict=True)]
    return BfclFiles(questions, answers, files, version, wheel_sha256)


def default_cache_dir() -> Path:
    """Where downloaded data is kept: ``$AAU_CACHE_DIR``, else ``$XDG_CACHE_HOME/aau``, else
    ``~/.cache/aau`` (outside any checkout, so never committed)."""
    if os.environ.get("AAU_CACHE_DIR"):
        return Path(os.environ["AAU_CACHE_DIR"])
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "aau"


def _pip_download(dest: Path) -> None:
    """Run ``pip download --no-deps bfcl-eval==BFCL_VERSION`` into ``dest`` (never installs)."""
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:",
            "--disable-pip-version-check", "--quiet", "--dest", str(dest),
            f"bfcl-eval=={BFCL_VERSION}"]
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise UsageError(f"cannot run pip download for bfcl-eval: {exc}; give --source") from None
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["(no output)"]
        raise UsageError(f"pip download bfcl-eval=={BFCL_VERSION} failed: {tail[0]}; give "
                         "--source (a bfcl-eval wheel or a folder of BFCL json files)")


def cached_bfcl_wheel(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    """The bfcl-eval wheel in the cache, downloaded with pip first when missing.

    The wheel's SHA-256 must be ``BFCL_WHEEL_SHA256`` (checked on every use). The download goes
    to a temp folder inside the cache and is moved in only once checked.

    Args:
        cache_dir: the cache folder (``default_cache_dir()`` when ``None``); the wheel is kept in
            its ``bfcl/`` subfolder.

    Raises:
        UsageError: pip is missing or the download failed (offline?), or the cache cannot be
            written.
        InputError: the cached or downloaded wheel has another SHA-256.
    """
    folder = Path(cache_dir) if cache_dir is not None else default_cache_dir()
    folder = folder / "bfcl"
    wheel = folder / BFCL_WHEEL
    if not wheel.is_file():
        try:
            folder.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(dir=folder, prefix=".download-") as tmp:
                _pip_download(Path(tmp))
                got = Path(tmp) / BFCL_WHEEL
                if not got.is_file():
                    raise UsageError(f"pip download gave no {BFCL_WHEEL}; give --source")
                _check_wheel_hash(got)
                shutil.move(str(got), wheel)
        except OSError as exc:
            raise UsageError(f"cannot use the cache folder {folder}: {exc.strerror or exc}"
                             ) from None
    _check_wheel_hash(wheel)
    return wheel


def _check_wheel_hash(wheel: Path) -> None:
    digest = sha256_hex(wheel.read_bytes())
    if digest != BFCL_WHEEL_SHA256:
        raise InputError(f"SHA-256 is {digest}, not the {BFCL_WHEEL_SHA256} of bfcl-eval "
                         f"{BFCL_VERSION} on PyPI; delete it to download again",
                         source=str(wheel))


def read_bfcl(category: str, *, source: str | os.PathLike[str] | None = None,
              cache_dir: str | os.PathLike[str] | None = None) -> BfclFiles:
    """Read one category from ``source`` (a folder or a wheel) or the cached/downloaded wheel.

    Raises:
        UsageError: an unknown category, or the download failed.
        InputError: the data is missing or malformed.
    """
    if category not in BFCL_CATEGORIES:
        raise UsageError(f"unknown BFCL category {category!r}; one of "
                         + ", ".join(BFCL_CATEGORIES))
    if source is None:
        return read_bfcl_wheel(cached_bfcl_wheel(cache_dir), category)
    if Path(source).is_dir():
        return read_bfcl_folder(source, category)
    if not Path(source).exists():
        raise InputError("no such file or folder", source=str(source))
    return read_bfcl_wheel(source, category)


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
    """Build the suite v2 case of one BFCL record (the module docstring says how).

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
    """Import the first ``limit`` records (all when ``None``) of a BFCL category as a suite v2.

    Args:
        category: one of ``BFCL_CATEGORIES``.
        source: a folder of BFCL json files or a bfcl-eval wheel; ``None`` downloads the pinned
            wheel (``cached_bfcl_wheel``).
        limit: how many records to read, from the start of the file (>= 1).
        source_version: the bfcl-eval version to record for a folder (a wheel's name says it).
        cache_dir: as ``cached_bfcl_wheel``.

    Returns:
        the suite document (``aau-byo-agent-suite/2.0``). Its ``source`` records the benchmark,
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
        "suite_version": "aau-byo-agent-suite/2.0",
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
