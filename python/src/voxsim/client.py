"""A client of voxsim's control API (``/__sim/*``, docs/control-api.md).

The names follow ``sim.control`` in snake_case (``sim.control.clock.runUntilIdle()`` is
``Voxsim(...).clock.run_until_idle()``). Reads that answer ``{data: [...]}`` return the list.
"""
from __future__ import annotations

import http.client
import json
import socket
import urllib.error
import urllib.parse
import urllib.request
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

from .errors import VoxsimConnectionError, VoxsimError

Json = Any
Duration = Union[str, int]
"""Milliseconds, or text with units: ``"500ms"``, ``"90s"``, ``"15m"``, ``"2h"``, ``"3d"``, ``"1h30m"``."""


def _drop_none(fields: Mapping[str, Any]) -> Dict[str, Any]:
    return {k: v for k, v in fields.items() if v is not None}


def _iso(value: Union[str, datetime]) -> str:
    if isinstance(value, datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=timezone.utc)
        return value.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
    return value


def parse_time(text: str) -> datetime:
    """An ISO 8601 UTC time as the control API writes it (``2025-01-01T09:00:00.000Z``), as an aware datetime."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


class Voxsim:
    """A client of one voxsim server (``base_url`` ends with the base path, ``http://127.0.0.1:4010/api``).

    ``api_key`` is the key the platform API is called with (``request``); ``admin_token`` the
    control API's token, for a server started with ``--admin-token``.

    Example::

        sim = Voxsim("http://127.0.0.1:4010/api")
        sim.clock.advance("2h")
        box = sim.sandbox(seed=7)       # a sandbox of its own: box.base_url, box.api_key
    """

    def __init__(
        self,
        base_url: str,
        api_key: Optional[str] = None,
        admin_token: Optional[str] = None,
        *,
        timeout: float = 30.0,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.admin_token = admin_token
        self.timeout = timeout
        self.clock = Clock(self)
        self.accounts = Accounts(self)
        self.phone_numbers = PhoneNumbers(self)
        self.calls = Calls(self)
        self.outcomes = Outcomes(self)
        self.replies = Replies(self)
        self.faults = Faults(self)
        self.webhooks = Webhooks(self)
        self.tool_calls = ToolCalls(self)
        self.tools = Tools(self)
        self.msgapp = Msgapp(self)
        self.scenario = ScenarioControl(self)
        self.catalog = Catalog(self)
        self.sms = Listing(self, "/__sim/sms")
        self.charges = Listing(self, "/__sim/charges")
        self.documents = Listing(self, "/__sim/documents")
        self.sandboxes = Sandboxes(self)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_url!r})"

    # -- transport --------------------------------------------------------------------

    def _control_token(self) -> Optional[str]:
        return self.admin_token

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        query: Optional[Mapping[str, Any]] = None,
        token: Optional[str] = None,
        text: Optional[str] = None,
    ) -> Json:
        """One request to ``base_url + path``; the answer parsed as JSON (``None`` when empty).

        ``/__sim`` paths carry the control token, other paths ``api_key`` (or ``token`` when
        given). A JSON ``body`` is sent as JSON, ``text`` as it is. An answer outside 2xx
        raises ``VoxsimError``; a server that cannot be reached ``VoxsimConnectionError``.
        """
        url = self.base_url + path
        if query:
            url += "?" + urllib.parse.urlencode(_drop_none(query), doseq=True)
        if token is None:
            token = self._control_token() if path.startswith("/__sim") else self.api_key
        headers = {"accept": "application/json"}
        if token:
            headers["authorization"] = f"Bearer {token}"
        data: Optional[bytes] = None
        if text is not None:
            data = text.encode("utf-8")
            headers["content-type"] = "text/plain; charset=utf-8"
        elif body is not None:
            data = json.dumps(body).encode("utf-8")
            headers["content-type"] = "application/json"
        req = urllib.request.Request(url, data=data, method=method.upper(), headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as res:
                return _parse(res.read())
        except urllib.error.HTTPError as e:
            raw = e.read()
            parsed = _parse(raw)
            raise _refusal(method.upper(), url, e.code, parsed, str(e.reason or "")) from None
        except (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, http.client.HTTPException) as e:
            reason = getattr(e, "reason", e)
            if isinstance(reason, (socket.timeout, TimeoutError)):
                # Reached, but no whole answer in time: a server busy or stopped mid-answer, or a timeout too short.
                message = f"the voxsim server at {self.base_url} did not answer {method.upper()} {path} within {self.timeout:g} s (Voxsim(timeout=...))"
            elif isinstance(e, http.client.HTTPException) and not isinstance(e, ConnectionError):  # RemoteDisconnected is both
                message = f"the server at {self.base_url} gave {method.upper()} {path} an answer that is not HTTP ({type(e).__name__}: {e}); is it a voxsim server?"
            else:
                message = f"cannot reach the voxsim server at {self.base_url} ({reason}); is `voxsim serve` running there?"
            raise VoxsimConnectionError(message, method=method.upper(), url=url) from None

    def _get(self, path: str, **query: Any) -> Json:
        return self.request("GET", path, query=query or None)

    # -- top-level operations ---------------------------------------------------------

    def health(self) -> Dict[str, Any]:
        """``GET /__sim/health``: ``{ok, version, now}``."""
        return self._get("/__sim/health")

    def reset(self, seed: Optional[int] = None, start: Optional[Union[str, datetime]] = None, wire: Optional[str] = None) -> Dict[str, Any]:
        """``POST /__sim/reset``: empties the state; ``{ok, seed, now}``."""
        return self.request("POST", "/__sim/reset", _drop_none({"seed": seed, "start": None if start is None else _iso(start), "wire": wire}))

    def state(self) -> Dict[str, Any]:
        """``GET /__sim/state``: the whole state as a snapshot."""
        return self._get("/__sim/state")

    def restore(self, snapshot: Mapping[str, Any]) -> Dict[str, Any]:
        """``PUT /__sim/state``: replaces the state with a snapshot; ``{ok, now}``."""
        return self.request("PUT", "/__sim/state", dict(snapshot))

    def requests(self, limit: Optional[int] = None) -> List[Dict[str, Any]]:
        """``GET /__sim/requests``: the latest requests, oldest first."""
        return self._get("/__sim/requests", limit=limit)["data"]

    def overview(self, limit: Optional[int] = None) -> Dict[str, Any]:
        """``GET /__sim/overview``: the dashboard's aggregate."""
        return self._get("/__sim/overview", limit=limit)

    def sandbox(
        self,
        seed: Optional[int] = None,
        wire: Optional[str] = None,
        catalog: Optional[Mapping[str, Any]] = None,
        name: Optional[str] = None,
        ttl: Optional[Duration] = None,
        start: Optional[Union[str, datetime]] = None,
        scenario: Optional[Union[str, Mapping[str, Any]]] = None,
    ) -> "Sandbox":
        """``POST /__sim/sandboxes``: a new sandbox, as a client bound to its key (docs/sandboxes.md).

        Give the code under test ``box.base_url`` and ``box.api_key``; ``box.delete()`` removes it.
        """
        body = _drop_none(
            {
                "seed": seed,
                "wire": wire,
                "catalog": None if catalog is None else dict(catalog),
                "name": name,
                "ttl": ttl,
                "start": None if start is None else _iso(start),
                "scenario": scenario,
            }
        )
        info = self.request("POST", "/__sim/sandboxes", body)
        return Sandbox(self.base_url, info, timeout=self.timeout)


class Sandbox(Voxsim):
    """A client bound to one sandbox: its control calls and platform calls carry its key.

    ``info`` is the sandbox as the server answered it (``{id, name, api_key, seed, now, wire, …}``).
    """

    def __init__(self, base_url: str, info: Mapping[str, Any], *, timeout: float = 30.0) -> None:
        super().__init__(base_url, api_key=str(info["api_key"]), timeout=timeout)
        self.info: Dict[str, Any] = dict(info)
        self.id: str = str(info["id"])

    def _control_token(self) -> Optional[str]:
        return self.api_key

    def __repr__(self) -> str:
        return f"Sandbox({self.base_url!r}, id={self.id!r})"

    def get(self) -> Dict[str, Any]:
        """``GET /__sim/sandbox``: this sandbox as the server sees it now."""
        return self._get("/__sim/sandbox")

    def delete(self) -> Dict[str, Any]:
        """``DELETE /__sim/sandbox``: removes this sandbox; its keys answer 401 from then on."""
        return self.request("DELETE", "/__sim/sandbox")


class _Part:
    def __init__(self, sim: Voxsim) -> None:
        self._sim = sim


class Clock(_Part):
    """``sim.control.clock``: the virtual clock (docs/clock.md)."""

    def get(self) -> Dict[str, Any]:
        """``GET /__sim/clock``: ``{now, now_ms, mode, speed, pending_events}``."""
        return self._sim._get("/__sim/clock")

    def now(self) -> datetime:
        """The virtual time, as an aware UTC datetime."""
        return parse_time(self.get()["now"])

    def advance(self, by: Optional[Duration] = None, *, to: Optional[Union[str, datetime]] = None) -> Dict[str, Any]:
        """``POST /__sim/clock/advance``: ``advance("2h")`` or ``advance(to=...)``; ``{now, now_ms, ran}``."""
        body = {"to": _iso(to)} if to is not None else {"by": by}
        return self._sim.request("POST", "/__sim/clock/advance", body)

    def run_until_idle(self, max_events: Optional[int] = None) -> Dict[str, Any]:
        """``POST /__sim/clock/run-until-idle``: runs every pending event; ``{now, now_ms, ran, pending, periodic_pending}``."""
        return self._sim.request("POST", "/__sim/clock/run-until-idle", _drop_none({"max_events": max_events}))

    def set_mode(self, mode: str, speed: Optional[float] = None) -> Dict[str, Any]:
        """``PUT /__sim/clock``: ``"manual"`` or ``"realtime"`` at ``speed``."""
        return self._sim.request("PUT", "/__sim/clock", _drop_none({"mode": mode, "speed": speed}))


class Accounts(_Part):
    """``sim.control.accounts``."""

    def create(self, **fields: Any) -> Dict[str, Any]:
        """``POST /__sim/accounts``: ``name, email, api_key, balance, has_payment_method, timezone, plan``."""
        return self._sim.request("POST", "/__sim/accounts", fields)

    def list(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/accounts")["data"]

    def patch(self, account_id: int, **fields: Any) -> Dict[str, Any]:
        return self._sim.request("PATCH", f"/__sim/accounts/{account_id}", fields)


class PhoneNumbers(_Part):
    """``sim.control.phoneNumbers``."""

    def add(self, phone_number: str, *, type: str = "sip", account_id: int = 1) -> Dict[str, Any]:
        """``POST /__sim/phone-numbers``: a number of the account (the first one by default)."""
        return self._sim.request("POST", "/__sim/phone-numbers", {"account_id": account_id, "type": type, "phone_number": phone_number})


class Calls(_Part):
    """``sim.control.calls``."""

    def inbound(self, to: str, from_: str) -> Dict[str, Any]:
        """``POST /__sim/calls/inbound``: rings the inbound assistant that owns ``to``; ``{call_id}``."""
        return self._sim.request("POST", "/__sim/calls/inbound", {"to": to, "from": from_})

    def insert(self, **fields: Any) -> Dict[str, Any]:
        """``POST /__sim/calls``: a finished call (``assistant_id``, ``client_phone_number``, …)."""
        return self._sim.request("POST", "/__sim/calls", fields)


Outcome = Union[str, Mapping[str, Any]]


class Outcomes(_Part):
    """``sim.control.outcomes``: what the dialled numbers do (docs/dialing.md)."""

    def set(self, rules: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
        return self._sim.request("PUT", "/__sim/outcomes", {"rules": [dict(r) for r in rules]})

    def list(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/outcomes")["rules"]

    def _add(self, match: Mapping[str, Any], outcomes: Sequence[Outcome]) -> Dict[str, Any]:
        # The HTTP API replaces the whole list; adding is read, append, write (as sim.control does in-process).
        return self.set([*self.list(), {"match": dict(match), "outcomes": list(outcomes)}])

    def for_number(self, phone_number: str, outcomes: Sequence[Outcome]) -> Dict[str, Any]:
        """Adds a rule: the calls to ``phone_number`` end as ``outcomes`` say, in turn (``["voicemail", "human"]``)."""
        return self._add({"phone_number": phone_number}, outcomes)

    def for_campaign(self, campaign_id: int, outcomes: Sequence[Outcome]) -> Dict[str, Any]:
        return self._add({"campaign_id": campaign_id}, outcomes)

    def for_lead_variables(self, variables: Mapping[str, Any], outcomes: Sequence[Outcome]) -> Dict[str, Any]:
        return self._add({"lead_variables": dict(variables)}, outcomes)


class Replies(_Part):
    """``sim.control.replies``: scripted assistant replies (docs/conversations.md)."""

    def set(self, rules: Sequence[Mapping[str, Any]]) -> Dict[str, Any]:
        return self._sim.request("PUT", "/__sim/replies", {"rules": [dict(r) for r in rules]})

    def list(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/replies")["rules"]


class Faults(_Part):
    """``sim.control.faults``: the next requests to a route fail (its documented failure, a 5xx, or a 429 with Retry-After)."""

    def add(
        self,
        method: str,
        path: str,
        times: Optional[int] = None,
        status: Optional[int] = None,
        retry_after: Optional[int] = None,
    ) -> Dict[str, Any]:
        """``status``: 429, 500 (default), 502, 503 or 504; ``retry_after``: a 429's seconds (default 60)."""
        body = {"method": method, "path": path, "times": times, "status": status, "retry_after": retry_after}
        return self._sim.request("POST", "/__sim/faults", _drop_none(body))

    def list(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/faults")["data"]

    def clear(self) -> Dict[str, Any]:
        return self._sim.request("DELETE", "/__sim/faults")


class Webhooks(_Part):
    """``sim.control.webhooks``: forced delivery failures and the deliveries' journal (docs/webhooks.md)."""

    def fail(self, with_: Union[int, str] = 500, *, url: Optional[str] = None, kind: Optional[str] = None, times: Optional[int] = None) -> Dict[str, Any]:
        """``POST /__sim/webhooks/failures``: the next ``times`` deliveries fail ``with_`` (a status, ``"timeout"`` or ``"refused"``)."""
        return self._sim.request("POST", "/__sim/webhooks/failures", _drop_none({"url": url, "kind": kind, "times": times, "with": with_}))

    fail_next = fail

    def failures(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/webhooks/failures")["data"]

    def clear_failures(self) -> Dict[str, Any]:
        return self._sim.request("DELETE", "/__sim/webhooks/failures")

    def deliveries(self, kind: Optional[str] = None, state: Optional[str] = None) -> List[Dict[str, Any]]:
        """``GET /__sim/webhooks/deliveries``: ``[{id, kind, url, state, attempts, …}]``, oldest first."""
        return self._sim._get("/__sim/webhooks/deliveries", kind=kind, state=state)["data"]

    def resend(self, delivery_id: int) -> Dict[str, Any]:
        """``POST /__sim/webhooks/deliveries/{id}/resend``: the same body again, byte for byte, as a new delivery."""
        return self._sim.request("POST", f"/__sim/webhooks/deliveries/{delivery_id}/resend", {})


class ToolCalls(_Part):
    """``sim.control.tool_calls``: the journal of mid-call tool requests (docs/mid-call-tools.md)."""

    def list(self, account_id: Optional[int] = None) -> List[Dict[str, Any]]:
        """``GET /__sim/tool-calls``: ``[{id, at, tool_id, tool, call_id | conversation_id, request, response, error}]``, oldest first."""
        return self._sim._get("/__sim/tool-calls", account_id=account_id)["data"]


class Tools(_Part):
    """``sim.control.tools``: calling a mid-call tool by hand (docs/mid-call-tools.md)."""

    def test(self, tool_id: int) -> Dict[str, Any]:
        """``POST /__sim/tools/{id}/test``: calls the tool now with the dummy values (``"test"``, 1, ``true``) and answers the record of what came back."""
        return self._sim.request("POST", f"/__sim/tools/{tool_id}/test", {})


_UNSET: Any = object()


class Msgapp(_Part):
    """``sim.control.msgapp``: the messaging channel's customer side, senders and templates, delivery statuses."""

    def inbound(
        self,
        sender_id: int,
        from_: str,
        text: Optional[str] = None,
        name: Optional[str] = None,
        *,
        media: Optional[Mapping[str, Any]] = None,
        voice_note: Optional[Mapping[str, Any]] = None,
    ) -> Dict[str, Any]:
        """``POST /__sim/msgapp/inbound``: a customer message (``text``, ``media={"type": "image", "caption": …}`` or
        ``voice_note={"transcription": …}``); opens the 24-hour window. ``{conversation_id, session_status}``."""
        body = {"sender_id": sender_id, "from": from_, "text": text, "name": name, "media": media, "voice_note": voice_note}
        return self._sim.request("POST", "/__sim/msgapp/inbound", _drop_none(body))

    def patch_sender(
        self,
        sender_id: int,
        *,
        online: Optional[bool] = None,
        assistant_id: Any = _UNSET,
        messaging_limit: Any = _UNSET,
        read_receipts_webhook_url: Any = _UNSET,
        regenerate_signing_secret: bool = False,
    ) -> Dict[str, Any]:
        """``PATCH /__sim/msgapp/senders/{id}``; ``None`` clears ``assistant_id``, ``messaging_limit`` or the receipts URL.
        The answer carries ``read_receipts_signing_secret``."""
        body: Dict[str, Any] = _drop_none({"online": online})
        for key, value in (("assistant_id", assistant_id), ("messaging_limit", messaging_limit), ("read_receipts_webhook_url", read_receipts_webhook_url)):
            if value is not _UNSET:
                body[key] = value
        if regenerate_signing_secret:
            body["regenerate_signing_secret"] = True
        return self._sim.request("PATCH", f"/__sim/msgapp/senders/{sender_id}", body)

    def senders(self, account_id: Optional[int] = None) -> List[Dict[str, Any]]:
        """``GET /__sim/msgapp/senders``: every sender with its assistant and read-receipts webhook."""
        return self._sim._get("/__sim/msgapp/senders", account_id=account_id)["data"]

    def create_sender(self, display_name: str, **fields: Any) -> Dict[str, Any]:
        """``POST /__sim/msgapp/senders``: a sender of your own (``phone_number``, ``messaging_limit``, ``read_receipts_webhook_url``, …)."""
        return self._sim.request("POST", "/__sim/msgapp/senders", {"display_name": display_name, **fields})

    def create_template(self, sender_id: int, name: str, body_text: str, **fields: Any) -> Dict[str, Any]:
        """``POST /__sim/msgapp/templates``: a template with ``{{1}}`` or ``{{name}}`` placeholders (``status``, ``language``, …)."""
        return self._sim.request("POST", "/__sim/msgapp/templates", {"sender_id": sender_id, "name": name, "body_text": body_text, **fields})

    def patch_template(self, template_id: int, status: str) -> Dict[str, Any]:
        """``PATCH /__sim/msgapp/templates/{id}``: ``pending``, ``approved``, ``rejected`` or ``disabled``."""
        return self._sim.request("PATCH", f"/__sim/msgapp/templates/{template_id}", {"status": status})

    def messages(self, sender_id: Optional[int] = None, recipient_phone: Optional[str] = None, account_id: Optional[int] = None) -> List[Dict[str, Any]]:
        """``GET /__sim/msgapp/messages``: the channel's messages with ``status`` and ``status_history``."""
        return self._sim._get("/__sim/msgapp/messages", sender_id=sender_id, recipient_phone=recipient_phone, account_id=account_id)["data"]

    def set_outcomes(self, rules: List[Mapping[str, Any]]) -> Dict[str, Any]:
        """``PUT /__sim/msgapp/outcomes``: ``[{"match": {"recipient_phone": …}, "outcomes": ["failed"]}]``."""
        return self._sim.request("PUT", "/__sim/msgapp/outcomes", {"rules": list(rules)})

    def outcomes(self) -> Dict[str, Any]:
        """``GET /__sim/msgapp/outcomes``."""
        return self._sim._get("/__sim/msgapp/outcomes")

    def test_receipt(self, sender_id: int) -> Dict[str, Any]:
        """``POST /__sim/msgapp/senders/{id}/test-receipt``: one signed test event (``test: true``) to the sender's URL."""
        return self._sim.request("POST", f"/__sim/msgapp/senders/{sender_id}/test-receipt", {})


class ScenarioControl(_Part):
    """``POST /__sim/scenario``: a scenario's state (its ``given`` and scripts, not its steps)."""

    def run(self, path: Union[str, Path]) -> Dict[str, Any]:
        """Reads a scenario file (YAML or JSON) and loads it; ``{name, refs}``."""
        return self.load(Path(path).read_text(encoding="utf-8"))

    def load(self, text: str) -> Dict[str, Any]:
        """Loads a scenario given as YAML or JSON text."""
        return self._sim.request("POST", "/__sim/scenario", text=text)


class Catalog(_Part):
    """``sim.control.catalog``: the voices, languages and models (docs/catalog.md)."""

    def get(self) -> Dict[str, Any]:
        return self._sim._get("/__sim/catalog")

    def set(self, document: Mapping[str, Any]) -> Dict[str, Any]:
        return self._sim.request("PUT", "/__sim/catalog", dict(document))


class Listing(_Part):
    def __init__(self, sim: Voxsim, path: str) -> None:
        super().__init__(sim)
        self._path = path

    def list(self, **query: Any) -> List[Dict[str, Any]]:
        return self._sim._get(self._path, **query)["data"]


class Sandboxes(_Part):
    """The admin's view of a server's sandboxes."""

    def list(self) -> List[Dict[str, Any]]:
        return self._sim._get("/__sim/sandboxes")["data"]

    def get(self, sandbox_id: str) -> Dict[str, Any]:
        return self._sim._get(f"/__sim/sandboxes/{sandbox_id}")

    def delete(self, sandbox_id: str) -> Dict[str, Any]:
        return self._sim.request("DELETE", f"/__sim/sandboxes/{sandbox_id}")


def _parse(raw: bytes) -> Json:
    if not raw:
        return None
    text = raw.decode("utf-8", errors="replace")
    try:
        return json.loads(text)
    except ValueError:
        return text


def _refusal(method: str, url: str, status: int, body: Json, reason: str = "") -> VoxsimError:
    errors: Dict[str, List[str]] = {}
    if isinstance(body, dict):
        # Shape A and B answers carry `message`; some (a proxy's, an older server's) only `error`.
        message = body.get("message") or body.get("error") or json.dumps(body)
        if isinstance(body.get("errors"), dict):
            errors = {str(k): [str(m) for m in (v if isinstance(v, list) else [v])] for k, v in body["errors"].items()}
    else:
        # Not JSON (a proxy's HTML page, plain text) or empty: its text on one line (`.body` keeps
        # it whole), else the status's reason phrase.
        text = " ".join(str(body or "").split())
        message = (text[:297] + "...") if len(text) > 300 else (text or reason)
    return VoxsimError(str(message), status=status, errors=errors, body=body, method=method, url=url)
