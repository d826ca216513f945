"""Every package's ``__init__`` keeps one export table, the single source of its public API.

The agreed format (issue 15): ``_EXPORTS: dict[str, tuple[str, ...]]`` maps each providing
module to its public names; ``__all__`` is derived from it (sorted); no name is listed twice;
every name resolves to the object of the module the table names. Packages are found on disk
(``packages/*/src/*/__init__.py``), so a new package is checked without editing this file.
"""

from __future__ import annotations

import importlib
from collections import Counter
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
PACKAGES = sorted(init.parent.name for init in REPO.glob("packages/*/src/*/__init__.py"))

#: Packages whose ``__init__`` is not yet in the agreed format (their owners convert them);
#: the lead empties this list. ``test_not_yet_converted_list_is_true`` keeps it honest.
NOT_YET_IN_FORMAT: set[str] = set()

#: Public names two packages export with different meanings (one must be renamed); the lead
#: empties this list.
KNOWN_CLASHES: set[str] = set()


def _in_format(package: str) -> bool:
    table = getattr(importlib.import_module(package), "_EXPORTS", None)
    return isinstance(table, dict) and all(
        isinstance(module, str) and isinstance(names, tuple)
        and all(isinstance(name, str) for name in names)
        for module, names in table.items())


def test_every_package_is_found():
    assert {"aau_core", "aau_schemas", "aau_harness", "aau_navigator", "aau_labs"} <= set(
        PACKAGES)


def test_not_yet_converted_list_is_true():
    """A package converted to the format must leave NOT_YET_IN_FORMAT (and be checked)."""
    assert NOT_YET_IN_FORMAT <= set(PACKAGES)
    assert sorted(p for p in NOT_YET_IN_FORMAT if _in_format(p)) == []


@pytest.mark.parametrize("package", PACKAGES)
def test_all_is_the_table(package):
    if package in NOT_YET_IN_FORMAT:
        pytest.skip(f"{package}'s __init__ is not yet in the agreed format (NOT_YET_IN_FORMAT)")
    module = importlib.import_module(package)
    assert _in_format(package), f"{package}._EXPORTS is not {{module: (name, ...)}}"
    names = [name for names in module._EXPORTS.values() for name in names]
    assert [n for n, count in Counter(names).items() if count > 1] == [], "listed twice"
    assert module.__all__ == sorted(names)


@pytest.mark.parametrize("package", PACKAGES)
def test_every_name_resolves_to_the_module_the_table_names(package):
    if package in NOT_YET_IN_FORMAT:
        pytest.skip(f"{package}'s __init__ is not yet in the agreed format (NOT_YET_IN_FORMAT)")
    module = importlib.import_module(package)
    for provider, names in module._EXPORTS.items():
        source = importlib.import_module(provider, package)
        for name in names:
            assert getattr(module, name) is getattr(source, name), f"{package}.{name}"
            assert name in dir(module)


def test_a_public_name_means_one_thing_across_packages():
    """Two packages may export the same name only for the same (or an equal) object."""
    seen: dict[str, tuple[str, object]] = {}
    clashes = set()
    for package in PACKAGES:
        module = importlib.import_module(package)
        for name in module.__all__:
            value = getattr(module, name)
            if name in seen:
                other = seen[name][1]
                if value is not other and not (_is_data(value) and value == other):
                    clashes.add(name)
            else:
                seen[name] = (package, value)
    assert "canonical_json" not in clashes and "check_report" not in clashes
    assert clashes == KNOWN_CLASHES


def _is_data(value: object) -> bool:
    return isinstance(value, (str, int, float, tuple, frozenset))
