"""``aau init``: write a new starter project atomically, after it passes its own doctor.

The eleven files (``render_starter``) are written into a fresh temporary folder beside the
destination, each fsync'ed; the doctor then checks the staged folder *with* both adapters run
over the suite (``run_adapter=True``); only a ready project is renamed into place. On any failure
the staged folder is removed and nothing appears at the destination. An existing destination
(file, folder, even an empty one, or a symlink) is never touched.
"""

from __future__ import annotations

import os
from pathlib import Path

import attrs
from aau_core import OutputError, check_parent, write_folder

from ._doctor import DoctorReport, doctor_project
from ._starter import StarterConfig
from ._starter_render import render_starter

_EXECUTABLE = ("adapter_command.py", "adapter_endpoint.py")


def init_project(config: StarterConfig, destination: str | os.PathLike[str]) -> DoctorReport:
    """Generate the starter project ``config`` describes in the new folder ``destination``.

    Args:
        config: from ``resolve_starter``.
        destination: a path that does not exist yet (its missing parent folders are created
            only below the current directory or the temp folder, ``aau_core.check_parent``).

    Returns:
        the doctor's report on the published project (structural checks; both adapters were
        already run, and answered every case, before publishing).

    Raises:
        aau_core.OutputError: ``destination`` exists (a file, folder, device, pipe or link), a
            missing parent folder may not be created, it cannot be written, or the generated
            project failed its own doctor (a bug; the message names the first failed check).
    """
    dest = Path(destination)
    if os.path.lexists(dest):
        raise OutputError(f"{dest}: exists; aau init never overwrites (choose a new folder)")
    check_parent(dest)  # missing folders only below the current directory or the temp folder
    texts = render_starter(config)
    staged: list[DoctorReport] = []

    def check(stage: Path) -> None:
        staged.append(doctor_project(stage, run_adapter=True))
        failed = [c for c in staged[0].checks if c.status == "fail"]
        if failed:
            raise OutputError(f"{dest}: the generated project failed its own doctor (nothing "
                              f"written): {failed[0].id}: {failed[0].message}")

    write_folder(dest, texts, executable=_EXECUTABLE, check=check)  # refuses a dest that appeared
    report = staged[0]
    # the published folder, checked again; its adapter-contract is the run made on the stage
    # (both adapters answered every case), not "not run"
    final = doctor_project(dest)
    ran = {c.id: c for c in report.checks}
    return attrs.evolve(final, checks=tuple(
        ran["adapter-contract"] if c.id == "adapter-contract" and "adapter-contract" in ran
        else c for c in final.checks))
