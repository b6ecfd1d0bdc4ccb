"""A client that sends without reading what it is sent (found by an audit): a flood of WebSocket pings,
each answered with a pong, grew the server's memory by hundreds of MB in seconds while the pongs waited
to be sent, and slowed the server for everyone. Once a socket's answers wait, the server reads no more
from it: what the client sends then waits in the network's buffers."""

from __future__ import annotations

import base64
import os
import socket
import struct

from .helpers import Server


def _ping_frame(payload: bytes) -> bytes:
    """A client's PING frame (FIN, opcode 9), masked as RFC 6455 asks of a client."""
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return struct.pack("!BB", 0x89, 0x80 | len(payload)) + mask + masked


def test_a_socket_that_sends_pings_and_reads_nothing_is_read_no_more(server: Server):
    key = base64.b64encode(os.urandom(16)).decode()
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as sock:
        sock.sendall(
            (
                "GET /ws/lobby HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        assert b" 101 " in sock.recv(4096).split(b"\r\n", 1)[0]
        sock.settimeout(3)
        burst = _ping_frame(os.urandom(125)) * 1000  # 131 KB of pings, 125 bytes of pong each
        sent, limit = 0, 200 * 1024 * 1024
        try:
            while sent < limit:  # the pongs are never read
                sock.sendall(burst)
                sent += len(burst)
        except TimeoutError:
            pass
    # Read no more: the server and the kernel's buffers hold a few MB at most, not 200.
    assert sent < 50 * 1024 * 1024, f"{sent / 1024 / 1024:.0f} MB of pings were read"


def test_a_page_that_does_not_drain_holds_back_no_other_pages_list_of_games(monkeypatch):
    """Found by an audit: "now playing" was sent to the pages one after the other, each awaited, and a
    socket that never drained froze the list for every page of the process while it stayed connected."""
    import asyncio

    from shashki.server.http import now_playing

    async def scenario() -> list[dict]:
        lists = iter([[{"id": "a"}], [{"id": "b"}], [{"id": "c"}]])
        watching = now_playing.NowPlaying(lambda: asyncio.sleep(0, next(lists)), interval=0.05)
        heard: list[dict] = []

        async def stalled(event: dict) -> None:
            await asyncio.Event().wait()  # never drains

        async def page(event: dict) -> None:
            heard.append(event)

        async with watching.listen(stalled), watching.listen(page):
            for _ in range(60):
                if len(heard) >= 2:
                    break
                watching.nudge()
                await asyncio.sleep(0.1)
        return heard

    monkeypatch.setattr(now_playing, "SEND_SECONDS", 0.2, raising=False)
    heard = asyncio.run(scenario())
    assert [event["games"][0]["id"] for event in heard][:2] == ["a", "b"]  # each list, in turn
