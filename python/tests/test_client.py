"""The control client against a real `voxsim serve` (the plugin's), each test in a sandbox of its own."""
from __future__ import annotations

import socket
from datetime import timedelta
from pathlib import Path

import pytest

from helpers import assistant_names, create_assistant
from voxsim import Sandbox, Voxsim, VoxsimConnectionError, VoxsimError

REPO = Path(__file__).resolve().parents[2]
CALLER = "+14155550100"


def test_clock_advance_moves_the_sandbox_clock_by_the_duration(voxsim: Sandbox) -> None:
    before = voxsim.clock.now()
    moved = voxsim.clock.advance("2h")
    assert voxsim.clock.now() - before == timedelta(hours=2)
    assert set(moved) == {"now", "now_ms", "ran"}
    assert voxsim.clock.get()["mode"] == "manual"


def test_clock_advance_to_a_time_and_run_until_idle(voxsim: Sandbox) -> None:
    target = voxsim.clock.now() + timedelta(days=1)
    voxsim.clock.advance(to=target)
    assert voxsim.clock.now() == target
    idle = voxsim.clock.run_until_idle()
    assert idle["pending"] == 0 and idle["now"] == voxsim.clock.get()["now"]


def test_phone_numbers_add_gives_the_account_a_number(voxsim: Sandbox) -> None:
    added = voxsim.phone_numbers.add(CALLER)
    assert (added["id"], added["phone_number"], added["type"]) == (1, CALLER, "sip")
    listed = voxsim.request("GET", "/user/phone-numbers/all")["data"]
    assert [n["phone_number"] for n in listed] == [CALLER]


def test_outcomes_for_number_appends_a_rule(voxsim: Sandbox) -> None:
    voxsim.outcomes.for_number("+15551230042", ["voicemail", "human"])
    voxsim.outcomes.for_campaign(1, ["no-answer"])
    assert voxsim.outcomes.list() == [
        {"match": {"phone_number": "+15551230042"}, "outcomes": ["voicemail", "human"]},
        {"match": {"campaign_id": 1}, "outcomes": ["no-answer"]},
    ]


def test_a_campaign_dials_the_scripted_outcomes_on_the_virtual_clock(voxsim: Sandbox) -> None:
    voxsim.phone_numbers.add(CALLER)
    create_assistant(voxsim, "Sales")
    voxsim.request("POST", "/user/campaign", {"name": "Spring", "assistant_id": 1, "retry_on_voicemail": True})
    voxsim.outcomes.for_number("+15551230042", ["voicemail", "human"])
    voxsim.request("POST", "/user/lead", {"campaign_id": 1, "phone_number": "+15551230042"})
    voxsim.request("POST", "/user/campaigns/update-status", {"campaign_id": 1, "action": "start"})
    voxsim.clock.advance("2h")
    calls = sorted(voxsim.request("GET", "/user/calls")["data"], key=lambda c: c["id"])
    assert [c["answered_by"] for c in calls] == ["machine", "human"]


def test_webhooks_fail_makes_the_next_delivery_fail_and_deliveries_show_it(voxsim: Sandbox) -> None:
    rule = voxsim.webhooks.fail(500, times=4)
    assert rule == {"id": rule["id"], "url": None, "kind": None, "times": 4, "with": 500}
    assert voxsim.webhooks.failures() == [rule]
    voxsim.phone_numbers.add(CALLER)
    create_assistant(voxsim, "Sales", webhook_url="http://127.0.0.1:9/hook", is_webhook_active=True)
    voxsim.request("POST", "/user/campaign", {"name": "Spring", "assistant_id": 1})
    voxsim.outcomes.for_number("+15551230042", ["human"])
    voxsim.request("POST", "/user/lead", {"campaign_id": 1, "phone_number": "+15551230042"})
    voxsim.request("POST", "/user/campaigns/update-status", {"campaign_id": 1, "action": "start"})
    voxsim.clock.advance("2h")
    [delivery] = voxsim.webhooks.deliveries(kind="post_call")
    assert (delivery["state"], [a["status"] for a in delivery["attempts"]]) == ("failed", [500, 500, 500, 500])
    assert voxsim.webhooks.deliveries(state="delivered") == []
    assert voxsim.webhooks.clear_failures() == {"ok": True}


def test_msgapp_inbound_opens_the_24_hour_window(voxsim: Sandbox) -> None:
    opened = voxsim.msgapp.inbound(1, "+15551230042", "Hi", name="Ann")
    assert opened["conversation_id"] == 1
    assert opened["session_status"]["is_open"] is True
    assert opened["session_status"]["minutes_remaining"] == 24 * 60


def test_replies_and_faults_are_set_and_listed(voxsim: Sandbox) -> None:
    voxsim.replies.set([{"when": "price", "reply": "It is 10 USD."}])
    assert [r["reply"] for r in voxsim.replies.list()] == ["It is 10 USD."]
    fault = voxsim.faults.add("GET", "/user/me")
    assert voxsim.faults.list() == [fault]
    with pytest.raises(VoxsimError) as failed:
        voxsim.request("GET", "/user/me")
    assert (failed.value.status, failed.value.message) == (500, "Server Error.")
    assert voxsim.faults.list() == []  # used up: the next request is answered
    assert voxsim.request("GET", "/user/me") is not None


def test_a_429_fault_answers_retry_after_once(voxsim: Sandbox) -> None:
    fault = voxsim.faults.add("GET", "/user/me", status=429, retry_after=30)
    assert (fault["status"], fault["retry_after"]) == (429, 30)
    with pytest.raises(VoxsimError) as failed:
        voxsim.request("GET", "/user/me")
    assert failed.value.status == 429
    assert failed.value.body == {"message": "Too Many Attempts.", "retry_after": 30}
    assert voxsim.request("GET", "/user/me") is not None


def test_accounts_create_adds_an_account_with_a_key_of_the_sandbox(voxsim: Sandbox) -> None:
    made = voxsim.accounts.create(name="Second")
    assert made["api_key"].startswith(f"{voxsim.api_key}_")
    assert [a["name"] for a in voxsim.accounts.list()][-1] == "Second"


def test_reset_empties_the_state_and_state_restores_a_snapshot(voxsim: Sandbox) -> None:
    voxsim.phone_numbers.add(CALLER)
    create_assistant(voxsim, "Kept")
    snapshot = voxsim.state()
    assert voxsim.reset(seed=3)["seed"] == 3
    assert assistant_names(voxsim) == []
    assert voxsim.restore(snapshot)["ok"] is True
    assert assistant_names(voxsim) == [(1, "Kept")]


def test_scenario_run_loads_a_scenario_file(voxsim: Sandbox) -> None:
    loaded = voxsim.scenario.run(REPO / "scenarios" / "voicemail-then-human.yaml")
    assert loaded["name"] == "voicemail then human on retry"
    assert loaded["refs"]["sales"]["id"] == 1
    assert assistant_names(voxsim) == [(1, "Sales")]


def test_a_refused_control_request_raises_voxsim_error_with_the_field_errors(voxsim: Sandbox) -> None:
    with pytest.raises(VoxsimError) as refused:
        voxsim.phone_numbers.add(CALLER, type="landline")
    error = refused.value
    assert error.status == 422
    assert list(error.errors) == ["type"]
    assert error.message == error.errors["type"][0]
    assert "POST" in str(error) and "/__sim/phone-numbers answered 422" in str(error)
    assert voxsim.request("GET", "/user/phone-numbers/all")["data"] == []  # a refused request changes nothing


def test_an_unknown_control_field_names_the_closest_one(voxsim: Sandbox) -> None:
    with pytest.raises(VoxsimError) as refused:
        voxsim.request("POST", "/__sim/reset", {"seeds": 5})
    assert refused.value.errors == {"seeds": ["The seeds field is not allowed; did you mean seed?"]}


def test_a_stopped_server_gives_one_clear_error_naming_the_url() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/api"
    with pytest.raises(VoxsimConnectionError) as unreachable:
        Voxsim(url).clock.get()
    assert str(unreachable.value).startswith(f"cannot reach the voxsim server at {url} (")
    assert isinstance(unreachable.value, VoxsimError) and unreachable.value.status is None


def test_a_deleted_sandbox_key_answers_401(voxsim_server: Voxsim) -> None:
    box = voxsim_server.sandbox(name="short-lived")
    assert box.get()["name"] == "short-lived"
    assert box.delete() == {"ok": True, "id": box.id}
    with pytest.raises(VoxsimError) as gone:
        box.clock.get()
    assert (gone.value.status, gone.value.message) == (401, "Unauthenticated.")


def test_two_sandboxes_do_not_share_their_clocks(voxsim: Sandbox, voxsim_server: Voxsim) -> None:
    other = voxsim_server.sandbox()
    try:
        start = other.clock.now()
        voxsim.clock.advance("3d")
        voxsim.phone_numbers.add(CALLER)
        create_assistant(voxsim, "Mine")
        assert other.clock.now() == start
        assert assistant_names(other) == []
    finally:
        other.delete()


@pytest.mark.voxsim(seed=7, wire="live")
def test_the_marker_sets_the_sandbox_seed_and_wire(voxsim: Sandbox) -> None:
    assert (voxsim.info["seed"], voxsim.info["wire"]) == (7, "live")


@pytest.mark.voxsim(scenario="../../scenarios/voicemail-then-human.yaml")
def test_the_marker_starts_the_sandbox_in_a_scenario(voxsim: Sandbox) -> None:
    assert voxsim.info["seed"] == 7  # the scenario's own seed wins
    assert assistant_names(voxsim) == [(1, "Sales")]
