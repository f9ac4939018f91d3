"""The order-lookup endpoint (order_endpoint.py) called by voxsim as a mid-call tool, a sandbox per test.

Run: `pytest examples/python` (the plugin starts a server), or against one that is running
with `VOXSIM_URL=http://127.0.0.1:4010/api pytest examples/python`. The server calls the
endpoint, so both must run on the same machine.
"""
from __future__ import annotations

from typing import Any, Dict, Iterator

import pytest

from order_endpoint import OrderEndpoint
from voxsim import Sandbox

CALLER = "+14155550100"
CUSTOMER = "+15551230042"


@pytest.fixture
def endpoint() -> Iterator[OrderEndpoint]:
    with OrderEndpoint() as running:
        yield running


def assistant_with_tool(voxsim: Sandbox, endpoint: OrderEndpoint) -> Dict[str, Any]:
    """The lookup tool and an assistant named Bar Bot that has it."""
    tool = voxsim.request("POST", "/user/tools", {
        "name": "lookup_order",
        "description": "Looks an order up by its number.",
        "endpoint": endpoint.url + "/orders/{order_id}?src={{assistant_name}}",
        "method": "GET",
        "timeout": 5,
        "headers": [{"name": "X-Api-Key", "value": "demo"}, {"name": "X-Assistant", "value": "{{assistant_name}}"}],
        "schema": [{"name": "order_id", "type": "string", "description": "The order number"}],
    })["data"]
    number = voxsim.phone_numbers.add(CALLER)
    assistant = voxsim.request("POST", "/user/assistant", {
        "name": "Bar Bot", "voice_id": 1, "language_id": 1, "type": "outbound", "mode": "pipeline",
        "timezone": "Europe/Berlin", "initial_message": "Hello!", "system_prompt": "You help with orders.",
        "llm_model_id": 1, "phone_number_id": number["id"], "tool_ids": [tool["id"]],
    })["data"]
    return {"tool": tool, "assistant": voxsim.request("GET", f"/user/assistant/{assistant['id']}")["data"]}


def test_a_call_looks_the_order_up_ten_seconds_in(voxsim: Sandbox, endpoint: OrderEndpoint) -> None:
    made = assistant_with_tool(voxsim, endpoint)
    voxsim.outcomes.for_number(CUSTOMER, [
        {"kind": "human", "ring_seconds": 4, "talk_seconds": 60, "tool_calls": [{"tool": "lookup_order", "arguments": {"order_id": "BST-1"}, "at": 10}]},
    ])
    voxsim.request("POST", "/user/make_call", {"assistant_id": made["assistant"]["id"], "phone_number": CUSTOMER})
    voxsim.clock.advance("2m")

    assert endpoint.requests == [{"method": "GET", "path": "/orders/BST-1?src=Bar%20Bot", "assistant": "Bar Bot"}]
    [lookup] = voxsim.tool_calls.list()
    assert lookup["call_id"] == 1 and lookup["response"]["status"] == 200


def test_a_chat_answers_with_the_order_the_endpoint_found(voxsim: Sandbox, endpoint: OrderEndpoint) -> None:
    made = assistant_with_tool(voxsim, endpoint)
    voxsim.replies.set([{"when": "order", "reply": "Let me check.", "function_calls": [{"name": "lookup_order", "arguments": {"order_id": "BST-2"}}]}])
    chat = voxsim.request("POST", "/conversations", {"assistant_id": made["assistant"]["uuid"], "type": "test"})
    reply = voxsim.request("POST", f"/conversations/{chat['conversation_id']}/messages", {"message": "Where is my order?"})
    assert reply["function_calls"][0]["result"] == {"order_id": "BST-2", "status": "packing", "src": "Bar Bot"}


def test_the_test_route_shows_what_the_endpoint_answers(voxsim: Sandbox, endpoint: OrderEndpoint) -> None:
    made = assistant_with_tool(voxsim, endpoint)
    tested = voxsim.tools.test(made["tool"]["id"])
    assert tested["request"]["url"] == endpoint.url + "/orders/test?src="
    assert tested["response"]["status"] == 404  # no order "test": the endpoint's own answer
