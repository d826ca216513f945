"""aau trace import refuses harness entries of the wrong type instead of ignoring them."""

from __future__ import annotations

import pytest
from aau_core import InputError
from aau_core._traces._harness_import import HARNESS_FILES, import_harness_dir


@pytest.mark.parametrize("name", HARNESS_FILES)
def test_a_harness_file_that_is_a_folder_is_refused(tmp_path, name):
    (tmp_path / name).mkdir()
    (tmp_path / "workspace").mkdir()
    with pytest.raises(InputError) as info:
        import_harness_dir(tmp_path)
    assert str(info.value) == (f"{tmp_path / name}: a folder, not a file (the harness writes "
                               f"{name} as a file)")


def test_a_workspace_that_is_a_file_is_refused(tmp_path):
    (tmp_path / "workspace").write_text("x", encoding="utf-8")
    with pytest.raises(InputError) as info:
        import_harness_dir(tmp_path)
    assert str(info.value).startswith(f"{tmp_path / 'workspace'}: a file, not a folder")


def test_a_missing_folder_is_an_input_error(tmp_path):
    with pytest.raises(InputError, match="not a folder"):
        import_harness_dir(tmp_path / "nope")
