"""Traces: scoring what an agent did, as PraisonAI's trace gates do.

Reading a trace (``_trace``), the gates (``_harness_eval``: ``HarnessEvaluator``), eval cases,
results and reports (``_eval_report``), several evaluators aggregated honestly
(``_eval_suite``) and importing a PraisonAI harness output folder (``_harness_import``). May
import ``aau_core._errors``, ``_files`` and ``_run``; never the store or the CLI.
"""
