"""Reading BFCL's data: a category's question and answer files from a folder or the bfcl-eval wheel.

Without ``--source``, ``cached_bfcl_wheel`` downloads the pinned ``bfcl-eval`` wheel once with
``pip download`` into the cache (``~/.cache/aau/bfcl/``) and checks its SHA-256; the wheel is
read as a zip and never installed. ``_import_bfcl`` turns what is read here into a suite.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
from aau_core import InputError, UsageError, loads_strict
from aau_core._files._strict_json import decode_text  # internal to the monorepo
from aau_schemas import sha256_hex

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
# Reading


def _json_lines(data: bytes, source: str) -> list[tuple[int, dict[str, Any]]]:
    """Parse JSON lines strictly; blank lines are skipped. Errors name ``source`` and the line."""
    out = []
    text = decode_text(data, source=source)
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
