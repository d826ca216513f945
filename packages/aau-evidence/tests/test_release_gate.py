"""`aau release`: capture, diff, assess, verify, export-oscal on aau-harness 1.6's release inputs.

The workspace (``make_workspace``) is laid out under a temporary folder::

    base/manifest.json  base/components/*     the 1.6 baseline manifest, eight component files
    cand/manifest.json  cand/components/*     the 1.6 candidate manifest; tools.json and
                                              authority.json differ from the baseline
    release-policy.json evidence-plan.json approval.json   1.6's real policy, plan, approval
    release-conformance-suite.json            1.6's conformance suite (20 synthetic cases)

The 1.6 files come from ../shared/compat/aau-1.6/release; the component files are written here
(1.6 did not publish them). Tests that need ../shared skip with ``SHARED_MISSING``.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from _helpers import special_file
from _oscal_schema import oscal_errors
from _release_workspace import (
    COMPAT,
    PACK_16,
    agent,
    assess_args,
    make_workspace,
    need_compat,
    read,
    run_aau,
    write,
)

FORBIDDEN_AGENT = """\
import json, sys
request = json.loads(sys.stdin.readline())
json.dump({"outcome": "route_official_source", "submitted": True,
           "actions_attempted": ["determine_eligibility"],
           "actions_executed": ["determine_eligibility"]}, sys.stdout)
"""


@pytest.fixture()
def ws(tmp_path: Path) -> Path:
    return make_workspace(tmp_path / "ws")


def _documents(ws: Path) -> dict[str, Any]:
    from aau_evidence import capture_snapshot
    from aau_evidence._release_documents import check_approval, check_plan, check_policy, load

    return {"baseline": capture_snapshot(ws / "base/manifest.json"),
            "candidate": capture_snapshot(ws / "cand/manifest.json"),
            "policy": load(check_policy, ws / "release-policy.json"),
            "plan": load(check_plan, ws / "evidence-plan.json"),
            "approval": load(check_approval, ws / "approval.json")}


def _receipt(exact: float = 1.0, kind: str = "command") -> dict[str, Any]:
    """The 1.6 pack's receipt with exact_rate set (rows left as they are)."""
    doc = read(PACK_16 / "receipts/aau-agent-release-conformance-v1.json")
    doc["metrics"]["exact_rate"] = exact
    doc["adapter_kind"] = kind
    return doc


# --- capture ---------------------------------------------------------------------------------

def test_capture_hashes_components_and_binds_the_snapshot(ws: Path) -> None:
    import aau_schemas
    from aau_evidence import capture_snapshot, release_digest
    from aau_evidence._release_documents import document

    snap = document(capture_snapshot(ws / "cand/manifest.json"))
    aau_schemas.validate("release-snapshot", snap)
    ids = [c["component_id"] for c in snap["components"]]
    assert ids == sorted(ids) and len(ids) == 8
    tools = next(c for c in snap["components"] if c["component_id"] == "tool-contract")
    data = (ws / "cand/components/tools.json").read_bytes()
    assert tools["bytes"] == len(data)
    assert tools["sha256"] == aau_schemas.sha256_hex(data)
    body = {k: v for k, v in snap.items() if k != "snapshot_sha256"}
    assert snap["snapshot_sha256"] == release_digest(body)


def test_capture_keeps_the_manifests_sharing_block_in_its_own_key_order(ws: Path) -> None:
    """1.6 copies the manifest's sharing object into the snapshot as read: the same file must
    give the same snapshot bytes, whatever order its (fixed) keys are written in."""
    from aau_evidence import capture_snapshot
    from aau_evidence._release_documents import release_bytes

    path = ws / "cand/manifest.json"
    doc = read(path)
    doc["sharing"] = dict(reversed(list(doc["sharing"].items())))
    path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    snap = capture_snapshot(path)
    assert list(snap.sharing) == list(doc["sharing"])
    text = release_bytes(snap).decode("utf-8")
    keys = list(doc["sharing"])
    assert text.index(f'"{keys[0]}"') < text.index(f'"{keys[-1]}"')


def test_capture_cli_writes_the_snapshot_and_refuses_to_overwrite(ws: Path) -> None:
    out = ws / "snap.json"
    proc = run_aau("release", "capture", str(ws / "cand/manifest.json"), "--out", str(out),
                   "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["component_count"] == 8
    assert read(out)["snapshot_sha256"] == summary["snapshot_sha256"]
    before = out.read_bytes()
    again = run_aau("release", "capture", str(ws / "base/manifest.json"), "--out", str(out))
    assert again.returncode == 2 and "exists" in again.stderr
    assert out.read_bytes() == before


@pytest.mark.parametrize("source_path, message", [
    ("../outside.json", "'..'"),
    ("/etc/passwd", "absolute"),
    ("components/./model.json", "'.'"),
    ("components/missing.json", "cannot read"),
])
def test_capture_refuses_unsafe_or_missing_component_paths(ws: Path, source_path: str,
                                                           message: str) -> None:
    (ws / "outside.json").write_text("{}")
    manifest = read(ws / "cand/manifest.json")
    manifest["components"][0]["source_path"] = source_path
    write(ws / "cand/manifest.json", manifest)
    proc = run_aau("release", "capture", str(ws / "cand/manifest.json"), "--out",
                   str(ws / "snap.json"))
    assert proc.returncode == 2
    assert message in proc.stderr and "$.components[0].source_path" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr
    assert not (ws / "snap.json").exists()


def test_capture_refuses_a_symlinked_component_and_an_oversized_one(ws: Path) -> None:
    from aau_core import InputError
    from aau_evidence import capture_snapshot

    target = ws / "cand/components/model.json"
    target.unlink()
    target.symlink_to(ws / "base/components/model.json")
    with pytest.raises(InputError, match="symlink"):
        capture_snapshot(ws / "cand/manifest.json")
    target.unlink()
    target.write_bytes(b"x" * 5_000_001)
    with pytest.raises(InputError, match="5,000,000-byte limit"):
        capture_snapshot(ws / "cand/manifest.json")


@pytest.mark.parametrize("mutate, path", [
    (lambda d: d.__setitem__("components", None), "$.components"),
    (lambda d: d.__setitem__("sharing", None), "$.sharing"),
    (lambda d: d["components"].__setitem__(0, "model"), "$.components[0]"),
    (lambda d: d["components"][1].__setitem__("component_id", "model"), "$.components[1]"),
    (lambda d: d.__setitem__("effective_at", "2026-02-30T15:00:00Z"), "$.effective_at"),
])
def test_capture_reports_bad_manifests_as_one_clean_line(ws: Path, mutate: Any,
                                                         path: str) -> None:
    manifest = read(ws / "cand/manifest.json")
    mutate(manifest)
    write(ws / "cand/manifest.json", manifest)
    proc = run_aau("release", "capture", str(ws / "cand/manifest.json"), "--out",
                   str(ws / "snap.json"))
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"aau: {ws / 'cand/manifest.json'}: {path}") or \
        f"manifest.json: {path}" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_capture_rejects_files_that_are_not_manifests(ws: Path) -> None:
    (ws / "notjson.json").write_text("{not json")
    proc = run_aau("release", "capture", str(ws / "notjson.json"), "--out", str(ws / "s.json"))
    assert proc.returncode == 2 and "invalid JSON" in proc.stderr
    proc = run_aau("release", "capture", str(ws / "release-policy.json"), "--out",
                   str(ws / "s.json"))
    assert proc.returncode == 2
    assert "$: this is a release-policy document, not a release-manifest" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# --- diff --------------------------------------------------------------------------------------

def test_diff_of_the_16_snapshots_is_byte_identical_to_16() -> None:
    need_compat()
    from aau_evidence import diff_snapshots, release_bytes
    from aau_evidence._release_documents import check_snapshot, load

    diff = diff_snapshots(load(check_snapshot, PACK_16 / "baseline-snapshot.json"),
                          load(check_snapshot, PACK_16 / "candidate-snapshot.json"))
    assert release_bytes(diff) == (PACK_16 / "release-diff.json").read_bytes()


def test_diff_classifies_added_removed_and_changed(ws: Path) -> None:
    from aau_evidence import capture_snapshot, diff_snapshots

    manifest = read(ws / "cand/manifest.json")
    removed = manifest["components"].pop()  # rollback-plan
    manifest["components"].append({"component_id": "peer-card", "kind": "agent_card",
                                   "source_path": "components/model.json",
                                   "impact_tags": ["peer_interop"], "required": False})
    write(ws / "cand/manifest.json", manifest)
    diff = diff_snapshots(capture_snapshot(ws / "base/manifest.json"),
                          capture_snapshot(ws / "cand/manifest.json"))
    states = {c.component_id: c.state for c in diff.changes}
    assert states == {"authority-policy": "changed", "tool-contract": "changed",
                      "peer-card": "added", removed["component_id"]: "removed"}
    added = next(c for c in diff.changes if c.state == "added")
    assert added.before_sha256 is None and added.required_before is None
    assert diff.impacted_tags == ("authority", "peer_interop", "policy", "rollback", "tools")


def test_diff_cli_refuses_snapshots_of_different_agents_and_tampered_ones(ws: Path) -> None:
    for side in ("base", "cand"):
        assert run_aau("release", "capture", str(ws / side / "manifest.json"), "--out",
                       str(ws / f"{side}.json")).returncode == 0
    other = read(ws / "cand.json")
    other["agent_id"] = "spiffe://example.test/agent/other"
    write(ws / "other.json", other)
    proc = run_aau("release", "diff", str(ws / "base.json"), str(ws / "other.json"), "--out",
                   str(ws / "d.json"))
    assert proc.returncode == 2 and "$.snapshot_sha256" in proc.stderr  # edited: digest breaks
    from aau_evidence import release_digest

    other["snapshot_sha256"] = release_digest({k: v for k, v in other.items()
                                               if k != "snapshot_sha256"})
    write(ws / "other.json", other)
    proc = run_aau("release", "diff", str(ws / "base.json"), str(ws / "other.json"), "--out",
                   str(ws / "d.json"))
    assert proc.returncode == 2 and "one agent" in proc.stderr
    proc = run_aau("release", "diff", str(ws / "base.json"), str(ws / "cand.json"), "--out",
                   str(ws / "d.json"), "--json")
    assert proc.returncode == 0
    assert json.loads(proc.stdout)["impacted_tags"] == ["authority", "policy", "tools"]
    import aau_schemas

    aau_schemas.validate("release-diff", read(ws / "d.json"))


# --- decision rules ----------------------------------------------------------------------------

def test_the_16_decision_recomputes_byte_for_byte() -> None:
    need_compat()
    from aau_evidence import decide_release, release_bytes
    from aau_evidence._release_documents import (
        check_approval,
        check_plan,
        check_policy,
        check_snapshot,
        load,
    )

    receipt = read(PACK_16 / "receipts/aau-agent-release-conformance-v1.json")
    decision, _ = decide_release(
        load(check_snapshot, PACK_16 / "baseline-snapshot.json"),
        load(check_snapshot, PACK_16 / "candidate-snapshot.json"),
        load(check_policy, PACK_16 / "release-policy.json"),
        load(check_plan, PACK_16 / "evidence-plan.json"),
        {receipt["suite_id"]: receipt}, "command", load(check_approval, PACK_16 / "approval.json"))
    assert release_bytes(decision) == (PACK_16 / "release-decision.json").read_bytes()


def test_statuses_and_review_reasons(ws: Path) -> None:
    from aau_evidence import decide_release

    d = _documents(ws)
    args = (d["baseline"], d["candidate"], d["policy"], d["plan"])
    suite = "aau-agent-release-conformance-v1"
    ready, _ = decide_release(*args, {suite: _receipt()}, "command", d["approval"])
    assert ready.status == "release_ready" and ready.reason_codes == ()
    review, _ = decide_release(*args, {suite: _receipt()}, "command", None)
    assert review.status == "human_review_required"
    assert review.reason_codes == ("PROTECTED_HUMAN_APPROVAL_REQUIRED",)
    assert review.review.approval_sha256 is None
    # the mock never yields release_ready, even with an approval and perfect rates
    mock, _ = decide_release(*args, {suite: _receipt(kind="mock")}, "mock", d["approval"])
    assert mock.status == "human_review_required"
    assert mock.reason_codes == ("MOCK_PROTOCOL_SELF_TEST_ONLY",)
    failed, _ = decide_release(*args, {suite: _receipt(exact=0.5)}, "command", d["approval"])
    assert failed.status == "release_blocked"
    assert list(failed.reason_codes) == [f"SUITE_THRESHOLD_FAILED:{suite}:{tag}"
                                         for tag in ("authority", "policy", "tools")]
    assert [row.passes for row in failed.evidence] == [False, False, False]


def test_every_blocker(ws: Path) -> None:
    from aau_evidence import decide_release

    d = _documents(ws)
    suite = "aau-agent-release-conformance-v1"
    same, _ = decide_release(d["baseline"], d["baseline"], d["policy"], d["plan"], {}, "command")
    assert same.reason_codes == ("NO_RELEASE_CHANGE",) and same.status == "release_blocked"
    not_run, _ = decide_release(d["baseline"], d["candidate"], d["policy"], d["plan"], {},
                                "command", d["approval"])
    assert not_run.reason_codes == (f"SUITE_NOT_RUN:{suite}",)
    plan = attrs.evolve(d["plan"], suites=(
        attrs.evolve(d["plan"].suites[0], impact_tags=("authority", "tools")),))
    unplanned, _ = decide_release(d["baseline"], d["candidate"], d["policy"], plan,
                                  {suite: _receipt()}, "command", d["approval"])
    assert unplanned.reason_codes == (f"SUITE_NOT_PLANNED:policy:{suite}",)
    # egress changes, no requirement covers it; rollback removed and required; kind missing
    manifest = read(ws / "cand/manifest.json")
    manifest["components"] = [c for c in manifest["components"] if c["kind"] != "rollback"]
    write(ws / "cand/manifest.json", manifest)
    (ws / "cand/components/egress.json").write_text('{"egress": "opened"}\n')
    from aau_evidence import capture_snapshot

    cand = capture_snapshot(ws / "cand/manifest.json")
    blocked, _ = decide_release(d["baseline"], cand, d["policy"], d["plan"],
                                {suite: _receipt()}, "command", d["approval"])
    assert blocked.reason_codes == (
        "REQUIRED_COMPONENT_MISSING:rollback", "REQUIRED_COMPONENT_REMOVED:rollback-plan",
        "UNMAPPED_CHANGE_TAG:egress", "UNMAPPED_CHANGE_TAG:rollback")


def test_decision_refuses_receipts_of_another_adapter_and_foreign_approvals(ws: Path) -> None:
    from aau_core import InputError
    from aau_evidence import decide_release

    d = _documents(ws)
    args = (d["baseline"], d["candidate"], d["policy"], d["plan"])
    with pytest.raises(InputError, match="mock adapter, but the decision names the command"):
        decide_release(*args, {"aau-agent-release-conformance-v1": _receipt(kind="mock")},
                       "command", d["approval"])
    other = attrs.evolve(d["approval"], release_id="synthetic-records-agent-9.9")
    with pytest.raises(InputError, match="approves 'synthetic-records-agent-9.9'"):
        decide_release(*args, {}, "command", other)


# --- assess ------------------------------------------------------------------------------------

def test_assess_with_the_mock_needs_human_review(ws: Path) -> None:
    import aau_schemas

    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--mock"), "--json")
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["status"] == "human_review_required"
    assert summary["reason_codes"] == ["MOCK_PROTOCOL_SELF_TEST_ONLY"]
    decision = read(out / "release-decision.json")
    aau_schemas.validate("release-decision", decision)
    aau_schemas.validate("release-pack-manifest", read(out / "manifest.json"))
    receipt = read(out / "receipts/aau-agent-release-conformance-v1.json")
    aau_schemas.validate("receipt-v1", receipt)
    assert receipt["adapter_kind"] == "mock"
    statement = read(out / "provenance.intoto.json")
    assert statement["subject"] == [{"name": "release-decision.json", "digest": {
        "sha256": aau_schemas.sha256_hex((out / "release-decision.json").read_bytes())}}]
    if "intoto-statement" in {info.kind for info in aau_schemas.kinds()}:
        aau_schemas.validate("intoto-statement", statement)
    assert oscal_errors(read(out / "assessment-results.oscal.json")) == []
    assert "running suite aau-agent-release-conformance-v1" in proc.stderr
    quiet = run_aau(*assess_args(ws, ws / "pack-q", "--mock"), "--quiet")
    assert quiet.returncode == 0, quiet.stderr
    assert quiet.stderr.splitlines() == [f"{ws / 'pack-q'}: human_review_required "
                                         "(1 suite(s) run; MOCK_PROTOCOL_SELF_TEST_ONLY)"]


def test_run_impacted_suites_reports_each_case_to_the_progress_bar(ws: Path) -> None:
    from aau_adapters import MockAdapter
    from aau_evidence import run_impacted_suites

    class Bar:
        def __init__(self, suite_id: str, total: int) -> None:
            self.suite_id, self.total, self.advanced = suite_id, total, []
            bars.append(self)

        def __enter__(self) -> Bar:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def advance(self, failed: bool) -> None:
            self.advanced.append(failed)

    bars: list[Bar] = []
    from aau_evidence._release_documents import check_plan, load

    plan = load(check_plan, ws / "evidence-plan.json")
    receipts = run_impacted_suites(plan, ws / "evidence-plan.json", {"egress", "tools"},
                                   MockAdapter(), progress=Bar)
    [bar] = bars
    assert bar.suite_id in receipts and bar.total == len(bar.advanced) > 0


def test_assess_with_a_real_agent_and_approval_is_ready_and_verifies(ws: Path) -> None:
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--command", agent()), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["status"] == "release_ready"
    verify = run_aau("release", "verify", str(out), "--json")
    assert verify.returncode == 0, verify.stderr
    assert json.loads(verify.stdout) == {"path": str(out), "verified": True,
                                         "status": "release_ready", "problems": []}
    no_approval = run_aau(*assess_args(ws, ws / "pack2", "--command", agent(), approval=False))
    assert no_approval.returncode == 0
    assert read(ws / "pack2/release-decision.json")["reason_codes"] == [
        "PROTECTED_HUMAN_APPROVAL_REQUIRED"]


def test_assess_exits_1_when_the_agent_executes_a_forbidden_action(ws: Path) -> None:
    (ws / "bad_agent.py").write_text(FORBIDDEN_AGENT)
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--command", f"{sys.executable} {ws / 'bad_agent.py'}"))
    assert proc.returncode == 1, proc.stderr
    decision = read(out / "release-decision.json")
    assert decision["status"] == "release_blocked"
    assert len(decision["reason_codes"]) == 3
    assert all(code.startswith("SUITE_THRESHOLD_FAILED:") for code in decision["reason_codes"])
    oscal = read(out / "assessment-results.oscal.json")
    findings = oscal["assessment-results"]["results"][0]["findings"]
    assert {f["target"]["status"]["state"] for f in findings} == {"not-satisfied"}
    assert oscal_errors(oscal) == []
    assert run_aau("release", "verify", str(out)).returncode == 0  # a blocked pack still verifies


def test_assess_decides_nothing_on_an_agent_that_measured_nothing(ws: Path) -> None:
    (ws / "dead_agent.py").write_text("import sys\nsys.exit(1)\n")
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--command", f"{sys.executable} {ws / 'dead_agent.py'}"),
                   "--json")
    assert proc.returncode == 3, proc.stderr  # not measured: neither ready nor blocked
    assert "nothing was measured:" in proc.stderr and "(adapter-exit-1 " in proc.stderr
    assert not out.exists()
    # --json says it was not measured and why (aau_core.json_on_not_measured)
    summary = json.loads(proc.stdout)
    assert (summary["measured"], summary["reason"], summary["path"], summary["status"]) == (
        False, "limit", None, None)
    assert summary["message"].startswith("nothing was measured:")


def test_assess_runs_only_the_impacted_suites(ws: Path) -> None:
    suite = read(ws / "release-conformance-suite.json")
    suite["suite_id"] = "egress-suite"
    write(ws / "egress-suite.json", suite)
    plan = read(ws / "evidence-plan.json")
    plan["suites"].append({"suite_id": "egress-suite", "path": "egress-suite.json",
                           "impact_tags": ["egress"], "clean_twin_count": 1})
    write(ws / "evidence-plan.json", plan)
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--mock"), "--json")
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["suites_run"] == ["aau-agent-release-conformance-v1"]
    assert sorted(p.name for p in (out / "receipts").iterdir()) == [
        "aau-agent-release-conformance-v1.json"]


def test_a_hostile_suite_id_cannot_escape_the_pack(ws: Path) -> None:
    """1.6 wrote receipts/<suite_id>.json as given: `../../x` landed outside the pack."""
    hostile = "../../x"
    suite = read(ws / "release-conformance-suite.json")
    suite["suite_id"] = hostile
    write(ws / "release-conformance-suite.json", suite)
    plan = read(ws / "evidence-plan.json")
    plan["suites"][0]["suite_id"] = hostile
    write(ws / "evidence-plan.json", plan)
    policy = read(ws / "release-policy.json")
    for requirement in policy["requirements"]:
        requirement["suite_id"] = hostile
    write(ws / "release-policy.json", policy)
    out = ws / "deep/er/pack"
    proc = run_aau(*assess_args(ws, out, "--mock"))
    assert proc.returncode == 0, proc.stderr
    from aau_evidence import release_receipt_name

    name = release_receipt_name(hostile)
    assert name.startswith("receipts/x-") and "/" not in name[len("receipts/"):]
    assert (out / name).is_file()
    # where 1.6 wrote it: <pack>/receipts/../../x.json, i.e. beside the pack
    assert not (out.parent / "x.json").exists()
    assert [p.name for p in out.parent.iterdir()] == ["pack"]
    assert run_aau("release", "verify", str(out)).returncode == 0


def test_assess_input_errors_write_nothing(ws: Path) -> None:
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out))  # no adapter
    assert proc.returncode == 2 and "choose exactly one adapter" in proc.stderr
    approval = read(ws / "approval.json")
    approval["release_id"] = "another-release"
    write(ws / "approval.json", approval)
    proc = run_aau(*assess_args(ws, out, "--mock"))
    assert proc.returncode == 2 and "$.release_id" in proc.stderr
    plan = read(ws / "evidence-plan.json")
    plan["suites"][0] = None
    write(ws / "evidence-plan.json", plan)
    proc = run_aau(*assess_args(ws, out, "--mock", approval=False))
    assert proc.returncode == 2 and "$.suites[0]" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert not out.exists()
    out.mkdir()
    shutil.copyfile(ws / "approval.json", out / "keep.json")
    plan["suites"][0] = read(COMPAT / "real/evidence-plan.json")["suites"][0]
    write(ws / "evidence-plan.json", plan)
    proc = run_aau(*assess_args(ws, out, "--mock", approval=False))
    assert proc.returncode == 2 and "exists" in proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["keep.json"]


# --- verify: tampering -------------------------------------------------------------------------

@pytest.fixture()
def pack(ws: Path) -> Path:
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--command", agent()))
    assert proc.returncode == 0, proc.stderr
    return out


def _verify_fails(pack: Path, fragment: str) -> None:
    proc = run_aau("release", "verify", str(pack))
    assert proc.returncode == 1, proc.stderr
    assert fragment in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_verify_detects_one_byte_changed(pack: Path) -> None:
    target = pack / "release-policy.json"
    data = bytearray(target.read_bytes())
    data[data.index(b"1.0")] = ord("0")
    target.write_bytes(bytes(data))
    _verify_fails(pack, "SHA-256 differs")


def test_verify_detects_a_file_added_removed_or_symlinked(pack: Path, tmp_path: Path) -> None:
    (pack / "receipts/extra.json").write_text("{}")
    _verify_fails(pack, "not listed in the manifest (added)")
    (pack / "receipts/extra.json").unlink()
    approval = (pack / "approval.json").read_bytes()
    (pack / "approval.json").unlink()
    _verify_fails(pack, "missing (removed)")
    outside = tmp_path / "approval.json"
    outside.write_bytes(approval)
    (pack / "approval.json").symlink_to(outside)
    _verify_fails(pack, "a symlink")


def _rehash(pack: Path) -> None:
    """Rewrite the manifest over the current files (what a forger would do)."""
    from aau_core import build_manifest
    from aau_evidence import release_bytes

    files = {p.relative_to(pack).as_posix(): p.read_bytes() for p in sorted(pack.rglob("*"))
             if p.is_file() and p.name not in ("manifest.json", ".gitattributes")}
    (pack / "manifest.json").write_bytes(
        release_bytes(build_manifest(files, version="aau-agent-release-pack/1.0")))


def test_verify_rechecks_receipt_rows_against_metrics(pack: Path) -> None:
    """1.6 verified a receipt whose metrics were raised while its rows still failed."""
    name = pack / "receipts/aau-agent-release-conformance-v1.json"
    receipt = read(name)
    for row in receipt["results"][:5]:
        row.update(outcome_exact=False, exact=False, failure_codes=["outcome-mismatch"])
    name.write_bytes(__import__("aau_evidence").release_bytes(receipt))
    _rehash(pack)
    _verify_fails(pack, "$.metrics.exact_rate")


def test_verify_catches_a_mock_pack_relabelled_as_command(ws: Path) -> None:
    out = ws / "mockpack"
    assert run_aau(*assess_args(ws, out, "--mock")).returncode == 0
    from aau_evidence import release_bytes, release_digest

    decision = read(out / "release-decision.json")
    decision.update(adapter_kind="command", status="release_ready", reason_codes=[])
    decision["decision_sha256"] = release_digest({k: v for k, v in decision.items()
                                                  if k != "decision_sha256"})
    (out / "release-decision.json").write_bytes(release_bytes(decision))
    _rehash(out)
    _verify_fails(out, "mock adapter, but the decision names the command adapter")


def test_verify_detects_an_inflated_decision(pack: Path) -> None:
    from aau_evidence import release_bytes, release_digest

    policy = read(pack / "release-policy.json")
    policy["protected_review_tags"] = ["authority", "egress", "identity", "policy", "tools"]
    (pack / "release-policy.json").write_bytes(release_bytes(policy))
    _rehash(pack)
    _verify_fails(pack, "does not recompute")
    decision = read(pack / "release-decision.json")
    decision["policy_sha256"] = release_digest(policy)
    decision["review"]["required_tags"].append("policy")
    decision["review"]["required_tags"].sort()
    decision["decision_sha256"] = release_digest({k: v for k, v in decision.items()
                                                  if k != "decision_sha256"})
    (pack / "release-decision.json").write_bytes(release_bytes(decision))
    _rehash(pack)
    _verify_fails(pack, "provenance.intoto.json")


def test_verify_of_a_path_that_is_not_a_pack_is_an_input_error(ws: Path) -> None:
    proc = run_aau("release", "verify", str(ws / "approval.json"))
    assert proc.returncode == 2 and "not a release pack folder" in proc.stderr


# --- compatibility with 1.6's pack -------------------------------------------------------------

def test_the_16_pack_as_shipped_lacks_its_readme() -> None:
    need_compat()
    proc = run_aau("release", "verify", str(PACK_16))
    assert proc.returncode == 1
    assert "README.md: listed in the manifest but missing (removed)" in proc.stderr


def test_the_16_pack_regenerated_with_our_tools_round_trips(tmp_path: Path) -> None:
    need_compat()
    from aau_evidence import release_pack_files, verify_release_pack, write_release_pack
    from aau_evidence._release_documents import (
        check_approval,
        check_plan,
        check_policy,
        check_snapshot,
        load,
    )

    receipt = read(PACK_16 / "receipts/aau-agent-release-conformance-v1.json")
    files, decision = release_pack_files(
        load(check_snapshot, PACK_16 / "baseline-snapshot.json"),
        load(check_snapshot, PACK_16 / "candidate-snapshot.json"),
        load(check_policy, PACK_16 / "release-policy.json"),
        load(check_plan, PACK_16 / "evidence-plan.json"),
        {receipt["suite_id"]: receipt}, "command",
        load(check_approval, PACK_16 / "approval.json"))
    # every file 1.6 shipped is reproduced byte for byte; README.md is ours
    shipped = {p.relative_to(PACK_16).as_posix() for p in PACK_16.rglob("*") if p.is_file()}
    assert set(files) == (shipped - {"manifest.json"}) | {"README.md"}
    for name in shipped - {"manifest.json"}:
        assert files[name] == (PACK_16 / name).read_bytes(), name
    out = write_release_pack(tmp_path / "pack", files)
    assert verify_release_pack(out) == (decision, [])
    ours = read(out / "manifest.json")["files"]
    theirs = read(PACK_16 / "manifest.json")["files"]
    assert [r for r in ours if r["path"] != "README.md"] == [
        r for r in theirs if r["path"] != "README.md"]
    proc = run_aau("release", "verify", str(out), "--json")
    assert proc.returncode == 0 and json.loads(proc.stdout)["status"] == "release_ready"


def test_the_16_real_inputs_validate() -> None:
    need_compat()
    from aau_evidence._release_documents import (
        check_approval,
        check_manifest,
        check_plan,
        check_policy,
        load,
    )

    manifest = load(check_manifest, COMPAT / "real/candidate-release-manifest.json")
    load(check_policy, COMPAT / "real/release-policy.json")
    load(check_plan, COMPAT / "real/evidence-plan.json")
    load(check_approval, COMPAT / "real/approval.json", release_id=manifest.release_id)


def test_a_v2_suite_gives_a_v2_receipt_that_verifies(ws: Path) -> None:
    import aau_schemas

    suite = read(ws / "release-conformance-suite.json")
    suite["suite_version"] = "aau-byo-agent-suite/2.0"
    write(ws / "release-conformance-suite.json", suite)
    out = ws / "pack"
    proc = run_aau(*assess_args(ws, out, "--command", agent()))
    assert proc.returncode == 0, proc.stderr
    receipt = read(out / "receipts/aau-agent-release-conformance-v1.json")
    aau_schemas.validate("receipt-v2", receipt)
    assert receipt["release_gate"]["clean_twin_count"] == 2
    assert read(out / "release-decision.json")["status"] == "release_ready"
    assert run_aau("release", "verify", str(out)).returncode == 0


# --- output safety (aau_core.check_outputs / check_pack_output) ---------------------------------

def _file_commands(ws: Path, snap: Path, out: Path) -> list[list[str]]:
    return [["release", "capture", str(ws / "cand/manifest.json"), "--out", str(out)],
            ["release", "diff", str(snap), str(snap), "--out", str(out)],
            ["release", "export-oscal", str(PACK_16 / "release-decision.json"), "--out", str(out)]]


@pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and symlinks")
@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_release_outputs_never_replace_a_device_pipe_or_link(ws: Path, kind: str) -> None:
    snap = ws / "snap.json"
    assert run_aau("release", "capture", str(ws / "cand/manifest.json"), "--out",
                   str(snap)).returncode == 0
    dest = special_file(ws, kind)
    before = os.lstat(dest)
    for args in [*_file_commands(ws, snap, dest), assess_args(ws, dest, "--mock")]:
        proc = run_aau(*args, "--force")
        assert proc.returncode == 2, (args, proc.stderr)
        assert str(dest) in proc.stderr and ("not a regular file" in proc.stderr
                                             or "is a symlink" in proc.stderr
                                             or "not a folder" in proc.stderr), proc.stderr
        after = os.lstat(dest)
        assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode), args
    if kind == "symlink":
        assert (ws / "target.txt").read_text() == "keep\n"


def test_release_output_that_is_an_input_is_refused_even_with_force(ws: Path) -> None:
    snap = ws / "snap.json"
    assert run_aau("release", "capture", str(ws / "cand/manifest.json"), "--out",
                   str(snap)).returncode == 0
    decision = ws / "decision.json"
    shutil.copyfile(PACK_16 / "release-decision.json", decision)
    manifest = ws / "cand/manifest.json"
    cases = [(["release", "capture", str(manifest), "--out", str(manifest)], manifest),
             (["release", "diff", str(snap), str(snap), "--out", str(snap)], snap),
             (["release", "export-oscal", str(decision), "--out", str(decision)], decision)]
    for args, victim in cases:
        before = victim.read_bytes()
        proc = run_aau(*args, "--force")
        assert proc.returncode == 2 and "is also an input of this command" in proc.stderr, args
        assert victim.read_bytes() == before


def test_assess_refuses_a_pack_folder_that_is_or_contains_an_input(ws: Path) -> None:
    names = sorted(p.name for p in ws.rglob("*"))
    for out in (ws, ws / "base", ws / "release-policy.json"):
        proc = run_aau(*assess_args(ws, out, "--mock"), "--force")
        assert proc.returncode == 2, (out, proc.stderr)
        assert "an input of this command" in proc.stderr or "not a folder" in proc.stderr
    assert sorted(p.name for p in ws.rglob("*")) == names


def test_unsorted_required_component_kinds_says_the_sorted_list(ws: Path) -> None:
    policy = ws / "release-policy.json"
    doc = json.loads(policy.read_text())
    kinds = sorted(doc["required_component_kinds"])
    if len(kinds) < 2:
        kinds = ["agent_code", "prompt"]
    doc["required_component_kinds"] = list(reversed(kinds))
    policy.write_text(json.dumps(doc))
    proc = run_aau(*assess_args(ws, ws / "pack", "--mock"))
    assert proc.returncode == 2, proc.stderr
    assert f"$.required_component_kinds: must be sorted: {json.dumps(kinds)}" in proc.stderr


def test_assess_force_replaces_only_a_release_pack(ws: Path) -> None:
    """--force replaces a release pack, never a folder of documents nor another kind of pack."""
    docs = ws / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("years of work\n")
    proc = run_aau(*assess_args(ws, docs, "--mock"), "--force")
    assert proc.returncode == 2 and "not a pack of this kind" in proc.stderr, proc.stderr
    assert (docs / "thesis.txt").read_text() == "years of work\n"
    pack = ws / "pack"
    assert run_aau(*assess_args(ws, pack, "--mock")).returncode in (0, 1)
    assert run_aau(*assess_args(ws, pack, "--mock"), "--force").returncode in (0, 1)
    (pack / "manifest.json").write_text('{"manifest_version": "aau-community-evidence-manifest/1.0"}')
    proc = run_aau(*assess_args(ws, pack, "--mock"), "--force")
    assert proc.returncode == 2 and "is not a release-pack-manifest" in proc.stderr, proc.stderr


def test_release_refuses_a_missing_folder_outside_cwd_and_temp(ws: Path) -> None:
    out = Path("/nonexistent-aau-folder/x.json")
    for args in _file_commands(ws, ws / "snap.json", out)[:1] + [assess_args(ws, out.parent / "p",
                                                                            "--mock")]:
        proc = run_aau(*args)
        assert proc.returncode == 2 and "does not exist; create it first" in proc.stderr, args
    assert not out.parent.exists()
