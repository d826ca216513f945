"""aau_core's public API: one export table, and the docstring and TYPE_CHECKING lists kept equal to it."""

from __future__ import annotations

import ast
import importlib
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import aau_core
import pytest

INIT = Path(aau_core.__file__)
# issue 15 capped it at 120; issue 16 added NotMeasuredError and its exit code; issue 17 added
# json_on_not_measured, the one --json summary every command that can exit 3 prints; issue 19
# added the observed-environment contract (7 types) and its registry (3 functions), which every
# package that serves or provides an environment imports from here; issue 20 added Attack, the
# prompt injection an environment's optional check_attack / open_under_attack receive
MAX_PUBLIC_NAMES = 134


def _table_pairs() -> list[tuple[str, str]]:
    return [(module, name) for module, names in aau_core._EXPORTS.items() for name in names]


def _docstring_names() -> list[str]:
    """Names of the docstring's ``Public API::`` block: each line is ``group: a, b, ...`` or a
    continuation ``c, d``; the group label (up to its colon) is not a name."""
    doc = aau_core.__doc__ or ""
    block = doc.split("Public API::", 1)[1].split("\n\n", 2)[1]
    names: list[str] = []
    for line in block.splitlines():
        line = re.sub(r"^\s*[a-z ]+:", "", line)
        names += [word for word in re.split(r"[,\s]+", line) if word]
    return names


def _type_checking_pairs() -> list[tuple[str, str]]:
    """``(module, name)`` of every import inside ``if TYPE_CHECKING:`` in ``__init__.py``."""
    tree = ast.parse(INIT.read_text(encoding="utf-8"))
    blocks = [node for node in tree.body if isinstance(node, ast.If)
              and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"]
    assert len(blocks) == 1
    pairs = []
    for node in blocks[0].body:
        assert isinstance(node, ast.ImportFrom) and node.level == 1, ast.dump(node)
        for alias in node.names:
            assert alias.asname is None, alias.name
            pairs.append((f".{node.module}", alias.name))
    return pairs


def test_the_table_is_the_one_list_and_names_each_name_once():
    names = [name for _, name in _table_pairs()]
    assert [n for n, count in Counter(names).items() if count > 1] == []
    assert aau_core.__all__ == sorted(names)
    assert len(aau_core.__all__) <= MAX_PUBLIC_NAMES


def test_the_docstring_lists_exactly_the_table():
    listed = _docstring_names()
    assert [n for n, count in Counter(listed).items() if count > 1] == []
    table = {name for _, name in _table_pairs()}
    assert sorted(set(listed) - table) == [], "in the docstring, not in _EXPORTS"
    assert sorted(table - set(listed)) == [], "in _EXPORTS, not in the docstring"


def test_type_checking_imports_are_exactly_the_table():
    checked = _type_checking_pairs()
    assert [p for p, count in Counter(checked).items() if count > 1] == []
    assert sorted(set(checked) - set(_table_pairs())) == [], "imported for type checkers only"
    assert sorted(set(_table_pairs()) - set(checked)) == [], "missing for type checkers"


def test_the_drift_checks_fail_on_drift(monkeypatch):
    """The three lists are compared by the tests above; a name added to one only is caught."""
    monkeypatch.setitem(aau_core._EXPORTS, "._errors", (*aau_core._EXPORTS["._errors"], "Extra"))
    with pytest.raises(AssertionError):
        test_the_docstring_lists_exactly_the_table()
    with pytest.raises(AssertionError):
        test_type_checking_imports_are_exactly_the_table()


def test_every_name_resolves_to_its_module():
    for module, name in _table_pairs():
        assert getattr(aau_core, name) is getattr(importlib.import_module(module, "aau_core"),
                                                  name), name
    assert "no_such_name" not in dir(aau_core)
    with pytest.raises(AttributeError):
        aau_core.no_such_name  # noqa: B018


@pytest.mark.parametrize("name", ["lazy_exports", "binding_sha256", "turn_limit_error",
                                  "canonical_json", "PluginGroup", "check_writable"])
def test_internals_are_not_public(name):
    assert name not in aau_core.__all__
    with pytest.raises(AttributeError):
        getattr(aau_core, name)


def test_checkpoint_json_is_not_the_rfc8785_form():
    """aau_core.checkpoint_json (str, json.dumps sort_keys) and aau_schemas.canonical_json
    (RFC 8785 bytes) differ, here on a float that RFC 8785 writes in its shortest form."""
    import aau_schemas

    value = {"b": 1.0, "a": "é"}
    assert aau_core.checkpoint_json(value) == '{"a":"é","b":1.0}'
    assert aau_schemas.canonical_json(value) == '{"a":"é","b":1}'.encode()


def test_import_loads_no_public_module():
    """``import aau_core`` stays cheap: no module behind the table is imported until used."""
    code = ("import sys, aau_core; "
            "print(sorted(m for m in sys.modules if m.startswith('aau_core.')))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, check=True)
    assert done.stdout.strip() == "['aau_core._lazy']"
