"""``aau examples``: the aau repository's ``examples/`` folder, shipped with aau-navigator.

Every example that ``aau --help``, a command's ``--help``, ``aau start`` and the bundled
catalog show names files under ``examples/`` (the suites, the command agents, the labs and
their scenarios, the traces, the real receipts). A pip install has no checkout, so the wheel
carries a copy of that folder (``aau_navigator/examples``, put there by ``hatch_build.py``,
less what ``EXCLUDED`` names) and ``copy_examples`` writes it into the current folder as
``examples/``: after ``aau examples`` the help's commands run verbatim from any folder.

An editable install ships nothing: the files are read from the repository's ``examples/``,
less the same ``EXCLUDED`` patterns, so both installs write the same folder.
"""

from __future__ import annotations

import fnmatch
import os
from pathlib import Path

EXCLUDED = ("labs/*.mock-result/*", "*/__pycache__/*", "*.pyc")
"""POSIX patterns (``fnmatch``, relative to ``examples/``) of what is not shipped: the labs'
recorded mock results (~3 MB of reference output that ``aau lab run --mock`` writes again) and
byte code. ``hatch_build.py`` reads this tuple from this file's source."""

DEFAULT_FOLDER = "examples"
"""Where ``aau examples`` writes by default: the folder name the help's commands use."""


def examples_source() -> Path:
    """The folder the examples are copied from.

    Returns:
        the packaged copy (``site-packages/aau_navigator/examples``) when present, else the
        repository's ``examples/`` folder (an editable install).

    Raises:
        FileNotFoundError: neither exists (a broken install).
    """
    packaged = Path(__file__).resolve().parent / "examples"
    if (packaged / "README.md").is_file():
        return packaged
    checkout = Path(__file__).resolve().parents[4] / "examples"
    if (checkout / "README.md").is_file():
        return checkout
    raise FileNotFoundError(f"aau's examples not found in {packaged} or {checkout}; "
                            "reinstall aau-navigator")


def bundled_examples() -> dict[str, bytes]:
    """Every shipped example file: POSIX path relative to ``examples/`` -> its bytes, sorted."""
    source = examples_source()
    files: dict[str, bytes] = {}
    for path in sorted(source.rglob("*")):
        relative = path.relative_to(source).as_posix()
        if path.is_file() and not any(fnmatch.fnmatch(relative, p) for p in EXCLUDED):
            files[relative] = path.read_bytes()
    return files


def _holds(folder: Path, files: dict[str, bytes]) -> bool:
    try:
        return all((folder / name).read_bytes() == data for name, data in files.items())
    except OSError:
        return False


def copy_examples(destination: str | os.PathLike[str] = DEFAULT_FOLDER, *,
                  force: bool = False) -> tuple[Path, int, bool]:
    """Write the bundled examples as the folder ``destination`` (all or nothing).

    Args:
        destination: the folder to create (default ``examples``, the name the help's commands
            use).
        force: replace a ``destination`` that exists and differs.

    Returns:
        ``(folder, file count, written)``; ``written`` is False when ``destination`` already
        held every bundled file byte for byte (nothing is changed then, so running the setup
        of two helps in one folder is harmless).

    Raises:
        aau_core.OutputError: ``destination`` exists and differs (without ``force``), is not a
            folder, or cannot be written.
        FileNotFoundError: a broken install (``examples_source``).
    """
    from aau_core import OutputError, write_folder

    files = bundled_examples()
    folder = Path(destination)
    if folder.exists() or folder.is_symlink():
        if folder.is_dir() and _holds(folder, files):
            return folder, len(files), False
        if not force:
            raise OutputError(f"{folder}: exists and is not aau's examples; pass --force to "
                              "replace it, or --out to write elsewhere")
        if not folder.is_dir() or folder.is_symlink():
            raise OutputError(f"{folder}: not a folder; not replaced")
    executable = [name for name in files if name.endswith((".sh", ".py"))
                  and os.access(examples_source() / name, os.X_OK)]
    write_folder(folder, files, executable=executable, replace=force)
    return folder, len(files), True
