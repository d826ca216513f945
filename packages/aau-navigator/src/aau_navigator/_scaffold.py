"""Scaffold a lab package (``aau new-use-case``): names, template rendering, atomic writing.

A generated lab is a pip-installable package below ``<root>/<industry slug>/<name slug>/``::

    pyproject.toml  README.md  FAILURE_MODES.md
    src/<pkg>/__init__.py  world.py  tools.py  agent.py  evaluate.py  cli.py
    tests/test_<pkg>.py
    evals/.gitkeep  results/.gitkeep

``<pkg>`` is the name slug with ``-`` -> ``_``; the console script is the name slug. Its world is
a generic placeholder (a request desk with a misleading archetype and a mock with a blind
spot) built on aau-core's ``run_eval``, ``run_tool_agent`` and ``make_backend``; ``aau forge``
uses the same machinery and may specialise the lab to a contract family (``_forge``).

Every file is rendered from a package-data template under ``templates/scaffold/`` or
``templates/forge/`` with ``string.Template`` (``${name}``; ``$$`` is a literal ``$``), never
from Python f-strings; values that land in Python source are Python literals (``repr``), in
TOML basic strings (JSON string syntax), in Markdown escaped (``markdown_text``). The lab
directory is written into a hidden temporary sibling first and renamed into place, so it
appears whole or not at all.
"""

from __future__ import annotations

import html
import json
import keyword
import os
import re
from collections.abc import Mapping
from functools import cache
from importlib.resources import files
from pathlib import Path
from string import Template

import attrs
from aau_core import OutputError, UsageError, check_parent, write_folder

_NOT_SLUG = re.compile(r"[^a-z0-9]+")
MAX_SLUG = 60
"""Longest name or industry slug, in characters."""


def slugify(text: str) -> str:
    """``text`` lower-cased, each run of characters other than ``a-z0-9`` -> ``-``, trimmed of
    ``-``: ``"Prior Auth / Triage"`` -> ``"prior-auth-triage"``."""
    return _NOT_SLUG.sub("-", text.lower()).strip("-")


def markdown_text(text: str) -> str:
    """``text`` safe inside a Markdown table cell or line: whitespace collapsed, HTML
    special characters escaped, ``|`` as ``&#124;``."""
    return html.escape(" ".join(text.split())).replace("|", "&#124;")


@attrs.frozen
class LabNames:
    """The names of one generated lab.

    Attributes:
        slug: the name slug: distribution name, console script and folder name.
        pkg: the import package, ``slug`` with ``-`` -> ``_``.
        industry: the industry slug (the parent folder).
        title: the human title (``--title``, else the slug in title case).
    """

    slug: str
    pkg: str
    industry: str
    title: str

    @property
    def rel_path(self) -> str:
        """``"<industry>/<slug>"``, the lab's path below the output root."""
        return f"{self.industry}/{self.slug}"


def lab_names(industry: str, name: str, title: str | None = None) -> LabNames:
    """Check and derive a lab's names.

    Raises:
        UsageError: the name or industry has no letter or digit, is longer than ``MAX_SLUG``
            as a slug, the name slug does not start with a letter (it must give an importable
            package), or the package name is a Python keyword; or the title is blank.
    """
    slug, ind = slugify(name), slugify(industry)
    for flag, value in (("--name", slug), ("--industry", ind)):
        if not value:
            raise UsageError(f"{flag} must contain at least one letter or digit")
        if len(value) > MAX_SLUG:
            raise UsageError(f"{flag} gives the slug {value!r}, longer than {MAX_SLUG} characters")
    pkg = slug.replace("-", "_")
    if not slug[0].isalpha() or keyword.iskeyword(pkg):
        raise UsageError(f"--name {name!r} gives the package name {pkg!r}, which Python cannot "
                         "import; start the name with a letter")
    if title is not None and not title.strip():
        raise UsageError("--title must not be blank")
    nice = " ".join(title.split()) if title else slug.replace("-", " ").title()
    return LabNames(slug=slug, pkg=pkg, industry=ind, title=nice)


@cache
def _template(name: str) -> Template:
    return Template(template_text(name))


def render_template(name: str, values: Mapping[str, object]) -> str:
    """Render package-data template ``templates/<name>`` (``string.Template.substitute``).

    Raises:
        KeyError: the template names a placeholder missing from ``values`` (a bug).
    """
    return _template(name).substitute({k: str(v) for k, v in values.items()})


def template_text(name: str) -> str:
    """The raw text of package-data file ``templates/<name>`` (no substitution)."""
    return files("aau_navigator").joinpath(f"templates/{name}").read_text("utf-8")


def base_values(names: LabNames, seed: int) -> dict[str, object]:
    """The placeholders every lab template may use (module docstring for the escaping)."""
    return {
        "slug": names.slug,
        "pkg": names.pkg,
        "cli": names.slug,
        "industry": names.industry,
        "seed": seed,
        "title_py": repr(names.title),
        "title_md": markdown_text(names.title),
        "description_toml": json.dumps(f"{names.title}: a seeded, mock-runnable agent lab."),
    }


LAB_SOURCES = ("world", "tools", "agent", "evaluate", "cli")
"""The lab modules rendered from ``templates/<flavour>/<module>.py.tmpl``."""


def package_files(names: LabNames, values: Mapping[str, object], flavour: str) -> dict[str, str]:
    """A lab package's files without its README: relative path -> text.

    ``pyproject.toml`` and ``__init__.py`` come from ``templates/scaffold/``; the five
    ``LAB_SOURCES``, ``FAILURE_MODES.md`` and the test module from ``templates/<flavour>/``
    (``"scaffold"`` or ``"forge"``); ``evals/`` and ``results/`` hold a ``.gitkeep``.
    """
    src = f"src/{names.pkg}"
    out = {
        "pyproject.toml": render_template("scaffold/pyproject.toml.tmpl", values),
        "FAILURE_MODES.md": render_template(f"{flavour}/FAILURE_MODES.md.tmpl", values),
        f"{src}/__init__.py": render_template("scaffold/__init__.py.tmpl", values),
        f"tests/test_{names.pkg}.py": render_template(f"{flavour}/test_lab.py.tmpl", values),
        "evals/.gitkeep": "",
        "results/.gitkeep": "",
    }
    for module in LAB_SOURCES:
        out[f"{src}/{module}.py"] = render_template(f"{flavour}/{module}.py.tmpl", values)
    return out


def scaffold_files(names: LabNames, seed: int) -> dict[str, str]:
    """The generic lab's files: relative path -> text (module docstring for the layout)."""
    values = base_values(names, seed)
    return {**package_files(names, values, "scaffold"),
            "README.md": render_template("scaffold/README.md.tmpl", values)}


def check_destination(dest: Path) -> None:
    """Refuse an existing destination (``aau`` never overwrites a lab) and a missing parent
    folder outside the current directory and the temp folder (``aau_core.check_parent``).

    Raises:
        OutputError: ``dest`` exists (a file, folder, device, pipe or link), or a missing
            parent folder may not be created.
    """
    if os.path.lexists(dest):
        raise OutputError(f"{dest}: already exists; choose another --name or --root")
    check_parent(dest)


def write_lab(dest: Path, contents: Mapping[str, str]) -> Path:
    """Write ``contents`` (relative path -> text) as the new folder ``dest``, all or nothing.

    ``aau_core.write_folder`` stages the files beside ``dest`` (its missing parents are created
    only below the current directory or the temp folder), fsyncs them, takes the modes from the
    umask and renames the folder to ``dest``; on any error nothing is left behind.

    Raises:
        OutputError: ``dest`` exists, a parent folder may not be created, or a file cannot
            be written.
    """
    check_destination(dest)
    return write_folder(dest, contents, check=lambda _stage: check_destination(dest))


def new_use_case(industry: str, name: str, seed: int, root: str | os.PathLike[str] = ".",
                 title: str | None = None) -> Path:
    """Generate the generic lab ``<root>/<industry slug>/<name slug>`` (``aau new-use-case``).

    Args:
        industry: the industry (slugified for the folder).
        name: the lab name (slugified: distribution, console script, package with ``_``).
        seed: the scenario seed (>= 0) written into the lab as its default.
        root: the output root.
        title: the README title (default: the name in title case).

    Returns:
        the lab folder.

    Raises:
        UsageError: bad names or a negative seed (``lab_names``).
        OutputError: the folder exists or cannot be written.
    """
    if seed < 0:
        raise UsageError("--seed must be zero or greater")
    names = lab_names(industry, name, title)
    dest = Path(root) / names.industry / names.slug
    return write_lab(dest, scaffold_files(names, seed))
