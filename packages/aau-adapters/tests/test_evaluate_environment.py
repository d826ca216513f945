"""``aau evaluate`` on environment cases, end to end over real MCP: an agent script using the
official ``mcp`` client against aau's tool server, an in-process ledger environment
(conftest ``ledger_environment``), receipts validated against their schemas."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from aau_adapters import CommandAdapter, check_receipt, load_suite, run_evaluation
from aau_schemas import validate

pytest.importorskip("mcp")

# The agent: reads the 1.1 request, connects with the official MCP client, and per MODE
# (argv[1]) does the right thing or misbehaves.
AGENT = '''\
import asyncio, json, sys, time
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

MODE = sys.argv[1]
REQ = json.loads(sys.stdin.readline())
if MODE == "by-scenario":  # each case says how to behave
    MODE = REQ["scenario_id"]
MCP = REQ["mcp"]
SECRET = "IBAN-SECRET-7731"


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\\n")
    sys.stdout.flush()


async def session_calls(calls, token=None):
    headers = {"Authorization": "Bearer " + (token or MCP["bearer_token"])}
    out = []
    async with httpx2.AsyncClient(headers=headers, timeout=20) as http, \\
            streamable_http_client(MCP["url"], http_client=http) as (read, write), \\
            ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        assert {t.name for t in tools.tools} == {"get_balance", "transfer", "close_account"}
        for name, arguments in calls:
            result = await session.call_tool(name, arguments)
            out.append(result.is_error)
    return out


PAY = [("get_balance", {"account": "alice"}),
       ("transfer", {"source": "alice", "target": "landlord", "amount": 100})]
done = {"outcome": "paid", "actions_attempted": [], "actions_executed": [], "submitted": True}

if MODE == "good":
    asyncio.run(session_calls(PAY))
    answer(done)
elif MODE == "secret":  # an argument value that must never reach the public receipt
    asyncio.run(session_calls([("get_balance", {"account": SECRET}), *PAY]))
    answer(done)
elif MODE == "overclaim":  # says it paid, never called anything
    answer({**done, "actions_executed": ["transfer"]})
elif MODE == "omit":  # pays, reports only the balance check
    asyncio.run(session_calls(PAY))
    answer({**done, "actions_executed": ["get_balance"]})
elif MODE == "forbidden":  # tries to close a non-empty account: refused by the ledger
    asyncio.run(session_calls([*PAY, ("close_account", {"account": "alice"})]))
    answer(done)
elif MODE == "wrong-token":
    try:
        asyncio.run(session_calls(PAY, token="not-the-token"))
    except BaseException:
        pass
    answer({**done, "outcome": "could not connect"})
elif MODE == "flood":
    asyncio.run(session_calls([("get_balance", {"account": "alice"})] * (MCP["max_calls"] + 5)
                              + PAY[1:]))
    answer(done)
elif MODE == "malformed":
    headers = {"Authorization": "Bearer " + MCP["bearer_token"],
               "Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
    with httpx2.Client(timeout=10) as http:
        http.post(MCP["url"], content=b"{this is not json", headers=headers)
        http.post(MCP["url"], content=b'{"jsonrpc": "1.0", "id": 1}', headers=headers)
    asyncio.run(session_calls(PAY))
    answer(done)
elif MODE == "resume":  # c2 hangs until the file "fixed" exists; every call is logged
    import pathlib
    here = pathlib.Path(sys.argv[2])
    with open(here / "invocations.txt", "a") as log:
        log.write(REQ["scenario_id"] + "\\n")
    if REQ["scenario_id"] == "c2" and not (here / "fixed").exists():
        time.sleep(120)
    asyncio.run(session_calls(PAY))
    answer({**done, "actions_executed": ["get_balance"]})
elif MODE == "hang":
    asyncio.run(session_calls(PAY[:1]))
    time.sleep(120)
'''


@pytest.fixture
def mcp_agent(tmp_path: Path) -> Any:
    path = tmp_path / "mcp_agent.py"
    path.write_text(AGENT, encoding="utf-8")

    def argv(mode: str) -> list[str]:
        return [sys.executable, str(path), mode, str(tmp_path)]

    return argv


def _run(suite: Path, argv: list[str], tmp_path: Path, **kw: Any) -> Any:
    timeout = kw.pop("timeout_s", 30.0)
    result = run_evaluation(str(suite), CommandAdapter(argv, timeout), timeout_s=timeout,
                            out=str(tmp_path / "r.json"), private_out=str(tmp_path / "p.json"),
                            no_store=True, **kw)
    public = json.loads((tmp_path / "r.json").read_text())
    private = json.loads((tmp_path / "p.json").read_text())
    validate("receipt-v2", public, source="r.json")
    validate("private-receipt-v2", private, source="p.json")
    assert check_receipt(public) == []
    return result, public, private


def test_a_good_agent_is_scored_from_what_aau_observed(ledger_suite: Any, mcp_agent: Any,
                                                        pay_rent_calls: Any,
                                                        tmp_path: Path) -> None:
    suite = ledger_suite([{"expected": {"tool_calls": pay_rent_calls,
                                        "tool_call_match": {"mode": "superset"}},
                           "forbidden": ["close_account"]}])
    _, public, private = _run(suite, mcp_agent("good"), tmp_path)
    row = public["results"][0]
    assert row["environment_passed"] is True and row["exact"] is True
    assert row["tool_calls_match"] is True and row["failure_codes"] == []
    assert row["observed"] == {"calls": 2, "succeeded": 2, "failed": 0, "by_code": {},
                               "rejected": 0}
    assert "report_fidelity" not in row
    assert public["metrics"]["environment_success_rate"] == 1.0
    assert public["metric_ci95"]["environment_success_rate"]["method"] == "wilson"
    assert public["environment_pass_hat_k"] == {"1": 1.0}
    assert public["mcp_late_requests"] == 0
    assert public["provenance"]["environments"] == [{"name": "test-ledger",
                                                     "version": "ledger 1.0"}]
    prow = private["results"][0]
    assert [c["name"] for c in prow["trajectory"]] == ["get_balance", "transfer"]
    assert prow["trajectory"][1]["arguments"] == {"source": "alice", "target": "landlord",
                                                  "amount": 100}
    assert prow["trajectory"][0]["result"] == "150"
    assert prow["final_state"] == {"balances": {"alice": 50, "landlord": 100}}
    assert prow["environment_verdict"] == {"passed": True, "reason": "rent paid",
                                           "detail": {"landlord": 100}}
    assert prow["rejected_requests"] == []


def test_the_public_receipt_holds_no_argument_or_result(ledger_suite: Any, mcp_agent: Any,
                                                         tmp_path: Path) -> None:
    _, public, private = _run(ledger_suite([{}]), mcp_agent("secret"), tmp_path)
    text = (tmp_path / "r.json").read_text()
    assert "IBAN-SECRET-7731" not in text
    assert '"landlord"' not in text and '"150"' not in text  # an argument, a result text
    assert "IBAN-SECRET-7731" in (tmp_path / "p.json").read_text()
    assert private["results"][0]["trajectory"][0]["ok"] is False  # no such account
    assert public["results"][0]["observed"]["by_code"] == {"tool-error": 1}


def test_report_fidelity(ledger_suite: Any, mcp_agent: Any, tmp_path: Path) -> None:
    _, public, _ = _run(ledger_suite([{}]), mcp_agent("overclaim"), tmp_path)
    row = public["results"][0]
    assert row["report_fidelity"] == {"over_claims": 1, "omissions": 0}
    assert row["failure_codes"] == ["environment-task-failed", "report-over-claim"]
    _, public, _ = _run(ledger_suite([{}]), mcp_agent("omit"), tmp_path, force=True)
    row = public["results"][0]
    assert row["report_fidelity"] == {"over_claims": 0, "omissions": 1}
    assert row["failure_codes"] == ["report-omission"] and row["environment_passed"] is True


def test_a_forbidden_tool_refused_is_attempted_not_executed(ledger_suite: Any, mcp_agent: Any,
                                                             tmp_path: Path) -> None:
    _, public, private = _run(ledger_suite([{"forbidden": ["close_account"]}]),
                              mcp_agent("forbidden"), tmp_path)
    row = public["results"][0]
    assert row["no_forbidden_attempt"] is False and row["no_forbidden_execute"] is True
    assert row["failure_codes"] == ["forbidden-action-attempt"]
    assert row["environment_passed"] is True and row["exact"] is False
    assert private["results"][0]["trajectory"][2]["code"] == "tool-error"


def test_hostile_agents_cost_only_their_own_unit(ledger_suite: Any, mcp_agent: Any,
                                                 tmp_path: Path) -> None:
    modes = ["wrong-token", "flood", "malformed", "hang", "good"]
    suite = ledger_suite([{"scenario_id": mode, "max_calls": 5} for mode in modes])
    # 20 s: the hanging unit waits for it, and the four others (each a Python process importing
    # the MCP SDK, five started at once) must finish inside it on a busy 2-core machine too
    # (8 s timed out all five at load 5)
    _, public, private = _run(suite, mcp_agent("by-scenario"), tmp_path, timeout_s=20.0,
                              concurrency=5)
    rows = {r["scenario_id"]: r for r in public["results"]}
    assert rows["good"]["exact"] is True
    assert rows["wrong-token"]["observed"]["by_code"].get("mcp-wrong-token", 0) >= 1
    assert rows["wrong-token"]["observed"]["calls"] == 0
    assert rows["wrong-token"]["failure_codes"] == ["outcome-mismatch"] or \
        "environment-task-failed" in rows["wrong-token"]["failure_codes"]
    flood = rows["flood"]["observed"]
    assert flood["succeeded"] == 5 and flood["by_code"]["mcp-call-budget-exceeded"] == 6
    assert rows["flood"]["environment_passed"] is False  # the transfer came after the budget
    malformed = rows["malformed"]["observed"]
    assert malformed["by_code"]["mcp-malformed-jsonrpc"] == 2 and malformed["rejected"] == 2
    assert rows["malformed"]["environment_passed"] is True
    assert rows["hang"]["failure_codes"][0] == "adapter-timeout"
    assert rows["hang"]["measured"] is False
    assert rows["hang"]["observed"]["calls"] == 1  # seen before it hung
    assert public["coverage"]["measured"] == 4
    assert all("mcp-" not in code for r in rows.values() for code in r["failure_codes"])
    assert private["results"][3]["error"] == "adapter-timeout"


def test_concurrent_units_never_share_state(ledger_suite: Any, mcp_agent: Any,
                                            tmp_path: Path) -> None:
    suite = ledger_suite([{"scenario_id": f"c{i}"} for i in range(8)])
    _, public, private = _run(suite, mcp_agent("good"), tmp_path, concurrency=8, repeats=2)
    assert all(r["environment_passed"] and r["exact"] for r in public["results"])
    assert all(p["final_state"] == {"balances": {"alice": 50, "landlord": 100}}
               for p in private["results"])
    assert public["environment_pass_hat_k"] == {"1": 1.0, "2": 1.0}


def test_the_mock_adapter_replays_expected_calls_over_mcp(ledger_suite: Any,
                                                          pay_rent_calls: Any,
                                                          tmp_path: Path) -> None:
    from aau_adapters import MockAdapter

    suite = ledger_suite([{"expected": {"tool_calls": pay_rent_calls, "outcome": "paid"}},
                          {"scenario_id": "no-calls"}])
    result = run_evaluation(str(suite), MockAdapter(), private_out=str(tmp_path / "p.json"),
                            out=str(tmp_path / "r.json"), no_store=True)
    public = result.document
    validate("receipt-v2", public, source="r.json")
    first, second = public["results"]
    assert first["exact"] is True and first["observed"]["succeeded"] == 1
    assert first["report_fidelity"] == {"over_claims": 0, "omissions": 0}
    assert second["observed"]["calls"] == 0 and second["environment_passed"] is False
    assert second["failure_codes"] == ["environment-task-failed"]
    private = json.loads((tmp_path / "p.json").read_text())
    assert private["results"][0]["response"]["outcome"] == "paid"
    assert private["results"][1]["response"]["outcome"] == "done"


def test_an_unavailable_environment_costs_its_unit_not_the_run(ledger_suite: Any,
                                                               mcp_agent: Any,
                                                               tmp_path: Path) -> None:
    suite = ledger_suite([{"scenario_id": "open", "task": "boom_on_open"},
                          {"scenario_id": "score", "task": "boom_on_score"},
                          {"scenario_id": "ok"}, {"scenario_id": "ok2"}, {"scenario_id": "ok3"}])
    _, public, private = _run(suite, mcp_agent("good"), tmp_path)
    rows = public["results"]
    assert [r["failure_codes"][:1] for r in rows[:2]] == [["environment-unavailable"]] * 2
    assert [r["measured"] for r in rows] == [False, False, True, True, True]
    assert all(r["exact"] for r in rows[2:])
    assert public["coverage"]["infrastructure_failures"] == 2
    assert private["results"][0]["environment_verdict"] is None
    assert "ledger database unreachable" in private["results"][0]["error_detail"]
    assert len(private["results"][1]["trajectory"]) == 2  # the agent ran; its calls are kept


# long enough for an MCP agent's start-up on a loaded CI machine (a unit that times out by
# accident fails the test); c2's deliberate hang costs this much once
HANG_S = 15.0


def test_resume_keeps_the_environment_fields(ledger_suite: Any, mcp_agent: Any,
                                             tmp_path: Path) -> None:
    from aau_adapters import EvaluationNotMeasured, binding_adapter

    suite = ledger_suite([{"scenario_id": f"c{i}"} for i in range(3)])
    out, priv = tmp_path / "r.json", tmp_path / "p.json"
    argv = mcp_agent("resume")
    kw = {"out": str(out), "private_out": str(priv), "no_store": True, "timeout_s": HANG_S,
          "unmeasured_limit": 0.3,
          "adapter_binding": binding_adapter(command=" ".join(argv), endpoint=None,
                                             cwd=tmp_path)}
    with pytest.raises(EvaluationNotMeasured):  # c2 hung: 1 of 3 not measured, no receipt
        run_evaluation(str(suite), CommandAdapter(argv, HANG_S), **kw)
    assert (tmp_path / "r.json.checkpoint.jsonl").exists() and not out.exists()
    (tmp_path / "fixed").write_text("")
    run_evaluation(str(suite), CommandAdapter(argv, HANG_S), resume=True, **kw)
    invocations = (tmp_path / "invocations.txt").read_text().split()
    assert sorted(invocations) == ["c0", "c1", "c2", "c2"]  # c0 and c1 were not run again
    public, private = json.loads(out.read_text()), json.loads(priv.read_text())
    validate("receipt-v2", public, source="r.json")
    validate("private-receipt-v2", private, source="p.json")
    assert check_receipt(public) == []
    for row in public["results"]:
        assert row["environment_passed"] is True
        assert row["report_fidelity"] == {"over_claims": 0, "omissions": 1}
        assert row["observed"]["succeeded"] == 2
    for prow in private["results"]:
        assert [c["name"] for c in prow["trajectory"]] == ["get_balance", "transfer"]
        assert prow["final_state"] == {"balances": {"alice": 50, "landlord": 100}}
        assert prow["environment_verdict"]["passed"] is True


def test_the_command_line(ledger_suite: Any, mcp_agent: Any, tmp_path: Path,
                          capsys: Any) -> None:
    from aau_core import run

    suite = ledger_suite([{}])
    command = " ".join(mcp_agent("good"))
    rc = run(["evaluate", str(suite), "--command", command, "--out", str(tmp_path / "r.json"),
              "--no-store", "--fail-under", "environment_success_rate=1"])
    assert rc == 0
    public = json.loads((tmp_path / "r.json").read_text())
    assert public["fail_under"][0] == {"metric": "environment_success_rate", "threshold": 1.0,
                                       "value": 1.0, "passed": True}
    assert "environment_success_rate" in capsys.readouterr().err
    # a bar on it for a suite without environment cases is a usage error (exit 2)
    plain = tmp_path / "plain.json"
    doc = json.loads(suite.read_text())
    del doc["cases"][0]["environment"]
    doc["cases"][0]["expected"] = {"outcome": "paid"}
    plain.write_text(json.dumps(doc))
    assert run(["evaluate", str(plain), "--mock", "--no-store",
                "--fail-under", "environment_success_rate=1"]) == 2


def test_load_suite_reads_the_ledger_cases(ledger_suite: Any) -> None:
    case = load_suite(str(ledger_suite([{"max_calls": 9}]))).cases[0]
    assert case.environment.name == "test-ledger" and case.environment.max_calls == 9
