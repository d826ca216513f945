"""``aau --help`` loads no document models and no cattrs: they load when a document is read.

Issue 15 made every document an attrs model structured by cattrs (~60 ms to import); listing the
commands must not pay for it. (The wider start-up budget is issue 17's.)
"""

from __future__ import annotations

import json
import subprocess
import sys

CODE = """
import json, sys
from aau_core import run
try:
    run(["--help"])
except SystemExit:
    pass
print(json.dumps(sorted(sys.modules)), file=sys.stderr)
"""


def test_help_imports_neither_cattrs_nor_any_model_module():
    done = subprocess.run([sys.executable, "-c", CODE], capture_output=True, text=True,
                          timeout=120)
    loaded = json.loads(done.stderr.strip().splitlines()[-1])
    assert "Commands:" in done.stdout
    heavy = [m for m in loaded
             if m == "cattrs" or m.startswith("cattrs.") or m.endswith("_models")]
    assert heavy == [], heavy
