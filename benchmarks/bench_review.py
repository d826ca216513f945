"""Speed of `aau review summarize`'s statistics: 10,000 units x 3 raters, every interval.

    python benchmarks/bench_review.py [--units N] [--runs R] [--json] [--strict]

Workload: a synthetic review pack of N units (default 10,000), each labelled by all 3 human
raters (K = 3) and by one model rater, with two receipt scorers; verdicts drawn once with a fixed
seed (each rater agrees with a hidden truth 85 % of the time, 5 % unsure). The pack and the four
labels files are written to a temporary folder first.

Rows (median of `--runs`, default 5; times taken in this process, start-up excluded):

  numpy pass   the baseline: the point estimates only (percent agreement, Cohen's kappa of
               two raters, Fleiss' kappa, the consensus, one scorer's confusion matrix) in
               plain numpy over the same ratings array
  statistics   `build_review_report` on the checked pack and labels: every statistic with
               its 2,000-resample bootstrap or Wilson interval            target < 1 s
  summarize    reading and checking the pack and labels (schemas, manifest, rules), the
               report, its schema check: what `aau review summarize` does before writing

The ratio printed is each row's time over the numpy pass's, measured in the same run.

Exit status: 0 whatever the numbers; 1 with `--strict` when the target is missed.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

TARGET_S = 1.0
RATERS = ("r-1", "r-2", "r-3")


def _write_pack(root: Path, n: int) -> tuple[Path, list[Path]]:
    from aau_core import build_manifest, render_json
    from aau_review import write_review_pack
    from aau_review._converter import converter
    from aau_review._models import (
        Manifest,
        ManifestFile,
        RaterAssignment,
        Scores,
        ScoresDocument,
        SensitiveContent,
        Source,
        Tasks,
        Taxonomy,
        Unit,
        UnitScores,
    )
    from aau_review._prepare import DEFAULT_CATEGORIES
    from aau_schemas import sha256_hex

    rng = np.random.default_rng(2026)
    truth = rng.random(n) < 0.7
    ids = [f"u{i:05d}" for i in range(1, n + 1)]
    taxonomy = Taxonomy(categories=DEFAULT_CATEGORIES)
    tasks = Tasks(suite_id="bench", blinded=True, taxonomy=taxonomy, units=tuple(
        Unit(unit_id=u, scenario_id=f"s{i}", repeat=0, input={"q": i}, response={}, error=None)
        for i, u in enumerate(ids)))
    exact = np.where(rng.random(n) < 0.9, truth, ~truth)
    loose = truth | (rng.random(n) < 0.2)
    scores = ScoresDocument(scorers=("exact", "tool_calls_match"), units=tuple(
        UnitScores(u, Scores(exact="pass" if e else "fail",
                             tool_calls_match="pass" if lo else "fail"))
        for u, e, lo in zip(ids, exact, loose, strict=True)))
    files = {"tasks.json": render_json(converter.unstructure(tasks)).encode(),
             "scores.json": render_json(converter.unstructure(scores)).encode(),
             "README.md": b"# bench\n"}
    rows = build_manifest(files, version="aau-review-manifest/1.0")["files"]
    manifest = Manifest(
        source=Source(suite_id="bench", suite_sha256="0" * 64, receipt_sha256="1" * 64,
                      private_receipt_sha256="2" * 64),
        unit_count=n, excluded_not_measured=0, sample_size=None, seed=0, per_unit=3,
        raters=tuple(RaterAssignment(r, tuple(ids)) for r in RATERS), taxonomy=taxonomy,
        blinded=True, sensitive_content=SensitiveContent(),
        files=converter.structure(rows, tuple[ManifestFile, ...]))
    files["manifest.json"] = render_json(converter.unstructure(manifest)).encode()
    pack = write_review_pack(root / "pack", files)
    tasks_sha = sha256_hex(files["tasks.json"])
    paths = []
    for name, kind in [*((r, "human") for r in RATERS), ("judge", "model")]:
        right = rng.random(n) < 0.85
        said = np.where(right, truth, ~truth)
        unsure = rng.random(n) < 0.05
        rater = {"pseudonym": name, "kind": kind}
        if kind == "model":
            rater["model"] = {"served": "mock:judge", "prompt_sha256": "3" * 64, "settings": {}}
        doc = {"labels_version": "aau-review-labels/1.0", "tasks_sha256": tasks_sha,
               "rater": rater, "labels": [
                   {"unit_id": u, "verdict": "unsure" if q else ("pass" if s else "fail"),
                    "categories": [], "time_spent_s": 10, "labelled_at": "2026-12-01T00:00:00Z"}
                   for u, s, q in zip(ids, said, unsure, strict=True)]}
        path = root / f"{name}.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        paths.append(path)
    return pack, paths


def _numpy_pass(ratings: np.ndarray, scorer: np.ndarray) -> tuple[float, ...]:
    """Point estimates only, in plain numpy (codes 0 pass, 1 fail, -1 none)."""
    counts = np.stack([(ratings == k).sum(axis=1) for k in (0, 1)], axis=1)
    n = counts.sum(axis=1)
    two = n >= 2
    pa = ((counts[two] * (counts[two] - 1)).sum(axis=1) / (n[two] * (n[two] - 1))).mean()
    both = (ratings[:, 0] >= 0) & (ratings[:, 1] >= 0)
    a, b = ratings[both, 0], ratings[both, 1]
    p_o = (a == b).mean()
    p_e = (a == 0).mean() * (b == 0).mean() + (a == 1).mean() * (b == 1).mean()
    full = counts[n == 3]
    p_bar = ((full * full).sum(axis=1) - 3).sum() / (len(full) * 6)
    p_j = full.sum(axis=0) / (len(full) * 3)
    fleiss = (p_bar - (p_j ** 2).sum()) / (1 - (p_j ** 2).sum())
    agreed = np.where(counts[:, 0] > counts[:, 1], 0, np.where(counts[:, 1] > counts[:, 0], 1, -1))
    ok = agreed >= 0
    accuracy = (scorer[ok] == agreed[ok]).mean()
    return float(pa), float((p_o - p_e) / (1 - p_e)), float(fleiss), float(accuracy)


def _median_time(fn, runs: int) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--units", type=int, default=10_000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)

    from aau_core import check_document
    from aau_review import build_review_report, read_labels, read_review_pack
    from aau_review._converter import converter

    with tempfile.TemporaryDirectory() as tmp:
        pack_dir, label_paths = _write_pack(Path(tmp), args.units)
        pack = read_review_pack(pack_dir)
        labels = read_labels(label_paths, pack)
        index = {u.unit_id: i for i, u in enumerate(pack.tasks.units)}
        ratings = np.full((args.units, 3), -1)
        for j, f in enumerate(labels[:3]):
            for lab in f.labels.labels:
                if lab.verdict != "unsure":
                    ratings[index[lab.unit_id], j] = 0 if lab.verdict == "pass" else 1
        scorer = np.array([0 if r.scores.exact == "pass" else 1 for r in pack.scores.units])

        def summarize() -> None:
            checked = read_review_pack(pack_dir)
            model = build_review_report(checked, read_labels(label_paths, checked))
            check_document("review-report", converter.unstructure(model), "<report>")

        base = _median_time(lambda: _numpy_pass(ratings, scorer), args.runs)
        stats = _median_time(lambda: build_review_report(pack, labels), args.runs)
        full = _median_time(summarize, args.runs)
    rows = {"numpy pass": base, "statistics": stats, "summarize": full}
    if args.json:
        print(json.dumps({"units": args.units, "raters": 3, "seconds": rows,
                          "ratio_to_numpy_pass": {k: v / base for k, v in rows.items()},
                          "target_statistics_s": TARGET_S}, indent=2))
    else:
        print(f"review summarize: {args.units:,} units x 3 raters (+1 model rater, 2 scorers), "
              f"median of {args.runs}")
        for name, seconds in rows.items():
            print(f"  {name:<12} {seconds:8.3f} s   {seconds / base:8.1f}x the numpy pass")
        print(f"  target: statistics < {TARGET_S:.0f} s "
              f"({'met' if stats < TARGET_S else 'MISSED'})")
    return 1 if args.strict and stats >= TARGET_S else 0


if __name__ == "__main__":
    sys.exit(main())
