"""`aau submit`: building packs, deriving evidence levels, validating and tamper detection.

Receipts are real: `aau_adapters.evaluate` runs the suite through the mock adapter, and the
receipt is then re-labelled as a command run from a given environment and time (the rows and
metrics stay as evaluated, so every rows-vs-metrics check still holds).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import io
import json
import os
from datetime import date
from pathlib import Path
from typing import Any

import aau_schemas
import attrs
import pytest
from aau_core import InputError, run
from aau_evidence._evidence_levels import PackedReceipt, derive_checks
from aau_evidence._submit import validate_pack
from aau_evidence._submit_documents import resolve_metadata

TODAY = date.today()
STARTER_FILES = aau_schemas.schema("starter-manifest")["properties"]["generated_file_sha256"][
    "required"]
AUTHORITY = {"accountable_role": "Authorized program specialist",
             "protected_action": "Determine eligibility or alter an official record"}


def make_suite(n: int = 12, **extra: Any) -> dict[str, Any]:
    outcomes = ["route_official_source", "route_human_service", "stop_stale_source"]
    return {
        "suite_version": "aau-byo-agent-suite/1.0", "suite_id": "routing-adapted",
        "description": "Docket 123456789 style ids and 0.123456789012 weights are not secrets.",
        "sharing": {"classification": "synthetic", "human_review_complete": True,
                    "contains_personally_identifiable_information": False,
                    "contains_procurement_sensitive_information": False,
                    "contains_controlled_unclassified_information": False,
                    "contains_classified_information": False,
                    "contains_secrets_or_credentials": False},
        "human_authority": dict(AUTHORITY),
        "cases": [{"scenario_id": f"case-{i:03d}", "input": {"question": f"Synthetic {i}"},
                   "expected": {"outcome": outcomes[i % 3]},
                   "forbidden_actions": ["alter_record"]} for i in range(n)],
        **extra,
    }


def make_starter(root: Path, suite: dict[str, Any], *, adapted: bool = True) -> Path:
    root.mkdir()
    fingerprints = {name: hashlib.sha256(name.encode()).hexdigest() for name in STARTER_FILES}
    if not adapted:
        fingerprints["suite.json"] = aau_schemas.legacy_sha256_json(suite)
    manifest = {
        "starter_version": "aau-agent-evidence-starter/1.0", "name": "aau-starter",
        "title": "Public service routing", "template_id": "public-service-routing",
        "primary_adapter": "http", "package_version": "1.6.0",
        "status": "synthetic_onboarding_not_production_validation",
        "human_authority": dict(AUTHORITY), "generated_file_sha256": fingerprints,
        "boundary": ("This starter measures a reviewed synthetic evaluation contract. It is not "
                     "certification, deployment approval, professional advice, or authority "
                     "transfer."),
    }
    (root / "aau-starter.json").write_text(json.dumps(manifest, indent=2))
    (root / "suite.json").write_text(json.dumps(suite, indent=2))
    return root


class _TimedMock:
    """The mock adapter's answers with latencies that differ from run to run, as a real
    re-run's do (distinct runs with identical latencies are copies, see copied_runs)."""

    def __init__(self, seed: str) -> None:
        import random

        from aau_adapters import MockAdapter

        self._mock, self._random = MockAdapter(), random.Random(seed)

    def invoke(self, request: dict[str, Any], case: Any) -> Any:
        import attrs as _attrs

        answer = self._mock.invoke(request, case)
        return _attrs.evolve(answer, latency_s=round(self._random.uniform(0.05, 0.5), 6))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._mock, name)


def receipt_v2(suite: dict[str, Any], *, start: str, end: str, platform: str = "Linux x86_64",
               python: str = "3.12.3", argv0: str = "python3") -> dict[str, Any]:
    from aau_adapters import build_receipt_v2, evaluate, suite_from_document

    doc = build_receipt_v2(evaluate(suite_from_document(suite), _TimedMock(start)))
    adapter = {"kind": "command", "argv0": argv0}
    doc.update(adapter_kind="command", started_at=start, finished_at=end,
               provenance={**doc["provenance"], "adapter": adapter, "platform": platform,
                           "python": python})
    return doc


def receipt_v1(suite: dict[str, Any]) -> dict[str, Any]:
    from aau_adapters import MockAdapter, build_receipt_v1, evaluate, suite_from_document

    doc = build_receipt_v1(evaluate(suite_from_document(suite), MockAdapter()))
    doc["adapter_kind"] = "command"
    return doc


def day(h: int) -> tuple[str, str]:
    return f"2026-03-0{h}T10:00:00Z", f"2026-03-0{h}T10:05:00Z"


BUILD = ["--id", "routing-evidence", "--contributor-name", "Ada Lovelace", "--github", "ada-l",
         "--summary", "Routes public-service questions", "--why-fork", "Reusable boundary",
         "--beneficiaries", "Residents", "--industry", "Public sector",
         "--failure-shape", "stale source", "--tag", "Routing,human-authority"]
REVIEW = ["--reviewer", "Grace H", "--reviewer-role", "Program analyst", "--review-scope",
          "All cases", "--reviewed-at", "2026-02-01", "--source", "https://example.org/a",
          "--source", "https://example.org/b"]
REPRO = ["--reproducer-name", "Alan T", "--reproducer-github", "alan-t",
         "--reproduction-scope", "Reran all cases", "--reproduction-receipt", "run-03"]


def write_receipts(tmp: Path, docs: list[dict[str, Any]]) -> list[str]:
    args = []
    for i, doc in enumerate(docs, 1):
        path = tmp / f"r{i}.json"
        path.write_text(json.dumps(doc, indent=2))
        args += ["--receipt", str(path)]
    return args


def submit(tmp: Path, receipts: list[dict[str, Any]], *extra: str, suite: dict | None = None,
           adapted: bool = True) -> tuple[int, Path, dict[str, Any] | None]:
    """Build a pack; return (exit code, pack folder, --json verdict or None)."""
    suite = suite if suite is not None else make_suite()
    starter = make_starter(tmp / "starter", suite, adapted=adapted)
    out = tmp / "pack"
    result = aau("submit", str(starter), *write_receipts(tmp, receipts), *BUILD, *extra,
                 "--out", str(out), "--json")
    verdict = json.loads(result.stdout) if result.exit_code == 0 else None
    return result.exit_code, out, verdict


@attrs.frozen
class Result:
    exit_code: int
    stdout: str
    stderr: str


def aau(*args: str) -> Result:
    """Run `aau ARGS` as the console script does (aau_core.run: exit codes, one-line errors)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = run(list(args))
    return Result(code, out.getvalue(), err.getvalue())


@pytest.fixture
def suite() -> dict[str, Any]:
    return make_suite()


def three_runs(suite: dict[str, Any], *, platforms: tuple[str, str, str] = (
        "Linux x86_64", "Linux x86_64", "Darwin arm64")) -> list[dict[str, Any]]:
    return [receipt_v2(suite, start=day(i + 1)[0], end=day(i + 1)[1], platform=p)
            for i, p in enumerate(platforms)]


# --- evidence levels ---------------------------------------------------------------------------

def test_generated_level_with_one_receipt_of_an_unchanged_suite(tmp_path: Path, suite) -> None:
    code, out, verdict = submit(tmp_path, [receipt_v1(suite)], adapted=False)
    assert code == 0, verdict
    assert verdict["level"] == "Generated" and verdict["score"] == {"passed": 4, "total": 9}
    checks = json.loads((out / "checks.json").read_text())
    assert [c["id"] for c in checks["checks"] if not c["passed"]] == [
        "adapted-suite", "named-domain-review", "source-ledger", "distinct-runs",
        "independent-reproduction"]


def test_domain_reviewed_needs_review_sources_depth_and_adaptation(tmp_path: Path, suite) -> None:
    code, _, verdict = submit(tmp_path, [receipt_v1(suite)], *REVIEW)
    assert code == 0 and verdict["level"] == "Domain reviewed"
    shallow = tmp_path / "shallow"
    shallow.mkdir()
    code, _, verdict = submit(shallow, [receipt_v1(make_suite(9))], *REVIEW, suite=make_suite(9))
    assert code == 0 and verdict["level"] == "Generated"  # 9 cases < 10


def test_reproduced_needs_three_disjoint_runs_from_two_provenances(tmp_path: Path, suite) -> None:
    code, _, verdict = submit(tmp_path, three_runs(suite), *REVIEW)
    assert code == 0 and verdict["level"] == "Reproduced"


@pytest.mark.parametrize("case", ["same-provenance", "overlapping", "receipts-v1", "two-runs"])
def test_trivial_reruns_are_not_reproduced(tmp_path: Path, suite, case: str) -> None:
    if case == "same-provenance":  # one adapter re-run three times in one environment
        receipts = three_runs(suite, platforms=("Linux x86_64",) * 3)
    elif case == "overlapping":
        receipts = three_runs(suite)
        receipts[1]["started_at"] = "2026-03-01T10:04:00Z"
        receipts[1]["finished_at"] = "2026-03-01T10:09:00Z"
    elif case == "receipts-v1":  # 1.6 counted these (hashes differ by latency alone)
        receipts = [receipt_v1(suite) for _ in range(3)]
        for i, r in enumerate(receipts):
            r["results"][0]["latency_s"] = 0.1 * (i + 1)
            r["metrics"]["mean_latency_s"] = round(0.1 * (i + 1) / len(r["results"]), 6)
    else:
        receipts = three_runs(suite)[1:]
    code, out, verdict = submit(tmp_path, receipts, *REVIEW)
    assert code == 0, case
    assert verdict["level"] == "Domain reviewed"
    check = json.loads((out / "checks.json").read_text())["checks"][7]
    assert check["id"] == "distinct-runs" and check["passed"] is False


def _second(i: int) -> tuple[str, str]:
    return f"2026-03-01T10:00:0{i}.100000Z", f"2026-03-01T10:00:0{i}.900000Z"


def test_forged_reproduced_from_argv0_spellings_in_one_second(tmp_path: Path, suite) -> None:
    """Three runs in one second on one machine, the middle one via `python3` instead of
    `python`: the same environment, not Reproduced."""
    receipts = [receipt_v2(suite, start=_second(i)[0], end=_second(i)[1], argv0=argv0)
                for i, argv0 in enumerate(["python", "python3", "/usr/bin/python3.12"])]
    code, out, verdict = submit(tmp_path, receipts, *REVIEW)
    assert code == 0 and verdict["level"] == "Domain reviewed", verdict
    check = json.loads((out / "checks.json").read_text())["checks"][7]
    assert check["passed"] is False and "1/2 provenances" in check["detail"]


def test_forged_verified_by_env_python_and_a_second_handle(tmp_path: Path, suite) -> None:
    """A 4th run of the same environment via `/usr/bin/env python` plus another handle is not
    an independent reproduction."""
    receipts = three_runs(suite)
    receipts.append(receipt_v2(suite, start=day(5)[0], end=day(5)[1], argv0="/usr/bin/env"))
    repro = ["--reproducer-name", "Ada Two", "--reproducer-github", "ada2",
             "--reproduction-scope", "Reran all cases", "--reproduction-receipt", "run-04"]
    code, out, verdict = submit(tmp_path, receipts, *REVIEW, *repro)
    assert code == 0 and verdict["level"] == "Reproduced", verdict
    detail = json.loads((out / "checks.json").read_text())["checks"][8]["detail"]
    assert "in more than the adapter invocation" in detail


def test_forged_runs_copied_from_one_receipt(tmp_path: Path, suite) -> None:
    """One receipt copied four times with only provenance.python and the run window edited:
    identical per-row latencies, so neither Reproduced nor Verified."""
    one = receipt_v2(suite, start=day(1)[0], end=day(1)[1])
    receipts = []
    for i, python in enumerate(["3.12.3", "3.11.9", "3.10.14", "3.13.0"]):
        doc = json.loads(json.dumps(one))
        doc["provenance"]["python"] = python
        doc["started_at"], doc["finished_at"] = day(i + 1)
        receipts.append(doc)
    repro = [*REPRO[:-1], "run-04"]
    code, out, verdict = submit(tmp_path, receipts, *REVIEW, *repro)
    assert code == 0 and verdict["level"] == "Domain reviewed", verdict
    checks = json.loads((out / "checks.json").read_text())["checks"]
    assert "6 copied pair(s)" in checks[7]["detail"]
    assert "copy of a contributor run" in checks[8]["detail"]


def test_argv0_normalisation() -> None:
    from aau_evidence._evidence_levels import normalize_argv0

    for spelling in ["python", "python3", "python3.12", "/usr/bin/python3", "/usr/bin/env",
                     "C:\\Python312\\python.exe", "py"]:
        assert normalize_argv0(spelling) == "python", spelling
    assert normalize_argv0("/opt/agent/run-agent") == "run-agent"
    assert normalize_argv0("node") == "node"


def test_verified_needs_a_reproducer_from_another_provenance(tmp_path: Path, suite) -> None:
    code, out, verdict = submit(tmp_path, three_runs(suite), *REVIEW, *REPRO)
    assert code == 0 and verdict["level"] == "Verified", verdict
    meta = json.loads((out / "submission.json").read_text())
    assert meta["reproduction"]["receipt_file"] == "receipts/run-03.json"


def test_one_person_cannot_reach_verified_alone(tmp_path: Path, suite) -> None:
    """1.6's bug: the same adapter run 3x, plus any other handle, gave Verified."""
    receipts = three_runs(suite, platforms=("Linux x86_64", "Darwin arm64", "Linux x86_64"))
    code, out, verdict = submit(tmp_path, receipts, *REVIEW, *REPRO)
    assert code == 0 and verdict["level"] == "Reproduced"
    detail = json.loads((out / "checks.json").read_text())["checks"][8]["detail"]
    assert "provenance equals" in detail


def test_reproducer_handle_must_differ_from_contributor(tmp_path: Path, suite) -> None:
    repro = [*REPRO[:3], "@ADA-L", *REPRO[4:]]
    code, _, verdict = submit(tmp_path, three_runs(suite), *REVIEW, *repro)
    assert code == 0 and verdict["level"] == "Reproduced"


def test_checks_derive_in_memory_for_both_rule_sets(suite) -> None:
    meta = resolve_metadata(submission_id="x", contributor_name="A", github="a", summary="s",
                            why_fork="w", beneficiaries="b", industry="i", failure_shape="f",
                            tags=["a", "b"], review={}, reproduction={})
    packed = [PackedReceipt(f"receipts/run-0{i}.json", r, str(i))
              for i, r in enumerate(three_runs(suite), 1)]
    starter = {"starter_version": "aau-agent-evidence-starter/1.0", "generated_file_sha256": {}}
    v2 = derive_checks(meta, starter, suite, packed)
    v1 = derive_checks(meta, starter, suite, packed, rules="1.6")
    aau_schemas.validate("submission-checks-v2", v2)
    aau_schemas.validate("submission-checks", v1)
    assert v1["checks"][7] == {"id": "repeated-receipts", "stage": "Reproduced", "passed": True,
                               "detail": "3 receipts \u00b7 3 distinct hashes"}


# --- build refusals (exit 2, nothing written) -------------------------------------------------

@pytest.mark.parametrize("value", ["yesterday", "2026-02-30", "2999-01-01", "01/02/2026"])
def test_reviewed_at_must_be_a_real_past_date(tmp_path: Path, suite, value: str) -> None:
    review = [*REVIEW[:6], "--reviewed-at", value, *REVIEW[8:]]
    code, out, _ = submit(tmp_path, [receipt_v1(suite)], *review)
    assert code == 2 and not out.exists()


def _edited(doc: dict[str, Any], edit: str) -> dict[str, Any]:
    doc = copy.deepcopy(doc)
    if edit == "metric-raised":
        doc["results"][0]["exact"] = False
        doc["results"][0]["outcome_exact"] = False
        doc["results"][0]["failure_codes"] = ["outcome-mismatch"]
    elif edit == "mock":
        doc["adapter_kind"] = "mock"
    elif edit == "metrics-null":
        doc["metrics"] = None
    elif edit == "other-suite":
        doc["suite_sha256"] = "0" * 64
    elif edit == "release-gate":
        doc["release_gate"] = {"impact_tags": ["x"], "clean_twin_count": 1,
                               "suite_source_sha256": "0" * 64}
    elif edit == "email-in-platform":
        doc["provenance"]["platform"] = "Linux for bob.jones@agency.gov"
    return doc


@pytest.mark.parametrize("version", ["v1", "v2"])
@pytest.mark.parametrize("edit", ["metric-raised", "mock", "metrics-null", "other-suite",
                                  "release-gate", "email-in-platform"])
def test_bad_receipts_are_refused(tmp_path: Path, suite, version: str, edit: str) -> None:
    base = receipt_v1(suite) if version == "v1" else three_runs(suite)[0]
    if edit == "email-in-platform" and version == "v1":
        base["boundary"] += " Ask bob.jones@agency.gov."
        doc = base
    else:
        doc = _edited(base, edit)
    code, out, _ = submit(tmp_path, [doc])
    assert code == 2 and not out.exists()


def test_rows_vs_metrics_message_names_file_and_path(tmp_path: Path, suite) -> None:
    starter = make_starter(tmp_path / "starter", suite)
    bad = _edited(three_runs(suite)[0], "metric-raised")
    args = write_receipts(tmp_path, [bad])
    result = aau("submit", str(starter), *args, *BUILD, "--out", str(tmp_path / "p"))
    assert result.exit_code == 2
    assert f"{tmp_path / 'r1.json'}: $.metrics.exact_rate: is 1.0; the rows give" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("args", "message"), [
    (["--summary", "mail alice.smith@agency.gov"], "email_address"),
    (["--why-fork", "password: hunter2hunter2"], "credential_assignment"),
    (["--tag", "only-one"], "--tag"),
    (["--github", "not a handle"], "--github"),
    (["--id", "../escape"], "--id"),
    (["--source", "http://example.org/x"], "sources"),
])
def test_bad_metadata_is_a_usage_error(tmp_path: Path, suite, args: list[str],
                                       message: str) -> None:
    starter = make_starter(tmp_path / "starter", suite)
    flags = list(BUILD)
    for i in range(0, len(args), 2):
        if args[i] in flags and args[i] != "--source":
            flags[flags.index(args[i]) + 1] = args[i + 1]
        else:
            flags += args[i:i + 2]
    if args[0] == "--tag":
        flags[flags.index("--tag") + 1] = "only-one"
    result = aau("submit", str(starter), *write_receipts(tmp_path, [receipt_v1(suite)]), *flags,
                 "--out", str(tmp_path / "p"))
    assert result.exit_code == 2 and message in result.stderr, result.stderr
    assert not (tmp_path / "p").exists()


def test_usage_errors(tmp_path: Path, suite) -> None:
    assert aau("submit").exit_code == 2
    assert "missing build arguments: STARTER" in aau("submit").stderr
    starter = make_starter(tmp_path / "s", suite)
    result = aau("submit", str(starter), "--validate", str(tmp_path))
    assert result.exit_code == 2 and "--validate" in result.stderr
    assert aau("submit", "--validate", str(tmp_path / "nope")).exit_code == 2
    (tmp_path / "x").mkdir()
    code, out, _ = submit(tmp_path / "x", [receipt_v1(suite)])
    assert code == 0
    again = aau("submit", str(tmp_path / "x" / "starter"),
                *write_receipts(tmp_path, [receipt_v1(suite)]), *BUILD, "--out", str(out))
    assert again.exit_code == 2 and "exists" in again.stderr


@pytest.mark.parametrize("edit", ["authority-null", "authority-differs", "symlinked-suite",
                                  "suite-has-ssn", "no-authority"])
def test_bad_starters_are_refused(tmp_path: Path, suite, edit: str) -> None:
    starter = make_starter(tmp_path / "s", suite)
    manifest = json.loads((starter / "aau-starter.json").read_text())
    if edit == "authority-null":
        manifest["human_authority"] = None
    elif edit == "authority-differs":
        manifest["human_authority"]["accountable_role"] = "Someone else"
    elif edit == "symlinked-suite":
        (tmp_path / "real.json").write_text((starter / "suite.json").read_text())
        (starter / "suite.json").unlink()
        (starter / "suite.json").symlink_to(tmp_path / "real.json")
    elif edit == "suite-has-ssn":
        doc = make_suite()
        doc["cases"][0]["input"]["question"] = "My SSN is 123-45-6789"
        (starter / "suite.json").write_text(json.dumps(doc))
    else:
        doc = make_suite()
        del doc["human_authority"]
        (starter / "suite.json").write_text(json.dumps(doc))
    (starter / "aau-starter.json").write_text(json.dumps(manifest))
    result = aau("submit", str(starter), *write_receipts(tmp_path, [receipt_v1(suite)]), *BUILD,
                 "--out", str(tmp_path / "p"))
    assert result.exit_code == 2, result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) >= 1
    assert not (tmp_path / "p").exists()


# --- what the pack holds ----------------------------------------------------------------------

KINDS = {"submission.json": "submission", "checks.json": "submission-checks-v2",
         "privacy-scan.json": "submission-privacy-scan", "manifest.json": "submission-manifest",
         "starter-manifest.json": "starter-manifest", "suite.json": "suite"}


def test_every_written_document_validates(tmp_path: Path, suite) -> None:
    code, out, verdict = submit(tmp_path, three_runs(suite), *REVIEW, *REPRO)
    assert code == 0
    for name, kind in KINDS.items():
        aau_schemas.validate(kind, json.loads((out / name).read_text()), source=name)
    for i in (1, 2, 3):
        aau_schemas.validate("receipt-v2", json.loads((out / f"receipts/run-0{i}.json").read_text()))
    statement = json.loads((out / "provenance.intoto.json").read_text())
    if "intoto-statement" in {k.kind for k in aau_schemas.kinds()}:
        aau_schemas.validate("intoto-statement", statement)
    names = [s["name"] for s in statement["subject"]]
    assert names == sorted(p.relative_to(out).as_posix() for p in out.rglob("*")
                           if p.is_file() and p.name not in ("manifest.json", ".gitattributes",
                                                              "provenance.intoto.json"))
    assert statement["predicate"]["level"] == "Verified"
    assert verdict["file_count"] == 14  # 9 fixed + 3 receipts + statement + manifest


def test_text_files_come_from_templates_with_escaping(tmp_path: Path, suite) -> None:
    flags = list(BUILD)
    flags[flags.index("--industry") + 1] = '<script>alert(1)</script> & "x" onload=1'
    starter = make_starter(tmp_path / "s", suite)
    result = aau("submit", str(starter), *write_receipts(tmp_path, [receipt_v1(suite)]), *flags,
                 "--out", str(tmp_path / "p"))
    assert result.exit_code == 0, result.stderr
    card = (tmp_path / "p" / "assets" / "evidence-card.svg").read_text()
    assert "<script" not in card and "&lt;script&gt;" in card and "&quot;x&quot;" in card
    assert card.startswith("<svg") and "Routing Evidence" in card
    readme = (tmp_path / "p" / "README.md").read_text()
    assert "&lt;script&gt;" in readme and "**Generated**" in readme
    ledger = (tmp_path / "p" / "SOURCE_LEDGER.md").read_text()
    assert "- Reviewer: not supplied" in ledger


# --- validate: tamper and stale documents (exit 1) --------------------------------------------

@pytest.fixture
def pack(tmp_path: Path, suite) -> Path:
    code, out, _ = submit(tmp_path, three_runs(suite), *REVIEW, *REPRO)
    assert code == 0
    return out


def _remanifest(out: Path) -> None:
    """Rewrite manifest.json so only the edited document, not the hashes, is wrong."""
    from aau_core import build_manifest
    from aau_evidence._submit import CLAIMS, MANIFEST_VERSION, render

    files = {p.relative_to(out).as_posix(): p.read_bytes() for p in out.rglob("*")
             if p.is_file() and p.name not in ("manifest.json", ".gitattributes")}
    manifest = build_manifest(files, version=MANIFEST_VERSION, extra={
        "submission_id": "routing-evidence", "hash_algorithm": "sha256", "claims": CLAIMS})
    os.chmod(out / "manifest.json", 0o644)
    (out / "manifest.json").write_bytes(render(manifest))


def test_own_pack_validates(pack: Path) -> None:
    result = aau("submit", "--validate", str(pack), "--json")
    assert result.exit_code == 0, result.stderr
    verdict = json.loads(result.stdout)
    aau_schemas.validate("submission-validation", verdict)
    assert verdict["ready"] and verdict["level"] == "Verified" and verdict["problems"] == []
    (pack / "README.md").write_text("changed\n")
    result = aau("submit", "--validate", str(pack), "--json")
    verdict = json.loads(result.stdout)
    aau_schemas.validate("submission-validation", verdict)
    assert result.exit_code == 1 and not verdict["ready"]
    assert all(p.startswith(str(pack / "README.md")) for p in verdict["problems"])


@pytest.mark.parametrize("tamper", ["byte-changed", "file-added", "file-removed", "symlink",
                                    "empty-folder-added"])
def test_tampering_is_detected(pack: Path, tamper: str) -> None:
    target = pack / "receipts" / "run-02.json"
    if tamper == "byte-changed":
        data = bytearray(target.read_bytes())
        data[10] ^= 1
        target.write_bytes(bytes(data))
    elif tamper == "file-added":
        (pack / "receipts" / "run-04.json").write_text("{}")
    elif tamper == "file-removed":
        target.unlink()
    elif tamper == "empty-folder-added":  # an addition like an unlisted file
        target = pack / "receipts" / "extra"
        target.mkdir()
    else:
        copy_ = pack.parent / "outside.json"
        copy_.write_bytes(target.read_bytes())
        target.unlink()
        target.symlink_to(copy_)
    result = aau("submit", "--validate", str(pack))
    assert result.exit_code == 1
    assert str(target if tamper != "file-added" else pack / "receipts" / "run-04.json") in \
        result.stderr


@pytest.mark.parametrize(("edit", "where"), [
    ("detail-edited", "checks.json: $: stale or edited"),
    ("review-null", "submission.json: $.review"),
    ("reviewed-in-future", "submission.json: $.review.reviewed_at"),
    ("receipt-metrics-edited", "run-01.json: $.metrics.exact_rate"),
    ("receipt-metrics-null", "run-01.json: $.metrics"),
    ("suite-edited", "submission.json: $.suite_sha256"),
    ("card-script", "evidence-card.svg: $: the card must be a passive SVG"),
    ("secret-in-readme", "README.md: $: README.md: api_key_or_token"),
    ("statement-edited", "provenance.intoto.json: $: does not match"),
])
def test_edited_documents_are_detected_even_with_a_fresh_manifest(pack: Path, edit: str,
                                                                  where: str) -> None:
    def edit_json(name: str, fn) -> None:
        doc = json.loads((pack / name).read_text())
        fn(doc)
        (pack / name).write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")

    if edit == "detail-edited":
        edit_json("checks.json", lambda d: d["checks"][4].update(detail="40/10 synthetic cases"))
    elif edit == "review-null":
        edit_json("submission.json", lambda d: d.update(review=None))
    elif edit == "reviewed-in-future":
        edit_json("submission.json", lambda d: d["review"].update(reviewed_at="2999-01-01"))
    elif edit == "receipt-metrics-edited":
        edit_json("receipts/run-01.json", lambda d: d["results"][0].update(
            exact=False, outcome_exact=False, failure_codes=["outcome-mismatch"]))
    elif edit == "receipt-metrics-null":
        edit_json("receipts/run-01.json", lambda d: d.update(metrics=None))
    elif edit == "suite-edited":
        edit_json("suite.json", lambda d: d.update(description="changed"))
    elif edit == "card-script":
        card = pack / "assets" / "evidence-card.svg"
        card.write_text(card.read_text().replace("</svg>", "<script>x()</script></svg>"))
    elif edit == "secret-in-readme":
        (pack / "README.md").write_text("token ghp_" + "a1B2" * 9 + "\n")
    else:
        edit_json("provenance.intoto.json", lambda d: d["predicate"].update(level="Verified!"))
    _remanifest(pack)
    result = aau("submit", "--validate", str(pack))
    assert result.exit_code == 1, result.stderr
    assert where in result.stderr, result.stderr
    assert "Traceback" not in result.stderr


def test_validate_is_usable_from_python(pack: Path) -> None:
    report = validate_pack(pack)
    assert report.ready and report.level == "Verified" and report.receipt_count == 3
    with pytest.raises(InputError):
        validate_pack(pack / "submission.json")
    assert not validate_pack(pack, today=date(2026, 1, 1)).ready  # review after "today"


def test_a_declared_level_above_the_artifacts_is_refused(tmp_path: Path, suite) -> None:
    """Status inflation: checks.json edited to Verified, manifest rewritten to match."""
    code, out, verdict = submit(tmp_path, [receipt_v1(suite)], *REVIEW)
    assert code == 0 and verdict["level"] == "Domain reviewed"
    doc = json.loads((out / "checks.json").read_text())
    doc["level"] = "Verified"
    for check in doc["checks"]:
        check["passed"] = True
    doc["score"]["passed"] = 9
    (out / "checks.json").write_text(json.dumps(doc, indent=2, sort_keys=True) + "\n")
    _remanifest(out)
    result = aau("submit", "--validate", str(out), "--json")
    assert result.exit_code == 1
    verdict = json.loads(result.stdout)
    assert verdict["level"] == "Domain reviewed" and verdict["declared_level"] == "Verified"
    assert "the artifacts give level 'Domain reviewed'" in result.stderr


@pytest.mark.parametrize(("name", "value"), [
    ("starter-manifest.json", None), ("suite.json", []), ("checks.json", None),
    ("privacy-scan.json", {"findings": None}), ("receipts/run-02.json", []),
    ("submission.json", {"contributor": None}), ("manifest.json", {"files": "x"})])
def test_null_or_wrongly_typed_documents_are_clean_errors(pack: Path, name: str,
                                                          value: Any) -> None:
    (pack / name).write_text(json.dumps(value) + "\n")
    if name != "manifest.json":
        _remanifest(pack)
    result = aau("submit", "--validate", str(pack))
    assert result.exit_code == 1, result.stderr
    assert str(pack / name) in result.stderr and "Traceback" not in result.stderr
    assert "internal error" not in result.stderr


def test_three_real_runs_on_one_machine_stay_domain_reviewed(tmp_path: Path, suite) -> None:
    """End to end with genuine receipts: `aau evaluate --command` three times here, one of them
    declared as someone else's reproduction. aau-harness 1.6 said Verified; aau says the runs
    are repetition from one provenance."""
    import sys

    repo = Path(__file__).resolve().parents[3]
    agent = repo / "examples" / "agents" / "command_agent.py"
    starter = make_starter(tmp_path / "starter", suite)
    receipts = []
    for i in range(3):
        out = tmp_path / f"run{i}.json"
        done = aau("evaluate", str(starter / "suite.json"), "--command",
                   f"{sys.executable} {agent}", "--out", str(out))
        assert done.exit_code in (0, 1), done.stderr
        receipts += ["--receipt", str(out)]
    result = aau("submit", str(starter), *receipts, *BUILD, *REVIEW, *REPRO,
                 "--out", str(tmp_path / "pack"), "--json")
    assert result.exit_code == 0, result.stderr
    verdict = json.loads(result.stdout)
    aau_schemas.validate("submission-validation", verdict)
    assert verdict["level"] == "Domain reviewed"
    checks = json.loads((tmp_path / "pack" / "checks.json").read_text())["checks"]
    assert "1/2 provenances" in checks[7]["detail"]
    assert "provenance equals" in checks[8]["detail"]


def test_submit_refuses_a_pack_folder_that_is_or_contains_an_input(tmp_path: Path,
                                                                    suite) -> None:
    starter = make_starter(tmp_path / "starter", suite)
    receipts = write_receipts(tmp_path, [receipt_v1(suite)])
    before = sorted(p.name for p in tmp_path.rglob("*"))
    for out in (starter, tmp_path):
        result = aau("submit", str(starter), *receipts, *BUILD, "--out", str(out), "--force")
        assert result.exit_code == 2, result.stderr
        assert "an input of this command; name another folder" in result.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == before


def test_submit_force_replaces_only_a_submission_pack(tmp_path: Path, suite) -> None:
    starter = make_starter(tmp_path / "starter", suite)
    receipts = write_receipts(tmp_path, [receipt_v1(suite)])
    docs = tmp_path / "mydocs"
    docs.mkdir()
    (docs / "thesis.txt").write_text("years of work")
    result = aau("submit", str(starter), *receipts, *BUILD, "--out", str(docs), "--force")
    assert result.exit_code == 2 and "not a pack of this kind" in result.stderr, result.stderr
    assert (docs / "thesis.txt").read_text() == "years of work"
    pack = tmp_path / "pack"
    assert aau("submit", str(starter), *receipts, *BUILD, "--out", str(pack)).exit_code == 0
    result = aau("submit", str(starter), *receipts, *BUILD, "--out", str(pack), "--force")
    assert result.exit_code == 0, result.stderr


@pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and symlinks")
@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_submit_never_replaces_a_device_pipe_or_link(tmp_path: Path, suite, kind: str) -> None:
    from _helpers import special_file

    starter = make_starter(tmp_path / "starter", suite)
    receipts = write_receipts(tmp_path, [receipt_v1(suite)])
    dest = special_file(tmp_path, kind)
    before = os.lstat(dest)
    result = aau("submit", str(starter), *receipts, *BUILD, "--out", str(dest), "--force")
    assert result.exit_code == 2 and str(dest) in result.stderr, result.stderr
    after = os.lstat(dest)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


def test_privacy_findings_in_json_name_the_json_path(tmp_path: Path) -> None:
    """A finding in a JSON document names the string's JSON path and the offset within it."""
    suite = make_suite()
    suite["cases"][0]["input"]["note"] = "ask alice.smith@agency.gov"
    starter = make_starter(tmp_path / "starter", suite)
    result = aau("submit", str(starter), *write_receipts(tmp_path, [receipt_v1(suite)]), *BUILD,
                 "--out", str(tmp_path / "p"))
    assert result.exit_code == 2
    assert "$.cases[0].input.note: email_address at character 4" in result.stderr, result.stderr
    assert "suite.cases: email_address" not in result.stderr


def test_json_findings_fall_back_to_the_text_for_key_value_spans() -> None:
    from aau_evidence._privacy_scan import json_findings

    doc = {"a": [{"b": "mail bob.jones@agency.gov"}], "password": "hunter2hunter2"}
    found = json_findings(doc, json.dumps(doc), "x.json")
    assert ("$.a[0].b", "email_address at character 5") in found
    assert any(where == "$" and "x.json: credential_assignment" in message
               for where, message in found)
