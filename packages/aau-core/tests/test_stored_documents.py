"""The documents the run store keeps beside the runs (``_store._stored_documents``): recorded
generically by schema kind, checked against that kind's schema, stored once, listed and shown
by ``aau runs documents``, and a store of schema version 2 migrates to 3 keeping its runs."""

from __future__ import annotations

import copy
import json
import sqlite3
from pathlib import Path

import aau_schemas
import pytest
from aau_core import record_run, run
from aau_core._errors import InputError
from aau_core._store._run_store import MIGRATIONS, RunStore, migrate, schema_version
from aau_core._store._stored_documents import (
    add_document,
    get_document,
    list_documents,
    record_document_or_warn,
)

REPO = Path(__file__).resolve().parents[3]
SCHEMAS = REPO / "schemas"
REPORT = SCHEMAS / "review/v1/examples/valid/report-live-simple.json"
RECEIPT_V2 = SCHEMAS / "receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"


def _report() -> dict:
    return json.loads(REPORT.read_text(encoding="utf-8"))


def test_a_document_is_stored_once_and_read_back_whole(tmp_path):
    doc = _report()
    binds = doc["source"]["receipt_sha256"]
    with RunStore(tmp_path / "runs.sqlite") as store:
        assert add_document(store, doc, kind="review-report", suite="s", receipt_sha256=binds,
                            source="r.json") == (1, True)
        assert add_document(store, copy.deepcopy(doc), kind="review-report") == (1, False)
        other = copy.deepcopy(doc)
        other["bootstrap"]["seed"] = 1
        assert add_document(store, other, kind="review-report") == (2, True)
        rows = list_documents(store)
        assert [r.id for r in rows] == [2, 1]  # newest first
        assert [r.id for r in list_documents(store, receipt_sha256=f"sha256:{binds}")] == [1]
        assert list_documents(store, kind="human-baseline-report") == []
        row, back = get_document(store, "#1")
        assert back == doc and row.source == "r.json" and row.suite == "s"
        assert row.doc_digest == aau_schemas.canonical_digest(doc)
        assert row.recorded_at.endswith("Z") and len(row.recorded_at) == 20
        with pytest.raises(InputError, match="no document 9 in this store"):
            get_document(store, 9)
        with pytest.raises(InputError, match="document id 'x': expected a number"):
            get_document(store, "x")


@pytest.mark.parametrize(("kind", "edit", "message"), [
    ("receipt-v2", None, "'receipt-v2' is not a document kind the store keeps beside runs"),
    ("no-such-kind", None, "'no-such-kind' is not a document kind the store keeps beside runs"),
    ("review-report", lambda d: d.update(unit_count=-1), "r.json: $.unit_count: "),
])
def test_what_the_store_refuses_is_one_line_and_nothing_is_stored(tmp_path, kind, edit,
                                                                  message):
    doc = _report()
    if edit:
        edit(doc)
    with RunStore(tmp_path / "runs.sqlite") as store:
        with pytest.raises(InputError) as info:
            add_document(store, doc, kind=kind, source="r.json")
        assert message in str(info.value)
        assert list_documents(store) == []


def test_recording_never_fails_the_command(tmp_path):
    warnings: list[str] = []
    assert record_document_or_warn(_report(), kind="receipt-v2", store=tmp_path / "s.sqlite",
                                   warn=warnings.append) is None
    assert warnings == ["aau: warning: receipt-v2 not recorded in the run store: <document>: "
                        "'receipt-v2' is not a document kind the store keeps beside runs"]
    assert record_document_or_warn(_report(), kind="review-report", store="none") is None
    assert record_document_or_warn(_report(), kind="review-report",
                                   store=tmp_path / "s.sqlite") == 1


def test_a_version_2_store_migrates_to_3_and_keeps_its_runs(tmp_path):
    path = tmp_path / "runs.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    assert migrate(db, target=2) == 2
    db.close()
    with RunStore(path) as store:  # opening for writing applies migration 3
        assert schema_version(store.db) == 3 == len(MIGRATIONS)
        assert list_documents(store) == []
    assert record_run(json.loads(RECEIPT_V2.read_text(encoding="utf-8")), store=path) == 1


def test_aau_runs_documents_lists_and_shows(tmp_path, capsys):
    path = tmp_path / "runs.sqlite"
    doc = _report()
    assert record_document_or_warn(doc, kind="review-report", store=path, suite="s",
                                   receipt_sha256=doc["source"]["receipt_sha256"],
                                   source="r.json") == 1
    assert run(["runs", "documents", "--store", str(path), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    aau_schemas.validate("stored-document-list", listed)
    assert [(d["id"], d["kind"], d["source"]) for d in listed] == [(1, "review-report", "r.json")]
    assert run(["runs", "documents", "--store", str(path), "--kind", "review-report"]) == 0
    out = capsys.readouterr().out
    assert "| 1 " in out and "review-report" in out and doc["source"]["receipt_sha256"][:12] in out
    assert run(["runs", "documents", "1", "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("document 1: review-report · suite s · receipt ")
    assert json.loads(out.split("\n", 1)[1]) == doc
    assert run(["runs", "documents", "2", "--store", str(path)]) == 2
    assert "no document 2 in this store" in capsys.readouterr().err
