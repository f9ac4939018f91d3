"""Running pytest on a small test suite in a child process, as a user would (the plugin's tests)."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Dict, Mapping, Optional, Sequence

import voxsim as voxsim_package

REPO = Path(__file__).resolve().parents[2]
SOURCE = str(Path(voxsim_package.__file__).resolve().parents[1])
# What the plugin reads from the environment: a child run gets only what its test gives it.
PLUGIN_ENV = ("VOXSIM_URL", "VOXSIM_PROJECT", "VOXSIM_ADMIN_TOKEN")


def built() -> bool:
    """Whether this clone's server is built (a child run that starts a server needs it)."""
    return (REPO / "dist" / "src" / "bin.js").is_file()


def write(root: Path, files: Mapping[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def run_pytest(
    args: Sequence[str],
    *,
    cwd: Path,
    env: Optional[Dict[str, str]] = None,
    rootdir: Optional[Path] = None,
    timeout: float = 180,
) -> "subprocess.CompletedProcess[str]":
    """``python -m pytest -p voxsim.plugin ARGS`` in ``cwd``: the plugin's settings only from ``env`` and ``args``."""
    base = {k: v for k, v in os.environ.items() if k not in PLUGIN_ENV and not k.startswith("PYTEST_")}
    path = os.pathsep.join(p for p in (SOURCE, os.environ.get("PYTHONPATH")) if p)
    command = [sys.executable, "-m", "pytest", "-p", "voxsim.plugin", "-p", "no:cacheprovider", "-q"]
    if rootdir is not None:
        command += ["--rootdir", str(rootdir)]
    return subprocess.run(
        [*command, *args],
        env={**base, "PYTHONPATH": path, "NO_COLOR": "1", **(env or {})},
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=timeout,
    )
