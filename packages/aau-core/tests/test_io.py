"""Atomic writes and the one JSON rendering."""

from __future__ import annotations

import os
import stat

import pytest
from aau_core import (
    OutputError,
    atomic_write_json,
    atomic_write_text,
    check_writable,
    render_json,
)


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


@pytest.mark.parametrize("tail", ["r.json", "sub/r.json", "sub/deeper/r.json"])
def test_a_file_where_a_folder_should_be_is_named(tmp_path, tail):
    agent = tmp_path / "agent.py"
    agent.write_text("print()\n")
    target = agent / tail
    with pytest.raises(OutputError) as info:
        check_writable(target, force=True)
    assert str(info.value).startswith(f"{agent}: is a file, not a folder")
    with pytest.raises(OutputError) as info:
        atomic_write_text(target, "x", force=True)
    assert str(info.value).startswith(f"{agent}: is a file, not a folder")
    assert agent.read_text() == "print()\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["agent.py"]


def test_missing_parent_folders_are_created(tmp_path):
    target = tmp_path / "a" / "b" / "r.json"
    check_writable(target, force=False)
    atomic_write_text(target, "x\n")
    assert target.read_text() == "x\n"


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_new_files_get_the_usual_mode_for_the_umask(tmp_path, umask):
    old = os.umask(umask)
    try:
        atomic_write_text(tmp_path / "r.txt", "x\n")
        atomic_write_json(tmp_path / "r.json", {"a": 1})
    finally:
        os.umask(old)
    for name in ("r.txt", "r.json"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o666 & ~umask, name


@pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")
def test_replacing_a_file_keeps_its_mode(tmp_path):
    target = tmp_path / "private.json"
    target.write_text("old\n")
    target.chmod(0o600)
    atomic_write_text(target, "new\n", force=True)
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    assert sorted(p.name for p in tmp_path.iterdir()) == ["private.json"]


def test_private_files_are_owner_only_whatever_the_umask(tmp_path):
    import os
    import stat

    from aau_core import atomic_write_json

    old = os.umask(0o022)
    try:
        public = atomic_write_json(tmp_path / "r.json", {"a": 1})
        private = atomic_write_json(tmp_path / "p.json", {"a": 1}, private=True)
        assert stat.S_IMODE(public.stat().st_mode) == 0o644
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
        os.chmod(private, 0o644)  # replacing a widened private file narrows it again
        atomic_write_json(private, {"a": 2}, private=True, force=True)
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
    finally:
        os.umask(old)
