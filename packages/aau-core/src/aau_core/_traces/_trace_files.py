"""Trace files: reading one strictly, and scoring a batch of them where one bad file never
stops the others (``aau trace score``'s Python API).

- ``load_trace_file(name)``: the file through the strict JSON reader and the ``trace`` schema.
- ``score_trace_files(names, **options)``: one ``EvalResult`` per file, in order. A file that
  cannot be read (missing, not JSON, not a valid trace, or refused by the evaluator with a
  ``TraceError``) is an errored case (``passed`` false, score 0, ``error`` its one-line
  ``FILE: $.path: message``, no record); a judge score that cannot be used is that trace's
  ``judge_error`` (``_trace.read_judge_score``), never an error of the batch.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .._errors import InputError
from ._eval_report import EvalResult

MAX_TRACE_BYTES = 50_000_000
"""The largest trace file read, in bytes."""


def load_trace_file(name: str) -> dict[str, Any]:
    """Read a trace file strictly and check it against the ``trace`` schema.

    Args:
        name: the file's path.

    Returns:
        the trace object.

    Raises:
        InputError: missing, larger than ``MAX_TRACE_BYTES``, not JSON (NaN, Infinity and
            numbers that overflow to infinity are not JSON), or not a valid trace (file and
            JSON path named; ``InvalidDocumentError`` for several violations).
    """
    from .._files._document_check import check_document
    from .._files._strict_json import read_json_file

    doc = read_json_file(name, max_bytes=MAX_TRACE_BYTES)
    return check_document("trace", doc, name)  # type: ignore[no-any-return]


def score_trace_files(names: Sequence[str], **options: Any) -> list[EvalResult]:
    """Score each trace file with ``HarnessEvaluator(trace, name=<file>, **options)``.

    Args:
        names: the trace files, in report order.
        options: ``HarnessEvaluator`` options (``required_artifacts``, ``min_tool_calls``,
            ``expected_schema_hash``, ``judge_threshold``, ``judge_score_range``,
            ``require_judge``).

    Returns:
        one ``EvalResult`` per file, in order: a scored trace with its trace result as
        ``record`` (and its ``judge_error``), or an errored case for a file that could not be
        read (``error`` = ``str(InputError)``, one ``FILE: $.path: message`` line per problem).

    Raises:
        InputError: no file could be read: the single file's own error, or one line per file.
        TraceError: an option is wrong (before any file is read).
    """
    from ._harness_eval import HarnessEvaluator
    from ._trace import TraceError

    HarnessEvaluator(None, **options)  # refuse wrong options once, before any file
    results: list[EvalResult] = []
    errors: list[InputError] = []
    for name in names:
        try:
            evaluator = HarnessEvaluator(load_trace_file(name), name=name, **options)
            try:
                evaluator.run()
            except TraceError as exc:
                raise InputError(exc.message, source=name, path=exc.path) from None
        except InputError as exc:
            errors.append(exc)
            results.append(EvalResult(case_name=name, passed=False, score=0.0, error=str(exc)))
            continue
        results.append(evaluator.to_eval_result(include_record=True))
    if names and len(errors) == len(names):
        if len(errors) == 1:
            raise errors[0]
        raise InputError("\n".join(str(e) for e in errors))
    return results
