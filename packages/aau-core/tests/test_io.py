"""Atomic writes and the one JSON rendering."""

from __future__ import annotations

import pytest
from aau_core import OutputError, atomic_write_text, check_writable, render_json


def test_render_json_is_sorted_indented_with_newline():
    assert render_json({"b": "é", "a": 1}) == '{\n  "a": 1,\n  "b": "é"\n}\n'
    assert render_json({"b": "é"}, ensure_ascii=True) == '{\n  "b": "\\u00e9"\n}\n'
    with pytest.raises(ValueError):
        render_json({"x": float("nan")})


def test_atomic_write_refuses_to_overwrite_without_force(tmp_path):
    f = tmp_path / "sub" / "r.json"
    atomic_write_text(f, "one\n")
    assert f.read_text() == "one\n"
    with pytest.raises(OutputError, match="already exists"):
        atomic_write_text(f, "two\n")
    assert f.read_text() == "one\n"
    atomic_write_text(f, "two\n", force=True)
    assert f.read_text() == "two\n"
    assert sorted(p.name for p in f.parent.iterdir()) == ["r.json"]  # no temp files left


def test_atomic_write_to_a_folder_is_an_error(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        atomic_write_text(tmp_path, "x")
    with pytest.raises(OutputError, match="is a folder"):
        check_writable(tmp_path, force=True)


def test_failed_write_leaves_nothing_behind(tmp_path):
    class Boom(str):
        pass

    target = tmp_path / "r.json"
    with pytest.raises(TypeError):
        atomic_write_text(target, 123)  # type: ignore[arg-type]
    assert list(tmp_path.iterdir()) == []
