"""A socket's life, the same for every socket of the site (a game's, the lobby's, a tournament's, a simul's,
the analysis board's): accepted with its actor (`_accept`: refused, with the reason, when the credential
or its scopes fail), closed with an `error` message and a close code (`_close_with`), and closed when its
session is logged out or its token revoked (`_ended_with_credential`)."""

from __future__ import annotations

import asyncio
import contextlib

from starlette.websockets import WebSocket

from shashki.server.accounts import AccountService, Actor
from shashki.server.errors import ServiceError, Unauthorized
from shashki.server.http.auth import websocket_actor
from shashki.server.http.errors import service_error_body
from shashki.server.http.sender import Sender

# The close code of a socket whose backing service is away (RFC 6455 registry: "Try Again Later").
TRY_AGAIN_LATER = 1013


async def _accept(websocket: WebSocket, accounts: AccountService) -> tuple[bool, Actor | None]:
    """Accept the socket and resolve its actor (None: anonymous); not accepted (and the socket closed
    with the reason) when authentication fails."""
    try:
        actor = await websocket_actor(websocket, accounts)
    except ServiceError as error:
        await websocket.accept()
        await websocket.send_json(service_error_body(error) | {"type": "error"})
        await websocket.close(code=4401 if error.kind == "unauthorized" else 4403)
        return False, None
    await websocket.accept()
    return True, actor


async def _close_with(websocket: WebSocket, send: Sender, body: dict, code: int) -> None:
    """An `error` message, then the close frame: a socket never just drops."""
    with contextlib.suppress(Exception):
        await send(body | {"type": "error"})
    with contextlib.suppress(Exception):
        await websocket.close(code=code)


@contextlib.asynccontextmanager
async def _ended_with_credential(websocket: WebSocket, send: Sender, actor, accounts: AccountService):
    """While the socket is open: when its session is logged out or its token revoked (in any process,
    accounts/revocation.py), say so and close it with 4401."""
    if actor is None:
        yield
        return
    async with accounts.watch(actor) as revoked:

        async def close_when_revoked() -> None:
            await revoked.wait()
            await _close_with(websocket, send, service_error_body(_credential_ended()), 4401)

        if not await accounts.still_valid(actor, fresh=True):  # ended before the watch began
            revoked.set()
        task = asyncio.create_task(close_when_revoked())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task


def _credential_ended() -> Unauthorized:
    return Unauthorized("credential_ended", "This session was logged out or its token revoked: log in again.")
