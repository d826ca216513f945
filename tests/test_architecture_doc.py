"""docs/architecture.md stays true: every module, subpackage and package it names exists."""

from __future__ import annotations

import importlib.util
import re

from _helpers import REPO

DOC = REPO / "docs" / "architecture.md"


def _dotted_names(text: str) -> set[str]:
    names = set()
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)  # fenced blocks: no names
    for span in re.findall(r"`([^`\n]+)`", text):
        for m in re.finditer(r"\baau_(?:schemas|core|adapters|labs|baseline|review|evidence|navigator|"
                             r"harness)(?:\.\w+)*", span):
            names.add(m.group(0))
    return names


def _exists(dotted: str) -> bool:
    parts = dotted.split(".")
    # the longest prefix that is a module; the rest must be attributes of it
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            spec = importlib.util.find_spec(module)
        except ModuleNotFoundError:
            spec = None
        if spec is None:
            continue
        obj = importlib.import_module(module)
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_dotted_name_in_the_architecture_page_exists():
    names = _dotted_names(DOC.read_text(encoding="utf-8"))
    assert len(names) >= 20  # the page walks one evaluation through named modules
    missing = sorted(n for n in names if not _exists(n))
    assert not missing, f"docs/architecture.md names what does not exist: {missing}"


def test_every_subpackage_table_row_names_a_real_folder_or_module():
    text = DOC.read_text(encoding="utf-8")
    for package, section in (("aau_core", "## aau-core by concept"),
                             ("aau_labs", "## aau-labs by concept")):
        body = text.split(section, 1)[1].split("\n## ", 1)[0]
        src = REPO / "packages" / package.replace("_", "-") / "src" / package
        rows = re.findall(r"^\| `([^`]+)`", body, re.M)
        assert rows, section
        for row in rows:
            assert (src / row.rstrip("/")).exists(), f"{section}: {row} is not in {src}"
            # every bare `_module` the row's text names lives in that folder (or the package)
            line = next(line for line in body.splitlines() if line.startswith(f"| `{row}`"))
            cell = line.split("|")[2]
            folder = src / row.rstrip("/") if row.endswith("/") else src
            for name in re.findall(r"`(_[a-z][a-z0-9_]*)`", cell):
                assert ((folder / f"{name}.py").exists() or (folder / name).is_dir()
                        or (src / f"{name}.py").exists()), f"{section}: {row} names {name}"
        # and every subpackage of the source tree has its row
        folders = {p.name + "/" for p in src.iterdir()
                   if p.is_dir() and p.name.startswith("_") and p.name != "__pycache__"}
        assert folders <= set(rows), f"{section} lacks rows for {sorted(folders - set(rows))}"
