"""write_folder: staged beside the destination, modes from the umask, all or nothing."""

from __future__ import annotations

import os
import stat

import pytest
from aau_core import OutputError, write_folder


@pytest.fixture
def umask_027():
    old = os.umask(0o027)
    yield
    os.umask(old)


def _mode(path) -> int:
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_writes_every_file_with_modes_from_the_umask(tmp_path, umask_027):
    dest = tmp_path / "out" / "project"
    got = write_folder(dest, {"a.txt": "é\n", "sub/deep/b.bin": b"\x00\x01",
                              "run.py": "#!/usr/bin/env python3\n"}, executable=["run.py"])
    assert got == dest
    assert (dest / "a.txt").read_bytes() == "é\n".encode()
    assert (dest / "sub" / "deep" / "b.bin").read_bytes() == b"\x00\x01"
    assert _mode(dest) == 0o750  # not mkdtemp's 0700, not a hard-coded 0755
    assert _mode(dest / "sub") == _mode(dest / "sub" / "deep") == 0o750
    assert _mode(dest / "a.txt") == 0o640
    assert _mode(dest / "run.py") == 0o750
    assert sorted(p.name for p in dest.parent.iterdir()) == ["project"]  # no stage left


def test_a_failing_check_leaves_nothing(tmp_path):
    dest = tmp_path / "project"
    seen = []

    def check(stage):
        seen.append(sorted(p.name for p in stage.iterdir()))
        raise OutputError("no")

    with pytest.raises(OutputError, match="no"):
        write_folder(dest, {"a": "1", "b": "2"}, check=check)
    assert seen == [["a", "b"]]
    assert list(tmp_path.iterdir()) == []


def test_an_existing_destination_is_refused_unless_replace(tmp_path):
    dest = tmp_path / "project"
    dest.mkdir()
    (dest / "old").write_text("x")
    with pytest.raises(OutputError, match="appeared while writing; not overwritten"):
        write_folder(dest, {"new": "y"})
    assert sorted(p.name for p in dest.iterdir()) == ["old"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]
    write_folder(dest, {"new": "y"}, replace=True)
    assert sorted(p.name for p in dest.iterdir()) == ["new"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["project"]  # old copy removed


def test_an_unwritable_file_name_is_one_output_error(tmp_path):
    dest = tmp_path / "project"
    with pytest.raises(OutputError, match=r"project: cannot write: "):
        write_folder(dest, {"a" * 300: "x"})  # longer than any file system's name limit
    assert list(tmp_path.iterdir()) == []
