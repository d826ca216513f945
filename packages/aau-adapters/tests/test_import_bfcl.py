"""``aau import bfcl`` on the BFCL v4 samples in ../shared/datasets/bfcl: every category imports,
the suite validates, ``--mock`` scores 1.0, and hand-written answers score as BFCL's AST checker
would; plus the type mapping, the wheel and cache paths, and the input/output errors."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import aau_schemas
import pytest
from aau_adapters import (
    AdapterAnswer,
    bfcl_case,
    bfcl_schema,
    decode_tool_calls,
    encode_tools,
    import_bfcl,
    load_suite,
    normalize_response,
    score,
    tool_name_map,
)
from aau_adapters import _bfcl_source as source
from aau_core import InputError, UsageError, run

REPO = Path(__file__).resolve().parents[3]
BFCL = REPO.parent / "shared" / "datasets" / "bfcl"
SKIP = pytest.mark.skipif(
    not BFCL.is_dir(),
    reason="the BFCL samples live in ../shared/datasets/bfcl, beside the repository; a plain "
           "clone has none (CI does), so the importer tests on real data are skipped")
SAMPLES = ["simple_python", "live_simple", "multiple", "parallel", "parallel_multiple",
           "irrelevance"]


def _ids(category: str) -> list[str]:
    path = next(BFCL.glob(f"bfcl_v4_{category}.head*.jsonl"))
    return [json.loads(line)["id"] for line in path.read_text().splitlines() if line.strip()]


def _import(tmp_path: Path, category: str, *extra: str) -> tuple[int, Path]:
    out = tmp_path / f"{category}.json"
    code = run(["import", "bfcl", "--category", category, "--source", str(BFCL), "--out",
                str(out), *extra])
    return code, out


@pytest.fixture(scope="module")
def suites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not BFCL.is_dir():
        pytest.skip("no ../shared/datasets/bfcl")
    folder = tmp_path_factory.mktemp("bfcl")
    out = {}
    for category in SAMPLES:
        code, path = _import(folder, category)
        assert code == 0, category
        out[category] = load_suite(path)
    return out


def _answer(suites: dict[str, Any], category: str, sid: str, calls: list[dict[str, Any]]
            ) -> dict[str, Any]:
    suite = suites[category]
    case = next(c for c in suite.cases if c.scenario_id == sid)
    response = normalize_response({"submitted": True, "tool_calls": calls}, case)
    return score(case, AdapterAnswer(response, None, 0.1))


# ---------------------------------------------------------------------------------------------
# Real samples


@SKIP
@pytest.mark.parametrize("category", SAMPLES)
def test_every_sample_category_imports_and_validates(suites: dict[str, Any], tmp_path: Path,
                                                     category: str) -> None:
    suite = suites[category]
    doc = suite.doc
    aau_schemas.validate("suite-v3", doc)  # closed: every key is one it names
    assert doc["suite_version"] == "aau-byo-agent-suite/3.0" and suite.warnings == []
    assert [c.scenario_id for c in suite.cases] == _ids(category)
    source = doc["source"]
    assert source["benchmark"] == "BFCL" and source["category"] == category
    assert source["imported"] == len(suite.cases) and source["skipped"] == []
    assert all(len(f["sha256"]) == 64 for f in source["files"])
    assert len(source["files"]) == (1 if category == "irrelevance" else 2)
    for case in suite.cases:
        assert case.input["messages"][0]["role"] == "user"
        for tool in case.input["tools"]:
            text = json.dumps(tool)
            for word in ('"dict"', '"float"', '"tuple"', '"any"'):
                assert f'"type": {word}' not in text
        if category == "irrelevance":
            assert case.expected_tool_calls == [] and "tool_call_match" not in case.expected
        else:
            mode = "unordered" if category.startswith("parallel") else "strict"
            assert case.tool_call_match["mode"] == mode
            assert case.expected_tool_calls


@SKIP
@pytest.mark.parametrize("category", SAMPLES)
def test_mock_evaluation_scores_one(suites: dict[str, Any], tmp_path: Path,
                                    category: str) -> None:
    receipt_path = tmp_path / "r.json"
    assert run(["evaluate", suites[category].source, "--mock", "--out", str(receipt_path)]) == 0
    receipt = json.loads(receipt_path.read_text())
    aau_schemas.validate("receipt-v2", receipt)
    assert receipt["metrics"]["exact_rate"] == 1.0
    assert receipt["metrics"]["tool_calls_match_rate"] == 1.0
    assert receipt["scenario_count"] == len(_ids(category))


@SKIP
def test_real_names_kept_and_dotted_names_encode_for_models(suites: dict[str, Any]) -> None:
    case = next(c for c in suites["simple_python"].cases if c.scenario_id == "simple_python_1")
    assert case.input["tools"][0]["function"]["name"] == "math.factorial"
    assert case.expected_tool_calls[0]["name"] == "math.factorial"
    shown = encode_tools(case.input["tools"])
    assert shown[0]["function"]["name"] == "math_factorial"
    assert case.input["tools"][0]["function"]["name"] == "math.factorial"  # not mutated
    table = tool_name_map(t["function"]["name"] for t in case.input["tools"])
    model_calls = [{"name": "math_factorial", "arguments": {"number": 5}}]
    assert _answer(suites, "simple_python", "simple_python_1",
                   decode_tool_calls(model_calls, table))["exact"] is True
    # scoring compares real names: an undecoded name is the wrong function
    assert _answer(suites, "simple_python", "simple_python_1", model_calls)["exact"] is False


@SKIP
@pytest.mark.parametrize(("category", "sid", "calls", "passes"), [
    # simple_python_0: base, height integers; unit optional ("units" or left out)
    ("simple_python", "simple_python_0",
     [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}], True),
    ("simple_python", "simple_python_0",
     [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5,
                                                        "unit": "Units"}}], True),
    ("simple_python", "simple_python_0",
     [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5.0}}], False),
    ("simple_python", "simple_python_0",
     [{"name": "calculate_triangle_area", "arguments": {"base": 10}}], False),
    ("simple_python", "simple_python_0",
     [{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5,
                                                        "colour": "red"}}], False),
    ("simple_python", "simple_python_1",
     [{"name": "math.factorial", "arguments": {"number": "5"}}], False),
    # multiple_0: the right one of two functions; optional booleans may be left out
    ("multiple", "multiple_0",
     [{"name": "triangle_properties.get", "arguments": {"side1": 5, "side2": 4, "side3": 3}}],
     True),
    ("multiple", "multiple_0",
     [{"name": "circle_properties.get", "arguments": {"radius": 5}}], False),
    # parallel_0: two calls in any order; one missing fails
    ("parallel", "parallel_0",
     [{"name": "spotify.play", "arguments": {"artist": "Maroon 5", "duration": 15}},
      {"name": "spotify.play", "arguments": {"artist": "Taylor Swift", "duration": 20}}], True),
    ("parallel", "parallel_0",
     [{"name": "spotify.play", "arguments": {"artist": "Taylor Swift", "duration": 20}}], False),
    # parallel_multiple_1: float parameters accept integers (BFCL's int -> float widening)
    ("parallel_multiple", "parallel_multiple_1",
     [{"name": "area_circle.calculate", "arguments": {"radius": 5}},
      {"name": "area_rectangle.calculate", "arguments": {"length": 7, "breadth": 3}}], True),
    # live_simple_0: user_id integer, special "black" (required by the ground truth)
    ("live_simple", "live_simple_0-0-0",
     [{"name": "get_user_info", "arguments": {"user_id": 7890, "special": "black"}}], True),
    ("live_simple", "live_simple_0-0-0",
     [{"name": "get_user_info", "arguments": {"user_id": 7890}}], False),
    # irrelevance: calling nothing is right, any call is wrong
    ("irrelevance", "irrelevance_0", [], True),
    ("irrelevance", "irrelevance_0",
     [{"name": "determine_body_mass_index", "arguments": {"weight": 70, "height": 1.8}}], False),
])
def test_hand_written_answers_score_as_bfcl(suites: dict[str, Any], category: str, sid: str,
                                            calls: list[dict[str, Any]], passes: bool) -> None:
    row = _answer(suites, category, sid, calls)
    assert row["tool_calls_match"] is passes
    assert row["exact"] is passes
    assert ("tool-call-mismatch" in row["failure_codes"]) is (not passes)


@SKIP
def test_limit_and_deterministic_output(tmp_path: Path) -> None:
    code, out = _import(tmp_path, "parallel", "--limit", "2")
    assert code == 0
    doc = json.loads(out.read_text())
    assert doc["suite_id"] == "bfcl-v4-parallel-first2"
    assert [c["scenario_id"] for c in doc["cases"]] == ["parallel_0", "parallel_1"]
    assert doc["source"]["records_read"] == 2 and doc["source"]["records_in_file"] == 5
    again = tmp_path / "again"
    again.mkdir()
    assert _import(again, "parallel", "--limit", "2")[0] == 0
    assert (again / "parallel.json").read_bytes() == out.read_bytes()


@SKIP
def test_existing_out_needs_force(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "simple_python.json"
    out.write_text("keep")
    code, _ = _import(tmp_path, "simple_python")
    assert code == 2 and out.read_text() == "keep"
    assert "exists" in capsys.readouterr().err
    assert _import(tmp_path, "simple_python", "--force")[0] == 0
    assert json.loads(out.read_text())["suite_id"] == "bfcl-v4-simple_python"


def test_out_naming_a_file_it_reads_is_refused_even_with_force(
        tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    src = tmp_path / "bsrc"
    src.mkdir()
    (src / "bfcl_v4_simple_python.head5.jsonl").write_text('{"id": "q"}\n')
    (src / "bfcl_v4_parallel.answers.head5.jsonl").write_text('{"id": "a"}\n')
    cache = tmp_path / "c2"
    (cache / "bfcl").mkdir(parents=True)
    wheel = cache / "bfcl" / source.BFCL_WHEEL
    wheel.write_bytes(b"wheel")
    for extra in (["--source", str(src), "--out", str(src / "bfcl_v4_simple_python.head5.jsonl")],
                  ["--source", str(src), "--out",
                   str(src / ".." / "bsrc" / "bfcl_v4_parallel.answers.head5.jsonl")],
                  ["--cache-dir", str(cache), "--out", str(wheel)]):
        code = run(["import", "bfcl", "--category", "simple_python", *extra, "--force"])
        assert code == 2, extra
        assert "is also an input of this command" in capsys.readouterr().err
    assert (src / "bfcl_v4_simple_python.head5.jsonl").read_text() == '{"id": "q"}\n'
    assert (src / "bfcl_v4_parallel.answers.head5.jsonl").read_text() == '{"id": "a"}\n'
    assert wheel.read_bytes() == b"wheel"


# ---------------------------------------------------------------------------------------------
# Wheel and cache


def _fake_wheel(path: Path, category: str, question_lines: list[str],
                answer_lines: list[str] | None) -> Path:
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr(f"bfcl_eval/data/BFCL_v4_{category}.json", "\n".join(question_lines) + "\n")
        if answer_lines is not None:
            zf.writestr(f"bfcl_eval/data/possible_answer/BFCL_v4_{category}.json",
                        "\n".join(answer_lines) + "\n")
    return path


@SKIP
def test_reads_a_wheel_and_records_its_version(tmp_path: Path) -> None:
    questions = (BFCL / "bfcl_v4_parallel.head5.jsonl").read_text().splitlines()
    answers = (BFCL / "bfcl_v4_parallel.answers.head5.jsonl").read_text().splitlines()
    wheel = _fake_wheel(tmp_path / "bfcl_eval-2026.3.23-py3-none-any.whl", "parallel",
                        questions, answers)
    out = tmp_path / "p.json"
    assert run(["import", "bfcl", "--category", "parallel", "--source", str(wheel),
                "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["source"]["version"] == "2026.3.23"
    assert doc["source"]["wheel"]["name"] == wheel.name
    assert [f["path"] for f in doc["source"]["files"]] == [
        "bfcl_eval/data/BFCL_v4_parallel.json",
        "bfcl_eval/data/possible_answer/BFCL_v4_parallel.json"]
    folder_doc = import_bfcl("parallel", source=BFCL, source_version="2026.3.23")
    assert folder_doc["cases"] == doc["cases"]
    assert folder_doc["source"]["version"] == "2026.3.23"


def test_download_failure_says_give_source(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                           capsys: pytest.CaptureFixture) -> None:
    def offline(dest: Path) -> None:
        raise UsageError("pip download bfcl-eval==2026.3.23 failed: no network; give --source")

    monkeypatch.setattr(source, "_pip_download", offline)
    code = run(["import", "bfcl", "--category", "simple_python", "--cache-dir", str(tmp_path),
                "--out", str(tmp_path / "s.json")])
    assert code == 2
    assert "give --source" in capsys.readouterr().err
    assert not (tmp_path / "s.json").exists()


def test_downloaded_wheel_with_another_hash_is_refused(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    def fake(dest: Path) -> None:
        _fake_wheel(dest / source.BFCL_WHEEL, "simple_python", ['{"id": "x"}'], ['{"id": "x"}'])

    monkeypatch.setattr(source, "_pip_download", fake)
    with pytest.raises(InputError, match="SHA-256 is .*, not the 3bb6dfa5"):
        source.cached_bfcl_wheel(tmp_path)
    assert not (tmp_path / "bfcl" / source.BFCL_WHEEL).exists()  # never moved into the cache
    assert list((tmp_path / "bfcl").iterdir()) == []  # and the temp folder is gone


def test_cached_wheel_is_rechecked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "bfcl").mkdir()
    (tmp_path / "bfcl" / source.BFCL_WHEEL).write_bytes(b"tampered")
    monkeypatch.setattr(source, "_pip_download", lambda dest: pytest.fail("must not download"))
    with pytest.raises(InputError, match="delete it to download again"):
        source.read_bfcl("simple_python", cache_dir=tmp_path)


def test_default_cache_dir_follows_the_environment(monkeypatch: pytest.MonkeyPatch,
                                                   tmp_path: Path) -> None:
    monkeypatch.setenv("AAU_CACHE_DIR", str(tmp_path / "c"))
    assert source.default_cache_dir() == tmp_path / "c"
    monkeypatch.delenv("AAU_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "x"))
    assert source.default_cache_dir() == tmp_path / "x" / "aau"


# ---------------------------------------------------------------------------------------------
# Records, types and errors (small hand-made records)


RECORD = {"id": "r_0", "question": [[{"role": "user", "content": "Convert 3 km."}]],
          "function": [{"name": "units.convert", "description": "Convert units.",
                        "parameters": {"type": "dict", "properties": {
                            "value": {"type": "float"},
                            "unit": {"type": "string", "optional": True},
                            "opts": {"type": "dict", "properties": {
                                "pair": {"type": "tuple", "items": {"type": "integer"}},
                                "extra": {"type": "any"}}}},
                            "required": ["value"]}}]}


def test_bfcl_schema_maps_python_type_words() -> None:
    schema = bfcl_schema(RECORD["function"][0]["parameters"])
    assert schema == {"type": "object", "required": ["value"], "properties": {
        "value": {"type": "number"},
        "unit": {"type": "string"},
        "opts": {"type": "object", "properties": {
            "pair": {"type": "array", "items": {"type": "integer"}},
            "extra": {}}}}}
    with pytest.raises(ValueError, match=r"parameters\.properties\.s\.type: unknown type word "
                                         "'String'"):
        bfcl_schema({"type": "dict", "properties": {"s": {"type": "String"}}})


def test_impossible_acceptable_values_are_pruned_and_recorded() -> None:
    truth = [{"units.convert": {"value": [3, 3.0], "unit": [None, "km", ""]}}]
    case = bfcl_case(RECORD, truth, "strict")
    assert case["expected"]["tool_calls"][0]["arguments"]["unit"] == ["km", ""]
    assert case.pop("_pruned") == [{"call": 0, "argument": "unit", "value": None}]
    assert case["input"]["tools"][0]["function"]["name"] == "units.convert"


@pytest.mark.parametrize(("record", "truth", "reason"), [
    ({**RECORD, "question": [[{"role": "user", "content": "a"}], [{"role": "user",
                                                                   "content": "b"}]]},
     [{"units.convert": {"value": [3]}}], "2 turns"),
    (RECORD, [{"units.convert": {"value": ["three"]}}], "can never match the declared type"),
    (RECORD, [{"units.convert": {"value": [3], "speed": [3]}}], "declares no parameter 'speed'"),
    ({**RECORD, "function": [*RECORD["function"], {"name": "units_convert"}]},
     [{"units.convert": {"value": [3]}}], "both encode to 'units_convert'"),
])
def test_records_that_cannot_pass_are_skipped_with_a_reason(record: dict[str, Any], truth: Any,
                                                            reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        bfcl_case(record, truth, "strict")


def test_skipped_records_are_listed_in_the_suite(tmp_path: Path) -> None:
    bad = {**RECORD, "id": "r_1"}
    lines = [json.dumps(RECORD), json.dumps(bad)]
    answers = [json.dumps({"id": "r_0", "ground_truth": [{"units.convert": {"value": [3.0]}}]}),
               json.dumps({"id": "r_1", "ground_truth": [{"units.convert": {"value": ["x"]}}]})]
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_simple_python.json").write_text("\n".join(lines))
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text("\n".join(answers))
    doc = import_bfcl("simple_python", source=tmp_path)
    assert [c["scenario_id"] for c in doc["cases"]] == ["r_0"]
    assert doc["source"]["skipped"][0]["id"] == "r_1"
    assert doc["source"]["version"] is None
    assert [f["path"] for f in doc["source"]["files"]] == [
        "BFCL_v4_simple_python.json", "possible_answer/BFCL_v4_simple_python.json"]


def test_input_errors_are_one_line_with_file_and_line(tmp_path: Path,
                                                      capsys: pytest.CaptureFixture) -> None:
    out = tmp_path / "s.json"
    assert run(["import", "bfcl", "--category", "parallel", "--source",
                str(tmp_path / "missing"), "--out", str(out)]) == 2
    assert "missing: no such file or folder" in capsys.readouterr().err
    (tmp_path / "BFCL_v4_parallel.json").write_text(json.dumps(RECORD) + "\n{oops\n")
    assert run(["import", "bfcl", "--category", "parallel", "--source", str(tmp_path),
                "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip()
    assert "BFCL_v4_parallel.json line 2: $: invalid JSON" in err and "\n" not in err
    (tmp_path / "BFCL_v4_parallel.json").write_text(json.dumps(RECORD) + "\n")
    assert run(["import", "bfcl", "--category", "parallel", "--source", str(tmp_path),
                "--out", str(out)]) == 2
    assert "no answers for parallel" in capsys.readouterr().err
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "possible_answer" / "BFCL_v4_parallel.json").write_text('{"id": "other", '
                                                                        '"ground_truth": []}\n')
    assert run(["import", "bfcl", "--category", "parallel", "--source", str(tmp_path),
                "--out", str(out)]) == 2
    assert "no ground truth for 'r_0'" in capsys.readouterr().err
    assert not out.exists()
    assert run(["import", "bfcl", "--category", "java", "--out", str(out)]) == 2


# ---------------------------------------------------------------------------------------------
# The whole pinned wheel, when a previous `aau import bfcl` has cached it


CACHED_WHEEL = source.default_cache_dir() / "bfcl" / source.BFCL_WHEEL
FULL_COUNTS = {  # records in the file, imported (docs/import.md's table)
    "simple_python": (400, 400), "multiple": (200, 200), "parallel": (200, 200),
    "parallel_multiple": (200, 196), "live_simple": (258, 256), "live_multiple": (1053, 1042),
    "irrelevance": (240, 240)}


@pytest.mark.skipif(not CACHED_WHEEL.is_file(),
                    reason=f"the bfcl-eval wheel is not cached in {CACHED_WHEEL.parent} (run "
                           "`aau import bfcl` once with network to fetch it)")
@pytest.mark.parametrize("category", list(FULL_COUNTS))
def test_whole_categories_of_the_pinned_wheel(tmp_path: Path, category: str) -> None:
    out = tmp_path / "s.json"
    assert run(["import", "bfcl", "--category", category, "--out", str(out)]) == 0
    doc = json.loads(out.read_text())
    src = doc["source"]
    assert (src["records_in_file"], src["imported"]) == FULL_COUNTS[category]
    assert src["version"] == "2026.3.23" and src["wheel"]["sha256"] == source.BFCL_WHEEL_SHA256
    assert len(src["skipped"]) == src["records_in_file"] - src["imported"]
    receipt = tmp_path / "r.json"
    assert run(["evaluate", str(out), "--mock", "--max-suite-bytes", "20000000", "--out",
                str(receipt)]) == 0
    assert json.loads(receipt.read_text())["metrics"]["exact_rate"] == 1.0
    if category == "live_multiple":  # docs/import.md's size note is this file's size
        size = f"is a {out.stat().st_size / 1e6:.1f} MB suite"
        assert size in (REPO / "docs" / "import.md").read_text(encoding="utf-8"), size


@pytest.mark.skipif(not CACHED_WHEEL.is_file(), reason="the bfcl-eval wheel is not cached")
def test_a_renamed_pinned_wheel_records_the_version_its_hash_proves(tmp_path: Path) -> None:
    wheel = tmp_path / "bfcl_eval-9.9.9-py3-none-any.whl"
    wheel.write_bytes(CACHED_WHEEL.read_bytes())
    out = tmp_path / "s.json"
    assert run(["import", "bfcl", "--category", "irrelevance", "--limit", "1", "--source",
                str(wheel), "--out", str(out)]) == 0
    src = json.loads(out.read_text())["source"]
    assert src["version"] == source.BFCL_VERSION and src["wheel"]["name"] == wheel.name


def test_tool_name_encoding_round_trip_and_refusals() -> None:
    from aau_adapters import TOOL_NAME_PATTERN, ToolNameError, decode_tool_name, encode_tool_name

    assert encode_tool_name("math.factorial") == "math_factorial"
    assert encode_tool_name("get-weather_2") == "get-weather_2"  # valid names are unchanged
    assert encode_tool_name("a b/c.d") == "a_b_c_d"
    assert TOOL_NAME_PATTERN.match(encode_tool_name("x" * 64))
    with pytest.raises(ToolNameError, match="65 characters"):
        encode_tool_name("x" * 63 + ".y")
    with pytest.raises(ToolNameError):
        encode_tool_name("")
    table = tool_name_map(["math.factorial", "math_sqrt", "math.factorial"])
    assert table == {"math_factorial": "math.factorial", "math_sqrt": "math_sqrt"}
    assert decode_tool_name("math_sqrt", table) == "math_sqrt"
    assert decode_tool_name("invented", table) == "invented"
    with pytest.raises(ToolNameError, match="'a.b' and 'a_b' both encode to 'a_b'"):
        tool_name_map(["a.b", "a_b"])
    bare = [{"name": "spotify.play", "parameters": {}}]
    assert encode_tools(bare) == [{"name": "spotify_play", "parameters": {}}]
    assert bare[0]["name"] == "spotify.play"
    with pytest.raises(ToolNameError):
        encode_tools([{"name": "a.b"}, {"type": "function", "function": {"name": "a_b"}}])
    calls = [{"name": "spotify_play", "arguments": {"artist": "x"}, "id": "c1"}]
    assert decode_tool_calls(calls, {"spotify_play": "spotify.play"}) == [
        {"name": "spotify.play", "arguments": {"artist": "x"}, "id": "c1"}]
    assert calls[0]["name"] == "spotify_play"


def test_a_download_is_announced_unless_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture) -> None:
    def offline(dest: Path) -> None:
        raise UsageError("pip download bfcl-eval==2026.3.23 failed: no network; give --source")

    monkeypatch.setattr(source, "_pip_download", offline)
    args = ["import", "bfcl", "--category", "simple_python", "--cache-dir", str(tmp_path),
            "--out", str(tmp_path / "s.json")]
    assert run(args) == 2
    err = capsys.readouterr().err
    assert f"downloading bfcl-eval==2026.3.23 with pip download --no-deps into {tmp_path}" in err
    assert run([*args, "--quiet"]) == 2
    assert "downloading" not in capsys.readouterr().err


# ---------------------------------------------------------------------------------------------
# Declared defaults inside nested object parameters (a record shaped like the trial's
# simple_python_5: opts.lang declares "en", the ground truth lists "en")

NESTED_QUESTION = {
    "id": "simple_python_5", "question": [[{"role": "user", "content": "weather in Oslo"}]],
    "function": [{"name": "get_weather", "description": "w", "parameters": {
        "type": "dict", "required": ["city"], "properties": {
            "city": {"type": "string", "description": "c"},
            "opts": {"type": "dict", "description": "o",
                     "properties": {"lang": {"type": "string", "default": "en"}}}}}}]}
NESTED_ANSWER = {"id": "simple_python_5",
                 "ground_truth": [{"get_weather": {"city": ["Oslo"], "opts": [{"lang": ["en"]}]}}]}


@pytest.mark.parametrize(("opts", "passes"), [
    ({"lang": "en"}, True),
    ({}, True),            # left out inside opts == its declared default
    ({"lang": "fr"}, False),
])
def test_a_nested_declared_default_counts_as_left_out(tmp_path: Path, opts: dict[str, Any],
                                                      passes: bool) -> None:
    (tmp_path / "possible_answer").mkdir()
    (tmp_path / "BFCL_v4_simple_python.json").write_text(json.dumps(NESTED_QUESTION) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text(
        json.dumps(NESTED_ANSWER) + "\n")
    out = tmp_path / "s.json"
    assert run(["import", "bfcl", "--category", "simple_python", "--source", str(tmp_path),
                "--source-version", "2026.3.23", "--out", str(out)]) == 0
    suite = load_suite(out)
    calls = [{"name": "get_weather", "arguments": {"city": "Oslo", "opts": opts}}]
    row = score(suite.cases[0], AdapterAnswer(
        normalize_response({"submitted": True, "tool_calls": calls}, suite.cases[0]), None, 0.1))
    assert row["tool_calls_match"] is passes
    assert ("tool-call-mismatch" in row["failure_codes"]) is (not passes)
