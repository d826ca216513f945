"""Tool-call matching: modes, matchers, BFCL rules, order independence, and BFCL samples with
hand-written right and wrong answers."""

from __future__ import annotations

import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest
from aau_core import (
    ToolCallFormatError,
    calls_from_bfcl,
    check_expected_calls,
    example_calls,
    match_tool_calls,
    normalize_tool_calls,
)
from aau_core._tool_calls._expected import check_matchers
from aau_core._tool_calls._matching import (
    TOOL_CALL_MODES,
    call_mismatches,
    standardize_string,
    value_matches,
)

BFCL = Path(__file__).resolve().parents[3].parent / "shared" / "datasets" / "bfcl"
BFCL_MISSING = ("BFCL samples live in ../shared/datasets/bfcl beside the repository; a plain clone "
                "has none, so the BFCL right/wrong answer cases are skipped")


def call(name: str, **arguments: Any) -> dict[str, Any]:
    return {"name": name, "arguments": arguments}


WEATHER = [call("get_weather", city=["Paris"], unit=["celsius", ""]),
           call("get_time", zone=["Europe/Paris"])]


# ------------------------------------------------------------------------------------ modes


@pytest.mark.parametrize(("mode", "actual", "ok"), [
    ("strict", [call("get_weather", city="Paris"), call("get_time", zone="Europe/Paris")], True),
    ("strict", [call("get_time", zone="Europe/Paris"), call("get_weather", city="Paris")], False),
    ("strict", [call("get_weather", city="Paris")], False),
    ("unordered", [call("get_time", zone="Europe/Paris"), call("get_weather", city="Paris")], True),
    ("unordered", [call("get_weather", city="Paris")], False),
    ("unordered", [call("get_weather", city="Paris"), call("get_time", zone="Europe/Paris"),
                   call("get_time", zone="Europe/Paris")], False),
    ("subset", [call("get_time", zone="Europe/Paris")], True),
    ("subset", [], True),
    ("subset", [call("get_time", zone="Europe/Paris"), call("get_time", zone="Europe/Paris")],
     False),
    ("subset", [call("get_time", zone="Europe/Paris"), call("delete_all")], False),
    ("superset", [call("get_time", zone="Europe/Paris"), call("ping"),
                  call("get_weather", city="Paris")], True),
    ("superset", [call("get_time", zone="Europe/Paris"), call("ping")], False),
])
def test_modes(mode: str, actual: list[dict[str, Any]], ok: bool) -> None:
    result = match_tool_calls(WEATHER, actual, mode=mode)
    assert result.matched is ok
    assert bool(result.reasons) is not ok
    assert result.mode == mode
    assert (result.expected_count, result.actual_count) == (2, len(actual))


def test_strict_reason_names_call_argument_value_and_allowed() -> None:
    result = match_tool_calls(WEATHER, [call("get_weather", city="Lyon"),
                                        call("get_time", zone="Europe/Paris")])
    assert result.reasons == ("call #0 'get_weather': argument 'city': got 'Lyon', allowed "
                              "['Paris']",)
    assert result.pairs == ((1, 1),)


def test_strict_count_mismatch_reason() -> None:
    result = match_tool_calls(WEATHER, [call("get_weather", city="Paris")])
    assert result.reasons[0] == "expected 2 call(s) in order, got 1"


def test_superset_reason_quotes_closest_candidate() -> None:
    result = match_tool_calls(WEATHER, [call("get_weather", city="Rome"),
                                        call("get_time", zone="Europe/Paris")], mode="superset")
    assert not result.matched
    assert result.reasons == ("expected call #0 'get_weather' was not made; closest: actual call "
                              "#0: argument 'city': got 'Rome', allowed ['Paris']",)


def test_subset_reason_names_the_extra_call() -> None:
    result = match_tool_calls(WEATHER, [call("drop_table", table="users")], mode="subset")
    assert result.reasons == ("actual call #0 'drop_table' matches no expected call left "
                              "(extra call)",)


@pytest.mark.parametrize("mode", TOOL_CALL_MODES)
def test_expected_nothing_means_any_call_fails(mode: str) -> None:
    assert match_tool_calls([], [], mode=mode).matched
    result = match_tool_calls([], [call("ping")], mode=mode)
    assert not result.matched
    assert result.reasons == ("no call was expected; got 1: 'ping'",)


def test_unknown_mode_is_refused() -> None:
    with pytest.raises(ToolCallFormatError, match="unknown mode 'fuzzy'"):
        match_tool_calls(WEATHER, [], mode="fuzzy")


def test_bipartite_matching_beats_greedy() -> None:
    # Actual #0 fits both expected calls, actual #1 only the first: a greedy pass that gives
    # actual #0 to expected #0 strands expected #1.
    expected = [call("search", q=["cats", "dogs"]), call("search", q=["cats"])]
    actual = [call("search", q="cats"), call("search", q="dogs")]
    for mode in ("unordered", "superset", "subset"):
        result = match_tool_calls(expected, actual, mode=mode)
        assert result.matched, mode
        assert result.pairs == ((0, 1), (1, 0))


def _shuffled(items: list[Any], rng: random.Random) -> list[Any]:
    out = list(items)
    rng.shuffle(out)
    return out


def test_order_never_changes_the_verdict_outside_strict() -> None:
    rng = random.Random(20261130)
    names = ["a", "b"]
    values = [1, 2, 3]
    for _ in range(300):
        expected = [call(rng.choice(names), x=rng.sample(values, rng.randint(1, 2)))
                    for _ in range(rng.randint(0, 4))]
        actual = [call(rng.choice(names), x=rng.choice(values)) for _ in range(rng.randint(0, 4))]
        for mode in ("unordered", "subset", "superset"):
            want = match_tool_calls(expected, actual, mode=mode).matched
            for _ in range(4):
                got = match_tool_calls(_shuffled(expected, rng), _shuffled(actual, rng),
                                       mode=mode).matched
                assert got is want, (mode, expected, actual)


def test_unordered_equals_some_permutation_passing_strict() -> None:
    rng = random.Random(7)
    for _ in range(150):
        expected = [call(rng.choice("ab"), x=rng.sample([1, 2, 3], rng.randint(1, 2)))
                    for _ in range(rng.randint(1, 3))]
        actual = [call(rng.choice("ab"), x=rng.choice([1, 2, 3]))
                  for _ in range(len(expected))]
        any_order = any(match_tool_calls(expected, list(p)).matched
                        for p in itertools.permutations(actual))
        assert match_tool_calls(expected, actual, mode="unordered").matched is any_order


# --------------------------------------------------------------------------------- matchers


def test_exact_uses_bfcl_string_standardisation() -> None:
    assert standardize_string("April 1, 2024") == "april12024"
    assert standardize_string("It's a_b/c-d*e^f.") == 'it"sabcdef'
    assert value_matches("april 1 2024", "April 1, 2024")
    assert value_matches("NEW-YORK", "new york")
    assert not value_matches("New Yorkk", "new york")


def test_verbatim_and_case_insensitive() -> None:
    assert not value_matches("paris", "Paris", "verbatim")
    assert value_matches("Paris", "Paris", "verbatim")
    assert value_matches("PARIS", "paris", "case_insensitive")
    assert not value_matches("new-york", "new york", "case_insensitive")
    assert value_matches(["PARIS"], ["paris"], "case_insensitive")


def test_any_matcher_accepts_any_value_but_not_missing_required() -> None:
    expected = [call("note", text=["hello"])]
    matchers = {"note": {"text": "any"}}
    assert match_tool_calls(expected, [call("note", text=12345)], matchers=matchers).matched
    result = match_tool_calls(expected, [call("note")], matchers=matchers)
    assert result.reasons == ("call #0 'note': missing argument 'text' (allowed ['hello']; not "
                              "optional)",)


def test_numeric_tolerance() -> None:
    expected = [call("move", dx=[1.0], dy=[100])]
    tol = {"move": {"dx": {"tolerance": 0.01}, "dy": {"relative": 0.05}}}
    assert match_tool_calls(expected, [call("move", dx=1.009, dy=104.9)], matchers=tol).matched
    result = match_tool_calls(expected, [call("move", dx=1.02, dy=106)], matchers=tol)
    assert result.reasons == (
        "call #0 'move': argument 'dx': got 1.02, allowed [1.0]",
        "call #0 'move': argument 'dy': got 106, allowed [100]",
    )
    # without a tolerance numbers must be equal
    assert not match_tool_calls(expected, [call("move", dx=1.009, dy=100)]).matched
    assert not value_matches(True, 1, {"tolerance": 5})


def test_matcher_table_is_checked() -> None:
    check_matchers({"t": {"a": "exact", "b": {"tolerance": 0.5, "relative": 0.1}}})
    with pytest.raises(ToolCallFormatError, match=r"\$\.t\.a: unknown matcher 'fuzzy'"):
        check_matchers({"t": {"a": "fuzzy"}})
    with pytest.raises(ToolCallFormatError, match=r"\$\.t\.a\.tolerance: must be a finite"):
        check_matchers({"t": {"a": {"tolerance": -1}}})
    with pytest.raises(ToolCallFormatError, match="numeric matcher"):
        check_matchers({"t": {"a": {"abs": 1}}})


def test_nested_patterns_and_lists() -> None:
    want = {"city": ["Paris", ""], "zip": ["75001"]}
    assert value_matches({"zip": "75001"}, want)
    assert value_matches({"zip": "75001", "city": "paris"}, want)
    assert not value_matches({"city": "Paris"}, want)  # zip not optional
    assert not value_matches({"zip": "75001", "country": "FR"}, want)  # unexpected key
    assert value_matches([{"k": 1}, {"k": 2}], [{"k": [1]}, {"k": [2, 3]}])
    assert not value_matches([{"k": 2}, {"k": 1}], [{"k": [1]}, {"k": [2, 3]}])
    assert not value_matches([1, 2, 3], [1, 2])
    assert not value_matches(1, True) and not value_matches(True, 1)
    assert value_matches(None, None) and not value_matches(0, None)


def test_int_for_float_and_not_the_reverse_when_types_are_known() -> None:
    fn = [{"name": "f", "parameters": {"properties": {"x": {"type": "float"},
                                                      "n": {"type": "integer"}},
                                       "required": ["x", "n"]}}]
    expected = [call("f", x=[2.0], n=[3])]
    assert match_tool_calls(expected, [call("f", x=2, n=3)], functions=fn).matched
    result = match_tool_calls(expected, [call("f", x=2.0, n=3.0)], functions=fn)
    assert result.reasons == ("call #0 'f': argument 'n': expected type integer, got float "
                              "(3.0)",)
    # without definitions numbers compare by value
    assert match_tool_calls(expected, [call("f", x=2, n=3.0)]).matched


def test_array_item_types_are_checked() -> None:
    fn = [{"name": "f", "parameters": {"type": "object", "properties": {
        "xs": {"type": "array", "items": {"type": "integer"}}}}}]
    expected = [call("f", xs=[[1, 2]])]
    assert match_tool_calls(expected, [call("f", xs=[1, 2])], functions=fn).matched
    result = match_tool_calls(expected, [call("f", xs=[1, 2.0])], functions=fn)
    assert result.reasons == ("call #0 'f': argument 'xs': item 1: expected type integer, got "
                              "float ([1, 2.0])",)


def test_argument_not_in_definition_is_unexpected() -> None:
    fn = [{"name": "f", "parameters": {"properties": {"a": {"type": "string"}}}}]
    expected = [call("f", a=["x"], b=["", "y"])]
    result = match_tool_calls(expected, [call("f", a="x", b="y")], functions=fn)
    assert result.reasons == ("call #0 'f': unexpected argument 'b' (got 'y')",)


# ----------------------------------------------------------------------------- input shapes


def test_normalize_tool_calls() -> None:
    assert normalize_tool_calls([{"name": "a", "id": "x"}]) == [{"name": "a", "arguments": {}}]
    with pytest.raises(ToolCallFormatError, match=r"^\$: tool_calls must be an array"):
        normalize_tool_calls({"name": "a"})
    with pytest.raises(ToolCallFormatError, match=r"^\$\[0\]\.name: must be a non-empty"):
        normalize_tool_calls([{"name": ""}])
    with pytest.raises(ToolCallFormatError, match="decode a JSON-encoded string first"):
        normalize_tool_calls([{"name": "a", "arguments": "{\"x\": 1}"}])
    with pytest.raises(ToolCallFormatError, match=r"^\$\[1\]: a tool call must be an object"):
        normalize_tool_calls([{"name": "a"}, "b"])


def test_check_expected_calls() -> None:
    check_expected_calls(WEATHER)
    with pytest.raises(ToolCallFormatError, match=r"\$\[0\]\.arguments\.city: must be a non-empty"):
        check_expected_calls([call("f", city="Paris")])
    with pytest.raises(ToolCallFormatError, match=r"\$\[0\]: must be an object"):
        check_expected_calls([{"arguments": {}}])


def test_example_calls_satisfy_their_expectation() -> None:
    expected = [call("f", a=["", "x"], b=[""], c=[{"k": ["", 1], "j": [""]}], d=[[1, 2]])]
    made = example_calls(expected)
    assert made == [call("f", a="x", c={"k": 1}, d=[1, 2])]
    assert match_tool_calls(expected, made).matched


# ------------------------------------------------------------------------- BFCL right answers


def _bfcl(category: str) -> dict[str, tuple[list[dict[str, Any]], list[dict[str, Any]]]]:
    """``{id: (functions, expected calls)}`` for one BFCL sample file."""
    if not BFCL.is_dir():
        pytest.skip(BFCL_MISSING)
    questions = [json.loads(line) for line in
                 (BFCL / f"bfcl_v4_{category}.head5.jsonl").read_text().splitlines()]
    answers_file = BFCL / f"bfcl_v4_{category}.answers.head5.jsonl"
    answers = {}
    if answers_file.exists():
        for line in answers_file.read_text().splitlines():
            record = json.loads(line)
            answers[record["id"]] = calls_from_bfcl(record["ground_truth"])
    return {q["id"]: (q["function"], answers.get(q["id"], [])) for q in questions}


# BFCL's categories map onto modes: simple/multiple are one call (strict); parallel and
# parallel_multiple accept any order (unordered); irrelevance expects no call.
MODE_OF = {"simple_python": "strict", "live_simple": "strict", "multiple": "strict",
           "parallel": "unordered", "parallel_multiple": "unordered", "irrelevance": "strict"}

RIGHT = [
    ("simple_python", "simple_python_0", [call("calculate_triangle_area", base=10, height=5)]),
    ("simple_python", "simple_python_0",
     [call("calculate_triangle_area", base=10, height=5, unit="Units")]),
    ("simple_python", "simple_python_1", [call("math.factorial", number=5)]),
    ("simple_python", "simple_python_2", [call("math.hypot", x=4, y=5)]),
    ("simple_python", "simple_python_2", [call("math.hypot", x=4, y=5, z=0)]),
    ("simple_python", "simple_python_3", [call("algebra.quadratic_roots", a=1, b=-3, c=2)]),
    ("simple_python", "simple_python_4", [call("solve_quadratic_equation", a=2, b=6, c=5)]),
    ("live_simple", "live_simple_0-0-0", [call("get_user_info", user_id=7890, special="black")]),
    ("live_simple", "live_simple_1-1-0",
     [call("github_star", repos="ShishirPatil/gorilla,gorilla-llm/gorilla-cli", aligned=True)]),
    # BFCL standardisation: spaces and commas do not count, case does not count
    ("live_simple", "live_simple_2-2-0",
     [call("uber.ride", loc="2020 addison street berkeley CA USA", type="Comfort", time=600)]),
    ("live_simple", "live_simple_3-2-1",
     [call("uber.ride", loc="221B Baker Street, Berkeley, CA, USA", type="plus", time=600)]),
    ("live_simple", "live_simple_4-3-0", [call("get_current_weather", location="Tel Aviv, Israel")]),
    ("multiple", "multiple_0", [call("triangle_properties.get", side1=5, side2=4, side3=3)]),
    ("multiple", "multiple_0", [call("triangle_properties.get", side1=5, side2=4, side3=3,
                                     get_area=True, get_perimeter=True, get_angles=True)]),
    ("multiple", "multiple_1", [call("math.triangle_area_heron", side1=3, side2=4, side3=5)]),
    ("multiple", "multiple_2", [call("country_info.capital", country="brazil")]),
    ("multiple", "multiple_3", [call("EuclideanDistance.calculate", pointA=[3, 4], pointB=[1, 2])]),
    ("multiple", "multiple_4", [call("kinematics.calculate_displacement", initial_speed=20,
                                     acceleration=10, time=5, rounding=2)]),
    ("parallel", "parallel_0", [call("spotify.play", artist="Taylor Swift", duration=20),
                                call("spotify.play", artist="Maroon 5", duration=15)]),
    # swapped order in a parallel case is fine
    ("parallel", "parallel_0", [call("spotify.play", artist="Maroon 5", duration=15),
                                call("spotify.play", artist="Taylor Swift", duration=20)]),
    ("parallel", "parallel_1", [call("calculate_em_force", b_field=5, area=2, d_time=10),
                                call("calculate_em_force", b_field=5, area=2, d_time=4)]),
    ("parallel", "parallel_2", [call("calculate_resistance", length=5, area=0.01),
                                call("calculate_resistance", length=5, area=0.01,
                                     resistivity="aluminum")]),
    ("parallel", "parallel_3", [call("protein_info.get_sequence_and_3D", protein_name="rat hemoglobin"),
                                call("protein_info.get_sequence_and_3D", protein_name="HbA1c",
                                     model_3d=True),
                                call("protein_info.get_sequence_and_3D",
                                     protein_name="normal hemoglobin")]),
    # an integer where a float is declared (height) is accepted
    ("parallel", "parallel_4", [call("calculate_bmi", height=6, weight=80),
                                call("calculate_bmi", height=5.6, weight=60)]),
    ("parallel_multiple", "parallel_multiple_0",
     [call("math_toolkit.product_of_primes", count=5),
      call("math_toolkit.sum_of_multiples", lower_limit=1, upper_limit=1000, multiples=[3, 5])]),
    ("parallel_multiple", "parallel_multiple_1",
     [call("area_rectangle.calculate", length=7, breadth=3),
      call("area_circle.calculate", radius=5.0)]),
    ("parallel_multiple", "parallel_multiple_2",
     [call("circle.calculate_area", radius=5), call("circle.calculate_circumference", diameter=10)]),
    ("parallel_multiple", "parallel_multiple_3",
     [call("get_rectangle_property", perimeter=14, area=15, property="width"),
      call("get_rectangle_property", perimeter=14, area=15, property="length", tolerance=0.1)]),
    ("parallel_multiple", "parallel_multiple_4",
     [call("integral", function="x**2", a=1.0, b=5.0),
      call("derivative", function="lambda x : x**2", x=3)]),
    ("irrelevance", "irrelevance_0", []),
    ("irrelevance", "irrelevance_3", []),
]

WRONG = [
    # wrong value
    ("simple_python", "simple_python_1", [call("math.factorial", number=6)],
     "call #0 'math.factorial': argument 'number': got 6, allowed [5]"),
    # missing required argument
    ("simple_python", "simple_python_0", [call("calculate_triangle_area", base=10)],
     "call #0 'calculate_triangle_area': missing required argument 'height'"),
    # extra (unexpected) argument
    ("simple_python", "simple_python_1", [call("math.factorial", number=5, precise=True)],
     "call #0 'math.factorial': unexpected argument 'precise' (got True)"),
    # an argument the function knows but the answer does not allow
    ("parallel_multiple", "parallel_multiple_3",
     [call("get_rectangle_property", perimeter=14, area=15, property="width", tolerance=0.1),
      call("get_rectangle_property", perimeter=14, area=15, property="length")],
     "expected call #0 'get_rectangle_property' was not made; closest: actual call #0: "
     "argument 'tolerance': got 0.1, but it must be left out (its only acceptable value is \"\")"),
    # wrong function among several offered
    ("multiple", "multiple_2", [call("country_info.largest_city", country="Brazil")],
     "call #0 'country_info.largest_city': expected function "
     "'country_info.capital'"),
    # a float where an integer is declared
    ("simple_python", "simple_python_1", [call("math.factorial", number=5.0)],
     "call #0 'math.factorial': argument 'number': expected type integer, got float (5.0)"),
    ("live_simple", "live_simple_2-2-0",
     [call("uber.ride", loc="2020 Addison Street, Berkeley, CA, USA", type="comfort", time=600.0)],
     "call #0 'uber.ride': argument 'time': expected type integer, got float (600.0)"),
    # a boolean is not an integer
    ("simple_python", "simple_python_2", [call("math.hypot", x=4, y=5, z=False)],
     "call #0 'math.hypot': argument 'z': expected type integer, got boolean (False)"),
    # a string is not a boolean
    ("live_simple", "live_simple_1-1-0",
     [call("github_star", repos="ShishirPatil/gorilla,gorilla-llm/gorilla-cli", aligned="true")],
     "call #0 'github_star': argument 'aligned': expected type boolean, got string ('true')"),
    # standardisation does not forgive a different word
    ("live_simple", "live_simple_4-3-0",
     [call("get_current_weather", location="Tel Aviv, Israel", unit="celsius")],
     "call #0 'get_current_weather': argument 'unit': got 'celsius', allowed ['fahrenheit'] or left out"),
    # array order matters
    ("multiple", "multiple_3", [call("EuclideanDistance.calculate", pointA=[4, 3], pointB=[1, 2])],
     "call #0 'EuclideanDistance.calculate': argument 'pointA': got [4, 3], allowed [[3, 4]]"),
    # one of the parallel calls missing
    ("parallel", "parallel_0", [call("spotify.play", artist="Taylor Swift", duration=20)],
     "expected call #1 'spotify.play' was not made"),
    # a parallel call with a wrong value
    ("parallel", "parallel_1", [call("calculate_em_force", b_field=5, area=2, d_time=4),
                                call("calculate_em_force", b_field=5, area=2, d_time=40)],
     "expected call #1 'calculate_em_force' was not made; closest: actual call #1: argument "
     "'d_time': got 40, allowed [10]"),
    # the same parallel call twice instead of two different ones
    ("parallel", "parallel_4", [call("calculate_bmi", height=6.0, weight=80),
                                call("calculate_bmi", height=6.0, weight=80)],
     "expected call #1 'calculate_bmi' was not made; closest: actual call #1: argument "
     "'height': got 6.0, allowed [5.6]; argument 'weight': got 80, allowed [60]"),
    # an extra call in a parallel case
    ("parallel_multiple", "parallel_multiple_2",
     [call("circle.calculate_area", radius=5), call("circle.calculate_circumference", diameter=10),
      call("rectangle.calculate_perimeter", length=1, breadth=2)],
     "actual call #2 'rectangle.calculate_perimeter' matches no expected call left (extra call)"),
    # irrelevance: any call fails
    ("irrelevance", "irrelevance_0", [call("determine_body_mass_index", weight=70.0, height=1.8)],
     "no call was expected; got 1: 'determine_body_mass_index'"),
]


@pytest.mark.parametrize(("category", "case_id", "actual"), RIGHT,
                         ids=[f"{c}-{i}-{n}" for n, (c, i, _) in enumerate(RIGHT)])
def test_bfcl_right_answers_pass(category: str, case_id: str,
                                 actual: list[dict[str, Any]]) -> None:
    functions, expected = _bfcl(category)[case_id]
    result = match_tool_calls(expected, actual, mode=MODE_OF[category], functions=functions)
    assert result.matched, result.reasons
    assert len(result.pairs) == len(expected)


@pytest.mark.parametrize(("category", "case_id", "actual", "reason"), WRONG,
                         ids=[f"{c}-{i}-{n}" for n, (c, i, _, _) in enumerate(WRONG)])
def test_bfcl_wrong_answers_fail_with_the_reason(category: str, case_id: str,
                                                 actual: list[dict[str, Any]],
                                                 reason: str) -> None:
    functions, expected = _bfcl(category)[case_id]
    result = match_tool_calls(expected, actual, mode=MODE_OF[category], functions=functions)
    assert not result.matched
    assert reason in result.reasons, result.reasons


@pytest.mark.parametrize("category", sorted(MODE_OF))
def test_bfcl_ground_truth_examples_pass_and_cover_every_record(category: str) -> None:
    records = _bfcl(category)
    assert len(records) == 5
    for case_id, (functions, expected) in records.items():
        check_expected_calls(expected)
        made = example_calls(expected)
        result = match_tool_calls(expected, list(reversed(made)), mode=MODE_OF[category],
                                  functions=functions)
        assert result.matched is (MODE_OF[category] == "unordered" or len(made) <= 1), case_id


def test_call_mismatches_lists_every_problem() -> None:
    fn = {"name": "f", "parameters": {"properties": {"a": {"type": "integer"},
                                                     "b": {"type": "string"}},
                                      "required": ["a"]}}
    problems = call_mismatches(call("f", b=["x"]), call("f", b="y", c=1), function=fn)
    assert problems == ["missing required argument 'a'", "argument 'b': got 'y', allowed ['x']",
                        "unexpected argument 'c' (got 1)"]
