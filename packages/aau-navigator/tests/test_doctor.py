"""`aau doctor`: each check passes on a fresh project and fails (exit 1) on the breakage it is for,
including a generated HTTP adapter that does not compile or does not serve (1.6's doctor passed
both); every report is a valid `doctor-report`."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING, aau_script, env_without_debug
from aau_core import InputError
from aau_navigator._doctor import CHECK_IDS, _unpublished, doctor_project
from aau_navigator._starter import package_version, resolve_starter
from aau_navigator._starter_init import init_project

STARTER_16 = SHARED / "compat" / "aau-1.6" / "evaluate" / "aau-starter.json"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("doctor")
    init_project(resolve_starter("demo", template_id="customer-escalation"), root / "demo")
    return root / "demo"


@pytest.fixture
def project(pristine: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "demo"
    shutil.copytree(pristine, copy, symlinks=True)
    return copy


def checks(path: Path, **kwargs: bool) -> dict[str, dict[str, str]]:
    report = doctor_project(path, **kwargs).to_dict()
    aau_schemas.validate("doctor-report", report)
    assert report["counts"]["fail"] == sum(c["status"] == "fail" for c in report["checks"])
    ids = [c["id"] for c in report["checks"]]
    assert ids == [i for i in CHECK_IDS if i in ids]
    return {c["id"]: c for c in report["checks"]}


def only_failure(path: Path, check_id: str, **kwargs: bool) -> str:
    found = checks(path, **kwargs)
    failed = [i for i, c in found.items() if c["status"] == "fail"]
    assert failed == [check_id], found
    return found[check_id]["message"]


def run_doctor(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([aau_script(), "doctor", *args], capture_output=True, text=True,
                          timeout=120, env=env_without_debug())


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def test_a_fresh_project_is_ready_with_every_check(pristine: Path) -> None:
    found = checks(pristine, run_adapter=True)
    assert list(found) == list(CHECK_IDS)
    # a project made by a development build pins a version no index serves: said, not failed
    expected = {i: "warn" if i == "ci-workflow" and _unpublished(package_version()) else "pass"
                for i in CHECK_IDS}
    assert {i: c["status"] for i, c in found.items()} == expected


@pytest.mark.parametrize(("version", "unpublished"), [
    ("2.0.0", False), ("1.6.0", False), ("2.0.0rc1", False), ("2.0.0.post1", False),
    ("2.0.0.dev0", True), ("2.0.0dev3", True), ("2.0.0+g1a2b3c", True), ("2.0.0rc1.dev2", True)])
def test_a_development_or_local_version_is_one_no_index_serves(version, unpublished) -> None:
    assert _unpublished(version) is unpublished


def test_a_workflow_pinning_a_development_build_warns_and_says_why(project: Path) -> None:
    manifest = json.loads((project / "aau-starter.json").read_text("utf-8"))
    workflow = project / ".github" / "workflows" / "aau-evaluation.yml"
    version = manifest["package_version"]
    for pinned, status in (("2.0.0.dev0", "warn"), ("2.0.0", "pass")):
        manifest["package_version"] = pinned
        (project / "aau-starter.json").write_text(json.dumps(manifest), encoding="utf-8")
        edit(workflow, f"aau-harness=={version}", f"aau-harness=={pinned}")
        version = pinned
        found = checks(project)["ci-workflow"]
        assert found["status"] == status, found
        if status == "warn":
            assert "2.0.0.dev0 is a development or local build that no package index serves" \
                in found["message"]


def test_http_adapter_that_does_not_compile_fails_without_running(project: Path) -> None:
    # aau-harness 1.6 generated exactly this kind of file: a newline inside a string literal
    edit(project / "adapter_endpoint.py", 'print("serving http://%s:%d/evaluate" % (host, bound), '
         'flush=True)', 'print("serving\n")')
    message = only_failure(project, "adapter-contract")
    assert message.startswith("adapter_endpoint.py does not compile: line ")
    done = run_doctor(str(project))
    assert done.returncode == 1 and "FAIL  adapter-contract" in done.stderr
    assert "NOT ready" in done.stderr


def test_http_adapter_that_compiles_but_never_serves_fails_when_run(project: Path) -> None:
    edit(project / "adapter_endpoint.py", "    server = make_server(port)\n",
         "    raise SystemExit('port taken')\n")
    assert checks(project)["adapter-contract"]["status"] == "pass"  # static: compiles
    message = only_failure(project, "adapter-contract", run_adapter=True)
    assert message.startswith("command adapter: exact_rate 1.000 over 4 cases; HTTP adapter: "
                              "adapter_endpoint.py exited with status 1 before serving: port taken")
    done = run_doctor(str(project), "--run-adapter", "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    aau_schemas.validate("doctor-report", report)
    assert report["ready"] is False


def test_http_adapter_answering_wrong_outcomes_fails_when_run(project: Path) -> None:
    edit(project / "adapter_endpoint.py", "response = handle(request)",
         'response = dict(handle(request), outcome="route_billing_review")')
    message = only_failure(project, "adapter-contract", run_adapter=True)
    assert "HTTP adapter: exact_rate 0.250 over 4 cases (outcome-mismatch)" in message


def test_command_adapter_answering_wrong_outcomes_fails_when_run(project: Path) -> None:
    edit(project / "adapter_command.py", "    for rule in RULES:", "    RULES.clear()\n"
         "    for rule in RULES:")
    message = only_failure(project, "adapter-contract", run_adapter=True)
    assert message.startswith("command adapter: exact_rate 0.250 over 4 cases (outcome-mismatch)")


def test_command_adapter_must_define_decide_and_handle(project: Path) -> None:
    edit(project / "adapter_command.py", "def decide(", "def choose(")
    edit(project / "adapter_command.py", "decide(request", "choose(request")
    assert only_failure(project, "adapter-contract") == (
        "adapter_command.py must define top-level decide")


def test_missing_manifest_stops_after_the_manifest_check(tmp_path: Path) -> None:
    found = checks(tmp_path)
    assert list(found) == ["manifest"] and found["manifest"]["status"] == "fail"
    assert found["manifest"]["message"] == (
        "unreadable manifest: aau-starter.json: missing; not a starter project: `aau init NAME` "
        "writes one, then `aau doctor NAME`")
    done = run_doctor(str(tmp_path))
    assert done.returncode == 1


def test_manifest_breaking_its_schema_names_the_json_path(project: Path) -> None:
    edit(project / "aau-starter.json", '"primary_adapter": "command"',
         '"primary_adapter": "endpoint"')
    message = only_failure(project, "manifest")
    assert message.startswith("aau-starter.json: $.primary_adapter: ")
    assert checks(project)["template-drift"]["status"] == "pass"


def test_manifest_that_is_not_json(project: Path) -> None:
    (project / "aau-starter.json").write_text("{nope")
    found = checks(project)
    assert list(found) == ["manifest"]
    assert found["manifest"]["message"].startswith("unreadable manifest: aau-starter.json: $: "
                                                   "invalid JSON")


def test_symlinked_or_missing_file_fails_required_files(project: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside.md"
    outside.write_text("# elsewhere\n")
    (project / "README.md").unlink()
    (project / "README.md").symlink_to(outside)
    (project / "assets" / "evidence-flow.svg").unlink()
    message = only_failure(project, "required-files")
    assert message == "README.md: is a symlink; assets/evidence-flow.svg: missing"


def test_a_symlinked_folder_is_named_itself(project: Path, tmp_path: Path) -> None:
    moved = tmp_path / "real-tests"
    shutil.move(str(project / "tests"), moved)
    (project / "tests").symlink_to(moved, target_is_directory=True)
    message = checks(project)["required-files"]["message"]
    assert message.startswith("tests: is a symlink (a folder on the way to tests/"), message


def test_edited_file_is_drift_a_warning_not_a_failure(project: Path) -> None:
    edit(project / "README.md", "## First run", "## Getting started")
    found = checks(project)
    assert found["template-drift"] == {"id": "template-drift", "status": "warn",
                                       "message": "changed since generation: README.md"}
    done = run_doctor(str(project))
    warned = 1 + _unpublished(package_version())  # and ci-workflow's, from a development build
    assert done.returncode == 0
    assert f"aau doctor: ready: {8 - warned} pass, {warned} warn, 0 fail" in done.stderr


def test_suite_changed_after_the_first_receipt(project: Path) -> None:
    suite = json.loads((project / "suite.json").read_text())
    suite["cases"] = suite["cases"][:3]
    (project / "suite.json").write_text(json.dumps(suite))
    message = only_failure(project, "first-receipt")
    assert message == ("artifacts/first-receipt.json: $.suite_sha256: does not match suite.json "
                       "(the suite changed since; make a new one: aau evaluate suite.json --mock "
                       "--out artifacts/first-receipt.json --force)")


def test_receipt_with_a_failing_case_fails(project: Path) -> None:
    path = project / "artifacts" / "first-receipt.json"
    receipt = json.loads(path.read_text())
    receipt["metrics"]["exact_rate"] = 0.75
    path.write_text(json.dumps(receipt))
    message = only_failure(project, "first-receipt")
    assert message.startswith("artifacts/first-receipt.json: $.metrics.exact_rate")


def test_invalid_suite_skips_the_checks_that_need_it(project: Path) -> None:
    (project / "suite.json").write_text('{"suite_version": "aau-byo-agent-suite/1.0"}')
    found = checks(project)
    assert "human-authority" not in found and "first-receipt" not in found
    assert found["suite-contract"]["status"] == "fail"
    assert found["suite-contract"]["message"].startswith("suite.json: $")


def test_human_authority_must_match_the_manifest(project: Path) -> None:
    edit(project / "suite.json", "Authorized support operations lead", "The agent itself")
    found = checks(project)
    assert found["human-authority"]["status"] == "fail"
    assert "differs from aau-starter.json's human_authority" in found["human-authority"]["message"]


CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1"


@pytest.mark.parametrize(("old", "new", "expected"), [
    ("  contents: read", "  contents: write", "top-level permissions grant more than read: "
     "contents"),
    ("permissions:\n  contents: read", "permissions:\n  contents: read\n  packages: write",
     "top-level permissions grant more than read: packages"),
    ("permissions:\n  contents: read", "permissions: read-all", "permissions is 'read-all'"),
    ("permissions:\n  contents: read\n", "", "no top-level 'permissions:'"),
    ("    timeout-minutes: 15", "    timeout-minutes: 15\n    permissions:\n      contents: write",
     "job 'evaluate' permissions grant more than read: contents"),
    (CHECKOUT, "actions/checkout@v4", "actions not pinned by commit SHA: actions/checkout@v4"),
    # flow style, which a line-oriented reader never saw
    (f"      - uses: {CHECKOUT}\n        with:\n          persist-credentials: false",
     '      - {uses: "actions/checkout@main"}',
     "actions not pinned by commit SHA: actions/checkout@main"),
    ('"aau-harness==', '"aau-harness>=', "does not install aau-harness=="),
    # the pin only in a comment
    ('python -m pip install "aau-harness==2.0.0.dev0"',
     "python -m pip install aau-harness  # aau-harness==2.0.0.dev0",
     "does not install aau-harness=="),
    ("permissions:\n  contents: read", "permissions: write-all\npermissions:\n  contents: read",
     "duplicate key 'permissions'"),
    ("name: aau evaluation", "name: aau evaluation\n: : [", "not valid YAML"),
    ("        run: aau doctor .", "        run: echo skipped", "no step runs 'aau doctor'"),
    ("--fail-under exact_rate=1.0 ", "", "no step runs 'aau evaluate' with --fail-under"),
    ("  pull_request:", "  pull_request_target:", "triggers on pull_request_target"),
])
def test_ci_workflow_rules(project: Path, old: str, new: str, expected: str) -> None:
    edit(project / ".github" / "workflows" / "aau-evaluation.yml", old, new)
    assert expected in only_failure(project, "ci-workflow")


def test_not_a_folder_is_an_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="not a folder"):
        doctor_project(tmp_path / "missing")
    done = run_doctor(str(tmp_path / "missing"))
    assert done.returncode == 2 and len(done.stderr.strip().splitlines()) == 1


@pytest.mark.skipif(not STARTER_16.is_file(), reason=SHARED_MISSING)
def test_a_1_6_manifest_passes_the_manifest_check(tmp_path: Path) -> None:
    shutil.copy(STARTER_16, tmp_path / "aau-starter.json")
    found = checks(tmp_path)
    assert found["manifest"]["status"] == "pass"
    assert found["required-files"]["status"] == "fail"  # the 1.6 project's files are not here
    assert found["ci-workflow"]["message"] == ".github/workflows/aau-evaluation.yml: missing"


def test_a_step_merely_named_write_is_not_a_write_permission(project: Path) -> None:
    edit(project / ".github" / "workflows" / "aau-evaluation.yml", "      - name: Test both adapters",
         "      - name: write-up\n        run: 'echo write: done'\n      - name: Test both adapters")
    assert checks(project)["ci-workflow"]["status"] != "fail"


def test_a_workflow_saved_with_a_bom_passes_and_bad_bytes_fail(project: Path) -> None:
    workflow = project / ".github" / "workflows" / "aau-evaluation.yml"
    workflow.write_bytes(b"\xef\xbb\xbf" + workflow.read_bytes())
    assert checks(project)["ci-workflow"]["status"] != "fail"
    workflow.write_bytes(workflow.read_bytes() + b"\xff")
    assert only_failure(project, "ci-workflow") == (
        ".github/workflows/aau-evaluation.yml: not UTF-8 text")
