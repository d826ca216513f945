"""Hatchling build hook that ships the repository's ``schemas/`` tree inside the wheel.

A plain ``force-include`` of ``../../schemas`` breaks the sdist-to-wheel path (the relative path
does not exist inside an unpacked sdist), so the hook looks in both places.
"""

from __future__ import annotations

from pathlib import Path

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class SchemasBuildHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict) -> None:
        root = Path(self.root)
        in_repo = (root / ".." / ".." / "schemas").resolve()
        in_sdist = root / "schemas"
        src = in_repo if (in_repo / "index.json").is_file() else in_sdist
        if not (src / "index.json").is_file():
            raise FileNotFoundError(f"aau schemas not found at {in_repo} or {in_sdist}")
        if self.target_name == "sdist":
            build_data["force_include"][str(src)] = "schemas"
        elif self.target_name == "wheel" and version != "editable":
            build_data["force_include"][str(src)] = "aau_schemas/schemas"
