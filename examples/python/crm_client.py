"""A small CRM integration with the Voice and Chat Assistant Platform, as an integrator writes one.

It knows nothing of voxsim: it is given the platform's base URL and an API key (in production
the platform's; in tests the sandbox's, ``voxsim.base_url`` and ``voxsim.api_key``). It sets up
an assistant and a campaign, adds the CRM's contacts as leads, starts the campaign, and
receives the post-call webhook to record each contact's outcome. Standard library only.
"""
from __future__ import annotations

import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Dict, List, Optional


class PlatformError(Exception):
    """The platform refused a request: ``status`` and the answer's ``body``."""

    def __init__(self, status: int, body: Any) -> None:
        self.status = status
        self.body = body
        super().__init__(f"the platform answered {status}: {body}")


class CrmClient:
    """The CRM's client of the platform API."""

    def __init__(self, base_url: str, api_key: str, timeout: float = 10.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.timeout = timeout

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None, query: Optional[Dict[str, Any]] = None) -> Any:
        url = self.base_url + path + ("?" + urllib.parse.urlencode(query) if query else "")
        data = None if body is None else json.dumps(body).encode()
        headers = {"authorization": f"Bearer {self.api_key}", "accept": "application/json", "content-type": "application/json"}
        req = urllib.request.Request(url, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return json.loads(res.read() or b"null")
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                parsed: Any = json.loads(raw)
            except ValueError:
                parsed = raw.decode(errors="replace")
            raise PlatformError(e.code, parsed) from None

    def create_assistant(self, name: str, phone_number_id: int, webhook_url: Optional[str] = None) -> int:
        body: Dict[str, Any] = {
            "name": name,
            "voice_id": 1,
            "language_id": 1,
            "type": "outbound",
            "mode": "pipeline",
            "timezone": "Europe/Berlin",
            "initial_message": "Hello, this is Anna from Acme.",
            "system_prompt": "You follow up on the customer's request.",
            "llm_model_id": 1,
            "phone_number_id": phone_number_id,
        }
        if webhook_url is not None:
            body.update(webhook_url=webhook_url, is_webhook_active=True)
        return int(self._call("POST", "/user/assistant", body)["data"]["id"])

    def create_campaign(self, name: str, assistant_id: int) -> int:
        body = {"name": name, "assistant_id": assistant_id, "retry_on_voicemail": True}
        return int(self._call("POST", "/user/campaign", body)["data"]["id"])

    def add_lead(self, campaign_id: int, phone_number: str, crm_id: str) -> int:
        body = {"campaign_id": campaign_id, "phone_number": phone_number, "variables": {"crm_id": crm_id}}
        return int(self._call("POST", "/user/lead", body)["data"]["id"])

    def start_campaign(self, campaign_id: int) -> None:
        self._call("POST", "/user/campaigns/update-status", {"campaign_id": campaign_id, "action": "start"})

    def leads(self) -> List[Dict[str, Any]]:
        return list(self._call("GET", "/user/leads")["data"])

    def calls(self) -> List[Dict[str, Any]]:
        return list(self._call("GET", "/user/calls")["data"])

    def session_status(self, sender_id: int, phone_number: str) -> Dict[str, Any]:
        return dict(self._call("GET", "/user/msgapp/session-status", query={"sender_id": sender_id, "recipient_phone": phone_number}))

    def send_freeform(self, sender_id: int, phone_number: str, message: str) -> Dict[str, Any]:
        """A free-text chat message: allowed only while the customer's 24-hour window is open."""
        return dict(self._call("POST", "/user/msgapp/send-freeform", {"sender_id": sender_id, "recipient_phone": phone_number, "message": message}))


class CallLog:
    """What the CRM keeps of each contact's last call, by CRM id (filled by the post-call webhook)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.by_contact: Dict[str, Dict[str, Any]] = {}

    def record(self, payload: Dict[str, Any]) -> None:
        crm_id = (payload.get("lead") or {}).get("variables", {}).get("crm_id") or payload.get("customer_phone")
        with self._lock:
            self.by_contact[str(crm_id)] = {"call_id": payload["id"], "status": payload["status"], "duration": payload["duration"]}


class PostCallReceiver:
    """The CRM's webhook endpoint: a local HTTP server that hands each post-call payload to ``on_post_call``.

    When ``on_post_call`` raises (the CRM's store is down), it answers 503 so that the platform
    retries the delivery later.
    """

    def __init__(self, on_post_call: Callable[[Dict[str, Any]], None], host: str = "127.0.0.1", port: int = 0) -> None:
        receiver = self
        self.on_post_call = on_post_call
        self.received: List[Dict[str, Any]] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (http.server's name)
                payload = json.loads(self.rfile.read(int(self.headers.get("content-length", "0"))) or b"{}")
                receiver.received.append({"attempt": self.headers.get("x-voxsim-attempt"), "payload": payload})
                try:
                    receiver.on_post_call(payload)
                    status, text = 200, b"stored"
                except Exception:  # the CRM could not store it: ask for a retry
                    status, text = 503, b"try again later"
                self.send_response(status)
                self.send_header("content-length", str(len(text)))
                self.end_headers()
                self.wfile.write(text)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, port), Handler)
        self.url = f"http://{host}:{self.server.server_address[1]}/webhooks/post-call"
        self._thread = threading.Thread(target=self.server.serve_forever, name="post-call-receiver", daemon=True)

    def __enter__(self) -> "PostCallReceiver":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
