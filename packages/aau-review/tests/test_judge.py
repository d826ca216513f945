"""``aau review judge``: a model judge labels a pack, offline (the mock) and over real HTTP
(aau-core's fake OpenAI-compatible and Anthropic server), and ``summarize`` reads its labels."""

from __future__ import annotations

import hashlib
import importlib.util
import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run
from aau_review._judge import backend_settings, default_pseudonym, judge_pack
from aau_review._judge_mock import MockJudgeBackend
from aau_review._judge_reply import judge_message, read_prompt
from aau_review._pack import read_review_pack

REPO = Path(__file__).resolve().parents[3]
EXAMPLES = REPO / "schemas" / "review" / "v1" / "examples" / "valid"
_spec = importlib.util.spec_from_file_location(
    "fake_openai_server", REPO / "packages" / "aau-core" / "tests" / "fake_openai_server.py")
fake = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(fake)

PROMPT = read_prompt()


def judge(capsys, pack: Path, out: Path, *extra: str) -> tuple[int, str, str]:
    rc = run(["review", "judge", str(pack), "--out", str(out), *extra])
    got = capsys.readouterr()
    return rc, got.out, got.err


def labels_of(path: Path) -> dict:
    doc = json.loads(path.read_text(encoding="utf-8"))
    aau_schemas.validate("review-labels", doc)
    return doc


def timeless(doc: dict) -> dict:
    """The labels with each label's clock fields fixed (they differ run to run)."""
    out = json.loads(json.dumps(doc))
    for i, label in enumerate(out["labels"]):
        label["labelled_at"] = f"2026-12-01T12:00:0{i}Z"
        label["time_spent_s"] = 0.5
    return out


# ---- the mock backend, offline ----------------------------------------------------------------


def test_mock_judge_writes_the_example_labels(capsys, example_pack, tmp_path):
    out = tmp_path / "judge.json"
    rc, stdout, err = judge(capsys, example_pack, out, "--backend", "mock", "--json")
    assert rc == 0, err
    doc = labels_of(out)
    assert timeless(doc) == json.loads((EXAMPLES / "labels-judge-mock.json").read_text())
    model = doc["rater"]["model"]
    assert doc["rater"] == {"pseudonym": "judge-mock", "kind": "model", "model": model}
    assert model == {"served": "mock:mock", "prompt_sha256": PROMPT.sha256,
                     "settings": {"backend": "mock", "model": "mock"}, "cost_usd": 0.0}
    assert [label["verdict"] for label in doc["labels"]] == ["pass"] * 5
    assert [label["unit_id"] for label in doc["labels"]] == [f"u000{i}" for i in range(1, 6)]
    assert ("judge-mock (mock:mock): 5 of 5 unit(s) labelled (pass 5, fail 0, unsure 0); "
            "0 not labelled (provider 0, reply 0); cost $0.000000") in err
    summary = json.loads(stdout)
    assert summary["labelled"] == 5 and summary["cost_usd"] == 0.0
    assert run(["review", "validate", str(out), "--pack", str(example_pack)]) == 0


def test_prepare_judge_summarize_shows_the_judge_apart_from_people(capsys, prepare, tmp_path):
    pack = tmp_path / "pack"
    assert prepare(pack, "--raters", "alice,bob", "--seed", "7") == 0
    out = tmp_path / "judge.json"
    assert judge(capsys, pack, out, "--backend", "mock")[0] == 0
    report = tmp_path / "report.json"
    assert run(["review", "summarize", str(pack), "--labels", str(EXAMPLES / "labels-alice.json"),
                "--labels", str(EXAMPLES / "labels-bob.json"), "--labels", str(out),
                "--out", str(report), "--md"]) == 0
    doc = json.loads(report.read_text(encoding="utf-8"))
    aau_schemas.validate("review-report", doc)
    assert doc["human_agreement"]["raters"] == 2
    rows = {s["scorer"]: s for s in doc["scorers"]}
    judged = rows["judge-mock"]
    assert judged["source"] == "model"
    # the consensus of alice and bob: u0001, u0002, u0004 pass, u0003 fail, u0005 a tie; the
    # mock says pass to all: 3 true passes, 1 false pass over the 4 decided units
    assert judged["confusion"] == {"tp": 3, "fp": 1, "fn": 0, "tn": 0}
    assert judged["accuracy"]["value"] == 0.75
    assert [f["rater"] for f in doc["label_files"]] == ["alice", "bob", "judge-mock"]
    assert [f["kind"] for f in doc["label_files"]] == ["human", "human", "model"]
    assert "| judge-mock | model | 4 | 3/1/0/0 |" in report.with_suffix(".md").read_text()


def test_the_prompt_file_and_rater_are_recorded(capsys, example_pack, tmp_path):
    prompt = tmp_path / "strict.md"
    prompt.write_text("Be strict. Reply with JSON only.\n", encoding="utf-8")
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "mock", "--prompt", str(prompt),
                       "--rater", "judge-strict", "--model", "mock-judge-2")
    assert rc == 0, err
    doc = labels_of(out)
    assert doc["rater"]["pseudonym"] == "judge-strict"
    assert doc["rater"]["model"]["prompt_sha256"] == hashlib.sha256(
        b"Be strict. Reply with JSON only.\n").hexdigest()
    assert doc["rater"]["model"]["served"] == "mock:mock-judge-2"
    assert "cost_usd" not in doc["rater"]["model"]  # no price for mock-judge-2: not $0
    assert "cost unknown (no price for model 'mock-judge-2')" in err


def test_out_is_never_overwritten_without_force(capsys, example_pack, tmp_path, error_line):
    out = tmp_path / "judge.json"
    out.write_text("keep\n", encoding="utf-8")
    rc, _, _ = judge(capsys, example_pack, out, "--backend", "mock")
    assert rc == 2 and out.read_text(encoding="utf-8") == "keep\n"
    assert judge(capsys, example_pack, out, "--backend", "mock", "--force")[0] == 0
    assert labels_of(out)["rater"]["pseudonym"] == "judge-mock"


@pytest.mark.parametrize("extra,message", [
    (("--rater", "alice"), "--rater alice: a human rater of this pack"),
    (("--rater", "Alice Smith"), "--rater 'Alice Smith': not a pseudonym"),
    (("--rater", "a,b"), "--rater 'a,b': not a pseudonym"),
    (("--base-url", "http://127.0.0.1:9/v1"), "--base-url goes with a networked --backend"),
])
def test_bad_options_are_refused(capsys, example_pack, tmp_path, extra, message, error_line):
    out = tmp_path / "judge.json"
    rc = run(["review", "judge", str(example_pack), "--out", str(out), "--backend", "mock",
              *extra])
    assert rc == 2 and not out.exists()
    assert message in error_line()


def test_unknown_backend_and_out_inside_the_pack(capsys, example_pack, tmp_path, error_line):
    rc = run(["review", "judge", str(example_pack), "--backend", "nope", "--out",
              str(tmp_path / "j.json")])
    assert rc == 2 and "--backend nope: unknown backend 'nope'" in error_line()
    rc = run(["review", "judge", str(example_pack), "--backend", "mock", "--out",
              str(example_pack / "judge.json")])
    assert rc == 2 and "inside the pack folder" in error_line()
    assert not (example_pack / "judge.json").exists()
    assert run(["review", "validate", str(example_pack)]) == 0


def test_a_backend_without_its_key_is_exit_2(capsys, example_pack, tmp_path, monkeypatch,
                                            error_line):
    monkeypatch.delenv("GROQ_API_KEY", raising=False)
    out = tmp_path / "judge.json"
    rc = run(["review", "judge", str(example_pack), "--backend", "groq", "--out", str(out)])
    assert rc == 2 and not out.exists()
    assert "--backend groq: GROQ_API_KEY is not set" in error_line()


def test_default_pseudonym():
    assert default_pseudonym("accounts/fireworks/models/gpt-oss-120b") == "judge-gpt-oss-120b"
    assert default_pseudonym("Qwen/Qwen3.5-9B") == "judge-qwen3-5-9b"
    assert default_pseudonym("x" * 60) == "judge-" + "x" * 34
    assert default_pseudonym("///") == "judge-model"


# ---- the real HTTP path: aau-core's fake server -----------------------------------------------


def _verdict_of(body: dict) -> dict:
    """What the fake server's judge answers: fail for the unit whose weather call is for Tel
    Aviv, pass otherwise."""
    asked = json.loads(body["messages"][-1]["content"])
    calls = json.dumps(asked["unit"]["response"].get("tool_calls"))
    if "Tel Aviv" in calls:
        return {"verdict": "fail", "categories": ["wrong-arguments"], "note": "not in CA"}
    return {"verdict": "pass", "categories": []}


@pytest.fixture
def server():
    with fake.FakeServer() as srv:
        srv.answer = lambda body: (json.dumps(_verdict_of(body)), [])
        yield srv


def test_openai_compatible_judge_over_http(capsys, example_pack, tmp_path, server):
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "local", "--base-url",
                       server.url + "/v1", "--model", "gpt-oss-120b", "--concurrency", "3")
    assert rc == 0, err
    doc = labels_of(out)
    pack = read_review_pack(example_pack)
    bodies = sorted((r["body"] for r in server.requests),
                    key=lambda b: b["messages"][-1]["content"])
    assert len(bodies) == 5
    for body in bodies:
        assert body["messages"][0] == {"role": "system", "content": PROMPT.text}
        assert body["temperature"] == 0 and "tools" not in body and "max_tokens" not in body
    asked = sorted(judge_message(u, pack.tasks.taxonomy) for u in pack.tasks.units)
    assert [b["messages"][1]["content"] for b in bodies] == asked
    model = doc["rater"]["model"]
    assert model["served"] == "local:gpt-oss-120b" + fake.SERVED_SUFFIX
    assert model["settings"] == {"backend": "local", "model": "gpt-oss-120b", "temperature": 0}
    # per call: 100 prompt tokens (40 cached, read at 0.10x) and 20 completion tokens at
    # $0.35 / $0.75 per million: (60 x 0.35 + 40 x 0.035 + 20 x 0.75) / 1e6 = 3.74e-5 USD
    assert model["cost_usd"] == pytest.approx(5 * 3.74e-5, abs=1e-12)
    assert "cost $0.000187" in err
    assert doc["rater"]["pseudonym"] == "judge-gpt-oss-120b"
    assert [label["unit_id"] for label in doc["labels"]] == [u.unit_id for u in pack.tasks.units]
    tel_aviv = [u.unit_id for u in pack.tasks.units if "Tel Aviv" in json.dumps(u.response)]
    assert len(tel_aviv) == 1
    for label in doc["labels"]:
        if label["unit_id"] in tel_aviv:
            assert (label["verdict"], label["categories"], label["note"]) == (
                "fail", ["wrong-arguments"], "not in CA")
        else:
            assert (label["verdict"], label["categories"]) == ("pass", [])


def test_provider_and_reply_errors_are_not_labels(capsys, example_pack, tmp_path, server):
    answers = iter(['{"verdict": "pass", "score": NaN}', '{"verdict": "pass"}',
                    'I think it passes.', '{"verdict": "fail", "categories": ["other"]}'])
    server.answer = lambda body: (next(answers), [])
    server.plan = [{"status": 400, "body": {"error": {"message": "context too long"}}}]
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "local", "--base-url",
                       server.url + "/v1", "--model", "m1")
    assert rc == 0, err
    doc = labels_of(out)
    assert [(x["unit_id"], x["verdict"]) for x in doc["labels"]] == [("u0003", "pass"),
                                                                      ("u0005", "fail")]
    errors = doc["rater"]["model"]["judge_errors"]
    assert [(e["unit_id"], e["error"]) for e in errors] == [
        ("u0001", "provider"), ("u0002", "reply"), ("u0004", "reply")]
    assert errors[0]["message"].startswith("HTTP 400 from local: ")
    assert errors[1]["message"].startswith("not JSON: $.score: NaN is not allowed")
    assert errors[2]["message"] == ("not JSON at character 0 (Expecting value) (reply 'I think "
                                    "it passes.')")
    assert "2 of 5 unit(s) labelled (pass 1, fail 1, unsure 0); 3 not labelled (provider 1, " \
           "reply 2)" in err
    assert "  u0002: reply: not JSON: $.score: NaN" in err
    assert run(["review", "validate", str(out), "--pack", str(example_pack)]) == 0


def test_every_call_failing_at_the_provider_is_exit_3(capsys, example_pack, tmp_path, server,
                                                       error_line):
    server.plan = [{"status": 401, "body": {"error": {"message": "bad key"}}}] * 5
    out = tmp_path / "judge.json"
    rc = run(["review", "judge", str(example_pack), "--out", str(out), "--backend", "local",
              "--base-url", server.url + "/v1", "--model", "m1"])
    assert rc == 3 and not out.exists()
    assert error_line() == (
        "aau: error: 5 of 5 calls failed at the provider: HTTP 401 x5; the judge labelled none "
        "of the 5 units, so nothing was written (first, u0001: HTTP 401 from local: "
        '{"message": "bad key"})')


def _judge_once(capsys, pack: Path, out: Path, server, timeout: str) -> tuple[int, str, float]:
    """``judge`` against the fake server with --max-attempts 1 --timeout TIMEOUT:
    (exit code, stderr, wall seconds)."""
    import time

    start = time.monotonic()
    rc, _, err = judge(capsys, pack, out, "--backend", "local", "--base-url",
                       server.url + "/v1", "--model", "m1", "--max-attempts", "1",
                       "--timeout", timeout)
    return rc, err, time.monotonic() - start


def test_a_failing_provider_is_quick_with_one_attempt_and_names_the_cause(
        capsys, example_pack, tmp_path, server):
    """HTTP 500 every time: --max-attempts 1 --timeout 1 makes one call per unit, no back-off,
    so 5 failing units end (exit 3) in well under 10 s (the default 6 attempts wait 2+4+8+16+32
    s per unit), with progress on stderr and the real cause in the last line."""
    server.plan = [{"status": 500}] * 10
    out = tmp_path / "judge.json"
    rc, err, elapsed = _judge_once(capsys, example_pack, out, server, "1")
    assert rc == 3 and not out.exists() and elapsed < 10, (rc, elapsed, err)
    assert len(server.requests) == 5  # one attempt per unit
    progress = [x for x in err.splitlines() if x.startswith("judge: ")]
    assert progress[0] == "judge: 1 of 5 units done; 1 not labelled (HTTP 500 x1)"
    assert progress[-1] == "judge: 5 of 5 units done; 5 not labelled (HTTP 500 x5)"
    assert err.splitlines()[-1] == (
        "aau: error: 5 of 5 calls failed at the provider: HTTP 500 x5; the judge labelled none "
        "of the 5 units, so nothing was written (first, u0001: giving up after 1 attempts: "
        'HTTP 500 from local: {"message": "canned HTTP 500"})')


def test_a_hanging_provider_times_out_per_call(capsys, example_pack, tmp_path, server):
    """A provider that never answers in time: --timeout 0.5 --max-attempts 1 gives up on each
    call after half a second; 5 units in well under 10 s, each a timeout."""
    import time

    def hang(body):
        time.sleep(3)
        return json.dumps({"verdict": "pass", "categories": []}), []

    server.answer = hang
    out = tmp_path / "judge.json"
    rc, err, elapsed = _judge_once(capsys, example_pack, out, server, "0.5")
    assert rc == 3 and not out.exists() and 2.5 <= elapsed < 10, (rc, elapsed, err)
    assert "judge: 5 of 5 units done; 5 not labelled (timeout x5)" in err.splitlines()
    assert err.splitlines()[-1].startswith(
        "aau: error: 5 of 5 calls failed at the provider: timeout x5; the judge labelled none "
        "of the 5 units, so nothing was written (first, u0001: giving up after 1 attempts: "
        "Timed out talking to local at ")


@pytest.mark.parametrize(("attempts", "labelled"), [("2", 5), ("1", 4)])
def test_max_attempts_is_the_backends_retry_budget(capsys, example_pack, tmp_path, server,
                                                   attempts, labelled):
    server.plan = [{"status": 500, "headers": {"Retry-After": "0"}}]
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "local", "--base-url",
                       server.url + "/v1", "--model", "m1", "--max-attempts", attempts)
    assert rc == 0, err
    assert len(labels_of(out)["labels"]) == labelled
    assert len(server.requests) == 6 if attempts == "2" else 5
    progress = [x for x in err.splitlines() if x.startswith("judge: ")]
    assert progress[-1] == ("judge: 5 of 5 units done" if attempts == "2" else
                            "judge: 5 of 5 units done; 1 not labelled (HTTP 500 x1)")


def test_timeout_and_max_attempts_reach_the_anthropic_client(monkeypatch):
    from aau_core import make_backend

    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    backend = make_backend("anthropic", "claude-haiku-4-5", max_attempts=2, timeout_s=7.5)
    assert (backend._client.max_retries, backend._client.timeout) == (1, 7.5)
    default = make_backend("anthropic", "claude-haiku-4-5")
    assert default._client.max_retries == 5


def test_no_readable_reply_is_exit_3(capsys, example_pack, tmp_path, server):
    server.answer = lambda body: ("pass", [])
    out = tmp_path / "judge.json"
    rc = run(["review", "judge", str(example_pack), "--out", str(out), "--backend", "local",
              "--base-url", server.url + "/v1", "--model", "m1", "--json"])
    assert rc == 3 and not out.exists()
    captured = capsys.readouterr()
    [line] = [x for x in captured.err.splitlines() if x.startswith("aau: ")]
    assert "the judge labelled none of the 5 unit(s) (0 provider failure(s), 5 unreadable " \
           "reply(ies); first, u0001: not JSON at character 0" in line and "nothing was written" in line
    # --json says it was not measured and why (aau_core.json_on_not_measured)
    assert json.loads(captured.out) == {
        "measured": False, "reason": "nothing-labelled", "message": line.removeprefix("aau: error: "),
        "not_measured": 5, "units": 5, "path": None, "rater": "judge-m1"}


def test_anthropic_judge_over_http(capsys, example_pack, tmp_path, server, monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "test-key")
    server.anthropic_answer = lambda body: [
        {"type": "text", "text": json.dumps(_verdict_of(
            {"messages": [{"content": body["messages"][-1]["content"]}]}))}]
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "anthropic", "--base-url",
                       server.url, "--model", "claude-haiku-4-5")
    assert rc == 0, err
    doc = labels_of(out)
    model = doc["rater"]["model"]
    assert model["served"] == "anthropic:claude-haiku-4-5" + fake.SERVED_SUFFIX
    assert model["settings"] == {"backend": "anthropic", "model": "claude-haiku-4-5",
                                 "max_tokens": 4096, "thinking": {"type": "adaptive"},
                                 "output_config": {"effort": "medium"}}
    body = server.requests[0]["body"]
    assert body["system"][0]["text"] == PROMPT.text and "tools" not in body
    assert sorted(x["verdict"] for x in doc["labels"]) == ["fail", "pass", "pass", "pass", "pass"]
    assert "cost_usd" in model


# ---- an interrupt, the Python API ------------------------------------------------------------


def test_ctrl_c_writes_the_labels_finished_and_exits_130(capsys, example_pack, tmp_path,
                                                         monkeypatch):
    import aau_review._judge_mock as mock

    monkeypatch.setattr(mock, "MockJudgeBackend", lambda model=None: _StopAfter())
    out = tmp_path / "judge.json"
    rc, _, err = judge(capsys, example_pack, out, "--backend", "mock")
    assert rc == 130, err
    assert [x["unit_id"] for x in labels_of(out)["labels"]] == ["u0001", "u0002"]
    assert f"interrupted: 2 label(s) written to {out}" in err


# ---- the Python API ---------------------------------------------------------------------------


class _StopAfter(MockJudgeBackend):
    """The mock judge, with Ctrl-C pressed during its third call."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    def create(self, system, messages, tools):
        self.calls += 1
        if self.calls == 3:
            raise KeyboardInterrupt
        return super().create(system, messages, tools)


def test_an_interrupt_keeps_the_units_finished(example_pack):
    pack = read_review_pack(example_pack)
    outcome = judge_pack(pack, _StopAfter(), kind="mock", prompt=PROMPT, rater="judge-mock")
    assert outcome.interrupted and outcome.units == 5
    assert [label.unit_id for label in outcome.labels.labels] == ["u0001", "u0002"]


def test_time_spent_is_the_calls_wall_time(example_pack):
    ticks = iter(range(100))
    outcome = judge_pack(read_review_pack(example_pack), MockJudgeBackend(), kind="mock",
                         prompt=PROMPT, rater="judge-mock", clock=lambda: next(ticks) * 0.25)
    assert [label.time_spent_s for label in outcome.labels.labels] == [0.25] * 5


def test_backend_settings_of_the_mock():
    assert backend_settings("mock", MockJudgeBackend("m")) == {"backend": "mock", "model": "m"}
