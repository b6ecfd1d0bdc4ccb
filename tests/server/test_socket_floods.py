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
