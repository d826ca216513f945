"""The run store writes a document's JSON text in pieces (``_store_document_text``): the stored
value is exactly the text one ``json.dumps`` gives, it stays TEXT for sqlite's JSON functions,
and the pieces join to that text for any JSON value."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path

import pytest
from aau_core._store._document_text import document_pieces
from aau_core._store._run_store import RunStore, record_run

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


def test_the_stored_text_is_the_whole_text_byte_for_byte_and_stays_text(tmp_path):
    doc = json.loads(RECEIPT_V2.read_text(encoding="utf-8"))
    doc["suite_id"] = "suite-é-𝄞"  # non-ASCII: a byte count is not a character count
    store = tmp_path / "s.sqlite"
    run_id = record_run(doc, store=store, source="r.json")
    db = sqlite3.connect(store)
    kind, raw, suite = db.execute(
        "SELECT typeof(document), CAST(document AS BLOB), json_extract(document, '$.suite_id') "
        "FROM runs WHERE id = ?", (run_id,)).fetchone()
    db.close()
    assert kind == "text"
    assert raw == _whole(doc).encode("utf-8")
    assert suite == "suite-é-𝄞"
    with RunStore(store, read_only=True) as opened:
        assert opened.get(run_id)[1] == doc
