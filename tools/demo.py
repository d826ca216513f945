"""`make demo`: evaluate the bundled example agent on the bundled suite and write a receipt.

Runs ``aau evaluate examples/suites/public-service-routing.json --command "<python>
examples/agents/command_agent.py" --concurrency 4 --out receipts/demo-receipt.json --force``
from the repository root and exits with its exit code.
"""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    aau = Path(sys.executable).parent / "aau"
    agent = f"{shlex.quote(sys.executable)} examples/agents/command_agent.py"
    argv = [str(aau), "evaluate", "examples/suites/public-service-routing.json",
            "--command", agent, "--concurrency", "4",
            "--out", "receipts/demo-receipt.json", "--force", *sys.argv[1:]]
    print("$ aau evaluate examples/suites/public-service-routing.json "
          "--command 'python examples/agents/command_agent.py' --concurrency 4 "
          "--out receipts/demo-receipt.json --force", file=sys.stderr, flush=True)
    rc = subprocess.call(argv, cwd=ROOT)
    if rc == 0:
        print("\nNext: open receipts/demo-receipt.json, or check it with "
              "`aau schema validate receipts/demo-receipt.json`.", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
