"""WebSocket compression that pays for itself: permessage-deflate (RFC 7692) for messages of at least
`THRESHOLD` bytes, smaller ones sent as they are.

RFC 7692 lets a sender choose per message (section 6: a message is compressed when its first frame has
the RSV1 bit set), and the receiver's inflater never sees an uncompressed message, so skipping one costs
nothing to either side's compression context. Node's `ws` library (Socket.IO's transport) skips
compression below 1,024 bytes by default (its `perMessageDeflate.threshold`) for the same reason: a small
message compresses to a few hundred bytes less at the price of a deflate and a sync flush for each
socket it goes to.

On a game socket every move sends an `ack` (~40 bytes) and a `patch` to each player (~500 bytes: the
clocks, the next legal moves, the move): compressing them was about a seventh of a move's CPU on the
server (issue 11: `python benchmarks/load.py --games 40 --think 0`, 0.68-0.72 CPU ms a move compressed,
0.60-0.62 not). Whole states, lobby lists and chat histories are larger and still compressed. Messages
a client sends are inflated whenever it compressed them, as before.

`DeflateProtocol` is uvicorn's WebSocket protocol (the sans-I/O one, its default) offering this
extension instead of its own, with the same window and memory settings, and writing a turn of the event
loop's frames to a socket at once (`coalesce.CoalescedWrites`): `shashki serve` runs with it.
"""

from __future__ import annotations

import logging
from asyncio import BaseTransport, Transport
from collections.abc import Sequence
from typing import Any, cast

from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.exceptions import InvalidState
from websockets.extensions.base import Extension
from websockets.extensions.permessage_deflate import PerMessageDeflate, ServerPerMessageDeflateFactory
from websockets.frames import CTRL_OPCODES, Frame, Opcode
from websockets.typing import ExtensionParameter

from shashki.server.http.coalesce import CoalescedWrites

SOCKETS_LOGGER = "uvicorn.error.sockets"
SOCKETS_LOG = logging.getLogger(SOCKETS_LOGGER)
THRESHOLD = 1024  # bytes of a message's text below which it goes uncompressed
# The scope extension through which the app sends a text message without awaiting (`send_text_now`).
SEND_NOW = "shashki.send_now"


class ThresholdDeflate(PerMessageDeflate):
    """permessage-deflate that leaves a message of one frame under `THRESHOLD` bytes uncompressed."""

    def encode(self, frame: Frame) -> Frame:
        if (
            frame.fin
            and frame.opcode is not Opcode.CONT
            and frame.opcode not in CTRL_OPCODES
            and len(frame.data) < THRESHOLD
        ):
            # The whole message in this frame, RSV1 clear: the client reads it as it is. (A message in
            # several frames is compressed from its first frame on, as the base class does.)
            return frame
        return super().encode(frame)


class ThresholdDeflateFactory(ServerPerMessageDeflateFactory):
    """The server's side of the negotiation, as websockets does it, answering with `ThresholdDeflate`."""

    def process_request_params(
        self, params: Sequence[ExtensionParameter], accepted_extensions: Sequence[Extension]
    ) -> tuple[list[ExtensionParameter], PerMessageDeflate]:
        response, agreed = super().process_request_params(params, accepted_extensions)
        return response, ThresholdDeflate(
            agreed.remote_no_context_takeover,
            agreed.local_no_context_takeover,
            agreed.remote_max_window_bits,
            agreed.local_max_window_bits,
            agreed.compress_settings,
        )


class DeflateProtocol(WebSocketsSansIOProtocol):
    """uvicorn's WebSocket protocol offering `ThresholdDeflateFactory` (uvicorn's own settings: 12-bit
    windows both ways, zlib's memLevel 5) when `ws_per_message_deflate` is on, as it is by default.

    Its log lines go to `SOCKETS_LOGGER` (a child of uvicorn's): each socket's "[accepted]", "connection
    open" and "connection closed" at INFO, shown only with the access log (`SHASHKI_ACCESS_LOG`), and its
    errors, always shown."""

    _coalesced: CoalescedWrites | None = None  # the transport, once connected

    def connection_made(self, transport: BaseTransport) -> None:
        super().connection_made(transport)
        # A turn's frames to this socket in one write (coalesce.py).
        self._coalesced = CoalescedWrites(cast(Transport, transport), self.loop)
        self.transport = cast(Transport, self._coalesced)

    def pause_writing(self) -> None:
        """The peer reads less than it is sent: read nothing more from it until it has read what waits
        (found by an audit: a client sending pings and reading nothing had every one answered with a pong
        kept in this process's memory, hundreds of MB in seconds, the server slowed for everyone). Its
        data then waits in the network's buffers, not here. The app's own pause of reading (uvicorn's,
        while a message waits to be received) is kept apart: the transport reads again when both allow."""
        super().pause_writing()
        if self._coalesced is not None:
            self._coalesced.hold_reading(True)

    def resume_writing(self) -> None:
        super().resume_writing()
        if self._coalesced is not None:  # uvicorn's own pause may stand
            self._coalesced.hold_reading(False, resume=not self.read_paused)

    def handle_connect(self, event: Any) -> None:
        super().handle_connect(event)
        if getattr(self, "scope", None) is not None:  # a handshake answered: the app is to run
            self.scope["extensions"][SEND_NOW] = {"text": self.send_text_now}

    def send_text_now(self, text: str) -> bool:
        """Send a text message at once, as `send` does for `websocket.send` but without awaiting, when
        nothing stands in the way; False (nothing sent) when the socket is not open for the app's messages
        or its transport asked to stop writing: then the ASGI `send` must be used, which waits or raises.

        A game socket's messages of a move are sent from the event's publication (`http/sender.Sender`),
        not each through a task and the ASGI call chain (issue 11)."""
        if (
            not self.handshake_complete
            or self.close_sent
            or self.disconnected
            or self.initial_response is not None
            or not self.writable.is_set()
        ):
            return False
        try:
            self.conn.send_text(text.encode())
        except InvalidState:
            return False
        self.transport.write(b"".join(self.conn.data_to_send()))
        return True

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.logger = self.conn.logger = SOCKETS_LOG
        if self.config.ws_per_message_deflate:
            self.conn.available_extensions = [
                ThresholdDeflateFactory(
                    server_max_window_bits=12, client_max_window_bits=12, compress_settings={"memLevel": 5}
                )
            ]
