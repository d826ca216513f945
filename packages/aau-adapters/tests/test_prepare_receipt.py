"""``aau evaluate`` builds what its receipt needs (validators, numpy) on a thread while the units
run: checked in a fresh interpreter, where nothing of it is loaded yet."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

PROBE = """
import json, sys, threading
from aau_adapters._evaluation import _prepare_receipt
from aau_schemas import _validate
before = "numpy" in sys.modules
_prepare_receipt(legacy={legacy}, private={private}, units={units})
for thread in threading.enumerate():
    if thread.name == "aau-prepare-receipt":
        thread.join(60)
print(json.dumps({{"numpy_before": before, "numpy": "numpy" in sys.modules,
                  "validators": _validate._rs_validator.cache_info().currsize}}))
"""


@pytest.mark.parametrize("legacy, private, units, numpy, validators", [
    (False, True, 2, True, 2),    # receipt 2.1 and its private receipt; intervals need numpy
    (False, False, 1, False, 1),  # one unit: no interval to bootstrap
    (True, False, 5, False, 1),   # the aau-1.0 receipt has no intervals
])
def test_the_receipt_s_needs_are_ready_after_the_units(legacy, private, units, numpy,
                                                         validators):
    code = PROBE.format(legacy=legacy, private=private, units=units)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen["numpy_before"] is False
    assert seen == {"numpy_before": False, "numpy": numpy, "validators": validators}
