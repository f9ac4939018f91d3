"""The signed read-receipts webhook (live-platform H.4) against a real receiver that verifies the signature."""
from __future__ import annotations

import hashlib
import hmac
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Iterator, List, Tuple

import pytest

from voxsim import Sandbox, VoxsimError


class Receiver:
    """A read-receipts endpoint as an integrator writes it: verify X-Signature-256, then record the status."""

    def __init__(self) -> None:
        self.secret = ""
        self.received: List[Tuple[bool, dict]] = []
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                raw = self.rfile.read(int(self.headers["Content-Length"]))
                expected = "sha256=" + hmac.new(receiver.secret.encode(), raw, hashlib.sha256).hexdigest()
                verified = hmac.compare_digest(expected, self.headers.get("X-Signature-256", ""))
                receiver.received.append((verified, json.loads(raw)))
                self.send_response(200 if verified else 401)
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/receipts"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    r = Receiver()
    yield r
    r.server.shutdown()


def test_a_receiver_verifies_sent_delivered_and_read(voxsim: Sandbox, receiver: Receiver) -> None:
    sender = voxsim.msgapp.patch_sender(1, read_receipts_webhook_url=receiver.url)
    receiver.secret = sender["read_receipts_signing_secret"]
    voxsim.msgapp.inbound(1, "+14155550123", "Hi")
    sent = voxsim.request("POST", "/user/msgapp/send-freeform", {"sender_id": 1, "recipient_phone": "+14155550123", "message": "Table ready"})
    voxsim.clock.advance("1m")
    assert [(ok, body["status"], body["whatsapp_message_id"]) for ok, body in receiver.received] == [
        (True, "sent", sent["whatsapp_message_id"]),
        (True, "delivered", sent["whatsapp_message_id"]),
        (True, "read", sent["whatsapp_message_id"]),
    ]
    history = [h["status"] for h in voxsim.msgapp.messages(sender_id=1)[-1]["status_history"]]
    assert history == ["queued", "sent", "delivered", "read"]


def test_a_scripted_failure_and_a_rotated_secret(voxsim: Sandbox, receiver: Receiver) -> None:
    old = voxsim.msgapp.patch_sender(1, read_receipts_webhook_url=receiver.url)["read_receipts_signing_secret"]
    receiver.secret = voxsim.msgapp.patch_sender(1, regenerate_signing_secret=True)["read_receipts_signing_secret"]
    assert receiver.secret != old
    voxsim.msgapp.set_outcomes([{"match": {"recipient_phone": "+14155550123"}, "outcomes": ["failed"]}])
    voxsim.request("POST", "/user/msgapp/send", {"sender_id": 1, "template_id": 2, "recipient_phone": "+14155550123"})
    voxsim.clock.advance("1m")
    assert [(ok, b["status"], b["error_code"]) for ok, b in receiver.received] == [(True, "sent", None), (True, "failed", 63016)]
    receipts = voxsim.webhooks.deliveries(kind="read_receipt")
    assert [d["state"] for d in receipts] == ["delivered", "delivered"]
    resent = voxsim.webhooks.resend(receipts[0]["id"])
    assert resent["resent_from"] == receipts[0]["id"]
    voxsim.clock.advance("1s")
    assert receiver.received[-1] == receiver.received[0]


def test_own_sender_template_and_limit(voxsim: Sandbox) -> None:
    sender = voxsim.msgapp.create_sender("Bistro Bot", messaging_limit=1)
    template = voxsim.msgapp.create_template(sender["id"], "table_ready", "Hi {{1}}, your table is ready.", status="pending")
    assert template["variables"] == ["1"] and template["status"] == "pending"
    assert voxsim.msgapp.patch_template(template["id"], "approved")["status"] == "approved"
    send = {"sender_id": sender["id"], "template_id": template["id"], "variables": {"1": "Ann"}}
    voxsim.request("POST", "/user/msgapp/send", {**send, "recipient_phone": "+14155550123"})
    with pytest.raises(VoxsimError) as refused:
        voxsim.request("POST", "/user/msgapp/send", {**send, "recipient_phone": "+14155550124"})
    assert refused.value.status == 422
    assert refused.value.body == {"success": False, "error": "Messaging limit reached: 1 unique recipients in 24 hours.", "error_code": "MESSAGING_LIMIT_UNAVAILABLE"}
