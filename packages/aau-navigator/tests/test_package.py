"""The package skeleton: lazy exports, the `aau` plugins and 1.6's compatibility scripts."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points
from pathlib import Path

import aau_navigator

PLUGINS = {
    "list": "aau_navigator._cli_catalog:list_command",
    "find": "aau_navigator._cli_catalog:find_command",
    "show": "aau_navigator._cli_catalog:show_command",
    "start": "aau_navigator._cli_catalog:start_command",
    "challenge": "aau_navigator._cli_challenge:challenge_group",
    "gallery": "aau_navigator._cli_gallery:gallery_group",
    "init": "aau_navigator._cli_starter:init_command",
    "doctor": "aau_navigator._cli_starter:doctor_command",
    "forge": "aau_navigator._cli_forge:forge_command",
    "new-use-case": "aau_navigator._cli_forge:new_use_case_command",
}


def test_lazy_exports_resolve() -> None:
    assert aau_navigator.__all__ == sorted(
        name for names in aau_navigator._EXPORTS.values() for name in names)
    assert len(aau_navigator.__all__) == 46  # 39 + DoctorReportDocument + aau examples (copy_examples, bundled_examples, examples_source) + challenge_root, validate_challenge, write_receipt
    for name in aau_navigator.__all__:
        assert name in dir(aau_navigator)
        assert getattr(aau_navigator, name) is not None


def test_plugins_registered_with_aau() -> None:
    found = {ep.name: ep.value for ep in entry_points(group="aau.commands")}
    for name, target in PLUGINS.items():
        assert found.get(name) == target, name


def test_compatibility_scripts_installed() -> None:
    scripts = {ep.name: ep.value for ep in entry_points(group="console_scripts")}
    for name in ("aau-challenge", "aau-gallery", "aau-forge", "aau-new-use-case"):
        assert scripts[name].startswith("aau_navigator._aliases:"), name
        assert (Path(sys.executable).parent / name).exists(), name
