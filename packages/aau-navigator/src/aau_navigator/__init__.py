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
    gallery and challenge (aau gallery / aau challenge; docs/navigator.md):
        build_gallery(root) -> {version, trust_model, stats, entries: [item]}
        evaluate_entry(GalleryContext(root), entry, record_path=) -> item (trust, evidence)
        build_challenge(root) -> {version, tracks, achievements, challenges, stats,
            scoreboard, boundary}; achievements_for(item) -> [id]
        LEVELS (Generated < Domain reviewed < Reproduced < Verified)
    starter projects (aau init / aau doctor; docs/starter.md):
        resolve_starter(name, template_id=, adapter=, title=, ...) -> StarterConfig
        build_suite(config) -> suite dict, render_starter(config) -> {path: text},
        init_project(config, destination) -> DoctorReport (atomic, never overwrites)
        doctor_project(path, run_adapter=False) -> DoctorReport (.ready, .to_dict())
        Check, STARTER_VERSION, DOCTOR_VERSION, TEMPLATE_IDS, GENERATED_FILES
    forge and scaffolds (aau forge / aau new-use-case; docs/forge.md):
        forge(brief_path, name, root=".", seed=, title=, verify=True) -> ForgeResult
            (.path, .manifest, .steps); FORGE_VERSION
        load_brief(path) -> brief, brief_seed(brief) -> int (1.6's rule),
        contract_family(contract) -> family | None
        diagnose_forged_lab(path) -> report dict, render_diagnosis(report) -> str;
            FORGE_DOCTOR_VERSION
        new_use_case(industry, name, seed, root=".", title=) -> Path,
        lab_names(industry, name, title=) -> LabNames
        verify_lab(lab, pkg, seed=, n=, repeats=) -> [StepResult]
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
    # gallery and challenge (aau gallery / aau challenge)
    "GalleryContext": "._gallery",
    "LEVELS": "._gallery",
    "achievements_for": "._challenge",
    "build_challenge": "._challenge",
    "build_gallery": "._gallery",
    "evaluate_entry": "._gallery",
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
    # forge and scaffolds (aau forge / aau new-use-case)
    "FORGE_DOCTOR_VERSION": "._forge_doctor",
    "FORGE_VERSION": "._forge",
    "ForgeResult": "._forge",
    "LabNames": "._scaffold",
    "StepResult": "._forge_verify",
    "brief_seed": "._forge_brief",
    "contract_family": "._forge_brief",
    "diagnose_forged_lab": "._forge_doctor",
    "forge": "._forge",
    "lab_names": "._scaffold",
    "load_brief": "._forge_brief",
    "new_use_case": "._scaffold",
    "render_diagnosis": "._forge_doctor",
    "verify_lab": "._forge_verify",
}


__all__ = sorted(_EXPORTS)
__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
