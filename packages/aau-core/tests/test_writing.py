"""Atomic writes and the one JSON rendering."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from aau_core import (
    OutputError,
    atomic_write_json,
    atomic_write_text,
    check_outputs,
    json_content,
    render_json,
    write_outputs,
)
from aau_core._files._writing import check_writable


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


# --- destinations that are not regular files, missing parents, several outputs ----------------

NOT_REGULAR = "is not a regular file (a device, pipe or link); name a regular file"


@pytest.mark.skipif(os.name != "posix", reason="FIFOs and symlinks")
@pytest.mark.parametrize("kind", ["fifo", "symlink", "dangling-symlink", "device"])
def test_a_destination_that_is_not_a_regular_file_is_refused_even_with_force(tmp_path, kind):
    target_of_link = tmp_path / "target.txt"
    target_of_link.write_text("keep\n")
    if kind == "fifo":
        dest = tmp_path / "pipe"
        os.mkfifo(dest)
    elif kind == "symlink":
        dest = tmp_path / "link.json"
        dest.symlink_to(target_of_link)
    elif kind == "dangling-symlink":
        dest = tmp_path / "link.json"
        dest.symlink_to(tmp_path / "nowhere.json")
    else:
        dest = tmp_path / "fakenull"  # mknod fakenull c 1 3
        try:
            os.mknod(dest, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
        except PermissionError:
            dest.symlink_to("/dev/null")  # not root: a link to the device stands in
    before = os.lstat(dest)
    for force in (False, True):
        with pytest.raises(OutputError) as info:
            check_writable(dest, force=force)
        assert str(info.value) == f"{dest}: {NOT_REGULAR}"
        with pytest.raises(OutputError) as info:
            atomic_write_text(dest, "x\n", force=force)
        assert str(info.value) == f"{dest}: {NOT_REGULAR}"
        with pytest.raises(OutputError):
            write_outputs({tmp_path / "ok.txt": "x\n", dest: "y\n"}, force=force)
    after = os.lstat(dest)
    assert (after.st_mode, after.st_ino) == (before.st_mode, before.st_ino)
    assert target_of_link.read_text() == "keep\n"
    assert not (tmp_path / "ok.txt").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.endswith(".tmp")]


def test_a_missing_parent_outside_cwd_and_temp_is_refused_and_not_created(tmp_path, monkeypatch):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    monkeypatch.setattr("tempfile.gettempdir", lambda: str(tmp_path / "tmp"))
    monkeypatch.chdir(tmp_path / "elsewhere")
    dest = tmp_path / "nonexist" / "x.xml"
    with pytest.raises(OutputError) as info:
        check_writable(dest, force=True)
    assert str(info.value) == (
        f"{dest}: folder {tmp_path / 'nonexist'} does not exist; create it first (aau creates "
        "missing folders only below the current directory or the temp folder)")
    with pytest.raises(OutputError):
        atomic_write_text(dest, "x\n", force=True)
    assert not (tmp_path / "nonexist").exists()
    # below the current directory they are created
    atomic_write_text(Path("results") / "run1" / "r.txt", "x\n")
    assert (outside / "results" / "run1" / "r.txt").read_text() == "x\n"


def test_check_outputs_refuses_duplicates_and_inputs_even_with_force(tmp_path):
    receipt = tmp_path / "receipt.json"
    receipt.write_text("{}\n")
    with pytest.raises(OutputError) as info:
        check_outputs({"--out": tmp_path / "r.json", "--junit": f"{tmp_path}/sub/../r.json"},
                      force=True)
    assert str(info.value) == f"--out and --junit name the same file ({tmp_path}/sub/../r.json)"
    with pytest.raises(OutputError) as info:
        check_outputs({"--junit": receipt}, inputs=[str(receipt)], force=True)
    assert str(info.value) == (f"--junit {receipt}: is also an input of this command; name "
                               "another file")
    link = tmp_path / "alias.json"
    link.symlink_to(receipt)
    with pytest.raises(OutputError, match="is also an input"):
        check_outputs({"--junit": receipt}, inputs=[link], force=True)
    got = check_outputs({"--out": str(tmp_path / "a.json"), "--junit": None}, force=False)
    assert got == {"--out": tmp_path / "a.json"}
    assert receipt.read_text() == "{}\n"


def test_write_outputs_writes_nothing_when_one_output_fails_while_staging(tmp_path):
    def broken(fh):
        fh.write("half")
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match="No space left on device"):
        write_outputs({tmp_path / "a.json": "a\n", tmp_path / "b.xml": broken,
                       tmp_path / "c.md": "c\n"}, force=False)
    assert list(tmp_path.iterdir()) == []
    # a refused destination is found before anything is staged
    (tmp_path / "c.md").write_text("old\n")
    with pytest.raises(OutputError, match="already exists"):
        write_outputs({tmp_path / "a.json": "a\n", tmp_path / "c.md": "c\n"}, force=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.md"]
    paths = write_outputs({tmp_path / "a.json": json_content({"b": [1]}),
                           tmp_path / "c.md": "c\n"}, force=True)
    assert paths == [tmp_path / "a.json", tmp_path / "c.md"]
    assert (tmp_path / "a.json").read_text() == '{\n  "b": [\n    1\n  ]\n}\n'
    assert (tmp_path / "c.md").read_text() == "c\n"
    with pytest.raises(OutputError, match="named twice"):
        write_outputs({tmp_path / "x": "1", f"{tmp_path}/./x": "2"}, force=True)
