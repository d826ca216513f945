"""`aau gallery list|validate`: trust levels derived from a root's committed evidence."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from _helpers import SHARED, SHARED_MISSING
from _nav_root import ADAPTED, BATCH, NAV, PIPELINE, REFERENCE
from aau_core import run
from aau_navigator._gallery import LEVELS, build_gallery, find_root

BIN = Path(sys.executable).parent
COMPAT_GALLERY = SHARED / "compat" / "aau-1.6" / "navigator" / "gallery"


def _aau(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _levels(root: Path) -> dict[str, str]:
    return {i["id"]: i["trust"]["level"] for i in build_gallery(root)["entries"]}


def test_levels_scores_and_evidence(nav_root: Path) -> None:
    gallery = build_gallery(nav_root)
    items = {i["id"]: i for i in gallery["entries"]}
    assert [i["id"] for i in gallery["entries"]] == [
        "medicaid-renewal-reference", "pipeline-notification-reference",
        "county-benefit-appeal-eval", "batch-disposition-reference"]
    assert {k: (v["trust"]["level"], v["trust"]["score"]["passed"]) for k, v in items.items()} == {
        "medicaid-renewal-reference": ("Verified", 14),
        "pipeline-notification-reference": ("Domain reviewed", 7),
        "county-benefit-appeal-eval": ("Generated", 4),
        "batch-disposition-reference": ("Draft", 3)}
    ref = items["medicaid-renewal-reference"]
    assert ref["evidence"] == {
        "mock_available": True, "real_result_artifacts": 2,
        "models": ["deepseek-v4-flash", "mistral-small-latest"], "model_count": 2,
        "minimum_repeats": 3, "real_scenario_runs": 48, "scenario_count": 32,
        "observed_failure_modes": 3, "source_links": 2}
    assert ref["trust"]["next_level"] is None
    assert ref["contract"] == {"name": "Rights Continuity", "path": "RIGHTS_CONTINUITY_CONTRACT.md"}
    assert ref["contributor"]["profile_url"] == "https://github.com/immu4989"
    assert ref["record_path"] == "gallery/entries/medicaid-renewal-reference.json"
    assert items["county-benefit-appeal-eval"]["trust"]["next_level"] == "Domain reviewed"
    assert items["batch-disposition-reference"]["trust"]["next_level"] == "Generated"
    assert gallery["stats"] == {"adaptations": 4, "contributors": 2, "contracts": 3, "levels": {
        "Generated": 1, "Domain reviewed": 1, "Reproduced": 0, "Verified": 1, "Draft": 1}}
    assert gallery["trust_model"]["levels"] == list(LEVELS)


def test_each_stage_needs_every_earlier_check(nav_root: Path) -> None:
    lab = nav_root / REFERENCE
    readme = lab / "README.md"
    readme.write_text("# Renewal Continuity Navigator\n\nRoutes renewals.\n", encoding="utf-8")
    assert _levels(nav_root)["medicaid-renewal-reference"] == "Reproduced"
    (lab / "results" / "eval_deepseek-v4-flash.json").unlink()
    assert _levels(nav_root)["medicaid-renewal-reference"] == "Reproduced"  # one model left
    (lab / "results" / "eval_mock.json").unlink()
    assert _levels(nav_root)["medicaid-renewal-reference"] == "Domain reviewed"
    (lab / "src").mkdir()
    (lab / "src" / "world.py").write_text("RULE = 'TODO(domain): cite the rule'\n")
    assert _levels(nav_root)["medicaid-renewal-reference"] == "Generated"
    # a failure list that still says it is generated counts no failures
    (lab / "FAILURE_MODES.md").write_text("Generated hypotheses\n### 1. a\n### 2. b\n### 3. c\n")
    item = next(i for i in build_gallery(nav_root)["entries"] if i["lab_path"] == REFERENCE)
    assert item["evidence"]["observed_failure_modes"] == 0


def test_list_text_and_trust_filter(nav_root: Path, capsys) -> None:
    code, out, err = _aau(capsys, "gallery", "list", "--root", str(nav_root))
    assert code == 0 and err == ""
    assert out.splitlines()[0] == "🩺 Renewal Continuity Navigator · Verified · 14/14"
    code, out, _ = _aau(capsys, "gallery", "list", "--root", str(nav_root), "--trust",
                        "Generated", "--json")
    doc = json.loads(out)
    assert [i["id"] for i in doc["entries"]] == ["county-benefit-appeal-eval"]
    assert doc["version"] == "aau-gallery/1.0" and doc["stats"]["adaptations"] == 4


def test_validate_exit_codes(nav_root: Path, capsys) -> None:
    code, out, _ = _aau(capsys, "gallery", "validate", "medicaid-renewal-reference",
                        "--root", str(nav_root))
    assert code == 0 and "Trust:       Verified (14/14 checks)" in out
    code, out, _ = _aau(capsys, "gallery", "validate", PIPELINE + "/", "--root", str(nav_root),
                        "--json")
    assert code == 0 and json.loads(out)["trust"]["level"] == "Domain reviewed"
    code, out, err = _aau(capsys, "gallery", "validate", BATCH, "--root", str(nav_root))
    assert code == 1 and "[NEXT] Forge provenance" in out
    assert "still Draft (below Generated): batch-disposition-reference" in err
    code, out, _ = _aau(capsys, "gallery", "validate", "--root", str(nav_root), "--json")
    assert code == 1 and len(json.loads(out)) == 4
    (nav_root / "gallery" / "entries" / "batch-disposition-reference.json").unlink()
    code, _, _ = _aau(capsys, "gallery", "validate", "--root", str(nav_root))
    assert code == 0
    code, _, err = _aau(capsys, "gallery", "validate", "nope", "--root", str(nav_root))
    assert (code, err) == (2, "aau: error: no gallery entry has the id or lab path 'nope'\n")


def test_validate_a_new_entry_file(nav_root: Path, capsys, tmp_path: Path) -> None:
    entry = json.loads((NAV / "gallery-entry-aau-1.6-example-unreviewed.json").read_text())
    new = tmp_path / "submission.json"
    new.write_text(json.dumps({**entry, "id": "another-appeal"}), encoding="utf-8")
    code, out, _ = _aau(capsys, "gallery", "validate", str(new), "--root", str(nav_root),
                        "--json")
    item = json.loads(out)
    assert code == 0 and item["id"] == "another-appeal" and item["lab_path"] == ADAPTED
    assert item["record_path"] == str(new)


@pytest.mark.parametrize("script", [["aau", "gallery"], ["aau-gallery"]])
def test_positional_target_through_the_command_line(nav_root: Path, script: list[str]) -> None:
    """aau-harness 1.6's `aau gallery validate ID` always failed (argparse); here it works,
    and the 1.6 script is an alias."""
    argv = [str(BIN / script[0]), *script[1:], "validate", "medicaid-renewal-reference",
            "--root", str(nav_root)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "Trust:       Verified (14/14 checks)" in done.stdout
    done = subprocess.run(argv[:-4] + ["list"], capture_output=True, text=True, timeout=120,
                          cwd=nav_root / REFERENCE)  # the root is found from inside it
    assert done.returncode == 0 and "Batch Disposition Gate · Draft" in done.stdout


def test_an_entry_whose_lab_is_missing_is_draft_and_the_rest_are_listed(nav_root: Path,
                                                                        capsys) -> None:
    shutil.rmtree(nav_root / BATCH)
    code, out, err = _aau(capsys, "gallery", "list", "--root", str(nav_root))
    assert code == 0 and err == "", err
    assert "Batch Disposition Reference · Draft" in out and "Verified" in out
    items = {i["id"]: i for i in build_gallery(nav_root)["entries"]}
    assert len(items) == 4
    check = items["batch-disposition-reference"]["trust"]["checks"][0]
    assert items["batch-disposition-reference"]["trust"]["level"] == "Draft"
    assert check["passed"] is False and check["detail"] == (
        f"no lab folder '{BATCH}' under {nav_root}")
    code, out, err = _aau(capsys, "gallery", "validate", "--root", str(nav_root))
    assert code == 1 and "no lab folder" in out and "batch-disposition-reference" in err
    code, out, err = _aau(capsys, "challenge", "list", "--root", str(nav_root))
    assert code == 0, err


def test_a_forged_lab_reads_its_blueprint_from_aau_forge_json(nav_root: Path) -> None:
    """`aau forge` writes the blueprint into aau-forge.json (generator.blueprint), not into
    1.6's contract-blueprint.json: a forged lab reaches Generated either way."""
    lab = nav_root / ADAPTED
    (lab / "contract-blueprint.json").unlink()
    forge = json.loads((lab / "aau-forge.json").read_text())
    (lab / "aau-forge.json").write_text(json.dumps({**forge, "generator": {
        "contract": "Rights Continuity",
        "blueprint": {"contract": "Rights Continuity", "config_path": "x.json"}}}))
    item = {i["id"]: i for i in build_gallery(nav_root)["entries"]}["county-benefit-appeal-eval"]
    assert item["trust"]["level"] == "Generated"
    assert item["trust"]["checks"][2]["detail"] == (
        "blueprint in aau-forge.json (generator.blueprint)")
    (lab / "aau-forge.json").write_text(json.dumps(forge))
    item = {i["id"]: i for i in build_gallery(nav_root)["entries"]}["county-benefit-appeal-eval"]
    assert item["trust"]["level"] == "Draft"
    assert "contract blueprint missing" in item["trust"]["checks"][2]["detail"]


def test_bad_roots_and_entries_are_one_line_exit_2(nav_root: Path, capsys, tmp_path) -> None:
    entries = nav_root / "gallery" / "entries"
    shutil.copyfile(entries / "medicaid-renewal-reference.json", entries / "zz-copy.json")
    code, _, err = _aau(capsys, "gallery", "list", "--root", str(nav_root))
    assert code == 2
    assert err == (f"aau: error: {entries / 'zz-copy.json'}: $.id: 'medicaid-renewal-reference'"
                   f" is also the id of {entries / 'medicaid-renewal-reference.json'}\n")
    doc = json.loads((entries / "zz-copy.json").read_text())
    (entries / "zz-copy.json").write_text(json.dumps({**doc, "tags": ["one"]}))
    code, _, err = _aau(capsys, "gallery", "list", "--root", str(nav_root))
    assert code == 2 and err.startswith(f"aau: error: {entries / 'zz-copy.json'}: $.tags: ")
    (entries / "zz-copy.json").unlink()
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = _aau(capsys, "gallery", "list", "--root", str(empty))
    assert code == 2 and "no gallery here" in err  # not an empty listing (test below)
    with pytest.raises(Exception, match="pass --root"):
        find_root(empty)


@pytest.mark.skipif(not COMPAT_GALLERY.is_dir(), reason=SHARED_MISSING)
def test_16_gallery_files_load_as_is(tmp_path: Path, capsys) -> None:
    """The 1.6 files in shared/compat are the schema examples the root above is built from."""
    for path in sorted(COMPAT_GALLERY.glob("*.json")):
        name = path.stem.replace("gallery-entry.example", "example-unreviewed")
        assert path.read_bytes() == (NAV / f"gallery-entry-aau-1.6-{name}.json").read_bytes()
        code, _, err = _aau(capsys, "schema", "validate", str(path))
        assert code == 0, err


def test_a_lab_made_by_aau_forge_reaches_generated(tmp_path: Path) -> None:
    """End to end: `aau forge` writes its blueprint into aau-forge.json, and the gallery reads it
    there (1.6 required a contract-blueprint.json that forge never writes)."""
    from aau_navigator._forge import forge

    examples = Path(__file__).resolve().parents[3] / "schemas" / "navigator" / "v1" / "examples"
    root = tmp_path / "root"
    root.mkdir()
    lab = forge(examples / "valid" / "studio-brief-minimal-decision-gate.json", "renewal-gate",
                root, verify=False).path
    assert not (lab / "contract-blueprint.json").exists()
    entry = json.loads((examples / "valid" / "gallery-entry-aau-1.6-example-unreviewed.json")
                       .read_text())
    entry.update(id="renewal-gate-eval", lab_path=lab.relative_to(root).as_posix())
    entry.pop("challenge", None)
    (root / "gallery" / "entries").mkdir(parents=True)
    (root / "gallery" / "entries" / "renewal-gate-eval.json").write_text(json.dumps(entry))
    item = build_gallery(root)["entries"][0]
    assert item["trust"]["level"] == "Generated", item["trust"]["checks"][:3]
    assert item["contract"]["name"] == "Decision Gate"


def test_gallery_levels_are_the_evidence_levels_and_nothing_checked_is_draft():
    """One rule for trust levels: the gallery's is aau-evidence's, and no checks earn nothing."""
    import aau_evidence
    from aau_navigator import _gallery

    assert _gallery.level_of is aau_evidence.level_of and _gallery.LEVELS is aau_evidence.LEVELS
    assert _gallery.level_of([]) == "Draft"
    assert _gallery.level_of([{"stage": "Generated", "passed": True}]) == "Generated"
    assert _gallery.level_of([{"stage": "Generated", "passed": True},
                              {"stage": "Reproduced", "passed": True}]) == "Generated"
    assert _gallery.level_of([{"stage": "Generated", "passed": False}]) == "Draft"


@pytest.mark.parametrize("argv", [["list", "--trust", "Reproduced"], ["list"], ["validate"],
                                  ["validate", "some-entry"]])
def test_a_root_without_gallery_says_so(capsys, tmp_path: Path, argv) -> None:
    """`--root .` on a folder with no gallery/ is one line and exit 2, not an empty listing."""
    (tmp_path / "challenge").mkdir()  # a challenge root without a gallery
    code, out, err = _aau(capsys, "gallery", *argv, "--root", str(tmp_path))
    assert (code, out) == (2, "")
    assert err == (f"aau: error: {tmp_path}: no gallery here (no gallery/ folder); pass --root "
                   "DIR of a folder holding gallery/entries/\n")
