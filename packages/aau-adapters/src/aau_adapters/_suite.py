"""Loading suites (``aau-byo-agent-suite/1.0``, ``/2.0`` and ``/3.0``): strict JSON, the schema,
then code checks.

Order of checks: size cap, strict UTF-8 JSON (BOM tolerated; NaN/Infinity, duplicate keys and
deep nesting rejected), the ``suite``, ``suite-v2`` or ``suite-v3`` schema picked by
``suite_version`` (every violation reported), then what the schema cannot express (unique
``scenario_id``; a non-empty expected outcome; with tool calls, every matcher names a tool and an
argument of the case's expected calls, each function is defined once, uses known type words and
is called by some expected call, and no definition contradicts the expected calls:
``aau_core.tool_call_contradictions``; so the mock adapter's answer matches every case that
loads). Every error names the file and the JSON path.

Unknown keys: suite 3.0 is closed, so its schema refuses them. Suites 1.0 and 2.0 are open
formats aau must keep reading as they are, so a key their schema does not name is kept, hashed
and ignored; it is recorded in ``Suite.unknown_keys`` with the known key it most resembles
(``aau_core._files._unknown_keys``; not inside ``input`` or BFCL function definitions, which are
not aau's), and ``Suite.warnings`` words it: ``$.cases[0].forbidden_action: unknown key; did you
mean forbidden_actions? (ignored)``. With ``strict=True`` they are errors instead. The top-level
``source`` that ``aau import`` wrote into 2.0 suites is known (3.0 names it).

The document's model (``SuiteDocumentV1`` / ``V2`` / ``V3``, ``_suite_models``) is
``Suite.model``, and each case's is ``Case.model`` (``suite.model.cases[case.index]``, the same
object). Nothing in a run needs them, so they are structured from the schema-checked document
when first read, once per suite, not at load: a case model copies its ``input`` and ``extra``
objects, ~50 MB for a 100,000-case suite that would otherwise sit beside the document for the
whole run. The views below (``Case.expected`` etc.) are the document's own values, as written,
so hashes and private receipts see exactly what the file holds.

Suite 2.0 adds ``expected.tool_calls`` / ``expected.tool_call_match`` (docs/tool-calls.md); a
case may leave ``expected.outcome`` out when it gives ``tool_calls``. Suite 3.0 means what 2.0
means everywhere (tool calls, v2 receipts only), and a 3.0 case may name an ``environment``
(``Case.environment``, a ``CaseEnvironment``): an observed tool environment registered under
that name (``aau_core.load_environment``, entry-point group ``aau.environments``), whose tools
aau serves to the agent over MCP (request 1.1). Its ``expected`` may be ``{}``. Loading asks the
environment whether it can run the case (``check_case(task, options)``): an environment not
installed, or a task or options it refuses, is a problem at ``$.cases[i].environment.name`` /
the path the environment names under ``$.cases[i].environment``. A 3.0 case with an
environment may run under an ``attack`` (``Case.attack``, a prompt injection; ``_case_attack``
has its rules and checks).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import aau_schemas
import attrs
from aau_core import (
    InvalidDocumentError,
    ToolCallFormatError,
    check_document,
    check_functions,
    read_json_file,
    tool_call_contradictions,
)

if TYPE_CHECKING:  # the models (and cattrs) load when a suite is read, not at `aau --help`
    from aau_core._files._unknown_keys import UnknownKey  # internal to the monorepo

    from ._case_attack import CaseAttack  # loaded by the first case with an attack
    from ._suite_models import (
        CaseDocumentV1,
        CaseDocumentV2,
        CaseDocumentV3,
        SuiteDocumentV1,
        SuiteDocumentV2,
        SuiteDocumentV3,
    )

SUITE_V1 = "aau-byo-agent-suite/1.0"
SUITE_V2 = "aau-byo-agent-suite/2.0"
SUITE_V3 = "aau-byo-agent-suite/3.0"
_KIND_OF = {SUITE_V1: "suite", SUITE_V2: "suite-v2", SUITE_V3: "suite-v3"}
# where suites 1.0 / 2.0 hold content that is not aau's (a case's input is free-form anyway)
_FOREIGN = ("https://aau.dev/schemas/suite/v2/suite.schema.json#/$defs/function",)
# aau import wrote a top-level source into 2.0 suites before the 3.0 schema named it
_KNOWN_UNNAMED = {"suite-v2": ("$.source",)}
EMPTY_OUTCOME = ("an empty expected outcome can never be met (an agent's outcome must be "
                 "non-empty), and --mock would score it 1.0; write the outcome the case expects")
DEFAULT_MAX_SUITE_BYTES = 2_000_000
SUITE_MAX_DEPTH = 100


class _LazyModel:
    """A suite document's model, structured on first use (module docstring) and then kept.

    Args:
        doc: the schema-checked document.
        model_type: ``SuiteDocumentV1`` / ``V2`` / ``V3``.
    """

    __slots__ = ("_doc", "_type", "_model")

    def __init__(self, doc: dict[str, Any], model_type: type) -> None:
        self._doc, self._type, self._model = doc, model_type, None

    def get(self) -> Any:
        """The model (``converter.structure(doc, model_type)``), built once."""
        if self._model is None:
            from ._converter import converter

            self._model = converter.structure(self._doc, self._type)
        return self._model


DEFAULT_MAX_CALLS = 50
"""A case environment's tool-call budget when the suite gives no ``max_calls``."""


@attrs.frozen(kw_only=True)
class CaseEnvironment:
    """The observed tool environment a case names (suite 3.0 ``environment``).

    Attributes:
        name: the registered environment name (``"agentdojo-banking"``, ``"tau2-mock"``).
        task: the environment's task id (``"user_task_0"``); never sent to the agent.
        options: the environment's own options (``{}`` when absent), as written; never sent.
        max_calls: the unit's tool-call budget, an integer in 1..10000 (default 50).
    """

    name: str
    task: str
    options: dict[str, Any] = attrs.field(factory=dict)
    max_calls: int = DEFAULT_MAX_CALLS


@attrs.frozen(kw_only=True)
class CaseUser:
    """The simulated user a case's agent converses with (suite 3.0 ``user``; request 1.2).

    Attributes:
        kind: ``"scripted"`` (``messages``) or ``"model"`` (``instructions``).
        max_turns: the agent's turn limit (messages to the user plus the final answer), 1..200.
        messages: the scripted user's messages in order (``()`` for a model user).
        instructions: the model user's scenario, as tau2-bench's user scenario (``None`` for a
            scripted user); never sent to the agent.
    """

    kind: str
    max_turns: int
    messages: tuple[str, ...] = ()
    instructions: str | None = None


_NO_RULES: Mapping[str, Any] = MappingProxyType({})
"""The ``tool_call_match`` of every loaded case that has none (read-only, so it can be shared)."""


@attrs.frozen
class Case:
    """One case of a suite.

    Attributes:
        index: position in the suite's ``cases`` array (0-based).
        scenario_id: the case id (unique in the suite).
        input: the object sent to the agent as the request's ``input``.
        expected: the case's ``expected`` object as written (never sent to the agent).
        expected_outcome: ``expected["outcome"]``, or ``None`` when a v2 case expects tool
            calls only.
        forbidden_actions: the case's ``forbidden_actions`` as written (``[]`` when absent).
        expected_tool_calls: ``expected["tool_calls"]`` (v2), or ``None`` when the case expects
            no particular calls (``[]`` means it must call nothing).
        tool_call_match: ``expected["tool_call_match"]`` (``{}`` when absent): ``mode``,
            ``matchers``, ``functions``.
        environment: the case's ``CaseEnvironment`` (suite 3.0), or ``None`` when the agent
            brings its own tools (every case of suites 1.0 and 2.0).
        user: the case's simulated user (``CaseUser``, suite 3.0 ``user``), or ``None`` when
            the case is one request and one answer.
        attack: the prompt injection the case runs under (``_case_attack.CaseAttack``, suite
            3.0 ``attack``), or ``None``.
        model: the case's document model (``CaseDocumentV1`` / ``V2`` / ``V3``), or ``None``
            for a case built by hand; for a loaded suite, ``suite.model.cases[index]``,
            structured on first read (module docstring).
    """

    index: int
    scenario_id: str
    input: dict[str, Any]
    expected: dict[str, Any]
    expected_outcome: str | None
    forbidden_actions: list[str]
    expected_tool_calls: list[dict[str, Any]] | None = None
    tool_call_match: Mapping[str, Any] = attrs.field(factory=dict)
    environment: CaseEnvironment | None = None
    user: CaseUser | None = None
    attack: CaseAttack | None = None
    _model: CaseDocumentV1 | CaseDocumentV2 | CaseDocumentV3 | _LazyModel | None = attrs.field(
        default=None, eq=False, repr=False, alias="model")

    @property
    def model(self) -> CaseDocumentV1 | CaseDocumentV2 | CaseDocumentV3 | None:
        """The case's document model (class docstring)."""
        if isinstance(self._model, _LazyModel):
            return self._model.get().cases[self.index]  # type: ignore[no-any-return]
        return self._model

    @property
    def expects_tool_calls(self) -> bool:
        """Whether the case's tool calls are scored (it has ``expected.tool_calls``)."""
        return self.expected_tool_calls is not None


@attrs.frozen
class Suite:
    """A loaded, validated suite.

    Attributes:
        source: the file it came from.
        doc: the parsed document (hashes are computed over it).
        suite_id: ``doc["suite_id"]``.
        cases: the cases, in suite order.
        model: the suite's document model (``SuiteDocumentV1`` / ``V2`` / ``V3``), or ``None``
            for a suite built by hand; for a loaded suite, structured from ``doc`` on first
            read (module docstring).
        unknown_keys: the keys of a 1.0 or 2.0 document its schema does not name (module
            docstring), in document order; ``()`` for 3.0 (closed) and suites built by hand.

    ``version`` is the document's ``suite_version``; ``expects_tool_calls`` says whether any
    case expects tool calls; ``warnings`` words the unknown keys.
    """

    source: str
    doc: dict[str, Any]
    suite_id: str
    cases: tuple[Case, ...]
    _model: SuiteDocumentV1 | SuiteDocumentV2 | SuiteDocumentV3 | _LazyModel | None = attrs.field(
        default=None, eq=False, repr=False, alias="model")
    unknown_keys: tuple[UnknownKey, ...] = attrs.field(default=(), eq=False, repr=False)
    _hashes: dict[str, str] = attrs.field(factory=dict, eq=False, repr=False, alias="_hashes")

    @property
    def model(self) -> SuiteDocumentV1 | SuiteDocumentV2 | SuiteDocumentV3 | None:
        """The suite's document model (class docstring)."""
        if isinstance(self._model, _LazyModel):
            return self._model.get()  # type: ignore[no-any-return]
        return self._model

    @property
    def version(self) -> str:
        """``"aau-byo-agent-suite/1.0"``, ``"/2.0"`` or ``"/3.0"``."""
        return str(self.doc["suite_version"])

    @property
    def warnings(self) -> list[tuple[str, str]]:
        """The unknown keys as ``(json_path, message)`` warnings, one per key and place:
        ``("$.cases[0].forbidden_action", "unknown key; did you mean forbidden_actions?
        (ignored)")``; print each as ``f"{suite.source}: {path}: {message}"``."""
        from aau_core._files._unknown_keys import unknown_key_problems  # internal to the monorepo

        return unknown_key_problems(list(self.unknown_keys), ignored=True)

    def check_strict(self) -> None:
        """Refuse the suite when it has unknown keys (``--strict``).

        Raises:
            InvalidDocumentError: one line per unknown key (as ``warnings``, without
                "(ignored)"), naming the suite file.
        """
        from aau_core._files._unknown_keys import unknown_key_problems  # internal to the monorepo

        if self.unknown_keys:
            raise InvalidDocumentError(unknown_key_problems(list(self.unknown_keys),
                                                            ignored=False), source=self.source)

    @property
    def expects_tool_calls(self) -> bool:
        """Whether some case has ``expected.tool_calls``."""
        return any(case.expects_tool_calls for case in self.cases)

    @property
    def environment_names(self) -> list[str]:
        """The environment names the cases use, sorted (``[]`` when no case names one)."""
        return sorted({case.environment.name for case in self.cases
                       if case.environment is not None})

    @property
    def suite_sha256(self) -> str:
        """aau-harness 1.x ``suite_sha256`` (hex; compact sorted ASCII JSON plus newline)."""
        if "sha256" not in self._hashes:
            self._hashes["sha256"] = aau_schemas.legacy_suite_sha256(self.doc)
        return self._hashes["sha256"]

    def suite_digest(self) -> str:
        """``"sha256:<hex>"`` of the suite's RFC 8785 canonical JSON.

        Raises:
            InvalidDocumentError: the suite holds a value RFC 8785 cannot represent
                (an integer beyond +-(2**53 - 1)).
        """
        if "digest" not in self._hashes:  # computed once: RFC 8785 is slow on big suites
            try:
                self._hashes["digest"] = aau_schemas.canonical_digest(self.doc)
            except aau_schemas.CanonicalizationError as exc:
                raise InvalidDocumentError(
                    [(exc.path, f"cannot compute the RFC 8785 digest: {exc.reason}")],
                    source=self.source) from None
        return self._hashes["digest"]


def suite_from_document(doc: Any, *, source: str = "<suite>", strict: bool = False) -> Suite:
    """Validate a parsed suite document and build a ``Suite``.

    Args:
        doc: the parsed document.
        source: the file name put in front of every problem line.
        strict: refuse unknown keys of a 1.0 or 2.0 document instead of recording them in
            ``Suite.unknown_keys`` (module docstring).

    Raises:
        InvalidDocumentError: an unknown ``suite_version``, schema violations (all of them),
            duplicate scenario ids, an empty expected outcome, a matcher for a tool or
            argument the case does not expect, a function defined twice, a case environment
            not installed or refusing the case (module docstring), or (``strict``) unknown
            keys; every problem found, one line each.
    """
    version = doc.get("suite_version") if isinstance(doc, dict) else None
    kind = _KIND_OF.get(version, "suite") if isinstance(version, str) else "suite"
    if kind == "suite" and aau_schemas.kind_mismatch(doc, list(_KIND_OF.values())) is None \
            and not aau_schemas.is_valid(kind, doc):
        hint = _v2_feature_in_v1(doc)
        if hint is not None:
            raise InvalidDocumentError([hint], source=source)
    check_document(kind, doc, source, accepted=list(_KIND_OF.values()))
    from aau_core._files._unknown_keys import (  # internal to the monorepo
        unknown_key_problems,
        unknown_keys,
    )

    from ._suite_models import SuiteDocumentV1, SuiteDocumentV2, SuiteDocumentV3

    model_type = {"suite-v2": SuiteDocumentV2, "suite-v3": SuiteDocumentV3}.get(kind,
                                                                              SuiteDocumentV1)
    model = _LazyModel(doc, model_type)  # structured when first read (module docstring)
    unknown = () if kind == "suite-v3" else tuple(unknown_keys(
        kind, doc, foreign=_FOREIGN, allowed=_KNOWN_UNNAMED.get(kind, ())))
    first_seen: dict[str, int] = {}
    problems = []
    cases = []
    for index, raw in enumerate(doc["cases"]):
        sid = raw["scenario_id"]
        if sid in first_seen:
            problems.append((
                aau_schemas.json_path(["cases", index, "scenario_id"]),
                f"duplicate scenario_id {sid!r} (first at $.cases[{first_seen[sid]}])",
            ))
            continue
        first_seen[sid] = index
        expected = raw["expected"]
        if expected.get("outcome") == "":
            problems.append((aau_schemas.json_path(["cases", index, "expected", "outcome"]),
                             EMPTY_OUTCOME))
        match = expected.get("tool_call_match", _NO_RULES)
        problems.extend(_tool_call_problems(index, expected.get("tool_calls"), match))
        environment = None
        if "environment" in raw:
            environment, problem = _case_environment(index, raw["environment"])
            if problem is not None:
                problems.append(problem)
        attack = None
        if "attack" in raw and environment is not None:
            from ._case_attack import case_attack

            attack, attack_problems = case_attack(index, raw["attack"],
                                                  raw.get("forbidden_actions", []), environment)
            problems.extend(attack_problems)
        cases.append(Case(
            index=index,
            scenario_id=sid,
            input=raw["input"],
            expected=expected,
            expected_outcome=expected.get("outcome"),
            forbidden_actions=raw.get("forbidden_actions", []),
            expected_tool_calls=expected.get("tool_calls"),
            tool_call_match=match,
            environment=environment,
            user=_case_user(raw.get("user")),
            attack=attack,
            model=model,
        ))
    if strict and unknown:
        problems.extend(unknown_key_problems(list(unknown), ignored=False))
    if problems:
        raise InvalidDocumentError(problems, source=source)
    return Suite(source=source, doc=doc, suite_id=doc["suite_id"], cases=tuple(cases),
                 model=model, unknown_keys=unknown)


def check_suite_document(doc: Any, *, source: str,
                         strict: bool = False) -> tuple[list[tuple[str, str]],
                                                        list[tuple[str, str]]]:
    """``aau schema validate``'s check of a schema-valid suite (entry point
    ``aau.document_checks``): what ``suite_from_document`` checks beyond the schema.

    Returns:
        ``(problems, warnings)``: every problem ``suite_from_document`` raises (duplicate
        scenario ids, an empty expected outcome, tool-call rules; with ``strict``, unknown
        keys), else ``([], Suite.warnings)``; each a list of ``(json_path, message)``.
    """
    try:
        loaded = suite_from_document(doc, source=source, strict=strict)
    except InvalidDocumentError as exc:
        return list(exc.violations), []
    return [], loaded.warnings


def _v2_feature_in_v1(doc: Any) -> tuple[str, str] | None:
    """The first ``expected.tool_calls``/``tool_call_match`` of a 1.0 suite, with the fix (the
    newest suite version, which has them)."""
    cases = doc.get("cases") if isinstance(doc, dict) else None
    for index, case in enumerate(cases if isinstance(cases, list) else []):
        expected = case.get("expected") if isinstance(case, dict) else None
        for key in ("tool_calls", "tool_call_match"):
            if isinstance(expected, dict) and key in expected:
                return (aau_schemas.json_path(["cases", index, "expected", key]),
                        f"expected.{key} needs \"suite_version\": \"{SUITE_V3}\" (this suite "
                        f"says {SUITE_V1}; see docs/tool-calls.md)")
    return None


def _case_user(raw: dict[str, Any] | None) -> CaseUser | None:
    """A schema-checked case ``user`` object as a ``CaseUser`` (``None`` when absent)."""
    if raw is None:
        return None
    return CaseUser(kind=raw["kind"], max_turns=raw["max_turns"],
                    messages=tuple(raw.get("messages", ())),
                    instructions=raw.get("instructions"))


def _case_environment(index: int, raw: dict[str, Any]) -> tuple[CaseEnvironment,
                                                                  tuple[str, str] | None]:
    """A schema-checked case ``environment`` object as a ``CaseEnvironment``, and the problem
    of it (the environment not installed, or refusing the task or options), or ``None``."""
    from aau_core import EnvironmentCaseError, UsageError, load_environment

    env = CaseEnvironment(name=raw["name"], task=raw["task"], options=raw.get("options", {}),
                          max_calls=int(raw.get("max_calls", DEFAULT_MAX_CALLS)))
    where = ["cases", index, "environment"]
    try:
        load_environment(env.name).check_case(env.task, env.options)
    except UsageError as exc:
        return env, (aau_schemas.json_path([*where, "name"]), str(exc))
    except EnvironmentCaseError as exc:
        sub = exc.path if exc.path.startswith("$") else "$"
        return env, (aau_schemas.json_path(where) + sub[1:], exc.message)
    except Exception as exc:  # a plugin's bug must be one line naming the case, not a traceback
        return env, (aau_schemas.json_path([*where, "task"]),
                     f"environment {env.name!r} failed to check the case: "
                     f"{type(exc).__name__}: {exc}")
    return env, None


def _tool_call_problems(index: int, calls: Any, match: Mapping[str, Any]) -> list[tuple[str, str]]:
    """What the suite v2 schema cannot say about one case's tool-call parts."""
    problems = []
    where = ["cases", index, "expected", "tool_call_match"]
    known: dict[str, set[str]] = {}
    for call in calls or []:
        known.setdefault(call["name"], set()).update(call["arguments"])
    for tool, per_arg in match.get("matchers", {}).items():
        for arg in per_arg:
            if tool not in known or arg not in known[tool]:
                problems.append((aau_schemas.json_path([*where, "matchers", tool, arg]),
                                 f"no expected call of {tool!r} has an argument {arg!r} "
                                 "(a misspelt tool or argument name?)"))
    seen: set[str] = set()
    functions = match.get("functions")
    for i, fn in enumerate(functions or []):
        if fn["name"] in seen:
            problems.append((aau_schemas.json_path([*where, "functions", i, "name"]),
                             f"function {fn['name']!r} is defined twice"))
        seen.add(fn["name"])
    if functions is not None:
        try:
            check_functions(functions, path=aau_schemas.json_path([*where, "functions"]))
        except ToolCallFormatError as exc:
            return [*problems, (exc.path, exc.message)]
    if calls is not None and not problems:
        problems.extend((aau_schemas.json_path(["cases", index, "expected", *parts]), message)
                        for parts, message in tool_call_contradictions(calls, functions))
    return problems


def load_suite(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_SUITE_BYTES,
               strict: bool = False) -> Suite:
    """Read, parse and validate a suite file.

    Args:
        path: the suite file.
        max_bytes: largest accepted file size in bytes (aau-harness 1.6: 2,000,000).
        strict: refuse unknown keys (``suite_from_document``); else they are warnings
            (``Suite.warnings``).

    Returns:
        the ``Suite``.

    Raises:
        aau_core.InputError: unreadable, too large, not strict UTF-8 JSON, or invalid (the
            message names the file and the JSON path of every problem).
    """
    doc = read_json_file(path, max_bytes=max_bytes, max_depth=SUITE_MAX_DEPTH)
    _share_equal_strings(doc)
    return suite_from_document(doc, source=str(path), strict=strict)


def _share_equal_strings(doc: Any) -> None:
    """Make equal string values one object, in place (a parser makes a new string for every
    occurrence: the same outcome or forbidden action in 100,000 cases is 100,000 strings;
    shared, they are one, ~30 MB less for such a suite). Values and keys are unchanged."""
    memo: dict[str, str] = {}
    stack = [doc]
    while stack:
        node = stack.pop()
        if type(node) is dict:
            for key, value in node.items():
                if type(value) is str:
                    node[key] = memo.setdefault(value, value)
                elif type(value) in (dict, list):
                    stack.append(value)
        elif type(node) is list:
            for i, value in enumerate(node):
                if type(value) is str:
                    node[i] = memo.setdefault(value, value)
                elif type(value) in (dict, list):
                    stack.append(value)
