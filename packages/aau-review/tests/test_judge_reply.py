"""A judge's prompt, its question and how its reply becomes a label (``_judge_reply``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from aau_core import InputError, UsageError
from aau_review._judge_reply import (
    JudgeVerdict,
    ReplyError,
    judge_message,
    parse_reply,
    read_prompt,
    reply_text,
)
from aau_review._models import Category, Taxonomy
from aau_review._pack import read_review_pack

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "aau_review"
TAXONOMY = Taxonomy(categories=(Category("wrong-tool", "the wrong tool"),
                                Category("wrong-arguments", "wrong arguments")))


def test_a_plain_reply_is_read():
    said = parse_reply('{"verdict": "fail", "categories": ["wrong-arguments"], '
                       '"note": "  city is wrong "}', TAXONOMY)
    assert said == JudgeVerdict("fail", ("wrong-arguments",), "city is wrong")


@pytest.mark.parametrize("text", [
    '```json\n{"verdict": "pass", "categories": []}\n```',
    '\n```\n{"verdict": "pass"}\n```\n',
    '{"verdict": "pass", "categories": [], "note": "   "}',
    '{"verdict": "pass", "categories": []}""',  # the decoder's one recovery (stray quotes)
])
def test_a_fenced_or_bare_pass_is_read(text):
    assert parse_reply(text, TAXONOMY) == JudgeVerdict("pass", (), None)


@pytest.mark.parametrize("text,reason", [
    ('{"verdict": "pass", "verdict": "fail"}', 'not JSON: duplicate key "verdict"'),
    ('{"verdict": "fail", "score": NaN}', "not JSON: $.score: NaN is not allowed"),
    ('Sure! {"verdict": "pass"}', "not JSON at character 0 (Expecting value) (reply 'Sure!"),
    ('{"verdict": "pass"} because it is right', "not JSON: text after the JSON value"),
    ('```json\n{"verdict": "pass"}\n```\nHope this helps', "not JSON at character 0"),
    ("", "not JSON: empty (no JSON value)"),
    ('["pass"]', "not a JSON object"),
    ('{"verdict": "pass", "reason": "ok"}', "unknown key(s) 'reason'"),
    ('{"categories": []}', "no verdict"),
    ('{"verdict": "maybe"}', "verdict 'maybe' is not one of pass, fail, unsure"),
    ('{"verdict": "fail", "categories": "wrong-tool"}', "categories is not a list"),
    ('{"verdict": "fail", "categories": ["wrong-tool", "wrong-tool"]}',
     "a category is named twice"),
    ('{"verdict": "fail", "categories": ["typo"]}',
     "category 'typo' is not in the pack's taxonomy (wrong-arguments, wrong-tool)"),
    ('{"verdict": "pass", "categories": ["wrong-tool"]}',
     "a pass names failure categories (wrong-tool): a contradiction, not a label"),
    ('{"verdict": "fail", "note": 3}', "note is not a string"),
    (json.dumps({"verdict": "fail", "note": "x" * 501}),
     "note is longer than 500 characters (501)"),
])
def test_an_unreadable_reply_is_no_label(text, reason):
    with pytest.raises(ReplyError) as caught:
        parse_reply(text, TAXONOMY)
    assert caught.value.reason.startswith(reason), caught.value.reason


def test_unsure_may_name_the_categories_suspected():
    said = parse_reply('{"verdict": "unsure", "categories": ["wrong-tool"]}', TAXONOMY)
    assert said == JudgeVerdict("unsure", ("wrong-tool",), None)


def test_reply_text_joins_text_blocks_only():
    response = {"content": [{"type": "thinking", "thinking": "hmm"},
                            {"type": "text", "text": '{"verdict":'},
                            {"type": "tool_use", "name": "x", "input": {}},
                            {"type": "text", "text": ' "pass"}'}]}
    assert reply_text(response) == '{"verdict": "pass"}'
    assert reply_text({"content": []}) == ""


def test_the_default_prompt_is_package_data_hashed_by_its_bytes():
    prompt = read_prompt()
    data = (PACKAGE / "judge_prompt.md").read_bytes()
    assert prompt.text == data.decode("utf-8")
    assert prompt.sha256 == hashlib.sha256(data).hexdigest()
    assert prompt.source == "aau_review/judge_prompt.md"
    assert '{"verdict": "pass", "categories": [], "note":' in prompt.text


def test_a_prompt_file_replaces_it(tmp_path):
    path = tmp_path / "p.md"
    path.write_bytes(b"Judge strictly.\r\n")
    prompt = read_prompt(path)
    assert (prompt.text, prompt.sha256) == ("Judge strictly.\r\n",
                                            hashlib.sha256(b"Judge strictly.\r\n").hexdigest())
    path.write_text("  \n", encoding="utf-8")
    with pytest.raises(InputError, match=r"p\.md: the prompt is empty"):
        read_prompt(path)
    path.write_bytes(b"\xff\xfe")
    with pytest.raises(InputError, match="not UTF-8 text"):
        read_prompt(path)
    with pytest.raises(UsageError, match=r"--prompt .*missing\.md: cannot read it"):
        read_prompt(tmp_path / "missing.md")


def test_the_question_holds_the_unit_and_taxonomy_and_no_verdict_or_id(example_pack, tmp_path,
                                                                        prepare):
    pack = read_review_pack(example_pack)
    unit = pack.tasks.units[2]
    asked = json.loads(judge_message(unit, pack.tasks.taxonomy))
    assert sorted(asked) == ["categories", "unit", "verdicts"]
    assert asked["unit"] == {"input": unit.input, "response": unit.response, "error": None}
    assert asked["verdicts"] == ["pass", "fail", "unsure"]
    assert [c["id"] for c in asked["categories"]] == [
        "wrong-tool", "wrong-arguments", "missing-call", "extra-call", "wrong-outcome",
        "unsafe-action", "other"]
    unblinded = tmp_path / "unblinded"
    assert prepare(unblinded, "--raters", "alice", "--show-scores") == 0
    shown = read_review_pack(unblinded).tasks
    asked = json.loads(judge_message(shown.units[0], shown.taxonomy))
    assert asked["unit"]["expected"] == shown.units[0].expected
    assert "scores" not in asked["unit"] and "scores" not in json.dumps(asked)
