"""The run store never lands inside a pack: following a review pack's README from inside the
pack (``cd pack``, then ``aau review judge .`` and ``aau review summarize .``) records beside
the pack, the pack stays valid, a store named inside a pack is refused, and a pack an earlier
aau did write a store into says what the ``.aau`` folder is and what to do."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
REAL = REPO / "examples" / "real"
LABELS = REPO / "schemas" / "review" / "v1" / "examples" / "valid"
SUITE = REPO / "examples" / "suites" / "public-service-routing.json"


def aau(*args, cwd: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    """The installed ``aau`` with the default run store (``AAU_RUN_STORE`` unset)."""
    script = Path(sys.executable).parent / "aau"
    base = {k: v for k, v in os.environ.items() if k != "AAU_RUN_STORE"}
    return subprocess.run([str(script), *map(str, args)], cwd=cwd, capture_output=True,
                          text=True, env={**base, **(env or {})}, timeout=300)


def _review_pack(tmp_path: Path) -> Path:
    name = "bfcl-live_simple"
    done = aau("review", "prepare", REAL / "private" / f"{name}.json", "--receipt",
               REAL / "receipts" / f"{name}.json", "--suite", REAL / "suites" / f"{name}.json",
               "--raters", "alice,bob", "--seed", "7", "--out", "rpack", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    for rater in ("alice", "bob"):
        shutil.copy(LABELS / f"labels-{rater}.json", tmp_path)
    return tmp_path / "rpack"


def test_following_the_review_readme_from_inside_the_pack_keeps_it_valid(tmp_path):
    pack = _review_pack(tmp_path)
    assert "From this folder:" in (pack / "README.md").read_text(encoding="utf-8")
    done = aau("review", "judge", ".", "--backend", "mock", "--out", "../judge.json", cwd=pack)
    assert done.returncode == 0, done.stderr
    labels = ["--labels", "../labels-alice.json", "--labels", "../labels-bob.json",
              "--labels", "../judge.json"]
    done = aau("review", "summarize", ".", *labels, "--out", "../report.json", "--md", cwd=pack)
    assert done.returncode == 0, done.stderr
    assert not (pack / ".aau").exists()
    store = tmp_path / ".aau" / "runs.sqlite"  # beside the pack, where it was prepared from
    assert "recorded as document 1 in ../.aau/runs.sqlite" in done.stderr
    db = sqlite3.connect(store)
    try:
        assert db.execute("SELECT kind, source FROM documents").fetchall() == [
            ("review-report", "../report.json")]
    finally:
        db.close()
    for args in (("review", "validate", "."),
                 ("review", "summarize", ".", *labels, "--out", "../report.json", "--force"),
                 ("review", "judge", ".", "--backend", "mock", "--out", "../judge.json",
                  "--force")):
        done = aau(*args, cwd=pack)
        assert done.returncode == 0, (args, done.stderr)
    assert sorted(p.name for p in pack.iterdir()) == [
        ".gitattributes", "README.md", "manifest.json", "scores.json", "tasks.json"]
    # reading from inside the pack finds the same store
    done = aau("runs", "documents", "--json", cwd=pack)
    assert done.returncode == 0, done.stderr
    assert [d["source"] for d in json.loads(done.stdout)] == ["../report.json"]


def test_a_store_named_inside_the_pack_read_is_refused_before_any_work(tmp_path):
    pack = _review_pack(tmp_path)
    labels = ["--labels", "../labels-alice.json", "--labels", "../labels-bob.json"]
    for extra, env, named in (
            (["--store", "runs.sqlite"], None, "--store runs.sqlite"),
            ([], {"AAU_RUN_STORE": ".aau/runs.sqlite"}, "AAU_RUN_STORE=.aau/runs.sqlite")):
        done = aau("review", "summarize", ".", *labels, "--out", "../report.json", *extra,
                   cwd=pack, env=env)
        assert done.returncode == 2, done.stderr
        assert done.stderr.strip() == (
            f"aau: error: {named}: inside this folder, a pack; a pack holds only its own "
            "files (a run store there breaks its check); name a store outside the pack, e.g. "
            "../.aau/runs.sqlite")
        assert not (tmp_path / "report.json").exists()
    # from outside too, and for an old pack aau did not mark (no .gitattributes)
    (pack / ".gitattributes").unlink()
    done = aau("review", "summarize", "rpack", "--labels", "labels-alice.json", "--out",
               "report.json", "--store", "rpack/x/runs.sqlite", cwd=tmp_path)
    assert done.returncode == 2 and "inside the pack rpack;" in done.stderr, done.stderr
    assert sorted(p.name for p in pack.iterdir()) == [
        "README.md", "manifest.json", "scores.json", "tasks.json"]


def test_a_pack_holding_a_store_folder_says_what_it_is(tmp_path):
    pack = _review_pack(tmp_path)
    (pack / ".aau").mkdir()
    (pack / ".aau" / "runs.sqlite").write_bytes(b"")
    done = aau("review", "validate", ".", cwd=pack)
    assert done.returncode == 1
    assert done.stderr.startswith(".aau: a review pack holds no folders; .aau is the run "
                                  "store's folder (an earlier aau recorded into it when run "
                                  "from inside the pack"), done.stderr
    assert "move it out of the pack" in done.stderr


def test_every_command_run_inside_a_pack_aau_wrote_records_beside_it(tmp_path):
    # not only the commands that read the pack: aau evaluate run from inside a baseline pack
    done = aau("baseline", "prepare", SUITE, "--id", "my-study", "--title", "T", "--purpose",
               "P", "--out", "pack", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    pack = tmp_path / "pack"
    done = aau("evaluate", SUITE, "--mock", "--out", "../r.json", cwd=pack)
    assert done.returncode == 0, done.stderr
    assert not (pack / ".aau").exists() and (tmp_path / ".aau" / "runs.sqlite").is_file()
    assert aau("baseline", "validate", ".", cwd=pack).returncode == 0
    done = aau("runs", "add", "../r.json", "--store", "runs.sqlite", cwd=pack)
    assert done.returncode == 2 and "--store runs.sqlite: inside this folder, a pack" in \
        done.stderr, done.stderr


def test_a_manifest_checked_pack_names_a_store_folder_inside_it(tmp_path):
    # evidence, submission and release packs are checked by verify_manifest_dir
    from aau_core import verify_manifest_dir, write_pack

    pack = write_pack(tmp_path / "pack", {"README.md": b"x\n"}, manifest_version="t/1.0")
    assert verify_manifest_dir(pack) == []
    (pack / ".aau").mkdir()
    (pack / ".aau" / "runs.sqlite").write_bytes(b"")
    assert verify_manifest_dir(pack) == [
        f"{pack / '.aau' / 'runs.sqlite'}: not listed in the manifest (added); .aau is the run "
        "store's folder (an earlier aau recorded into it when run from inside the pack; aau now "
        "records beside the pack): move it out of the pack; its runs stay readable with aau "
        "runs list --store NEW-PLACE/runs.sqlite"]
