"""``aau review serve``'s HTTP API without a browser: the token, the rater's own units only,
label checks, no path to any file, atomic saves that leave a valid labels file, resuming.

The pack is the committed real run bfcl-live_simple (5 units) for raters alice and bob with one
rater per unit, so each has units the other may not see.
"""

from __future__ import annotations

import http.client
import json
import threading
from pathlib import Path

import pytest
from aau_core import run
from aau_review import (
    default_labels_path,
    make_labelling_server,
    open_session,
    read_labels,
    read_review_pack,
)

REFUSED = ("refused: this server answers only the URL aau review serve printed (with its "
           "token)")


@pytest.fixture
def split_pack(tmp_path: Path, prepare) -> Path:
    out = tmp_path / "pack"
    assert prepare(out, "--raters", "alice,bob", "--per-unit", "1", "--seed", "7") == 0
    return out


class Served:
    """A running server: ``get``/``post``/``raw`` return (status, parsed JSON or text)."""

    def __init__(self, pack: Path, labels: Path, rater: str = "alice"):
        self.pack = read_review_pack(pack)
        self.session = open_session(self.pack, rater, labels)
        self.server, self.url = make_labelling_server(self.session)
        self.port = self.server.server_address[1]
        self.token = self.url.rstrip("/").rsplit("/", 1)[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        units = {r.rater: r.units for r in self.pack.manifest.raters}
        self.mine, self.theirs = units[rater], units["bob" if rater == "alice" else "alice"]

    def raw(self, method: str, path: str, body: bytes | None = None,
            headers: dict[str, str] | None = None) -> tuple[int, object]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        conn.putrequest(method, path, skip_accept_encoding=True)  # the path exactly as given
        for key, value in {**({"Content-Length": str(len(body))} if body is not None else {}),
                           **(headers or {})}.items():
            conn.putheader(key, value)
        conn.endheaders(body)
        response = conn.getresponse()
        data = response.read().decode("utf-8")
        conn.close()
        ctype = response.getheader("Content-Type", "")
        is_json = data and ctype.startswith("application/json")
        return response.status, json.loads(data) if is_json else data

    def get(self, route: str) -> tuple[int, object]:
        return self.raw("GET", f"/{self.token}/{route}")

    def post(self, unit: str, label: object) -> tuple[int, object]:
        return self.raw("POST", f"/{self.token}/api/labels/{unit}",
                        json.dumps(label).encode(), {"Content-Type": "application/json"})

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def served(split_pack: Path, tmp_path: Path):
    s = Served(split_pack, tmp_path / "alice.json")
    yield s
    s.close()


def test_every_request_without_the_token_is_refused(served):
    t = served.token
    wrong = ("x" if t[0] != "x" else "y") + t[1:]  # same length, one character off
    for method, path in [("GET", "/"), ("GET", "/api/state"), ("GET", f"/{t}"),
                         ("GET", f"/{wrong}/"), ("GET", f"/{wrong}/api/state"),
                         ("GET", f"/{t}x/api/state"), ("GET", f"/{t[:-1]}/api/state"),
                         ("HEAD", "/favicon.ico"), ("PUT", f"/{wrong}/api/labels/u0001"),
                         ("GET", f"/?token={t}")]:
        status, body = served.raw(method, path)
        assert status == 403, (method, path)
        assert method == "HEAD" or body == {"error": REFUSED}
    status, body = served.raw("POST", f"/{wrong}/api/labels/{served.mine[0]}",
                              b'{"verdict": "pass", "categories": [], "time_spent_s": 1}',
                              {"Content-Type": "application/json"})
    assert (status, body) == (403, {"error": REFUSED})
    assert not served.session.labels_path.exists()  # nothing saved
    status, page = served.get("")
    assert status == 200 and "<title>aau review</title>" in page


def test_state_lists_only_the_raters_own_units_and_labels(served):
    status, state = served.get("api/state")
    assert status == 200
    assert state["rater"] == "alice" and state["units"] == list(served.mine)
    assert state["labels"] == {} and state["blinded"] is True
    assert [c["id"] for c in state["taxonomy"]["categories"]][:2] == ["wrong-tool",
                                                                       "wrong-arguments"]
    assert sorted(served.mine + served.theirs) == ["u0001", "u0002", "u0003", "u0004", "u0005"]
    assert set(served.mine).isdisjoint(served.theirs)
    status, unit = served.get(f"api/units/{served.mine[0]}")
    assert status == 200 and unit["unit_id"] == served.mine[0]
    assert {"input", "response", "error"} <= set(unit) and "expected" not in unit


def test_a_unit_not_assigned_to_the_rater_is_refused(served):
    other = served.theirs[0]
    assert served.get(f"api/units/{other}") == (
        403, {"error": f"{other} is not assigned to rater 'alice'"})
    assert served.post(other, {"verdict": "pass", "categories": [], "time_spent_s": 2}) == (
        403, {"error": f"{other} is not assigned to rater 'alice'"})
    assert served.get("api/units/u0099") == (404, {"error": "'u0099' is not a unit of the pack"})
    assert not served.session.labels_path.exists()


@pytest.mark.parametrize(("label", "message"), [
    ({"verdict": "maybe", "categories": [], "time_spent_s": 1},
     '$.verdict: verdict must be one of pass, fail, unsure, not "maybe"'),
    ({"categories": [], "time_spent_s": 1},
     "$.verdict: verdict is required (one of pass, fail, unsure)"),
    ({"verdict": None, "categories": [], "time_spent_s": 1},
     "$.verdict: verdict must be one of pass, fail, unsure, not null"),
    ({"verdict": "fail", "categories": ["wrong-tool", "made-up"], "time_spent_s": 1},
     '$.categories[1]: "made-up" is not a category of the pack\'s taxonomy (wrong-tool, '
     "wrong-arguments, missing-call, extra-call, wrong-outcome, unsafe-action, other)"),
    ({"verdict": "fail", "categories": ["other", "other"], "time_spent_s": 1},
     '$.categories[1]: "other" given twice'),
    ({"verdict": "fail", "categories": "other", "time_spent_s": 1},
     "$.categories: categories must be a list of category ids"),
    ({"verdict": "pass", "categories": [], "time_spent_s": -1},
     "$.time_spent_s: time_spent_s must be a number of seconds >= 0 (at most 86400 per save), "
     "not -1"),
    ({"verdict": "pass", "categories": [], "time_spent_s": "3"},
     "$.time_spent_s: time_spent_s must be a number of seconds >= 0 (at most 86400 per save), "
     'not "3"'),
    ({"verdict": "pass", "categories": [], "time_spent_s": None},
     "$.time_spent_s: time_spent_s must be a number of seconds >= 0 (at most 86400 per save), "
     "not null"),
    ({"verdict": "pass", "categories": [], "time_spent_s": True},
     "$.time_spent_s: time_spent_s must be a number of seconds >= 0 (at most 86400 per save), "
     "not true"),
    ({"verdict": "pass", "categories": []},
     "$.time_spent_s: time_spent_s is required: a number of seconds >= 0 (at most 86400 per "
     "save)"),
    ({"verdict": "pass", "categories": [], "time_spent_s": 1, "note": "x" * 501},
     "$.note: note has 501 characters; at most 500"),
    ({"verdict": "pass", "categories": [], "time_spent_s": 1, "rater": "bob"},
     '$.rater: unknown key "rater" (a label has verdict, categories, note, time_spent_s)'),
    (["pass"], "$: a label is a JSON object"),
    ({"verdict": "pass", "categories": ["wrong-tool"], "time_spent_s": 1},
     "$.categories: a pass names failure categories (wrong-tool): a contradiction, not a label "
     "(choose fail, or clear the categories)"),
])
def test_a_malformed_label_is_refused_with_a_clear_message(served, label, message):
    assert served.post(served.mine[0], label) == (400, {"error": message})
    assert not served.session.labels_path.exists()


def test_a_units_time_over_its_saves_is_at_most_a_day(served):
    unit = served.mine[0]
    assert served.post(unit, {"verdict": "fail", "categories": [], "time_spent_s": 86_000})[0] \
        == 200
    assert served.post(unit, {"verdict": "fail", "categories": [], "time_spent_s": 401}) == (
        400, {"error": "$.time_spent_s: time_spent_s would be 86401 s over the unit's saves; at "
                       "most 86400 (a day on one unit)"})
    assert served.post(unit, {"verdict": "fail", "categories": [], "time_spent_s": 400})[0] \
        == 200


def test_a_body_that_is_not_json_is_refused(served):
    unit = f"/{served.token}/api/labels/{served.mine[0]}"
    status, body = served.raw("POST", unit, b'{"verdict": "pass", "time_spent_s": NaN}',
                              {"Content-Type": "application/json"})
    assert (status, body) == (400, {"error": "$.time_spent_s: NaN is not allowed (JSON has no "
                                             "NaN or Infinity)"})
    status, body = served.raw("POST", unit, b'{"verdict": "pass", "verdict": "fail", '
                                            b'"categories": [], "time_spent_s": 1}',
                              {"Content-Type": "application/json"})
    assert (status, body) == (400, {"error": '$: duplicate key "verdict"'})
    status, body = served.raw("POST", unit, b'{"verdict": "pass", "categories": [], '
                                            b'"time_spent_s": 1, "note": "\xff"}',
                              {"Content-Type": "application/json"})
    assert (status, body) == (400, {"error": "$: not valid UTF-8 (byte 66)"})
    status, body = served.raw("POST", unit, b'{"verdict": "pass", "categories": [], '
                                            b'"time_spent_s": 1}', {"Content-Type": "text/plain"})
    assert (status, body) == (415, {"error": "a label request is JSON (Content-Type: "
                                             "application/json)"})
    status, body = served.raw("POST", unit, b"x" * 70_000, {"Content-Type": "application/json"})
    assert (status, body) == (413, {"error": "a label request is at most 65536 bytes"})
    assert served.raw("PUT", unit, b"{}")[0] == 405
    assert not served.session.labels_path.exists()


def test_no_path_reaches_a_file(served, split_pack, tmp_path):
    bob = tmp_path / "bob.json"
    bob.write_text('{"secret": "bob-only"}')
    t = served.token
    for path in [f"/{t}/../pack/scores.json", f"/{t}/api/units/../../pack/tasks.json",
                 f"/{t}/api/units/..%2f..%2fpack%2fscores.json", f"/{t}/%2e%2e/bob.json",
                 f"/{t}/page.js/../../bob.json", f"/{t}/bob.json", f"/{t}/scores.json",
                 f"/{t}/api/units/{served.mine[0]}/../../../bob.json", f"/{t}/_page/page.js",
                 f"/{t}/api/units/%2e%2e%2fmanifest.json", f"/{t}//etc/passwd",
                 f"/{t}/api/labels", f"/{t}/api/state/../../bob.json"]:
        status, body = served.raw("GET", path)
        assert status in (403, 404), path
        assert "bob-only" not in json.dumps(body) and "receipt_sha256" not in json.dumps(body)
    status, body = served.raw("POST", f"/{t}/api/labels/../../bob.json",
                              b'{"verdict": "pass", "categories": [], "time_spent_s": 1}',
                              {"Content-Type": "application/json"})
    assert status == 404 and bob.read_text() == '{"secret": "bob-only"}'
    assert sorted(p.name for p in split_pack.iterdir()) == [
        ".gitattributes", "README.md", "manifest.json", "scores.json", "tasks.json"]


def test_each_save_leaves_a_valid_labels_file_and_a_relabel_replaces(served, split_pack):
    first, second = served.mine[0], served.mine[1]
    status, saved = served.post(second, {"verdict": "fail", "categories": ["other",
                                                                           "wrong-tool"],
                                         "note": "  not the tool asked for ",
                                         "time_spent_s": 12.25})
    assert status == 200 and saved["labelled"] == 1 and saved["total"] == len(served.mine)
    assert saved["label"]["categories"] == ["wrong-tool", "other"]  # the taxonomy's order
    assert saved["label"]["note"] == "not the tool asked for"
    pack = read_review_pack(split_pack)
    (checked,) = read_labels([served.session.labels_path], pack)
    assert [lab.unit_id for lab in checked.labels.labels] == [second]
    status, saved = served.post(first, {"verdict": "pass", "categories": [], "note": "",
                                        "time_spent_s": 3})
    assert status == 200 and saved["labelled"] == 2 and "note" not in saved["label"]
    status, saved = served.post(second, {"verdict": "unsure", "categories": [],
                                         "time_spent_s": 0.5})
    assert saved["label"]["time_spent_s"] == 12.75  # the seconds of both saves
    (checked,) = read_labels([served.session.labels_path], pack)
    doc = checked.labels
    assert [(lab.unit_id, lab.verdict) for lab in doc.labels] == [(first, "pass"),
                                                                  (second, "unsure")]
    assert doc.rater.pseudonym == "alice" and doc.rater.kind == "human"
    status, state = served.get("api/state")
    assert sorted(state["labels"]) == sorted([first, second])
    leftovers = [p.name for p in served.session.labels_path.parent.iterdir()
                 if p.name.endswith(".tmp")]
    assert leftovers == []  # the atomic writer left no temp file


def test_a_restart_resumes_from_the_labels_file(split_pack, tmp_path):
    labels = tmp_path / "alice.json"
    first = Served(split_pack, labels)
    unit = first.mine[0]
    assert first.post(unit, {"verdict": "fail", "categories": ["missing-call"],
                             "time_spent_s": 4})[0] == 200
    first.close()
    again = Served(split_pack, labels)
    try:
        status, state = again.get("api/state")
        assert state["labels"][unit]["verdict"] == "fail"
        assert state["labels"][unit]["categories"] == ["missing-call"]
        assert again.token != first.token  # a new random token each start
        assert again.raw("GET", f"/{first.token}/api/state")[0] == 403
    finally:
        again.close()


def test_default_labels_path_is_beside_the_pack():
    assert default_labels_path(Path("runs/pack"), "alice") == Path("runs/pack.labels-alice.json")


def test_serve_refuses_bad_starts_with_one_line(split_pack, tmp_path, error_line):
    assert run(["review", "serve", str(split_pack), "--rater", "carol"]) == 2
    assert error_line() == "aau: error: --rater carol: not a rater of the pack (raters: alice, bob)"
    inside = split_pack / "alice.json"
    assert run(["review", "serve", str(split_pack), "--rater", "alice", "--labels",
                str(inside)]) == 2
    assert error_line() == (f"aau: error: --labels {inside}: inside the pack folder, which holds only "
                            "the pack's own files; write labels outside it (e.g. in the folder "
                            "that holds the pack)")
    assert not inside.exists()
    bob = Served(split_pack, tmp_path / "bob.json", rater="bob")
    bob.post(bob.mine[0], {"verdict": "pass", "categories": [], "time_spent_s": 1})
    bob.close()
    assert run(["review", "serve", str(split_pack), "--rater", "alice", "--labels",
                str(tmp_path / "bob.json")]) == 2
    assert error_line() == (f"aau: error: {tmp_path / 'bob.json'}: $.rater: labels of human rater "
                            "'bob', not of human rater 'alice'")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({
        "labels_version": "aau-review-labels/1.0", "rater": {"pseudonym": "alice",
                                                             "kind": "human"},
        "tasks_sha256": read_review_pack(split_pack).tasks_sha256,
        "labels": [{"unit_id": "u0001", "verdict": "maybe", "categories": [],
                    "time_spent_s": 1, "labelled_at": "2026-12-01T10:00:00Z"}]}))
    assert run(["review", "serve", str(split_pack), "--rater", "alice", "--labels",
                str(broken)]) == 2
    assert error_line() == (f"aau: error: {broken}: $.labels[0].verdict: \"maybe\" is not one "
                            'of ["pass", "fail", "unsure"] [review-labels]')


def test_a_failed_write_is_reported_and_the_saved_file_stays(served, monkeypatch):
    import aau_review._labelling as labelling
    from aau_core import OutputError

    unit, other = served.mine[0], served.mine[1]
    assert served.post(unit, {"verdict": "pass", "categories": [], "time_spent_s": 1})[0] == 200
    before = served.session.labels_path.read_bytes()

    def full_disk(path, doc, **options):
        raise OutputError(f"{path}: No space left on device")

    monkeypatch.setattr(labelling, "atomic_write_json", full_disk)
    status, body = served.post(other, {"verdict": "fail", "categories": [], "time_spent_s": 2})
    assert (status, body) == (500, {"error": f"not saved: {served.session.labels_path}: No "
                                             "space left on device"})
    assert served.session.labels_path.read_bytes() == before
    assert sorted(served.get("api/state")[1]["labels"]) == [unit]  # the page is told the truth


@pytest.mark.parametrize("signame", ["SIGINT", "SIGTERM"])  # SIGTERM: CI, docker stop, timeout
def test_ctrl_c_stops_the_server_cleanly(split_pack, tmp_path, signame):
    import re
    import signal
    import subprocess

    from _helpers import aau_script

    labels = tmp_path / "alice.json"
    proc = subprocess.Popen([aau_script(), "review", "serve", str(split_pack), "--rater",
                             "alice", "--labels", str(labels)], text=True,
                            stderr=subprocess.PIPE, stdout=subprocess.DEVNULL)
    first = proc.stderr.readline()
    second = proc.stderr.readline()
    assert re.fullmatch(rf"aau review serve: alice labels {re.escape(str(split_pack))} at "
                        r"http://127\.0\.0\.1:\d+/[A-Za-z0-9_-]{32}/ \(Ctrl-C stops\)\n", first)
    assert second == (f"labels: {labels} (0 of 2 unit(s) labelled; saved at every label)\n")
    proc.send_signal(getattr(signal, signame))
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 0 and err == "aau review serve: stopped\n"
    assert not labels.exists()  # nothing labelled, nothing written


def test_the_save_benchmark_runs(capsys, monkeypatch):
    """``benchmarks/bench_review_serve.py`` on 20 units: every save answered, both rows."""
    import sys

    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[3] / "benchmarks"))
    monkeypatch.delitem(sys.modules, "bench_review_serve", raising=False)
    import bench_review_serve

    assert bench_review_serve.main(["--units", "20", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["units"] == 20 and result["target_save_p95_ms"] == 50.0
    assert result["milliseconds"]["save"]["n"] == result["milliseconds"]["atomic write"]["n"] == 20
    assert result["page_requests"] >= 1


def test_an_unblinded_pack_shows_its_expected_answers(tmp_path, prepare):
    pack = tmp_path / "open-pack"
    assert prepare(pack, "--raters", "alice,bob", "--show-scores") == 0
    s = Served(pack, tmp_path / "alice.json")
    try:
        status, unit = s.get(f"api/units/{s.mine[0]}")
        assert status == 200 and "expected" in unit and set(unit["scores"]) >= {"exact"}
        assert s.get("api/state")[1]["blinded"] is False
    finally:
        s.close()


def test_a_port_in_use_is_one_line(split_pack, tmp_path, error_line):
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        assert run(["review", "serve", str(split_pack), "--rater", "alice", "--labels",
                    str(tmp_path / "alice.json"), "--port", str(port)]) == 2
    assert error_line() == (f"aau: error: --port {port}: cannot listen on 127.0.0.1:{port} "
                            "(Address already in use); choose another port, or 0 for a free one")


def test_a_second_server_of_the_same_labels_file_is_refused(split_pack, tmp_path):
    """Two real ``aau review serve`` processes for one rater: the second is refused (one line,
    exit 2) while the first holds the labels file's lock, so no saved label can be lost."""
    import signal
    import subprocess

    from _helpers import aau_script

    labels = tmp_path / "alice.json"
    command = [aau_script(), "review", "serve", str(split_pack), "--rater", "alice",
               "--labels", str(labels)]
    first = subprocess.Popen(command, text=True, stderr=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)
    try:
        assert first.stderr.readline().startswith("aau review serve: alice labels ")
        first.stderr.readline()
        second = subprocess.run(command, text=True, capture_output=True, timeout=60)
        assert second.returncode == 2 and second.stdout == ""
        assert second.stderr == (f"aau: error: {labels}: another aau review serve (pid "
                                 f"{first.pid}) is writing this labels file; wait for it to "
                                 "finish or write elsewhere\n")
    finally:
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=20)
    assert first.returncode == 0
    assert not labels.with_name("alice.json.lock").exists()  # released on stop
    again = subprocess.Popen(command, text=True, stderr=subprocess.PIPE,
                             stdout=subprocess.DEVNULL)  # and the next server may start
    try:
        assert again.stderr.readline().startswith("aau review serve: alice labels ")
    finally:
        again.send_signal(signal.SIGINT)
        again.communicate(timeout=20)
    assert again.returncode == 0
