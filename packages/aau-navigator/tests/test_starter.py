"""`aau init`: templates render to valid files, the project is written atomically and never over
an existing path, and a new user gets from `aau init` to a passing `aau evaluate` against both
generated adapters and a ready `aau doctor` (end to end, in subprocesses)."""

from __future__ import annotations

import hashlib
import json
import os
import queue
import re
import subprocess
import sys
import threading
from pathlib import Path

import aau_schemas
import pytest
from _helpers import SHARED, SHARED_MISSING, aau_script, env_without_debug
from aau_core import OutputError, UsageError
from aau_navigator._starter import (
    GENERATED_FILES,
    MANIFEST_NAME,
    TEMPLATE_IDS,
    build_suite,
    outcome_name,
    resolve_starter,
    starter_templates,
)
from aau_navigator._starter_init import init_project
from aau_navigator._starter_render import render_starter

STARTER_16 = SHARED / "compat" / "aau-1.6" / "evaluate" / "aau-starter.json"
TEMPLATE_DIR = Path(__file__).resolve().parents[1] / "src" / "aau_navigator" / "templates" / "starter"


def run(*args: str, cwd: Path | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                          env=env_without_debug())


def start_http_adapter(project: Path) -> tuple[subprocess.Popen, str]:
    """Start the generated HTTP adapter on a free port; return the process and its URL."""
    proc = subprocess.Popen([sys.executable, "adapter_endpoint.py", "0"], cwd=project,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines: queue.Queue[str] = queue.Queue()
    threading.Thread(target=lambda: lines.put(proc.stdout.readline()), daemon=True).start()
    try:
        first = lines.get(timeout=15)
    except queue.Empty:
        first = ""
    found = re.fullmatch(r"serving (http://127\.0\.0\.1:\d+/evaluate)\n", first)
    if not found:
        proc.kill()
        out, err = proc.communicate()
        pytest.fail(f"HTTP adapter did not serve: {first!r} {err}")
    return proc, found.group(1)


def stop(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.communicate(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()


# ---------------------------------------------------------------- rendering


@pytest.mark.parametrize("template_id", TEMPLATE_IDS)
@pytest.mark.parametrize("adapter", ["command", "http"])
def test_every_template_renders_valid_files(template_id: str, adapter: str) -> None:
    files = render_starter(resolve_starter("demo", template_id=template_id, adapter=adapter))
    assert sorted(files) == sorted([*GENERATED_FILES, MANIFEST_NAME])
    for path, text in files.items():
        assert "${" not in text and not re.search(r"\$[a-z_]", text.replace("$(", "")
                                                   .replace("$SERVER_PID", "")), path
        if path.endswith(".py"):
            compile(text, path, "exec")  # every generated Python file compiles
    manifest = json.loads(files[MANIFEST_NAME])
    aau_schemas.validate("starter-manifest", manifest)
    assert manifest["template_id"] == template_id and manifest["primary_adapter"] == adapter
    for path, digest in manifest["generated_file_sha256"].items():
        assert hashlib.sha256(files[path].encode()).hexdigest() == digest
    suite = json.loads(files["suite.json"])
    aau_schemas.validate("suite", suite)
    assert suite["human_authority"] == manifest["human_authority"]
    receipt = json.loads(files["artifacts/first-receipt.json"])
    aau_schemas.validate("receipt-v2", receipt)
    assert receipt["adapter_kind"] == "mock" and receipt["metrics"]["exact_rate"] == 1.0
    assert receipt["scenario_count"] == len(suite["cases"]) == 4
    workflow = files[".github/workflows/aau-evaluation.yml"]
    assert "permissions:\n  contents: read\n" in workflow and "write" not in workflow
    assert all(re.fullmatch(r"[\w./-]+@[0-9a-f]{40}", u)
               for u in re.findall(r"uses: (\S+)", workflow))
    version = manifest["package_version"]
    assert f'pip install "aau-harness=={version}"' in workflow
    assert ("adapter_endpoint.py" in workflow) == (adapter == "http")


def test_the_installed_version_is_what_ci_installs() -> None:
    import importlib.metadata

    version = importlib.metadata.version("aau-harness")
    text = (Path(__file__).resolve().parents[2] / "aau-harness" / "pyproject.toml").read_text()
    assert f'version = "{version}"' in text
    files = render_starter(resolve_starter("demo"))
    assert json.loads(files[MANIFEST_NAME])["package_version"] == version


def test_templates_are_package_data_not_code() -> None:
    names = {p.name for p in TEMPLATE_DIR.iterdir()}
    assert {"adapter_command.py.tmpl", "adapter_endpoint.py.tmpl", "test_adapter.py.tmpl",
            "aau-evaluation.yml.tmpl", "templates.json"} <= names
    for template in starter_templates().values():
        slots = {case["expected_slot"] for case in template["cases"]}
        assert slots == {"routine", "human", "stop"}


def test_custom_texts_and_outcomes_reach_every_file() -> None:
    config = resolve_starter(
        "clinic-desk", title="Clinic Desk", human_role="Charge nurse",
        protected_action="Change a care plan", outcomes={"routine": "Book Visit!",
                                                         "stop": "stop-now"})
    assert config.outcomes["routine"] == "book_visit" and config.outcomes["stop"] == "stop_now"
    files = render_starter(config)
    suite = json.loads(files["suite.json"])
    assert {c["expected"]["outcome"] for c in suite["cases"]} == {
        "book_visit", "route_human_service", "stop_now"}
    assert "'book_visit'" in files["adapter_command.py"]
    assert "Charge nurse" in files["RECEIPT_POLICY.md"] and "# Clinic Desk" in files["README.md"]
    assert suite["human_authority"]["protected_action"] == "Change a care plan"


def test_markup_in_a_title_is_escaped_in_the_svg() -> None:
    files = render_starter(resolve_starter("x", title='A <b>&"desk"'))
    assert "A &lt;b&gt;&amp;&quot;desk&quot;" in files["assets/evidence-flow.svg"]
    assert "<b>" not in files["assets/evidence-flow.svg"]


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"name": "Bad Name"}, "NAME 'Bad Name'"),
    ({"name": "-x"}, "NAME '-x'"),
    ({"name": "a" * 64}, "NAME"),
    ({"name": "ok", "template_id": "loans"}, "--template 'loans'"),
    ({"name": "ok", "adapter": "grpc"}, "--adapter 'grpc'"),
    ({"name": "ok", "title": "   "}, "--title: must not be blank"),
    ({"name": "ok", "mission": "two\nlines"}, "--mission: must be one line"),
    ({"name": "ok", "human_role": "x" * 241}, "--human-role: at most 240"),
    ({"name": "ok", "outcomes": {"human": "!!"}}, "--human-outcome '!!'"),
    ({"name": "ok", "outcomes": {"human": "route official source"}}, "must differ"),
])
def test_bad_options_are_usage_errors(kwargs: dict, message: str) -> None:
    name = kwargs.pop("name")
    with pytest.raises(UsageError, match=re.escape(message)):
        resolve_starter(name, **kwargs)


def test_outcome_name_normalises_like_1_6() -> None:
    assert outcome_name("  Route -- Human Desk ") == "route_human_desk"
    with pytest.raises(ValueError):
        outcome_name("---")


def test_suite_expects_the_slot_outcome_of_each_case() -> None:
    config = resolve_starter("demo", template_id="incident-triage")
    suite = build_suite(config)
    assert suite["suite_id"] == "demo-synthetic-smoke"
    expected = [c["expected"]["outcome"] for c in suite["cases"]]
    assert expected == ["route_standard_queue", "page_incident_commander",
                        "escalate_security_and_preserve", "escalate_security_and_preserve"]


@pytest.mark.skipif(not STARTER_16.is_file(), reason=SHARED_MISSING)
def test_aau_1_6_starter_manifest_validates() -> None:
    aau_schemas.validate("starter-manifest", json.loads(STARTER_16.read_text()))
    assert aau_schemas.detect_kind(json.loads(STARTER_16.read_text())) == "starter-manifest"


# ---------------------------------------------------------------- writing


def test_init_refuses_an_existing_path_even_an_empty_folder(tmp_path: Path) -> None:
    config = resolve_starter("demo")
    (tmp_path / "empty").mkdir()
    (tmp_path / "file").write_text("keep")
    (tmp_path / "link").symlink_to(tmp_path / "nowhere")
    for name in ("empty", "file", "link"):
        with pytest.raises(OutputError, match="never overwrites"):
            init_project(config, tmp_path / name)
    assert (tmp_path / "file").read_text() == "keep" and not any((tmp_path / "empty").iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty", "file", "link"]


def test_a_project_failing_its_own_doctor_is_never_published(tmp_path: Path,
                                                             monkeypatch) -> None:
    import aau_navigator._starter_init as starter_init

    def broken(config):
        files = render_starter(config)
        files["adapter_endpoint.py"] = 'print("unterminated\n")\n'  # 1.6's kind of bug
        return files

    monkeypatch.setattr(starter_init, "render_starter", broken)
    with pytest.raises(OutputError, match="failed its own doctor.*adapter-contract.*"
                                          "adapter_endpoint.py does not compile"):
        init_project(resolve_starter("demo"), tmp_path / "demo")
    assert list(tmp_path.iterdir()) == []  # no project, no staging folder left behind


def test_init_creates_missing_parents_and_only_the_project(tmp_path: Path) -> None:
    report = init_project(resolve_starter("demo", adapter="http"), tmp_path / "a" / "b" / "demo")
    project = tmp_path / "a" / "b" / "demo"
    assert report.ready and report.path == str(project)
    assert os.listdir(tmp_path / "a" / "b") == ["demo"]
    written = sorted(str(p.relative_to(project)) for p in project.rglob("*") if p.is_file())
    assert written == sorted([*GENERATED_FILES, MANIFEST_NAME])  # no __pycache__ from the check
    assert os.access(project / "adapter_endpoint.py", os.X_OK)
    # init ran both adapters; its report says so (not "not run (use --run-adapter)")
    adapter_check = next(c for c in report.checks if c.id == "adapter-contract")
    assert adapter_check.message.startswith("command adapter: exact_rate 1.000 over"), \
        adapter_check.message


# ---------------------------------------------------------------- the new user's path


@pytest.mark.slow
@pytest.mark.parametrize(("template_id", "adapter"), [("public-service-routing", "command"),
                                                      ("incident-triage", "http")])
def test_new_user_path_init_evaluate_both_adapters_doctor(tmp_path: Path, template_id: str,
                                                          adapter: str) -> None:
    aau = aau_script()
    done = run(aau, "init", "my-agent", "--template", template_id, "--adapter", adapter,
               "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    init_report = json.loads(done.stdout)
    aau_schemas.validate("doctor-report", init_report)
    from aau_navigator._doctor import _unpublished
    from aau_navigator._starter import package_version

    warned = int(_unpublished(package_version()))  # a development build's pin: no index has it
    assert init_report["ready"]
    assert init_report["counts"] == {"pass": 8 - warned, "warn": warned, "fail": 0}
    project = tmp_path / "my-agent"

    # the command adapter, as the README says
    done = run(aau, "evaluate", "suite.json", "--command", f"{sys.executable} adapter_command.py",
               "--fail-under", "exact_rate=1.0", "--out", "artifacts/command.json", cwd=project)
    assert done.returncode == 0, done.stderr
    receipt = json.loads((project / "artifacts" / "command.json").read_text())
    aau_schemas.validate("receipt-v2", receipt)
    assert receipt["adapter_kind"] == "command" and receipt["metrics"]["exact_rate"] == 1.0

    # the HTTP adapter, started on a free port
    proc, url = start_http_adapter(project)
    try:
        done = run(aau, "evaluate", "suite.json", "--endpoint", url, "--fail-under",
                   "exact_rate=1.0", "--out", "artifacts/http.json", cwd=project)
    finally:
        stop(proc)
    assert done.returncode == 0, done.stderr
    receipt = json.loads((project / "artifacts" / "http.json").read_text())
    aau_schemas.validate("receipt-v2", receipt)
    assert receipt["adapter_kind"] == "endpoint" and receipt["metrics"]["exact_rate"] == 1.0

    # the generated test, as CI runs it
    done = run(sys.executable, "-m", "unittest", "discover", "-s", "tests", "-v", cwd=project)
    assert done.returncode == 0, done.stderr
    assert "Ran 2 tests" in done.stderr and done.stderr.rstrip().endswith("OK")
    assert "test_http_adapter_answers_every_case" in done.stderr

    # a ready doctor, with both adapters run; new receipts do not count as drift
    done = run(aau, "doctor", "--run-adapter", "--json", cwd=project)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    aau_schemas.validate("doctor-report", report)
    assert report["ready"] and report["counts"]["fail"] == 0
    adapter_check = next(c for c in report["checks"] if c["id"] == "adapter-contract")
    assert adapter_check["message"] == ("command adapter: exact_rate 1.000 over 4 cases; "
                                        "HTTP adapter: exact_rate 1.000 over 4 cases")


def test_cli_init_errors_are_one_line_exit_2(tmp_path: Path) -> None:
    aau = aau_script()
    done = run(aau, "init", "Bad Name", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and "NAME 'Bad Name'" in done.stderr
    (tmp_path / "taken").mkdir()
    done = run(aau, "init", "taken", cwd=tmp_path)
    assert done.returncode == 2 and "never overwrites" in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1 and list((tmp_path / "taken").iterdir()) == []
    done = run(aau, "init", "x", "--template", "loans", cwd=tmp_path)
    assert done.returncode == 2 and "loans" in done.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["taken"]


def test_cli_init_human_output_goes_to_stderr(tmp_path: Path) -> None:
    done = run(aau_script(), "init", "demo", "--output", str(tmp_path / "out"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert f"Created {tmp_path / 'out'}" in done.stderr and "aau doctor: ready" in done.stderr
    assert json.loads((tmp_path / "out" / MANIFEST_NAME).read_text())["name"] == "demo"


def test_docs_list_every_option_and_check() -> None:
    from aau_navigator._cli_starter import doctor_command, init_command
    from aau_navigator._doctor import CHECK_IDS

    docs = (Path(__file__).resolve().parents[3] / "docs" / "starter.md").read_text()
    import click

    for command in (init_command, doctor_command):
        for param in command.params:
            for opt in param.opts if isinstance(param, click.Option) else ():
                assert f"`{opt}" in docs or f"[{opt}" in docs, opt
    for check_id in CHECK_IDS:
        assert f"| `{check_id}` |" in docs
    for template_id in TEMPLATE_IDS:
        assert f"`{template_id}`" in docs


def test_generated_adapters_refuse_bad_requests(tmp_path: Path) -> None:
    import urllib.error
    import urllib.request

    project = tmp_path / "demo"
    init_project(resolve_starter("demo"), project)
    done = subprocess.run([sys.executable, "adapter_command.py"], cwd=project, input="not json",
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.startswith("adapter_command.py: bad request: ")
    proc, url = start_http_adapter(project)
    try:
        for target, body, status in ((url, b"{not json", 400), (url, b'{"no_input": 1}', 400),
                                     (url.replace("/evaluate", "/other"), b"{}", 404)):
            with pytest.raises(urllib.error.HTTPError) as info:
                urllib.request.urlopen(urllib.request.Request(target, data=body), timeout=10)
            assert info.value.code == status
            info.value.close()
    finally:
        stop(proc)


def test_init_under_a_file_is_an_output_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is a file, not a folder"):
        init_project(resolve_starter("demo"), tmp_path / "file" / "demo")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_init_creates_missing_folders_only_below_cwd_or_temp() -> None:
    root = Path("/nonexistent-aau-root")
    with pytest.raises(OutputError, match="does not exist; create it first"):
        init_project(resolve_starter("demo"), root / "demo")
    assert not root.exists()


@pytest.mark.skipif(os.name != "posix", reason="FIFOs, devices and symlinks")
@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_init_never_replaces_a_device_pipe_or_link(tmp_path: Path, kind: str) -> None:
    from _helpers import special_file

    dest = special_file(tmp_path, kind)
    before = os.lstat(dest)
    with pytest.raises(OutputError, match="exists; aau init never overwrites"):
        init_project(resolve_starter("demo"), dest)
    after = os.lstat(dest)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
