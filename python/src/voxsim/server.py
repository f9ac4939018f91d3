"""Starting and stopping a ``voxsim serve`` for tests (the pytest plugin's ``voxsim_server``)."""
from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import threading
import time
from pathlib import Path
from typing import List, Optional, Sequence, Union

from .client import Voxsim
from .errors import VoxsimError

# The first line `voxsim serve` prints: "voxsim 0.1.0 listening on http://127.0.0.1:36901/api".
_LISTENING = re.compile(r"listening on (https?://\S+)")


def server_command(project: Optional[Union[str, Path]] = None) -> List[str]:
    """The command that runs the voxsim CLI: the project's build or installed package, else ``npx voxsim``.

    With ``project`` (a clone of voxsim with ``dist/`` built, or a project that installed the
    npm package) it is ``node <bin.js>``, with the project's own Node when it has one
    (``node_modules/.bin/node``, from the ``node`` npm package), else the ``node`` on PATH.
    """
    if project is not None:
        root = Path(project).resolve()
        for bin_js in (root / "dist" / "src" / "bin.js", root / "node_modules" / "voxsim" / "dist" / "src" / "bin.js"):
            if bin_js.is_file():
                local_node = root / "node_modules" / ".bin" / "node"
                node = str(local_node) if local_node.exists() else shutil.which("node")
                if node is None:
                    raise VoxsimError(f"cannot start voxsim: no `node` on PATH (needed for {bin_js})")
                return [node, str(bin_js)]
        if (root / "src" / "bin.ts").is_file():
            raise VoxsimError(f"cannot start voxsim from {root}: dist/src/bin.js is missing; run `npm run build` there first")
    npx = shutil.which("npx")
    if npx is None:
        raise VoxsimError("cannot start voxsim: `npx` is not on PATH; install Node.js and the voxsim npm package, or set VOXSIM_URL to a running server")
    return [npx, "--no-install", "voxsim"]


class VoxsimServer:
    """A ``voxsim serve`` this process started: ``base_url``, ``client`` (a ``Voxsim``), ``stop()``."""

    def __init__(self, process: "subprocess.Popen[str]", base_url: str, output: List[str]) -> None:
        self.process = process
        self.base_url = base_url
        self.output = output
        self.client = Voxsim(base_url)

    def stop(self, timeout: float = 5.0) -> None:
        """Stops the server (SIGTERM to its process group, SIGKILL after ``timeout`` seconds)."""
        if self.process.poll() is not None:
            return
        _signal(self.process, signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            _signal(self.process, getattr(signal, "SIGKILL", signal.SIGTERM))
            self.process.wait(timeout)

    def __enter__(self) -> "VoxsimServer":
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def start_server(
    project: Optional[Union[str, Path]] = None,
    *,
    args: Sequence[str] = (),
    timeout: float = 60.0,
) -> VoxsimServer:
    """Starts ``voxsim serve`` on a free port (open sandboxes, quiet) and waits for ``/__sim/health``.

    Example::

        with start_server("/path/to/voxsim") as server:
            box = server.client.sandbox(seed=7)
    """
    command = server_command(project)
    # --port 0: the server picks a free port and prints it, so two runs never race for one.
    # --exit-with-parent: a test run killed hard leaves no server behind.
    command += ["serve", "--port", "0", "--quiet", "--open-sandboxes", "--exit-with-parent", *args]
    cwd = str(Path(project).resolve()) if project is not None else None
    process = subprocess.Popen(
        command,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env={**os.environ, "NO_COLOR": "1"},
        start_new_session=hasattr(os, "setsid"),
    )
    output: List[str] = []
    found = threading.Event()
    url: List[str] = []

    def read() -> None:
        # Drains the output for the server's whole life, so that it never blocks on a full pipe.
        assert process.stdout is not None
        for line in process.stdout:
            if len(output) < 200:
                output.append(line.rstrip("\n"))
            match = _LISTENING.search(line)
            if match and not url:
                url.append(match.group(1))
                found.set()
        found.set()

    threading.Thread(target=read, name="voxsim-serve-output", daemon=True).start()
    deadline = time.monotonic() + timeout
    found.wait(timeout)
    server = VoxsimServer(process, url[0] if url else "", output)
    if not url:
        server.stop()
        raise VoxsimError(f"voxsim serve did not start ({' '.join(command)}):\n" + "\n".join(output[-20:]))
    while True:
        try:
            server.client.health()
            return server
        except VoxsimError:
            if process.poll() is not None or time.monotonic() > deadline:
                server.stop()
                raise VoxsimError(f"voxsim serve at {server.base_url} did not answer /__sim/health:\n" + "\n".join(output[-20:]))
            time.sleep(0.05)


def _signal(process: "subprocess.Popen[str]", sig: int) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(process.pid, sig)  # the group this module started (start_new_session)
        else:
            process.send_signal(sig)
    except ProcessLookupError:
        pass
