"""schemathesis over the server's own `/openapi.json` (issue 10): thousands of generated requests, every
operation, as an API token holder; no answer is a server error. Fixed seed (derandomized), bounded
examples per operation, so that the run is the same every time and short.

Streams (they stay open by design) are left to the stream tests; the WebSocket paths are described
only as the GET that upgrades (the frame fuzz covers them).
"""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings

from shashki.server.app import create_app
from shashki.server.config import Settings

from .helpers import Player, Server

EXAMPLES_PER_OPERATION = 45  # about 3,000 cases in all (about a minute)


# The description the server serves at /openapi.json, read from the app itself (no server needed to
# collect the tests); the requests go to the session's real server.
DESCRIPTION = create_app(Settings(data_dir=Path(tempfile.gettempdir()) / "shashki-schema")).openapi()
schema = schemathesis.openapi.from_dict(DESCRIPTION).exclude(path_regex=r"/stream|/board/seek$|^/ws/")


@pytest.fixture(scope="module")
def own_server(tmp_path_factory):
    """A server of this test alone: what thousands of generated requests leave behind (odd seeks,
    challenges, accounts) must not reach the other tests' lobby."""
    server = Server(tmp_path_factory.mktemp("schemathesis")).start()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def bearer(own_server) -> dict[str, str]:
    player = Player(own_server)
    return {"Authorization": f"Bearer {player.token('board:play', 'read')}"}


@pytest.mark.slow
@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
def test_no_generated_request_gets_a_server_error(case, own_server, bearer):
    response = case.call(base_url=own_server.url, headers=bearer, timeout=10)
    assert response.status_code < 500, (case.method, case.formatted_path, response.status_code, response.text)
