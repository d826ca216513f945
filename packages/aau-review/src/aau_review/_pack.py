"""A review pack folder, read back checked.

A pack holds exactly ``tasks.json`` (what raters see), ``scores.json`` (the automatic verdicts,
kept by the organiser), ``README.md`` and ``manifest.json``, which records the design and the
byte length and SHA-256 of the three others. No symlinks, no folders. Labels files live outside
the pack and name it by the SHA-256 of its ``tasks.json``.
"""

from __future__ import annotations

from pathlib import Path

import attrs
from aau_core import InputError, InvalidDocumentError
from aau_core._files._manifest import (  # internal to the monorepo
    PACK_GITATTRIBUTES,
    extra_pack_file_message,
    is_pack_gitattributes,
    manifest_row_violations,
    stray_folder_message,
)
from aau_schemas import sha256_hex

from ._converter import converter
from ._documents import (
    check_manifest,
    check_scores,
    check_tasks,
    load_model,
    read_document,
)
from ._models import Manifest, ScoresDocument, Tasks
from ._protocol import (
    MANIFEST_KIND,
    MANIFEST_NAME,
    PACK_FILES,
    SCORES_KIND,
    SCORES_NAME,
    TASKS_KIND,
    TASKS_NAME,
)


@attrs.frozen
class ReviewPack:
    """A checked pack: its folder, models, and the SHA-256 of ``manifest.json`` and
    ``tasks.json`` (labels and reports bind to them)."""

    path: Path
    manifest: Manifest
    tasks: Tasks
    scores: ScoresDocument
    manifest_sha256: str
    tasks_sha256: str


def read_review_pack(path: str | Path) -> ReviewPack:
    """Read a review pack folder and check everything: the file set, the manifest (schema,
    bytes and hashes of the files, design against tasks.json), tasks.json and scores.json
    (schemas and code rules).

    Raises:
        InputError: not a folder, a symlink or a folder inside, a missing or extra file.
        InvalidDocumentError: a document breaks its schema or a rule, or a file's bytes differ
            from the manifest (edited after the pack was made).
    """
    root = Path(path)
    if not root.is_dir():
        raise InputError("not a folder (a review pack is a folder made by aau review prepare)",
                         source=str(root))
    found = set()
    for item in sorted(root.iterdir()):
        if item.is_symlink():
            raise InputError("symlinks are not allowed in a review pack", source=str(item))
        if item.is_dir():
            raise InputError(stray_folder_message(item, "a review pack holds no folders"),
                             source=str(item))
        found.add(item.name)
    if PACK_GITATTRIBUTES in found and is_pack_gitattributes(root / PACK_GITATTRIBUTES):
        found.discard(PACK_GITATTRIBUTES)  # written by write_pack, unlisted (aau_core._files)
    expected = {*PACK_FILES, MANIFEST_NAME}
    for name in sorted(expected - found):
        raise InputError("missing from the review pack", source=str(root / name))
    for name in sorted(found - expected):
        raise InputError(extra_pack_file_message(sorted(expected), outside="labels files and "
                                                 "reports"), source=str(root / name))
    manifest_bytes = (root / MANIFEST_NAME).read_bytes()
    manifest = load_model(MANIFEST_KIND, read_document(root / MANIFEST_NAME),
                          str(root / MANIFEST_NAME))
    rows = [converter.unstructure(row) for row in manifest.files]
    problems = manifest_row_violations(root, rows, MANIFEST_NAME)
    if problems:
        raise InvalidDocumentError([(at, f"{message} than the manifest records (edited after "
                                         "the pack was made)") if "another" in message else
                                    (at, message) for at, message in problems],
                                   source=str(root / MANIFEST_NAME))
    tasks_path = root / TASKS_NAME
    tasks_bytes = tasks_path.read_bytes()
    tasks = check_tasks(load_model(TASKS_KIND, read_document(tasks_path), str(tasks_path)),
                        str(tasks_path))
    scores_path = root / SCORES_NAME
    scores = check_scores(load_model(SCORES_KIND, read_document(scores_path),
                                     str(scores_path)), tasks, str(scores_path))
    check_manifest(manifest, tasks, str(root / MANIFEST_NAME))
    return ReviewPack(path=root, manifest=manifest, tasks=tasks, scores=scores,
                manifest_sha256=sha256_hex(manifest_bytes), tasks_sha256=sha256_hex(tasks_bytes))
