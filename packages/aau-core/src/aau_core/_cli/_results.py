"""``aau results verify``: recompute an eval aggregate's means and intervals from its own runs.

Presentation only: the work is ``aau_core._run._verify.verify_result_files`` (its docstring
gives the rules); this module prints one line per file and per drifted number, or ``--json``.
"""

from __future__ import annotations

import json
from typing import Any

import click

from .._errors import EXIT_BAR_NOT_MET, EXIT_OK, EXIT_USAGE
from ._options import json_option, print_json


@click.group("results", context_settings={"help_option_names": ["-h", "--help"]})
def results_group() -> None:
    """Check eval aggregate files (run_eval results, aau-harness 1.x or aau 2).

    \b
    Example:
      aau results verify results/eval_*.json
    """


def _json_literal(value: Any) -> str:
    return json.dumps(value)


def _older_rules(verdict: dict[str, Any]) -> str:
    """``"; p50_latency_s: upper-median (aau-harness < 1.x rule)"`` for the file line, and how
    an unusual harness_version was read (``"; harness_version 1.0.0rc1 precedes 1.0 ..."``)."""
    note = verdict["writer_note"]
    return "".join(f"; {field}: {label}" for field, label in verdict["older_rules"].items()) + (
        f"; {note}" if note else "")


def _recomputed(check: dict[str, Any], version: str | None) -> str:
    """The recomputed value of a drifted check; for a statistic with several writer rules,
    each rule's value, and why a rule that gives the stored value does not count here."""
    rules = check.get("rules")
    if rules is None:
        return _json_literal(check["recomputed"])
    values: dict[str, list[str]] = {}  # recomputed value -> the allowed rules giving it
    for name, rule in rules.items():
        if rule["allowed"]:
            values.setdefault(_json_literal(rule["recomputed"]), []).append(name)
    text = " or ".join(f"{value} ({', '.join(names)})" for value, names in values.items())
    refused = [n for n, r in rules.items() if r["match"] and not r["allowed"]]
    if refused:
        text += (f"; the stored value is {refused[0]}'s, a rule harness_version {version} "
                 "(this file's writer) did not use")
    return text


@results_group.command("verify")
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@json_option("Print one JSON verdict per file on stdout (an unreadable file's too).")
def verify_command(files: tuple[str, ...], as_json: bool) -> int:
    """Recompute each aggregate FILE's metric_means and metric_ci95 from its results.

    FILE is an eval aggregate (run_eval) or a lab result (aau lab run's eval_<tag>.json,
    whose aggregate is verified).

    1.x files (no aggregate_version) are recomputed as aau-harness 1.6 does, with its
    bootstrap bit for bit; aau-eval-aggregate/2.x files with the rule set (wilson, bootstrap,
    aau-compat), resamples and seed they record (and their metric_counts, metric_stderr,
    n_errors, pass_hat_k; in 2.1 also coverage and the answered-only view).
    Every file's n_scenarios, n_repeats, total_cost_usd, mean_cost_per_scenario_usd and
    p50_latency_s are recomputed from its results as well; p50_latency_s by the rule its
    writer used (1.6's median, or the upper median of aau-harness < 1.x, allowed when the
    file names no harness_version of 1.0 or later by PEP 440: 1.0.0rc1 precedes 1.0, a
    leading v is dropped, and a version that is not PEP 440 is unknown and allows either
    rule, which the file line says), and the file line names an older rule that matched.
    One line per file on stderr, and one per drifted number.

    Every FILE gets a verdict: one that is missing, not JSON or not an eval aggregate is
    reported on its own line(s) (the file and the JSON path) and the others are still
    verified. Exit with the worst outcome: 2 when any file was unreadable, else 1 when any
    drifted, else 0.

    \b
    Examples:
      aau results verify results/eval_mock.json
      aau results verify results/*.json --json
      aau results verify lab-out/eval_mock.json
    """
    from aau_schemas import json_path

    from .._files._terminal import terminal_text
    from .._run._verify import verify_result_files

    verdicts = verify_result_files(files)
    for v in verdicts:
        if v["status"] == "unreadable":
            for line in v["lines"]:  # the file's one-line error (one line per violation)
                click.echo(f"aau: error: {terminal_text(line)}", err=True)
            continue
        root = v.pop("root")
        n = len(v["metrics"])
        if v["status"] == "match":
            click.echo(f"{v['file']}: match: {n} metric(s) recomputed from {v['n_results']} "
                       f"run(s) ({v['ci_method']}){_older_rules(v)}", err=True)
            continue
        click.echo(f"{v['file']}: drift ({v['ci_method']}){_older_rules(v)}", err=True)
        for m, e in v["metrics"].items():
            for part, field in (("mean", "metric_means"), ("ci95", "metric_ci95")):
                if not e[part]["match"]:
                    click.echo(f"{v['file']}: {root}{json_path([field, m])[1:]}: stored "
                               f"{_json_literal(e[part]['stored'])}, recomputed "
                               f"{_json_literal(e[part]['recomputed'])}", err=True)
        for field, c in v["checks"].items():
            if not c["match"]:
                click.echo(f"{v['file']}: {root}.{field}: stored {_json_literal(c['stored'])}, "
                           f"recomputed {_recomputed(c, v['harness_version'])}", err=True)
    if as_json:
        print_json({"files": verdicts})
    statuses = {v["status"] for v in verdicts}
    return (EXIT_USAGE if "unreadable" in statuses else
            EXIT_BAR_NOT_MET if "drift" in statuses else EXIT_OK)
