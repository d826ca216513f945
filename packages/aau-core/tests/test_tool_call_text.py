"""The strict tool-call parser (aau_core._tool_calls._text), on tricky replies.

Every reply is one a chat model can write (the Qwen ones are shaped like the recorded replies in
tests/fixtures/llm/). The rules under test: calls come from structured ``tool_calls``,
``<tool_call>`` tags, fenced JSON, or a reply that is JSON as a whole; a reply is read entirely or
not at all; mixing sources is ambiguous; JSON in prose is not a call.
"""

from __future__ import annotations

import random

import pytest
from aau_core import parse_tool_call_reply as parse_reply
from aau_core import parse_tool_call_text as parse_text
from aau_core._tool_calls._text import NO_TOOL_CALL_NOTE as NO_CALL_NOTE

FACT = {"name": "math_factorial", "arguments": {"number": 5}}
PLAY_A = {"name": "spotify_play", "arguments": {"artist": "Taylor Swift", "duration": 20}}
PLAY_B = {"name": "spotify_play", "arguments": {"artist": "Maroon 5", "duration": 15}}


def _calls(text: str) -> list[dict]:
    parsed = parse_text(text)
    assert not parsed.malformed, parsed.note
    return parsed.calls


# -- replies that hold calls ----------------------------------------------------------------------


def test_one_tag() -> None:
    text = '<tool_call>\n{"name": "math_factorial", "arguments": {"number": 5}}\n</tool_call>'
    parsed = parse_text(text)
    assert (parsed.calls, parsed.source, parsed.note) == ([FACT], "tags", "")


def test_several_tags_keep_their_order() -> None:
    text = ('<tool_call>\n{"name": "spotify_play", "arguments": {"artist": "Taylor Swift", '
            '"duration": 20}}\n</tool_call>\n<tool_call>\n{"name": "spotify_play", "arguments": '
            '{"artist": "Maroon 5", "duration": 15}}\n</tool_call>')
    assert _calls(text) == [PLAY_A, PLAY_B]


def test_fenced_json_inside_a_tag() -> None:
    text = '<tool_call>\n```json\n{"name": "math_factorial", "arguments": {"number": 5}}\n```\n</tool_call>'
    assert _calls(text) == [FACT]


def test_prose_around_tags_is_fine() -> None:
    text = ('Sure, let me compute that.\n<tool_call>{"name": "math_factorial", '
            '"arguments": {"number": 5}}</tool_call>\nDone.')
    assert _calls(text) == [FACT]


def test_one_fenced_block_with_prose() -> None:
    text = ('To find it, call:\n\n```json\n{"name": "math_factorial", "arguments": '
            '{"number": 5}}\n```\n\nThis returns 120.')
    parsed = parse_text(text)
    assert (parsed.calls, parsed.source) == ([FACT], "fenced")


def test_untagged_fence_counts_as_json() -> None:
    assert _calls('```\n{"name": "math_factorial", "arguments": {"number": 5}}\n```') == [FACT]


def test_fenced_list_and_fenced_sequence_and_two_fences() -> None:
    a = '{"name": "spotify_play", "arguments": {"artist": "Taylor Swift", "duration": 20}}'
    b = '{"name": "spotify_play", "arguments": {"artist": "Maroon 5", "duration": 15}}'
    assert _calls(f"```json\n[{a}, {b}]\n```") == [PLAY_A, PLAY_B]
    assert _calls(f"```json\n{a}\n{b}\n```") == [PLAY_A, PLAY_B]
    assert _calls(f"First:\n```json\n{a}\n```\nThen:\n```json\n{b}\n```") == [PLAY_A, PLAY_B]


def test_whole_reply_json() -> None:
    assert _calls(' {"name": "math_factorial", "arguments": {"number": 5}}\n') == [FACT]
    parsed = parse_text('[{"name": "math_factorial", "arguments": {"number": 5}}]')
    assert (parsed.calls, parsed.source) == ([FACT], "json")


def test_arguments_as_json_string_and_parameters_alias() -> None:
    assert _calls('<tool_call>{"name": "math_factorial", "arguments": "{\\"number\\": 5}"}'
                  '</tool_call>') == [FACT]
    assert _calls('```json\n{"name": "math_factorial", "parameters": {"number": 5}}\n```') == [FACT]
    assert _calls('<tool_call>{"name": "get_time"}</tool_call>') == [
        {"name": "get_time", "arguments": {}}]


def test_structured_calls() -> None:
    parsed = parse_reply("", [{"name": "math_factorial", "arguments": {"number": 5}}])
    assert (parsed.calls, parsed.source) == ([FACT], "tool_calls")
    # plain words beside structured calls are fine
    assert parse_reply("Calling it now.", [dict(FACT)]).calls == [FACT]


# -- replies that hold no call --------------------------------------------------------------------


@pytest.mark.parametrize("text", [
    "",
    "I cannot help with that: none of the functions can book a flight.",
    # JSON inside prose, no fence, no tag: not a call (no "first object wins")
    'You could call {"name": "math_factorial", "arguments": {"number": 5}} to get it.',
    # another language's fence is prose
    "```python\nimport math\nprint(math.factorial(5))\n```",
])
def test_no_call(text: str) -> None:
    parsed = parse_text(text)
    assert (parsed.calls, parsed.malformed, parsed.note) == ([], False, NO_CALL_NOTE)


# -- malformed or ambiguous: no call, and a note saying why ---------------------------------------


@pytest.mark.parametrize(("text", "why"), [
    ('<tool_call>{"name": "math_factorial", "arguments": {"number": 5}}', "never closed"),
    ('{"name": "math_factorial"}</tool_call>', "without its <tool_call>"),
    ('<tool_call><tool_call>{"name": "a", "arguments": {}}</tool_call></tool_call>',
     "inside another"),
    ('<tool_call>{"name": "math_factorial", "arguments": {"number": 5}} and more</tool_call>',
     "not JSON at character"),
    ('<tool_call>{"name": "math_factorial", "arguments": {"number": 5}</tool_call>',
     "not JSON"),
    ('<tool_call></tool_call>', "empty"),
    ('<tool_call>{"name": "a", "arguments": {}}</tool_call>\n```json\n{"name": "b", '
     '"arguments": {}}\n```', "ambiguous: both <tool_call> tags and a fenced JSON block"),
    ('```json\n{"result": 120}\n```', "unexpected key(s) ['result']"),
    ('```json\n{"name": "a", "arguments": {}, "id": "x"}\n```', "unexpected key(s) ['id']"),
    ('```json\n{"name": "", "arguments": {}}\n```', "'name' must be a non-empty string"),
    ('```json\n{"name": "a", "arguments": [1, 2]}\n```', "'arguments' must be an object"),
    ('```json\n{"name": "a", "arguments": "not json"}\n```', "'arguments' string is not JSON"),
    ('```json\n{"name": "a", "arguments": {}, "parameters": {}}\n```', "both 'arguments'"),
    ('```json\n[]\n```', "an empty list"),
    ('```json\n"math_factorial(5)"\n```', "a call must be a JSON object"),
    ('{"answer": 120}', "unexpected key(s)"),
    # one good call and one bad: nothing is taken (all or nothing)
    ('<tool_call>{"name": "a", "arguments": {}}</tool_call><tool_call>{"name": "b", '
     '"arguments": 3}</tool_call>', "tag 2"),
])
def test_malformed(text: str, why: str) -> None:
    parsed = parse_text(text)
    assert parsed.calls == []
    assert parsed.malformed
    assert parsed.note.startswith("malformed tool call: ")
    assert why in parsed.note
    assert parsed.note.endswith("; no call taken")


def test_structured_calls_with_markup_are_ambiguous() -> None:
    parsed = parse_reply('<tool_call>{"name": "b", "arguments": {}}</tool_call>', [dict(FACT)])
    assert parsed.calls == [] and parsed.malformed
    assert "ambiguous: structured tool_calls and call markup" in parsed.note


def test_structured_unparseable_arguments() -> None:
    parsed = parse_reply("", [{"name": "math_factorial", "arguments": {"_unparseable": "{num"}}])
    assert parsed.calls == [] and parsed.malformed
    assert "tool_calls[0]: 'arguments' is not JSON" in parsed.note


def test_parser_never_raises() -> None:
    pieces = ["<tool_call>", "</tool_call>", "```json\n", "```", "\n", "{", "}", "[", "]",
              '"name"', ":", '"a"', ",", '"arguments"', "{}", "text", " ", '"', "\\"]
    rng = random.Random(9)
    for _ in range(3000):
        text = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 14)))
        parsed = parse_text(text)
        assert parsed.calls == [] or not parsed.malformed
        assert bool(parsed.note) == (not parsed.calls)


def _nested(rng: random.Random, depth: int) -> str:
    """A JSON-ish text nested ``depth`` deep from random openers (some left unclosed)."""
    opens = "".join(rng.choice('[{"') if i % 7 == 3 else rng.choice("[{") for i in range(depth))
    closes = "".join({"[": "]", "{": "}", '"': '"'}[c] for c in reversed(opens))
    return opens + closes[: rng.randrange(len(closes) + 1)]


@pytest.mark.parametrize("depth", [1_000, 5_000, 50_000])
def test_deep_nesting_is_malformed_never_a_recursion_error(depth: int) -> None:
    for text in (
        "[" * depth + "]" * depth,
        f"<tool_call>{'[' * depth}{']' * depth}</tool_call>",
        f"```json\n{'[' * depth}{']' * depth}\n```",
        '{"name": "f", "arguments": "' + "[" * depth + "]" * depth + '"}',
    ):
        parsed = parse_text(text)
        assert parsed.calls == [] and parsed.malformed, parsed.note
    structured = parse_reply("", [{"name": "f", "arguments": {"_unparseable": "[" * depth}}])
    assert structured.calls == [] and structured.malformed


def test_parser_never_raises_on_random_nesting() -> None:
    rng = random.Random(31)
    for _ in range(200):
        body = _nested(rng, rng.choice([1, 5, 50, 900, 3_000, 20_000]))
        for text in (body, f"<tool_call>{body}</tool_call>", f"```json\n{body}\n```"):
            parsed = parse_text(text)  # must not raise
            assert isinstance(parsed.calls, list)
            assert parse_reply(text, []).calls == parsed.calls


# -- the strict decoder's rules inside replies (issue 17) ----------------------------------------


@pytest.mark.parametrize(("text", "why"), [
    ('```json\n{"name": "get_weather", "arguments": {"city": "Paris", "city": "Rome"}}\n```',
     'fenced block 1: $.arguments: duplicate key "city"'),
    ('<tool_call>{"name": "f", "arguments": {"n": NaN}}</tool_call>',
     "tag 1: $.arguments.n: NaN is not allowed (JSON has no NaN or Infinity)"),
    ('{"name": "f", "arguments": {"n": 1e999}}',
     "reply: $.arguments.n: number 1e999 is too large (overflows to infinity)"),
    ('<tool_call>{"name": "f", "arguments": "{\\"n\\": NaN}"}</tool_call>',
     "tag 1, value 1: 'arguments' string is not JSON "
     "($.n: NaN is not allowed (JSON has no NaN or Infinity))"),
    ('<tool_call>{"name": "f", "arguments": "{\\"q\\": 1} x"}</tool_call>',
     "tag 1, value 1: 'arguments' string is not JSON "
     "(text after the JSON value at character 8: ' x')"),
    ("```json\n```", "fenced block 1: empty"),
    ("Here:\n```json\n\n```", "fenced block 1: empty"),
    ('```json\n{"name": "f", "arguments": {}}\n', "fenced block 1: the fence is never closed"),
])
def test_strict_decoder_refusals_keep_the_reason(text: str, why: str) -> None:
    parsed = parse_text(text)
    assert (parsed.calls, parsed.malformed) == ([], True)
    assert parsed.note == f"malformed tool call: {why}; no call taken"


def test_backticks_inside_a_fenced_string_do_not_close_the_fence() -> None:
    text = ('Writing it down:\n```json\n{"name": "add_note", "arguments": '
            '{"note": "use ``` here", "tag": "md"}}\n```\nDone.')
    parsed = parse_text(text)
    assert (parsed.calls, parsed.source, parsed.note) == (
        [{"name": "add_note", "arguments": {"note": "use ``` here", "tag": "md"}}], "fenced", "")


def test_a_prose_fence_holding_backticks_in_code_stays_prose() -> None:
    parsed = parse_text('```python\nfence = "```json"\n```\nno call here')
    assert (parsed.calls, parsed.malformed, parsed.note) == ([], False, NO_CALL_NOTE)


def test_stray_quotes_after_an_arguments_string_are_recovered_and_flagged() -> None:
    text = '<tool_call>{"name": "lookup", "arguments": "{\\"q\\": 1}\\"\\""}</tool_call>'
    parsed = parse_text(text)
    assert (parsed.calls, parsed.note) == ([{"name": "lookup", "arguments": {"q": 1}}], "")
    assert parsed.recovered == ((0, "dropped stray '\"\"' after the object"),)
    structured = parse_reply("", [
        {"name": "a", "arguments": {}},
        {"name": "b", "arguments": {"q": 1}, "arguments_recovered": "dropped stray '\"'"}])
    assert structured.calls == [{"name": "a", "arguments": {}}, {"name": "b", "arguments": {"q": 1}}]
    assert structured.recovered == ((1, "dropped stray '\"'"),)


def test_structured_arguments_refused_by_the_backend_keep_the_reason() -> None:
    parsed = parse_reply("", [{"name": "get_weather",
                               "arguments": {"_unparseable": '{"city":"Paris","city":"Rome"}'},
                               "arguments_error": 'duplicate key "city"'}])
    assert (parsed.calls, parsed.malformed) == ([], True)
    assert parsed.note == ("malformed tool call: tool_calls[0]: 'arguments' is not JSON "
                           '(duplicate key "city"); no call taken')
