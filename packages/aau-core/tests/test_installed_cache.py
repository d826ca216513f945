"""The ``aau`` group's entry-point cache (issue 17, row c): used while nothing installed changes,
rebuilt when a distribution is added or edited, and never in the way when it cannot be used."""

from __future__ import annotations

import json
import os
from importlib.metadata import entry_points

import pytest
from aau_core import _installed as cache
from aau_core._cli._group import ENTRY_POINT_GROUP, HELP_ENTRY_POINT_GROUP

GROUPS = (ENTRY_POINT_GROUP, HELP_ENTRY_POINT_GROUP)


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    folder = tmp_path / "cache"
    monkeypatch.setenv("AAU_CACHE_DIR", str(folder))
    cache._fingerprint_of.cache_clear()
    yield folder
    cache._fingerprint_of.cache_clear()


def _changed():
    """What is installed changed: a new process would fingerprint again."""
    cache._fingerprint_of.cache_clear()


def _names(found):
    return {group: [(ep.name, ep.value) for ep in eps] for group, eps in found.items()}


def test_cached_list_equals_the_scan_and_is_reused(cache_dir, monkeypatch):
    first = cache.entry_points_of(GROUPS)
    expected = {g: [(ep.name, ep.value) for ep in entry_points(group=g)] for g in GROUPS}
    assert _names(first) == expected and expected[ENTRY_POINT_GROUP]
    assert len(list(cache_dir.glob("entry-points-*.json"))) == 1

    def no_scan(groups):
        raise AssertionError("scanned although nothing installed changed")

    monkeypatch.setattr(cache, "_scan", no_scan)
    assert _names(cache.entry_points_of(GROUPS)) == expected


def test_a_new_or_edited_distribution_invalidates_the_cache(cache_dir, tmp_path, monkeypatch):
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    _changed()
    cache.entry_points_of(GROUPS)
    dist = site / "plugin_x-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-x\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nxcmd = json:dumps\n")
    _changed()
    found = cache.entry_points_of(GROUPS)[ENTRY_POINT_GROUP]
    assert [ep.value for ep in found if ep.name == "xcmd"] == ["json:dumps"]
    (dist / "entry_points.txt").write_text(f"[{ENTRY_POINT_GROUP}]\nxcmd = json:loads\n")
    _changed()
    found = cache.entry_points_of(GROUPS)[ENTRY_POINT_GROUP]
    assert [ep.value for ep in found if ep.name == "xcmd"] == ["json:loads"]
    assert next(ep for ep in found if ep.name == "xcmd").load() is json.loads


def test_a_corrupt_cache_falls_back_to_the_scan(cache_dir):
    expected = _names(cache.entry_points_of(GROUPS))
    (path,) = cache_dir.glob("entry-points-*.json")
    path.write_text('[["evaluate", 1]]')
    assert _names(cache.entry_points_of(GROUPS)) == expected
    assert json.loads(path.read_text()) != [["evaluate", 1]]


def test_cache_off_and_unwritable_folder_still_answer(tmp_path, monkeypatch):
    monkeypatch.setenv("AAU_CACHE_DIR", "off")
    expected = _names(cache.entry_points_of(GROUPS))
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setenv("AAU_CACHE_DIR", str(blocker / "sub"))
    assert _names(cache.entry_points_of(GROUPS)) == expected


def test_load_and_module_match_the_stdlib():
    ep = cache.CachedEntryPoint("x", "os.path:join", ENTRY_POINT_GROUP)
    assert ep.module == "os.path" and ep.load() is __import__("os").path.join
    with pytest.raises(AttributeError):
        cache.CachedEntryPoint("x", "os.path:nope", ENTRY_POINT_GROUP).load()


def test_versions_are_cached_and_follow_an_upgrade(cache_dir, tmp_path, monkeypatch):
    from importlib.metadata import version

    assert cache.distribution_version("click") == version("click")
    assert cache.distribution_version("no-such-dist-aau") == "0+unknown"
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    dist = site / "plugin_y-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: plugin-y\nVersion: 1.0\n")
    _changed()
    assert cache.distribution_version("plugin-y") == "1.0"
    dist.rename(site / "plugin_y-2.0.dist-info")
    (site / "plugin_y-2.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: plugin-y\nVersion: 2.0\n")
    _changed()
    assert cache.distribution_version("plugin-y") == "2.0"
    (cached,) = [p for p in cache_dir.glob("versions-*.json") if "plugin-y" in p.read_text()
                 and "2.0" in p.read_text()]
    assert json.loads(cached.read_text())["plugin-y"] == "2.0"


def test_old_installed_sets_are_pruned(cache_dir):
    cache_dir.mkdir()
    for n in range(cache.KEEP_FILES + 3):
        stale = cache_dir / f"versions-old{n:02d}.json"
        stale.write_text("{}")
        os.utime(stale, ns=(n * 10**9, n * 10**9))
    (cache_dir / "entry-points-keep.json").write_text("[]")
    cache.distribution_version("aau-core")
    versions = sorted(p.name for p in cache_dir.glob("versions-*.json"))
    assert len(versions) == cache.KEEP_FILES
    assert "versions-old00.json" not in versions and "versions-old10.json" in versions
    assert (cache_dir / "entry-points-keep.json").exists()  # another kind is left alone
