"""The pytest plugin (entry point ``pytest11``: ``voxsim.plugin``): a server per run, a sandbox per test.

Fixtures:

- ``voxsim_server`` (session): a ``Voxsim`` client of the server. The server at ``--voxsim-url``
  / ``$VOXSIM_URL`` when given (nothing is started), else a ``voxsim serve`` started from
  ``--voxsim-project`` / ini ``voxsim_project`` / ``$VOXSIM_PROJECT`` (or ``npx voxsim``) on a
  free port, stopped at the end of the run. Under pytest-xdist the controller starts that one
  server and its workers share it.
- ``voxsim_sandbox`` (function), also named ``voxsim``: a fresh sandbox of that server (a
  ``Sandbox`` client bound to its key), deleted after the test. Tests in parallel processes
  never see each other's state. When the test fails, the sandbox's request journal is a section
  of its report.

``@pytest.mark.voxsim(seed=7, wire="live", scenario="file.yaml", ...)`` takes every option of
``Voxsim.sandbox()``; the markers of the module (``pytestmark``), the class and the test merge,
the closest one winning per option, as pytest's own markers do. ``--voxsim-seed``,
``--voxsim-wire`` and ``--voxsim-catalog`` (or the ini keys of the same names) set every test's.
"""
from __future__ import annotations

import difflib
import inspect
import json
import os
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional

import pytest

from .client import Sandbox, Voxsim
from .errors import VoxsimError
from .server import VoxsimServer, start_server

# Sandboxes of a run that was killed before its teardown are removed after this much idle time.
SANDBOX_TTL = "1h"

# The marker's options are the parameters of Voxsim.sandbox(), so that the two never differ.
MARKER_OPTIONS = tuple(name for name in inspect.signature(Voxsim.sandbox).parameters if name != "self")

# The keys of the URL (or the start error) the xdist controller gives its workers (workerinput).
_WORKER_URL = "voxsim_url"
_WORKER_ERROR = "voxsim_error"

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
        f"voxsim({', '.join(f'{name}=None' for name in MARKER_OPTIONS)}): how this test's voxsim sandbox starts, "
        "the options of Voxsim.sandbox() (scenario and catalog: a file relative to the test file, or the document); "
        "module, class and test markers merge, the closest winning",
    )
    seed = _setting(config, "seed")
    if seed is not None:
        try:
            int(seed)
        except ValueError:
            raise pytest.UsageError(f"--voxsim-seed / voxsim_seed must be an integer, not {seed!r}") from None
    # The xdist controller runs no test: it starts the run's one server for its workers.
    if config.pluginmanager.hasplugin("xdist") and not hasattr(config, "workerinput"):
        config.pluginmanager.register(XdistController(config), "voxsim-xdist-controller")


def _setting(config: pytest.Config, name: str, env: Optional[str] = None) -> Optional[str]:
    value = config.getoption(f"voxsim_{name}")
    if value is not None and name == "catalog":
        value = str(_invocation_dir(config) / value)  # an option's path is relative to where pytest was started
    if value is None:
        value = config.getini(f"voxsim_{name}") or None
        inipath = getattr(config, "inipath", None)  # pytest >= 6.1
        if value is not None and name in ("project", "catalog") and inipath is not None:
            value = str((Path(inipath).parent / value).resolve())  # ini paths are relative to the ini file
    if value is None and env is not None:
        value = os.environ.get(env) or None
    return value


def _invocation_dir(config: pytest.Config) -> Path:
    params = getattr(config, "invocation_params", None)  # pytest >= 5.1
    return Path(params.dir) if params is not None else Path.cwd()


class XdistController:
    """Under pytest-xdist, the controller's part: one ``voxsim serve`` for every worker.

    Without a URL setting (``--voxsim-url``, ini, ``$VOXSIM_URL``) the first worker's
    configuration starts the server and each worker gets its URL in ``workerinput``, so that
    ``pytest -n 4`` runs one server, not four; it stops with the run. A server that cannot
    start is its error in ``workerinput``: the tests that use it fail with it.
    """

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.server: Optional[VoxsimServer] = None
        self.error: Optional[str] = None
        config.add_cleanup(self.stop)

    def pytest_configure_node(self, node: Any) -> None:
        if _setting(self.config, "url", "VOXSIM_URL"):
            return  # the workers read the same setting
        if self.server is None and self.error is None:
            try:
                self.server = start_server(_setting(self.config, "project", "VOXSIM_PROJECT"))
            except (VoxsimError, OSError) as error:
                self.error = str(error)
        if self.server is not None:
            node.workerinput[_WORKER_URL] = self.server.base_url
        else:
            node.workerinput[_WORKER_ERROR] = self.error

    def stop(self) -> None:
        if self.server is not None:
            self.server.stop()


@pytest.fixture(scope="session")
def voxsim_server(pytestconfig: pytest.Config) -> Iterator[Voxsim]:
    """The voxsim server of this run: ``$VOXSIM_URL``'s, the xdist controller's, or one started for the run and stopped after it."""
    url = _setting(pytestconfig, "url", "VOXSIM_URL")
    token = _setting(pytestconfig, "admin_token", "VOXSIM_ADMIN_TOKEN")
    workerinput: Dict[str, Any] = getattr(pytestconfig, "workerinput", None) or {}
    if not url and workerinput.get(_WORKER_ERROR):
        raise VoxsimError(str(workerinput[_WORKER_ERROR]))
    if not url and workerinput.get(_WORKER_URL):
        url, token = str(workerinput[_WORKER_URL]), None  # the controller's server: it stops it
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
def voxsim_sandbox(request: pytest.FixtureRequest, voxsim_server: Voxsim) -> Iterator[Sandbox]:
    """A sandbox of its own for this test: ``voxsim_sandbox.base_url`` and ``.api_key`` for the code under test."""
    node = request.node
    options = sandbox_options(request.config, node)
    here = node_dir(node)
    if options.get("catalog") is not None:
        options["catalog"] = _catalog(options["catalog"], here)
    if options.get("scenario") is not None:
        options["scenario"] = _scenario_text(options["scenario"], here)
    if options.get("seed") is not None and isinstance(options["seed"], str):
        options["seed"] = int(options["seed"])  # from the command line or the ini file (checked at configure)
    box = voxsim_server.sandbox(**options)
    _remember(node, box)
    try:
        yield box
    finally:
        _remember(node, None)
        try:
            box.delete()
        except VoxsimError as error:
            if error.status != 401:  # 401: the test deleted it itself
                raise


@pytest.fixture
def voxsim(voxsim_sandbox: Sandbox) -> Sandbox:
    """The test's sandbox (``voxsim_sandbox`` under its short name; both are the same sandbox)."""
    return voxsim_sandbox


def sandbox_options(config: pytest.Config, node: Any) -> Dict[str, Any]:
    """The keyword arguments of ``Voxsim.sandbox()`` for the test ``node``.

    Lowest first: the plugin's defaults (the test's id as name, ``SANDBOX_TTL``), the run's
    settings (``--voxsim-seed``, ``--voxsim-wire``, ``--voxsim-catalog`` and their ini keys),
    then the ``voxsim`` markers from the farthest (module) to the closest (the test): per
    option, the closest that gives it wins.
    """
    options: Dict[str, Any] = {"name": node.nodeid[-255:], "ttl": SANDBOX_TTL}
    for name in ("seed", "wire", "catalog"):
        value = _setting(config, name)
        if value is not None:
            options[name] = value
    # iter_markers yields the closest first (the test, its class, its module).
    markers = list(node.iter_markers("voxsim"))
    _check_markers(markers)
    for marker in reversed(markers):
        options.update(marker.kwargs)
    return options


def _check_markers(markers: List[Any]) -> None:
    """One error for every wrong key and positional argument of the test's markers, closest first."""
    unknown: List[str] = []
    for marker in markers:
        unknown += [key for key in marker.kwargs if key not in MARKER_OPTIONS and key not in unknown]
    args = [arg for marker in markers for arg in marker.args]
    problems = []
    if unknown:
        problems.append(f"unknown option{'s' if len(unknown) > 1 else ''} " + ", ".join(f"{key!r}{_did_you_mean(key)}" for key in unknown))
    if args:
        problems.append(f"positional argument{'s' if len(args) > 1 else ''} " + ", ".join(repr(arg) for arg in args) + " (options are given by name: seed=7)")
    if problems:
        pytest.fail(f"@pytest.mark.voxsim: {'; '.join(problems)}; it takes {', '.join(MARKER_OPTIONS)} (the options of Voxsim.sandbox())", pytrace=False)


def _did_you_mean(key: str) -> str:
    close = difflib.get_close_matches(key, MARKER_OPTIONS, n=1)
    return f" (did you mean {close[0]}?)" if close else ""


def node_dir(node: Any) -> Path:
    """The directory of the test's file: ``node.path`` (pytest >= 7, also with ``-p no:legacypath``), else ``node.fspath``."""
    path = getattr(node, "path", None)
    if path is None:
        path = str(node.fspath)  # pytest < 7
    return Path(path).parent


# -- the request journal in a failing test's report -------------------------------------------

_SANDBOX_ATTR = "_voxsim_sandbox"


def _remember(node: Any, box: Optional[Sandbox]) -> None:
    setattr(node, _SANDBOX_ATTR, box)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: Any) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    box: Optional[Sandbox] = getattr(item, _SANDBOX_ATTR, None)
    # The call's report is made before the fixture's teardown deletes the sandbox.
    if box is None or not report.failed or report.when != "call":
        return
    report.sections.append((f"voxsim requests (sandbox {box.id})", journal_text(box)))


def journal_text(box: Sandbox) -> str:
    """The sandbox's request journal (``GET /__sim/requests``) as lines: ``at method path status``."""
    try:
        answer = box.request("GET", "/__sim/requests")
    except VoxsimError as error:
        return f"(the journal could not be read: {error})"
    lines: List[str] = []
    if answer.get("evicted"):
        lines.append(f"({answer['evicted']} older requests were evicted)")
    for entry in answer.get("data", []):
        account = entry.get("account_id")
        lines.append(f"{entry.get('at')} {entry.get('method')} {entry.get('path')} {entry.get('status')}" + ("" if account is None else f" account {account}"))
    return "\n".join(lines) if lines else "(no request)"


def _scenario_text(scenario: Any, here: Path) -> Any:
    if isinstance(scenario, dict):
        return scenario
    text = str(scenario)
    if "\n" in text or text.lstrip().startswith("{"):
        return text
    for path in (here / text, Path(text)):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    pytest.fail(f"@pytest.mark.voxsim(scenario=...): no file {text} (relative to {here} or the current directory)", pytrace=False)


def _catalog(catalog: Any, here: Path) -> Optional[Dict[str, Any]]:
    if catalog is None or isinstance(catalog, dict):
        return catalog
    for path in (here / str(catalog), Path(str(catalog))):
        if path.is_file():
            return json.loads(path.read_text(encoding="utf-8"))
    pytest.fail(f"voxsim catalog: no file {catalog} (a JSON catalog document, relative to {here} or the current directory)", pytrace=False)
