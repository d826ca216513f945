"""``aau evidence validate|compare|pack|verify``: exit codes, --json, one-line errors, --root
defaulting, and the round trip through the command line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from aau_core import run


def _run(capsys: Any, *args: str) -> tuple[int, str, str]:
    rc = run(["evidence", *args])
    out, err = capsys.readouterr()
    return rc, out, err


def test_validate_compare_pack_verify_round_trip(chain: Any, capsys: Any, tmp_path: Path) -> None:
    capsule = str(chain.write_capsule(chain.capsule("aggregate_published")))
    rc, out, err = _run(capsys, "validate", capsule, "--json")  # --root found via docs/
    assert (rc, err) == (0, "")
    assert json.loads(out) == {"ready": True, "capsule_id": "public-service-routing-impact",
                               "derived_status": "aggregate_published", "artifact_count": 4}
    rc, out, _ = _run(capsys, "compare", capsule, "--root", str(chain.root), "--json")
    comparison = json.loads(out)
    assert rc == 0 and aau_schemas.is_valid("capsule-comparison", comparison)
    assert comparison["next_evidence"] == "bounded public-value observation"
    rc, out, _ = _run(capsys, "compare", capsule)
    assert rc == 0 and "Next evidence: bounded public-value observation" in out
    pack = tmp_path / "pack"
    rc, out, _ = _run(capsys, "pack", capsule, "--out", str(pack), "--json")
    assert rc == 0 and json.loads(out)["file_count"] == 8
    rc, out, _ = _run(capsys, "verify", str(pack), "--json")
    assert rc == 0 and json.loads(out)["derived_status"] == "aggregate_published"
    rc, out, err = _run(capsys, "pack", capsule, "--out", str(pack))
    assert rc == 2 and "exists" in err


def test_invalid_capsule_exit_codes(chain: Any, capsys: Any, tmp_path: Path) -> None:
    doc = chain.capsule("study_reviewed")
    doc["status"] = "aggregate_published"
    doc["artifacts"]["agent_receipt"]["primary_metric"] = None
    capsule = chain.write_capsule(doc)
    rc, out, err = _run(capsys, "validate", str(capsule), "--json")
    assert rc == 1
    assert err.strip() == (f"{capsule}: $.artifacts.agent_receipt.primary_metric: null is not "
                           "of type \"object\"")
    assert json.loads(out)["ready"] is False
    for command in (["compare", str(capsule)], ["pack", str(capsule), "--out",
                                                str(tmp_path / "p")]):
        rc, out, err = _run(capsys, *command)
        assert rc == 2 and "Traceback" not in err
        assert err.startswith(f"aau: error: {capsule}: $.artifacts.agent_receipt.primary_metric")
    assert not (tmp_path / "p").exists()


@pytest.mark.parametrize("content, message", [
    ("not json", "Expecting value"),
    ('{"capsule_version": "aau-impact-capsule/9.9"}', "$.capsule_version: not an impact capsule"),
    ("[]", "$: an impact capsule is a JSON object"),
])
def test_unreadable_or_wrong_kind_is_exit_2(chain: Any, capsys: Any, content: str,
                                            message: str) -> None:
    path = chain.root / "capsules" / "x.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(content)
    rc, _, err = _run(capsys, "validate", str(path))
    assert rc == 2 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"aau: error: {path}: ") and message in err


def test_root_errors(chain: Any, capsys: Any, tmp_path: Path) -> None:
    lone = tmp_path / "lone.json"
    lone.write_text(json.dumps(chain.capsule()))
    rc, _, err = _run(capsys, "validate", str(lone))
    assert rc == 2 and "pass --root" in err
    rc, _, err = _run(capsys, "validate", str(lone), "--root", str(tmp_path / "nope"))
    assert rc == 2 and "--root: not a folder" in err
    rc, out, _ = _run(capsys, "validate", str(lone), "--root", str(chain.root))
    assert rc == 0 and "independently_reproduced" in out


def test_verify_failures(chain: Any, capsys: Any, tmp_path: Path) -> None:
    capsule = chain.write_capsule(chain.capsule("partner_sought"))
    pack = tmp_path / "pack"
    assert _run(capsys, "pack", str(capsule), "--out", str(pack))[0] == 0
    readme = pack / "README.md"
    readme.write_bytes(readme.read_bytes().replace(b"# ", b"#!", 1))  # same length, one byte
    rc, out, err = _run(capsys, "verify", str(pack), "--json")
    assert rc == 1 and err.strip() == (f"{pack / 'README.md'}: SHA-256 differs from the "
                                       "manifest (changed)")
    assert json.loads(out) == {"ready": False, "problems": [err.strip()]}
    rc, _, err = _run(capsys, "verify", str(tmp_path / "missing"))
    assert rc == 2 and "not a folder" in err


def test_alias_script_help() -> None:
    import subprocess
    import sys

    alias = Path(sys.executable).parent / "aau-evidence"
    done = subprocess.run([str(alias), "verify", "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0 and "Usage: aau-evidence verify" in done.stdout


@pytest.mark.skipif(not SHARED.is_dir(), reason=SHARED_MISSING)
def test_the_16_capsule_through_the_command_line(capsys: Any, tmp_path: Path) -> None:
    capsule = str(SHARED / "compat/aau-1.6/evidence/capsule-root/evidence-commons/capsules/"
                  "foia-routing-impact-pilot.json")
    rc, out, _ = _run(capsys, "validate", capsule, "--json")  # root: capsule-root (docs/)
    assert rc == 0 and json.loads(out)["derived_status"] == "partner_sought"
    rc, out, _ = _run(capsys, "compare", capsule, "--json")
    assert rc == 0 and json.loads(out)["next_evidence"] == (
        "fresh hash-bound agent rerun on the reviewed suite")
    rc, _, err = _run(capsys, "verify", str(SHARED / "compat/aau-1.6/evidence/pack-generated"))
    assert rc == 1 and "capsule.json: listed in the manifest but missing (removed)" in err
    rc, _, _ = _run(capsys, "pack", capsule, "--out", str(tmp_path / "p"))
    assert rc == 0 and _run(capsys, "verify", str(tmp_path / "p"))[0] == 0
