"""The CRM integration (crm_client.py) tested against voxsim, a sandbox per test (the `voxsim` fixture).

Run: `pytest examples/python` (the plugin starts a server), or `VOXSIM_URL=http://127.0.0.1:4010/api
pytest examples/python` against one that is running.
"""
from __future__ import annotations

from typing import Any, Dict, Tuple

import pytest

from crm_client import CallLog, CrmClient, PlatformError, PostCallReceiver
from voxsim import Sandbox

CALLER = "+14155550100"
CUSTOMER = "+15551230042"
# Every account's online messaging sender (docs/conversations.md, Messaging channel).
SENDER_ID = 1


def campaign_for(voxsim: Sandbox, webhook_url: str) -> Tuple[CrmClient, int]:
    """The CRM pointed at the sandbox: a number, an assistant with the webhook, a campaign with one lead."""
    crm = CrmClient(voxsim.base_url, voxsim.api_key or "")
    number = voxsim.phone_numbers.add(CALLER)
    assistant_id = crm.create_assistant("Follow-up", number["id"], webhook_url=webhook_url)
    campaign_id = crm.create_campaign("Spring follow-up", assistant_id)
    crm.add_lead(campaign_id, CUSTOMER, crm_id="C-42")
    return crm, campaign_id


def test_a_voicemail_is_retried_and_the_human_call_reaches_the_crm(voxsim: Sandbox) -> None:
    log = CallLog()
    voxsim.outcomes.for_number(CUSTOMER, ["voicemail", "human"])
    with PostCallReceiver(log.record) as receiver:
        crm, campaign_id = campaign_for(voxsim, receiver.url)
        crm.start_campaign(campaign_id)
        voxsim.clock.advance("2h")

        calls = sorted(crm.calls(), key=lambda c: c["id"])
        assert [(c["answered_by"], c["status"]) for c in calls] == [("machine", "ended"), ("human", "completed")]
        assert [lead["status"] for lead in crm.leads()] == ["completed"]
        # Only the completed call is sent to the webhook, once.
        assert log.by_contact == {"C-42": {"call_id": calls[1]["id"], "status": "completed", "duration": calls[1]["duration"]}}
        assert [r["attempt"] for r in receiver.received] == ["1"]


def test_a_receiver_that_fails_twice_gets_the_call_on_the_third_attempt(voxsim: Sandbox) -> None:
    log = CallLog()
    attempts = []

    def flaky_store(payload: Dict[str, Any]) -> None:
        attempts.append(payload["id"])
        if len(attempts) <= 2:
            raise RuntimeError("the CRM database is down")
        log.record(payload)

    voxsim.outcomes.for_number(CUSTOMER, ["human"])
    with PostCallReceiver(flaky_store) as receiver:
        crm, campaign_id = campaign_for(voxsim, receiver.url)
        crm.start_campaign(campaign_id)
        voxsim.clock.advance("2h")  # the call, and the retries 30 s and 60 s after each failure

        [delivery] = voxsim.webhooks.deliveries(kind="post_call")
        assert delivery["state"] == "delivered"
        assert [a["status"] for a in delivery["attempts"]] == [503, 503, 200]
        times = [_seconds(a["at"]) for a in delivery["attempts"]]
        assert [b - a for a, b in zip(times, times[1:])] == [30, 60]
        assert [r["attempt"] for r in receiver.received] == ["1", "2", "3"]
        assert log.by_contact["C-42"]["status"] == "completed"


def test_a_receiver_that_never_recovers_leaves_the_delivery_failed(voxsim: Sandbox) -> None:
    voxsim.outcomes.for_number(CUSTOMER, ["human"])
    voxsim.webhooks.fail(500, times=4)  # the platform side: every attempt fails without calling the receiver
    with PostCallReceiver(CallLog().record) as receiver:
        crm, campaign_id = campaign_for(voxsim, receiver.url)
        crm.start_campaign(campaign_id)
        voxsim.clock.advance("2h")

        [delivery] = voxsim.webhooks.deliveries()
        assert delivery["state"] == "failed"
        times = [_seconds(a["at"]) for a in delivery["attempts"]]
        assert [b - a for a, b in zip(times, times[1:])] == [30, 60, 120]
        assert receiver.received == []


def test_freeform_replies_are_refused_once_the_24_hour_window_has_expired(voxsim: Sandbox) -> None:
    crm = CrmClient(voxsim.base_url, voxsim.api_key or "")
    opened = voxsim.msgapp.inbound(SENDER_ID, CUSTOMER, "Is my order on its way?", name="Ann")
    assert opened["session_status"]["is_open"] is True
    assert crm.send_freeform(SENDER_ID, CUSTOMER, "Yes, it ships today.")["success"] is True

    voxsim.clock.advance("24h")
    with pytest.raises(PlatformError) as refused:
        crm.send_freeform(SENDER_ID, CUSTOMER, "Anything else?")
    assert refused.value.status == 403
    assert refused.value.body["error_code"] == "SESSION_EXPIRED"
    assert refused.value.body["session_status"]["requires_template"] is True
    assert crm.session_status(SENDER_ID, CUSTOMER)["session_status"]["is_open"] is False


@pytest.mark.voxsim(scenario="../../scenarios/voicemail-then-human.yaml")
def test_a_scenario_marker_starts_the_sandbox_in_its_state(voxsim: Sandbox) -> None:
    crm = CrmClient(voxsim.base_url, voxsim.api_key or "")
    assert [lead["phone_number"] for lead in crm.leads()] == ["+15551230003"]
    assert voxsim.outcomes.list()[0]["outcomes"] == ["voicemail", "human"]


def _seconds(iso: str) -> int:
    from voxsim import parse_time

    return int(parse_time(iso).timestamp())
