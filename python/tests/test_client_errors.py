"""The client's errors against answers a voxsim server rarely gives (a proxy's, a stalled server's): a local fake server."""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Dict, Iterator, Tuple

import pytest

from voxsim import Voxsim, VoxsimConnectionError, VoxsimError

# path -> (status, content type, body) the fake server answers.
ANSWERS: Dict[str, Tuple[int, str, bytes]] = {
    "/api/error-key": (403, "application/json", json.dumps({"error": "Forbidden by the proxy policy."}).encode()),
    "/api/message-and-error": (409, "application/json", json.dumps({"message": "The message.", "error": "CONFLICT"}).encode()),
    "/api/fields": (
        422,
        "application/json",
        json.dumps({
            "message": "The name field is required.",
            "errors": {"name": ["The name field is required."], "seed": ["The seed must be an integer.", "The seed must be at least 0."]},
        }).encode(),
    ),
    "/api/field-string": (422, "application/json", json.dumps({"message": "Bad.", "errors": {"wire": "The wire must be spec or live."}}).encode()),
    "/api/no-message": (400, "application/json", json.dumps({"code": 7}).encode()),
    "/api/html": (502, "text/html", b"<html>\n  <body>\n    <h1>502 Bad Gateway</h1>\n  </body>\n</html>\n"),
    "/api/long-text": (503, "text/plain", b"x" * 1000),
    "/api/empty-error": (500, "application/json", b""),
    "/api/text-ok": (200, "text/plain", b"not json, but fine"),
    "/api/empty-ok": (204, "application/json", b""),
}


class _Handler(BaseHTTPRequestHandler):
    release: threading.Event

    def log_message(self, *args: object) -> None:  # quiet
        pass

    def _answer(self) -> None:
        if self.path == "/api/stall":  # accepts, never answers in time
            self.release.wait(30)
            return
        if self.path == "/api/stall-body":  # headers, then half a body
            self.send_response(200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", "100")
            self.end_headers()
            self.wfile.write(b'{"half":')
            self.wfile.flush()
            self.release.wait(30)
            return
        if self.path == "/api/hang-up":  # closes without a word
            self.close_connection = True
            return
        if self.path == "/api/not-http":
            self.wfile.write(b"SSH-2.0-OpenSSH_9.6\r\n")
            self.close_connection = True
            return
        status, kind, body = ANSWERS[self.path]
        self.send_response(status)
        self.send_header("content-type", kind)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    do_GET = do_POST = _answer


@pytest.fixture(scope="module")
def fake() -> Iterator[str]:
    release = threading.Event()
    handler = type("Handler", (_Handler,), {"release": release})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/api"
    finally:
        release.set()
        server.shutdown()
        server.server_close()


def _refused(fake: str, path: str, method: str = "GET") -> VoxsimError:
    with pytest.raises(VoxsimError) as raised:
        Voxsim(fake).request(method, path)
    assert type(raised.value) is VoxsimError  # refused, not unreachable
    return raised.value


def test_an_answer_with_only_an_error_key_gives_its_message(fake: str) -> None:
    error = _refused(fake, "/error-key")
    assert (error.status, error.message, error.errors) == (403, "Forbidden by the proxy policy.", {})
    assert error.body == {"error": "Forbidden by the proxy policy."}
    assert str(error) == f"GET {fake}/error-key answered 403: Forbidden by the proxy policy."


def test_message_wins_over_error(fake: str) -> None:
    assert _refused(fake, "/message-and-error").message == "The message."


def test_the_field_errors_the_message_does_not_say_are_in_the_error_text(fake: str) -> None:
    error = _refused(fake, "/fields", "POST")
    assert error.status == 422
    assert error.errors == {"name": ["The name field is required."], "seed": ["The seed must be an integer.", "The seed must be at least 0."]}
    assert str(error) == (
        f"POST {fake}/fields answered 422: The name field is required. "
        "(seed: The seed must be an integer.; seed: The seed must be at least 0.)"
    )


def test_a_field_error_given_as_a_string_is_a_list_of_one(fake: str) -> None:
    error = _refused(fake, "/field-string")
    assert error.errors == {"wire": ["The wire must be spec or live."]}
    assert str(error).endswith("answered 422: Bad. (wire: The wire must be spec or live.)")


def test_a_json_answer_without_message_or_error_is_its_json(fake: str) -> None:
    error = _refused(fake, "/no-message")
    assert (error.status, error.message, error.body) == (400, '{"code": 7}', {"code": 7})


def test_a_refusal_that_is_not_json_is_its_text_on_one_line(fake: str) -> None:
    error = _refused(fake, "/html")
    assert (error.status, error.errors) == (502, {})
    assert error.body == ANSWERS["/api/html"][2].decode()  # whole, as it came
    assert error.message == "<html> <body> <h1>502 Bad Gateway</h1> </body> </html>"
    assert str(error) == f"GET {fake}/html answered 502: <html> <body> <h1>502 Bad Gateway</h1> </body> </html>"


def test_a_long_text_refusal_is_cut_in_the_message_but_whole_in_the_body(fake: str) -> None:
    error = _refused(fake, "/long-text")
    assert error.message == "x" * 297 + "..."
    assert error.body == "x" * 1000


def test_an_empty_refusal_is_named_by_its_reason_phrase(fake: str) -> None:
    error = _refused(fake, "/empty-error")
    assert (error.status, error.message, error.body) == (500, "Internal Server Error", None)


def test_a_2xx_answer_that_is_not_json_is_returned_as_text_and_an_empty_one_as_none(fake: str) -> None:
    assert Voxsim(fake).request("GET", "/text-ok") == "not json, but fine"
    assert Voxsim(fake).request("GET", "/empty-ok") is None


@pytest.mark.parametrize("path", ["/stall", "/stall-body"])
def test_a_server_that_does_not_answer_in_time_is_a_connection_error_naming_the_timeout(fake: str, path: str) -> None:
    with pytest.raises(VoxsimConnectionError) as raised:
        Voxsim(fake, timeout=0.3).request("GET", path)
    error = raised.value
    assert str(error) == f"the voxsim server at {fake} did not answer GET {path} within 0.3 s (Voxsim(timeout=...))"
    assert (error.status, error.method, error.url) == (None, "GET", fake + path)


def test_a_server_that_hangs_up_is_a_connection_error(fake: str) -> None:
    with pytest.raises(VoxsimConnectionError) as raised:
        Voxsim(fake).request("GET", "/hang-up")
    assert str(raised.value).startswith(f"cannot reach the voxsim server at {fake} (")


def test_a_server_that_does_not_speak_http_is_a_connection_error(fake: str) -> None:
    with pytest.raises(VoxsimConnectionError) as raised:
        Voxsim(fake).request("GET", "/not-http")
    assert str(raised.value).startswith(f"the server at {fake} gave GET /not-http an answer that is not HTTP (")
