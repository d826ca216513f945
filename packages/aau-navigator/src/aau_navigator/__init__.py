"""aau-navigator: find, start and grow aau evidence projects (aau-harness 1.6's Navigator,
Challenge, Gallery, Starter, Forge and Scaffold).

Commands (plugins of ``aau``): ``list``, ``find``, ``show``, ``start`` (the use-case catalog),
``challenge``, ``gallery``, ``init``, ``doctor`` (starter projects), ``forge``, ``new-use-case``
(lab packages); the 1.6 scripts ``aau-challenge``, ``aau-gallery``, ``aau-forge`` and
``aau-new-use-case`` are aliases.

Public API::

    use-case catalog (aau list / find / show / start; docs/navigator.md):
        load_catalog(path=None, root=None) -> Catalog (.entries: CatalogEntry, .root, .kind)
        filter_entries(entries, query=, industry=, capability=) -> [CatalogEntry]
        resolve_entry(entries, name) -> CatalogEntry, start_commands(entry, root) -> [str]
        read_document(kind, path) -> a parsed, schema-valid document
    starter projects (aau init / aau doctor; docs/starter.md):
        resolve_starter(name, template_id=, adapter=, title=, ...) -> StarterConfig
        build_suite(config) -> suite dict, render_starter(config) -> {path: text},
        init_project(config, destination) -> DoctorReport (atomic, never overwrites)
        doctor_project(path, run_adapter=False) -> DoctorReport (.ready, .to_dict())
        Check, STARTER_VERSION, DOCTOR_VERSION, TEMPLATE_IDS, GENERATED_FILES
    (filled in as the modules land; every name is listed in ``_EXPORTS``)
"""

from __future__ import annotations

from aau_core import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS: dict[str, str] = {
    # use-case catalog (aau list / find / show / start)
    "Catalog": "._catalog",
    "CatalogEntry": "._catalog",
    "filter_entries": "._catalog",
    "load_catalog": "._catalog",
    "read_document": "._documents",
    "resolve_entry": "._catalog",
    "start_commands": "._start",
    # starter projects (aau init / aau doctor)
    "Check": "._doctor",
    "DOCTOR_VERSION": "._doctor",
    "DoctorReport": "._doctor",
    "GENERATED_FILES": "._starter",
    "STARTER_VERSION": "._starter",
    "StarterConfig": "._starter",
    "TEMPLATE_IDS": "._starter",
    "build_suite": "._starter",
    "doctor_project": "._doctor",
    "init_project": "._starter_init",
    "render_starter": "._starter_render",
    "resolve_starter": "._starter",
}


__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
