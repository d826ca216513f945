"""The run store writes a document's JSON text in pieces (``_store_document_text``): the stored
value is a BLOB of exactly the UTF-8 bytes of the text one ``json.dumps`` gives (sqlite's JSON
functions read it through ``CAST(document AS TEXT)``), rows an earlier aau wrote as TEXT still
read, and the pieces join to that text for any JSON value."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from aau_core._store._document_text import document_pieces, store_document_text
from aau_core._store._recording import record_run
from aau_core._store._run_store import RunStore

REPO = Path(__file__).resolve().parents[3]
RECEIPT_V2 = REPO / "schemas/receipt/v2/examples/valid/receipt-byo-agent-3x2-timeout.command.json"


def _whole(value):
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(9 if depth < 5 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randint(-10**20, 10**20)
    if kind == 3:
        return rng.choice([0.0, -0.0, 1e-300, 1.5e300, rng.uniform(-1e6, 1e6)])
    if kind in (4, 5):
        return "".join(rng.choice(['a', '"', '\\', '\n', 'é', '𝄞', '\u2028', '\x00', ' '])
                       for _ in range(rng.randrange(6)))
    if kind in (6, 7):
        return {"".join(rng.choice("abé\"") for _ in range(rng.randrange(4))):
                _random_value(rng, depth + 1) for _ in range(rng.randrange(5))}
    return [_random_value(rng, depth + 1) for _ in range(rng.randrange(5))]


@pytest.mark.parametrize("seed", range(300))
def test_the_pieces_join_to_the_text_json_dumps_gives(seed):
    value = _random_value(random.Random(seed))
    for depth in (0, 1, 3, 10):
        assert "".join(document_pieces(value, depth)) == _whole(value)


def test_a_mapping_with_non_string_keys_is_encoded_whole_as_json_would():
    value = {"rows": [{1: "a", 2: "b"}], "n": {3: 4}}
    assert "".join(document_pieces(value)) == _whole(value)


def _stored(store: Path, run_id: int) -> tuple[str, bytes, str]:
    db = sqlite3.connect(store)
    try:
        return db.execute(
            "SELECT typeof(document), CAST(document AS BLOB), "
            "json_extract(CAST(document AS TEXT), '$.suite_id') FROM runs WHERE id = ?",
            (run_id,)).fetchone()
    finally:
        db.close()


def _receipt() -> dict:
    doc = json.loads(RECEIPT_V2.read_text(encoding="utf-8"))
    doc["suite_id"] = "suite-é-𝄞"  # non-ASCII: a byte count is not a character count
    return doc


def test_the_stored_value_is_the_whole_text_as_utf8_bytes(tmp_path):
    doc = _receipt()
    store = tmp_path / "s.sqlite"
    run_id = record_run(doc, store=store, source="r.json")
    kind, raw, suite = _stored(store, run_id)
    assert kind == "blob"  # a zeroblob is reserved without building it (a TEXT value is built)
    assert raw == _whole(doc).encode("utf-8")
    assert suite == "suite-é-𝄞"  # what the docs tell sqlite3 users to write
    with RunStore(store, read_only=True) as opened:
        assert opened.get(run_id)[1] == doc


class _NoBlobIO:
    """A connection as Python 3.10's sqlite3 offers it: no ``blobopen``."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self.execute = db.execute


def _recorded_then(store: Path, doc: dict, rewrite) -> int:
    """Record ``doc``, then call ``rewrite(db, run_id)`` in one transaction on the file."""
    run_id = record_run(doc, store=store, source="r.json")
    db = sqlite3.connect(store)
    with db:
        rewrite(db, run_id)
    db.close()
    return run_id


def test_without_blob_io_the_same_bytes_are_bound(tmp_path):
    doc, store = _receipt(), tmp_path / "s.sqlite"

    def again_without_blob_io(db, run_id):
        db.execute("UPDATE runs SET document = '' WHERE id = ?", (run_id,))
        store_document_text(_NoBlobIO(db), run_id, doc)  # type: ignore[arg-type]

    run_id = _recorded_then(store, doc, again_without_blob_io)
    assert _stored(store, run_id) == ("blob", _whole(doc).encode("utf-8"), "suite-é-𝄞")


def test_a_run_an_earlier_aau_stored_as_text_still_reads(tmp_path):
    doc, store = _receipt(), tmp_path / "s.sqlite"
    run_id = _recorded_then(store, doc, lambda db, run_id: db.execute(
        "UPDATE runs SET document = CAST(document AS TEXT) WHERE id = ?", (run_id,)))
    assert _stored(store, run_id)[0] == "text"
    with RunStore(store, read_only=True) as opened:
        assert opened.get(run_id)[1] == doc
    # recording it again finds the stored run by its digest, whatever the value's type
    assert record_run(doc, store=store, source="again.json") == run_id
