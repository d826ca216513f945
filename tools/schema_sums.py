"""Released schema files are immutable: record and check their SHA-256 in ``schemas/SHA256SUMS``.

    python tools/schema_sums.py --check   # CI: exit 1 when a released schema changed or vanished
    python tools/schema_sums.py --add     # record schema files not listed yet (never rewrites one)

``SHA256SUMS`` has the format of GNU ``sha256sum`` (``<64 hex>  <path below schemas/>``, one line
per file, sorted by path), so ``cd schemas && sha256sum -c SHA256SUMS`` checks it too, in any
language. A schema file (``*.schema.json``) is *released* once it is listed; a file not listed yet
is a draft, reported by ``--check`` but not an error. The policy is in ``schemas/README.md``
("Versioning policy"); the released schema sets are in ``schemas/CHANGELOG.md``.

Exit status: 0 all well, 1 a released file changed, is missing or a line is malformed, 2 usage.
"""

from __future__ import annotations

import argparse
import hashlib
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCHEMAS = ROOT / "schemas"
SUMS_NAME = "SHA256SUMS"
_LINE = re.compile(r"([0-9a-f]{64})  ([^\n]+)")
_VERSION_FOLDER = re.compile(r"v([1-9][0-9]*)(?:\.([1-9][0-9]*))?")


def schema_files(schemas: Path) -> list[str]:
    """Every ``*.schema.json`` below ``schemas``, as sorted POSIX paths relative to it."""
    return sorted(p.relative_to(schemas).as_posix() for p in schemas.rglob("*.schema.json")
                  if p.is_file())


def file_sha256(path: Path) -> str:
    """Lowercase hex SHA-256 of the file's exact bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_sums(sums: Path) -> tuple[dict[str, str], list[str]]:
    """Parse a ``SHA256SUMS`` file.

    Returns:
        ``({path: hex}, problems)``; a missing file is an empty listing. Problems are malformed
        lines and paths listed twice, each as ``SHA256SUMS:<line>: message``.
    """
    listed: dict[str, str] = {}
    problems: list[str] = []
    if not sums.exists():
        return listed, problems
    for number, line in enumerate(sums.read_text(encoding="utf-8").splitlines(), 1):
        match = _LINE.fullmatch(line)
        if match is None:
            problems.append(f"{SUMS_NAME}:{number}: not '<64 lowercase hex>  <path>'")
            continue
        digest, path = match.groups()
        if path in listed:
            problems.append(f"{SUMS_NAME}:{number}: {path} listed twice")
        listed[path] = digest
    return listed, problems


def render_sums(listed: dict[str, str]) -> str:
    """The file text for ``{path: hex}``: one ``sha256sum`` line per path, sorted by path."""
    return "".join(f"{listed[path]}  {path}\n" for path in sorted(listed))


def layout_problems(schemas: Path) -> list[str]:
    """Version folders: a schema file lives in ``<family>/vN/`` (major) or ``<family>/vN.M/``
    (minor, which needs its ``vN/`` sibling); ``schemas/README.md``, Versioning policy."""
    problems = []
    for path in schema_files(schemas):
        parts = path.split("/")
        match = _VERSION_FOLDER.fullmatch(parts[1]) if len(parts) == 3 else None
        if match is None:
            problems.append(f"schemas/{path}: not in a <family>/vN/ or <family>/vN.M/ folder")
        elif match.group(2) and not (schemas / parts[0] / f"v{match.group(1)}").is_dir():
            problems.append(f"schemas/{path}: minor folder {parts[1]}/ without its major "
                            f"folder v{match.group(1)}/")
    return problems


def check(schemas: Path) -> tuple[list[str], list[str]]:
    """Compare the released files with ``schemas/SHA256SUMS``.

    Returns:
        ``(problems, drafts)``: problems (``schemas/<path>: ...`` lines) make CI fail: a listed
        file whose bytes changed or that no longer exists, a malformed line, no listing at all,
        or a schema file outside a ``vN/``/``vN.M/`` folder; drafts are schema files not listed
        yet.
    """
    sums = schemas / SUMS_NAME
    if not sums.exists():
        return [f"schemas/{SUMS_NAME}: missing (run python tools/schema_sums.py --add)"], []
    listed, problems = read_sums(sums)
    for path, digest in sorted(listed.items()):
        target = schemas / path
        if not target.is_file():
            problems.append(f"schemas/{path}: released schema is missing (released files stay; "
                            "a breaking change adds a new vN/ folder)")
        elif file_sha256(target) != digest:
            problems.append(f"schemas/{path}: released schema changed (SHA-256 {digest[:12]}... "
                            "expected); released files are immutable: put the change in a new "
                            "file (schemas/README.md, Versioning policy)")
    drafts = [path for path in schema_files(schemas) if path not in listed]
    return problems + layout_problems(schemas), drafts


def add(schemas: Path) -> tuple[list[str], list[str]]:
    """List the schema files not in ``SHA256SUMS`` yet; never rewrite a listed hash.

    Returns:
        ``(added, problems)``: nothing is written when ``problems`` (as ``check``'s, without
        drafts) is not empty, so a changed released file cannot be re-recorded by accident.
    """
    from aau_core import atomic_write_text

    if (schemas / SUMS_NAME).exists():
        problems, drafts = check(schemas)
    else:
        problems, drafts = [], schema_files(schemas)
    if problems or not drafts:
        return [], problems
    listed, _ = read_sums(schemas / SUMS_NAME)
    for path in drafts:
        listed[path] = file_sha256(schemas / path)
    atomic_write_text(schemas / SUMS_NAME, render_sums(listed), force=True)
    return drafts, []


def main(argv: list[str] | None = None) -> int:
    """Command line: ``--check`` or ``--add``, optionally ``--schemas DIR``; see the module doc."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--check", action="store_true", help="fail when a released schema changed")
    mode.add_argument("--add", action="store_true", help="record schema files not listed yet")
    parser.add_argument("--schemas", type=Path, default=SCHEMAS,
                        help="the schemas folder (default: the repository's)")
    args = parser.parse_args(argv)
    if not args.schemas.is_dir():
        print(f"{args.schemas}: not a folder", file=sys.stderr)
        return 2
    if args.check:
        problems, drafts = check(args.schemas)
        for path in drafts:
            print(f"schemas/{path}: draft (not released yet; --add records it)", file=sys.stderr)
        for line in problems:
            print(line, file=sys.stderr)
        return 1 if problems else 0
    added, problems = add(args.schemas)
    for line in problems:
        print(line, file=sys.stderr)
    for path in added:
        print(f"added schemas/{path}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
