"""Each package builds, installs on its own from its wheel outside the repository, and works.

Builds sdists and wheels with `python -m build` (for aau-schemas the wheel is built *from the
sdist*, the path that breaks when schemas are force-included by relative path), installs them
one by one into a fresh virtual environment, and runs them from a temporary folder.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import venv

import pytest
from _helpers import COMMAND_AGENT, EXAMPLE_SUITE, REPO

pytestmark = pytest.mark.slow

BASELINE_SUITE = REPO / "schemas/suite/v1/examples/valid/suite-human-baseline-reference.json"
PACKAGES = ["aau-schemas", "aau-core", "aau-adapters", "aau-labs", "aau-baseline",
            "aau-review", "aau-evidence", "aau-navigator", "aau-harness"]
LAB_CONFIG = REPO / "examples/labs/river-permit-desk.json"


def _run(argv, **kw):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, **kw)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    for name in PACKAGES:
        _run([sys.executable, "-m", "build", "--outdir", str(out), str(REPO / "packages" / name)])
    return out


def test_wheels_ship_the_schemas_and_install_one_by_one(dist, tmp_path):
    wheels = sorted(p.name for p in dist.glob("*.whl"))
    assert len(wheels) == len(PACKAGES), wheels
    import zipfile

    schemas_whl = next(dist.glob("aau_schemas-*.whl"))
    names = zipfile.ZipFile(schemas_whl).namelist()
    assert "aau_schemas/schemas/index.json" in names
    assert "aau_schemas/schemas/receipt/v2/receipt.schema.json" in names
    core_whl = next(dist.glob("aau_core-*.whl"))
    assert "aau_core/_agents/pricing.json" in zipfile.ZipFile(core_whl).namelist()
    navigator = zipfile.ZipFile(next(dist.glob("aau_navigator-*.whl"))).namelist()
    assert "aau_navigator/examples/suites/public-service-routing.json" in navigator  # aau examples
    assert "aau_navigator/examples/agents/command_agent.py" in navigator
    assert not [n for n in navigator if ".mock-result/" in n]  # _examples.EXCLUDED

    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=True).create(env_dir)
    py = str(env_dir / "bin" / "python")
    pip = [py, "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
           "--find-links", str(dist)]
    work = tmp_path / "elsewhere"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "AAU_DEBUG")}

    # 1. aau-schemas alone: schemas come from site-packages, validation works
    _run([*pip, "aau-schemas"], cwd=work, env=env)
    done = _run([py, "-c", "import aau_schemas, json; print(json.dumps([str("
                 "aau_schemas.schema_root()), aau_schemas.detect_kind({'receipt_version': "
                 "'aau-byo-agent-receipt/2.0'})]))"], cwd=work, env=env)
    root, kind = json.loads(done.stdout)
    assert "site-packages" in root and kind == "receipt-v2"

    # 2. + aau-core: `aau` exists and offers only what is installed
    _run([*pip, "aau-core"], cwd=work, env=env)
    aau = str(env_dir / "bin" / "aau")
    done = _run([aau, "--help"], cwd=work, env=env)
    commands = done.stdout.split("Commands:")[1].split()
    assert "schema" in commands and "evaluate" not in commands
    _run([aau, "schema", "show", "receipt-v2"], cwd=work, env=env)

    # 3. + aau-adapters: installing it adds `aau evaluate`
    _run([*pip, "aau-adapters"], cwd=work, env=env)
    done = _run([aau, "--help"], cwd=work, env=env)
    assert "evaluate" in done.stdout.split("Commands:")[1].split()
    assert "lab" not in done.stdout.split("Commands:")[1].split()
    shutil.copy(EXAMPLE_SUITE, work / "suite.json")
    shutil.copy(COMMAND_AGENT, work / "agent.py")
    shutil.copy(COMMAND_AGENT.with_name("routing_policy.py"), work / "routing_policy.py")
    _run([aau, "evaluate", "suite.json", "--command", f"{py} agent.py", "--out", "r.json",
          "--private-out", "p.json"], cwd=work, env=env)
    _run([aau, "evaluate", "suite.json", "--mock", "--format", "aau-1.0", "--out", "m.json"],
         cwd=work, env=env)
    done = _run([aau, "schema", "validate", "r.json", "p.json", "m.json"], cwd=work, env=env)
    assert done.stderr.count(": valid ") == 3
    receipt = json.loads((work / "r.json").read_text(encoding="utf-8"))
    assert receipt["metrics"]["exact_rate"] == 0.875
    assert receipt["provenance"]["harness_version"] == "2.0.0.dev0"
    assert (env_dir / "bin" / "aau-evaluate").exists()

    # 3a. + aau-labs: installing it adds `aau lab` and `aau bench`; a lab runs on the mock
    _run([*pip, "aau-labs"], cwd=work, env=env)
    done = _run([aau, "--help"], cwd=work, env=env)
    assert {"lab", "bench"} <= set(done.stdout.split("Commands:")[1].split())
    shutil.copy(LAB_CONFIG, work / "lab.json")
    _run([aau, "lab", "generate", "lab.json", "--n", "4", "--out", "lab.scenarios.json"],
         cwd=work, env=env)
    _run([aau, "lab", "run", "lab.json", "--scenarios", "lab.scenarios.json", "--mock",
          "--out", "lab-out"], cwd=work, env=env)
    assert any((work / "lab-out").iterdir())

    # 3b. + aau-baseline: installing it adds `aau baseline` and the `aau-baseline` alias
    _run([*pip, "aau-baseline"], cwd=work, env=env)
    done = _run([aau, "--help"], cwd=work, env=env)
    assert "baseline" in done.stdout.split("Commands:")[1].split()
    _run([str(env_dir / "bin" / "aau-baseline"), "--help"], cwd=work, env=env)
    shutil.copy(BASELINE_SUITE, work / "baseline-suite.json")
    _run([aau, "baseline", "prepare", "baseline-suite.json", "--id", "wheel-study", "--title", "T",
          "--purpose", "P", "--out", "pack"], cwd=work, env=env)
    _run([aau, "baseline", "validate", "pack"], cwd=work, env=env)

    # 3c. + aau-review: `aau review` prepares a pack from the run of step 3 and validates it
    _run([*pip, "aau-review"], cwd=work, env=env)
    done = _run([aau, "--help"], cwd=work, env=env)
    assert "review" in done.stdout.split("Commands:")[1].split()
    _run([aau, "review", "prepare", "p.json", "--receipt", "r.json", "--suite", "suite.json",
          "--out", "review-pack"], cwd=work, env=env)
    _run([aau, "review", "validate", "review-pack"], cwd=work, env=env)

    # 3d. + aau-navigator: the catalog it ships lists, and the 1.6 challenge script is there
    _run([*pip, "aau-navigator"], cwd=work, env=env)
    done = _run([aau, "list", "--json"], cwd=work, env=env)
    assert "River Permit Desk" in {e["title"] for e in json.loads(done.stdout)}
    _run([str(env_dir / "bin" / "aau-challenge"), "--help"], cwd=work, env=env)
    # the seed README's first run, in an environment with no build backend: the bundled
    # challenge catalog, then a scaffolded lab verified (laid out, generated, tested, mocked)
    assert _run([py, "-c", "import importlib.util as u; print(u.find_spec('hatchling'))"],
                cwd=work, env=env).stdout == "None\n"
    first = work / "first-run"
    first.mkdir()
    done = _run([aau, "challenge", "list"], cwd=first, env=env)
    assert done.stdout.startswith("C01  Reproduce Completion is not correctness")
    done = _run([aau, "challenge", "show", "completion-is-not-correctness"], cwd=first, env=env)
    assert done.stdout.splitlines()[-1].strip() == (
        "aau new-use-case --industry healthcare --name prior-auth-triage-agent --seed 41")
    _run([aau, "new-use-case", "--industry", "healthcare", "--name", "prior-auth-triage-agent",
          "--seed", "41"], cwd=first, env=env)
    result = json.loads((first / "healthcare/prior-auth-triage-agent/results/eval_mock.json")
                        .read_text(encoding="utf-8"))
    assert (result["n_scenarios"], result["n_repeats"]) == (30, 3)

    # 4. + aau-harness, the umbrella: aau-harness 1.6's README quickstart runs unchanged
    _run([*pip, "aau-harness"], cwd=work, env=env)
    quickstart = REPO / "packages" / "aau-harness" / "tests" / "fixtures" / "quickstart_1_6.py"
    shutil.copy(quickstart, work / "quickstart.py")
    done = _run([py, "quickstart.py"], cwd=work, env=env)
    assert "accuracy" in done.stdout
