"""A model judge labels a pack's units (``aau review judge``): its labels document.

``judge_pack`` asks the judge about every unit of the pack, in tasks.json order (a model rater
may label any unit), one call per unit: the prompt (``_judge_reply.read_prompt``) as the system
prompt and the unit as the user message (``judge_message``), no tools. The calls run through
aau-core's execution layer (``run_units``: bounded concurrency, results in pack order, Ctrl-C
keeps the units finished).

Each unit ends one of three ways:

- **a label**: the reply read by ``parse_reply``; ``time_spent_s`` is the call's wall time and
  ``labelled_at`` when the reply came;
- **a provider error**: the call raised (an HTTP error status, retries used up, a timeout, no
  connection, a malformed reply body: aau-core's ``ProviderError``). Not a label;
- **a reply error**: the reply is not a label (``ReplyError``). Not a label; never guessed.

Both errors are listed in the labels (``rater.model.judge_errors``). The runner's guards apply
(``aau_core._run._guards``): when every unit failed at the transport layer the judge raises
``ProviderUnavailable`` (exit 3) naming the real causes (``5 of 5 calls failed at the
provider: HTTP 500 x5; ...``, ``error_causes``); when no unit was labelled for any mix of
reasons, ``NotMeasuredError`` (exit 3). How long a failing provider can take is the backend's
``timeout_s`` x ``max_attempts`` per unit (plus back-off), set by ``make_backend``. Nothing is written then. Otherwise the labels are the judge's,
and say how many units it could not label.

Cost: the calls' token counts (their ``usage``) priced by aau's pricing table
(``aau_core.CostTracker`` for the requested model id), in USD; ``None`` when the table has no
price for the model (never $0 by default).
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

import attrs
from aau_core import (
    CostTracker,
    Interrupted,
    NotMeasuredError,
    ProviderUnavailable,
    run_units,
    utc_timestamp,
)
from aau_core._agents._anthropic import AnthropicBackend  # internal to the monorepo
from aau_core._agents._cost import UnknownModelPricingError  # internal to the monorepo
from aau_core._agents._openai_compat import OpenAICompatBackend  # internal to the monorepo
from aau_core._run._guards import (  # internal to the monorepo
    RUN_EVAL_UNMEASURED_LIMIT,
    transport_failures,
)

from ._judge_reply import JudgePrompt, ReplyError, judge_message, parse_reply, reply_text
from ._models import JudgeError, Label, Labels, ModelRater, Rater, Unit
from ._pack import ReviewPack

_SLUG_PART = re.compile(r"[^a-z0-9]+")
_HTTP_STATUS = re.compile(r"\bHTTP (\d{3})\b")
_MAX_MESSAGE = 500


@attrs.frozen
class JudgeOutcome:
    """What ``judge_pack`` produced.

    Attributes:
        labels: the labels document (model rater; ``judge_errors`` lists the units not labelled).
        units: how many units the judge was asked about.
        cost_usd: the calls' cost in USD, or ``None`` when the model has no known price.
        interrupted: the run was cut short by Ctrl-C or SIGTERM (``labels`` holds the units finished).
    """

    labels: Labels
    units: int
    cost_usd: float | None
    interrupted: bool = False

    @property
    def errors(self) -> tuple[JudgeError, ...]:
        """The units the judge could not label."""
        return (self.labels.rater.model.judge_errors or ()) if self.labels.rater.model else ()


@attrs.frozen
class _Answer:
    label: Label | None = None
    error: JudgeError | None = None
    usage: Any = None


def default_pseudonym(model: str) -> str:
    """The judge's default pseudonym: ``judge-`` and the model id's last path part as a slug
    (``accounts/x/models/gpt-oss-120b`` -> ``judge-gpt-oss-120b``), at most 40 characters."""
    part = _SLUG_PART.sub("-", model.rsplit("/", 1)[-1].lower()).strip("-") or "model"
    return ("judge-" + part)[:40].rstrip("-")


def served_name(kind: str, backend: Any) -> str:
    """``provider:model``, the model as the provider reported it (``served_model`` after the
    first answer), else the requested id."""
    return f"{kind}:{getattr(backend, 'served_model', None) or backend.model}"


def backend_settings(kind: str, backend: Any) -> dict[str, Any]:
    """The settings a judge's calls were made with: the backend kind and requested model, and
    what the backend sends with every call — the Anthropic backend's request fields
    (``max_tokens``, thinking, effort), the OpenAI-compatible backends' ``temperature`` 0 (no
    max tokens, no seed: the provider's defaults)."""
    settings: dict[str, Any] = {"backend": kind, "model": backend.model}
    if isinstance(backend, AnthropicBackend):  # what it sends besides the conversation
        fixed = backend.request("", [], [])
        settings.update({k: v for k, v in fixed.items()
                         if k not in ("model", "system", "messages", "tools")})
    elif isinstance(backend, OpenAICompatBackend):  # its create() sends temperature 0
        settings["temperature"] = 0
    return settings


def error_cause(error: JudgeError) -> str:
    """A judge error's cause, short: ``"HTTP 500"``, ``"timeout"``, ``"connection refused"``,
    ``"connection error"``, ``"invalid response"`` or ``"provider error"`` for a provider
    error (read from aau-core's ``ProviderError`` message), ``"unreadable reply"`` for a reply
    error."""
    if error.error != "provider":
        return "unreadable reply"
    status = _HTTP_STATUS.search(error.message)
    if status:
        return f"HTTP {status.group(1)}"
    for needle, cause in (("Timed out", "timeout"), ("connection refused", "connection refused"),
                          ("ConnectionError", "connection error"),
                          ("invalid response", "invalid response")):
        if needle in error.message:
            return cause
    return "provider error"


def format_causes(counts: Mapping[str, int]) -> str:
    """``"HTTP 500 x2, timeout x1"``: error counts by cause (``error_cause``), commonest first
    (ties in the order given); ``""`` for none."""
    return ", ".join(f"{cause} x{n}" for cause, n in Counter(counts).most_common())


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:_MAX_MESSAGE] or "no message"


def judge_pack(pack: ReviewPack, backend: Any, *, kind: str, prompt: JudgePrompt,
               rater: str, concurrency: int = 1,
               clock: Callable[[], float] = time.monotonic,
               on_progress: Callable[[int, int, Mapping[str, int]], None] | None = None,
               ) -> JudgeOutcome:
    """Ask ``backend`` to label every unit of ``pack`` (module docstring).

    Args:
        pack: the checked pack (``read_review_pack``).
        backend: a backend (``aau_core.make_backend``): ``create(system, messages, tools)``,
            ``model``, ``served_model``.
        kind: the backend kind (``"mock"``, ``"local"``, ``"anthropic"``, ...), for ``served``.
        prompt: the judge's prompt (``read_prompt``).
        rater: the judge's pseudonym (a slug).
        concurrency: most calls at once (>= 1).
        clock: the monotonic clock timing each call, in seconds (tests pass a fake).
        on_progress: called in the calling thread as each unit finishes, with ``(units
            finished, units, {cause: count})`` of the errors so far (``error_cause``).

    Returns:
        a ``JudgeOutcome``; its labels passed no check yet (the caller checks the document).

    Raises:
        ProviderUnavailable: every unit failed at the transport layer (exit 3).
        NotMeasuredError: no unit was labelled (exit 3).
        Interrupted: Ctrl-C or SIGTERM before any unit was labelled.
    """
    units = pack.tasks.units
    taxonomy = pack.tasks.taxonomy

    def ask(unit: Unit) -> _Answer:
        message = [{"role": "user", "content": judge_message(unit, taxonomy)}]
        start = clock()
        try:
            response = backend.create(prompt.text, message, [])
        except Exception as exc:  # noqa: BLE001 - a provider failure is this unit's, not the run's
            return _Answer(error=JudgeError(unit.unit_id, "provider", _one_line(str(exc))))
        spent = max(0.0, round(clock() - start, 6))
        usage = getattr(response, "usage", None)
        try:
            said = parse_reply(reply_text(response), taxonomy)
        except ReplyError as exc:
            return _Answer(error=JudgeError(unit.unit_id, "reply", _one_line(exc.reason)),
                           usage=usage)
        label = Label(unit_id=unit.unit_id, verdict=said.verdict, categories=said.categories,
                      note=said.note, time_spent_s=spent, labelled_at=utc_timestamp())
        return _Answer(label=label, usage=usage)

    causes: Counter[str] = Counter()
    finished = 0

    def done(_index: int, answer: _Answer) -> None:
        nonlocal finished
        finished += 1
        if answer.error is not None:
            causes[error_cause(answer.error)] += 1
        if on_progress is not None:
            on_progress(finished, len(units), dict(causes))

    interrupted = False
    try:
        answers = run_units(units, ask, on_error=_raise, concurrency=concurrency, on_done=done)
    except Interrupted as exc:
        finished = exc.finished or {}
        answers = [finished[i] for i in sorted(finished)]
        if not any(a.label for a in answers):
            raise
        interrupted = True
    labels = tuple(a.label for a in answers if a.label is not None)
    errors = tuple(a.error for a in answers if a.error is not None)
    if not interrupted:
        _guard(answers, errors, len(units))
    cost = _cost(backend.model, [a.usage for a in answers if a.usage is not None])
    model = ModelRater(served=served_name(kind, backend), prompt_sha256=prompt.sha256,
                       settings=backend_settings(kind, backend),
                       cost_usd=None if cost is None else round(cost, 6),
                       judge_errors=errors or None)
    doc = Labels(tasks_sha256=pack.tasks_sha256,
                 rater=Rater(pseudonym=rater, kind="model", model=model), labels=labels)
    return JudgeOutcome(labels=doc, units=len(units), cost_usd=cost, interrupted=interrupted)


def _raise(unit: Unit, exc: BaseException) -> _Answer:
    """``run_units``' ``on_error``: ``ask`` catches every provider failure itself, so anything
    else is a bug and stops the run (exit 70) rather than becoming a judge error."""
    raise exc


def _guard(answers: list[_Answer], errors: tuple[JudgeError, ...], units: int) -> None:
    results = [{"detail": {"error": a.error.message if a.error and a.error.error == "provider"
                           else None}} for a in answers]
    bad, n = transport_failures(results)  # the runner's rule, with the judge's own words
    if n and bad / n >= RUN_EVAL_UNMEASURED_LIMIT:
        raise ProviderUnavailable(
            bad / n, RUN_EVAL_UNMEASURED_LIMIT, results=results, not_measured=bad, units=n,
            message=f"{bad} of {n} calls failed at the provider: {format_causes(Counter(error_cause(e) for e in errors))}; the "
                    f"judge labelled none of the {n} units, so nothing was written (first, "
                    f"{errors[0].unit_id}: {errors[0].message})")
    if units and len(errors) == units:
        provider = sum(1 for e in errors if e.error == "provider")
        raise NotMeasuredError(
            f"the judge labelled none of the {units} unit(s) ({provider} provider failure(s), "
            f"{units - provider} unreadable reply(ies); first, {errors[0].unit_id}: "
            f"{errors[0].message}); nothing was written", not_measured=units, units=units,
            reason="nothing-labelled")


def _cost(model: str, usages: list[Any]) -> float | None:
    try:
        tracker = CostTracker(model)
    except UnknownModelPricingError:
        return None
    for usage in usages:
        tracker.add_usage(usage)
    return tracker.cost_usd
