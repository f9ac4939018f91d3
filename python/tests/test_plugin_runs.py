"""The plugin as a user's pytest run meets it: each test runs pytest on a small suite in a child process."""
from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from types import SimpleNamespace

import pytest

from inner_runs import REPO, built, run_pytest, write
from voxsim import Voxsim, VoxsimConnectionError
from voxsim.plugin import MARKER_OPTIONS, node_dir

needs_build = pytest.mark.skipif(not built(), reason="this clone's dist/ is not built (npm run build): the run starts a server of its own")


def _live_catalog(voice_name: str) -> str:
    catalog = json.loads((REPO / "fixtures" / "live-catalog.json").read_text(encoding="utf-8"))
    catalog["voices"][0]["name"] = voice_name
    return json.dumps(catalog)


def _sandbox_ids(server: Voxsim) -> set:
    return {s["id"] for s in server.sandboxes.list()}


# -- the marker's options ---------------------------------------------------------------------


def test_a_wrong_marker_key_is_one_error_naming_it_and_the_accepted_keys(voxsim_server: Voxsim, tmp_path: Path) -> None:
    write(tmp_path, {
        "test_wrong.py": """
            import pytest

            @pytest.mark.voxsim(seeds=7)
            def test_a_typo(voxsim):
                pass

            @pytest.mark.voxsim("live")
            def test_a_positional_option(voxsim_sandbox):
                pass
        """,
        "test_wrong_module.py": """
            import pytest

            pytestmark = pytest.mark.voxsim(colour="red", ttl="1h")

            def test_a_wrong_module_key(voxsim):
                pass

            @pytest.mark.voxsim(wires="live", seed=2)
            def test_wrong_keys_at_two_levels(voxsim):
                pass
        """,
    })
    before = _sandbox_ids(voxsim_server)
    done = run_pytest(["test_wrong.py", "test_wrong_module.py"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url})
    out = done.stdout
    takes = "; it takes seed, wire, catalog, name, ttl, start, scenario (the options of Voxsim.sandbox())\n"
    assert done.returncode == 1, out
    assert re.search(r"^4 errors in ", out, re.M), out
    errors = re.findall(r"^_+ ERROR at setup of (\w+) _+\n(.*\n)", out, re.M)
    assert errors == [
        ("test_a_typo", "@pytest.mark.voxsim: unknown option 'seeds' (did you mean seed?)" + takes),
        ("test_a_positional_option", "@pytest.mark.voxsim: positional argument 'live' (options are given by name: seed=7)" + takes),
        ("test_a_wrong_module_key", "@pytest.mark.voxsim: unknown option 'colour'" + takes),
        # Every wrong key of every level in one error, the closest first.
        ("test_wrong_keys_at_two_levels", "@pytest.mark.voxsim: unknown options 'wires' (did you mean wire?), 'colour'" + takes),
    ], out
    # One line each: no traceback through the plugin, no fixture source.
    assert "Traceback" not in out and "def voxsim_sandbox" not in out and "plugin.py" not in out, out
    assert _sandbox_ids(voxsim_server) == before  # no sandbox was made for them


def test_the_error_lists_the_options_of_voxsim_sandbox() -> None:
    import inspect

    assert list(MARKER_OPTIONS) == [p for p in inspect.signature(Voxsim.sandbox).parameters if p != "self"]


# -- the test file's directory: node.path, with -p no:legacypath ------------------------------


def test_scenario_and_catalog_files_are_found_beside_the_test_with_legacypath_off(voxsim_server: Voxsim, tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    write(suite, {
        "catalog.json": _live_catalog("Beside The Test"),
        "test_paths.py": """
            import pytest

            @pytest.mark.voxsim(scenario="voicemail-then-human.yaml")
            def test_a_scenario_file_beside_the_test(voxsim):
                assert [a["name"] for a in voxsim.request("GET", "/user/assistants/get")["data"]] == ["Sales"]

            @pytest.mark.voxsim(catalog="catalog.json", wire="live")
            def test_a_catalog_file_beside_the_test(voxsim):
                assert voxsim.catalog.get()["voices"][0]["name"] == "Beside The Test"
        """,
    })
    shutil.copy(REPO / "scenarios" / "voicemail-then-human.yaml", suite / "voicemail-then-human.yaml")
    # From tmp_path, not suite/: the files are found beside the test, not in the current directory.
    done = run_pytest(["-p", "no:legacypath", "suite"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^2 passed in ", done.stdout, re.M), done.stdout


def test_the_test_file_directory_falls_back_to_fspath_on_old_pytest(tmp_path: Path) -> None:
    # pytest < 7 has no node.path, only node.fspath (a py.path.local).
    assert node_dir(SimpleNamespace(fspath=str(tmp_path / "tests" / "test_x.py"))) == tmp_path / "tests"
    # pytest >= 7: node.path, never fspath (which -p no:legacypath removes).
    assert node_dir(SimpleNamespace(path=tmp_path / "a" / "test_y.py")) == tmp_path / "a"


# -- the run's settings: --voxsim-seed, ini keys -----------------------------------------------

SEED_SUITE = {
    "test_seed.py": """
        import os
        import pytest

        def test_the_run_seed(voxsim):
            assert voxsim.info["seed"] == int(os.environ["EXPECTED_SEED"])

        @pytest.mark.voxsim(seed=7)
        def test_a_marker_beats_the_run_seed(voxsim):
            assert voxsim.info["seed"] == 7
    """,
}


@pytest.mark.parametrize(
    "args, expected",
    [
        (["--voxsim-seed", "9"], 9),
        (["-o", "voxsim_seed=4"], 4),
        (["-o", "voxsim_seed=4", "--voxsim-seed", "9"], 9),  # the command line beats the ini file
    ],
)
def test_voxsim_seed_sets_every_sandbox_seed_under_the_markers(voxsim_server: Voxsim, tmp_path: Path, args: list, expected: int) -> None:
    write(tmp_path, SEED_SUITE)
    done = run_pytest([*args, "test_seed.py"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url, "EXPECTED_SEED": str(expected)})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^2 passed in ", done.stdout, re.M), done.stdout


def test_a_voxsim_seed_that_is_not_a_number_is_a_usage_error(voxsim_server: Voxsim, tmp_path: Path) -> None:
    write(tmp_path, SEED_SUITE)
    done = run_pytest(["--voxsim-seed", "nine", "test_seed.py"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url})
    assert done.returncode == 4, done.stdout  # pytest's usage error: no test ran
    assert "ERROR: --voxsim-seed / voxsim_seed must be an integer, not 'nine'" in done.stdout


def test_voxsim_catalog_on_the_command_line_is_relative_to_the_current_directory(voxsim_server: Voxsim, tmp_path: Path) -> None:
    write(tmp_path, {
        "conf/catalog.json": _live_catalog("From The Command Line"),
        "tests/test_catalog.py": """
            def test_the_catalog(voxsim):
                assert voxsim.catalog.get()["voices"][0]["name"] == "From The Command Line"
        """,
    })
    done = run_pytest(["--voxsim-catalog", "conf/catalog.json", "--voxsim-wire", "live", "tests"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^1 passed in ", done.stdout, re.M), done.stdout


@needs_build
def test_ini_paths_are_relative_to_the_ini_file(voxsim_server: Voxsim, tmp_path: Path) -> None:
    project = tmp_path / "project"
    write(project, {
        "pytest.ini": f"""
            [pytest]
            voxsim_project = {os.path.relpath(REPO, project)}
            voxsim_catalog = conf/catalog.json
            voxsim_wire = live
        """,
        "conf/catalog.json": _live_catalog("From The Ini File"),
        "tests/test_ini.py": """
            import os

            def test_the_ini_catalog_on_a_server_started_from_the_ini_project(voxsim, voxsim_server):
                assert voxsim.catalog.get()["voices"][0]["name"] == "From The Ini File"
                assert voxsim_server.base_url != os.environ["OUTER_URL"]  # started for this run
        """,
    })
    elsewhere = tmp_path / "some" / "where" / "else"
    elsewhere.mkdir(parents=True)
    # Run from another directory (at another depth, so that the project's ../.. names another
    # directory from there): neither path is relative to it, nor to the test file.
    done = run_pytest([str(project / "tests")], cwd=elsewhere, env={"OUTER_URL": voxsim_server.base_url})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^1 passed in ", done.stdout, re.M), done.stdout


# -- the request journal in a failing test's report -------------------------------------------


def test_a_failing_test_report_shows_its_sandbox_request_journal(voxsim_server: Voxsim, tmp_path: Path) -> None:
    write(tmp_path, {
        "test_journal.py": """
            from voxsim import VoxsimError

            def test_fails(voxsim):
                voxsim.phone_numbers.add("+14155550100")
                try:
                    voxsim.request("GET", "/user/nowhere")
                except VoxsimError:
                    pass
                assert False, "the code under test went wrong"

            def test_passes(voxsim):
                voxsim.request("GET", "/user/me")
        """,
    })
    # -rA: a passing test's report sections are printed too, so a journal there would show.
    done = run_pytest(["-rA", "test_journal.py"], cwd=tmp_path, rootdir=tmp_path, env={"VOXSIM_URL": voxsim_server.base_url})
    out = done.stdout
    assert done.returncode == 1, out
    assert re.search(r"^1 failed, 1 passed in ", out, re.M), out
    sections = re.findall(r"-+ voxsim requests \(sandbox (sbx_\w+)\) -+\n((?:.+\n)+?)(?=[-=_]{3,} )", out)
    assert len(sections) == 1, out
    lines = [re.sub(r"^\S+ ", "", line) for line in sections[0][1].splitlines()]  # without the time
    assert lines == ["POST /__sim/phone-numbers 201 account 1", "GET /user/nowhere 404 account 1"], out
    assert "/user/me" not in out  # the passing test's journal is not printed


# -- pytest-xdist: one server for the workers --------------------------------------------------

XDIST_SUITE = {
    "test_workers.py": """
        import os
        from pathlib import Path

        import pytest

        @pytest.mark.parametrize("n", range(8))
        def test_report_the_server(n, voxsim, voxsim_server):
            line = f"{os.environ['PYTEST_XDIST_WORKER']} {voxsim_server.base_url}\\n"
            with open(Path(os.environ["REPORT_DIR"]) / f"{n}.txt", "w") as f:
                f.write(line)
            assert voxsim.clock.get()["mode"] == "manual"
    """,
}


@needs_build
def test_pytest_n_4_without_voxsim_url_runs_one_server_for_the_four_workers(voxsim_server: Voxsim, tmp_path: Path) -> None:
    pytest.importorskip("xdist", reason="pytest-xdist is not installed (the simulated workers below still run)")
    write(tmp_path, XDIST_SUITE)
    reports = tmp_path / "reports"
    reports.mkdir()
    done = run_pytest(["-n", "4", "--voxsim-project", str(REPO), "test_workers.py"], cwd=tmp_path, rootdir=tmp_path, env={"REPORT_DIR": str(reports)})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^8 passed in ", done.stdout, re.M), done.stdout
    seen = [p.read_text().split() for p in sorted(reports.iterdir())]
    assert len(seen) == 8
    assert {worker for worker, _ in seen} == {"gw0", "gw1", "gw2", "gw3"}
    [url] = {url for _, url in seen}  # one server for all four
    assert url != voxsim_server.base_url
    with pytest.raises(VoxsimConnectionError):  # stopped with the run
        Voxsim(url, timeout=5).health()


def test_a_worker_uses_the_server_the_controller_gave_it(voxsim_server: Voxsim, tmp_path: Path) -> None:
    # A worker as pytest-xdist makes it: config.workerinput, set before the plugins configure.
    write(tmp_path, {
        "conftest.py": """
            import os
            import pytest

            @pytest.hookimpl(tryfirst=True)
            def pytest_configure(config):
                config.workerinput = {"workerid": "gw0", **({"voxsim_url": os.environ["SHARED_URL"]} if os.environ.get("SHARED_URL") else {}),
                                      **({"voxsim_error": os.environ["SHARED_ERROR"]} if os.environ.get("SHARED_ERROR") else {})}
        """,
        "test_worker.py": """
            import os

            def test_the_shared_server(voxsim, voxsim_server):
                assert voxsim_server.base_url == os.environ["SHARED_URL"]
                assert voxsim.clock.get()["mode"] == "manual"
        """,
    })
    # No URL and no project: a worker that ignored its workerinput would try `npx voxsim` here and fail.
    done = run_pytest(["test_worker.py"], cwd=tmp_path, rootdir=tmp_path, env={"SHARED_URL": voxsim_server.base_url})
    assert done.returncode == 0, done.stdout
    assert re.search(r"^1 passed in ", done.stdout, re.M), done.stdout
    # The controller could not start the server: the tests that need it fail with its error.
    failed = run_pytest(["test_worker.py"], cwd=tmp_path, rootdir=tmp_path, env={"SHARED_ERROR": "voxsim serve did not start (a test of the message)"})
    assert failed.returncode == 1, failed.stdout
    assert "VoxsimError: voxsim serve did not start (a test of the message)" in failed.stdout
    assert re.search(r"^1 error in ", failed.stdout, re.M), failed.stdout


class _ControllerConfig:
    """The part of pytest.Config the xdist controller reads: the run's options and its cleanups."""

    inipath = None

    def __init__(self, **options: str) -> None:
        self.options = options
        self.cleanups: list = []

    def getoption(self, name: str) -> object:
        return self.options.get(name)

    def getini(self, name: str) -> str:
        return ""

    def add_cleanup(self, cleanup: object) -> None:
        self.cleanups.append(cleanup)


@needs_build
def test_the_xdist_controller_starts_one_server_for_its_workers_and_stops_it(monkeypatch: pytest.MonkeyPatch) -> None:
    from voxsim.plugin import XdistController

    monkeypatch.delenv("VOXSIM_URL", raising=False)
    config = _ControllerConfig(voxsim_project=str(REPO))
    controller = XdistController(config)  # type: ignore[arg-type]
    nodes = [SimpleNamespace(workerinput={"workerid": f"gw{n}"}) for n in range(4)]
    try:
        for node in nodes:
            controller.pytest_configure_node(node)
        urls = {node.workerinput["voxsim_url"] for node in nodes}
        assert len(urls) == 1 and all("voxsim_error" not in node.workerinput for node in nodes)
        [url] = urls
        assert Voxsim(url).health()["ok"] is True
    finally:
        for cleanup in config.cleanups:
            cleanup()
    with pytest.raises(VoxsimConnectionError):
        Voxsim(url, timeout=5).health()


def test_the_xdist_controller_starts_nothing_when_a_url_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    from voxsim.plugin import XdistController

    monkeypatch.setenv("VOXSIM_URL", "http://127.0.0.1:9/api")
    controller = XdistController(_ControllerConfig(voxsim_project=str(REPO)))  # type: ignore[arg-type]
    node = SimpleNamespace(workerinput={"workerid": "gw0"})
    controller.pytest_configure_node(node)
    assert node.workerinput == {"workerid": "gw0"} and controller.server is None  # the workers read $VOXSIM_URL themselves


def test_the_xdist_controller_gives_its_workers_the_error_of_a_server_that_did_not_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from voxsim import server as server_module
    from voxsim.plugin import XdistController

    starts: list = []

    def failing_start(project: object) -> None:
        starts.append(project)
        raise server_module.VoxsimError("voxsim serve did not start (node: not found)")

    monkeypatch.delenv("VOXSIM_URL", raising=False)
    monkeypatch.setattr("voxsim.plugin.start_server", failing_start)
    controller = XdistController(_ControllerConfig(voxsim_project=str(tmp_path)))  # type: ignore[arg-type]
    nodes = [SimpleNamespace(workerinput={}) for _ in range(3)]
    for node in nodes:
        controller.pytest_configure_node(node)
    assert starts == [str(tmp_path)]  # tried once, not once per worker
    assert [node.workerinput for node in nodes] == [{"voxsim_error": "voxsim serve did not start (node: not found)"}] * 3
