"""Byte-order marks on the inputs ``aau evaluate`` and ``aau import`` read: a suite saved with a
BOM loads and runs, a BFCL JSON Lines file and a tau2 policy with a BOM import to the same cases
as without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from aau_adapters import import_bfcl, import_tau2, load_suite
from aau_core import run

REPO = Path(__file__).resolve().parents[3]
SUITE = REPO / "examples" / "suites" / "library-desk-tool-calls.json"
SHARED = REPO.parent / "shared" / "datasets"
BOM = b"\xef\xbb\xbf"
NO_SHARED = pytest.mark.skipif(not (SHARED / "bfcl").is_dir() or not (SHARED / "tau2").is_dir(),
                               reason="the BFCL and tau2 samples live in ../shared/datasets, "
                                      "beside the repository; a plain clone has none")


def test_a_bom_json_suite_loads_and_evaluates(tmp_path: Path,
                                              capsys: pytest.CaptureFixture) -> None:
    path = tmp_path / "suite.json"
    path.write_bytes(BOM + SUITE.read_bytes())
    assert load_suite(path).cases == load_suite(SUITE).cases
    assert run(["evaluate", str(path), "--mock", "--json"]) == 0
    receipt = json.loads(capsys.readouterr().out)
    assert receipt["metrics"]["exact_rate"] == 1.0


@NO_SHARED
def test_bom_bfcl_jsonl_and_tau2_policy_import_the_same_cases(tmp_path: Path) -> None:
    bfcl = tmp_path / "bfcl"
    bfcl.mkdir()
    for name in ("bfcl_v4_live_simple.head5.jsonl", "bfcl_v4_live_simple.answers.head5.jsonl"):
        (bfcl / name).write_bytes(BOM + (SHARED / "bfcl" / name).read_bytes())
    plain = import_bfcl("live_simple", source=SHARED / "bfcl")
    assert import_bfcl("live_simple", source=bfcl)["cases"] == plain["cases"]
    tau2 = tmp_path / "tau2"
    shutil.copytree(SHARED / "tau2", tau2)
    policy = tau2 / "tau2_mock_policy.md"
    policy.write_bytes(BOM + policy.read_bytes())
    assert (import_tau2(tau2, "mock", limit=2)["cases"]
            == import_tau2(SHARED / "tau2", "mock", limit=2)["cases"])
