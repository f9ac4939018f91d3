"""The order-lookup endpoint the assistant calls during calls and chats (a mid-call tool).

`GET /orders/<order id>` answers the order as JSON when the caller sends the shop's API key;
`POST /bookings` books a slot from the JSON body. Run it with `OrderEndpoint()` as a context
manager: it listens on a free local port, and `url` is where it is reached.
"""
from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Dict, List
from urllib.parse import parse_qs, unquote, urlsplit

API_KEY = "demo"
ORDERS = {"BST-1": "shipped", "BST-2": "packing"}


class OrderEndpoint:
    def __init__(self) -> None:
        self.requests: List[Dict[str, Any]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def answer(self, status: int, body: Dict[str, Any]) -> None:
                raw = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def do_GET(self) -> None:  # noqa: N802 (http.server's name)
                url = urlsplit(self.path)
                endpoint.requests.append({"method": "GET", "path": self.path, "assistant": self.headers.get("X-Assistant")})
                if self.headers.get("X-Api-Key") != API_KEY:
                    return self.answer(401, {"error": "unauthorised"})
                order_id = unquote(url.path.rsplit("/", 1)[-1])
                if order_id not in ORDERS:
                    return self.answer(404, {"error": "no such order"})
                src = parse_qs(url.query).get("src", [""])[0]
                self.answer(200, {"order_id": order_id, "status": ORDERS[order_id], "src": src})

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
                endpoint.requests.append({"method": "POST", "path": self.path, "body": body})
                self.answer(201, {"booked": True, "day": body.get("day")})

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> "OrderEndpoint":
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
