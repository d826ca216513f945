"""SHA-256 pack manifests, verified pack folders, atomic pack writing and in-toto statements.

One implementation shared by every pack family (human-baseline, impact/evidence, submission,
release). A manifest is a JSON object holding its version under ``version_key`` and ``files``:
one ``{"path", "bytes", "sha256", ...}`` row per file of the pack except the manifest itself,
sorted by path, where ``sha256`` is the hex SHA-256 of the file's exact bytes and ``bytes`` its
length (aau-harness 1.6's convention for every manifest, reference §2.11). Each family adds its
own top-level keys (``extra``: ids, ``hash_algorithm``, ``claims``) and per-file keys
(``file_fields``: the evidence pack's ``source_path``), and renders the object its own way.

``write_pack`` stages a pack in a temporary folder beside the destination, writes the manifest
last, verifies the staged folder (``verify_manifest_dir`` plus the caller's ``verify``) and only
then renames it into place, so a reader never sees a half-written pack.

Git: ``write_pack`` also writes ``.gitattributes`` (``* -text``) at the top of every pack, so a
pack committed to git keeps its exact bytes whatever ``core.autocrlf`` says. The file is not
listed in the manifest (the manifest, its hashes and every family's file list stay what they
were, and packs written before it verify unchanged); ``verify_manifest_dir`` accepts it unlisted
only with exactly those bytes. A listed file whose CRLF -> LF form matches its row is reported
as line endings converted by git, not as a bare hash difference.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

from aau_schemas import sha256_hex

from .._errors import AauError, InputError, OutputError, UsageError
from ._safe_path import check_relative_name
from ._staged_folder import write_folder
from ._writing import check_parent

PACK_GITATTRIBUTES = ".gitattributes"
"""The file ``write_pack`` adds to every pack, unlisted in its manifest."""
PACK_GITATTRIBUTES_BYTES = b"* -text\n"
"""Its exact bytes: git stores and checks out every file of the pack byte for byte."""
CRLF_HINT = "its line endings were converted to CRLF (git autocrlf?); the LF form matches"

INTOTO_STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
"""``_type`` of an in-toto Statement v1 (https://github.com/in-toto/attestation, spec v1)."""


def build_manifest(files: Mapping[str, bytes], *, version: str, extra: dict[str, Any] | None = None,
                   version_key: str = "manifest_version",
                   file_fields: Mapping[str, Mapping[str, Any]] | None = None) -> dict[str, Any]:
    """The manifest object for ``files``.

    Args:
        files: pack-relative POSIX path -> exact file bytes (the manifest itself excluded).
        version: the manifest's version string (``"aau-impact-pack/1.0"``).
        extra: further top-level keys, added after ``files`` in the given order.
        version_key: the key holding ``version`` (1.6's evidence pack uses ``pack_version``).
        file_fields: path -> further keys of that file's row (added after ``sha256``).

    Returns:
        ``{version_key: version, "files": [{"path", "bytes", "sha256", **file_fields[path]}],
        **extra}``, rows sorted by path (Python string order).

    Raises:
        ValueError: a path breaks ``check_relative_path``'s rules, ``extra`` repeats a reserved
            key, or ``file_fields`` names a file not in ``files``.
    """
    extra = dict(extra or {})
    file_fields = dict(file_fields or {})
    clash = {version_key, "files"} & set(extra)
    if clash:
        raise ValueError(f"extra repeats the reserved key(s) {sorted(clash)}")
    unknown = set(file_fields) - set(files)
    if unknown:
        raise ValueError(f"file_fields names files that are not in the pack: {sorted(unknown)}")
    rows = []
    for name in sorted(files):
        _check_name(name)
        data = files[name]
        rows.append({"path": name, "bytes": len(data), "sha256": sha256_hex(data),
                     **dict(file_fields.get(name, {}))})
    return {version_key: version, "files": rows, **extra}


def _check_name(name: str) -> None:
    try:
        check_relative_name(name)
    except InputError as exc:
        raise ValueError(f"not a safe pack path: {exc}") from None


def verify_manifest_dir(directory: str | os.PathLike[str], manifest_name: str = "manifest.json", *,
                        version: str | None = None, version_key: str = "manifest_version",
                        empty_folders_ok: bool = False) -> list[str]:
    """Check a pack folder against its manifest; return the problems (empty: the pack is intact).

    Detects: a missing, unreadable or malformed manifest (not a JSON object, ``files`` not a
    list of ``{path: str, bytes: int, sha256: str}`` objects); a manifest path that is unsafe
    (``check_relative_path``) or listed twice; a listed file removed; a file (at any depth) that is
    not listed; a byte length or SHA-256 that differs (hash drift); a symlink or a non-regular
    file anywhere in the folder (a symlink is never followed); and, when ``version`` is given, a
    different ``manifest[version_key]``; an empty sub-folder (at any depth), which no manifest
    lists and no writer makes, is an addition like an unlisted file (aau-harness 1.6 tolerated
    it; ``empty_folders_ok=True`` does too).

    Args:
        directory: the pack folder.
        manifest_name: the manifest's file name inside the folder.
        version: the expected version string, or ``None`` to accept any.
        version_key: the key holding the version.

    Returns:
        One line per problem, ``"<file>: <message>"`` (``<file>`` is the folder joined with the
        pack path), in a stable order; an empty list when the pack is intact.
    """
    root = Path(directory)
    if root.is_symlink() or not root.is_dir():
        return [f"{root}: not a folder (a pack is a folder)"]
    problems: list[str] = []
    present: dict[str, Path] = {}
    for rel, item in _walk(root):
        mode = item.lstat().st_mode
        if stat.S_ISLNK(mode):
            problems.append(f"{item}: a symlink; packs hold regular files only")
        elif stat.S_ISDIR(mode):
            if not empty_folders_ok and not os.listdir(item):
                problems.append(f"{item}: an empty folder the manifest does not list (added "
                                "after the pack was written)")
            continue
        elif not stat.S_ISREG(mode):
            problems.append(f"{item}: not a regular file")
        else:
            present[rel] = item
    manifest_path = root / manifest_name
    if manifest_name not in present:
        if not manifest_path.is_symlink():
            problems.append(f"{manifest_path}: missing; the pack has no manifest")
        return problems
    rows = _manifest_rows(manifest_path, version, version_key, problems)
    if rows is None:
        return problems
    listed: set[str] = set()
    for i, what, name, found in _row_findings(root, rows, present, manifest_name, listed):
        where = f"{manifest_path}: $.files[{i}]"
        if what == "unsafe":
            problems.append(f"{where}.path: {found}")
        elif what == "twice":
            problems.append(f"{where}.path: {name} is listed twice")
        elif what == "self":
            problems.append(f"{where}.path: the manifest cannot list itself")
        elif what == "missing":
            if not (root / name).is_symlink():  # a symlink is already reported
                problems.append(f"{root / name}: listed in the manifest but missing (removed)")
        elif what == "bytes":
            problems.append(f"{present[name]}: {found} bytes, the manifest says {rows[i]['bytes']}")
        elif what == "crlf":
            problems.append(f"{present[name]}: SHA-256 differs from the manifest: {CRLF_HINT}")
        else:
            problems.append(f"{present[name]}: SHA-256 differs from the manifest (changed)")
    for name in sorted(set(present) - listed - {manifest_name}):
        if name == PACK_GITATTRIBUTES and is_pack_gitattributes(present[name]):
            continue
        hint = (f" (aau writes it holding exactly {PACK_GITATTRIBUTES_BYTES.decode()!r})"
                if name == PACK_GITATTRIBUTES else
                f"; {RUN_STORE_FOLDER} is {RUN_STORE_HINT}"
                if name.split("/")[0] == RUN_STORE_FOLDER else "")
        problems.append(f"{present[name]}: not listed in the manifest (added){hint}")
    return problems


def is_pack_gitattributes(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a regular file (not a symlink) holding exactly
    ``PACK_GITATTRIBUTES_BYTES``, the ``.gitattributes`` ``write_pack`` adds to a pack."""
    item = Path(path)
    try:
        return (not item.is_symlink() and item.is_file()
                and item.read_bytes() == PACK_GITATTRIBUTES_BYTES)
    except OSError:
        return False


RUN_STORE_FOLDER = ".aau"
"""The folder the default run store lives in (``.aau/runs.sqlite``); never part of a pack."""


RUN_STORE_HINT = ("the run store's folder (an earlier aau recorded into it when run from inside "
                  "the pack; aau now records beside the pack): move it out of the pack; its "
                  "runs stay readable with aau runs list --store NEW-PLACE/runs.sqlite")
"""What a reader says of a ``.aau`` folder it finds in a pack."""


def stray_folder_message(item: str | os.PathLike[str], what: str) -> str:
    """The message for a folder found in a pack that holds none (``what``: "a review pack
    holds no folders"), with ``RUN_STORE_HINT`` when it is the run store's folder ``.aau``."""
    if Path(item).name == RUN_STORE_FOLDER:
        return f"{what}; {RUN_STORE_FOLDER} is {RUN_STORE_HINT}"
    return what


def extra_pack_file_message(files: Iterable[str], *, outside: str) -> str:
    """The message for a file found in a pack folder that is not one of its ``files``: the
    folder holds exactly those, and what the user keeps beside it (``outside``: "session files
    and reports") belongs outside it, e.g. in the folder that holds the pack."""
    return (f"an extra file in the pack folder, which holds exactly {', '.join(files)}: keep "
            f"{outside} outside the pack (e.g. ../NAME from inside it) and move this one out")


def check_outputs_outside_pack(pack: str | os.PathLike[str],
                               outputs: Mapping[str, str | os.PathLike[str] | None],
                               what: str) -> None:
    """Refuse any of ``outputs`` (option -> path, ``None`` skipped) that lies inside the pack
    folder ``pack`` a command reads (at any depth): the pack holds only its own files, and a
    file written into it would make every later check of the pack fail.

    Raises:
        UsageError: one line naming the option, the path and where to write ``what`` instead.
    """
    folder = Path(pack)
    if not folder.is_dir():
        return
    root = Path(os.path.abspath(folder)).resolve()
    for option, path in outputs.items():
        if path is None:
            continue
        target = Path(os.path.abspath(path)).resolve()
        if root in target.parents:
            raise UsageError(f"{option} {path}: inside the pack folder, which holds only "
                             f"the pack's own files; write {what} outside it (e.g. in the "
                             "folder that holds the pack)")


def pack_folder_of(path: str | os.PathLike[str]) -> Path | None:
    """The pack folder aau wrote that holds ``path`` (``path`` itself or its nearest ancestor
    holding ``manifest.json`` beside the ``.gitattributes`` ``write_pack`` adds to every pack,
    ``is_pack_gitattributes``), or ``None``. ``path`` need not exist; it is made absolute
    (symlinks resolved) first. Used to keep the run store out of packs (``aau_core._store``)."""
    here = Path(os.path.abspath(path)).resolve()
    for folder in (here, *here.parents):
        if (folder / "manifest.json").is_file() and is_pack_gitattributes(
                folder / PACK_GITATTRIBUTES):
            return folder
    return None


def manifest_row_violations(directory: str | os.PathLike[str], rows: Iterable[Mapping[str, Any]],
                            manifest_name: str = "manifest.json") -> list[tuple[str, str]]:
    """The rows of a schema-valid manifest checked against the files, in aau-harness 1.6's words.

    The same checks as ``verify_manifest_dir`` makes of each row (through the same code), worded
    as the 1.6 human-baseline pack reader worded them, as ``(json_path, message)`` pairs for an
    ``InvalidDocumentError`` on the manifest: ``("$.files[0].bytes", "README.md has 1950
    bytes")``, ``("$.files[2].sha256", "study.json has another SHA-256")``, ``("$.files[1].path",
    "study.json listed twice")``. Only the top level of ``directory`` is looked at (a reader that
    uses this has checked the folder's file set itself); a symlink is never read.

    Args:
        directory: the pack folder.
        rows: the manifest's ``files`` rows (``path``: str, ``bytes``: int, ``sha256``: str).
        manifest_name: the manifest's file name (a row naming it is a problem).

    Returns:
        the problems in row order; empty when every row matches its file.
    """
    root = Path(directory)
    present = {p.name: p for p in root.iterdir() if not p.is_symlink() and p.is_file()}
    rows = list(rows)
    words = {"twice": ("path", "{name} listed twice"), "self": ("path", "the manifest cannot "
             "list itself"), "missing": ("path", "{name} is missing"), "unsafe": ("path", "{found}"),
             "bytes": ("bytes", "{name} has {found} bytes"),
             "sha256": ("sha256", "{name} has another SHA-256"),
             "crlf": ("sha256", "{name} has another SHA-256: " + CRLF_HINT)}
    out = []
    for i, what, name, found in _row_findings(root, rows, present, manifest_name, set()):
        field, text = words[what]
        out.append((f"$.files[{i}].{field}", text.format(name=name, found=found)))
    return out


def _row_findings(root: Path, rows: list[Mapping[str, Any]], present: Mapping[str, Path],
                  manifest_name: str, listed: set[str]) -> Iterator[tuple[int, str, str, Any]]:
    """``(row index, problem, path, detail)`` for each row that does not match the pack.

    Problems: ``unsafe`` (detail: the message), ``twice``, ``self``, ``missing``, ``bytes``
    (detail: the file's length), ``sha256``, and ``crlf`` instead of both of those when the
    file's CRLF -> LF form has the row's length and SHA-256 (git converted its line endings).
    ``listed`` collects the safe paths seen once.
    """
    for i, row in enumerate(rows):
        name = row["path"]
        try:
            check_relative_name(name, source=str(root / manifest_name))
        except InputError as exc:
            yield i, "unsafe", name, exc.message
            continue
        if name in listed:
            yield i, "twice", name, None
            continue
        listed.add(name)
        if name == manifest_name:
            yield i, "self", name, None
            continue
        item = present.get(name)
        if item is None:
            yield i, "missing", name, None
            continue
        data = item.read_bytes()
        if row["bytes"] == len(data) and row["sha256"] == sha256_hex(data):
            continue
        if _lf_form_matches(data, row):
            yield i, "crlf", name, None
            continue
        if row["bytes"] != len(data):
            yield i, "bytes", name, len(data)
        if row["sha256"] != sha256_hex(data):
            yield i, "sha256", name, None


def _lf_form_matches(data: bytes, row: Mapping[str, Any]) -> bool:
    """Whether ``data`` differs from its row only by CRLF line endings: it holds ``\\r\\n`` and
    its form with every ``\\r\\n`` made ``\\n`` has the row's length and SHA-256."""
    if b"\r\n" not in data:
        return False
    lf = data.replace(b"\r\n", b"\n")
    return len(lf) == row["bytes"] and sha256_hex(lf) == row["sha256"]


def _walk(root: Path) -> list[tuple[str, Path]]:
    """Every entry under ``root`` as (POSIX relative path, path), sorted; symlinked folders are
    listed, never entered."""
    found: list[tuple[str, Path]] = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(dirpath)
        for name in sorted(dirnames + filenames):
            item = here / name
            found.append((item.relative_to(root).as_posix(), item))
        dirnames[:] = sorted(d for d in dirnames if not (here / d).is_symlink())
    return sorted(found)


def _manifest_rows(manifest_path: Path, version: str | None, version_key: str,
                   problems: list[str]) -> list[dict[str, Any]] | None:
    try:
        manifest = json.loads(manifest_path.read_bytes())
    except (OSError, ValueError) as exc:
        problems.append(f"{manifest_path}: not readable JSON: {exc}")
        return None
    if not isinstance(manifest, dict):
        problems.append(f"{manifest_path}: $: the manifest must be a JSON object")
        return None
    if version is not None and manifest.get(version_key) != version:
        problems.append(f"{manifest_path}: $.{version_key}: expected {version!r}, "
                        f"found {manifest.get(version_key)!r}")
    files = manifest.get("files")
    if not isinstance(files, list):
        problems.append(f"{manifest_path}: $.files: must be a list of file rows")
        return None
    rows = []
    for i, row in enumerate(files):
        ok = (isinstance(row, dict) and isinstance(row.get("path"), str)
              and type(row.get("bytes")) is int and isinstance(row.get("sha256"), str))
        if not ok:
            problems.append(f"{manifest_path}: $.files[{i}]: must be an object with a string "
                            "path, an integer bytes and a string sha256")
            continue
        rows.append(row)
    return rows if len(rows) == len(files) else None


def write_pack(destination: str | os.PathLike[str], files: Mapping[str, bytes], *,
               manifest_name: str = "manifest.json", manifest_version: str | None = None,
               version_key: str = "manifest_version", manifest_extra: dict[str, Any] | None = None,
               file_fields: Mapping[str, Mapping[str, Any]] | None = None,
               render: Callable[[Any], bytes] | None = None,
               verify: Callable[[Path], Any] | None = None, force: bool = False,
               inputs: Iterable[str | os.PathLike[str]] = (), kind: str | None = None) -> Path:
    """Write a pack folder atomically: stage, manifest last, verify, rename into place.

    Either ``files`` already holds the manifest bytes under ``manifest_name`` (built by the
    caller, e.g. with ``build_manifest``), or ``manifest_version`` is given and the manifest is
    built here from the other files (``build_manifest`` with ``version_key``,
    ``manifest_extra`` and ``file_fields``) and rendered with ``render`` (default: aau-harness
    1.6's ``json.dumps(indent=2, sort_keys=True) + "\\n"``, ASCII).

    The files are written by ``write_folder`` (staged beside ``destination``, each file and
    folder fsync'ed, modes from the umask, renamed into place), with ``.gitattributes``
    (``* -text``, unlisted; module docstring), the manifest last. The staged
    folder is then checked with ``verify_manifest_dir(stage, manifest_name)`` and with
    ``verify(stage)`` when given (it may raise an ``AauError`` or return a list of problem
    lines; a non-empty list fails; any other return value, such as a reader's parsed pack, is
    ignored). Only then is it renamed to ``destination``; on any failure
    the staged folder is removed and nothing appears at ``destination``.

    Args:
        destination: the new pack folder.
        files: pack-relative POSIX path -> exact bytes (sub-folders are created).
        manifest_name: the manifest's file name.
        manifest_version / version_key / manifest_extra / file_fields: see ``build_manifest``.
        render: manifest object -> bytes.
        verify: a check of the staged folder.
        force: replace an existing destination folder, only when it is a pack of the same
            kind (``check_pack_output``; never a file, a symlink or any other folder).
            Missing parent folders are created only below the current directory or the
            temp folder (``aau_core.check_parent``).
        inputs: the files and folders the command read; the destination may not be one of
            them nor contain one (``check_pack_output``).
        kind: the aau-schemas kind of the manifest (``"submission-manifest"``); default: the
            kind ``aau_schemas.detect_kind`` finds for the new manifest.

    Returns:
        ``Path(destination)``.

    Raises:
        OutputError: the destination exists (without ``force``), is a file or a symlink, is
            not a pack of the same kind (even with ``force``), is or contains an input, cannot be written, or the staged pack failed verification (a
            bug in the writer).
        ValueError: neither or both of a manifest in ``files`` and ``manifest_version``, an
            unsafe file name, or ``.gitattributes`` in ``files``.
    """
    dest = Path(destination)
    payload = dict(files)
    if (manifest_name in payload) == (manifest_version is not None):
        raise ValueError("give the manifest either in files or via manifest_version, not both")
    if manifest_version is not None:
        manifest = build_manifest(payload, version=manifest_version, extra=manifest_extra,
                                  version_key=version_key, file_fields=file_fields)
        payload[manifest_name] = (render or _legacy_render)(manifest)
    if PACK_GITATTRIBUTES in payload:
        raise ValueError(f"{PACK_GITATTRIBUTES} is written by write_pack itself (unlisted)")
    payload[PACK_GITATTRIBUTES] = PACK_GITATTRIBUTES_BYTES
    for name in payload:
        _check_name(name)
    kind, version = _new_kind(payload[manifest_name], kind, version_key)
    same = _same_kind_check(manifest_name, kind, version, version_key)
    check_pack_output(dest, inputs=inputs, force=force, manifest_name=manifest_name, kind=kind,
                      version=version, version_key=version_key)
    order = [n for n in payload if n != manifest_name] + [manifest_name]

    def check(stage: Path) -> None:
        _verify_stage(dest, stage, manifest_name, verify)
        _check_destination(dest, force, same)

    write_folder(dest, {name: payload[name] for name in order}, check=check, replace=True)
    return dest


def check_pack_output(destination: str | os.PathLike[str], *,
                      inputs: Iterable[str | os.PathLike[str]] = (), force: bool,
                      option: str = "--out", manifest_name: str = "manifest.json",
                      kind: str | None = None, version: str | None = None,
                      version_key: str = "manifest_version") -> Path:
    """Check a pack folder destination before any work (``write_pack`` checks it again).

    The folder may not exist (without ``force``), may not be a file, a device, a pipe or a
    symlink (even with ``force``), may not be one of ``inputs`` nor contain one (replacing it
    would delete what the command reads), and its missing parent folders may be created only
    below the current directory or the temp folder (``check_parent``).

    ``force`` replaces an existing folder only when it is a pack of the same kind: it holds
    ``manifest_name`` as a regular file whose JSON validates as the aau-schemas ``kind`` (or,
    for a family without a schema, whose ``version_key`` names the same family as ``version``,
    the part before ``/``). Any other folder -- a project, a documents folder, a pack of another
    kind -- is refused even with ``force``: replacing it would delete files the command never
    wrote.

    Args:
        destination: the pack folder to create.
        inputs: the files and folders the command reads.
        force: an existing pack folder of the same kind may be replaced.
        option: the option naming the destination, for the message.
        manifest_name / kind / version / version_key: what identifies a pack of the same kind
            (at least ``kind`` or ``version``; with neither, no existing folder is replaced).

    Returns:
        ``Path(destination)``.

    Raises:
        OutputError: one line naming the destination.
    """
    dest = Path(destination)
    target = Path(os.path.abspath(dest)).resolve()
    for source in inputs:
        src = Path(os.path.abspath(source)).resolve()
        if src == target or target in src.parents:
            what = "is" if src == target else "contains"
            raise OutputError(f"{option} {dest}: {what} {source}, an input of this command; "
                              "name another folder")
    _check_destination(dest, force, _same_kind_check(manifest_name, kind, version, version_key))
    check_parent(dest)  # missing folders only below the current directory or the temp folder
    return dest


def _check_destination(dest: Path, force: bool, same_kind: Callable[[Path], str | None]) -> None:
    if dest.is_symlink():
        raise OutputError(f"{dest}: is a symlink; choose a new folder for the pack")
    if dest.exists():
        if not dest.is_dir():
            raise OutputError(f"{dest}: exists and is not a folder; not replaced")
        if not force:
            raise OutputError(f"{dest}: exists; choose a new folder for the pack (or --force)")
        why = same_kind(dest)
        if why is not None:
            raise OutputError(f"{dest}: exists and is not a pack of this kind ({why}); --force "
                              "replaces only such a pack; choose a new folder")


def _new_kind(manifest_bytes: bytes, kind: str | None,
              version_key: str) -> tuple[str | None, str | None]:
    """The schema kind and version string of the manifest about to be written."""
    try:
        doc = json.loads(manifest_bytes)
    except ValueError:
        return kind, None
    version = doc.get(version_key) if isinstance(doc, dict) else None
    version = version if isinstance(version, str) else None
    if kind is None and isinstance(doc, dict):
        import aau_schemas

        kind = aau_schemas.detect_kind(doc)
    return kind, version


def _same_kind_check(manifest_name: str, kind: str | None, version: str | None,
                     version_key: str) -> Callable[[Path], str | None]:
    """A check of an existing folder: ``None`` when it is a pack of the same kind, else why not."""

    def check(folder: Path) -> str | None:
        path = folder / manifest_name
        if path.is_symlink() or not path.is_file():
            return f"no {manifest_name}"
        try:
            doc = json.loads(path.read_bytes())
        except (OSError, ValueError):
            return f"{manifest_name} is not JSON"
        if kind is not None:
            import aau_schemas

            return None if aau_schemas.is_valid(kind, doc) else f"{manifest_name} is not a {kind}"
        found = doc.get(version_key) if isinstance(doc, dict) else None
        if version is None or not isinstance(found, str) or \
                found.split("/")[0] != version.split("/")[0]:
            return f"{manifest_name} is not a {version or 'known'} manifest"
        return None

    return check


def _verify_stage(dest: Path, stage: Path, manifest_name: str,
                  verify: Callable[[Path], Any] | None) -> None:
    problems = verify_manifest_dir(stage, manifest_name)
    if not problems and verify is not None:
        try:
            found = verify(stage)
            problems = list(found) if isinstance(found, (list, tuple)) else []
        except AauError as exc:
            problems = [str(exc)]
    if problems:
        raise OutputError(f"{dest}: the written pack failed its own verification (nothing "
                          f"written): {problems[0]}")


def _legacy_render(value: Any) -> bytes:
    import aau_schemas

    return aau_schemas.legacy_render_json(value).encode("ascii")


def intoto_statement(subjects: Mapping[str, bytes], predicate_type: str,
                     predicate: dict[str, Any]) -> dict[str, Any]:
    """An in-toto Statement v1 over ``subjects``.

    Args:
        subjects: subject name (a pack path) -> exact bytes; listed in the given order.
        predicate_type: the predicate's type URI.
        predicate: the predicate object (copied as given).

    Returns:
        ``{"_type": "https://in-toto.io/Statement/v1", "subject": [{"name", "digest":
        {"sha256"}}], "predicateType", "predicate"}`` (key order as in aau-harness 1.6's
        release pack; in-toto attestation spec v1).

    Raises:
        ValueError: no subjects (the spec requires at least one).
    """
    if not subjects:
        raise ValueError("an in-toto statement needs at least one subject")
    return {
        "_type": INTOTO_STATEMENT_TYPE,
        "subject": [{"name": name, "digest": {"sha256": sha256_hex(data)}}
                    for name, data in subjects.items()],
        "predicateType": predicate_type,
        "predicate": predicate,
    }
