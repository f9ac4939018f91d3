"""The voxsim marker in this run: module, class and test markers merge, the closest winning per option."""
from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from voxsim import Sandbox, parse_time
from voxsim.plugin import MARKER_OPTIONS, SANDBOX_TTL

# The module's marker: every test below gets the live wire and a 2-hour ttl unless a closer marker says otherwise.
pytestmark = pytest.mark.voxsim(wire="live", ttl="2h")

# The live wire's catalog with its first voice renamed: a catalog only the marker can have given.
CATALOG = json.loads((Path(__file__).resolve().parents[2] / "fixtures" / "live-catalog.json").read_text(encoding="utf-8"))
CATALOG["voices"][0]["name"] = "Marker Voice"


def _ttl(box: Sandbox) -> timedelta:
    return parse_time(box.info["expires_at"]) - parse_time(box.info["created_at"])


@pytest.mark.voxsim(seed=7)
def test_a_module_wire_and_a_test_seed_both_apply(voxsim: Sandbox) -> None:
    assert (voxsim.info["seed"], voxsim.info["wire"], _ttl(voxsim)) == (7, "live", timedelta(hours=2))


def test_the_module_marker_alone_applies(voxsim: Sandbox) -> None:
    assert (voxsim.info["seed"], voxsim.info["wire"], _ttl(voxsim)) == (1, "live", timedelta(hours=2))


@pytest.mark.voxsim(seed=5, wire="spec")
class TestAClassMarker:
    def test_the_class_beats_the_module(self, voxsim: Sandbox) -> None:
        assert (voxsim.info["seed"], voxsim.info["wire"], _ttl(voxsim)) == (5, "spec", timedelta(hours=2))

    @pytest.mark.voxsim(seed=11, ttl="3h")
    def test_the_test_beats_the_class_and_the_module(self, voxsim: Sandbox) -> None:
        assert (voxsim.info["seed"], voxsim.info["wire"], _ttl(voxsim)) == (11, "spec", timedelta(hours=3))


@pytest.mark.voxsim(name="named by its marker", start="2025-01-01T09:00:00Z", ttl="90m")
def test_the_marker_takes_name_start_and_ttl(voxsim: Sandbox) -> None:
    assert voxsim.info["name"] == "named by its marker"
    assert voxsim.info["now"] == "2025-01-01T09:00:00Z"
    assert voxsim.clock.get()["now"].startswith("2025-01-01T09:00:00")
    assert _ttl(voxsim) == timedelta(minutes=90)


@pytest.mark.voxsim(catalog=CATALOG)
def test_the_marker_takes_a_catalog_document(voxsim: Sandbox) -> None:
    assert [v["name"] for v in voxsim.catalog.get()["voices"]][:2] == ["Marker Voice", CATALOG["voices"][1]["name"]]


def test_without_a_name_the_sandbox_is_named_after_the_test(voxsim: Sandbox, request: pytest.FixtureRequest) -> None:
    assert voxsim.info["name"] == request.node.nodeid
    assert SANDBOX_TTL == "1h"


def test_voxsim_and_voxsim_sandbox_are_one_sandbox(voxsim: Sandbox, voxsim_sandbox: Sandbox) -> None:
    assert voxsim is voxsim_sandbox
    assert voxsim_sandbox.get()["id"] == voxsim.id


def test_voxsim_sandbox_alone_is_a_sandbox_of_the_test(voxsim_sandbox: Sandbox, request: pytest.FixtureRequest) -> None:
    assert voxsim_sandbox.info["name"] == request.node.nodeid
    assert voxsim_sandbox.info["wire"] == "live"  # the module's marker


def test_the_marker_options_are_those_of_voxsim_sandbox() -> None:
    assert MARKER_OPTIONS == ("seed", "wire", "catalog", "name", "ttl", "start", "scenario")
