"""Fixtures shared by aau-navigator's tests."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _nav_root import build_root  # noqa: E402


@pytest.fixture(scope="session")
def _nav_root_template(tmp_path_factory) -> Path:
    return build_root(tmp_path_factory.mktemp("nav-root-template") / "root")


@pytest.fixture
def nav_root(_nav_root_template: Path, tmp_path: Path) -> Path:
    """A fresh copy of the challenge/gallery root of ``_nav_root`` (tests may change it)."""
    return Path(shutil.copytree(_nav_root_template, tmp_path / "root", symlinks=True))
