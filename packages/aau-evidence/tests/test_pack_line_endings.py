"""Packs committed to git: every pack aau writes carries ``.gitattributes`` (``* -text``, not
listed in its manifest) so git keeps its bytes, and a pack file whose line endings git converted
to CRLF is reported as such when its LF form matches the manifest."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from aau_core import run
from aau_evidence._evidence_pack import write_evidence_pack

GIT = shutil.which("git")
CRLF_LINE = ("SHA-256 differs from the manifest: its line endings were converted to CRLF "
             "(git autocrlf?); the LF form matches")


@pytest.fixture
def pack(chain: Any, tmp_path: Path) -> Path:
    write_evidence_pack(chain.write_capsule(chain.capsule()), chain.root, tmp_path / "pack")
    return tmp_path / "pack"


def _verify(capsys: Any, pack: Path) -> tuple[int, list[str]]:
    rc = run(["evidence", "verify", str(pack), "--json"])
    out, _ = capsys.readouterr()
    doc = json.loads(out)
    return rc, doc.get("problems", [])


def test_every_pack_has_an_unlisted_gitattributes(pack: Path, capsys: Any) -> None:
    assert (pack / ".gitattributes").read_bytes() == b"* -text\n"
    rows = json.loads((pack / "manifest.json").read_text())["files"]
    assert ".gitattributes" not in [r["path"] for r in rows]
    assert _verify(capsys, pack) == (0, [])


def test_a_pack_written_before_gitattributes_still_verifies(pack: Path, capsys: Any) -> None:
    (pack / ".gitattributes").unlink()
    assert _verify(capsys, pack) == (0, [])


def test_an_edited_gitattributes_is_an_unlisted_file(pack: Path, capsys: Any) -> None:
    (pack / ".gitattributes").write_bytes(b"* text eol=crlf\n")
    assert _verify(capsys, pack) == (1, [
        f"{pack / '.gitattributes'}: not listed in the manifest (added) (aau writes it holding "
        "exactly '* -text\\n')"])


def test_crlf_converted_file_names_the_likely_cause(pack: Path, capsys: Any) -> None:
    readme = pack / "README.md"
    readme.write_bytes(readme.read_bytes().replace(b"\n", b"\r\n"))
    assert _verify(capsys, pack) == (1, [f"{readme}: {CRLF_LINE}"])
    # a CRLF file that was also edited is plain drift, in the usual words
    readme.write_bytes(readme.read_bytes().replace(b"# ", b"#!", 1))
    rc, problems = _verify(capsys, pack)
    assert rc == 1 and problems[0].startswith(f"{readme}: ") and "CRLF" not in problems[0]


@pytest.mark.skipif(GIT is None, reason="git is not installed")
@pytest.mark.parametrize(("keep_attributes", "intact"), [(True, True), (False, False)])
def test_git_autocrlf_round_trip(pack: Path, tmp_path: Path, capsys: Any, keep_attributes: bool,
                                 intact: bool) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(pack, repo / "pack")
    if not keep_attributes:
        (repo / "pack" / ".gitattributes").unlink()
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org"}

    def git(*args: str) -> None:
        subprocess.run([GIT, "-C", str(repo), *args], check=True, env=env, capture_output=True)

    git("init", "-q")
    git("config", "core.autocrlf", "true")
    git("add", "-A")
    git("commit", "-q", "-m", "pack")
    shutil.rmtree(repo / "pack")
    git("checkout", "--", ".")
    rc, problems = _verify(capsys, repo / "pack")
    if intact:
        assert (rc, problems) == (0, [])
    else:
        assert rc == 1 and problems and all(line.endswith(CRLF_LINE) for line in problems)
