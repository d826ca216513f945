"""Trace gates: PraisonAI's ``HarnessEvaluator`` (praisonaiagents 1.7.17), reimplemented.

``HarnessEvaluator(trace, ...).run()`` checks one agent trace (see ``_trace``) against four
gates and returns a ``HarnessResult``:

=========================  ===============================================  ==================
gate                       passes when                                      configured by
=========================  ===============================================  ==================
``artifacts_complete``     every required artifact name is in the trace     ``required_artifacts``
``tool_calls_sufficient``  ``tool_call_count >= min_tool_calls``            ``min_tool_calls > 0``
``schema_consistent``      ``schema_hash == expected_schema_hash``          ``expected_schema_hash``
``judge_passed``           ``judge_score >= judge_threshold``               the trace's ``judge_score``
                                                                            (or ``require_judge``)
=========================  ===============================================  ==================

``passed = all(gates)``; ``score = sum(gates) / 4`` (1.7.17's formula: an unconfigured gate counts
as passed, so an empty trace scores 1.0; ``gates_configured`` says which gates were really set).
A judge score that cannot be used (``_trace.read_judge_score``: unparseable, not finite, out of
range, or missing when required) fails the judge gate, as in 1.7.17, and the result's
``judge_error`` says why, so it never looks like a low score.

Divergences from 1.7.17 (where it crashes, iterates a string per character, or writes invalid
JSON) are listed in docs/trace-gates.md; each raises ``TraceError`` or gives a defined value.
"""

from __future__ import annotations

import json
import math
import sys
import uuid
from collections.abc import Hashable, Mapping
from pathlib import Path
from typing import Any, ClassVar, TextIO

import attrs

from .._files._converter import optional_field, unstructure_document
from .._files._strict_json import strip_bom
from .._run._provenance import utc_timestamp
from ._eval_report import EvalCase, EvalResult, judge_error_text
from ._trace import (
    JUDGE_SCORE_RANGE,
    JudgeError,
    TraceError,
    _type_name,
    artifact_names,
    read_judge_score,
    schema_hash,
    tool_call_count,
)

GATES = ("artifacts_complete", "tool_calls_sufficient", "schema_consistent", "judge_passed")


@attrs.define
class HarnessResult:
    """The gates of one trace (1.7.17's ``HarnessResult`` fields, in order, + ``gates_configured``).

    Args:
        passed: all four gates passed.
        score: true gates / 4: 0, 0.25, 0.5, 0.75 or 1.0 (a fraction; ``overall_score`` is 0-10).
        tool_call_count: tool calls in the trace.
        tool_calls_sufficient, schema_consistent, artifacts_complete, judge_passed: the gates.
        schema_hash: 16 hex digits of the trace's ``tool_schema``, or ``None``.
        missing_artifacts: required artifacts absent from the trace, in option order.
        judge_score: the judge's score as a finite float, or ``None``.
        eval_id: 8 hex characters; name: the evaluator's name.
        timestamp: when it ran (UTC, ``...Z``; 1.7.17 writes naive local time).
        metadata: ``{"required_artifacts": [...]}``.
        score_scale: ``"fraction"`` (how ``EvalSuite`` knows to multiply by 10).
        gates_configured: the gates really configured, in gate order.
        judge_error: why the judge score could not be used (``JudgeError``: ``code`` and
            ``message``; the judge gate then fails), ``None`` when it was read or there is
            none; ``ABSENT`` only in a result read from a document written before aau recorded
            judge errors (trace-result v1.0).

    Its document (schema ``trace-result``, ``to_dict``) has 1.7.17's key order, which is not the
    field order, then ``gates_configured`` and ``judge_error``, and leaves out ``score_scale``:
    ``__aau_document_keys__`` says so to the document converter.
    """

    passed: bool
    score: float
    tool_call_count: int = 0
    tool_calls_sufficient: bool = True
    schema_hash: str | None = None
    schema_consistent: bool = True
    artifacts_complete: bool = True
    missing_artifacts: list[Any] = attrs.field(factory=list)
    judge_score: float | None = None
    judge_passed: bool = True
    eval_id: str = ""
    name: str = ""
    timestamp: str = attrs.field(factory=utc_timestamp)
    metadata: dict[str, Any] = attrs.field(factory=dict)
    score_scale: str = "fraction"
    gates_configured: list[str] = attrs.field(factory=list)
    judge_error: JudgeError | None = optional_field(nullable=True)

    __aau_document_keys__: ClassVar[tuple[str, ...]] = (
        "eval_id", "name", "passed", "score", "tool_call_count", "tool_calls_sufficient",
        "schema_hash", "schema_consistent", "artifacts_complete", "missing_artifacts",
        "judge_score", "judge_passed", "timestamp", "metadata", "gates_configured",
        "judge_error")

    @property
    def overall_score(self) -> float:
        """``score * 10.0`` (the 0-10 scale ``EvalSuite`` uses)."""
        return self.score * 10.0

    def gates(self) -> dict[str, bool]:
        """The four gates by name, in gate order."""
        return {g: bool(getattr(self, g)) for g in GATES}

    def to_dict(self) -> dict[str, Any]:
        """1.7.17's ``to_dict`` keys in its order, then ``gates_configured`` and
        ``judge_error`` (schema ``trace-result``), by the document converter (kept: PraisonAI's
        public API)."""
        return unstructure_document(self)  # type: ignore[no-any-return]

    def to_eval_result(self, case_name: str | None = None, *,
                       include_record: bool = False) -> EvalResult:
        """The result as an ``EvalResult``: ``score`` (0..1), one 1.0/0.0 criterion per gate.

        ``case_name`` defaults to the result's ``name``. ``include_record=True`` keeps the whole
        ``to_dict()`` in ``record`` (1.7.17 drops the hash, count and missing list). The
        ``judge_error`` goes along either way (not in the ``EvalResult``'s document), so
        ``EvalReport.from_results`` counts it.
        """
        return EvalResult(
            case_name=case_name or self.name, passed=self.passed, score=self.score,
            criteria_scores={g: 1.0 if ok else 0.0 for g, ok in self.gates().items()},
            record=self.to_dict() if include_record else None,
            judge_error=self.judge_error if isinstance(self.judge_error, JudgeError) else None)

    def to_json(self) -> str:
        """``to_dict()`` as JSON with ``indent=2``; always valid JSON (no ``NaN``)."""
        return json.dumps(self.to_dict(), indent=2, allow_nan=False)

    def summary_rows(self) -> list[tuple[str, str]]:
        """``(metric, value)`` rows of the summary: every gate, the hash and the missing list."""
        def mark(ok: bool, configured: str) -> str:
            state = "pass" if ok else "FAIL"
            return state if configured in self.gates_configured else f"{state} (not configured)"

        judge = "none" if self.judge_score is None else f"{self.judge_score:.1f}"
        if isinstance(self.judge_error, JudgeError):
            judge = judge_error_text(self.judge_error)
        return [
            ("Score", f"{self.score:.2f} ({self.overall_score:.1f}/10)"),
            ("Tool calls", f"{self.tool_call_count}: {mark(self.tool_calls_sufficient, GATES[1])}"),
            ("Schema hash", f"{self.schema_hash or 'none'}: {mark(self.schema_consistent, GATES[2])}"),
            ("Artifacts", mark(self.artifacts_complete, GATES[0]) + (
                f"; missing {', '.join(map(str, self.missing_artifacts))}"
                if self.missing_artifacts else "")),
            ("Judge score", f"{judge}: {mark(self.judge_passed, GATES[3])}"),
            ("Status", "PASSED" if self.passed else "FAILED"),
        ]

    def print_summary(self, file: TextIO | None = None) -> None:
        """Print a rich table of every gate (incl. tool calls, missing artifacts and the schema
        hash, which 1.7.17 leaves out) to ``file`` (default stdout)."""
        from rich.console import Console
        from rich.markup import escape
        from rich.table import Table

        from .._files._terminal import terminal_text

        # rich writes its own escape codes unchanged: make the document's text safe first
        table = Table(title=f"Harness evaluation: {escape(terminal_text(str(self.name)))}")
        table.add_column("Metric", style="cyan")
        table.add_column("Value", style="green" if self.passed else "red")
        for metric, value in self.summary_rows():
            table.add_row(escape(terminal_text(metric)), escape(terminal_text(value)))
        Console(file=file or sys.stdout, soft_wrap=True).print(table)


def _required_list(required: Any) -> list[Hashable]:
    """Normalise ``required_artifacts``: a string is one name (1.7.17 iterates its characters);
    entries must be hashable names (1.7.17 crashes on a dict)."""
    if required is None:
        return []
    if isinstance(required, str):
        return [required] if required else []
    if not isinstance(required, (list, tuple)):
        raise TraceError(f"must be a name or a list of names, not {_type_name(required)} "
                         f"{required!r}", "required_artifacts")
    out: list[Hashable] = []
    for i, entry in enumerate(required):
        if isinstance(entry, (dict, list, set)) or not isinstance(entry, Hashable):
            raise TraceError(f"a required artifact must be a name (a string), not "
                             f"{type(entry).__name__} {entry!r}", f"required_artifacts[{i}]")
        out.append(entry)
    return out


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) \
        and math.isfinite(value)


def check_option(ok: bool, option: str, want: str, value: Any) -> None:
    """Raise ``TraceError`` at ``option`` unless ``ok``: ``"<option>: must be <want>, not ..."``."""
    if not ok:
        got = "None" if value is None else f"{_type_name(value)} {value!r}"
        raise TraceError(f"must be {want}, not {got}", option)


def _check_options(trace: Any, min_tool_calls: Any, expected_schema_hash: Any,
                   judge_threshold: Any, name: Any, save_results_path: Any, verbose: Any,
                   judge_score_range: Any, require_judge: Any) -> None:
    if not (trace is None or isinstance(trace, Mapping)):
        raise TraceError(f"a trace must be an object, not {_type_name(trace)}")
    check_option(isinstance(min_tool_calls, int) and not isinstance(min_tool_calls, bool),
                 "min_tool_calls", "an integer (0 or less: gate not configured)", min_tool_calls)
    check_option(expected_schema_hash is None or isinstance(expected_schema_hash, str),
                 "expected_schema_hash", "a string or None", expected_schema_hash)
    check_option(_is_number(judge_threshold), "judge_threshold", "a finite number",
                 judge_threshold)
    check_option(name is None or isinstance(name, str), "name", "a string or None", name)
    check_option(save_results_path is None or isinstance(save_results_path, str),
                 "save_results_path", "a string or None", save_results_path)
    check_option(isinstance(verbose, bool), "verbose", "true or false", verbose)
    check_option(isinstance(judge_score_range, (tuple, list)) and len(judge_score_range) == 2
                 and all(map(_is_number, judge_score_range))
                 and judge_score_range[0] < judge_score_range[1], "judge_score_range",
                 "(lowest, highest): two finite numbers, lowest < highest", judge_score_range)
    check_option(isinstance(require_judge, bool), "require_judge", "true or false",
                 require_judge)


class HarnessEvaluator:
    """Gate one agent trace on artifacts, tool-call count, schema hash and judge score.

    Args:
        trace: the trace dict (schema kind ``trace``); ``None`` is ``{}``.
        required_artifacts: names that must appear among the trace's artifacts (exact,
            case-sensitive string membership; an ``int`` never matches, as in 1.7.17).
        min_tool_calls: the least number of tool calls, an integer (0 or less: gate not
            configured, as in 1.7.17).
        expected_schema_hash: the 16-hex hash the trace's ``tool_schema`` must have.
        judge_threshold: the least passing judge score (default 7.0; the judge's scale).
        judge_score_range: ``(lowest, highest)`` score the judge gives, inclusive (default
            ``(0.0, 10.0)``, PraisonAI's judge); a score outside it is a judge error
            (``out-of-range``; 1.7.17 has no range, so 42 passes there). aau's option.
        require_judge: the judge gate is configured even when the trace has no
            ``judge_score``, which is then a judge error (``missing``); default ``False``, as
            1.7.17 (no score, no gate). aau's option.
        name: the evaluator's name; default ``eval_<eval_id>``.
        save_results_path: write ``to_dict()`` JSON there after each run; ``{name}`` and
            ``{eval_id}`` are filled in. Unlike 1.7.17 (which logs a warning), a failed write
            raises ``OutputError``.
        verbose: print the summary after each run.

    Raises:
        TraceError: an option of the wrong type or range (``str(err)`` starts with the option's
            name: ``"judge_threshold: must be a finite number, not string 'high'"``), or
            ``required_artifacts`` holds something that is not a name.
    """

    def __init__(self, trace: Mapping[str, Any] | None, required_artifacts: Any = None,
                 min_tool_calls: int = 0, expected_schema_hash: str | None = None,
                 judge_threshold: float = 7.0, name: str | None = None,
                 save_results_path: str | None = None, verbose: bool = False, *,
                 judge_score_range: tuple[float, float] = JUDGE_SCORE_RANGE,
                 require_judge: bool = False) -> None:
        _check_options(trace, min_tool_calls, expected_schema_hash, judge_threshold, name,
                       save_results_path, verbose, judge_score_range, require_judge)
        self.eval_id = uuid.uuid4().hex[:8]
        self.name = name or f"eval_{self.eval_id}"
        self.trace: Mapping[str, Any] = trace or {}
        self.required_artifacts = _required_list(required_artifacts)
        self.min_tool_calls = min_tool_calls
        self.expected_schema_hash = expected_schema_hash
        self.judge_threshold = judge_threshold
        self.save_results_path = save_results_path
        self.verbose = verbose
        self.judge_score_range = (float(judge_score_range[0]), float(judge_score_range[1]))
        self.require_judge = require_judge
        self._result: HarnessResult | None = None

    def __repr__(self) -> str:
        return f"HarnessEvaluator(name={self.name!r}, eval_id={self.eval_id!r})"

    def run(self, print_summary: bool = False, **kwargs: Any) -> HarnessResult:
        """Evaluate the trace.

        Args:
            print_summary: print the summary table to stdout.
            kwargs: ignored (1.7.17 accepts and ignores them).

        Returns:
            the ``HarnessResult``.

        Raises:
            TraceError: the trace cannot be read (a float or string tool-call value, a schema
                that is not JSON or has mixed key types); ``str(err)`` names the JSON path.
            OutputError: ``save_results_path`` cannot be written.
        """
        trace = self.trace
        if not isinstance(trace, Mapping):
            raise TraceError(f"a trace must be an object, not {type(trace).__name__}")
        count = tool_call_count(trace)
        present = set(artifact_names(trace))
        missing = [a for a in self.required_artifacts if a not in present]
        digest = schema_hash(trace.get("tool_schema"))
        judge = read_judge_score(trace.get("judge_score"), self.judge_score_range,
                                 required=self.require_judge)

        tools_ok = count >= self.min_tool_calls
        schema_ok = self.expected_schema_hash is None or digest == self.expected_schema_hash
        judge_ok = (not judge.configured) or (
            judge.score is not None and judge.score >= self.judge_threshold)
        gates = [not missing, tools_ok, schema_ok, judge_ok]
        configured = [g for g, on in zip(GATES, (
            bool(self.required_artifacts), self.min_tool_calls > 0,
            self.expected_schema_hash is not None, judge.configured), strict=True) if on]
        result = HarnessResult(
            passed=all(gates), score=sum(gates) / 4, tool_call_count=count,
            tool_calls_sufficient=tools_ok, schema_hash=digest, schema_consistent=schema_ok,
            artifacts_complete=not missing, missing_artifacts=missing, judge_score=judge.score,
            judge_passed=judge_ok, eval_id=self.eval_id, name=self.name,
            metadata={"required_artifacts": list(self.required_artifacts)},
            gates_configured=configured, judge_error=judge.error)
        self._result = result
        if self.save_results_path:
            from .._files._writing import atomic_write_text

            target = Path(self.save_results_path.format(name=self.name, eval_id=self.eval_id))
            atomic_write_text(target, result.to_json() + "\n", force=True)
        if print_summary or self.verbose:
            result.print_summary()
        return result

    async def run_async(self, **kwargs: Any) -> HarnessResult:
        """``run(**kwargs)`` (the work is synchronous and fast)."""
        return self.run(**kwargs)

    def to_eval_result(self, case_name: str | None = None, *,
                       include_record: bool = False) -> EvalResult:
        """The result as an ``EvalResult``: ``score`` (0..1), one 1.0/0.0 criterion per gate.

        Runs first when it never ran (1.7.17 too). ``include_record=True`` keeps the whole
        ``HarnessResult.to_dict()`` in ``record`` (1.7.17 drops the hash, count and missing list).
        """
        result = self._result or self.run()
        return result.to_eval_result(case_name or self.name, include_record=include_record)


def _nonempty(row: Mapping[str, Any], *keys: str) -> Any:
    return next((row[k] for k in keys if row.get(k)), None)


def harness_row_to_eval_case(row: Mapping[str, Any]) -> EvalCase:
    """Turn one harness CSV row into an ``EvalCase``.

    Two row shapes are read:

    - 1.7.17's (``id|name|scenario``, ``prompt|input``, ``expected``, ``fixture``, ``rubric``),
      exactly as 1.7.17: name = first non-empty of id, name, scenario, else ``"harness_case"``;
      input = first non-empty of prompt, input; ``expected`` kept raw; ``criteria = [rubric]``;
      ``metadata = {"source": "harness", "fixture"?, "rubric"?}``; other columns dropped.
    - praisonai's ``csv_test_runner`` rows (``prompts``, ``workspace_fixture``, ``judge_rubric``,
      ``judge_threshold``, ``expected_response``), which 1.7.17 refuses ("must have an input"):
      when neither ``prompt`` nor ``input`` is set, ``prompts`` is the input,
      ``expected_response`` the expected value, ``judge_rubric`` the criterion, and metadata
      ``{"source": "csv_test_runner", "fixture", "rubric", "judge_threshold"}`` keeps the rest
      (non-empty values only; the threshold as a float).

    Raises:
        ValueError: the row has no input at all (``"EvalCase must have an input"``), or a
            ``judge_threshold`` that is not a number.
    """
    row = {strip_bom(k) if isinstance(k, str) else k: v for k, v in row.items()}
    name = str(_nonempty(row, "id", "name", "scenario") or "harness_case")
    prompt = _nonempty(row, "prompt", "input")
    if prompt is None and row.get("prompts"):
        metadata: dict[str, Any] = {"source": "csv_test_runner"}
        fixture, rubric = row.get("workspace_fixture"), row.get("judge_rubric")
        if fixture:
            metadata["fixture"] = fixture
        if rubric:
            metadata["rubric"] = rubric
        threshold = row.get("judge_threshold")
        if threshold not in (None, ""):
            try:
                metadata["judge_threshold"] = float(threshold)
            except (TypeError, ValueError):
                raise ValueError(f"judge_threshold {threshold!r} is not a number") from None
        return EvalCase(name=name, input=str(row["prompts"]), expected=row.get("expected_response"),
                        criteria=[rubric] if rubric else [], metadata=metadata)
    metadata = {"source": "harness"}
    fixture, rubric = row.get("fixture"), row.get("rubric")
    if fixture:
        metadata["fixture"] = fixture
    if rubric:
        metadata["rubric"] = rubric
    return EvalCase(name=name, input=str(prompt or ""), expected=row.get("expected"),
                    criteria=[rubric] if rubric else [], metadata=metadata)
