"""Files: reading and writing the documents every aau command touches.

Strict JSON reading (``_strict_json``: the one parser every input goes through, and
``decode_text``/``read_text_file``, the one decoding of every text input: strict UTF-8, a leading
byte-order mark dropped; ``_model_json``: the same rules for the JSON a model writes, with one
flagged recovery), the one JSON rendering and atomic write (``_writing``: temp file, fsync,
rename; output safety rules), safe names and paths inside a pack (``_safe_path``), a new folder
written all or nothing (``_staged_folder``: staged beside it, fsync'ed, modes from the umask,
renamed into place), SHA-256 pack manifests (each pack with an unlisted ``.gitattributes``) and
in-toto statements (``_manifest``), checking a document against its schema with one error per line
(``_document_check``), the one cattrs converter factory every package builds its converter from
(``_converter``), the model-vs-schema drift walker of the model tests (``_model_drift``) and text
made safe for a terminal (``_terminal``). May import ``aau_schemas`` and ``aau_core._errors`` only:
everything else in aau builds on it.
"""
