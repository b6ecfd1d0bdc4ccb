"""A socket that follows one channel of the event bus for a page (a tournament, a simul): the state on
connecting, each event relayed as it comes, `resync` sending the state again and `ping` answered `pong`
(`frames.answer_until_closed`); closed with the service's error (4404, e.g. no such tournament) or, when a
backing service is unavailable, with 1013 (try again later); ended as any socket when its credential
ends."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable

from starlette.websockets import WebSocket

from shashki.server.accounts import AccountService, Actor
from shashki.server.errors import ServiceError
from shashki.server.events import DROPPED, EventBus
from shashki.server.http.errors import UNAVAILABLE, service_error_body, unavailable_body
from shashki.server.http.frames import answer_until_closed
from shashki.server.http.sender import Sender
from shashki.server.http.socket_life import TRY_AGAIN_LATER, _accept, _close_with, _ended_with_credential

log = logging.getLogger(__name__)

State = Callable[[Actor | None], Awaitable[dict]]  # the whole state, for this viewer
Relay = Callable[[Sender, Actor | None, dict], Awaitable[None]]  # an event, sent on as this viewer sees it


async def follow_channel(
    websocket: WebSocket, accounts: AccountService, bus: EventBus, channel: str, state: State, relay: Relay
) -> None:
    accepted, actor = await _accept(websocket, accounts)
    if not accepted:
        return
    send = Sender(websocket)

    async def send_state() -> None:
        await send(await state(actor))

    async def forward(events) -> None:
        events.wakes = True
        async for event in events:
            if event.get("type") == DROPPED:  # events were lost (Redis reconnected): the state now
                if events.dropped:
                    events.dropped = 0
                    try:
                        await send_state()
                    except UNAVAILABLE:  # the client asks for a resync once the database is back
                        await send(unavailable_body() | {"type": "error"})
                continue
            await relay(send, actor, event)

    try:
        async with bus.subscribe(channel) as events, _ended_with_credential(websocket, send, actor, accounts):
            await send_state()
            forwarder = asyncio.create_task(forward(events))
            try:
                await answer_until_closed(websocket, send, send_state)
            finally:
                forwarder.cancel()
                with contextlib.suppress(BaseException):
                    await forwarder
    except ServiceError as error:
        await _close_with(websocket, send, service_error_body(error), 4404)
    except UNAVAILABLE as error:
        log.warning("%s socket closed, a backing service is unavailable: %s", channel, error)
        await _close_with(websocket, send, unavailable_body(), TRY_AGAIN_LATER)
