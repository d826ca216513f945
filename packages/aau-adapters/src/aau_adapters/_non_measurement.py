"""When an ``aau evaluate`` run measured too little to be a result, and the error that says so.

A unit whose adapter or transport failed (``aau_core``'s failure classes ``adapter`` and
``infrastructure``: a command not found or exiting non-zero, a timeout, an unreachable endpoint,
HTTP 429 or 5xx, ...) measured the agent's plumbing or its provider, not its answers. When the
share of such units reaches ``--unmeasured-limit`` (default 1.0: every unit), or when
infrastructure failures are more than half of the units (an outage), ``run_evaluation`` writes
no public receipt and raises ``EvaluationNotMeasured`` (an ``aau_core.NotMeasuredError``,
exit 3): the private receipt is still written and the checkpoint kept, since they hold each
unit's reason. The rule is ``aau_core._reports._coverage.non_measurement``.

HTTP statuses that say the request never reached the agent (a redirect, 401/403 a missing or
wrong credential, 404/405 a wrong path or method, ...: ``aau_core``'s ``WIRING_STATUSES``) are
class ``adapter`` too, so a typo in the endpoint's path or a token that expired mid-run never
scores the agent. The error line ends with a hint for the most frequent code (``_HINTS``).

One more run is no result: one in which **no unit's answer could be read** (reason
``"no-answer"``, ``answer_unread`` on every unit). A command that prints nothing (``--command
true``) or logs on stdout, or an endpoint that answers 400/422 to everything, gives each unit an
*agent* class code (``adapter-invalid-response``, ``adapter-http-400``), so the coverage counts
them measured; but a receipt of zeros from them measures the wiring, not one decision of the
agent. The rule needs every unit's answer, so it is the writer's: ``check_receipt_consistency``
does not apply it to receipts written before it existed.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from aau_core import NotMeasuredError

from ._failure_codes import ADAPTER_INVALID_RESPONSE, is_measured
from ._receipt import EvaluationRun
from ._receipt_models import Coverage

NO_ANSWER = "no-answer"
"""``EvaluationNotMeasured.reason`` of a run in which no unit's answer could be read."""

_HINTS = (
    (("adapter-http-404", "adapter-http-405"), "check the --endpoint URL's path and that it "
     "takes POST"),
    (("adapter-http-401", "adapter-http-403", "adapter-http-407"), "the endpoint refused the "
     "credential, or had none: check --header (say, 'Authorization: Bearer ${TOKEN}')"),
    (("adapter-http-301", "adapter-http-302", "adapter-http-303", "adapter-http-307",
      "adapter-http-308"), "the endpoint redirects (aau follows no redirect): give the URL it "
     "redirects to"),
    (("adapter-invalid-response",), "the agent must print (or answer) one JSON response object "
     "per case: see docs/evaluate.md"),
)


def answer_unread(code: str | None) -> bool:
    """Whether a unit with this adapter failure code (or ``None``) has no answer aau could read:
    it was not measured, or it got a status outside 2xx (``adapter-http-<status>``) or an
    answer that is not a valid response (``adapter-invalid-response``). A conversation that
    ended without an answer (``conversation-turn-limit``, ``user-stopped``, ...) was read: the
    agent chose how to talk."""
    if code is None:
        return False
    return (not is_measured(code) or code == ADAPTER_INVALID_RESPONSE
            or code.startswith("adapter-http-"))


_WIRING = "check the agent's wiring (the adapter notes above show the first reason of each code)"


def _hint(counts: dict[str, int]) -> str | None:
    """What to check, for the most frequent code of a run that measured nothing (``None``
    when aau has no hint for it)."""
    top = next(iter(counts), "")
    for codes, hint in _HINTS:
        if top in codes:
            return hint
    return None


class EvaluationNotMeasured(NotMeasuredError):
    """An ``aau evaluate`` run that measured too little for a receipt (exit 3).

    Attributes:
        run: the evaluation run (every unit's answer and reason).
        coverage: how many units measured the agent.
        failure_code_counts: ``{adapter failure code: units}`` of the units not measured, most
            frequent first.
        reason: ``"limit"`` (``not_measured / units >= unmeasured_limit``),
            ``"infrastructure"`` (more than half of the units failed in the transport or at
            the provider) or ``"no-answer"`` (no unit's answer could be read; module docstring).
        unmeasured_limit: the limit applied (in (0, 1]).
        private_out: the private receipt written with the reasons, or ``None``.
        checkpoint: the checkpoint kept (``--resume`` re-runs the units not measured), or
            ``None``.
        earlier_receipt: the ``--out`` file an earlier run wrote, still there (this run wrote
            none), or ``None``: the message names it, so no one reads it as this run's.
    """

    def __init__(self, run: EvaluationRun, coverage: Coverage, *, reason: str,
                 unmeasured_limit: float, private_out: str | None,
                 checkpoint: str | None, earlier_receipt: str | None = None) -> None:
        self.run = run
        self.coverage = coverage
        self.failure_code_counts = unmeasured_code_counts(run, every=reason == NO_ANSWER)
        self.reason = reason
        self.unmeasured_limit = unmeasured_limit
        self.private_out = private_out
        self.checkpoint = checkpoint
        self.earlier_receipt = earlier_receipt
        unread = coverage.units if reason == NO_ANSWER else coverage.not_measured
        super().__init__(self._message(), not_measured=unread,
                         units=coverage.units, reason=reason)

    def _message(self) -> str:
        cov = self.coverage
        codes = ", ".join(f"{code} {n}" for code, n in self.failure_code_counts.items())
        if self.reason == "infrastructure":
            head = (f"too little was measured: {cov.infrastructure_failures} of {cov.units} "
                    f"units failed in the transport or at the provider ({codes}), more than "
                    "half: an outage, not the agent")
        elif self.reason == NO_ANSWER:
            head = (f"nothing was measured: no unit's answer could be read ({codes}): "
                    f"{_hint(self.failure_code_counts) or _WIRING}")
        elif cov.measured == 0:
            hint = _hint(self.failure_code_counts)
            head = (f"nothing was measured: {cov.not_measured} of {cov.units} units failed in "
                    f"the adapter or transport ({codes})" + (f": {hint}" if hint else ""))
        else:
            head = (f"too little was measured: {cov.not_measured} of {cov.units} units failed "
                    f"in the adapter or transport ({codes}), at or above --unmeasured-limit "
                    f"{self.unmeasured_limit:g}")
        if self.private_out:
            kept = [p for p in (self.private_out, self.checkpoint) if p]
            where = f"the reasons are in {' and '.join(kept)}"
        elif self.checkpoint:
            where = (f"the failure codes are in {self.checkpoint} (--private-out PATH keeps each "
                     "unit's reason too)")
        else:
            where = "rerun with --private-out PATH to keep each unit's reason"
        written = "no receipt written"
        if self.earlier_receipt:
            written += f" ({self.earlier_receipt} is an earlier run's, left as it was)"
        return f"{head}; {written}; {where}"

    def summary(self) -> dict[str, Any]:
        """The ``--json`` summary of the run: ``measured`` false, the reason code and the one-line
        message (as every ``NotMeasuredError.summary``), the suite, the coverage, the
        not-measured units' failure-code counts, where the reasons are, no metrics and
        ``receipt_path`` ``None``."""
        from ._documents import unstructure_document

        return {"measured": False, "reason": self.reason, "message": str(self),
                "suite_id": self.run.suite.suite_id,
                "adapter_kind": self.run.adapter_kind, "repeats": self.run.repeats,
                "coverage": unstructure_document(self.coverage),
                "unmeasured_limit": self.unmeasured_limit,
                "failure_code_counts": self.failure_code_counts,
                "private_path": self.private_out, "checkpoint_path": self.checkpoint,
                "receipt_path": None, "passed": False}


def unmeasured_code_counts(run: EvaluationRun, *, every: bool = False) -> dict[str, int]:
    """``{adapter failure code: units}`` over the run's units that were not measured (with
    ``every``, over all units with an adapter failure code), most frequent first (ties by
    code)."""
    counts = Counter(u.answer.error for u in run.units
                     if u.answer.error is not None and (every or not is_measured(u.answer.error)))
    return {code: n for code, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))}


def check_measured(run: EvaluationRun, *, unmeasured_limit: float = 1.0) -> Coverage:
    """Refuse a run that measured too little before a number is made of it (for callers of
    ``evaluate`` that build receipts themselves, such as ``aau release assess``).

    Args:
        run: the evaluation run.
        unmeasured_limit: as ``run_evaluation``'s (in (0, 1]; 1.0 = only when no unit was
            measured).

    Returns:
        the run's coverage, when it is a measurement.

    Raises:
        EvaluationNotMeasured: ``aau_core._reports._coverage.non_measurement`` says the run is
            not one, or no unit's answer could be read (``"no-answer"``; nothing written, no
            checkpoint).
    """
    from aau_core._reports._coverage import non_measurement  # internal to the monorepo

    from ._documents import unstructure_document
    from ._receipt import run_coverage

    coverage = run_coverage(run)
    reason = non_measurement(unstructure_document(coverage), unmeasured_limit)
    if reason is None and run.units and all(answer_unread(u.answer.error) for u in run.units):
        reason = NO_ANSWER
    if reason is not None:
        raise EvaluationNotMeasured(run, coverage, reason=reason,
                                    unmeasured_limit=unmeasured_limit, private_out=None,
                                    checkpoint=None)
    return coverage
