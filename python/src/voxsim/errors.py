"""The errors the client raises: one for a refused request, one for a server it cannot reach."""
from __future__ import annotations

from typing import Any, Dict, List, Optional


class VoxsimError(Exception):
    """A request the server refused (any answer outside 2xx).

    ``status`` is the HTTP status, ``errors`` the field errors of a shape B answer
    (``{"seeds": ["The seeds field is not allowed; did you mean seed?"]}``, else ``{}``),
    ``message`` the answer's ``message`` (else its ``error``, else its text) and ``body``
    the answer as parsed JSON (or its text when it is not JSON).

    Example::

        try:
            sim.reset(seeds=5)
        except VoxsimError as e:
            assert e.status == 422 and "seeds" in e.errors
    """

    def __init__(
        self,
        message: str,
        *,
        status: Optional[int] = None,
        errors: Optional[Dict[str, List[str]]] = None,
        body: Any = None,
        method: str = "",
        url: str = "",
    ) -> None:
        self.message = message
        self.status = status
        self.errors: Dict[str, List[str]] = errors or {}
        self.body = body
        self.method = method
        self.url = url
        super().__init__(self._describe())

    def _describe(self) -> str:
        if self.status is None:
            return self.message
        where = f"{self.method} {self.url}".strip()
        head = f"{where} answered {self.status}" if where else f"voxsim answered {self.status}"
        text = f"{head}: {self.message}"
        # Field errors the message does not already say (shape B's message is its first error).
        others = [f"{k}: {m}" for k, v in self.errors.items() for m in v if m != self.message]
        if others:
            text += f" ({'; '.join(others)})"
        return text


class VoxsimConnectionError(VoxsimError):
    """The server could not be reached (refused, unknown host, timed out): ``url`` names it."""

    def _describe(self) -> str:
        return self.message
