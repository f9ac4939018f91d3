"""Platform requests the tests share (the platform API itself: docs/resources.md)."""
from __future__ import annotations

from typing import Any, Dict

from voxsim import Voxsim


def create_assistant(box: Voxsim, name: str, phone_number_id: int = 1, **extra: Any) -> Dict[str, Any]:
    body = {
        "name": name,
        "voice_id": 1,
        "language_id": 1,
        "type": "outbound",
        "mode": "pipeline",
        "timezone": "Europe/Berlin",
        "initial_message": "Hello!",
        "system_prompt": "You sell.",
        "llm_model_id": 1,
        "phone_number_id": phone_number_id,
        **extra,
    }
    return box.request("POST", "/user/assistant", body)["data"]


def assistant_names(box: Voxsim) -> list:
    return [(a["id"], a["name"]) for a in box.request("GET", "/user/assistants/get")["data"]]
