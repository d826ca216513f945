"""The run store: migrations, recording, list/show/compare/add, concurrent writers."""

from __future__ import annotations

import copy
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import aau_schemas
import numpy as np
import pytest
from aau_core import run
from aau_core._errors import InputError, UsageError
from aau_core._store._compare import RESAMPLES, SEED, compare_runs
from aau_core._store._recording import record_run, record_run_or_warn
from aau_core._store._run_store import (
    MIGRATIONS,
    SCHEMA_VERSION,
    RunStore,
    migrate,
    resolve_store,
    schema_version,
)

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "schemas"
RECEIPT_V2 = SCHEMAS / "receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"
RECEIPT_V2_PY = SCHEMAS / "receipt/v2/examples/valid/receipt-starter-3-repeats.python.json"
RECEIPT_V1 = SCHEMAS / "receipt/v1/examples/valid/receipt-byo-agent.command.json"
LAB_RESULT = SCHEMAS / "lab/v1/examples/valid/lab-result-river-permit-desk-mock.json"
AGG_V1 = sorted((SCHEMAS / "eval-aggregate/v1/examples/valid").glob("*.json"))
AGG_V2 = sorted((SCHEMAS / "eval-aggregate/v2/examples/valid").glob("*.json"))
ALL_RUN_DOCS = [RECEIPT_V2, RECEIPT_V2_PY, RECEIPT_V1, LAB_RESULT, *AGG_V1, *AGG_V2]


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def cli(capsys, *args):
    rc = run([str(a) for a in args])
    out = capsys.readouterr()
    return rc, out.out, out.err


# ---------------------------------------------------------------- where the store is

def test_resolve_store_paths_urls_env_and_none(monkeypatch):
    monkeypatch.delenv("AAU_RUN_STORE", raising=False)
    assert resolve_store(None) == Path(".aau/runs.sqlite")
    assert resolve_store("x/runs.db") == Path("x/runs.db")
    assert resolve_store("sqlite:///rel/runs.db") == Path("rel/runs.db")
    assert resolve_store("sqlite:////abs/runs.db") == Path("/abs/runs.db")
    assert resolve_store("none") is None and resolve_store("NONE") is None
    monkeypatch.setenv("AAU_RUN_STORE", "/tmp/elsewhere.sqlite")
    assert resolve_store(None) == Path("/tmp/elsewhere.sqlite")
    monkeypatch.setenv("AAU_RUN_STORE", "none")
    assert resolve_store(None) is None
    assert resolve_store("given.sqlite") == Path("given.sqlite")  # the flag wins
    for bad in ("postgres://db/x", "sqlite://", "  "):
        with pytest.raises(UsageError):
            resolve_store(bad)


# ---------------------------------------------------------------- migrations

def test_an_empty_file_migrates_to_the_latest_version(tmp_path):
    with RunStore(tmp_path / "s.sqlite") as store:
        assert schema_version(store.db) == SCHEMA_VERSION == len(MIGRATIONS)
        versions = [v for (v,) in store.db.execute("SELECT version FROM schema_version")]
        assert versions == list(range(1, SCHEMA_VERSION + 1))
        assert store.db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        indexes = {n for (n,) in store.db.execute(
            "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%'")}
        assert {"runs_suite_digest", "runs_adapter", "runs_model", "runs_run_at",
                "run_metrics_value"} <= indexes


@pytest.mark.parametrize("start", range(SCHEMA_VERSION))
def test_every_older_version_migrates_and_keeps_its_runs(tmp_path, start):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, start) == start
    if start >= 1:  # a run recorded by the aau of that version: runs + run_scenarios rows only
        doc = load(RECEIPT_V2)
        db.execute("INSERT INTO runs (doc_digest, kind, suite, adapter, run_at, recorded_at, "
                   "scenario_count, scenarios_passed, repeats, document) VALUES "
                   "('sha256:x', 'receipt-v2', 'public-service-routing-smoke', 'command:python3', "
                   "'2026-03-02T09:14:07Z', '2026-03-02T09:15:00Z', 3, 1, 2, ?)",
                   (json.dumps(doc),))
    db.close()
    with RunStore(path) as store:
        assert schema_version(store.db) == SCHEMA_VERSION
        runs = store.list()
        if start >= 1:
            assert len(runs) == 1
        if start == 1:
            # migration 2 backfilled the headline metrics from the stored document
            assert runs[0].metrics["exact_rate"] == pytest.approx(0.666667)
            low = store.db.execute("SELECT low FROM run_metrics WHERE name = 'exact_rate'")
            assert low.fetchone()[0] == pytest.approx(0.20766)
        if start == 0:
            assert runs == []
        # migration 3 added the documents table, empty
        assert store.db.execute("SELECT COUNT(*) FROM documents").fetchone()[0] == 0


def test_a_newer_store_is_refused_and_left_alone(tmp_path):
    path = tmp_path / "new.sqlite"
    RunStore(path).close()
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("INSERT INTO schema_version VALUES (99, 'future')")
    db.close()
    with pytest.raises(InputError, match="version 99 is newer"):
        RunStore(path)
    with pytest.raises(InputError, match=r"version 99 is newer than this aau supports .*upgrade"):
        RunStore(path, read_only=True)  # the same advice as a writer's: recording cannot help


def test_read_only_refuses_a_missing_store_and_a_non_store(tmp_path):
    with pytest.raises(InputError, match="no run store here"):
        RunStore(tmp_path / "missing.sqlite", read_only=True)
    junk = tmp_path / "junk.sqlite"
    junk.write_text("not a database at all, just text" * 100)
    with pytest.raises(InputError, match="not a run store"):
        RunStore(junk)


def test_an_empty_file_is_a_store_with_nothing_recorded(tmp_path):
    empty = tmp_path / "empty.sqlite"
    empty.touch()
    with pytest.raises(InputError, match="nothing recorded in this run store yet"):
        RunStore(empty, read_only=True)
    run_id = record_run(load(RECEIPT_V2), store=empty)  # a writer makes it a store
    with RunStore(empty, read_only=True) as store:
        assert store.get(run_id)[1] == load(RECEIPT_V2)


def test_another_programs_database_is_never_migrated_into(tmp_path):
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("CREATE TABLE t (x)")
    db.commit()
    db.close()
    for read_only in (True, False):
        with pytest.raises(InputError, match=r"something else \(tables t, no schema_version\)"):
            RunStore(other, read_only=read_only)
    db = sqlite3.connect(other)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["t"]
    db.close()


def _as_unprivileged(argv: list[str]) -> list[str]:
    """``argv`` run so that file permissions apply: as is for a normal user; for root, under
    ``setpriv`` without the capabilities that bypass them (skips without ``setpriv``)."""
    import os
    import shutil

    if os.geteuid() != 0:
        return argv
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: a read-only folder cannot be made")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps",
            "-dac_override,-dac_read_search", *argv]


def test_a_store_in_a_read_only_folder_is_read(tmp_path):
    folder = tmp_path / "archive"
    folder.mkdir()
    store_path = folder / "runs.sqlite"
    run_id = record_run(load(RECEIPT_V2), store=store_path)
    assert sorted(p.name for p in folder.iterdir()) == ["runs.sqlite"]  # no side files left
    script = ("import json, sys; from aau_core._store._run_store import RunStore\n"
              "with RunStore(sys.argv[1], read_only=True) as s:\n"
              "    print(json.dumps(s.get(int(sys.argv[2]))[1]))")
    folder.chmod(0o555)
    try:
        done = subprocess.run(_as_unprivileged([sys.executable, "-c", script, str(store_path),
                                                str(run_id)]),
                              capture_output=True, text=True, timeout=60)
        listed = subprocess.run(_as_unprivileged([sys.executable, "-m", "aau_core",
                                                  "runs", "list", "--store", str(store_path)]),
                                capture_output=True, text=True, timeout=60)
        # a write there really is refused, so the test did make the folder read-only
        probe = subprocess.run(_as_unprivileged([sys.executable, "-c",
                                                 f"open({str(folder / 'x')!r}, 'w')"]),
                               capture_output=True, text=True, timeout=60)
    finally:
        folder.chmod(0o755)
    assert probe.returncode != 0 and "Permission denied" in probe.stderr
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == load(RECEIPT_V2)
    assert listed.returncode == 0, listed.stderr
    assert "public-service-routing-smoke" in listed.stdout
    assert sorted(p.name for p in folder.iterdir()) == ["runs.sqlite"]


# ---------------------------------------------------------------- recording

@pytest.mark.parametrize("path", ALL_RUN_DOCS, ids=lambda p: p.name)
def test_every_run_kind_is_recorded_with_its_scenarios(tmp_path, path):
    doc = load(path)
    run_id = record_run(doc, store=tmp_path / "s.sqlite", source=str(path))
    with RunStore(tmp_path / "s.sqlite", read_only=True) as store:
        summary, stored = store.get(run_id)
        assert stored == doc
        scenarios = store.scenarios(run_id)
    agg = doc.get("aggregate", doc)
    ids = list(dict.fromkeys(r["scenario_id"] for r in agg["results"]))
    assert [s.scenario_id for s in scenarios] == ids
    assert summary.scenario_count == len(ids)
    assert summary.scenarios_passed == sum(s.passed for s in scenarios)
    assert summary.metrics == pytest.approx(agg.get("metrics") or agg["metric_means"])


def test_indexed_columns_of_a_receipt_and_a_lab_result(tmp_path):
    store_path = tmp_path / "s.sqlite"
    a = record_run(load(RECEIPT_V2), store=store_path)
    b = record_run(load(LAB_RESULT), store=store_path)
    with RunStore(store_path, read_only=True) as store:
        ra, rb = store.get(a)[0], store.get(b)[0]
        scen = {s.scenario_id: s for s in store.scenarios(a)}
    assert (ra.kind, ra.suite, ra.adapter, ra.model, ra.repeats) == (
        "receipt-v2", "public-service-routing-smoke", "command:python3", None, 2)
    assert ra.suite_digest == load(RECEIPT_V2)["suite_digest"]
    assert ra.run_at == "2026-03-02T09:14:07.118204Z"
    assert scen["route-002"].failure_codes == {"adapter-timeout": 1, "not-submitted": 1}
    assert not scen["route-002"].passed and scen["route-001"].passed
    assert scen["route-002"].metrics["exact"] == 0.5
    assert (rb.kind, rb.suite, rb.adapter, rb.model) == ("lab-result", "decision-gate", "mock",
                                                         "mock")
    assert rb.suite_digest == load(LAB_RESULT)["scenarios_sha256"]
    assert rb.run_at == "2026-11-30T16:17:05Z"


def test_the_same_document_is_stored_once(tmp_path):
    store_path = tmp_path / "s.sqlite"
    first = record_run(load(RECEIPT_V2), store=store_path)
    assert record_run(load(RECEIPT_V2), store=store_path) == first
    with RunStore(store_path, read_only=True) as store:
        assert len(store.list()) == 1


def test_an_invalid_document_is_refused_with_its_path_and_nothing_is_stored(tmp_path):
    store_path = tmp_path / "s.sqlite"
    bad = load(RECEIPT_V2)
    bad["results"][0]["latency_s"] = "slow"
    with pytest.raises(InputError) as err:
        record_run(bad, store=store_path, source="bad.json")
    assert str(err.value).startswith("bad.json: $.results[0].latency_s:")
    edited = load(RECEIPT_V2)
    edited["metrics"]["exact_rate"] = 0.9  # schema-valid, inconsistent with its rows
    with pytest.raises(InputError, match="inconsistent with its own rows"):
        record_run(edited, store=store_path, source="edited.json")
    with RunStore(store_path, read_only=True) as store:
        assert store.list() == []


def test_checked_kind_skips_the_checks_only_for_the_kind_it_names(tmp_path):
    store_path = tmp_path / "s.sqlite"
    edited = load(RECEIPT_V2)
    edited["metrics"]["exact_rate"] = 0.9  # inconsistent: caught unless the caller vouches
    for vouched in (None, "receipt-v1", "eval-aggregate-v2"):
        with pytest.raises(InputError, match="inconsistent with its own rows"):
            record_run(edited, store=store_path, source="edited.json", checked_kind=vouched)
    bad = load(RECEIPT_V2)
    bad["results"][0]["latency_s"] = "slow"
    with pytest.raises(InputError, match=r"\$\.results\[0\]\.latency_s"):
        record_run(bad, store=store_path, source="bad.json", checked_kind="receipt-v1")
    with RunStore(store_path, read_only=True) as store:
        assert store.list() == []
    assert record_run(load(RECEIPT_V2), store=store_path, checked_kind="receipt-v2") == 1


def test_record_run_none_and_the_warning_hook(tmp_path, capsys):
    assert record_run(load(RECEIPT_V2), store="none") is None
    blocker = tmp_path / "file"
    blocker.write_text("x")
    # the store's folder is a file: recording fails, the caller gets a warning and None
    assert record_run_or_warn(load(RECEIPT_V2), store=blocker / "s.sqlite") is None
    assert "aau: warning: run not recorded in the run store:" in capsys.readouterr().err


# ---------------------------------------------------------------- list / show / add CLI

@pytest.fixture
def filled(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    for path in (RECEIPT_V2, RECEIPT_V1, LAB_RESULT, *AGG_V1):
        record_run(load(path), store=store_path, source=str(path))
    return store_path


def test_runs_list_filters_by_suite_digest_and_since(filled, capsys):
    rc, out, _ = cli(capsys, "runs", "list", "--store", filled, "--json")
    runs = json.loads(out)
    assert rc == 0 and len(runs) == 5
    aau_schemas.validate("run-list", runs)
    assert [r["run_at"] for r in runs] == sorted((r["run_at"] for r in runs), reverse=True)
    rc, out, _ = cli(capsys, "runs", "list", "--store", filled, "--json", "--suite",
                     "public-service-routing-smoke")
    assert {r["kind"] for r in json.loads(out)} == {"receipt-v1", "receipt-v2"}
    digest = load(RECEIPT_V2)["suite_digest"].removeprefix("sha256:")
    rc, out, _ = cli(capsys, "runs", "list", "--store", filled, "--json", "--suite", digest)
    assert [r["kind"] for r in json.loads(out)] == ["receipt-v2"]
    rc, out, _ = cli(capsys, "runs", "list", "--store", filled, "--json", "--since",
                     "2026-08-09T20:00:00+02:00")  # 18:00 UTC: the deepseek run (22:39) and later
    kinds = [(r["kind"], r["model"]) for r in json.loads(out)]
    assert ("eval-aggregate-v1", "deepseek-v4-flash") in kinds
    assert ("eval-aggregate-v1", "mistral-small-latest") not in kinds  # 17:35 UTC
    rc, out, _ = cli(capsys, "runs", "list", "--store", filled)
    assert rc == 0 and "| id | run at (UTC) |" in out and "decision-gate" in out
    rc, _, err = cli(capsys, "runs", "list", "--store", filled, "--since", "last tuesday")
    assert rc == 2 and "--since 'last tuesday': expected an ISO 8601 date" in err


def test_runs_show_text_and_json(filled, capsys):
    rc, out, _ = cli(capsys, "runs", "show", "5", "--store", filled)  # the receipt v2
    rows = {run["id"]: run for run in json.loads(cli(capsys, "runs", "list", "--store", filled,
                                                     "--json")[1])}
    receipt_id = next(i for i, r in rows.items() if r["kind"] == "receipt-v2")
    rc, out, _ = cli(capsys, "runs", "show", str(receipt_id), "--store", filled)
    assert rc == 0
    assert "1/3 scenarios passed, 2 repeat(s)" in out
    assert "| route-002 | FAIL | 1/2 | adapter-timeout, not-submitted |" in out
    rc, out, _ = cli(capsys, "runs", "show", str(receipt_id), "--store", filled, "--json")
    shown = json.loads(out)
    aau_schemas.validate("run-show", shown)
    assert shown["document"] == load(RECEIPT_V2)
    assert shown["run"]["adapter"] == "command:python3"
    assert [s["passed"] for s in shown["scenarios"]] == [True, False, False]
    rc, _, err = cli(capsys, "runs", "show", "999", "--store", filled)
    assert rc == 2 and "no run 999 in this store" in err
    rc, _, err = cli(capsys, "runs", "show", "abc", "--store", filled)
    assert rc == 2 and "expected a number" in err


def test_runs_add_validates_every_file_first(tmp_path, capsys):
    store_path = tmp_path / "runs.sqlite"
    bad = tmp_path / "bad.json"
    bad.write_text('{"receipt_version": "aau-byo-agent-receipt/2.0"}')
    rc, _, err = cli(capsys, "runs", "add", RECEIPT_V2, bad, "--store", store_path)
    assert rc == 2 and err.startswith(f"aau: error: {bad}: $:")
    assert not store_path.exists()  # nothing recorded, not even the good file
    rc, _, err = cli(capsys, "runs", "add", RECEIPT_V2, RECEIPT_V2, LAB_RESULT,
                     "--store", store_path)
    assert rc == 0
    assert "recorded as run 1" in err and "already stored as run 1" in err
    assert "recorded as run 2" in err


def test_read_commands_on_a_missing_store_and_store_none(tmp_path, capsys):
    rc, _, err = cli(capsys, "runs", "list", "--store", tmp_path / "nope.sqlite")
    assert rc == 2 and "no run store here" in err
    rc, _, err = cli(capsys, "runs", "list", "--store", "none")
    assert rc == 2 and "--store none" in err


# ---------------------------------------------------------------- compare

def _scenario(sid, passed, **metrics):
    from aau_core._store._run_store import StoredScenario

    return StoredScenario(sid, passed, 1, int(passed), {}, metrics)


def test_compare_paired_differences_interval_and_flips():
    a = [_scenario("s1", True, exact=1.0, lat=1.0), _scenario("s2", False, exact=0.0, lat=2.0),
         _scenario("s3", True, exact=1.0, lat=3.0), _scenario("only-a", True, exact=1.0)]
    b = [_scenario("s3", False, exact=0.0, lat=3.5), _scenario("s1", True, exact=1.0, lat=1.5),
         _scenario("s2", True, exact=1.0, lat=2.5), _scenario("only-b", True, exact=1.0)]
    result = compare_runs(1, a, 2, b, same_suite=True)
    assert result.shared == 3 and result.only_a == ("only-a",) and result.only_b == ("only-b",)
    assert result.pass_to_fail == ("s3",) and result.fail_to_pass == ("s2",)
    exact, lat = result.metrics
    assert exact.name == "exact" and exact.diff == 0.0 and exact.n == 3
    # every latency difference is +0.5: the interval collapses on it
    assert (lat.diff, lat.low, lat.high) == pytest.approx((0.5, 0.5, 0.5))
    # exact: d = (0, +1, -1); a resampled mean lies in [-1, 1] and the interval holds 0
    assert -1.0 <= exact.low < 0.0 < exact.high <= 1.0
    doc = result.as_dict()
    assert doc["bootstrap"] == {"method": "paired-percentile", "resamples": RESAMPLES,
                                "seed": SEED, "level": 0.95,
                                "unit": "scenario (repeats averaged first)"}


def test_compare_interval_matches_a_plain_loop_bootstrap():
    rng = np.random.default_rng(7)
    n = 40
    a_vals = rng.random(n)
    b_vals = np.clip(a_vals + rng.normal(0.1, 0.2, n), 0, 1)
    a = [_scenario(f"s{i}", True, score=float(v)) for i, v in enumerate(a_vals)]
    b = [_scenario(f"s{i}", True, score=float(v)) for i, v in enumerate(b_vals)]
    (delta,) = compare_runs(1, a, 2, b, same_suite=True).metrics
    # the same draws, one resample at a time, percentiles by sorting
    draws = np.random.default_rng(SEED).integers(0, n, size=(RESAMPLES, n))
    d = b_vals - a_vals
    means = sorted(sum(d[j] for j in row) / n for row in draws)
    assert delta.diff == pytest.approx(d.mean())
    assert delta.low == pytest.approx(np.percentile(means, 2.5))
    assert delta.high == pytest.approx(np.percentile(means, 97.5))
    # pairing: the paired interval is narrower than an unpaired difference of two bootstraps
    assert delta.high - delta.low < 0.5 * (np.ptp(a_vals) + np.ptp(b_vals)) / np.sqrt(n)


def _record_and_compare(capsys, store_path, first, second):
    """Record two documents; return their run ids and ``aau runs compare --json``'s output
    (exit 0, valid under ``run-compare``)."""
    a = record_run(first, store=store_path)
    b = record_run(second, store=store_path)
    rc, out, err = cli(capsys, "runs", "compare", a, b, "--store", store_path, "--json")
    assert rc == 0, err
    result = json.loads(out)
    aau_schemas.validate("run-compare", result)
    return a, b, result


def test_runs_compare_cli_on_real_receipts(tmp_path, capsys):
    store_path = tmp_path / "runs.sqlite"
    before = load(RECEIPT_V2)
    # a later run of the same suite where route-003 no longer attempts the forbidden action
    after = copy.deepcopy(before)
    for row in after["results"]:
        if row["scenario_id"] == "route-003":
            row.update(exact=True, no_forbidden_attempt=True, failure_codes=[])
    from aau_core import receipt_metrics
    from aau_core._reports._receipt_consistency import (
        receipt_failure_code_counts,
        receipt_metric_intervals,
        receipt_pass_hat_k,
    )

    after["metrics"] = receipt_metrics(after["results"])
    after["pass_hat_k"] = receipt_pass_hat_k(after["results"], after["repeats"])
    after["failure_code_counts"] = receipt_failure_code_counts(after["results"])
    after["fail_under"] = []
    after["metric_ci95"] = receipt_metric_intervals(after["results"], after["metrics"])
    a, b, result = _record_and_compare(capsys, store_path, before, after)
    assert result["same_suite"] and result["shared"] == 3
    assert result["fail_to_pass"] == ["route-003"] and result["pass_to_fail"] == []
    exact = next(m for m in result["metrics"] if m["name"] == "exact")
    assert exact["diff"] == pytest.approx(0.5 / 3)
    rc, out, _ = cli(capsys, "runs", "compare", a, b, "--store", store_path)
    assert "fail -> pass (1): route-003" in out and "| exact | 3 |" in out


def test_runs_compare_shared_scenarios_without_a_shared_metric(tmp_path, capsys):
    """A receipt and an aggregate over the same scenario ids carry no metric in common: the
    verdicts still compare, and the table says no metric is shared instead of printing none."""
    store_path = tmp_path / "runs.sqlite"
    receipt = load(RECEIPT_V2)
    aggregate = load(AGG_V2[0])
    ids = sorted({row["scenario_id"] for row in receipt["results"]})
    theirs = sorted({row["scenario_id"] for row in aggregate["results"]})
    renamed = dict(zip(theirs, ids, strict=False))  # the aggregate's first three, renamed
    aggregate["results"] = [dict(row, scenario_id=renamed[row["scenario_id"]])
                            for row in aggregate["results"] if row["scenario_id"] in renamed]
    a, b, result = _record_and_compare(capsys, store_path, receipt, aggregate)
    assert result["shared"] == len(ids) and result["metrics"] == [] and not result["same_suite"]
    rc, out, err = cli(capsys, "runs", "compare", a, b, "--store", store_path)
    assert rc == 0, err
    assert "no per-scenario metric is carried by both runs" in out and "| metric |" not in out


def test_same_suite_is_the_digest_when_both_have_one_else_the_suite_id():
    from types import SimpleNamespace as Run

    from aau_core._store._compare import same_suite

    assert same_suite(Run(suite="s", suite_digest="d1"), Run(suite="s", suite_digest="d1"))
    # a suite edited under the same id is another suite
    assert not same_suite(Run(suite="s", suite_digest="d1"), Run(suite="s", suite_digest="d2"))
    # a renamed suite with the same content is the same suite
    assert same_suite(Run(suite="s", suite_digest="d1"), Run(suite="t", suite_digest="d1"))
    assert same_suite(Run(suite="s", suite_digest=None), Run(suite="s", suite_digest="d1"))
    assert not same_suite(Run(suite="s", suite_digest=None), Run(suite="t", suite_digest=None))
    assert not same_suite(Run(suite=None, suite_digest=None), Run(suite=None, suite_digest=None))


# ---------------------------------------------------------------- concurrent writers

ADD_ONE = """
import json, sys
from aau_core._store._recording import record_run
doc = json.load(open(sys.argv[1]))
for row in doc["results"]:
    row["latency_s"] = round(row["latency_s"] + int(sys.argv[3]) * 1e-6, 6)
from aau_core import receipt_metrics
from aau_core._reports._receipt_consistency import receipt_metric_intervals
doc["metrics"] = receipt_metrics(doc["results"])
doc["metric_ci95"] = receipt_metric_intervals(doc["results"], doc["metrics"])
print(record_run(doc, store=sys.argv[2]))
"""


def test_eight_processes_adding_at_once_never_corrupt_the_store(tmp_path):
    store_path = tmp_path / "runs.sqlite"
    procs = [subprocess.Popen([sys.executable, "-c", ADD_ONE, str(RECEIPT_V2), str(store_path),
                               str(i)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(8)]
    results = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [err for _, err in results]
    ids = sorted(int(out) for out, _ in results)
    assert ids == list(range(1, 9))
    db = sqlite3.connect(store_path)
    assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    assert db.execute("SELECT COUNT(*) FROM run_scenarios").fetchone()[0] == 8 * 3
    assert db.execute("SELECT COUNT(*) FROM run_metrics").fetchone()[0] == 8 * 6
    assert [v for (v,) in db.execute("SELECT version FROM schema_version")] == [1, 2, 3]
    db.close()


def test_every_stored_kind_shows_and_lists_under_the_schemas(tmp_path, capsys):
    store_path = tmp_path / "runs.sqlite"
    ids = [record_run(load(p), store=store_path, source=p.name) for p in ALL_RUN_DOCS]
    rc, out, _ = cli(capsys, "runs", "list", "--store", store_path, "--json")
    aau_schemas.validate("run-list", json.loads(out))
    for run_id in ids:
        rc, out, _ = cli(capsys, "runs", "show", run_id, "--store", store_path, "--json")
        assert rc == 0
        aau_schemas.validate("run-show", json.loads(out))
    # the first and last documents share no scenario id: nothing to compare, exit 3
    for extra in ((), ("--json",)):
        rc, out, err = cli(capsys, "runs", "compare", ids[0], ids[-1], "--store", store_path,
                           *extra)
        assert rc == 3 and out == ""
        assert err.strip().endswith("nothing to compare") and len(err.strip().splitlines()) == 1
        assert f"runs {ids[0]} and {ids[-1]} share no scenario id" in err
    # no pair's refusal names Python's None for a run without a suite id (a lab aggregate)
    for first in ids:
        for second in ids:
            rc, _, err = cli(capsys, "runs", "compare", first, second, "--store", store_path)
            assert "None" not in err, err
