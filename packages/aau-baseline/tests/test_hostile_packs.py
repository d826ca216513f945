"""Hostile packs and sessions fail with one clear line: exit 1 when a check fails on a pack or
session that was read, exit 2 when the input cannot be used at all."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

from aau_core import run

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[2]
PACK = HERE / "fixtures" / "reference-pack"
SESSION = REPO / "schemas/human-baseline/v1/examples/valid/session-synthetic-01.json"


def _copy_pack(tmp_path: Path) -> Path:
    pack = tmp_path / "pack"
    shutil.copytree(PACK, pack)
    return pack


def test_a_symlink_in_the_pack_is_refused(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    (tmp_path / "elsewhere.md").write_text("x", encoding="utf-8")
    os.unlink(pack / "README.md")
    os.symlink(tmp_path / "elsewhere.md", pack / "README.md")
    rc = run(["baseline", "validate", str(pack)])
    err = capsys.readouterr().err
    assert rc in (1, 2), err
    assert "README.md" in err and "link" in err.lower(), err
    assert "Traceback" not in err


def test_an_edited_study_breaks_the_pack(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    study = json.loads((pack / "study.json").read_text(encoding="utf-8"))
    study["title"] = study["title"] + " (edited)"
    (pack / "study.json").write_text(json.dumps(study, indent=2, sort_keys=True) + "\n",
                                     encoding="utf-8")
    rc = run(["baseline", "validate", str(pack)])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "manifest.json: $.files[3]" in err and "study.json" in err
    assert "Traceback" not in err


def test_out_of_range_confidence_is_refused(tmp_path, capsys):
    session = json.loads(SESSION.read_text(encoding="utf-8"))
    session["responses"][0]["confidence"] = 101  # a percentage: 0..100
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    rc = run(["baseline", "validate", str(path), "--study", str(PACK / "study.json")])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{path}: $.responses[0].confidence" in err
    rc = run(["baseline", "summarize", str(PACK), "--session", str(path), "--out",
              str(tmp_path / "r.json")])
    err = capsys.readouterr().err
    assert rc == 2 and f"{path}: $.responses[0].confidence" in err
    assert not (tmp_path / "r.json").exists()


def test_a_session_for_another_study_is_refused(tmp_path, capsys):
    session = json.loads(SESSION.read_text(encoding="utf-8"))
    session["study_sha256"] = "0" * 64
    path = tmp_path / "session.json"
    path.write_text(json.dumps(session), encoding="utf-8")
    rc = run(["baseline", "validate", str(path), "--study", str(PACK / "study.json")])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert f"{path}: $.study_sha256" in err


def test_a_filled_in_template_in_the_pack_is_refused(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    template = json.loads((pack / "session-template.json").read_text(encoding="utf-8"))
    template["responses"][0]["outcome"] = "route_current_official_source"
    (pack / "session-template.json").write_text(json.dumps(template), encoding="utf-8")
    rc = run(["baseline", "validate", str(pack)])
    err = capsys.readouterr().err
    assert rc == 1, err
    assert "session-template.json has another SHA-256" in err, err  # the manifest notices first
    rc = run(["schema", "validate", str(pack / "session-template.json"), "--kind",
              "human-baseline-session-template"])
    err = capsys.readouterr().err
    assert rc == 1 and "$.responses[0].outcome" in err, err


def test_a_folder_with_content_inside_the_pack_is_refused(tmp_path, capsys):
    pack = _copy_pack(tmp_path)
    (pack / "empty").mkdir()
    assert run(["baseline", "validate", str(pack)]) == 0  # an empty folder is harmless
    capsys.readouterr()
    (pack / "extra").mkdir()
    (pack / "extra" / "answers.json").write_text("{}", encoding="utf-8")
    rc = run(["baseline", "validate", str(pack)])
    err = capsys.readouterr().err
    assert rc == 1, err  # like an extra file: the pack fails its check
    assert f"{pack / 'extra'}: a pack holds no folders with content" in err


def test_a_big_folder_that_is_not_a_pack_is_refused_at_the_top(tmp_path, capsys):
    deep = tmp_path / "notapack" / "a" / "b"
    deep.mkdir(parents=True)
    (deep / "x.json").write_text("{}", encoding="utf-8")
    rc = run(["baseline", "validate", str(tmp_path / "notapack")])
    err = capsys.readouterr().err
    assert rc == 1 and "notapack/a: a pack holds no folders with content" in err, err
