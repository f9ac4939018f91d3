"""The example integration's tests (examples/python) against an already running server, through VOXSIM_URL."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import voxsim as voxsim_package
from voxsim import Voxsim

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "python"


@pytest.mark.skipif(not EXAMPLES.is_dir(), reason="examples/python is not beside this package (an installed copy)")
def test_the_example_tests_pass_against_a_running_server_named_by_voxsim_url(voxsim_server: Voxsim, tmp_path: Path) -> None:
    source = str(Path(voxsim_package.__file__).resolve().parents[1])
    path = os.pathsep.join(p for p in (source, os.environ.get("PYTHONPATH")) if p)
    # No project to start a server from (VOXSIM_PROJECT dropped, cwd a temp dir): the run can only use VOXSIM_URL's.
    env = {**{k: v for k, v in os.environ.items() if k != "VOXSIM_PROJECT"}, "VOXSIM_URL": voxsim_server.base_url, "PYTHONPATH": path}
    before = {s["id"] for s in voxsim_server.sandboxes.list()}
    command = [sys.executable, "-m", "pytest", "-p", "voxsim.plugin", "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path), str(EXAMPLES)]
    done = subprocess.run(command, env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=120)
    assert done.returncode == 0, done.stdout
    # Every example test ran and passed: as many as the examples define (the CRM's and the tool endpoint's).
    defined = sum(text.count("\ndef test_") for text in (f.read_text(encoding="utf-8") for f in EXAMPLES.glob("test_*.py")))
    assert defined >= 8 and f"{defined} passed" in done.stdout, done.stdout
    # Each of its sandboxes was deleted after its test.
    assert {s["id"] for s in voxsim_server.sandboxes.list()} - before == set()
