"""Every route of the OpenAPI description, sent malformed ids, numbers, queries and bodies, as a browser
session and as an API token: client input is answered 4xx, never 500, and nothing reaches the log as a
traceback. (A small, fixed sweep; schemathesis over the same description goes further.)
"""

from __future__ import annotations

import re

import httpx
import pytest

VALUES = ["²", "9" * 23, "a" * 300, "-1", "%00"]
BODIES = [
    None,
    b"\xff\xfe",
    b'{"username": null, "password": 5, "time_control": {"minutes": 1e999}, "level": 99999999999999999999}',
    b"rated=maybe&clock.limit=1e999&time=inf&increment=-1&fen=W:W:B&color=%FF",
]


@pytest.mark.slow
def test_no_route_answers_a_server_error_to_malformed_input(server, players):
    alice, bob = players(), players()
    game = alice.challenge(bob)
    token = {"Authorization": f"Bearer {alice.token('board:play')}"}
    spec = httpx.get(f"{server.url}/openapi.json").json()
    log_before = len(server.log.read_text())
    errors = []
    for path, operations in spec["paths"].items():
        if path.startswith("/ws/") or "stream" in path or path.endswith("/seek"):
            continue  # sockets and streams stay open: the frame and stream tests cover them
        for method, operation in operations.items():
            queries = [p["name"] for p in operation.get("parameters", []) if p["in"] == "query"]
            for value in [*VALUES, game["id"], bob.name]:
                url = re.sub(r"{\w+}", value, path) + "?" + "&".join(f"{q}={value}" for q in queries)
                for body in BODIES if method in ("post", "delete") else [None]:
                    kind = (
                        "application/json"
                        if body and body[:1] == b"{"
                        else "application/x-www-form-urlencoded"
                    )
                    headers = {"content-type": kind} if body else {}
                    for r in (
                        alice.http.request(method.upper(), url, content=body, headers=headers),
                        httpx.request(
                            method.upper(), server.url + url, content=body, headers={**headers, **token}
                        ),
                    ):
                        if r.status_code >= 500 or not r.headers.get("content-type", "").startswith(
                            ("application/json", "text/html", "application/x-draughts-pdn")
                        ):
                            errors.append((method, url[:80], body, r.status_code, r.text[:80]))
    assert not errors, errors[:10]
    assert "Traceback" not in server.log.read_text()[log_before:]
