"""`aau challenge list|show|validate`: missions, receipts, finishes and achievements."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING
from _nav_root import NAV, PRIVACY, REFERENCE
from aau_core import run
from aau_navigator._challenge import build_challenge

BIN = Path(sys.executable).parent
COMPAT = SHARED / "compat" / "aau-1.6" / "navigator"
RECEIPT = "challenge/entries/your-handle-completion-gap.json"


def _aau(capsys, *argv: str) -> tuple[int, str, str]:
    code = run(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _edit(path: Path, change) -> None:
    doc = json.loads(path.read_text("utf-8"))
    change(doc)
    path.write_text(json.dumps(doc), encoding="utf-8")


def test_scoreboard_stats_and_achievements(nav_root: Path) -> None:
    data = build_challenge(nav_root)
    assert data["version"] == "aau-challenge/1.0" and len(data["challenges"]) == 5
    assert data["stats"] == {"live_challenges": 5, "community_participants": 1,
                             "community_finishes": 2, "reference_finishes": 3,
                             "achievements": 6}
    rows = {r["entry_id"]: r for r in data["scoreboard"]}
    assert [r["entry_id"] for r in data["scoreboard"]][:2] == [
        "your-handle-completion-gap", "county-benefit-appeal-eval"]
    receipt = rows["your-handle-completion-gap"]
    assert (receipt["type"], receipt["track"], receipt["finish"]) == ("community", "Reproduce",
                                                                      True)
    assert receipt["achievements"] == ["receipt-ready", "repeat-runner"]  # a deepseek result
    assert receipt["record_path"] == RECEIPT
    assert rows["county-benefit-appeal-eval"]["finish_detail"] == \
        "Generated; minimum for Adapt is Generated"
    assert rows["medicaid-renewal-reference"]["achievements"] == [
        "receipt-ready", "failure-hunter", "repeat-runner", "cross-model-witness",
        "domain-grounder", "boundary-keeper"]
    assert rows["medicaid-renewal-reference"]["type"] == "reference"


def test_list_show_and_json(nav_root: Path, capsys) -> None:
    code, out, _ = _aau(capsys, "challenge", "list", "--root", str(nav_root), "--track", "Break")
    assert code == 0
    assert out.splitlines()[:2] == ["C03  Break     Break the clean twin · ~45 min",
                                    "     break-the-clean-twin"]
    assert "C01" not in out
    code, out, _ = _aau(capsys, "challenge", "list", "--root", str(nav_root), "--json")
    assert json.loads(out)["boundary"].startswith("Challenge status is derived")
    for target in ("C05", "adapt-a-right-that-expires"):
        code, out, _ = _aau(capsys, "challenge", "show", target, "--root", str(nav_root))
        assert code == 0 and out.startswith("C05 · Adapt · Preserve the right that expires")
    code, out, _ = _aau(capsys, "challenge", "show", "C02", "--root", str(nav_root), "--json")
    assert json.loads(out)["starter_lab"] == "customer-support/refund-guarded"
    code, _, err = _aau(capsys, "challenge", "show", "C09", "--root", str(nav_root))
    assert (code, err) == (2, "aau: error: no challenge has the id or number 'C09'\n")


@pytest.mark.parametrize("argv", [
    ["aau", "challenge", "show", "completion-is-not-correctness"],
    ["aau", "challenge", "validate", "your-handle-completion-gap"],
    ["aau-challenge", "validate", "county-benefit-appeal-eval"],
])
def test_positional_targets_through_the_command_line(nav_root: Path, argv: list[str]) -> None:
    """aau-harness 1.6's `aau challenge show|validate X` always exited 2; these work."""
    done = subprocess.run([str(BIN / argv[0]), *argv[1:], "--root", str(nav_root)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(("C01 · Reproduce", "PASS · "))


def test_validate_finishes_and_unfinished_entries(nav_root: Path, capsys) -> None:
    code, out, _ = _aau(capsys, "challenge", "validate", "your-handle-completion-gap",
                        "--root", str(nav_root))
    assert code == 0
    assert out == ("PASS · your-handle-completion-gap · Reproduce\nvalid Reproduce receipt; 1 "
                   "traced scenario(s), n=3\nAchievements: receipt-ready, repeat-runner\n\n"
                   f"Catalog: {nav_root / 'challenge' / 'challenges.json'}\n")
    code, out, _ = _aau(capsys, "challenge", "validate", "--root", str(nav_root), "--json")
    assert code == 0 and [r["entry_id"] for r in json.loads(out)] == [
        "your-handle-completion-gap", "county-benefit-appeal-eval"]
    # claiming the Break track instead needs Reproduced and three observed failures
    entry = nav_root / "gallery" / "entries" / "county-benefit-appeal-eval.json"
    _edit(entry, lambda d: d["challenge"].update(id="break-the-clean-twin", track="Break"))
    code, out, _ = _aau(capsys, "challenge", "validate", "county-benefit-appeal-eval",
                        "--root", str(nav_root))
    assert code == 1
    assert out.startswith("NEXT · county-benefit-appeal-eval · Break\nGenerated; minimum for "
                          "Break is Reproduced")
    assert "Achievements" not in out  # only a finished entry shows achievements
    row = json.loads(_aau(capsys, "challenge", "validate", "county-benefit-appeal-eval",
                          "--root", str(nav_root), "--json")[1])
    assert row["finish"] is False and row["achievements"] == []
    code, _, _ = _aau(capsys, "challenge", "validate", "--root", str(nav_root))
    assert code == 1
    code, _, err = _aau(capsys, "challenge", "validate", "medicaid-renewal-reference",
                        "--root", str(nav_root))
    assert (code, err) == (2, "aau: error: no community challenge entry or challenge has the "
                              "id 'medicaid-renewal-reference'\n")
    code, _, err = _aau(capsys, "challenge", "validate", "challenge/entries/nope.json",
                        "--root", str(nav_root))
    assert (code, err) == (2, "aau: error: challenge/entries/nope.json: no such file\n")


def test_validate_a_new_receipt_file(nav_root: Path, capsys, tmp_path: Path) -> None:
    new = tmp_path / "my-receipt.json"
    shutil.copyfile(nav_root / RECEIPT, new)
    _edit(new, lambda d: d.update(id="my-receipt"))
    code, out, _ = _aau(capsys, "challenge", "validate", str(new), "--root", str(nav_root),
                        "--json")
    assert code == 0 and json.loads(out)["entry_id"] == "my-receipt"
    _edit(new, lambda d: d["evidence"].update(scenario_ids=["privacy-017", "privacy-018"]))
    code, _, err = _aau(capsys, "challenge", "validate", str(new), "--root", str(nav_root))
    assert (code, err) == (2, f"aau: error: {new}: $.evidence.scenario_ids[1]: the note "
                              "challenge/receipts/your-handle-completion-gap.md does not name "
                              "'privacy-018'\n")


@pytest.mark.parametrize("change, path, message", [
    (lambda d: d.update(id="other-name"), "$.id",
     "the file of receipt 'other-name' must be named other-name.json"),
    (lambda d: d.update(challenge_id="no-such-mission"), "$.challenge_id",
     "no challenge 'no-such-mission' in challenge/challenges.json"),
    (lambda d: d.update(track="Break"), "$.track",
     "challenge 'completion-is-not-correctness' is on the Reproduce track"),
    (lambda d: d.update(lab_path=REFERENCE), "$.lab_path",
     f"challenge 'completion-is-not-correctness' is played on '{PRIVACY}'"),
    (lambda d: d["evidence"].update(result_path=f"{REFERENCE}/results/eval_mock.json"),
     "$.evidence.result_path", f"not a file directly in {PRIVACY}/results/"),
    (lambda d: d["evidence"].update(note_path="challenge/notes.md"),
     "$.evidence.note_path", "not a file directly in challenge/receipts/"),
    (lambda d: d["evidence"].update(scenario_ids=["privacy-999"]),
     "$.evidence.scenario_ids[0]", f"'privacy-999' is not a scenario of {PRIVACY}/evals/"),
])
def test_receipt_rules(nav_root: Path, capsys, change, path: str, message: str) -> None:
    _edit(nav_root / RECEIPT, change)
    code, _, err = _aau(capsys, "challenge", "list", "--root", str(nav_root))
    assert (code, err) == (2, f"aau: error: {RECEIPT}: {path}: {message}\n")


def test_receipt_result_needs_three_repeats(nav_root: Path, capsys) -> None:
    result = nav_root / PRIVACY / "results" / "eval_reproduction_your_handle.json"
    _edit(result, lambda d: d.update(n_repeats=2))
    code, _, err = _aau(capsys, "challenge", "validate", "your-handle-completion-gap",
                        "--root", str(nav_root))
    assert code == 2 and err.endswith("$.evidence.result_path: the result needs at least one "
                                      "scenario and n_repeats >= 3\n")


def test_catalog_problems_are_exit_2(nav_root: Path, capsys) -> None:
    shutil.rmtree(nav_root / "customer-support" / "refund-guarded")
    catalog = nav_root / "challenge" / "challenges.json"
    code, _, _ = _aau(capsys, "challenge", "list", "--root", str(nav_root))
    assert code == 0  # listing does not need the starter labs
    code, _, err = _aau(capsys, "challenge", "validate", "--root", str(nav_root))
    assert (code, err) == (2, f"aau: error: {catalog}: $.challenges[1].starter_lab: starter "
                              f"lab 'customer-support/refund-guarded' is not a folder under "
                              f"{nav_root}\n")
    _edit(catalog, lambda d: d["challenges"][4].update(number="C01"))
    code, _, err = _aau(capsys, "challenge", "show", "C01", "--root", str(nav_root))
    assert (code, err) == (2, f"aau: error: {catalog}: $.challenges[4].number: 'C01' is also "
                              "the number of challenge 0\n")
    _edit(catalog, lambda d: d.update(challenges=d["challenges"][:4]))
    code, _, err = _aau(capsys, "challenge", "show", "C01", "--root", str(nav_root))
    assert code == 2 and err.startswith(f"aau: error: {catalog}: $.challenges: ")


@pytest.mark.skipif(not COMPAT.is_dir(), reason=SHARED_MISSING)
def test_16_challenge_files_load_as_is(capsys) -> None:
    """1.6's challenges.json and receipt example are the schema examples the root uses."""
    assert (COMPAT / "challenges.json").read_bytes() == \
        (NAV / "challenge-catalog-aau-1.6.json").read_bytes()
    assert (COMPAT / "challenge-entry.example.json").read_bytes() == \
        (NAV / "challenge-entry-aau-1.6-example.json").read_bytes()
    code, out, err = _aau(capsys, "schema", "validate", str(COMPAT / "challenges.json"),
                          str(COMPAT / "challenge-entry.example.json"))
    assert code == 0, err


def test_outside_a_root_list_and_show_read_the_bundled_catalog(tmp_path: Path) -> None:
    """After `pip install`, from any folder: no --root, no gallery/ or challenge/ above."""
    def aau(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "aau"), *argv], capture_output=True, text=True,
                              timeout=120, cwd=tmp_path)

    bundled = "Catalog: the catalog aau ships; no challenge/challenges.json in the current folder"
    done = aau("challenge", "list")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == ["C01  Reproduce Completion is not correctness · "
                                            "~15 min", "     completion-is-not-correctness"]
    assert done.stdout.splitlines()[-2:] == ["0 community finish(es) by 0 participant(s); "
                                             "0 reference lab(s).", bundled]
    report = json.loads(aau("challenge", "list", "--json").stdout)
    aau_schemas.validate("challenge-report", report)
    assert [c["number"] for c in report["challenges"]] == ["C01", "C02", "C03", "C04", "C05"]
    assert report["scoreboard"] == [] and report["stats"]["live_challenges"] == 5
    done = aau("challenge", "show", "completion-is-not-correctness")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "C01 · Reproduce · Completion is not correctness"
    assert "Lab:      healthcare/prior-auth-triage-agent  (not in this folder yet)" in lines
    assert "Catalog:  " + bundled.removeprefix("Catalog: ") in lines
    assert lines[-2:] == ["Run it for $0:", "  aau new-use-case --industry healthcare --name "
                                            "prior-auth-triage-agent --seed 41"]
    # with nothing to check, validate says what it needs in one line (1: not finished yet)
    done = aau("challenge", "validate")
    assert (done.returncode, done.stderr) == (1, "")
    assert done.stdout == ("No community challenge entry in the current folder yet: write a "
                           "receipt with `aau challenge receipt` (see `aau challenge show C01`) "
                           "or a Gallery entry that claims a challenge.\n")


def test_the_challenge_flow_from_an_empty_folder(tmp_path: Path) -> None:
    """The user's path after `pip install`: make the lab, follow show's advice, validate it;
    the layout docs/navigator.md gives (challenge/entries, challenge/receipts) without a
    challenges.json keeps the bundled catalog (it used to stop every command with exit 2)."""
    def aau(*argv: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(BIN / "aau"), *argv], capture_output=True, text=True,
                              timeout=300, cwd=tmp_path)

    done = aau("new-use-case", "--industry", "healthcare", "--name",
               "prior-auth-triage-agent", "--seed", "41")
    assert done.returncode == 0, done.stderr
    (tmp_path / "challenge" / "entries").mkdir(parents=True)
    (tmp_path / "challenge" / "receipts").mkdir()
    done = aau("challenge", "show", "C01")
    assert done.returncode == 0, done.stderr
    advice = done.stdout.splitlines()
    assert "Lab:      healthcare/prior-auth-triage-agent" in advice
    assert advice[-4:] == [
        "The lab exists at healthcare/prior-auth-triage-agent. Next:",
        "  aau challenge receipt C01 --id YOUR-ID --github YOUR-HANDLE --scenario SCENARIO-ID "
        '--claim "WHAT YOU FOUND"',
        "  aau challenge validate YOUR-ID",
        "  (SCENARIO-ID: a scenario_id in healthcare/prior-auth-triage-agent/evals/ that your "
        "note traces)"]
    assert "aau new-use-case" not in done.stdout  # it would say 'already exists'
    done = aau("challenge", "validate", "completion-is-not-correctness")
    assert (done.returncode, done.stdout) == (1, (
        "No entry for C01 (completion-is-not-correctness) in the current folder yet: write a "
        "receipt with `aau challenge receipt C01` (see `aau challenge show C01`).\n"))
    done = aau("challenge", "receipt", "C01", "--id", "ada-completion-gap", "--github", "ada",
               "--scenario", "prior-auth-triage-agent-003", "--claim", "23 of 30 right")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "next: aau challenge validate ada-completion-gap"
    receipt = json.loads((tmp_path / "challenge/entries/ada-completion-gap.json").read_text())
    aau_schemas.validate("challenge-entry", receipt)
    assert receipt["evidence"]["result_path"] == \
        "healthcare/prior-auth-triage-agent/results/eval_mock.json"
    note = (tmp_path / "challenge/receipts/ada-completion-gap.md").read_text()
    assert "`prior-auth-triage-agent-003`" in note and "submitted 1.0" in note
    for target in ("ada-completion-gap", "C01", None):
        done = aau("challenge", "validate", *([target] if target else []))
        assert done.returncode == 0, done.stderr
        assert done.stdout.startswith("PASS · ada-completion-gap · Reproduce\nvalid Reproduce "
                                      "receipt; 1 traced scenario(s), n=3\n")
    done = aau("challenge", "list")
    assert done.stdout.splitlines()[-2].startswith("1 community finish(es) by 1 participant")
    # writing it again refuses; a scenario the lab does not have is refused before writing
    again = aau("challenge", "receipt", "C01", "--id", "ada-completion-gap", "--github", "ada",
                "--scenario", "prior-auth-triage-agent-003", "--claim", "23 of 30 right")
    assert again.returncode == 2 and again.stderr.count("\n") == 1
    assert "ada-completion-gap.json" in again.stderr
    bad = aau("challenge", "receipt", "C01", "--id", "other", "--github", "ada",
              "--scenario", "nope-1", "--claim", "x")
    assert (bad.returncode, bad.stderr) == (2, (
        "aau: error: challenge/entries/other.json: $.evidence.scenario_ids[0]: 'nope-1' is not "
        "a scenario of healthcare/prior-auth-triage-agent/evals/\n"))
    assert not (tmp_path / "challenge/entries/other.json").exists()
    assert not (tmp_path / "challenge/receipts/other.md").exists()


@pytest.mark.parametrize("target, message", [
    ("C02", "no lab 'public-services/permit-renewal-desk' under {root} yet: run `aau "
            "new-use-case --industry public-services --name permit-renewal-desk --seed 7` "
            "there first"),
    ("C05", "C05 is an Adapt challenge: it is finished by a Gallery entry that claims it, "
            "not a receipt"),
    ("C09", "no challenge has the id or number 'C09'"),
])
def test_receipt_refusals(tmp_path: Path, capsys, monkeypatch, target: str,
                          message: str) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = _aau(capsys, "challenge", "receipt", target, "--id", "x", "--github", "a",
                          "--scenario", "s-1", "--claim", "c")
    assert (code, out, err) == (2, "", f"aau: error: {message.format(root=tmp_path)}\n")
    assert not (tmp_path / "challenge").exists()


def test_a_root_with_challenge_folders_but_no_catalog_reads_the_bundled_one(
        nav_root: Path, capsys) -> None:
    """Which catalog is read is said in the output; a root's own file wins when present."""
    code, out, _ = _aau(capsys, "challenge", "list", "--root", str(nav_root))
    assert out.splitlines()[-1] == f"Catalog: {nav_root / 'challenge' / 'challenges.json'}"
    code, out, _ = _aau(capsys, "challenge", "show", "C03", "--root", str(nav_root))
    assert out.startswith("C03 · Break · Break the clean twin")
    (nav_root / "challenge" / "challenges.json").unlink()
    shutil.rmtree(nav_root / "gallery")  # its entries claim the root's own missions
    code, out, err = _aau(capsys, "challenge", "show", "C03", "--root", str(nav_root))
    assert code == 0, err
    assert out.startswith("C03 · Break · Break the lookalike")
    assert (f"Catalog:  the catalog aau ships; no challenge/challenges.json in {nav_root}"
            in out.splitlines())


def test_a_root_keeps_its_own_catalog_over_the_bundled_one(nav_root: Path, capsys,
                                                           monkeypatch) -> None:
    monkeypatch.chdir(nav_root / "challenge")  # found above the current folder
    code, out, _ = _aau(capsys, "challenge", "show", "C03")
    assert code == 0 and out.startswith("C03 · Break · Break the clean twin")
    monkeypatch.chdir(nav_root.parent)
    code, out, _ = _aau(capsys, "challenge", "show", "C03")
    assert code == 0 and out.startswith("C03 · Break · Break the lookalike")
