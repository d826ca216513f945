"""The shared manifest/pack layer: safe names, manifests, tamper detection, atomic pack writing,
in-toto statements."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from aau_core import (
    InputError,
    OutputError,
    build_manifest,
    check_pack_output,
    check_relative_path,
    intoto_statement,
    safe_slug,
    verify_manifest_dir,
    write_pack,
)
from aau_core._files._manifest import INTOTO_STATEMENT_TYPE

FILES = {"README.md": b"# pack\n", "data/a.json": b'{"a": 1}\n', "b.txt": b"\xff\x00bytes"}


@pytest.mark.parametrize("value", ["aau-agent-release-conformance-v1", "run_01.v2", "A-b"])
def test_safe_slug_keeps_safe_values(value: str) -> None:
    assert safe_slug(value) == value


@pytest.mark.parametrize("value", ["../../x", "..", ".", "a/b", "/etc/passwd", "", "-x", ".hidden",
                                   "é ü", "a\\b", "x" * 300])
def test_safe_slug_never_escapes(value: str, tmp_path: Path) -> None:
    slug = safe_slug(value)
    assert slug and "/" not in slug and "\\" not in slug
    assert not slug.startswith((".", "-")) and len(slug) <= 111
    assert (tmp_path / slug).resolve().parent == tmp_path.resolve()
    assert slug.endswith(hashlib.sha256(value.encode()).hexdigest()[:10])


def test_safe_slug_separates_values_that_sanitise_alike() -> None:
    assert safe_slug("../x") != safe_slug("x") != safe_slug("/x")
    with pytest.raises(TypeError):
        safe_slug(None)  # type: ignore[arg-type]


@pytest.mark.parametrize("path, rule", [
    ("", "non-empty"), ("/etc/passwd", "absolute"), ("a/../../b", "'..'"), ("./a", "'.'"),
    ("a//b", "empty segment"), ("a/", "empty segment"), (".git/config", "'.git'"),
    ("a\\b", "backslash"), ("C:/x", "absolute"), ("a\nb", "control"),
])
def test_check_relative_path_refuses(path: str, rule: str, tmp_path: Path) -> None:
    with pytest.raises(InputError, match=rule) as info:
        check_relative_path(path, tmp_path, source="capsule.json", json_path="$.artifacts.x.path")
    assert str(info.value).startswith("capsule.json: $.artifacts.x.path: ")


def test_check_relative_path_refuses_symlinks_on_the_way(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.json").write_text("{}")
    root = tmp_path / "root"
    (root / "real").mkdir(parents=True)
    (root / "real" / "f.json").write_text("{}")
    (root / "link").symlink_to(outside)
    (root / "real" / "alias.json").symlink_to(root / "real" / "f.json")
    assert check_relative_path("real/f.json", root) == root / "real" / "f.json"
    assert check_relative_path("real/not-yet/there.json", root) == root / "real/not-yet/there.json"
    for bad in ("link/secret.json", "real/alias.json"):
        with pytest.raises(InputError, match="symlink"):
            check_relative_path(bad, root)


def test_build_manifest_rows_sorted_with_extras() -> None:
    manifest = build_manifest(FILES, version="v/1", version_key="pack_version",
                              extra={"hash_algorithm": "sha256", "id": "x"},
                              file_fields={"b.txt": {"source_path": "src/b.txt"}})
    assert list(manifest) == ["pack_version", "files", "hash_algorithm", "id"]
    assert [r["path"] for r in manifest["files"]] == ["README.md", "b.txt", "data/a.json"]
    row = manifest["files"][1]
    assert row == {"path": "b.txt", "bytes": 7, "sha256": hashlib.sha256(b"\xff\x00bytes").hexdigest(),
                   "source_path": "src/b.txt"}
    with pytest.raises(ValueError, match="reserved"):
        build_manifest(FILES, version="v", extra={"files": []})
    with pytest.raises(ValueError, match="not in the pack"):
        build_manifest(FILES, version="v", file_fields={"nope": {}})
    with pytest.raises(ValueError, match="safe pack path"):
        build_manifest({"../x": b""}, version="v")


@pytest.fixture
def pack(tmp_path: Path) -> Path:
    return write_pack(tmp_path / "pack", FILES, manifest_version="test-pack/1.0",
                      manifest_extra={"hash_algorithm": "sha256"})


def test_write_pack_round_trip(pack: Path) -> None:
    assert verify_manifest_dir(pack, version="test-pack/1.0") == []
    manifest = json.loads((pack / "manifest.json").read_text())
    assert (pack / "manifest.json").read_text() == json.dumps(manifest, indent=2,
                                                              sort_keys=True) + "\n"
    assert {r["path"] for r in manifest["files"]} == set(FILES)
    assert (pack / "data" / "a.json").read_bytes() == FILES["data/a.json"]
    assert [p.name for p in pack.parent.iterdir()] == ["pack"]  # no staging folder left
    assert verify_manifest_dir(pack, version="other/1.0") == [
        f"{pack / 'manifest.json'}: $.manifest_version: expected 'other/1.0', found 'test-pack/1.0'"]


def test_tamper_one_byte(pack: Path) -> None:
    target = pack / "data" / "a.json"
    target.write_bytes(b'{"a": 2}\n')
    assert verify_manifest_dir(pack) == [f"{target}: SHA-256 differs from the manifest (changed)"]


def test_tamper_length(pack: Path) -> None:
    (pack / "b.txt").write_bytes(b"longer bytes")
    problems = verify_manifest_dir(pack)
    assert len(problems) == 2 and "12 bytes, the manifest says 7" in problems[0]


def test_tamper_file_added(pack: Path) -> None:
    (pack / "data" / "extra.json").write_text("{}")
    assert verify_manifest_dir(pack) == [
        f"{pack / 'data' / 'extra.json'}: not listed in the manifest (added)"]


def test_tamper_file_removed(pack: Path) -> None:
    (pack / "README.md").unlink()
    assert verify_manifest_dir(pack) == [
        f"{pack / 'README.md'}: listed in the manifest but missing (removed)"]


def test_tamper_symlink_swapped_in(pack: Path, tmp_path: Path) -> None:
    copy = tmp_path / "same-bytes.txt"
    copy.write_bytes(FILES["b.txt"])
    (pack / "b.txt").unlink()
    (pack / "b.txt").symlink_to(copy)  # identical bytes behind a symlink: still refused
    assert verify_manifest_dir(pack) == [f"{pack / 'b.txt'}: a symlink; packs hold regular files only"]
    (pack / "data").rename(tmp_path / "data")
    (pack / "data").symlink_to(tmp_path / "data")
    problems = verify_manifest_dir(pack)
    assert f"{pack / 'data'}: a symlink; packs hold regular files only" in problems


def test_manifest_symlink_and_fifo(pack: Path, tmp_path: Path) -> None:
    os.mkfifo(pack / "pipe")
    assert verify_manifest_dir(pack) == [f"{pack / 'pipe'}: not a regular file"]
    os.unlink(pack / "pipe")
    (pack / "manifest.json").rename(tmp_path / "m.json")
    (pack / "manifest.json").symlink_to(tmp_path / "m.json")
    assert verify_manifest_dir(pack) == [
        f"{pack / 'manifest.json'}: a symlink; packs hold regular files only"]


@pytest.mark.parametrize("manifest, message", [
    (b"not json", "not readable JSON"),
    (b"[]", "must be a JSON object"),
    (b'{"files": null}', "$.files: must be a list"),
    (b'{"files": [null]}', "$.files[0]: must be an object"),
    (b'{"files": [{"path": "a", "bytes": true, "sha256": "x"}]}', "$.files[0]: must be an object"),
    (b'{"files": [{"path": "../a", "bytes": 1, "sha256": "x"}]}', "$.files[0].path: '../a'"),
])
def test_malformed_manifest_is_a_problem_not_a_crash(tmp_path: Path, manifest: bytes,
                                                     message: str) -> None:
    (tmp_path / "manifest.json").write_bytes(manifest)
    problems = verify_manifest_dir(tmp_path)
    assert problems and message in problems[0]


def test_missing_manifest_and_not_a_folder(tmp_path: Path) -> None:
    assert verify_manifest_dir(tmp_path) == [f"{tmp_path / 'manifest.json'}: missing; the pack has "
                                             "no manifest"]
    assert "not a folder" in verify_manifest_dir(tmp_path / "nope")[0]


def test_write_pack_refuses_existing_unless_force(pack: Path) -> None:
    with pytest.raises(OutputError, match="exists"):
        write_pack(pack, FILES, manifest_version="test-pack/1.0")
    write_pack(pack, {"only.txt": b"x"}, manifest_version="test-pack/2.0", force=True)
    assert sorted(p.name for p in pack.iterdir()) == [".gitattributes", "manifest.json", "only.txt"]
    assert verify_manifest_dir(pack, version="test-pack/2.0") == []
    assert [p.name for p in pack.parent.iterdir()] == ["pack"]


def test_write_pack_refuses_symlink_and_file_destinations(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(OutputError, match="not a folder"):
        write_pack(tmp_path / "file", FILES, manifest_version="v", force=True)
    with pytest.raises(OutputError, match="symlink"):
        write_pack(tmp_path / "link", FILES, manifest_version="v", force=True)
    assert not (tmp_path / "elsewhere").exists()


def test_failed_verification_leaves_nothing(tmp_path: Path) -> None:
    seen = []

    def verify(stage: Path) -> list[str]:
        seen.append(sorted(p.name for p in stage.iterdir()))
        return ["stage: $.x: wrong"]

    with pytest.raises(OutputError, match="failed its own verification.*wrong"):
        write_pack(tmp_path / "p", FILES, manifest_version="v", verify=verify)
    assert seen == [[".gitattributes", "README.md", "b.txt", "data", "manifest.json"]]
    assert list(tmp_path.iterdir()) == []


def test_failed_verification_keeps_the_previous_pack(pack: Path) -> None:
    before = (pack / "manifest.json").read_bytes()

    def verify(stage: Path) -> None:
        raise InputError("bad", source=str(stage))

    with pytest.raises(OutputError, match="bad"):
        write_pack(pack, {"x": b"y"}, manifest_version="test-pack/1.1", verify=verify, force=True)
    assert (pack / "manifest.json").read_bytes() == before


def test_force_replaces_only_a_pack_of_the_same_kind(tmp_path: Path) -> None:
    """--force never wipes a folder that is not a pack of this kind (docs, a project, another
    family's pack): the folder and every file in it stay."""
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("years of work")
    with pytest.raises(OutputError, match="not a pack of this kind.*no manifest.json"):
        write_pack(docs, FILES, manifest_version="test-pack/1.0", force=True)
    with pytest.raises(OutputError, match="not a pack of this kind"):
        check_pack_output(docs, force=True, version="test-pack/1.0")
    other = write_pack(tmp_path / "other", FILES, manifest_version="other-pack/1.0")
    with pytest.raises(OutputError, match="not a pack of this kind"):
        write_pack(other, FILES, manifest_version="test-pack/1.0", force=True)
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "manifest.json").write_text("{not json")
    with pytest.raises(OutputError, match="not JSON"):
        write_pack(tmp_path / "bad", FILES, manifest_version="test-pack/1.0", force=True)
    # a schema kind: the existing manifest must validate as that kind
    with pytest.raises(OutputError, match="is not a submission-manifest"):
        check_pack_output(other, force=True, kind="submission-manifest")
    assert (docs / "thesis.txt").read_text() == "years of work"
    assert (other / "README.md").exists()


def test_write_pack_with_caller_manifest_and_bad_arguments(tmp_path: Path) -> None:
    manifest = build_manifest(FILES, version="v")
    data = json.dumps(manifest).encode()
    out = write_pack(tmp_path / "p", {**FILES, "manifest.json": data})
    assert (out / "manifest.json").read_bytes() == data
    with pytest.raises(ValueError, match="either"):
        write_pack(tmp_path / "q", {**FILES, "manifest.json": data}, manifest_version="v")
    with pytest.raises(ValueError, match="either"):
        write_pack(tmp_path / "q", FILES)
    with pytest.raises(ValueError, match="safe pack path"):
        write_pack(tmp_path / "q", {"../evil": b""}, manifest_version="v")
    bad = {**FILES, "manifest.json": json.dumps(build_manifest({"README.md": b"other"},
                                                               version="v")).encode()}
    with pytest.raises(OutputError, match="failed its own verification"):
        write_pack(tmp_path / "r", bad)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p"]


def test_intoto_statement() -> None:
    statement = intoto_statement({"release-decision.json": b"{}\n"}, "https://example.org/p/v1",
                                 {"k": 1})
    assert statement == {
        "_type": INTOTO_STATEMENT_TYPE,
        "subject": [{"name": "release-decision.json",
                     "digest": {"sha256": hashlib.sha256(b"{}\n").hexdigest()}}],
        "predicateType": "https://example.org/p/v1",
        "predicate": {"k": 1},
    }
    assert INTOTO_STATEMENT_TYPE == "https://in-toto.io/Statement/v1"
    with pytest.raises(ValueError):
        intoto_statement({}, "t", {})


def test_an_empty_folder_added_to_a_pack_is_a_finding(pack: Path) -> None:
    (pack / "data" / "added").mkdir()
    assert verify_manifest_dir(pack) == [
        f"{pack / 'data' / 'added'}: an empty folder the manifest does not list (added after "
        "the pack was written)"]
    assert verify_manifest_dir(pack, empty_folders_ok=True) == []


def test_manifest_row_violations_words_row_problems_as_aau_harness_1_6(tmp_path):
    from aau_core import build_manifest
    from aau_core._files._manifest import manifest_row_violations

    files = {"a.txt": b"alpha\n", "b.txt": b"beta\n"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    rows = build_manifest(files, version="x/1.0")["files"]
    assert manifest_row_violations(tmp_path, rows) == []
    (tmp_path / "a.txt").write_bytes(b"alpha!\n")
    (tmp_path / "b.txt").write_bytes(b"beta!\n"[:5])  # same length, other bytes
    assert manifest_row_violations(tmp_path, [*rows, rows[1]]) == [
        ("$.files[0].bytes", "a.txt has 7 bytes"),
        ("$.files[0].sha256", "a.txt has another SHA-256"),
        ("$.files[1].sha256", "b.txt has another SHA-256"),
        ("$.files[2].path", "b.txt listed twice"),
    ]


def test_write_pack_adds_an_unlisted_gitattributes_and_reserves_the_name(tmp_path: Path) -> None:
    from aau_core._files._manifest import PACK_GITATTRIBUTES_BYTES

    pack = write_pack(tmp_path / "p", FILES, manifest_version="test-pack/1.0")
    assert (pack / ".gitattributes").read_bytes() == PACK_GITATTRIBUTES_BYTES == b"* -text\n"
    rows = json.loads((pack / "manifest.json").read_bytes())["files"]
    assert [r["path"] for r in rows] == sorted(FILES)
    assert verify_manifest_dir(pack) == []
    (pack / "data" / ".gitattributes").write_bytes(PACK_GITATTRIBUTES_BYTES)  # only at the top
    assert verify_manifest_dir(pack) == [
        f"{pack / 'data' / '.gitattributes'}: not listed in the manifest (added)"]
    with pytest.raises(ValueError, match=".gitattributes is written by write_pack itself"):
        write_pack(tmp_path / "q", {**FILES, ".gitattributes": b"*\n"}, manifest_version="v")


def test_crlf_converted_rows_are_named_in_both_wordings(tmp_path: Path) -> None:
    from aau_core._files._manifest import manifest_row_violations

    files = {"a.txt": b"one\ntwo\n", "b.bin": b"\r\n"}
    for name, data in files.items():
        (tmp_path / name).write_bytes(data)
    (tmp_path / "manifest.json").write_bytes(json.dumps(build_manifest(files, version="x/1.0"))
                                             .encode())
    rows = build_manifest(files, version="x/1.0")["files"]
    (tmp_path / "a.txt").write_bytes(b"one\r\ntwo\r\n")
    hint = "its line endings were converted to CRLF (git autocrlf?); the LF form matches"
    assert verify_manifest_dir(tmp_path, version="x/1.0", version_key="manifest_version") == [
        f"{tmp_path / 'a.txt'}: SHA-256 differs from the manifest: {hint}"]
    assert manifest_row_violations(tmp_path, rows) == [
        ("$.files[0].sha256", f"a.txt has another SHA-256: {hint}")]
    (tmp_path / "b.bin").write_bytes(b"\n")  # CRLF -> LF is not the converted direction
    assert manifest_row_violations(tmp_path, rows)[1:] == [
        ("$.files[1].bytes", "b.bin has 1 bytes"), ("$.files[1].sha256", "b.bin has another SHA-256")]
