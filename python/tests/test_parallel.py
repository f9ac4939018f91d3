"""Four pytest processes at once against one server: each in its own sandboxes, none sees another's."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import voxsim as voxsim_package
from voxsim import Voxsim

HERE = Path(__file__).resolve().parent
JOBS = 4


def test_four_pytest_processes_at_once_against_one_server_are_green_and_isolated(voxsim_server: Voxsim, tmp_path: Path) -> None:
    source = str(Path(voxsim_package.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (source, str(HERE), os.environ.get("PYTHONPATH")) if p)
    env = {**os.environ, "VOXSIM_URL": voxsim_server.base_url, "PYTHONPATH": path}
    before = {s["id"] for s in voxsim_server.sandboxes.list()}
    # -p voxsim.plugin: the plugin also when the package is not installed (the entry point has that name).
    command = [sys.executable, "-m", "pytest", "-p", "voxsim.plugin", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path), str(HERE / "parallel_job.py")]
    jobs = [
        subprocess.Popen(command, env={**env, "VOXSIM_JOB": str(job)}, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        for job in range(JOBS)
    ]
    outputs = [job.communicate(timeout=120)[0] for job in jobs]
    for job, output in zip(jobs, outputs):
        assert job.returncode == 0, output
        assert "3 passed" in output, output
    # Each test's sandbox was deleted after it.
    assert {s["id"] for s in voxsim_server.sandboxes.list()} - before == set()
