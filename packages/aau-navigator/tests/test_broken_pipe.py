"""`aau ... | head`: a reader that goes away early is not an error, for every command.

The root (`aau_core.run`) answers a closed stdout with exit 0 and nothing on stderr, whether the
pipe breaks while click writes (click then exits 1 by itself) or only at the final flush of
buffered output. Each case runs the real console script with a real OS pipe.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[3]
AAU = str(Path(sys.executable).parent / "aau")


def _run_into_closed_pipe(argv: list[str], *, read_first: bool) -> tuple[int, str, str]:
    """Run argv with stdout on a pipe; read one line (or nothing) and close the read end."""
    env = {k: v for k, v in os.environ.items() if k not in ("AAU_DEBUG",)}
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
                            env=env)
    first = proc.stdout.readline().decode("utf-8") if read_first else ""
    proc.stdout.close()
    err = proc.stderr.read().decode("utf-8")
    proc.stderr.close()
    return proc.wait(timeout=120), first, err


@pytest.fixture(scope="module")
def big_catalog(tmp_path_factory) -> Path:
    """A use-cases.json far larger than a pipe buffer (64 KiB), so writes block and then fail."""
    entry = json.loads((REPO / "schemas/navigator/v1/examples/valid/"
                        "catalog-entry-aau-1.6-exception-triage.json").read_text("utf-8"))
    entries = [{**entry, "path": f"{entry['path']}-{i}"} for i in range(3000)]
    path = tmp_path_factory.mktemp("catalog") / "use-cases.json"
    path.write_text(json.dumps(entries), encoding="utf-8")
    return path


@pytest.mark.parametrize("as_json", [False, True])
def test_aau_list_into_head_is_quiet(big_catalog: Path, as_json: bool) -> None:
    argv = [AAU, "list", "--catalog", str(big_catalog)] + (["--json"] if as_json else [])
    code, first, err = _run_into_closed_pipe(argv, read_first=True)
    assert first.strip()  # it did print before the reader left
    assert err == ""
    assert code == 0


@pytest.mark.parametrize("argv", [
    ["list"],
    ["find", "permit"],
    ["show", "river-permit-desk"],
    ["--help"],
    ["schema", "list"],
    ["evaluate", "examples/suites/public-service-routing.json", "--mock", "--json"],
])
def test_every_command_into_a_closed_pipe_is_quiet(argv: list[str]) -> None:
    """Small outputs: the reader is gone before the first write (or the final flush)."""
    code, _, err = _run_into_closed_pipe([AAU, *argv], read_first=False)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "Exception ignored" not in err
    assert code == 0, err
