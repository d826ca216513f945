"""Speed of a label save in `aau review serve`, while the page is in use.

    python benchmarks/bench_review_serve.py [--units N] [--json] [--strict]

Workload: the synthetic review pack of `bench_review.py` with N units (default 1,000), all
assigned to rater `r-1`; the labelling server of `aau review serve` (`make_labelling_server`)
runs in this process on 127.0.0.1. A client labels every unit once, in the rater's order, each
label a `POST api/labels/UNIT` over a kept-alive connection, timed from request to answer
(the server checks the label, builds the whole labels document, checks it against the labels
schema and the pack's rules and writes it atomically with fsync), so the file grows from 1 to N
labels. Meanwhile a second client plays the page for as long as the saves go on: it loads a
unit every `--page-interval-ms` (default 20 ms: 50 units a second, far faster than a person
moves through units; every tenth request is the state, as a page reload asks), or back to back
with `--page-interval-ms 0` (a stress far beyond any page).

Rows (milliseconds):

  atomic write   the baseline, measured in the same run: `aau_core.atomic_write_json` alone of
                 the same N labels documents (1 to N labels) in the same folder
  save           the HTTP save round trip                       target p95 < 50 ms

Exit status: 0 whatever the numbers; 1 with `--strict` when the target is missed.
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from bench_review import _write_pack

TARGET_P95_MS = 50.0
RATER = "r-1"
MAX_PAGE_REQUESTS = 1_000_000
"""A bound on the page client's loop (it also stops when the saves end)."""


def _percentiles(ms: list[float]) -> dict[str, float]:
    cuts = statistics.quantiles(ms, n=100, method="inclusive")
    return {"p50": statistics.median(ms), "p95": cuts[94], "max": max(ms), "n": len(ms)}


def _page_client(port: int, token: str, units: list[str], stop: threading.Event,
                 count: list[int], interval_s: float) -> None:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    for i in range(MAX_PAGE_REQUESTS):
        if stop.wait(interval_s) if interval_s else stop.is_set():
            break
        route = "api/state" if i % 10 == 0 else f"api/units/{units[i % len(units)]}"
        conn.request("GET", f"/{token}/{route}")
        conn.getresponse().read()
        count[0] += 1
    conn.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    parser.add_argument("--units", type=int, default=1000)
    parser.add_argument("--page-interval-ms", type=float, default=20.0,
                        help="pause between the page client's requests (0: none)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--strict", action="store_true")
    args = parser.parse_args(argv)

    from aau_core import atomic_write_json
    from aau_review import make_labelling_server, open_session, read_review_pack

    verdicts = ("pass", "fail", "unsure")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pack_dir, _ = _write_pack(root, args.units)
        pack = read_review_pack(pack_dir)
        labels_path = root / "r-1-serve.json"
        session = open_session(pack, RATER, labels_path)
        server, url = make_labelling_server(session)
        port, token = server.server_address[1], url.rstrip("/").rsplit("/", 1)[1]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        units = list(session.order)
        stop, page_requests = threading.Event(), [0]
        page = threading.Thread(target=_page_client, daemon=True, args=(
            port, token, units, stop, page_requests, args.page_interval_ms / 1000))
        page.start()
        deadline = time.monotonic() + 30
        while page_requests[0] == 0 and time.monotonic() < deadline:
            time.sleep(0.001)  # the page is in use before the first save
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        save_ms = []
        try:
            for i, unit in enumerate(units):
                body = json.dumps({"verdict": verdicts[i % 3], "categories":
                                   ["wrong-tool"] if i % 3 == 1 else [], "time_spent_s": 7.5})
                start = time.perf_counter()
                conn.request("POST", f"/{token}/api/labels/{unit}", body,
                             {"Content-Type": "application/json"})
                response = conn.getresponse()
                response.read()
                save_ms.append((time.perf_counter() - start) * 1000)
                if response.status != 200:
                    print(f"save of {unit} answered {response.status}", file=sys.stderr)
                    return 2
        finally:
            stop.set()
            page.join(timeout=30)
            conn.close()
            server.shutdown()
            server.server_close()
        final = json.loads(labels_path.read_text())
        assert len(final["labels"]) == args.units
        write_ms = []
        bare = root / "bare.json"
        for n in range(1, args.units + 1):
            doc = {**final, "labels": final["labels"][:n]}
            start = time.perf_counter()
            atomic_write_json(bare, doc, force=True)
            write_ms.append((time.perf_counter() - start) * 1000)
    rows = {"atomic write": _percentiles(write_ms), "save": _percentiles(save_ms)}
    met = rows["save"]["p95"] < TARGET_P95_MS
    if args.json:
        print(json.dumps({"units": args.units, "page_requests": page_requests[0],
                          "page_interval_ms": args.page_interval_ms,
                          "milliseconds": rows, "target_save_p95_ms": TARGET_P95_MS,
                          "met": met}, indent=2))
    else:
        print(f"review serve: {args.units:,} label saves (the labels file grows from 1 to "
              f"{args.units:,} labels) while the page made {page_requests[0]:,} requests "
              f"({args.page_interval_ms:g} ms apart)")
        base = rows["atomic write"]
        for name, r in rows.items():
            print(f"  {name:<13} p50 {r['p50']:7.2f} ms   p95 {r['p95']:7.2f} ms   max "
                  f"{r['max']:7.2f} ms   p95 {r['p95'] / base['p95']:5.1f}x the atomic write")
        print(f"  target: save p95 < {TARGET_P95_MS:.0f} ms ({'met' if met else 'MISSED'})")
    return 1 if args.strict and not met else 0


if __name__ == "__main__":
    sys.exit(main())
