"""Writer rules: how each harness version that wrote an eval aggregate computed a statistic.

``aau results verify`` recomputes an aggregate's totals from its own ``results``. Where the
writers of such files did not all compute a statistic the same way, the file is read as its
writer meant it: a stored value that one of the rules its writer may have used gives is a
match, and the verdict names the rule. Today one statistic has two known rules:

=================  ================  ===========================================  ============
statistic          rule              formula (latencies of every run, seconds)    writers
=================  ================  ===========================================  ============
``p50_latency_s``  ``median``        ``statistics.median``: the middle value, or  aau-harness
                                     the mean of the two middle values for an     1.x (1.0.0
                                     even count                                   to 1.6) and
                                                                                  aau
``p50_latency_s``  ``upper-median``  ``sorted(latencies)[n // 2]``: the upper of  aau-harness
                                     the two middle values for an even count      < 1.x
=================  ================  ===========================================  ============

Which rules a file may match depends on the writer it names (``writer_major``):

- an ``aau-eval-aggregate/2.x`` file (or a lab result's aggregate) was written by aau: its own
  rule only;
- a 1.x-shape file whose ``provenance.harness_version`` is 1.0 or later by PEP 440
  (aau-harness 1.0.0 to 1.6, or aau's own ``as_dict_v1``) must match ``median``: those
  runners are read, and they use ``statistics.median``;
- a 1.x-shape file with no ``provenance``, a ``harness_version`` of ``unknown`` (the harness not
  installed), one that is not a PEP 440 version, or one before 1.0 (``0.9.3``, and the
  pre-releases ``1.0.0rc1`` and ``1.0.0.dev0``, which precede 1.0) may match either: the upper
  median predates the 1.0 release, files from before the provenance block carry no version at
  all, and ``0.1.0`` is what every development checkout reported before 1.0, so it does not
  say which runner wrote the file. ``read_writer_version`` gives the reading rules.

A statistic not in ``WRITER_RULES`` has one rule, the one ``_verify`` applies.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from typing import Any

import attrs
from packaging.version import InvalidVersion, Version


@attrs.frozen
class WriterRule:
    """One way a writer computed a statistic.

    Attributes:
        name: the rule's name in verdicts (``"median"``, ``"upper-median"``).
        writers: who wrote files with it, for people (``"aau-harness < 1.x"``).
        compute: ``values -> (exact, slack)``: the statistic of the per-run values the file
            stores, and how far the unrounded statistic can be from it given that each stored
            value was rounded (seconds; 0 when the statistic is one of the stored values).
        since_major: the lowest writer major version that used it (0: any).
        until_major: the first writer major version that no longer did (``None``: still used).
    """

    name: str
    writers: str
    compute: Callable[[Sequence[float]], tuple[float, float]]
    since_major: int = 0
    until_major: int | None = None

    def label(self) -> str:
        """``"upper-median (aau-harness < 1.x rule)"``: the rule as the verdict names it."""
        return f"{self.name} ({self.writers} rule)"

    def allowed_for(self, major: int | None) -> bool:
        """Whether a file whose writer has major version ``major`` may have used this rule.

        Args:
            major: the writer's major version (``writer_major``), or ``None`` when the file does
                not say, in which case every rule is possible.
        """
        if major is None:
            return True
        return self.since_major <= major and (self.until_major is None or major < self.until_major)


def _median(latencies: Sequence[float]) -> tuple[float, float]:
    # per-run latencies are stored at 3 dp: the mean of two of them is known to within 5e-4
    return (statistics.median(latencies), 5e-4) if latencies else (0.0, 0.0)


def _upper_median(latencies: Sequence[float]) -> tuple[float, float]:
    # an order statistic commutes with rounding each value: the stored one is exact
    return (sorted(latencies)[len(latencies) // 2], 0.0) if latencies else (0.0, 0.0)


MEDIAN = WriterRule("median", "aau-harness 1.x and aau", _median)
UPPER_MEDIAN = WriterRule("upper-median", "aau-harness < 1.x", _upper_median, until_major=1)

WRITER_RULES: dict[str, tuple[WriterRule, ...]] = {
    # the current rule first: it is the one named when several give the same value
    "p50_latency_s": (MEDIAN, UPPER_MEDIAN),
}


def read_writer_version(doc: dict[str, Any], *, aau_format: bool) -> tuple[int | None, str | None]:
    """The major version of the harness that wrote an aggregate, and a note on how it was read.

    ``provenance.harness_version`` is read as a PEP 440 version (``packaging.version``):

    - a leading ``v`` (``"v1.2.0"``, as git tags write versions) is dropped, as PEP 440's
      normalisation does: ``"v1.2.0"`` is 1.2.0;
    - a pre-release or development release of ``N.0`` precedes ``N.0`` (``"1.0.0rc1"``,
      ``"1.0.0.dev0"``, ``"1.0.0a1"``): its writer counts as major ``N - 1``, a writer from
      before that release (``"2.0.0.dev0"``, aau's own, is major 1: still 1.0 or later);
    - a string that is not a PEP 440 version (``"banana"``, ``"unknown"``) or that has the
      local label ``unknown`` (``"0+unknown"``: a package built without its version control
      metadata) does not say who wrote the file: major ``None``, so either rule is allowed,
      and the note says so.

    Args:
        doc: the aggregate document.
        aau_format: the document is ``aau-eval-aggregate/2.x`` (only aau writes it).

    Returns:
        ``(major, note)``: ``major`` is 2 for an aau-format document; for a 1.x-shape document
        the major version of the release the writer's version is or follows (``"1.6.0"`` -> 1,
        ``"0.1.0"`` -> 0, ``"1.0.0rc1"`` -> 0, ``"10.0"`` -> 10), or ``None`` when there is no
        provenance or the version is unknown. ``note`` is ``None`` or one sentence for the
        verdict line: ``'harness_version "banana" is not a PEP 440 version: writer unknown,
        either rule allowed'``, ``"harness_version 1.0.0rc1 precedes 1.0 (PEP 440): read as a
        0.x writer"``.
    """
    if aau_format:
        return 2, None
    version = (doc.get("provenance") or {}).get("harness_version")
    if not isinstance(version, str):
        return None, None
    if version.strip().lower() == "unknown":  # what 1.6 writes when it is not installed
        return None, None
    try:
        parsed = Version(version)
    except InvalidVersion:
        return None, (f"harness_version {json.dumps(version)} is not a PEP 440 version: "
                      "writer unknown, either rule allowed")
    if parsed.local == "unknown":
        return None, None
    if parsed.major >= 1 and parsed < Version(str(parsed.major)):
        return parsed.major - 1, (f"harness_version {version} precedes {parsed.major}.0 "
                                  f"(PEP 440): read as a {parsed.major - 1}.x writer")
    return parsed.major, None


def writer_major(doc: dict[str, Any], *, aau_format: bool) -> int | None:
    """The major version of the harness that wrote an aggregate (``read_writer_version``'s
    first item: 2 for an aau-format document, else the PEP 440 reading of
    ``provenance.harness_version``, ``None`` when unknown)."""
    return read_writer_version(doc, aau_format=aau_format)[0]
