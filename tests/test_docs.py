"""The README's promises and the generated docs stay true."""

from __future__ import annotations

import re
import subprocess
import sys

from _helpers import REPO


def _quick_start_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S)
    assert block, "the quick start has a bash block"
    return [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()
            if line.split("#", 1)[0].strip()]


def test_quick_start_is_exactly_two_commands_the_makefile_has():
    commands = _quick_start_commands()
    assert commands == ["make demo", "make test"]
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    for target in ("demo", "test"):
        assert re.search(rf"^{target}:", makefile, re.M)


def test_ci_runs_the_readme_test_command():
    ci = (REPO / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_schema_reference_is_up_to_date():
    done = subprocess.run([sys.executable, str(REPO / "tools" / "gen_schema_docs.py"), "--check"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_readme_and_docs_links_resolve():
    for doc in [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]:
        for target in re.findall(r"\]\(([^)#]+)\)", doc.read_text(encoding="utf-8")):
            if target.startswith(("http://", "https://")):
                continue
            assert (doc.parent / target).exists(), f"{doc.name}: broken link {target}"
