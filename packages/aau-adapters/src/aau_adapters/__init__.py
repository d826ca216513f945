"""aau-adapters: bring your own agent, get a receipt.

Suites (``load_suite``), the adapters that reach an agent (command, HTTP endpoint, mock;
``choose_adapter``), the request/response protocol, scoring, receipts, ``aau evaluate`` as a
Python API (``run_evaluation``; the click command ``evaluate_command`` only parses flags, calls
it and prints), tool names for model APIs and the BFCL and tau2 importers (``aau import``).

Observed environments: ``tool_server()`` is the process's MCP tool server (``ToolServer``;
streamable HTTP on 127.0.0.1, the official ``mcp`` SDK); ``ToolServer.open_unit`` serves one
unit's environment session on a ``UnitChannel`` (URL, bearer token, call budget), whose
``close()`` gives the ``UnitRecord`` of what aau observed (its ``ObservedCall`` and
``RejectedRequest`` records); ``MCP_FAILURE_CODES`` lists the codes it records.

Every document the package reads or writes is a frozen attrs model (suites, adapter requests
and responses, public and private receipts v1/v2), converted by the one cattrs ``converter``:
``structure_document(kind, doc)`` checks the schema first, ``unstructure_document(model)``
gives the document to write.

Every public name is listed once, in ``_EXPORTS`` below (module -> names); ``__all__`` is derived
from it and names load on first use (PEP 562), so ``aau --help`` and ``--mock`` runs never
import httpx.
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

_EXPORTS: dict[str, tuple[str, ...]] = {
    "._adapter": ("Adapter", "AdapterAnswer"),
    "._adapter_choice": ("choose_adapter",),
    "._cli": ("evaluate_command", "parse_fail_under"),
    "._command_adapter": ("CommandAdapter", "check_program", "split_command"),
    "._converter": ("ABSENT", "converter"),
    "._documents": ("structure_document", "unstructure_document"),
    "._endpoint_adapter": ("EndpointAdapter", "check_url"),
    "._endpoint_headers": ("RESERVED_HEADERS", "check_headers", "parse_headers"),
    "._header_option": ("header_option",),
    "._environment_unit": ("run_environment_unit",),
    "._case_attack": ("CaseAttack",),
    "._conversation": ("Conversation", "converse", "run_conversation"),
    "._simulated_user": ("STOP_TOKEN", "ModelUser", "ScriptedUser", "UserSimulatorError",
                         "make_user"),
    "._suite_run": ("evaluate",),
    "._evaluation": ("EvaluationResult", "run_evaluation"),
    "._evaluation_checkpoint": ("binding_adapter",),
    "._evaluation_arguments": (
        "check_adapter_retries",
        "check_adapter_timeout",
        "check_evaluation_arguments",
    ),
    "._failure_codes": ("legacy_failure_code",),
    "._bfcl_source": ("BFCL_CATEGORIES", "BFCL_VERSION", "cached_bfcl_wheel", "read_bfcl"),
    "._import_bfcl": ("PUBLIC_SHARING", "bfcl_case", "bfcl_function", "bfcl_schema", "import_bfcl"),
    "._import_tau2": (
        "TAU2_DOMAINS",
        "import_tau2",
        "infer_tools",
        "read_tools",
        "tau2_case",
        "tau2_files",
    ),
    "._mcp._codes": ("MCP_FAILURE_CODES",),
    "._mcp._server": ("ToolServer", "tool_server"),
    "._mcp._units": ("RejectedRequest", "UnitChannel", "UnitRecord"),
    "._mock_adapter": ("MockAdapter",),
    "._non_measurement": ("EvaluationNotMeasured", "check_measured"),
    "._observed_scoring": ("EnvironmentRecord", "score_observed"),
    "._protocol": (
        "MAX_RESPONSE_BYTES",
        "REQUEST_VERSION",
        "REQUEST_VERSION_1_1",
        "REQUEST_VERSION_1_2",
        "ResponseError",
        "build_request",
        "encode_request",
        "normalize_response",
        "parse_response",
        "request_model",
    ),
    "._protocol_models": (
        "AdapterRequest",
        "AdapterResponse",
        "ConversationTurn",
        "McpAccess",
        "ResponseToolCall",
    ),
    "._receipt": (
        "BOUNDARY",
        "PRIVATE_WARNING",
        "RECEIPT_V1",
        "RECEIPT_V2",
        "EvaluationRun",
        "FailUnder",
        "build_private_v1",
        "build_private_v2",
        "build_receipt_v1",
        "build_receipt_v2",
        "check_receipt",
        "compute_metrics",
        "failure_code_counts",
        "metric_interval_models",
        "metric_intervals",
        "pass_hat_k_table",
        "private_detail_row",
        "private_receipt_v1",
        "private_receipt_v2",
        "receipt_rows",
        "receipt_v1",
        "receipt_v2",
        "run_coverage",
    ),
    "._receipt_models": (
        "AdapterProvenance",
        "Coverage",
        "EnvironmentProvenance",
        "FailUnderCheck",
        "Interval",
        "MetricIntervals",
        "MetricsV1",
        "MetricsV2",
        "ObservedCounts",
        "Privacy",
        "PrivateReceiptV1",
        "PrivateReceiptV2",
        "PrivateRowV1",
        "PrivateRowV2",
        "Provenance",
        "PublicReceiptV1",
        "PublicReceiptV2",
        "ReleaseGate",
        "ReportFidelityCounts",
        "ResultRowV1",
        "ResultRowV2",
    ),
    "._scoring": ("UnitResult", "match_case_tool_calls", "measured_row", "score", "score_unit"),
    "._suite": (
        "DEFAULT_MAX_SUITE_BYTES",
        "SUITE_V1",
        "SUITE_V2",
        "SUITE_V3",
        "Case",
        "CaseEnvironment",
        "CaseUser",
        "Suite",
        "load_suite",
        "suite_from_document",
    ),
    "._suite_models": (
        "AttackGoalV3",
        "CaseAttackV3",
        "CaseDocumentV1",
        "CaseDocumentV2",
        "CaseDocumentV3",
        "CaseEnvironmentV3",
        "CaseUserV3",
        "ExpectedCall",
        "ExpectedV1",
        "ExpectedV2",
        "ExpectedV3",
        "Sharing",
        "SharingV3",
        "SuiteDocumentV1",
        "SuiteDocumentV2",
        "SuiteDocumentV3",
        "ToolCallMatchRules",
    ),
    "._tool_names": (
        "TOOL_NAME_PATTERN",
        "ToolNameError",
        "decode_tool_calls",
        "decode_tool_name",
        "encode_tool_name",
        "encode_tools",
        "tool_name_map",
    ),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__version__ = "2.0.0.dev0"

__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
