"""Render a starter project's files from the template files in ``templates/starter/``.

Every generated text comes from a package-data template rendered with ``string.Template``
(``${placeholder}``; ``$$`` is a literal ``$``), never from Python f-strings, so a template is
plain text that can be read, diffed and tested (aau-harness 1.6 built them as f-strings, and one
stray ``"\\n"`` made its HTTP adapter a SyntaxError). Values that land in Python source are
rendered as Python literals (``pprint.pformat``), never pasted as text.

``render_starter(config)`` returns all eleven files: the ten of ``GENERATED_FILES`` and the
manifest ``aau-starter.json``, whose ``generated_file_sha256`` holds the SHA-256 of the UTF-8
text of each of the ten (computed with aau-core's shared ``build_manifest``). The first receipt
is made by running the mock adapter over the suite through aau-adapters, as
``aau evaluate suite.json --mock`` would.
"""

from __future__ import annotations

import html
import pprint
from functools import cache
from importlib.resources import files
from string import Template
from typing import Any

from aau_core import build_manifest, render_json

from ._starter import (
    GENERATED_FILES,
    MANIFEST_NAME,
    STARTER_BOUNDARY,
    STARTER_VERSION,
    STATUS,
    StarterConfig,
    build_suite,
    install_spec,
)


@cache
def _template(name: str) -> Template:
    text = files("aau_navigator").joinpath(f"templates/starter/{name}").read_text("utf-8")
    return Template(text)


def render_template(template: str, /, **values: str) -> str:
    """Render the package-data template ``templates/starter/<template>`` with ``values``.

    Raises:
        KeyError: the template uses a placeholder not in ``values`` (a bug in the caller).
        ValueError: the template holds a malformed ``$`` placeholder.
    """
    return _template(template).substitute(values)


def _py_literal(value: Any) -> str:
    return pprint.pformat(value, width=88, sort_dicts=False)


def first_receipt(suite: dict[str, Any]) -> dict[str, Any]:
    """The receipt of a mock evaluation of ``suite`` (``aau-byo-agent-receipt/2.0``).

    Runs aau-adapters' ``evaluate`` with its ``MockAdapter`` (which answers each case with its
    expected outcome) and builds the v2 receipt, validated against ``receipt-v2``.

    Raises:
        aau_core.InputError: the suite is invalid (a bug in the template).
        aau_schemas.SchemaError: the receipt is invalid (a bug in aau-adapters).
    """
    import aau_schemas
    from aau_adapters import MockAdapter, build_receipt_v2, evaluate, suite_from_document

    loaded = suite_from_document(suite, source="suite.json")
    adapter = MockAdapter()
    try:
        run = evaluate(loaded, adapter)
    finally:
        adapter.close()
    receipt = build_receipt_v2(run)
    aau_schemas.validate("receipt-v2", receipt, source="first receipt (internal check)")
    return receipt


def fingerprints(texts: dict[str, str]) -> dict[str, str]:
    """``{path: sha256 hex of the UTF-8 text}`` for each generated file (via aau-core's shared
    ``build_manifest``, whose rows carry the same digest)."""
    rows = build_manifest({p: t.encode("utf-8") for p, t in texts.items()},
                          version=STARTER_VERSION)["files"]
    return {row["path"]: row["sha256"] for row in rows}


def build_starter_manifest(config: StarterConfig, texts: dict[str, str]) -> dict[str, Any]:
    """The ``aau-starter.json`` document (kind ``starter-manifest``) for the generated ``texts``
    (path -> text of exactly the ten ``GENERATED_FILES``)."""
    return {
        "starter_version": STARTER_VERSION,
        "name": config.name,
        "title": config.title,
        "template_id": config.template_id,
        "primary_adapter": config.adapter,
        "package_version": config.version,
        "status": STATUS,
        "human_authority": {
            "accountable_role": config.human_role,
            "protected_action": config.protected_action,
        },
        "generated_file_sha256": fingerprints(texts),
        "boundary": STARTER_BOUNDARY,
    }


def render_starter(config: StarterConfig) -> dict[str, str]:
    """All eleven files of a starter project: project-relative POSIX path -> UTF-8 text.

    Returns:
        the ten ``GENERATED_FILES`` and ``aau-starter.json``.

    Raises:
        aau_schemas.SchemaError: the suite, receipt or manifest is not valid against its schema
            (a bug in the templates).
    """
    import aau_schemas

    suite = build_suite(config)
    aau_schemas.validate("suite", suite, source="suite.json (internal check)")
    spec = install_spec(config.version)
    xml = {"title": html.escape(config.title), "human_role": html.escape(config.human_role)}
    texts = {
        ".github/workflows/aau-evaluation.yml": render_template(
            "aau-evaluation.yml.tmpl", package_spec=spec,
            evaluate_step=render_template(f"ci-evaluate-{config.adapter}.yml.tmpl").rstrip("\n")),
        ".gitignore": render_template("gitignore.tmpl"),
        "README.md": render_template(
            "README.md.tmpl", title=config.title, summary=config.summary, mission=config.mission,
            human_role=config.human_role, protected_action=config.protected_action,
            package_spec=spec,
            primary_commands=render_template(f"readme-{config.adapter}.md.tmpl").rstrip("\n")),
        "RECEIPT_POLICY.md": render_template(
            "RECEIPT_POLICY.md.tmpl", human_role=config.human_role,
            protected_action=config.protected_action),
        "adapter_command.py": render_template(
            "adapter_command.py.tmpl", name=config.name, outcomes=_py_literal(config.outcomes),
            rules=_py_literal(config.rules),
            default_slot=_py_literal(config.default_outcome_slot)),
        "adapter_endpoint.py": render_template("adapter_endpoint.py.tmpl", name=config.name),
        "artifacts/first-receipt.json": render_json(first_receipt(suite)),
        "assets/evidence-flow.svg": render_template("evidence-flow.svg.tmpl", **xml),
        "suite.json": render_json(suite),
        "tests/test_adapter.py": render_template("test_adapter.py.tmpl", name=config.name),
    }
    assert tuple(sorted(texts)) == GENERATED_FILES
    manifest = build_starter_manifest(config, texts)
    aau_schemas.validate("starter-manifest", manifest, source=f"{MANIFEST_NAME} (internal check)")
    return {MANIFEST_NAME: render_json(manifest), **texts}
