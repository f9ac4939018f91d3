"""The pytest plugin (entry point ``pytest11``: ``voxsim.plugin``): a server per run, a sandbox per test.

Fixtures:

- ``voxsim_server`` (session): a ``Voxsim`` client of the server. The server at ``--voxsim-url``
  / ``$VOXSIM_URL`` when given (nothing is started), else a ``voxsim serve`` started from
  ``--voxsim-project`` / ini ``voxsim_project`` / ``$VOXSIM_PROJECT`` (or ``npx voxsim``) on a
  free port, stopped at the end of the run.
- ``voxsim`` (function): a fresh sandbox of that server (a ``Sandbox`` client bound to its
  key), deleted after the test. Tests in parallel processes never see each other's state.

``@pytest.mark.voxsim(scenario="file.yaml", seed=7, wire="live", catalog={...})`` sets a
test's sandbox; ``--voxsim-seed``, ``--voxsim-wire`` and ``--voxsim-catalog`` (or the ini
keys of the same names) set every test's.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, Optional

import pytest

from .client import Sandbox, Voxsim
from .errors import VoxsimError
from .server import start_server

# Sandboxes of a run that was killed before its teardown are removed after this much idle time.
SANDBOX_TTL = "1h"

_OPTIONS = {
    "project": "the directory to start `voxsim serve` from (a voxsim clone with dist/ built, or a project with voxsim installed); default: `npx voxsim` from the current directory",
    "url": "the base URL of a running voxsim server to use instead of starting one (default: $VOXSIM_URL)",
    "admin_token": "the running server's admin token (default: $VOXSIM_ADMIN_TOKEN)",
    "seed": "every sandbox's seed (default 1)",
    "wire": "every sandbox's wire format: spec or live (default: the server's)",
    "catalog": "a catalog document (JSON file) every sandbox starts with",
}


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("voxsim", "voxsim: a simulator sandbox per test")
    for name, help_text in _OPTIONS.items():
        group.addoption(f"--voxsim-{name.replace('_', '-')}", dest=f"voxsim_{name}", default=None, help=help_text)
        parser.addini(f"voxsim_{name}", help_text, default=None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "voxsim(scenario=None, seed=None, wire=None, catalog=None): how this test's voxsim sandbox starts "
        "(scenario: a YAML or JSON file, relative to the test file, or its text)",
    )


def _setting(config: pytest.Config, name: str, env: Optional[str] = None) -> Optional[str]:
    value = config.getoption(f"voxsim_{name}")
    if value is None:
        value = config.getini(f"voxsim_{name}") or None
        inipath = getattr(config, "inipath", None)  # pytest >= 6.1
        if value is not None and name in ("project", "catalog") and inipath is not None:
            value = str((Path(inipath).parent / value).resolve())  # ini paths are relative to the ini file
    if value is None and env is not None:
        value = os.environ.get(env) or None
    return value


@pytest.fixture(scope="session")
def voxsim_server(pytestconfig: pytest.Config) -> Iterator[Voxsim]:
    """The voxsim server of this run: ``$VOXSIM_URL``'s, or one started for the run and stopped after it."""
    url = _setting(pytestconfig, "url", "VOXSIM_URL")
    token = _setting(pytestconfig, "admin_token", "VOXSIM_ADMIN_TOKEN")
    if url:
        client = Voxsim(url, admin_token=token)
        client.health()  # a server that is not there is one clear error, before any test
        yield client
        return
    server = start_server(_setting(pytestconfig, "project", "VOXSIM_PROJECT"))
    try:
        yield server.client
    finally:
        server.stop()


@pytest.fixture
def voxsim(request: pytest.FixtureRequest, voxsim_server: Voxsim) -> Iterator[Sandbox]:
    """A sandbox of its own for this test: ``voxsim.base_url`` and ``voxsim.api_key`` for the code under test."""
    config = request.config
    marker = request.node.get_closest_marker("voxsim")
    mark: Dict[str, Any] = dict(marker.kwargs) if marker is not None else {}
    unknown = set(mark) - {"scenario", "seed", "wire", "catalog"}
    if unknown:
        raise pytest.UsageError(f"@pytest.mark.voxsim takes scenario, seed, wire and catalog, not {', '.join(sorted(unknown))}")
    seed = mark.get("seed", _setting(config, "seed"))
    catalog = mark.get("catalog", _setting(config, "catalog"))
    scenario = mark.get("scenario")
    box = voxsim_server.sandbox(
        seed=None if seed is None else int(seed),
        wire=mark.get("wire", _setting(config, "wire")),
        catalog=_catalog(catalog, Path(str(request.node.fspath)).parent),
        scenario=None if scenario is None else _scenario_text(scenario, Path(str(request.node.fspath)).parent),
        name=request.node.nodeid[-255:],
        ttl=SANDBOX_TTL,
    )
    try:
        yield box
    finally:
        try:
            box.delete()
        except VoxsimError as error:
            if error.status != 401:  # 401: the test deleted it itself
                raise


def _scenario_text(scenario: Any, here: Path) -> Any:
    if isinstance(scenario, dict):
        return scenario
    text = str(scenario)
    if "\n" in text or text.lstrip().startswith("{"):
        return text
    for path in (here / text, Path(text)):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise pytest.UsageError(f"@pytest.mark.voxsim(scenario=...): no file {text} (relative to {here} or the current directory)")


def _catalog(catalog: Any, here: Path) -> Optional[Dict[str, Any]]:
    if catalog is None or isinstance(catalog, dict):
        return catalog
    for path in (here / str(catalog), Path(str(catalog))):
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    raise pytest.UsageError(f"voxsim catalog: no file {catalog} (a JSON catalog document)")
