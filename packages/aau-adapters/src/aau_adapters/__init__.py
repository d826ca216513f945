"""aau-adapters: bring your own agent, get a receipt.

Public API::

    load_suite(path, max_bytes=2_000_000) -> Suite        suite_from_document(doc, source)
    Suite, Case, SUITE_V1, SUITE_V2 (suite v2: expected tool calls, docs/tool-calls.md)
    CommandAdapter(argv, timeout_s), EndpointAdapter(url, timeout_s, concurrency), MockAdapter()
    split_command(cmd), check_program(argv), check_url(url)
    choose_adapter(command=, endpoint=, mock=, timeout=, concurrency=) -> factory of an Adapter
        (the --command/--endpoint/--mock/--timeout options of evaluate, release, doctor)
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

Tool names for model APIs (``_tool_names``; docs/import.md)::

    encode_tool_name(name) -> str ("math.factorial" -> "math_factorial"), encode_tools(tools)
    tool_name_map(names) -> {encoded: real} (collisions refused, ToolNameError)
    decode_tool_calls(calls, table), decode_tool_name(name, table), TOOL_NAME_PATTERN

Importers (``aau import``; docs/import.md)::

    import_bfcl(category, source=, limit=, source_version=, cache_dir=) -> suite v2 document
    BFCL_CATEGORIES, BFCL_VERSION, bfcl_case(record, ground_truth, mode), bfcl_function(fn),
    bfcl_schema(spec), read_bfcl(category, source=, cache_dir=), cached_bfcl_wheel(cache_dir),
    PUBLIC_SHARING
    import_tau2(source, domain, limit=, tools=) -> suite v2 document
    TAU2_DOMAINS, tau2_case(task, policy, tools), tau2_files(source, domain),
    infer_tools(tasks), read_tools(path)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from aau_core._lazy import lazy_exports

# Names load on first use (PEP 562), so `aau --help` and `--mock` runs never import httpx.
_EXPORTS = {
    "Adapter": "._adapter",
    "AdapterAnswer": "._adapter",
    "BFCL_CATEGORIES": "._import_bfcl",
    "BFCL_VERSION": "._import_bfcl",
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
    "PUBLIC_SHARING": "._import_bfcl",
    "RECEIPT_V1": "._receipt",
    "RECEIPT_V2": "._receipt",
    "TAU2_DOMAINS": "._import_tau2",
    "TOOL_NAME_PATTERN": "._tool_names",
    "SUITE_V1": "._suite",
    "SUITE_V2": "._suite",
    "REQUEST_VERSION": "._protocol",
    "ResponseError": "._protocol",
    "Suite": "._suite",
    "ToolNameError": "._tool_names",
    "UnitResult": "._scoring",
    "bfcl_case": "._import_bfcl",
    "bfcl_function": "._import_bfcl",
    "bfcl_schema": "._import_bfcl",
    "build_private_v1": "._receipt",
    "build_private_v2": "._receipt",
    "build_receipt_v1": "._receipt",
    "build_receipt_v2": "._receipt",
    "build_request": "._protocol",
    "cached_bfcl_wheel": "._import_bfcl",
    "check_program": "._command_adapter",
    "check_receipt": "._receipt",
    "check_url": "._endpoint_adapter",
    "choose_adapter": "._adapter_choice",
    "compute_metrics": "._receipt",
    "decode_tool_calls": "._tool_names",
    "decode_tool_name": "._tool_names",
    "encode_request": "._protocol",
    "encode_tool_name": "._tool_names",
    "encode_tools": "._tool_names",
    "evaluate": "._evaluate",
    "evaluate_command": "._cli",
    "failure_code_counts": "._receipt",
    "import_bfcl": "._import_bfcl",
    "import_tau2": "._import_tau2",
    "infer_tools": "._import_tau2",
    "legacy_failure_code": "._failure_codes",
    "load_suite": "._suite",
    "match_case_tool_calls": "._scoring",
    "metric_intervals": "._receipt",
    "normalize_response": "._protocol",
    "parse_fail_under": "._cli",
    "parse_response": "._protocol",
    "pass_hat_k_table": "._receipt",
    "read_bfcl": "._import_bfcl",
    "read_tools": "._import_tau2",
    "score": "._scoring",
    "score_unit": "._scoring",
    "split_command": "._command_adapter",
    "suite_from_document": "._suite",
    "tau2_case": "._import_tau2",
    "tau2_files": "._import_tau2",
    "tool_name_map": "._tool_names",
}


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)


if TYPE_CHECKING:  # pragma: no cover - for type checkers and IDEs
    from ._adapter import Adapter, AdapterAnswer
    from ._adapter_choice import choose_adapter
    from ._cli import evaluate_command, parse_fail_under
    from ._command_adapter import CommandAdapter, check_program, split_command
    from ._endpoint_adapter import EndpointAdapter, check_url
    from ._evaluate import evaluate
    from ._failure_codes import legacy_failure_code
    from ._import_bfcl import (
        BFCL_CATEGORIES,
        BFCL_VERSION,
        PUBLIC_SHARING,
        bfcl_case,
        bfcl_function,
        bfcl_schema,
        cached_bfcl_wheel,
        import_bfcl,
        read_bfcl,
    )
    from ._import_tau2 import (
        TAU2_DOMAINS,
        import_tau2,
        infer_tools,
        read_tools,
        tau2_case,
        tau2_files,
    )
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
    from ._tool_names import (
        TOOL_NAME_PATTERN,
        ToolNameError,
        decode_tool_calls,
        decode_tool_name,
        encode_tool_name,
        encode_tools,
        tool_name_map,
    )

__version__ = "2.0.0.dev0"

__all__ = [
    "BFCL_CATEGORIES",
    "BFCL_VERSION",
    "BOUNDARY",
    "DEFAULT_MAX_SUITE_BYTES",
    "MAX_RESPONSE_BYTES",
    "PRIVATE_WARNING",
    "PUBLIC_SHARING",
    "RECEIPT_V1",
    "RECEIPT_V2",
    "REQUEST_VERSION",
    "SUITE_V1",
    "SUITE_V2",
    "TAU2_DOMAINS",
    "TOOL_NAME_PATTERN",
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
    "ToolNameError",
    "UnitResult",
    "bfcl_case",
    "bfcl_function",
    "bfcl_schema",
    "build_private_v1",
    "build_private_v2",
    "build_receipt_v1",
    "build_receipt_v2",
    "build_request",
    "cached_bfcl_wheel",
    "check_program",
    "check_receipt",
    "check_url",
    "choose_adapter",
    "compute_metrics",
    "decode_tool_calls",
    "decode_tool_name",
    "encode_request",
    "encode_tool_name",
    "encode_tools",
    "evaluate",
    "evaluate_command",
    "failure_code_counts",
    "import_bfcl",
    "import_tau2",
    "infer_tools",
    "legacy_failure_code",
    "load_suite",
    "match_case_tool_calls",
    "metric_intervals",
    "normalize_response",
    "parse_fail_under",
    "parse_response",
    "pass_hat_k_table",
    "read_bfcl",
    "read_tools",
    "score",
    "score_unit",
    "split_command",
    "suite_from_document",
    "tau2_case",
    "tau2_files",
    "tool_name_map",
]
