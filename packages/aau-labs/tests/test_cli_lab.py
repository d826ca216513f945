"""`aau lab generate` / `aau lab run`: outputs, determinism, exit codes, one-line errors."""

from __future__ import annotations

import json
from pathlib import Path

import aau_schemas
import pytest
from aau_core import run

REPO = Path(__file__).resolve().parents[3]
RIVER = REPO / "examples" / "labs" / "river-permit-desk.json"
GRANTS = REPO / "examples" / "labs" / "microgrant-disbursement.json"


def aau(capsys, *args):
    rc = run(["lab", *map(str, args)])
    out = capsys.readouterr()
    return rc, out.out, out.err


def test_help_has_examples(capsys):
    for args in (["--help"], ["generate", "--help"], ["run", "--help"]):
        rc, out, _ = aau(capsys, *args)
        assert rc == 0 and "Example" in out and "aau lab" in out


def test_generate_is_byte_deterministic_and_refuses_overwrite(capsys, tmp_path):
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    rc, out, err = aau(capsys, "generate", RIVER, "--n", 12, "--seed", 5, "--out", a, "--json")
    assert rc == 0, err
    assert json.loads(out) == {"lab": "decision-gate", "out": str(a), "n": 12, "seed": 5}
    assert f"{a}: 12 decision-gate scenario(s), seed 5" in err
    assert aau(capsys, "generate", RIVER, "--n", 12, "--seed", 5, "--out", b)[0] == 0
    assert a.read_bytes() == b.read_bytes()
    doc = json.loads(a.read_text())
    aau_schemas.validate("gate-scenarios", doc)
    assert doc["n"] == 12 and doc["seed"] == 5
    rc, _, err = aau(capsys, "generate", RIVER, "--n", 12, "--seed", 6, "--out", a)
    assert rc == 2 and "already exists (use --force" in err
    assert json.loads(a.read_text())["seed"] == 5  # untouched
    assert aau(capsys, "generate", RIVER, "--n", 12, "--seed", 6, "--out", a, "--force")[0] == 0
    assert a.read_bytes() != b.read_bytes()


def test_generate_defaults_to_the_config_seed_and_32(capsys, tmp_path):
    out = tmp_path / "d.json"
    assert aau(capsys, "generate", GRANTS, "--out", out)[0] == 0
    doc = json.loads(out.read_text())
    assert (doc["n"], doc["seed"]) == (32, 7213)


def test_bad_config_is_one_line_naming_file_and_path(capsys, tmp_path):
    doc = json.loads(RIVER.read_text())
    doc["terminals"]["refer"] = 7
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc))
    out = tmp_path / "x.json"
    rc, _, err = aau(capsys, "generate", bad, "--out", out)
    assert rc == 2 and not out.exists()
    assert err.count("\n") == 1 and f"{bad}: $.terminals.refer: " in err
    rc, _, err = aau(capsys, "run", bad, "--mock", "--out", tmp_path / "r")
    assert rc == 2 and f"{bad}: $.terminals.refer: " in err
    notjson = tmp_path / "broken.json"
    notjson.write_text("{")
    rc, _, err = aau(capsys, "generate", notjson, "--out", out)
    assert rc == 2 and str(notjson) in err and "Traceback" not in err


def test_run_mock_writes_valid_results_and_exits_0(capsys, tmp_path):
    scen = tmp_path / "s.json"
    aau(capsys, "generate", RIVER, "--n", 8, "--out", scen)
    rc, out, err = aau(capsys, "run", RIVER, "--scenarios", scen, "--mock", "--repeats", 2,
                       "--out", tmp_path / "r", "--json")
    assert rc == 0, err
    summary = json.loads(out)
    assert summary["passed"] is True and summary["n_scenarios"] == 8
    assert 0 < summary["metric_means"]["decision_gate_exact"] < 1
    assert err.count("repeat ") == 16  # one progress line per run
    assert "decision_gate_exact 0." in err.splitlines()[-1]
    result = json.loads((tmp_path / "r" / "eval_mock.json").read_text())
    aau_schemas.validate("lab-result", result)
    assert result["scenarios_sha256"] == aau_schemas.canonical_digest(
        json.loads(scen.read_text())["scenarios"])
    assert (tmp_path / "r" / "eval_mock.md").read_text().startswith("## Results")
    rc, _, err = aau(capsys, "run", RIVER, "--scenarios", scen, "--mock", "--out", tmp_path / "r")
    assert rc == 2 and "eval_mock.json: already exists" in err


def test_fail_under_sets_the_exit_code(capsys, tmp_path):
    base = ["run", GRANTS, "--mock", "--repeats", 1, "--quiet"]
    rc, out, err = aau(capsys, *base, "--out", tmp_path / "a", "--json",
                       "--fail-under", "decision_gate_exact=0.9")
    assert rc == 1
    assert json.loads(out)["passed"] is False
    assert "decision_gate_exact 0.2500 is below --fail-under 0.9" in err
    rc, _, _ = aau(capsys, *base, "--out", tmp_path / "b", "--fail-under",
                   "decision_gate_exact=0.25", "--fail-under", "authority_respected=0.5")
    assert rc == 0
    assert (tmp_path / "a" / "eval_mock.json").exists()  # written even when the bar fails


@pytest.mark.parametrize(("args", "message"), [
    (["--out", "{o}"], "choose exactly one of --mock and --backend"),
    (["--mock", "--backend", "mock", "--out", "{o}"], "choose exactly one"),
    (["--mock", "--model", "m", "--out", "{o}"],
         "--model, --price-per-mtok and --pricing-file go with --backend, not --mock"),
    (["--mock", "--out", "{o}", "--fail-under", "x"], "expected METRIC=VALUE"),
    (["--mock", "--out", "{o}", "--fail-under", "decision_gate_exact=2"], "in [0, 1]"),
    (["--mock", "--out", "{o}", "--fail-under", "speed=0.5"], "unknown metric 'speed'"),
    (["--backend", "nope", "--out", "{o}"], "unknown backend 'nope'"),
])
def test_run_usage_errors_exit_2(capsys, tmp_path, args, message):
    out = tmp_path / "r"
    rc, _, err = aau(capsys, "run", RIVER, *[a.replace("{o}", str(out)) for a in args])
    assert rc == 2 and message in err
    assert not (out / "eval_mock.json").exists()


def test_run_refuses_scenarios_of_another_config(capsys, tmp_path):
    scen = tmp_path / "g.json"
    aau(capsys, "generate", GRANTS, "--n", 8, "--out", scen)
    rc, _, err = aau(capsys, "run", RIVER, "--scenarios", scen, "--mock", "--out", tmp_path / "r")
    assert rc == 2 and f"{scen}: $.config_sha256: generated from another config" in err


# Lab configs and scenario files are closed formats (aau-harness 1.6's, schemas with
# additionalProperties false): a misspelt key is refused before anything runs, and the error
# names the key the schema allows that it most resembles.
RIVER_SCENARIOS = REPO / "examples" / "labs" / "river-permit-desk.scenarios.json"
ALLOTMENT = REPO / "examples" / "labs" / "allotment-plot-intake.json"


def test_a_misspelt_config_key_names_the_allowed_one(tmp_path, capsys):
    config = json.loads(RIVER.read_text(encoding="utf-8"))
    config["archetypes"]["READY"]["rule_cod"] = config["archetypes"]["READY"].pop("rule_code")
    path = tmp_path / "gate.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    out = tmp_path / "r.json"
    rc, stdout, err = aau(capsys, "run", path, "--mock", "--repeats", 1, "--quiet", "--out", out)
    assert rc == 2 and stdout == "" and not out.exists()
    assert err.splitlines() == [
        f'aau: error: {path}: $.archetypes.READY: property "rule_cod" is not allowed here; did '
        'you mean "rule_code"? [gate-config]',
        f'aau: error: {path}: $.archetypes.READY: "rule_code" is a required property']


def test_a_misspelt_top_level_key_of_a_service_config(tmp_path, capsys):
    config = json.loads(ALLOTMENT.read_text(encoding="utf-8"))
    config["sed"] = config.pop("seed")
    path = tmp_path / "service.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    rc, _, err = aau(capsys, "generate", path, "--out", tmp_path / "s.json")
    assert rc == 2 and not (tmp_path / "s.json").exists()
    assert err.splitlines()[0] == (f'aau: error: {path}: $: property "sed" is not allowed here; '
                                   'did you mean "seed"? [service-config]')


def test_a_misspelt_scenario_key(tmp_path, capsys):
    doc = json.loads(RIVER_SCENARIOS.read_text(encoding="utf-8"))
    doc["scenarios"][0]["gate_contrct"] = doc["scenarios"][0].pop("gate_contract")
    path = tmp_path / "scenarios.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    rc, _, err = aau(capsys, "run", RIVER, "--scenarios", path, "--mock", "--repeats", 1,
                     "--quiet", "--out", tmp_path / "r.json")
    assert rc == 2
    assert err.splitlines()[0] == (
        f'aau: error: {path}: $.scenarios[0]: property "gate_contrct" is not allowed here; did '
        'you mean "gate_contract"? [gate-scenarios]')


class _ProviderDown:
    """A mock backend whose provider answers 503 on every call (the transport layer)."""

    model = "mock"

    def __init__(self, config):
        pass

    def create(self, system, messages, tools):
        from aau_core import ProviderError

        raise ProviderError("HTTP 503 Service Unavailable from mock", status=503)


def test_a_run_lost_to_the_provider_exits_3_with_one_line_and_writes_nothing(
        capsys, tmp_path, monkeypatch):
    import aau_labs._gate._lab as gate_lab

    monkeypatch.setattr(gate_lab, "GateMockBackend", _ProviderDown)
    out = tmp_path / "r"
    rc, stdout, err = aau(capsys, "run", RIVER, "--mock", "--repeats", 1, "--quiet", "--out",
                          out, "--json")
    message = ("100% of runs (32 of 32) failed at the transport layer (authentication, network "
               "or rate limits; limit 100%), so these numbers measure the provider, not the "
               "model; nothing was written as a result. Check the API key and the endpoint, then "
               "run again.")
    assert rc == 3 and err == f"aau: error: {message}\n"
    # --json says it was not measured and why (aau_core.json_on_not_measured)
    assert json.loads(stdout) == {
        "measured": False, "reason": "infrastructure", "message": message, "not_measured": 32,
        "units": 32, "rate": 1.0, "threshold": 1.0, "config": str(RIVER), "backend": "mock",
        "model": "mock", "json": None, "markdown": None}
    assert not (out / "eval_mock.json").exists() and not (out / "eval_mock.md").exists()


class _Confused(_ProviderDown):
    """A mock backend that fails in the agent's own plumbing (no transport pattern)."""

    def create(self, system, messages, tools):
        raise RuntimeError("mock backend broke")


def test_a_run_in_which_every_unit_errored_exits_3_and_writes_nothing(
        capsys, tmp_path, monkeypatch):
    import aau_labs._gate._lab as gate_lab

    monkeypatch.setattr(gate_lab, "GateMockBackend", _Confused)
    out = tmp_path / "r"
    rc, stdout, err = aau(capsys, "run", RIVER, "--mock", "--repeats", 1, "--quiet", "--out", out,
                          "--json")
    assert rc == 3
    assert err == ("aau: error: every run failed (32 errored: 32 x RuntimeError: mock backend "
                   "broke): nothing to score, nothing written\n")  # no file holds the errors
    summary = json.loads(stdout)
    assert (summary["measured"], summary["reason"], summary["not_measured"], summary["units"]) \
        == (False, "every-run-errored", 32, 32)
    assert summary["message"] == err.removeprefix("aau: error: ").rstrip("\n")
    assert not out.exists() or list(out.iterdir()) == []


def test_result_names_keep_every_character_of_the_model_id(tmp_path):
    from aau_labs._agentdojo._bench import result_paths
    from aau_labs._frame._lab_spec import lab_result_paths

    assert lab_result_paths(tmp_path, "openrouter", "qwen/qwen3.6-27b") == (
        tmp_path / "eval_qwen_qwen3.6-27b.json", tmp_path / "eval_qwen_qwen3.6-27b.md")
    assert lab_result_paths(tmp_path, "openrouter", "qwen/qwen3.5-9b")[0].name == (
        "eval_qwen_qwen3.5-9b.json")
    assert lab_result_paths(tmp_path, "mock", None)[0].name == "eval_mock.json"
    assert result_paths(tmp_path, "banking", "local", "llama-3.1-8b")[0].name == (
        "agentdojo-banking_llama-3.1-8b.json")


def test_force_never_replaces_another_models_result(capsys, tmp_path):
    out = tmp_path / "r"
    out.mkdir()
    theirs = out / "eval_a_b.json"  # what model 'a/b' wrote; 'a_b' maps to the same name
    theirs.write_text(json.dumps({"backend": "local", "model": "a/b"}))
    rc, _, err = aau(capsys, "run", RIVER, "--backend", "local", "--model", "a_b", "--repeats",
                     1, "--quiet", "--out", out, "--force")
    assert rc == 2
    assert err == (f"aau: error: {theirs}: holds the result of backend 'local' model 'a/b', not "
                   "'local' 'a_b' (their ids give the same file name); not replaced, even with "
                   "--force: choose another --out folder\n")
    assert json.loads(theirs.read_text()) == {"backend": "local", "model": "a/b"}


def test_force_replaces_the_same_models_result(capsys, tmp_path):
    out = tmp_path / "r"
    assert aau(capsys, "run", RIVER, "--mock", "--repeats", 1, "--quiet", "--out", out)[0] == 0
    assert aau(capsys, "run", RIVER, "--mock", "--repeats", 1, "--quiet", "--out", out,
               "--force")[0] == 0
