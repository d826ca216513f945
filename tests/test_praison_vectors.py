"""PraisonAI trace gates across packages: the aau_harness re-exports, the docs' divergence table
against the tests, the docs' commands, and the example traces against their schema."""

from __future__ import annotations

import importlib.util
import json
import re
import shlex

import aau_schemas
import pytest
from _helpers import REPO, SHARED, SHARED_MISSING
from aau_core import run

DOC = REPO / "docs" / "trace-gates.md"
VECTORS = SHARED / "vectors" / "praison-trace-gates.json"


def test_aau_harness_re_exports_the_praison_names():
    import aau_core
    import aau_harness
    from aau_harness import (  # noqa: F401 - the import is the test
        EvalCase,
        EvalReport,
        EvalResult,
        EvalSuite,
        HarnessEvaluator,
        HarnessResult,
        harness_row_to_eval_case,
    )

    assert aau_harness.HarnessEvaluator is aau_core.HarnessEvaluator
    assert {"HarnessEvaluator", "EvalSuite", "EvalReport"} <= set(aau_harness.__all__)


def _divergence_ids_in_doc() -> set[str]:
    section = DOC.read_text(encoding="utf-8").split("## Divergences from PraisonAI 1.7.17", 1)[1]
    table = section.split("Everything else is reproduced", 1)[0]
    return {m for m in re.findall(r"^\| `([a-z_]+)`", table, re.M)}


def _test_divergences() -> dict:
    path = REPO / "packages" / "aau-core" / "tests" / "test_harness_eval_vectors.py"
    spec = importlib.util.spec_from_file_location("_trace_gates_for_docs", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.DIVERGENCES


def test_every_tested_vector_divergence_is_in_the_docs_table():
    documented = _divergence_ids_in_doc()
    tested = set(_test_divergences())
    assert tested <= documented, tested - documented
    extra = documented - tested
    # the rows that are not evaluator vectors are tested elsewhere (suite, report, rows, hash)
    assert extra == {"schema_hash_mixed_key_types", "row_to_eval_case_vectors", "suite_vector",
                     "report_vector"}


@pytest.mark.skipif(not VECTORS.exists(), reason=SHARED_MISSING)
def test_documented_vector_ids_exist():
    ids = {v["id"] for v in json.loads(VECTORS.read_text(encoding="utf-8"))}
    extra = json.loads((SHARED / "vectors" / "praison-trace-gates-extra.json").read_text())
    assert _divergence_ids_in_doc() <= ids | set(extra)


def test_example_traces_are_valid_traces():
    traces = sorted((REPO / "examples" / "traces").glob("*.json"))
    assert len(traces) >= 4
    for path in traces:
        aau_schemas.validate("trace", json.loads(path.read_text(encoding="utf-8")),
                             source=str(path))


def _doc_commands() -> list[str]:
    text = DOC.read_text(encoding="utf-8")
    commands = []
    for block in re.findall(r"```bash\n(.*?)```", text, re.S):
        commands.extend(line.strip() for line in block.replace("\\\n", " ").splitlines()
                        if line.strip())
    return commands


def test_doc_commands_run_with_the_documented_exit_codes(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "examples").symlink_to(REPO / "examples")
    codes = []
    for command in _doc_commands():
        argv = shlex.split(command)
        assert argv[0] == "aau"
        args = argv[1:]
        if "*" in " ".join(args):
            args = [a for a in args if "*" not in a] + [
                str(p.relative_to(REPO)) for p in sorted((REPO / "examples" / "traces").glob("*.json"))]
        codes.append(run(args))
        capsys.readouterr()
    # the first scores every example (some lack the artifact or schema: exit 1); the import
    # and the score of the imported trace succeed
    assert codes == [1, 0, 0]
    assert (tmp_path / "trace.json").exists() and (tmp_path / "trace-junit.xml").exists()
