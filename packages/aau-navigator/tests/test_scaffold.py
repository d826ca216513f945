"""`aau new-use-case`: names, rendering from templates, all-or-nothing writing, and the generated
lab verified end to end (installs, generates, passes its own tests, runs its mock)."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import OutputError, UsageError, run
from aau_navigator._challenge import load_challenge_catalog, resolve_challenge
from aau_navigator._cli_forge import new_use_case_command
from aau_navigator._forge_verify import verify_lab
from aau_navigator._scaffold import (
    lab_names,
    markdown_text,
    new_use_case,
    scaffold_files,
    slugify,
)

TRICKY_TITLE = 'Bob\'s "desk" \\ costs $5 | {braces} """'


def test_slugify_and_names() -> None:
    assert slugify("  Prior Auth / Triage!! ") == "prior-auth-triage"
    names = lab_names("Health Care", "Prior Auth Desk")
    assert (names.slug, names.pkg, names.industry, names.title) == (
        "prior-auth-desk", "prior_auth_desk", "health-care", "Prior Auth Desk")
    assert names.rel_path == "health-care/prior-auth-desk"
    assert lab_names("x", "desk", "  Two   words ").title == "Two words"


@pytest.mark.parametrize(("industry", "name", "title", "message"), [
    ("health", "41-desk", None, "start the name with a letter"),
    ("health", "class", None, "cannot import"),
    ("health", "!!!", None, "--name must contain"),
    ("", "desk", None, "--industry must contain"),
    ("health", "d" * 61, None, "longer than 60"),
    ("health", "desk", "   ", "--title must not be blank"),
])
def test_bad_names_are_usage_errors(industry: str, name: str, title: str | None,
                                    message: str) -> None:
    with pytest.raises(UsageError, match=message.replace("(", r"\(")):
        lab_names(industry, name, title)


def test_markdown_text_escapes_tables_and_html() -> None:
    assert markdown_text("a | b <i>\n c") == "a &#124; b &lt;i&gt; c"


def test_every_generated_file_is_rendered_and_python_compiles() -> None:
    files = scaffold_files(lab_names("Legal", "contract-desk", TRICKY_TITLE), 7)
    assert sorted(files) == [
        "FAILURE_MODES.md", "README.md", "evals/.gitkeep", "pyproject.toml", "results/.gitkeep",
        "src/contract_desk/__init__.py", "src/contract_desk/agent.py",
        "src/contract_desk/cli.py", "src/contract_desk/evaluate.py",
        "src/contract_desk/tools.py", "src/contract_desk/world.py",
        "tests/test_contract_desk.py"]
    for rel, text in files.items():
        assert "${" not in text, rel
        if rel.endswith(".py"):
            compile(text, rel, "exec")
    namespace: dict[str, object] = {}
    world = files["src/contract_desk/world.py"]
    title_line = next(line for line in world.splitlines() if line.startswith("TITLE = "))
    exec(title_line, namespace)  # noqa: S102 - the generated literal, nothing else
    assert namespace["TITLE"] == TRICKY_TITLE
    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    project = tomllib.loads(files["pyproject.toml"])["project"]
    assert project["name"] == "contract-desk"
    assert project["scripts"] == {"contract-desk": "contract_desk.cli:main"}
    assert project["description"].startswith(TRICKY_TITLE)
    assert "&#124;" in files["README.md"].splitlines()[0]


def test_existing_destination_is_refused_and_left_alone(tmp_path: Path) -> None:
    dest = new_use_case("health", "desk", 3, tmp_path)
    marker = dest / "README.md"
    before = marker.read_text()
    with pytest.raises(OutputError, match="already exists"):
        new_use_case("health", "desk", 4, tmp_path)
    assert marker.read_text() == before
    assert sorted(p.name for p in (tmp_path / "health").iterdir()) == ["desk"]  # no temp left
    with pytest.raises(UsageError, match="--seed"):
        new_use_case("health", "other", -1, tmp_path)


def test_new_use_case_cli_without_verification(tmp_path: Path, capsys) -> None:
    argv = ["--industry", "Public Benefits", "--name", "renewal desk", "--seed", "12",
            "--root", str(tmp_path), "--no-verify"]
    assert run(argv, command=new_use_case_command, prog_name="aau-new-use-case") == 0
    lab = tmp_path / "public-benefits" / "renewal-desk"
    assert (lab / "src" / "renewal_desk" / "world.py").read_text().count("DEFAULT_SEED = 12") == 1
    assert run(argv, command=new_use_case_command, prog_name="aau-new-use-case") == 2
    err = capsys.readouterr().err
    assert "already exists" in err and "Traceback" not in err
    assert run(["--industry", "x", "--name", "9lives", "--seed", "1", "--root", str(tmp_path)],
               command=new_use_case_command) == 2


@pytest.mark.slow
def test_generated_lab_installs_generates_passes_its_tests_and_runs_its_mock(
        tmp_path: Path) -> None:
    lab = new_use_case("healthcare", "prior-auth-desk", 41, tmp_path, TRICKY_TITLE)
    steps = verify_lab(lab, "prior_auth_desk", seed=41, n=30, repeats=3)
    assert [(s.step, s.passed) for s in steps] == [
        ("install", True), ("generate", True), ("tests", True), ("mock_eval", True)], \
        steps[-1].output
    assert "10 passed" in steps[2].output
    scenarios = json.loads((lab / "evals" / "scenarios.json").read_text())
    assert scenarios["seed"] == 41 and scenarios["n"] == 30
    result = json.loads((lab / "results" / "eval_mock.json").read_text())
    aau_schemas.validate("eval-aggregate-v2", result)
    assert result["backend"] == "mock" and result["n_scenarios"] == 30
    # the mock misses exactly the misleading archetype: 7 of 30 scenarios (indices 3, 7, ...)
    assert result["metric_means"]["exact_match"] == pytest.approx(23 / 30, abs=1e-4)
    assert result["metric_means"]["submitted"] == 1.0
    assert (lab / "results" / "eval_mock.md").read_text().startswith("#")


def _blocked(tmp_path: Path, *names: str) -> Path:
    """A folder of packages that refuse to import, to put first on PYTHONPATH."""
    folder = tmp_path / "blocked"
    for name in names:
        (folder / name).mkdir(parents=True)
        (folder / name / "__init__.py").write_text(
            f"raise ImportError('{name} is blocked by the test')\n")
    return folder


def test_verification_needs_neither_a_build_backend_nor_pip(tmp_path: Path,
                                                            monkeypatch) -> None:
    # a plain `pip install` of aau (or a uv environment) has no hatchling, maybe no pip
    # the lab and seed of the bundled challenge C01, whose mission states the numbers below
    mission = resolve_challenge(load_challenge_catalog(None), "C01")
    assert mission["command"] == ("aau new-use-case --industry healthcare --name "
                                  "prior-auth-triage-agent --seed 41")
    monkeypatch.setenv("PYTHONPATH", str(_blocked(tmp_path, "hatchling", "pip")))
    lab = new_use_case("healthcare", "prior-auth-triage-agent", 41, tmp_path / "root")
    assert lab == tmp_path / "root" / mission["starter_lab"]
    steps = verify_lab(lab, "prior_auth_triage_agent", seed=41, n=30, repeats=3)
    assert [(s.step, s.passed) for s in steps] == [
        ("install", True), ("generate", True), ("tests", True), ("mock_eval", True)], \
        steps[-1].output
    assert "10 passed" in steps[2].output
    result = json.loads((lab / "results" / "eval_mock.json").read_text())
    assert result["n_scenarios"] == 30 and result["n_repeats"] == 3
    assert result["metric_means"]["submitted"] == 1.0  # "submitted = 1.0"
    assert result["metric_means"]["exact_match"] == pytest.approx(23 / 30, abs=1e-4)  # "23 of 30"
    assert not list(lab.rglob("__pycache__")) and not (lab / "build").exists()


def test_install_step_fails_on_a_missing_package_folder_or_script(tmp_path: Path) -> None:
    lab = new_use_case("healthcare", "gone-desk", 5, tmp_path)
    pyproject = lab / "pyproject.toml"
    text = pyproject.read_text()
    pyproject.write_text(text.replace('"gone_desk.cli:main"', '"gone_desk.cli:absent"'))
    steps = verify_lab(lab, "gone_desk", seed=5, n=30, repeats=1)
    assert [(s.step, s.passed) for s in steps] == [("install", False)]
    assert steps[0].summary == "AttributeError: module 'gone_desk.cli' has no attribute 'absent'"
    pyproject.write_text(text.replace('packages = ["src/gone_desk"]', 'packages = ["src/x"]'))
    steps = verify_lab(lab, "gone_desk", seed=5, n=30, repeats=1)
    assert steps[0].output == "pyproject.toml: wheel package 'src/x' is not a folder of the lab"


@pytest.mark.slow
def test_a_failing_lab_stops_verification_at_the_failing_step(tmp_path: Path) -> None:
    lab = new_use_case("healthcare", "broken-desk", 5, tmp_path)
    world = lab / "src" / "broken_desk" / "world.py"
    text = world.read_text()
    assert text.count('return "no-action", "resolve"') == 1
    world.write_text(text.replace('return "no-action", "resolve"', 'return "no-action", "forward"'))
    seen = []
    steps = verify_lab(lab, "broken_desk", seed=5, n=30, repeats=1, progress=seen.append)
    assert [(s.step, s.passed) for s in steps] == [
        ("install", True), ("generate", True), ("tests", False)]
    assert seen == steps
    assert "failed" in steps[-1].summary
    assert not (lab / "results" / "eval_mock.json").exists()


def test_new_use_case_creates_missing_folders_only_below_cwd_or_temp() -> None:
    root = Path("/nonexistent-aau-root")
    with pytest.raises(OutputError, match="does not exist; create it first"):
        new_use_case("health", "desk", 3, root)
    assert not root.exists()


@pytest.mark.skipif(__import__("os").name != "posix", reason="FIFOs, devices and symlinks")
@pytest.mark.parametrize("kind", ["fifo", "symlink", "device"])
def test_new_use_case_never_replaces_a_device_pipe_or_link(tmp_path: Path, kind: str) -> None:
    import os

    from _helpers import special_file

    folder = tmp_path / "health"
    folder.mkdir()
    dest = special_file(folder, kind)
    before = os.lstat(dest)
    with pytest.raises(OutputError, match="already exists"):
        new_use_case("health", dest.name, 3, tmp_path)
    after = os.lstat(dest)
    assert (after.st_ino, after.st_mode) == (before.st_ino, before.st_mode)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [dest.name] + (["target.txt"] if kind == "symlink" else []))
