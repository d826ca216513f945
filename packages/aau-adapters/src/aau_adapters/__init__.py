"""aau-adapters: bring your own agent, get a receipt.

Public API::

    load_suite(path, max_bytes=2_000_000) -> Suite        suite_from_document(doc, source)
    Suite, Case, SUITE_V1, SUITE_V2 (suite v2: expected tool calls, docs/tool-calls.md)
    CommandAdapter(argv, timeout_s), EndpointAdapter(url, timeout_s, concurrency), MockAdapter()
    split_command(cmd), check_program(argv), check_url(url)
    AdapterAnswer, Adapter (protocol)
    build_request, encode_request, normalize_response, parse_response, ResponseError
    evaluate(suite, adapter, repeats=1, concurrency=1, timeout_s=30.0) -> EvaluationRun
    score(case, answer) -> row, score_unit(case, answer) -> (row, ToolCallMatch | None),
    match_case_tool_calls(case, response) -> ToolCallMatch, UnitResult
    build_receipt_v2(run, bars), build_private_v2(run), build_receipt_v1(run), build_private_v1(run)
    compute_metrics(rows), metric_intervals(rows, metrics), pass_hat_k_table(rows, repeats),
    failure_code_counts(rows), check_receipt(doc), FailUnder
    legacy_failure_code(code, adapter_kind)
    evaluate_command (the click command behind `aau evaluate`)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core import lazy_exports

# Names load on first use (PEP 562), so `aau --help` and `--mock` runs never import httpx.
_EXPORTS = {
    "Adapter": "._adapter",
    "AdapterAnswer": "._adapter",
    "BOUNDARY": "._receipt",
    "Case": "._suite",
    "CommandAdapter": "._command_adapter",
    "DEFAULT_MAX_SUITE_BYTES": "._suite",
    "EndpointAdapter": "._endpoint_adapter",
    "EvaluationRun": "._receipt",
    "FailUnder": "._receipt",
    "MAX_RESPONSE_BYTES": "._protocol",
    "MockAdapter": "._mock_adapter",
    "PRIVATE_WARNING": "._receipt",
    "RECEIPT_V1": "._receipt",
    "RECEIPT_V2": "._receipt",
    "SUITE_V1": "._suite",
    "SUITE_V2": "._suite",
    "REQUEST_VERSION": "._protocol",
    "ResponseError": "._protocol",
    "Suite": "._suite",
    "UnitResult": "._scoring",
    "build_private_v1": "._receipt",
    "build_private_v2": "._receipt",
    "build_receipt_v1": "._receipt",
    "build_receipt_v2": "._receipt",
    "build_request": "._protocol",
    "check_program": "._command_adapter",
    "check_receipt": "._receipt",
    "check_url": "._endpoint_adapter",
    "compute_metrics": "._receipt",
    "encode_request": "._protocol",
    "evaluate": "._evaluate",
    "evaluate_command": "._cli",
    "failure_code_counts": "._receipt",
    "legacy_failure_code": "._failure_codes",
    "load_suite": "._suite",
    "match_case_tool_calls": "._scoring",
    "metric_intervals": "._receipt",
    "normalize_response": "._protocol",
    "parse_fail_under": "._cli",
    "parse_response": "._protocol",
    "pass_hat_k_table": "._receipt",
    "score": "._scoring",
    "score_unit": "._scoring",
    "split_command": "._command_adapter",
    "suite_from_document": "._suite",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._adapter import Adapter, AdapterAnswer
    from ._cli import evaluate_command, parse_fail_under
    from ._command_adapter import CommandAdapter, check_program, split_command
    from ._endpoint_adapter import EndpointAdapter, check_url
    from ._evaluate import evaluate
    from ._failure_codes import legacy_failure_code
    from ._mock_adapter import MockAdapter
    from ._protocol import (
        MAX_RESPONSE_BYTES,
        REQUEST_VERSION,
        ResponseError,
        build_request,
        encode_request,
        normalize_response,
        parse_response,
    )
    from ._receipt import (
        BOUNDARY,
        PRIVATE_WARNING,
        RECEIPT_V1,
        RECEIPT_V2,
        EvaluationRun,
        FailUnder,
        build_private_v1,
        build_private_v2,
        build_receipt_v1,
        build_receipt_v2,
        check_receipt,
        compute_metrics,
        failure_code_counts,
        metric_intervals,
        pass_hat_k_table,
    )
    from ._scoring import UnitResult, match_case_tool_calls, score, score_unit
    from ._suite import (
        DEFAULT_MAX_SUITE_BYTES,
        SUITE_V1,
        SUITE_V2,
        Case,
        Suite,
        load_suite,
        suite_from_document,
    )

__version__ = "2.0.0.dev0"

__all__ = [
    "BOUNDARY",
    "DEFAULT_MAX_SUITE_BYTES",
    "MAX_RESPONSE_BYTES",
    "PRIVATE_WARNING",
    "RECEIPT_V1",
    "RECEIPT_V2",
    "REQUEST_VERSION",
    "SUITE_V1",
    "SUITE_V2",
    "Adapter",
    "AdapterAnswer",
    "Case",
    "CommandAdapter",
    "EndpointAdapter",
    "EvaluationRun",
    "FailUnder",
    "MockAdapter",
    "ResponseError",
    "Suite",
    "UnitResult",
    "build_private_v1",
    "build_private_v2",
    "build_receipt_v1",
    "build_receipt_v2",
    "build_request",
    "check_program",
    "check_receipt",
    "check_url",
    "compute_metrics",
    "encode_request",
    "evaluate",
    "evaluate_command",
    "failure_code_counts",
    "legacy_failure_code",
    "load_suite",
    "match_case_tool_calls",
    "metric_intervals",
    "normalize_response",
    "parse_fail_under",
    "parse_response",
    "pass_hat_k_table",
    "score",
    "score_unit",
    "split_command",
    "suite_from_document",
]
