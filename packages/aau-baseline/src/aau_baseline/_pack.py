"""A human-baseline pack folder: its files, its session template, and reading it back checked.

A pack holds exactly ``study.json``, ``answer-key.json``, ``session-template.json``,
``README.md`` and ``manifest.json`` (empty subfolders tolerated, as in aau-harness 1.6; no
symlinks). ``manifest.json`` records the byte length and SHA-256 of the exact bytes of the other
four. Participants get the study, the template and the README; the answer key stays with the
organiser.
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

from ._converter import converter
from ._documents import (
    ANSWER_KEY_KIND,
    MANIFEST_KIND,
    STUDY_KIND,
    check_answer_key,
    check_study,
    load,
    load_model,
    read_document,
    study_sha256,
)
from ._models import AnswerKey, PackManifest, Session, Study
from ._protocol import ABSTAIN
from ._summary import Response

PACK_FILES = ("README.md", "answer-key.json", "session-template.json", "study.json")
"""The files the manifest lists, in manifest order; ``manifest.json`` completes the pack."""
MANIFEST_NAME = "manifest.json"
PLACEHOLDER_SESSION_ID = "replace-with-12-to-64-lowercase-hex-characters"


def session_template(study: Study) -> Session:
    """The session a participant fills in: every case in study order, answered ``__abstain__``
    with confidence 0 and 1000 ms, and a placeholder id (invalid until replaced)."""
    return Session(
        study_id=study.study_id,
        study_sha256=study_sha256(study),
        anonymous_session_id=PLACEHOLDER_SESSION_ID,
        session_kind="synthetic_reference",
        participant_role=study.participant_roles[0],
        protection_basis="synthetic_only",
        responses=[Response(scenario_id=c.scenario_id, outcome=ABSTAIN, confidence=0,
                            elapsed_ms=1000) for c in study.cases],
    )


@attrs.frozen
class Pack:
    """A checked pack: its folder and the study, answer key and manifest models."""

    path: Path
    study: Study
    answer_key: AnswerKey
    manifest: PackManifest


def read_pack(path: str | Path) -> Pack:
    """Read a pack folder and check everything: the file set, the manifest (schema, study id,
    byte lengths and hashes), the study and answer key (schemas and code rules), and that the
    session template equals the one derived from the study.

    Raises:
        InputError: not a folder, a symlink or a non-empty folder inside, a missing or extra
            file.
        InvalidDocumentError: a document breaks its schema or a rule, or a hash differs.
    """
    root = Path(path)
    if not root.is_dir():
        raise InputError("not a folder (a human-baseline pack is a folder)", source=str(root))
    found = set()
    # only the top level is read: a folder that is not a pack is refused at its first stray
    # entry, without walking whatever tree lies below it
    for item in sorted(root.iterdir()):
        if item.is_symlink():
            raise InputError("symlinks are not allowed in a pack", source=str(item))
        if item.is_dir():
            if any(item.iterdir()):
                raise InputError(stray_folder_message(item, "a pack holds no folders with "
                                                          "content"), source=str(item))
            continue  # an empty folder is harmless (as aau-harness 1.6 allows)
        found.add(item.name)
    expected = {*PACK_FILES, MANIFEST_NAME}
    for name in sorted(expected - found):
        raise InputError("missing from the pack", source=str(root / name))
    if PACK_GITATTRIBUTES in found and is_pack_gitattributes(root / PACK_GITATTRIBUTES):
        found.discard(PACK_GITATTRIBUTES)  # written by write_pack, unlisted (aau_core._files)
    for name in sorted(found - expected):
        raise InputError(extra_pack_file_message(sorted(expected), outside="session files "
                                                 "and reports"), source=str(root / name))
    manifest = load(MANIFEST_KIND, root / MANIFEST_NAME)
    rows = [converter.unstructure(row) for row in manifest.files]
    problems = manifest_row_violations(root, rows, MANIFEST_NAME)
    if problems:
        raise InvalidDocumentError(problems, source=str(root / MANIFEST_NAME))
    study_path = root / "study.json"
    study = check_study(load(STUDY_KIND, study_path), str(study_path))
    if manifest.study_id != study.study_id:
        raise InputError("does not match the study", source=str(root / MANIFEST_NAME),
                         path="$.study_id")
    key_path = root / "answer-key.json"
    answer_key = check_answer_key(load(ANSWER_KEY_KIND, key_path), study, str(key_path))
    template_path = root / "session-template.json"
    template = load_model("human-baseline-session-template", read_document(template_path),
                          str(template_path))
    if template != session_template(study):
        raise InputError("differs from the template derived from study.json (edited or stale)",
                         source=str(template_path), path="$")
    return Pack(path=root, study=study, answer_key=answer_key, manifest=manifest)


