"""aau-adapters: bring your own agent, get a receipt.

Public API::

    load_suite(path, max_bytes=2_000_000) -> Suite        suite_from_document(doc, source)
    Suite, Case
    CommandAdapter(argv, timeout_s), EndpointAdapter(url, timeout_s, concurrency), MockAdapter()
    split_command(cmd), check_program(argv), check_url(url)
    AdapterAnswer, Adapter (protocol)
    build_request, encode_request, normalize_response, parse_response, ResponseError
    evaluate(suite, adapter, repeats=1, concurrency=1, timeout_s=30.0) -> EvaluationRun
    score(case, answer) -> row, UnitResult
    build_receipt_v2(run, bars), build_private_v2(run), build_receipt_v1(run), build_private_v1(run)
    compute_metrics(rows), metric_intervals(rows, metrics), pass_hat_k_table(rows, repeats),
    failure_code_counts(rows), check_receipt(doc), FailUnder
    legacy_failure_code(code, adapter_kind)
    evaluate_command (the click command behind `aau evaluate`)
"""

from __future__ import annotations

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
from ._scoring import UnitResult, score
from ._suite import DEFAULT_MAX_SUITE_BYTES, Case, Suite, load_suite, suite_from_document

__version__ = "2.0.0.dev0"

__all__ = [
    "BOUNDARY",
    "DEFAULT_MAX_SUITE_BYTES",
    "MAX_RESPONSE_BYTES",
    "PRIVATE_WARNING",
    "RECEIPT_V1",
    "RECEIPT_V2",
    "REQUEST_VERSION",
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
    "metric_intervals",
    "normalize_response",
    "parse_fail_under",
    "parse_response",
    "pass_hat_k_table",
    "score",
    "split_command",
    "suite_from_document",
]
