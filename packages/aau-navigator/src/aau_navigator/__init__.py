"""aau-navigator: find, start and grow aau evidence projects (aau-harness 1.6's Navigator,
Challenge, Gallery, Starter, Forge and Scaffold).

Commands (plugins of ``aau``): ``list``, ``find``, ``show``, ``start`` (the use-case catalog),
``challenge``, ``gallery``, ``examples``, ``init``, ``doctor`` (starter projects), ``forge``, ``new-use-case``
(lab packages); the 1.6 scripts ``aau-challenge``, ``aau-gallery``, ``aau-forge`` and
``aau-new-use-case`` are aliases.

Public API::

    use-case catalog (aau list / find / show / start; docs/navigator.md):
        load_catalog(path=None, root=None) -> Catalog (.entries: CatalogEntry, .root, .kind)
        filter_entries(entries, query=, industry=, capability=) -> [CatalogEntry]
        resolve_entry(entries, name) -> CatalogEntry, start_commands(entry, root, bundled=False) -> [str]
        read_document(kind, path) -> a parsed, schema-valid document
    gallery and challenge (aau gallery / aau challenge; docs/navigator.md):
        build_gallery(root) -> {version, trust_model, stats, entries: [item]}
        evaluate_entry(GalleryContext(root), entry, record_path=) -> item (trust, evidence)
        build_challenge(root) -> {version, tracks, achievements, challenges, stats,
            scoreboard, boundary}; achievements_for(item) -> [id]
        challenge_root(start=None) -> Path (the nearest root, else the current folder)
        validate_challenge(root, target) -> {rows, challenge, catalog}
        write_receipt(root, target, entry_id=, github=, scenario_ids=, claim=, ...)
            -> (receipt path, note path)
        LEVELS (Generated < Domain reviewed < Reproduced < Verified)
    bundled examples (aau examples; the repository's examples/ folder):
        copy_examples(destination="examples", force=False) -> (folder, count, written),
        bundled_examples() -> {path: bytes}, examples_source() -> Path
    starter projects (aau init / aau doctor; docs/starter.md):
        resolve_starter(name, template_id=, adapter=, title=, ...) -> StarterConfig
        build_suite(config) -> suite dict, render_starter(config) -> {path: text},
        init_project(config, destination) -> DoctorReport (atomic, never overwrites)
        doctor_project(path, run_adapter=False) -> DoctorReport (.ready, .to_dict(),
            .document() -> DoctorReportDocument, the doctor-report model)
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
    (every public name is listed once, in ``_EXPORTS`` below: module -> names)
"""

from __future__ import annotations

from aau_core._lazy import lazy_exports

# Names load on first use (PEP 562), so `aau --help` stays fast.
_EXPORTS: dict[str, tuple[str, ...]] = {
    # use-case catalog (aau list / find / show / start)
    "._catalog": ("Catalog", "CatalogEntry", "filter_entries", "load_catalog", "resolve_entry"),
    "._documents": ("read_document",),
    "._start": ("start_commands",),
    # gallery and challenge (aau gallery / aau challenge)
    "._gallery": ("GalleryContext", "LEVELS", "build_gallery", "evaluate_entry"),
    "._challenge": ("achievements_for", "build_challenge", "challenge_root",
                    "validate_challenge", "write_receipt"),
    # bundled examples (aau examples)
    "._examples": ("bundled_examples", "copy_examples", "examples_source"),
    # starter projects (aau init / aau doctor)
    "._doctor": ("Check", "DOCTOR_VERSION", "DoctorReport", "DoctorReportDocument",
                 "doctor_project"),
    "._starter": (
        "GENERATED_FILES",
        "STARTER_VERSION",
        "StarterConfig",
        "TEMPLATE_IDS",
        "build_suite",
        "resolve_starter",
    ),
    "._starter_init": ("init_project",),
    "._starter_render": ("render_starter",),
    # forge and scaffolds (aau forge / aau new-use-case)
    "._forge_doctor": ("FORGE_DOCTOR_VERSION", "diagnose_forged_lab", "render_diagnosis"),
    "._forge": ("FORGE_VERSION", "ForgeResult", "forge"),
    "._scaffold": ("LabNames", "lab_names", "new_use_case"),
    "._forge_verify": ("StepResult", "verify_lab"),
    "._forge_brief": ("brief_seed", "contract_family", "load_brief"),
}

__all__ = sorted(name for names in _EXPORTS.values() for name in names)
__getattr__, __dir__ = lazy_exports(
    __name__, {name: module for module, names in _EXPORTS.items() for name in names})
