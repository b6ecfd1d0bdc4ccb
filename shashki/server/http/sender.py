"""What sends on a WebSocket of ours: one `Sender` a socket, used by every task that sends on it (the
socket's own, a forwarding task, a publication delivering to it), so that frames never interleave and
messages keep their order."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from fastapi import WebSocket
from starlette.websockets import WebSocketState

from shashki.server.events import text_of
from shashki.server.http.deflate import SEND_NOW


class Sender:
    """Sends from several tasks without interleaving frames.

    A message goes out at once, without awaiting, when the server offers it (`deflate.SEND_NOW`) and no
    other send is under way (`now`); else through the ASGI `send`, one at a time. While the socket's own
    action is answered (`hold`), what is delivered to it from a publication waits for the answer: a
    move's `ack` comes before the state it made, as it always did."""

    def __init__(self, websocket: WebSocket) -> None:
        self.websocket = websocket
        self._lock = asyncio.Lock()
        offered = (websocket.scope.get("extensions") or {}).get(SEND_NOW) or {}
        self._now: Callable[[str], bool] | None = offered.get("text")
        self._held: list[str] | None = None  # messages kept until the action's answer is sent
        self._waiting = 0  # sends under way or waiting through the ASGI `send`

    async def __call__(self, message: dict) -> None:
        await self.text(text_of(message))  # a published state's text is made once for all its sockets

    async def text(self, text: str) -> None:
        if self.now(text):
            return
        self._waiting += 1
        try:
            async with self._lock:
                await self.websocket.send_text(text)
        finally:
            self._waiting -= 1

    def now(self, text: str) -> bool:
        """Send `text` without awaiting if nothing stands in the way; False when it was not sent."""
        return (
            self._now is not None
            and not self._waiting
            and self.websocket.application_state is WebSocketState.CONNECTED
            and self._now(text)
        )

    def deliver(self, text: str) -> bool:
        """A published message sent now, or kept until the action under way is answered; False when
        neither could be done (the caller's task sends it later)."""
        if self._held is not None:
            self._held.append(text)
            return True
        return self.now(text)

    def hold(self) -> None:
        """Keep what is delivered from now on, until `release`: the socket's own action runs."""
        self._held = []

    async def release(self) -> None:
        """Send what was kept since `hold` (after the action's answer)."""
        held, self._held = self._held, None
        for text in held or ():
            await self.text(text)
