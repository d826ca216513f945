"""``aau evaluate`` as a Python API: ``run_evaluation`` takes a suite and an adapter to a
validated receipt (and private receipt), written where asked, with the ``--fail-under`` verdicts.

The workflow, in order (the click command in ``_cli`` only parses flags, calls this, and prints):
format and output checks, the run store choice, the checkpoint (``OUT.checkpoint.jsonl`` beside
``out``, locked), the executor, loading the suite, the suite checks the format and bars need,
opening the checkpoint (on resume, forgetting the units that were not measured, so they run
again), building the adapter, running every (scenario, repeat) unit (``_suite_run.evaluate``),
the measurement check (``_non_measurement``: a run that measured too little writes only its
private receipt, keeps its checkpoint and raises ``EvaluationNotMeasured``, exit 3), building
the receipt models (``_receipt``), validating their documents against their schemas, writing
them atomically, removing the checkpoint, and recording the run in the run store (a store
failure only warns). Error messages name the ``aau evaluate`` options
they concern (``--out``, ``--resume``, ...), since that is where most users meet them.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import TYPE_CHECKING, Any

import attrs
from aau_core import InputError, Interrupted, UsageError

from ._adapter import Adapter
from ._documents import unstructure_document
from ._evaluation_arguments import (
    check_adapter_retries,
    check_adapter_timeout,
    check_evaluation_arguments,
)
from ._evaluation_checkpoint import (
    BINDING_FORMAT,
    checkpoint_path,
    forget_unmeasured,
    program_name,
    run_binding,
)
from ._receipt import EvaluationRun, FailUnder
from ._receipt_models import (
    Coverage,
    FailUnderCheck,
    PrivateReceiptV1,
    PrivateReceiptV2,
    PublicReceiptV1,
    PublicReceiptV2,
)
from ._suite import DEFAULT_MAX_SUITE_BYTES, SUITE_V1, Suite

if TYPE_CHECKING:  # pragma: no cover
    from aau_core._run._checkpoint import ResumeReport  # internal to the monorepo



@attrs.frozen(kw_only=True)
class EvaluationResult:
    """What ``run_evaluation`` made.

    Attributes:
        run: the evaluation run (every unit's answer and row).
        receipt: the public receipt model (``PublicReceiptV2``, or ``PublicReceiptV1`` for
            ``format="aau-1.0"``), structured from ``document`` when first read (the run does
            not hold a 100,000-row model beside its document while it records the run); read
            it before changing ``document``, whose changes it would otherwise show.
        document: the public receipt as the JSON document written (schema-valid).
        private: the private receipt model, or ``None`` without ``private_out``.
        private_document: ``private`` as the JSON document written, or ``None``.
        verdicts: the ``--fail-under`` verdicts, in bar order.
        out, private_out: where the receipt and the private receipt were written (``None`` =
            not written).
        ensure_ascii: whether the files are ASCII-escaped (the aau-1.0 format is).
        coverage: how many units measured the agent (also for ``aau-1.0``, whose receipt
            cannot hold it).
        rerun_units: units a resumed checkpoint held as not measured, run again now.
        undetermined: the metrics of the failed ``--fail-under`` bars that would hold had every
            unit not measured passed (``_receipt.undetermined_bars``): too little was measured
            to judge them.
        checkpoint: the checkpoint kept because units were not measured (``--resume``
            measures them and writes the receipt again), or ``None``.
        resume: with ``resume=True``, what the checkpoint held besides finished units
            (``aau_core`` ``ResumeReport``: ``units_reused``, ``torn_line``,
            ``duplicates_collapsed``, ``notes``; ``as_json()`` is ``--json``'s ``resume``);
            else ``None``.
    """

    run: EvaluationRun
    document: dict[str, Any]
    private: PrivateReceiptV1 | PrivateReceiptV2 | None
    private_document: dict[str, Any] | None
    verdicts: tuple[FailUnderCheck, ...]
    out: str | None
    private_out: str | None
    ensure_ascii: bool
    coverage: Coverage
    rerun_units: int = 0
    resume: ResumeReport | None = None
    undetermined: tuple[str, ...] = ()
    checkpoint: str | None = None

    @property
    def passed(self) -> bool:
        """Whether every ``--fail-under`` bar holds (``True`` without bars)."""
        return all(v.passed for v in self.verdicts)

    @property
    def judged(self) -> bool:
        """Whether the verdicts are the agent's: every bar holds, or at least one failed bar
        would fail even had every unit not measured passed (``False`` when only units not
        measured make the bars fail: ``aau evaluate`` then exits 3, not 1)."""
        failed = {v.metric for v in self.verdicts if not v.passed}
        return not failed or not failed <= set(self.undetermined)

    @functools.cached_property
    def receipt(self) -> PublicReceiptV1 | PublicReceiptV2:
        """The public receipt model of ``document`` (``PublicReceiptV1`` for the aau-1.0
        format), structured on first read and kept."""
        from ._converter import converter
        from ._receipt import RECEIPT_V1

        legacy = self.document["receipt_version"] == RECEIPT_V1
        return converter.structure(self.document, PublicReceiptV1 if legacy else PublicReceiptV2)


def _prepare_receipt(*, legacy: bool, private: bool, units: int) -> threading.Thread:
    """Build, on a thread while the units run, what the receipts will need: their
    schemas' validators (~20 ms each to compile here) and, for a 2.x receipt of two or more
    units, numpy (its bootstrap intervals; ~60 ms to import). A run spends most of its time
    waiting on the agent, so this comes off the run's wall time (``benchmarks/bench_evaluate.py``
    row b); anything that fails here fails again, and is reported, where it is needed.

    Returns: the started thread; ``run_evaluation`` joins it before it returns or raises (it
    is not a daemon either, so even a caller that skips the join does not exit under it)."""
    import aau_schemas

    kinds = ["receipt-v1" if legacy else "receipt-v2"]
    if private:
        kinds.append("private-receipt-v1" if legacy else "private-receipt-v2")

    def prepare() -> None:
        try:
            for kind in kinds:
                aau_schemas.prepare(kind)
            if not legacy and units >= 2:
                import numpy  # noqa: F401
        except Exception:  # noqa: BLE001, S110 - only a head start: the receipt's path reports it
            pass

    thread = threading.Thread(target=prepare, name="aau-prepare-receipt")
    thread.start()
    return thread


def _load(suite: str | os.PathLike[str], max_bytes: int, strict: bool) -> Suite:
    from ._suite import load_suite

    try:
        return load_suite(suite, max_bytes=max_bytes, strict=strict)
    except InputError as exc:
        if type(exc) is not InputError or not exc.message.endswith("-byte limit"):
            raise
        raise InputError(f"{exc.message}; --max-suite-bytes N raises it", source=exc.source,
                         path=exc.path) from None


def run_evaluation(
    suite: str | os.PathLike[str] | Suite,
    adapter: Adapter | Callable[[], Adapter],
    *,
    repeats: int = 1,
    concurrency: int = 1,
    timeout_s: float = 30.0,
    retries: int = 0,
    out: str | None = None,
    private_out: str | None = None,
    format: str = "aau-2.0",  # noqa: A002 - the option's name
    fail_under: Sequence[FailUnder] = (),
    resume: bool = False,
    force: bool = False,
    executor: str = "local",
    ray_address: str | None = None,
    store: str | None = None,
    no_store: bool = False,
    max_suite_bytes: int = DEFAULT_MAX_SUITE_BYTES,
    adapter_binding: Mapping[str, Any] | None = None,
    progress: Callable[[str, int, int], AbstractContextManager[Any]] | None = None,
    strict: bool = False,
    warn: Callable[[str], None] | None = None,
    unmeasured_limit: float = 1.0,
    min_coverage: float = 1.0,
    user_backend: Callable[[], Any] | None = None,
) -> EvaluationResult:
    """Evaluate an agent on a suite and make its receipt: the whole ``aau evaluate``.

    Args:
        suite: a suite file (read with ``load_suite``, at most ``max_suite_bytes`` bytes) or a
            loaded ``Suite``.
        adapter: the agent connection, or a function with no arguments returning one (built
            just before the run and closed after it; needed for ``executor="ray"``, whose
            workers each build their own). An adapter passed as is stays open.
        repeats: runs per scenario (>= 1).
        concurrency: units in flight at once (>= 1).
        timeout_s: seconds allowed per unit: recorded in the receipt, and enforced by the adapter,
            whose own ``timeout_s`` must be the same (``check_adapter_timeout``).
        retries: further attempts per unit after an infrastructure failure (``--retries``,
            >= 0): applied by the adapter (an ``EndpointAdapter``'s ``retries``, which must be
            the same: ``check_adapter_retries``; 0 for every other adapter). Not part of the
            checkpoint binding: a run resumed with retries after an outage is the same run.
            Recorded in the receipt (``retries``).
        out: write the public receipt here (``None`` = not written). With ``out``, finished
            units are kept in ``OUT.checkpoint.jsonl`` until the receipt is written.
        private_out: also write the private receipt here (inputs, expected answers, responses,
            stderr tails: never publish without review).
        format: ``"aau-2.0"`` (``aau-byo-agent-receipt/2.1``) or ``"aau-1.0"`` (byte for byte
            what aau-harness 1.6 writes; one repeat, suite 1.0 only).
        fail_under: bars (``FailUnder``; ``_cli.parse_fail_under`` reads ``METRIC=VALUE``). A
            bar on a negative check (``no_forbidden_attempt_rate``,
            ``no_forbidden_execute_rate``) also needs the run's coverage >= ``min_coverage``.
        resume: continue from ``OUT.checkpoint.jsonl``: finished units are not run again,
            except those that were not measured (their adapter or transport failed), which
            run again.
        force: replace existing output files, and start over when a checkpoint exists.
        executor: ``"local"`` (threads) or ``"ray"`` (Ray tasks; needs ``aau-core[ray]``).
        ray_address: with ``executor="ray"``, the cluster to join (default: a local one).
        store, no_store: the run store to record into (``--store``; default ``$AAU_RUN_STORE``
            or the default store) or none at all (``--no-store``).
        max_suite_bytes: largest suite file accepted, in bytes.
        adapter_binding: the adapter part of the checkpoint binding, so a resume with another
            agent is refused (``binding_adapter``); default: an adapter's ``describe()``.
            Required with ``out`` when ``adapter`` is a factory.
        progress: ``progress(label, total_units, units_done_before)`` returns a context
            manager whose value has ``advance(failed: bool)``, called once per finished unit
            (``aau_core.DelayedProgress`` fits); ``None`` = no progress.
        strict: refuse a suite 1.0 / 2.0 with unknown keys (``--strict``) before anything
            runs, instead of warning about them.
        warn: called with each warning line before the run (``"suite.json:
            $.cases[0].forbidden_action: unknown key; did you mean forbidden_actions?
            (ignored)"``, from ``Suite.warnings``); default: printed on stderr.
        unmeasured_limit: the share of not-measured units (in (0, 1]) at or above which the run
            is a non-measurement; 1.0 = only when no unit was measured. A run whose
            infrastructure failures are more than half of its units is one whatever the limit.
        min_coverage: the coverage (units measured / units, in [0, 1]) a bar on a negative check
            needs to pass.
        user_backend: for cases with a model user (suite 3.0 ``user.kind: model``),
            ``() -> (backend, model_or_None)`` building the user simulator's backend
            (``--user-backend``); ``None``: such units are ``user-simulator-unavailable``. The
            local executor only (Ray workers get ``None``).

    Returns:
        the ``EvaluationResult`` (receipt model and document, private receipt, verdicts,
        where the files went).

    Raises:
        EvaluationNotMeasured: (an ``aau_core.NotMeasuredError``, exit 3) the run measured too
            little (``unmeasured_limit``, or mostly infrastructure failures): no receipt is
            written nor recorded, the private receipt is written, the checkpoint kept.
        ValueError: ``out`` with a factory and no ``adapter_binding``.
        aau_core.UsageError: an argument ``check_evaluation_arguments`` refuses (repeats,
            concurrency, timeout, retries, format, executor, unmeasured_limit,
            min_coverage, an unknown or out-of-range bar), before anything runs; an adapter
            whose timeout or retries differ from ``timeout_s`` / ``retries``;
            ``executor="ray"`` with an adapter instance; ``aau-1.0`` with repeats or a suite
            2.0 or 3.0, ``resume`` without ``out``, a checkpoint in the way (neither ``resume`` nor
            ``force``), ``ray_address`` without Ray, a ``tool_calls_match_rate`` bar on a suite
            without expected calls, an ``environment_success_rate`` bar on a suite without
            environment cases, ``store`` and ``no_store`` together.
        aau_core.OutputError: an output exists (without ``force``), is an input, or cannot be
            written; another process is writing the checkpoint.
        aau_core.InputError: the suite cannot be read or is invalid (file and JSON path named),
            or (``strict``) has unknown keys;
            with ``resume``, the checkpoint cannot be resumed: another suite, adapter, setting
            or agent program file (``... (the agent's program file agent.py changed); start over
            with --force instead of --resume``), a bad line, or a unit recorded twice with
            different results.
        aau_core.Interrupted: Ctrl-C or SIGTERM; no receipt is written, finished units stay in
            the checkpoint.
        aau_schemas.SchemaError: a built receipt breaks its schema (a bug in aau).
    """
    import aau_schemas
    from aau_core import (
        check_outputs,
        json_content,
        open_checkpoint,
        record_run_or_warn,
        store_choice,
        utc_timestamp,
        write_outputs,
    )

    from ._non_measurement import EvaluationNotMeasured, check_measured
    from ._receipt import (
        fail_under_verdicts,
        private_receipt_v1,
        private_receipt_v2,
        receipt_v1,
        receipt_v2,
        undetermined_bars,
    )
    from ._suite_run import evaluate

    check_evaluation_arguments(repeats=repeats, concurrency=concurrency, timeout_s=timeout_s,
                               format=format, executor=executor, fail_under=fail_under,
                               retries=retries, unmeasured_limit=unmeasured_limit,
                               min_coverage=min_coverage)
    factory = None if hasattr(adapter, "invoke") else adapter
    if factory is None:
        check_adapter_timeout(adapter, timeout_s)  # type: ignore[arg-type]
        check_adapter_retries(adapter, retries)  # type: ignore[arg-type]
    if executor == "ray" and factory is None:
        raise UsageError("executor='ray' needs an adapter factory (each worker builds its own)")
    if format == "aau-1.0" and repeats != 1:
        raise UsageError("--format aau-1.0 holds one repeat only; use --format v2 with --repeats")
    inputs = [] if isinstance(suite, Suite) else [suite]
    ckpt_path, replaced = checkpoint_path(out, resume=resume, force=force)
    # --resume replaces what the unfinished run wrote (a non-measurement's private receipt), and
    # so does a run that replaces a checkpoint holding no measurement
    replace_outputs = force or resume or replaced is not None
    check_outputs({"--out": out, "--private-out": private_out}, inputs=inputs,
                  force=replace_outputs)
    run_store = store_choice(store, no_store)
    if ray_address is not None and executor != "ray":
        raise UsageError("--ray-address needs --executor ray")
    run_units_with = None
    if executor == "ray":
        from aau_core import ray_executor

        run_units_with = ray_executor(address=ray_address)

    loaded = suite if isinstance(suite, Suite) else _load(suite, max_suite_bytes, strict)
    if strict:
        loaded.check_strict()  # a Suite loaded without strict
    for path, message in loaded.warnings:
        line = f"{loaded.source}: {path}: {message}"
        if warn is not None:
            warn(line)
        else:
            print(line, file=sys.stderr)
    name = loaded.source if isinstance(suite, Suite) else str(suite)
    if format == "aau-1.0" and loaded.version != SUITE_V1:
        raise UsageError(f"{name}: --format aau-1.0 cannot hold a {loaded.version} suite "
                         "(aau-harness 1.x has no tool calls); use --format v2")
    if not loaded.expects_tool_calls and any(b.metric == "tool_calls_match_rate"
                                             for b in fail_under):
        raise UsageError(f"{name}: --fail-under tool_calls_match_rate needs a suite v2 or v3 case with "
                         "expected.tool_calls; this suite has none")
    if (any(b.metric == "environment_success_rate" for b in fail_under)
            and not any(case.environment is not None for case in loaded.cases)):
        raise UsageError(f"{name}: --fail-under environment_success_rate needs a suite 3.0 case "
                         "with an environment; this suite has none")
    if format == "aau-2.0":
        loaded.suite_digest()  # fail now, not after the run, if the suite cannot be hashed
    total = len(loaded.cases) * repeats
    if ckpt_path is not None and adapter_binding is None and factory is not None:
        raise ValueError("a checkpoint (out=) with an adapter factory needs "
                         "adapter_binding= (see binding_adapter)")
    live: Adapter = factory() if factory is not None else adapter  # type: ignore[assignment]
    ckpt = None
    rerun = 0
    ignored: list[tuple[int, Any]] = []
    try:
        check_adapter_timeout(live, timeout_s)  # the one the receipt records is the one enforced
        check_adapter_retries(live, retries)
        if ckpt_path is not None:
            if adapter_binding is None:
                adapter_binding = live.describe()
            binding = run_binding(loaded, adapter_binding, repeats=repeats, timeout=timeout_s,
                               fmt=BINDING_FORMAT[format], private=private_out is not None)
            if replaced is not None:
                (warn or (lambda line: print(line, file=sys.stderr)))(replaced)
            ckpt = open_checkpoint(ckpt_path, producer="aau evaluate", units=total,
                                   binding=binding, created_at=utc_timestamp(),
                                   resume=resume and replaced is None,
                                   force=force or replaced is not None,
                                   program_name=program_name(adapter_binding, live))
            ckpt.print_notes()  # a torn last line, duplicates collapsed: before the progress bar
            rerun = forget_unmeasured(ckpt)
    except BaseException:
        if ckpt is not None:
            ckpt.close()
        if factory is not None:
            live.close()
        raise

    legacy = format == "aau-1.0"
    prepared = _prepare_receipt(legacy=legacy, private=private_out is not None, units=total)
    try:
        try:
            done_before = len(ckpt.finished) if ckpt is not None else 0
            bar = progress(loaded.suite_id, total, done_before) if progress else nullcontext(None)
            with bar as shown:
                def on_unit(unit: Any) -> None:
                    if shown is not None:
                        shown.advance(not unit.row["exact"])

                run = evaluate(loaded, live, repeats=repeats, concurrency=concurrency,
                               timeout_s=timeout_s, on_unit=on_unit, checkpoint=ckpt,
                               private=private_out is not None, executor=run_units_with,
                               adapter_factory=factory if run_units_with else None,
                               user_backend=user_backend)
        except Interrupted as exc:
            if threading.current_thread() is threading.main_thread():
                # a second one must not lose rows while the adapter and checkpoint close; the
                # caller's handlers come back after that (a library caller may go on)
                ignored = [(signum, signal.signal(signum, signal.SIG_IGN))
                           for signum in (signal.SIGINT, signal.SIGTERM)]
            finished = len(exc.finished or {})
            kept = ""
            if ckpt is not None:
                kept = f"; finished units kept in {ckpt.path}: resume with --resume"
            raise Interrupted(f"interrupted after {finished} of {total} unit(s){kept}; "
                              "no receipt written", finished=exc.finished) from None
        finally:
            try:
                if factory is not None:
                    live.close()
                if ckpt is not None and sys.exc_info()[0] is not None:
                    ckpt.close()  # else kept open (and locked) until the receipt is written: remove()
            finally:
                for signum, handler in ignored:
                    if handler is not None:  # None: set outside Python, cannot be put back
                        signal.signal(signum, handler)

        private: PrivateReceiptV1 | PrivateReceiptV2 | None = None
        if private_out:
            private = private_receipt_v1(run) if legacy else private_receipt_v2(run)
        private_document = unstructure_document(private) if private is not None else None
        if private_document is not None:
            aau_schemas.validate("private-receipt-v1" if legacy else "private-receipt-v2",
                                 private_document, source="private receipt (internal check)")
        try:
            coverage = check_measured(run, unmeasured_limit=unmeasured_limit)
        except EvaluationNotMeasured as exc:
            _keep_the_reasons(exc, private_out, private_document, ckpt, force=replace_outputs,
                              ascii_only=legacy,
                              earlier_receipt=out if out and os.path.lexists(out) else None)

        receipt: PublicReceiptV1 | PublicReceiptV2
        if legacy:
            receipt = receipt_v1(run)
            kind, ascii_only = "receipt-v1", True
            # the bars are aau's: judged on receipt 2.1's arithmetic (a unit not measured is not a
            # pass of a negative check), not on the vacuous rates the 1.0 file keeps from 1.6
            verdicts = fail_under_verdicts(run, fail_under, min_coverage=min_coverage)
        else:
            receipt = receipt_v2(run, fail_under, retries=retries, unmeasured_limit=unmeasured_limit,
                                 min_coverage=min_coverage)
            kind, ascii_only = "receipt-v2", False
            verdicts = receipt.fail_under
        document = unstructure_document(receipt)
        del receipt  # EvaluationResult.receipt structures it again if asked (~17 MB per 100,000 rows)
        aau_schemas.validate(kind, document, source="receipt (internal check)")

        outputs: dict[str, Any] = {}
        if private_document is not None and private_out:
            outputs[private_out] = json_content(private_document, ensure_ascii=ascii_only)
        if out:
            outputs[out] = json_content(document, ensure_ascii=ascii_only)
        write_outputs(outputs, force=replace_outputs,
                      private=[private_out] if private_out else ())
        kept = None
        if ckpt is not None and coverage.not_measured:
            ckpt.close()  # kept: --resume measures the units not measured and writes the receipt again
            kept = str(ckpt.path)
        elif ckpt is not None:
            ckpt.remove()  # the receipt now holds every unit, each measured
        # a failure only warns; the receipt was built and validated just above, not read back
        record_run_or_warn(document, store=run_store, source=out, checked_kind=kind)
        return EvaluationResult(run=run, document=document, private=private,
                                private_document=private_document, verdicts=verdicts, out=out,
                                private_out=private_out if private_document is not None else None,
                                ensure_ascii=ascii_only, coverage=coverage, rerun_units=rerun,
                                resume=ckpt.resume if ckpt is not None else None,
                                undetermined=undetermined_bars(run, fail_under,
                                                               min_coverage=min_coverage),
                                checkpoint=kept)
    except BaseException:
        if ckpt is not None:
            ckpt.close()  # on disk, finished units kept (closing twice does nothing)
        raise
    finally:
        # no thread of the run outlives it: a daemon thread still inside an import or a
        # system call when the interpreter exits is killed by pthread_exit, which aborts
        # the process (SIGABRT) on CPython 3.11 after the output is written
        prepared.join()


def _keep_the_reasons(exc: Any, private_out: str | None,
                      private_document: dict[str, Any] | None, ckpt: Any, *, force: bool,
                      ascii_only: bool, earlier_receipt: str | None = None) -> None:
    """The end of a run that measured too little (``exc``, an ``EvaluationNotMeasured``): write
    only the private receipt (it keeps the reasons), keep the checkpoint, record nothing, and
    raise ``EvaluationNotMeasured`` again, naming where the reasons are."""
    from aau_core import json_content, write_outputs

    from ._non_measurement import EvaluationNotMeasured

    kept = None
    if ckpt is not None:
        ckpt.close()  # kept on disk: --resume runs the units that were not measured again
        kept = str(ckpt.path)
    written = None
    if private_out and private_document is not None:
        write_outputs({private_out: json_content(private_document, ensure_ascii=ascii_only)},
                      force=force, private=[private_out])
        written = private_out
    raise EvaluationNotMeasured(exc.run, exc.coverage, reason=exc.reason,
                                unmeasured_limit=exc.unmeasured_limit, private_out=written,
                                checkpoint=kept, earlier_receipt=earlier_receipt) from None
