"""``aau doctor``: check a starter project and report whether it is ready (kind ``doctor-report``).

The checks, in order (aau-harness 1.6's ids; reference §1.5 "Starter"):

``manifest``          ``aau-starter.json`` is a regular file of at most 200,000 bytes, strict JSON,
                      valid against ``starter-manifest``. When it cannot be read as a JSON object
                      the doctor stops here.
``required-files``    the ten generated files are regular files inside the project (no symlink on
                      the way), at most 2,000,000 bytes each.
``suite-contract``    ``suite.json`` loads as an aau suite (aau-adapters' rules). When it does not,
                      the next three checks are left out.
``human-authority``   the suite names an accountable role and a protected action, equal to the
                      manifest's ``human_authority``.
``adapter-contract``  ``adapter_command.py`` compiles and defines top-level ``decide`` and
                      ``handle``; ``adapter_endpoint.py`` compiles (1.6 never looked at it, and
                      passed a generated HTTP adapter that was a SyntaxError). With
                      ``run_adapter`` both adapters are run over the suite
                      (``_doctor_adapters``) and must answer every case exactly.
``first-receipt``     ``artifacts/first-receipt.json`` is a schema-valid receipt (v1 or v2) that
                      recomputes (``aau_adapters.check_receipt``), of this suite (id and
                      ``suite_sha256``), with exact_rate 1.0.
``ci-workflow``       ``.github/workflows/aau-evaluation.yml``, parsed as YAML
                      (``_doctor_workflow``): grants ``contents: read`` and nothing wider, pins
                      every ``uses`` by a 40-hex commit SHA, installs
                      ``aau-harness==<the manifest's package_version>`` with pip, runs ``aau
                      doctor`` and ``aau evaluate --fail-under``, never triggers on
                      ``pull_request_target``. A warning when that version is a development or
                      local build (``2.0.0.dev0``, ``+local``): no index serves it.
``template-drift``    files changed since generation (SHA-256 differs from the manifest): a
                      warning, never a failure.

``ready`` is true when no check failed. Nothing is executed unless ``run_adapter`` is given.
"""

from __future__ import annotations

import ast
import os
import re
import stat
from pathlib import Path
from typing import Any

import attrs
from aau_schemas import sha256_hex

from ._converter import navigator_converter
from ._doctor_workflow import workflow_problems
from ._starter import GENERATED_FILES, INSTALL_PACKAGE, MANIFEST_NAME

DOCTOR_VERSION = "aau-agent-evidence-doctor/1.0"
DOCTOR_BOUNDARY = "Structural readiness is not production validation or authority to deploy."
CHECK_IDS = ("manifest", "required-files", "suite-contract", "human-authority",
             "adapter-contract", "first-receipt", "ci-workflow", "template-drift")
STATUSES = ("pass", "warn", "fail")
MAX_MANIFEST_BYTES = 200_000
MAX_FILE_BYTES = 2_000_000
WORKFLOW = ".github/workflows/aau-evaluation.yml"



@attrs.frozen
class Check:
    """One doctor check: ``id`` (one of ``CHECK_IDS``), ``status`` (``pass``/``warn``/``fail``)
    and a one-line ``message`` (an item of a ``doctor-report``'s ``checks``)."""

    id: str
    status: str
    message: str

    def to_dict(self) -> dict[str, str]:
        """``{"id", "status", "message"}`` (a one-line delegation to aau-navigator's
        converter)."""
        return navigator_converter().unstructure(self)


@attrs.frozen
class DoctorReportDocument:
    """The ``doctor-report`` document (``aau-agent-evidence-doctor/1.0``) as a model: what
    ``DoctorReport.to_dict()`` writes, and what a written report structures back into.

    Attributes:
        doctor_version: ``DOCTOR_VERSION``.
        path: the folder checked (absolute).
        ready: no check failed.
        counts: ``{"pass": n, "warn": n, "fail": n}``.
        checks: the checks run, in ``CHECK_IDS`` order.
        boundary: ``DOCTOR_BOUNDARY``.
    """

    doctor_version: str
    path: str
    ready: bool
    counts: dict[str, int]
    checks: tuple[Check, ...]
    boundary: str


@attrs.frozen
class DoctorReport:
    """The doctor's verdict on one project folder.

    Attributes:
        path: the folder checked (absolute).
        checks: the checks run, in ``CHECK_IDS`` order.
    """

    path: str
    checks: tuple[Check, ...]

    @property
    def ready(self) -> bool:
        """True when no check failed (warnings allowed)."""
        return all(c.status != "fail" for c in self.checks)

    def counts(self) -> dict[str, int]:
        """``{"pass": n, "warn": n, "fail": n}``."""
        return {s: sum(c.status == s for c in self.checks) for s in STATUSES}

    def document(self) -> DoctorReportDocument:
        """The verdict as its ``doctor-report`` model."""
        return DoctorReportDocument(doctor_version=DOCTOR_VERSION, path=self.path,
                                    ready=self.ready, counts=self.counts(), checks=self.checks,
                                    boundary=DOCTOR_BOUNDARY)

    def to_dict(self) -> dict[str, Any]:
        """The ``doctor-report`` document (``aau-agent-evidence-doctor/1.0``): ``document()``
        unstructured by aau-navigator's converter."""
        return navigator_converter().unstructure(self.document())


class _Unsafe(Exception):
    """A project file is missing, not a regular file, behind a symlink or too large."""


def read_project_file(root: Path, relative: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of ``root/relative``, refusing anything but a regular file inside ``root``.

    Raises:
        _Unsafe: missing, a symlink (the file or a folder on the way), not a regular file, or
            larger than ``max_bytes`` (the message names the file).
    """
    path = root
    parts = relative.split("/")
    for i, part in enumerate(parts):
        path = path / part
        try:
            info = os.lstat(path)
        except OSError:
            raise _Unsafe(f"{relative}: missing") from None
        if stat.S_ISLNK(info.st_mode):
            link = "/".join(parts[:i + 1])
            raise _Unsafe(f"{link}: is a symlink" if link == relative else
                          f"{link}: is a symlink (a folder on the way to {relative})") from None
        last = i == len(parts) - 1
        if last and not stat.S_ISREG(info.st_mode):
            raise _Unsafe(f"{relative}: not a regular file")
        if not last and not stat.S_ISDIR(info.st_mode):
            raise _Unsafe(f"{relative}: {'/'.join(parts[:i + 1])} is not a folder")
    if info.st_size > max_bytes:
        raise _Unsafe(f"{relative}: larger than {max_bytes:,} bytes")
    try:
        with open(path, "rb") as fh:
            return fh.read(max_bytes + 1)
    except OSError as exc:
        raise _Unsafe(f"{relative}: unreadable: {exc.strerror or exc}") from None


def _first_violation(exc: Exception) -> str:
    violations = getattr(exc, "violations", None)
    if violations:
        first = violations[0]
        more = len(violations) - 1
        return f"{first.path}: {first.message}" + (f" (and {more} more)" if more else "")
    return str(exc)


def _load_json(root: Path, relative: str, kind: str | None, max_bytes: int) -> Any:
    """Read, strictly parse and (when ``kind``) schema-validate one project file.

    Raises:
        _Unsafe: as ``read_project_file``, or invalid JSON / schema (message
            ``"<file>: $.path: message"``).
    """
    import aau_schemas
    from aau_core import InputError, loads_strict

    try:
        doc = loads_strict(read_project_file(root, relative, max_bytes), source=relative)
        if kind is not None:
            aau_schemas.validate(kind, doc, source=relative)
    except InputError as exc:
        raise _Unsafe(str(exc)) from None
    except aau_schemas.SchemaError as exc:
        raise _Unsafe(f"{relative}: {_first_violation(exc)}") from None
    return doc


def _check_manifest(root: Path) -> tuple[Check, dict[str, Any] | None]:
    import aau_schemas
    from aau_core import InputError, loads_strict

    try:
        doc = loads_strict(read_project_file(root, MANIFEST_NAME, MAX_MANIFEST_BYTES),
                           source=MANIFEST_NAME)
    except (_Unsafe, InputError) as exc:
        hint = ("" if os.path.lexists(root / MANIFEST_NAME) else
                "; not a starter project: `aau init NAME` writes one, then `aau doctor NAME`")
        return Check("manifest", "fail", f"unreadable manifest: {exc}{hint}"), None
    if not isinstance(doc, dict):
        return Check("manifest", "fail", f"{MANIFEST_NAME}: $: not a JSON object"), None
    try:
        aau_schemas.validate("starter-manifest", doc, source=MANIFEST_NAME)
    except aau_schemas.SchemaError as exc:
        return Check("manifest", "fail", f"{MANIFEST_NAME}: {_first_violation(exc)}"), doc
    return Check("manifest", "pass", f"starter contract {doc['starter_version']} "
                                     f"({doc['template_id']}, {doc['primary_adapter']} adapter)"), doc


def _check_files(root: Path) -> Check:
    problems = []
    for name in GENERATED_FILES:
        try:
            read_project_file(root, name)
        except _Unsafe as exc:
            problems.append(str(exc))
    if problems:
        return Check("required-files", "fail", "; ".join(problems))
    return Check("required-files", "pass", f"{len(GENERATED_FILES)} generated files present")


def _check_suite(root: Path) -> tuple[Check, Any]:
    from aau_adapters import suite_from_document
    from aau_core import InputError

    try:
        doc = _load_json(root, "suite.json", None, MAX_FILE_BYTES)
        suite = suite_from_document(doc, source="suite.json")
    except (_Unsafe, InputError) as exc:
        return Check("suite-contract", "fail", str(exc).splitlines()[0]), None
    return Check("suite-contract", "pass",
                 f"{len(suite.cases)} cases in suite {suite.suite_id}"), suite


def _check_authority(suite: Any, manifest: dict[str, Any] | None) -> Check:
    authority = suite.doc.get("human_authority")
    fields = ("accountable_role", "protected_action")
    if not isinstance(authority, dict) or not all(
            isinstance(authority.get(f), str) and authority[f].strip() for f in fields):
        return Check("human-authority", "fail", "suite.json: $.human_authority: must name an "
                     "accountable_role and a protected_action")
    declared = (manifest or {}).get("human_authority")
    if isinstance(declared, dict) and any(declared.get(f) != authority[f] for f in fields):
        return Check("human-authority", "fail", "suite.json: $.human_authority: differs from "
                     f"{MANIFEST_NAME}'s human_authority")
    return Check("human-authority", "pass",
                 f"only the {authority['accountable_role']} may take the protected action")


def _static_adapter_problems(root: Path) -> list[str]:
    problems = []
    for name in ("adapter_command.py", "adapter_endpoint.py"):
        try:
            source = read_project_file(root, name)
            tree = compile(source, name, "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
            compile(tree, name, "exec", dont_inherit=True)
        except _Unsafe as exc:
            problems.append(str(exc))
            continue
        except SyntaxError as exc:
            problems.append(f"{name} does not compile: line {exc.lineno}: {exc.msg}")
            continue
        except ValueError as exc:  # e.g. NUL bytes
            problems.append(f"{name} does not compile: {exc}")
            continue
        if name == "adapter_command.py":
            defined = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
            missing = [f for f in ("decide", "handle") if f not in defined]
            if missing:
                problems.append(f"{name} must define top-level {' and '.join(missing)}")
    return problems


def _check_adapters(root: Path, suite: Any, run_adapter: bool) -> Check:
    problems = _static_adapter_problems(root)
    if problems:
        return Check("adapter-contract", "fail", "; ".join(problems))
    if not run_adapter:
        return Check("adapter-contract", "pass", "adapter_command.py and adapter_endpoint.py "
                     "compile; decide and handle defined; not run (use --run-adapter)")
    from ._doctor_adapters import run_command_adapter, run_http_adapter

    runs = [run_command_adapter(root, suite), run_http_adapter(root, suite)]
    status = "pass" if all(r.passed for r in runs) else "fail"
    return Check("adapter-contract", status, "; ".join(r.describe() for r in runs))


def _check_receipt(root: Path, suite: Any) -> Check:
    import aau_schemas
    from aau_adapters import check_receipt

    name = "artifacts/first-receipt.json"
    try:
        doc = _load_json(root, name, None, MAX_FILE_BYTES)
        kind = aau_schemas.detect_kind(doc) if isinstance(doc, dict) else None
        if kind not in ("receipt-v1", "receipt-v2"):
            raise _Unsafe(f"{name}: $.receipt_version: not an aau receipt (1.0 or 2.0)")
        aau_schemas.validate(kind, doc, source=name)
    except _Unsafe as exc:
        return Check("first-receipt", "fail", str(exc))
    except (aau_schemas.SchemaError, aau_schemas.UnknownKindError) as exc:
        return Check("first-receipt", "fail", f"{name}: {_first_violation(exc)}")
    problems = check_receipt(doc)
    if doc["suite_id"] != suite.suite_id:
        problems.append(("$.suite_id", f"is {doc['suite_id']!r}, the suite's is {suite.suite_id!r}"))
    elif doc["suite_sha256"] != suite.suite_sha256:
        problems.append(("$.suite_sha256", "does not match suite.json (the suite changed since; "
                         "make a new one: aau evaluate suite.json --mock --out "
                         "artifacts/first-receipt.json --force)"))
    if not problems and doc["metrics"]["exact_rate"] != 1.0:
        problems.append(("$.metrics.exact_rate", f"is {doc['metrics']['exact_rate']}, not 1.0"))
    if problems:
        path, message = problems[0]
        return Check("first-receipt", "fail", f"{name}: {path}: {message}")
    return Check("first-receipt", "pass", f"{kind} receipt of this suite, aggregate only, "
                 f"exact_rate 1.0 ({doc['adapter_kind']} adapter)")


def _check_workflow(root: Path, manifest: dict[str, Any] | None) -> Check:
    from aau_core import InputError
    from aau_core._files._strict_json import decode_text  # internal to the monorepo

    try:
        text = decode_text(read_project_file(root, WORKFLOW))  # a leading BOM dropped
    except _Unsafe as exc:
        return Check("ci-workflow", "fail", str(exc))
    except InputError:
        return Check("ci-workflow", "fail", f"{WORKFLOW}: not UTF-8 text")
    version = (manifest or {}).get("package_version")
    problems, actions = workflow_problems(text, version if isinstance(version, str) else None,
                                          package=INSTALL_PACKAGE)
    if problems:
        return Check("ci-workflow", "fail", f"{WORKFLOW}: " + "; ".join(problems))
    said = (f"read-only token, {actions} actions pinned by commit SHA, installs "
            f"{INSTALL_PACKAGE}=={version}, runs aau doctor and aau evaluate --fail-under")
    if isinstance(version, str) and _unpublished(version):
        return Check("ci-workflow", "warn", f"{said}; but {version} is a development or local "
                     "build that no package index serves, so the workflow's pip install fails "
                     f"until it pins a released {INSTALL_PACKAGE} (or installs your own build)")
    return Check("ci-workflow", "pass", said)


_UNPUBLISHED = re.compile(r"(?:[._-]?dev[0-9]*|\+.*)$", re.IGNORECASE)


def _unpublished(version: str) -> bool:
    """Whether ``version`` is a PEP 440 development release (``2.0.0.dev0``) or carries a local
    label (``2.0.0+abc``): builds of a checkout, which PyPI does not hold (it refuses local
    labels, and aau publishes no development releases)."""
    return _UNPUBLISHED.search(version) is not None


def _check_drift(root: Path, manifest: dict[str, Any] | None) -> Check:
    declared = (manifest or {}).get("generated_file_sha256")
    if not isinstance(declared, dict):
        return Check("template-drift", "warn", "no generated-file fingerprints to compare")
    changed = []
    for name in GENERATED_FILES:
        expected = declared.get(name)
        try:
            actual = sha256_hex(read_project_file(root, name))
        except _Unsafe:
            continue
        if actual != expected:
            changed.append(name)
    if changed:
        return Check("template-drift", "warn", f"changed since generation: {', '.join(changed)}")
    return Check("template-drift", "pass", "every generated file matches its fingerprint")


def doctor_project(path: str | os.PathLike[str], *, run_adapter: bool = False) -> DoctorReport:
    """Check the starter project in ``path`` (see the module docstring for the checks).

    Args:
        path: the project folder.
        run_adapter: also run both adapters over the suite (executes project code).

    Returns:
        the ``DoctorReport`` (``ready`` when no check failed).

    Raises:
        aau_core.InputError: ``path`` is not a folder.
    """
    from aau_core import InputError

    root = Path(path).resolve()
    if not root.is_dir():
        raise InputError("not a folder (give the starter project's folder)", source=str(path))
    manifest_check, manifest = _check_manifest(root)
    checks = [manifest_check]
    if manifest is None:
        return DoctorReport(str(root), tuple(checks))
    checks.append(_check_files(root))
    suite_check, suite = _check_suite(root)
    checks.append(suite_check)
    if suite is not None:
        checks.append(_check_authority(suite, manifest))
        checks.append(_check_adapters(root, suite, run_adapter))
        checks.append(_check_receipt(root, suite))
    checks.append(_check_workflow(root, manifest))
    checks.append(_check_drift(root, manifest))
    return DoctorReport(str(root), tuple(checks))
