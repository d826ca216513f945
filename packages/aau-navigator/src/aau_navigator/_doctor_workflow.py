"""The ``ci-workflow`` check of ``aau doctor``: the starter's GitHub workflow, parsed as YAML.

The workflow (``.github/workflows/aau-evaluation.yml``) is read with PyYAML's ``safe_load`` and
its parsed structure is checked -- never its text, so a flow-style step (``- {uses: "x@main"}``),
a comment that happens to hold the version pin or a deleted step are all seen. It passes when:

- it is valid YAML (no key given twice in a mapping) and a mapping with a ``jobs`` mapping;
- no trigger is ``pull_request_target`` (it runs with the base repository's secrets and a
  write token on code from a fork);
- the top-level ``permissions`` is a mapping with ``contents: read`` and every other scope
  ``read`` or ``none`` (nothing wider: no ``write``, no ``write-all``/``read-all``), and no
  job widens it (a job's ``permissions`` obeys the same rule);
- every ``uses`` (of a step or of a job calling a reusable workflow) is pinned to a 40-hex
  commit SHA (``owner/repo@<sha>``; a local ``./path`` action is part of the repository);
- a step's ``run`` installs ``aau-harness==<the manifest's package_version>`` with pip (shell
  comments do not count);
- a step runs ``aau doctor`` and a step runs ``aau evaluate`` with ``--fail-under``.
"""

from __future__ import annotations

import re
from typing import Any

_PINNED = re.compile(r"[^@\s]+@[0-9a-f]{40}")
_COMMENT = re.compile(r"(^|\s)#.*$")
_NARROW = ("read", "none")


def _loader() -> Any:
    """PyYAML's SafeLoader refusing a key given twice in one mapping (GitHub refuses such a
    workflow; a lenient reader would check only the last ``permissions:``)."""
    import yaml

    class StrictLoader(yaml.SafeLoader):
        def construct_mapping(self, node: Any, deep: bool = False) -> Any:
            seen = set()
            for key_node, _ in node.value:
                key = self.construct_object(key_node, deep=deep)
                if key in seen:
                    raise yaml.constructor.ConstructorError(
                        None, None, f"duplicate key {key!r}", key_node.start_mark)
                seen.add(key)
            return super().construct_mapping(node, deep=deep)

    return StrictLoader


def _shell(command: Any) -> str:
    """A ``run`` command without shell comments (one line per line)."""
    if not isinstance(command, str):
        return ""
    return "\n".join(_COMMENT.sub("", line) for line in command.splitlines())


def _triggers(doc: dict[Any, Any]) -> list[str]:
    # YAML 1.1 reads a bare `on:` key as the boolean True
    on = doc.get("on", doc.get(True))
    if isinstance(on, str):
        return [on]
    if isinstance(on, (list, dict)):
        return [str(t) for t in on]
    return []


def _permission_problem(where: str, value: Any) -> str | None:
    if not isinstance(value, dict):
        return f"{where} permissions is {value!r}, not a mapping with 'contents: read'"
    wide = sorted(str(k) for k, v in value.items() if v not in _NARROW)
    if wide:
        return f"{where} permissions grant more than read: {', '.join(wide)}"
    return None


def workflow_problems(text: str, version: str | None, *, package: str) -> tuple[list[str], int]:
    """Every problem of the workflow ``text`` and the number of actions it uses.

    Args:
        text: the workflow file's text.
        version: the manifest's ``package_version`` (``None``: unknown, always a problem).
        package: the distribution the install step must pin (``aau-harness``).

    Returns:
        ``(problems, action_count)``; problems are short phrases in a stable order, empty when
        the workflow passes.
    """
    import yaml

    try:
        doc = yaml.load(text, Loader=_loader())  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None)
        return [f"not valid YAML{where}" + (f": {problem}" if problem else "")], 0
    if not isinstance(doc, dict) or not isinstance(doc.get("jobs"), dict):
        return ["not a workflow (no 'jobs' mapping)"], 0
    problems: list[str] = []
    if "pull_request_target" in _triggers(doc):
        problems.append("triggers on pull_request_target (runs fork code with a write token)")
    if "permissions" not in doc:
        problems.append("no top-level 'permissions:' with 'contents: read'")
    else:
        found = _permission_problem("top-level", doc["permissions"])
        if found is None and doc["permissions"].get("contents") != "read":
            found = "top-level permissions do not say 'contents: read'"
        if found:
            problems.append(found)
    uses: list[str] = []
    runs: list[str] = []
    for name, job in doc["jobs"].items():
        if not isinstance(job, dict):
            problems.append(f"job {name!r} is not a mapping")
            continue
        if "permissions" in job:
            found = _permission_problem(f"job {name!r}", job["permissions"])
            if found:
                problems.append(found)
        if "uses" in job:
            uses.append(str(job["uses"]))
        steps = job.get("steps", [])
        for step in steps if isinstance(steps, list) else []:
            if not isinstance(step, dict):
                continue
            if "uses" in step:
                uses.append(str(step["uses"]))
            if "run" in step:
                runs.append(_shell(step["run"]))
    unpinned = [u for u in uses if not (_PINNED.fullmatch(u) or u.startswith("./"))]
    if not uses:
        problems.append("uses no actions (expected checkout and setup-python)")
    if unpinned:
        problems.append(f"actions not pinned by commit SHA: {', '.join(unpinned)}")
    spec = f"{package}=={version}" if isinstance(version, str) else f"{package}==<version>"
    pin = re.compile(r"(?:^|[\s\"'])" + re.escape(spec) + r"(?:$|[\s\"'])", re.MULTILINE)
    if not isinstance(version, str) or not any(
            "pip install" in run and pin.search(run) for run in runs):
        problems.append(f"does not install {spec}")
    if not any(re.search(r"\baau doctor\b", run) for run in runs):
        problems.append("no step runs 'aau doctor'")
    if not any(re.search(r"\baau evaluate\b", run) and "--fail-under" in run for run in runs):
        problems.append("no step runs 'aau evaluate' with --fail-under")
    return problems, len(uses)
