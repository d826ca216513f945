"""The run store: every receipt, eval aggregate and lab result, recorded in one SQLite file.

A *run* is one document that ``aau report`` reads (``_scenario_report``'s kinds): an
``aau evaluate`` receipt (v1 or v2), a ``run_eval`` aggregate (v1 or v2) or an ``aau lab run``
lab result. The store keeps the document itself (so ``aau runs show`` can re-render it), the
columns runs are looked up by, its headline metrics and one row per scenario::

    schema_version  version, applied_at            one row per migration applied
    runs            id, doc_digest (unique), kind, suite, suite_digest, suite_sha256, adapter,
                    model, run_at, recorded_at, source, scenario_count, scenarios_passed,
                    repeats, document (the JSON text's UTF-8 bytes, a BLOB;
                    TEXT in rows an earlier aau wrote: ``_document_text``)
    run_scenarios   run_id, position, scenario_id, runs, passed_runs, errored_runs, passed,
                    failure_codes (JSON {code: n}), errors (JSON list), metrics (JSON {name: mean})
    run_metrics     run_id, name, value, low, high       (migration 2)
    documents       documents about a run, by kind (migration 3, ``_stored_documents``)

Indexes: ``suite``, ``suite_digest``, ``adapter``, ``model``, ``run_at`` on ``runs``;
``(name, value)`` on ``run_metrics``; ``scenario_id`` on ``run_scenarios``.

Migrations are numbered steps (``MIGRATIONS``); opening a store applies the missing ones in
order, each in its own ``BEGIN IMMEDIATE`` transaction together with its ``schema_version``
row, so two processes opening an old store at once apply every step exactly once. A store
written by a newer aau (a version above ``SCHEMA_VERSION``) is refused, never altered.

Concurrency: the file is in WAL mode (readers never block the writer), every connection waits
up to ``BUSY_TIMEOUT_S`` for a lock, and each run is written in one ``BEGIN IMMEDIATE``
transaction (the run row, its scenarios and metrics, or nothing). The same document recorded
twice (same RFC 8785 digest) is stored once; the second call returns the first id.

Where the store is (``resolve_store``): ``--store PATH`` or ``--store sqlite:///PATH``
(SQLAlchemy's form: ``sqlite:///rel/path``, ``sqlite:////abs/path``), else the environment
variable ``AAU_RUN_STORE``, else ``.aau/runs.sqlite`` under the current directory -- or, when
the current directory is inside a pack folder (``default_store``), in the folder that holds the
pack: a pack holds exactly its own files, and a store written into it would break its check.
The value ``none`` (flag or variable) turns recording off.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import attrs

from .._errors import InputError, UsageError
from .._files._converter import optional_field
from .._files._manifest import pack_folder_of
from ._connection import connect_store, not_a_store
from ._document_text import store_document_text
from ._stored_documents import migration_3

DEFAULT_STORE = Path(".aau") / "runs.sqlite"
STORE_ENV = "AAU_RUN_STORE"
DISABLED = "none"
MAX_DOCUMENT_BYTES = 200_000_000


# ---------------------------------------------------------------- migrations

def _script(db: sqlite3.Connection, sql: str) -> None:
    """Run ``;``-separated statements inside the caller's transaction (``executescript`` would
    commit it first)."""
    for statement in sql.split(";"):
        if statement.strip():
            db.execute(statement)


def _migration_1(db: sqlite3.Connection) -> None:
    _script(db, """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            doc_digest TEXT NOT NULL UNIQUE,
            kind TEXT NOT NULL,
            suite TEXT,
            suite_digest TEXT,
            suite_sha256 TEXT,
            adapter TEXT,
            model TEXT,
            run_at TEXT NOT NULL,
            recorded_at TEXT NOT NULL,
            source TEXT,
            scenario_count INTEGER NOT NULL,
            scenarios_passed INTEGER NOT NULL,
            repeats INTEGER NOT NULL,
            document TEXT NOT NULL
        );
        CREATE INDEX runs_suite ON runs (suite);
        CREATE INDEX runs_suite_digest ON runs (suite_digest);
        CREATE INDEX runs_adapter ON runs (adapter);
        CREATE INDEX runs_model ON runs (model);
        CREATE INDEX runs_run_at ON runs (run_at);
        CREATE TABLE run_scenarios (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            position INTEGER NOT NULL,
            scenario_id TEXT NOT NULL,
            runs INTEGER NOT NULL,
            passed_runs INTEGER NOT NULL,
            errored_runs INTEGER NOT NULL,
            passed INTEGER NOT NULL,
            failure_codes TEXT NOT NULL,
            errors TEXT NOT NULL,
            metrics TEXT NOT NULL,
            PRIMARY KEY (run_id, scenario_id)
        );
        CREATE INDEX run_scenarios_scenario ON run_scenarios (scenario_id);
    """)


def _migration_2(db: sqlite3.Connection) -> None:
    """Headline metrics as rows (indexed by name and value), backfilled from stored documents."""
    _script(db, """
        CREATE TABLE run_metrics (
            run_id INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
            name TEXT NOT NULL,
            value REAL NOT NULL,
            low REAL,
            high REAL,
            PRIMARY KEY (run_id, name)
        );
        CREATE INDEX run_metrics_value ON run_metrics (name, value);
    """)
    for run_id, text in db.execute("SELECT id, document FROM runs").fetchall():
        report = document_report(json.loads(text), f"run {run_id}")
        _insert_metrics(db, run_id, report)


#: numbered steps: ``MIGRATIONS[n - 1]`` takes a store from version ``n - 1`` to ``n``
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (
    _migration_1, _migration_2, migration_3)
SCHEMA_VERSION = len(MIGRATIONS)


# ---------------------------------------------------------------- where

def pack_holding(path: str | os.PathLike[str],
                 reads: Iterable[str | os.PathLike[str]] = ()) -> Path | None:
    """The pack folder that holds ``path`` (``path`` itself or an ancestor), absolute: one of
    ``reads`` (the pack folders a command reads, whatever wrote them) or a pack aau wrote
    (``aau_core._files._manifest.pack_folder_of``); ``None`` when there is none."""
    here = Path(os.path.abspath(path)).resolve()
    for pack in reads:
        folder = Path(os.path.abspath(pack)).resolve()
        if folder.is_dir() and (folder == here or folder in here.parents):
            return folder
    return pack_folder_of(here)


def default_store(reads: Iterable[str | os.PathLike[str]] = ()) -> Path:
    """The run store used when neither ``--store`` nor ``$AAU_RUN_STORE`` names one.

    ``.aau/runs.sqlite`` under the current directory, unless the current directory is inside a
    pack folder (``pack_holding``: one of ``reads``, or a pack aau wrote); then
    ``.aau/runs.sqlite`` in the folder that holds the pack, as a path relative to the current
    directory (``../.aau/runs.sqlite`` from a pack's own folder, where a pack's README has you
    run its commands). A pack holds exactly its own files: a store written into it would make
    every check of the pack fail, and would travel with the pack to whoever it is given to.
    """
    cwd = Path.cwd()
    pack = pack_holding(cwd, reads)
    if pack is None:
        return DEFAULT_STORE
    return Path(os.path.relpath(pack.parent, cwd)) / DEFAULT_STORE


def resolve_store(store: str | os.PathLike[str] | None) -> Path | None:
    """Where the run store is, or ``None`` when recording is turned off.

    Args:
        store: ``--store``'s value: a path, ``sqlite:///PATH`` (``sqlite:////abs`` for an
            absolute path), ``none``, or ``None`` for the default (``$AAU_RUN_STORE``, else
            ``default_store()``: ``.aau/runs.sqlite`` under the current directory, or beside
            the pack folder the current directory is in).

    Raises:
        UsageError: another URL scheme, or an empty value.
    """
    value = os.fspath(store) if store is not None else os.environ.get(STORE_ENV)
    if value is None:
        return default_store()
    if value.strip() == "":
        raise UsageError("--store: empty value; give a path, sqlite:///PATH or none")
    if value.lower() == DISABLED:
        return None
    if "://" in value:
        scheme, _, rest = value.partition("://")
        if scheme.lower() != "sqlite" or not rest.startswith("/") or rest == "/":
            raise UsageError(f"--store {value!r}: only sqlite:///PATH URLs (or a plain path) "
                             "are supported")
        return Path(rest[1:])
    return Path(value)


# ---------------------------------------------------------------- connection

def _now() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


@contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def schema_version(db: sqlite3.Connection) -> int:
    """The highest migration applied to an open store (0 for an empty file)."""
    has = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = "
                     "'schema_version'").fetchone()
    if not has:
        return 0
    row = db.execute("SELECT MAX(version) FROM schema_version").fetchone()
    return int(row[0] or 0)


def migrate(db: sqlite3.Connection, target: int = SCHEMA_VERSION) -> int:
    """Apply the missing migrations up to ``target``, each in its own transaction.

    Returns:
        the store's version afterwards.

    Raises:
        InputError: the store is newer than this aau (``SCHEMA_VERSION``).
    """
    for step in range(1, target + 1):
        with _transaction(db):
            db.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER PRIMARY KEY, "
                       "applied_at TEXT NOT NULL)")
            current = schema_version(db)
            if current > SCHEMA_VERSION:
                raise InputError(f"run store schema version {current} is newer than this aau "
                                 f"supports ({SCHEMA_VERSION}); upgrade aau")
            if current >= step:
                continue
            MIGRATIONS[step - 1](db)
            db.execute("INSERT INTO schema_version (version, applied_at) VALUES (?, ?)",
                       (step, _now()))
    return schema_version(db)


def _check_readable_version(version: int, path: Path) -> None:
    """Raise the ``InputError`` that says why a store of ``version`` cannot be read as it is
    (``SCHEMA_VERSION`` can)."""
    if version == SCHEMA_VERSION:
        return
    if version == 0:
        message = "nothing recorded in this run store yet (an empty SQLite file)"
    elif version > SCHEMA_VERSION:
        message = (f"run store schema version {version} is newer than this aau supports "
                   f"({SCHEMA_VERSION}); upgrade aau")
    else:
        message = (f"run store schema version {version}; this aau reads {SCHEMA_VERSION} "
                   "(record a run with this aau to migrate it)")
    raise InputError(message, source=str(path))


class RunStore:
    """An open run store (see the module docstring).

    Args:
        path: the SQLite file.
        read_only: open without creating or migrating (``aau runs``, ``aau view``); a missing
            file or an older schema is an ``InputError``.

    Raises:
        OutputError: the file cannot be created or opened.
        InputError: read-only and missing or empty; a schema version this aau does not read;
            an SQLite database of something else (tables but no ``schema_version``: never
            migrated into); not an SQLite file.
    """

    def __init__(self, path: str | os.PathLike[str], *, read_only: bool = False) -> None:
        self.path = Path(path)
        self.db = connect_store(self.path, read_only=read_only)
        try:
            foreign = not_a_store(self.db)
            if foreign is not None:
                raise InputError(foreign, source=str(self.path))
            if read_only:
                _check_readable_version(schema_version(self.db), self.path)
            else:
                migrate(self.db)
        except sqlite3.OperationalError as exc:  # locked, I/O: the file may be a store
            self.db.close()
            raise InputError(f"cannot read the run store: {exc}", source=str(self.path)) from None
        except sqlite3.DatabaseError as exc:
            self.db.close()
            raise InputError(f"not a run store: {exc}", source=str(self.path)) from None
        except BaseException:
            self.db.close()
            raise

    def close(self) -> None:
        """Close the connection."""
        self.db.close()

    def __enter__(self) -> RunStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------ writing

    def add(self, doc: Mapping[str, Any], *, source: str | None = None,
            checked_kind: str | None = None) -> tuple[int, bool]:
        """Validate and record one document in one transaction.

        Args:
            doc: a receipt, eval aggregate or lab result (parsed JSON).
            source: where it came from (a file name), kept for ``aau runs show``.
            checked_kind: the kind this process built and validated ``doc`` as: not checked
                again (``document_report``). Never for a document read from a file.

        Returns:
            ``(run id, created)``; ``created`` is False when the same document (same canonical
            digest) was already stored, and the id is the stored one.

        Raises:
            InputError: not a valid run document (``source: $.path: message [kind]``).
        """
        import aau_schemas

        name = source or "<document>"
        report = document_report(doc, name, checked_kind=checked_kind)
        digest = aau_schemas.canonical_digest(doc)
        cols = _index_columns(report.kind, doc)
        with _transaction(self.db):
            row = self.db.execute("SELECT id FROM runs WHERE doc_digest = ?", (digest,)).fetchone()
            if row:
                return int(row[0]), False
            cur = self.db.execute(
                "INSERT INTO runs (doc_digest, kind, suite, suite_digest, suite_sha256, adapter, "
                "model, run_at, recorded_at, source, scenario_count, scenarios_passed, repeats, "
                "document) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '')",
                (digest, report.kind, cols["suite"], cols["suite_digest"], cols["suite_sha256"],
                 cols["adapter"], cols["model"], cols["run_at"] or _now(), _now(), source,
                 len(report.scenarios), report.passed_count, report.repeats))
            run_id = int(cur.lastrowid or 0)
            self.db.executemany(
                "INSERT INTO run_scenarios (run_id, position, scenario_id, runs, passed_runs, "
                "errored_runs, passed, failure_codes, errors, metrics) VALUES "
                "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ((run_id, i, s.scenario_id, s.runs, s.passed_runs, s.errored_runs, int(s.passed),
                  json.dumps(dict(s.failure_codes)), json.dumps(list(s.errors)),
                  json.dumps(dict(s.metrics))) for i, s in enumerate(report.scenarios)))
            # (a generator: 100,000 scenarios' rows are never all held at once)
            _insert_metrics(self.db, run_id, report)
            # the text last, once the scenario records (~20 MB each for 100,000 rows) are gone
            del report
            store_document_text(self.db, run_id, doc)
        return run_id, True

    # ------------------------------------------------------------ reading

    def list(self, *, suite: str | None = None, since: str | None = None,
             limit: int | None = None) -> list[RunSummary]:
        """Runs, newest first (by ``run_at``, then id).

        Args:
            suite: keep runs whose suite id, ``suite_digest`` or ``suite_sha256`` equals this
                (a digest may be given without its ``sha256:`` prefix).
            since: keep runs with ``run_at >= since`` (ISO 8601 date or UTC time, compared as
                text: ``2026-11-30`` or ``2026-11-30T12:00:00Z``).
            limit: at most this many.
        """
        where, args = [], []
        if suite:
            bare = suite.removeprefix("sha256:")
            where.append("(suite = ? OR suite_digest = ? OR suite_sha256 = ?)")
            args += [suite, f"sha256:{bare}", bare]
        if since:
            where.append("run_at >= ?")
            args.append(since)
        sql = ("SELECT id, kind, suite, suite_digest, adapter, model, run_at, recorded_at, source, "
               "scenario_count, scenarios_passed, repeats FROM runs")
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY run_at DESC, id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        rows = self.db.execute(sql, args).fetchall()
        metrics = self._metrics([r[0] for r in rows])
        return [RunSummary(*r, metrics=metrics.get(r[0], {})) for r in rows]

    def _metrics(self, ids: Sequence[int]) -> dict[int, dict[str, float]]:
        out: dict[int, dict[str, float]] = {}
        for chunk in range(0, len(ids), 500):
            part = ids[chunk:chunk + 500]
            marks = ",".join("?" * len(part))
            for run_id, name, value in self.db.execute(
                    f"SELECT run_id, name, value FROM run_metrics WHERE run_id IN ({marks}) "
                    "ORDER BY name", part):
                out.setdefault(run_id, {})[name] = value
        return out

    def units_not_measured(self, ids: Sequence[int]) -> dict[int, int]:
        """``{run id: units not measured}`` (the sum of its scenarios' ``errored_runs``) for
        the given runs that have any; a run whose every unit was measured is left out."""
        out: dict[int, int] = {}
        for chunk in range(0, len(ids), 500):
            part = list(ids[chunk:chunk + 500])
            marks = ",".join("?" * len(part))
            for run_id, errored in self.db.execute(
                    f"SELECT run_id, SUM(errored_runs) FROM run_scenarios WHERE run_id IN "
                    f"({marks}) GROUP BY run_id HAVING SUM(errored_runs) > 0", part):
                out[run_id] = int(errored)
        return out

    def get(self, run_id: int | str) -> tuple[RunSummary, dict[str, Any]]:
        """``(summary, document)`` of one run.

        Raises:
            InputError: no run has this id.
        """
        try:
            key = int(str(run_id).lstrip("#"))
        except ValueError:
            raise InputError(f"run id {run_id!r}: expected a number (see aau runs list)",
                             source=str(self.path)) from None
        row = self.db.execute(
            "SELECT id, kind, suite, suite_digest, adapter, model, run_at, recorded_at, source, "
            "scenario_count, scenarios_passed, repeats, document FROM runs WHERE id = ?",
            (key,)).fetchone()
        if row is None:
            raise InputError(f"no run {key} in this store (see aau runs list)",
                             source=str(self.path))
        summary = RunSummary(*row[:-1], metrics=self._metrics([key]).get(key, {}))
        return summary, json.loads(row[-1])

    def scenarios(self, run_id: int) -> list[StoredScenario]:
        """The run's per-scenario rows, in the document's order."""
        return [StoredScenario(sid, bool(passed), runs, passed_runs, json.loads(codes),
                               json.loads(metrics), errored, tuple(json.loads(errors)))
                for sid, passed, runs, passed_runs, codes, metrics, errored, errors
                in self.db.execute(
                    "SELECT scenario_id, passed, runs, passed_runs, failure_codes, metrics, "
                    "errored_runs, errors FROM run_scenarios WHERE run_id = ? ORDER BY position",
                    (run_id,))]


@attrs.frozen
class RunSummary:
    """One stored run's indexed columns (``aau runs list``; unstructured by the document
    converter, an item of schema ``run-list``).

    Attributes:
        id: the run id (``aau runs show ID``).
        kind: ``receipt-v1``, ``receipt-v2``, ``eval-aggregate-v1``, ``eval-aggregate-v2`` or
            ``lab-result``.
        suite: receipt ``suite_id``, lab result ``lab``, else ``None``.
        suite_digest: receipt v2 ``suite_digest``, lab result ``scenarios_sha256``, else ``None``.
        adapter: ``command:<argv0>``, ``endpoint:<host>``, ``mock``, ... (receipts); the backend
            (aggregates, lab results).
        model: the requested model (aggregates, lab results), else ``None``.
        run_at: when the run started (receipt v2 ``started_at``; aggregate
            ``provenance.generated_at``), else when it was recorded; UTC ISO 8601.
        recorded_at: when it was recorded (UTC ISO 8601).
        source: the file it came from, if known.
        scenario_count, scenarios_passed, repeats: as ``aau report`` counts them.
        metrics: headline metrics ``{name: value}``.
    """

    id: int
    kind: str
    suite: str | None
    suite_digest: str | None
    adapter: str | None
    model: str | None
    run_at: str
    recorded_at: str
    source: str | None
    scenario_count: int
    scenarios_passed: int
    repeats: int
    metrics: Mapping[str, float] = attrs.field(factory=dict)

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready form (``aau runs list --json`` items): the document converter's
        unstructured form (kept: public method of an exported class)."""
        from .._files._converter import unstructure_document

        return unstructure_document(self)  # type: ignore[no-any-return]


@attrs.frozen
class StoredScenario:
    """One scenario of a stored run: pass verdict, repeats, failure codes, per-scenario metric
    means (repeats averaged, as ``aau report`` computes them), and (run-show 1.1) the repeats
    that did not measure the agent.

    Attributes:
        errored_runs: repeats not measured (a receipt 2.1 row with ``measured`` false, an
            aggregate run with an error); neither passed nor in ``failure_codes``. ``None`` (not
            written) only in a run-show 1.0 document; the store always has it.
        errors: what they failed with, distinct, first seen first: a receipt row's adapter
            failure code, an aggregate run's error text (``None`` as ``errored_runs``).
    """

    scenario_id: str
    passed: bool
    runs: int
    passed_runs: int
    failure_codes: Mapping[str, int]
    metrics: Mapping[str, float]
    errored_runs: int | None = optional_field()
    errors: tuple[str, ...] | None = optional_field()

    @property
    def measured(self) -> bool:
        """Whether at least one repeat measured the agent (not every one errored; a 1.0
        document's scenario, without ``errored_runs``, counts as measured)."""
        return (self.errored_runs or 0) < self.runs

    @property
    def fully_measured(self) -> bool:
        """Whether every repeat measured the agent (none errored; a 1.0 document's scenario,
        without ``errored_runs``, counts as measured): what ``aau runs compare`` pairs."""
        return not self.errored_runs


# ---------------------------------------------------------------- documents

def document_report(doc: Any, source: str, *, checked_kind: str | None = None) -> Any:
    """Validate a parsed run document and summarise it as ``aau report`` does (``checked_kind``:
    as ``aau_core._reports._scenarios.document_report``'s).

    Returns:
        the ``DocumentReport`` (default pass rule).

    Raises:
        InputError: not a receipt, aggregate or lab result; invalid under its schema; a receipt
            inconsistent with its own rows.
    """
    from .._reports._scenarios import document_report as report

    return report(doc, source, checked_kind=checked_kind)


def _adapter_identity(doc: Mapping[str, Any]) -> str:
    adapter = (doc.get("provenance") or {}).get("adapter") or {}
    kind = adapter.get("kind") or doc.get("adapter_kind") or "?"
    where = adapter.get("argv0") or adapter.get("url_host")
    return f"{kind}:{where}" if where else str(kind)


def _index_columns(kind: str, doc: Mapping[str, Any]) -> dict[str, Any]:
    if kind.startswith("receipt"):
        return {"suite": doc["suite_id"], "suite_digest": doc.get("suite_digest"),
                "suite_sha256": doc.get("suite_sha256"), "adapter": _adapter_identity(doc),
                "model": None, "run_at": doc.get("started_at")}
    agg = doc["aggregate"] if kind == "lab-result" else doc
    provenance = agg.get("provenance") or {}
    lab = kind == "lab-result"
    variant = agg.get("variant")  # what an aggregate ran, e.g. "agentdojo 0.1.35 v1.2.2 banking"
    return {"suite": doc.get("lab") if lab else variant if isinstance(variant, str) else None,
            "suite_digest": doc.get("scenarios_sha256") if lab else None,
            "suite_sha256": None, "adapter": doc.get("backend") or agg.get("backend"),
            "model": doc.get("model") or agg.get("model") or provenance.get("requested_model"),
            "run_at": _utc(provenance.get("generated_at"))}


def _utc(stamp: Any) -> str | None:
    """``2026-08-09T22:39:56+00:00`` -> ``2026-08-09T22:39:56Z`` so that times sort as text."""
    if not isinstance(stamp, str):
        return None
    return stamp[:-6] + "Z" if stamp.endswith("+00:00") else stamp


def _insert_metrics(db: sqlite3.Connection, run_id: int, report: Any) -> None:
    db.executemany(
        "INSERT INTO run_metrics (run_id, name, value, low, high) VALUES (?, ?, ?, ?, ?)",
        [(run_id, name, value,
          report.intervals[name].low if name in report.intervals else None,
          report.intervals[name].high if name in report.intervals else None)
         for name, value in report.metrics])
