"""tools/schema_sums.py: released schema files are immutable (schemas/SHA256SUMS), in CI."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TOOL = REPO / "tools" / "schema_sums.py"
SUMS = REPO / "schemas" / "SHA256SUMS"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True,
                          check=False, cwd=REPO)


@pytest.fixture()
def schemas_copy(tmp_path: Path) -> Path:
    dest = tmp_path / "schemas"
    shutil.copytree(REPO / "schemas", dest)
    return dest


def test_repository_schemas_match_their_recorded_sums() -> None:
    proc = run("--check")
    assert proc.returncode == 0, proc.stderr
    assert "released schema" not in proc.stderr


def test_sums_file_is_sha256sum_format_sorted_and_hashes_the_exact_bytes() -> None:
    lines = SUMS.read_text(encoding="utf-8").splitlines()
    paths = [line.split("  ", 1)[1] for line in lines]
    assert paths == sorted(paths) and len(set(paths)) == len(paths)
    assert "suite/v1/suite.schema.json" in paths and "receipt/v2/receipt.schema.json" in paths
    for line in lines:
        digest, path = line.split("  ", 1)
        assert hashlib.sha256((REPO / "schemas" / path).read_bytes()).hexdigest() == digest


def test_editing_a_released_schema_fails_the_check(schemas_copy: Path) -> None:
    target = schemas_copy / "receipt" / "v2" / "receipt.schema.json"
    doc = json.loads(target.read_text(encoding="utf-8"))
    doc["description"] += " Edited."
    target.write_text(json.dumps(doc, indent=2) + "\n", encoding="utf-8")
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 1
    assert "schemas/receipt/v2/receipt.schema.json: released schema changed" in proc.stderr


def test_a_whitespace_only_edit_also_fails(schemas_copy: Path) -> None:
    target = schemas_copy / "suite" / "v1" / "suite.schema.json"
    target.write_bytes(target.read_bytes() + b"\n")
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 1 and "suite/v1/suite.schema.json" in proc.stderr


def test_removing_a_released_schema_fails_the_check(schemas_copy: Path) -> None:
    (schemas_copy / "pricing" / "v1" / "pricing.schema.json").unlink()
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 1
    assert "schemas/pricing/v1/pricing.schema.json: released schema is missing" in proc.stderr


def test_add_records_a_new_file_and_check_then_passes(schemas_copy: Path) -> None:
    new = schemas_copy / "pricing" / "v2" / "pricing.schema.json"
    new.parent.mkdir()
    new.write_text('{"$schema": "https://json-schema.org/draft/2020-12/schema"}\n',
                   encoding="utf-8")
    before = (schemas_copy / "SHA256SUMS").read_text(encoding="utf-8")
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 0 and "pricing/v2/pricing.schema.json: draft" in proc.stderr
    proc = run("--add", "--schemas", str(schemas_copy))
    assert proc.returncode == 0, proc.stderr
    after = (schemas_copy / "SHA256SUMS").read_text(encoding="utf-8")
    digest = hashlib.sha256(new.read_bytes()).hexdigest()
    assert f"{digest}  pricing/v2/pricing.schema.json\n" in after
    assert set(before.splitlines()) <= set(after.splitlines())  # nothing listed was rewritten
    assert run("--check", "--schemas", str(schemas_copy)).returncode == 0
    new.write_text("{}\n", encoding="utf-8")  # now released: immutable too
    assert run("--check", "--schemas", str(schemas_copy)).returncode == 1


def test_add_never_rewrites_a_changed_released_hash(schemas_copy: Path) -> None:
    target = schemas_copy / "suite" / "v2" / "suite.schema.json"
    target.write_bytes(target.read_bytes().replace(b'"title"', b'"title" ', 1))
    before = (schemas_copy / "SHA256SUMS").read_bytes()
    proc = run("--add", "--schemas", str(schemas_copy))
    assert proc.returncode == 1 and "suite/v2/suite.schema.json: released schema changed" in proc.stderr
    assert (schemas_copy / "SHA256SUMS").read_bytes() == before


def test_malformed_line_fails(schemas_copy: Path) -> None:
    sums = schemas_copy / "SHA256SUMS"
    sums.write_text(sums.read_text(encoding="utf-8") + "not a sum line\n", encoding="utf-8")
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 1 and "SHA256SUMS:" in proc.stderr and "not '<64" in proc.stderr


def test_sums_verify_with_coreutils_sha256sum() -> None:
    if shutil.which("sha256sum") is None:
        pytest.skip("sha256sum (GNU coreutils) not on PATH")
    proc = subprocess.run(["sha256sum", "--strict", "--quiet", "-c", "SHA256SUMS"],
                          cwd=REPO / "schemas", capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_minor_folder_needs_its_major_and_schemas_live_in_version_folders(
        schemas_copy: Path) -> None:
    minor = schemas_copy / "pricing" / "v1.1" / "pricing.schema.json"
    minor.parent.mkdir()
    minor.write_text("{}\n", encoding="utf-8")
    assert run("--check", "--schemas", str(schemas_copy)).returncode == 0  # v1/ is there
    orphan = schemas_copy / "trace" / "v3.1" / "trace.schema.json"
    orphan.parent.mkdir()
    orphan.write_text("{}\n", encoding="utf-8")
    stray = schemas_copy / "trace" / "latest" / "trace.schema.json"
    stray.parent.mkdir()
    stray.write_text("{}\n", encoding="utf-8")
    proc = run("--check", "--schemas", str(schemas_copy))
    assert proc.returncode == 1
    assert "trace/v3.1/trace.schema.json: minor folder v3.1/ without its major folder v3/" in proc.stderr
    assert "trace/latest/trace.schema.json: not in a <family>/vN/ or <family>/vN.M/ folder" in proc.stderr


def test_every_released_kind_is_in_the_changelog() -> None:
    index = json.loads((REPO / "schemas" / "index.json").read_text(encoding="utf-8"))
    changelog = (REPO / "schemas" / "CHANGELOG.md").read_text(encoding="utf-8")
    released = {line.split("  ", 1)[1] for line in SUMS.read_text(encoding="utf-8").splitlines()}
    missing = [k["kind"] for k in index["kinds"] if k["path"] in released
               and f"`{k['kind']}`" not in changelog]
    assert missing == [], f"released kinds without a schemas/CHANGELOG.md entry: {missing}"
