"""The live channel: one WebSocket per open game, one for the lobby.

Game socket `/ws/games/{id}` — anyone may watch; players act. The server sends
- `{"type": "state", "seq": n, "game": {...}}` on connecting, on a resync, and after a change when the
  client may not hold the state before it: `seq` numbers the game's states; the state carries the whole
  game, the legal moves of the side to move and both clocks;
- `{"type": "patch", "seq": n, "from": n - 1, "set": {...}, "append": [...]}` after a change when the
  client holds state n - 1 (issue 11: not the whole game at every move): it sets the fields of `set` in
  its game (always the clocks and the next legal moves) and adds the notations of `append` to its
  `moves`; a client that sees a gap in `seq` has lost nothing but may send `{"type": "resync"}` to get
  the state again at once;
- `{"type": "ack", "id": ..., "ply": n}` once a move it sent is committed, or
  `{"type": "error", "id": ..., "error": {"code": ..., "message": ...}}` when an action is refused;
- `{"type": "presence", "white": bool, "black": bool, "spectators": n}` when a player or a spectator
  connects or disconnects (every process's connections, with Redis: games/presence.py);
- `{"type": "chat", "room": ..., "username": ..., "text": ..., ...}` for each chat line this client may
  read (shashki/server/chat), and `{"type": "chatSettings", "spectatorsClosed": bool}`.
A client sends `{"type": "move", "move": "c3-d4", "ply": 0, "id": 1, "lag_ms": 40}`, `resign`, `abort`,
`claim-victory`, `claim-draw`, `draw-offer`, `draw-accept`, `draw-decline`, `moretime` (give the opponent
15 s), `takeback-offer`, `takeback-accept`, `takeback-decline` (games/takeback.py),
`resync`, `ping`.
An action refused because the database or Redis is away is answered with the code `unavailable` (the
socket stays; send it again or resync). When the socket's session is logged out or its token revoked, in
any process, it gets an `error` with the code `credential_ended` and is closed with 4401.

Lobby socket `/ws/lobby` — numbered events (`n`) of the open seeks, the games being played now
(`nowPlaying`, see now_playing.py), and for a logged-in player the challenges made to them, their games
starting and the rematches offered to them (`rematchOffer`, `rematchCancelled`), and their notifications'
unread count (`notification`, shashki/server/notifications); `{"type": "resync"}` sends the lists again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect

from shashki.server.accounts import AccountService, Actor
from shashki.server.errors import ServiceError, Unauthorized
from shashki.server.events import DROPPED, text_of
from shashki.server.games.presence import SPECTATORS
from shashki.server.games.service import GameService
from shashki.server.http.deps import Accounts, AppSettings, Bus, Chat, Games, Lobby, Social, Watching
from shashki.server.http.errors import UNAVAILABLE, service_error_body, unavailable_body
from shashki.server.http.frames import answer_until_closed, receive_message
from shashki.server.http.sender import Sender
from shashki.server.http.socket_life import (
    TRY_AGAIN_LATER,
    _accept,
    _close_with,
    _credential_ended,
    _ended_with_credential,
)

log = logging.getLogger(__name__)
router = APIRouter()

GAME_ACTIONS = {
    "resign": "resign",
    "abort": "abort",
    "claim-victory": "claim_victory",
    "claim-draw": "claim_draw",
    "draw-offer": "offer_draw",
    "draw-accept": "accept_draw",
    "draw-decline": "decline_draw",
    "moretime": "give_time",
    "takeback-offer": "offer_takeback",
    "takeback-accept": "accept_takeback",
    "takeback-decline": "decline_takeback",
}


@router.websocket("/ws/games/{game_id}")
async def game_socket(
    websocket: WebSocket, game_id: str, accounts: Accounts, games: Games, bus: Bus, chat: Chat
) -> None:
    accepted, actor = await _accept(websocket, accounts)
    if not accepted:
        return
    send = Sender(websocket)
    try:
        await _serve_game(websocket, send, game_id, actor, accounts, games, bus, chat)
    except ServiceError as error:
        await _close_with(websocket, send, service_error_body(error), 4404)
    except UNAVAILABLE as error:
        # The database or Redis went away while the socket opened: the client comes back later.
        log.warning("game socket closed, a backing service is unavailable: %s", error)
        await _close_with(websocket, send, unavailable_body(), TRY_AGAIN_LATER)


async def _serve_game(websocket, send, game_id, actor, accounts, games, bus, chat) -> None:
    live = await games.live(game_id)
    color = live.seat(actor.id) if actor else None
    last_seq = 0

    async def send_state(resync: bool = False) -> None:
        nonlocal last_seq
        state = await games.get_state(game_id)
        last_seq = max(last_seq, state["seq"])
        await send({"type": "state", "seq": state["seq"], "game": state, "resync": resync})

    first_state_sent = asyncio.Event()
    forwarding = False  # the forwarding task is sending an event it took

    def deliver(event: dict) -> bool:
        """An event sent (or kept for after the action's answer: `Sender.deliver`) as it is published,
        without a task's turn, when nothing before it waits (issue 11: a task's wake-up per socket and
        move); False leaves it to the forwarding task, in order."""
        nonlocal last_seq
        if forwarding or not first_state_sent.is_set() or events.dropped:
            return False
        if event.get("type") != "state":
            return send.deliver(text_of(event))
        if event["seq"] <= last_seq:
            return True  # already sent (the first state and a published one can cross)
        if not send.deliver(outgoing(event, last_seq)):
            return False
        last_seq = event["seq"]
        return True

    async def resync(events) -> None:
        """Events were lost (the queue overflowed, Redis reconnected): the state as it stands now."""
        events.dropped = 0
        try:
            await send_state(resync=True)
        except UNAVAILABLE:
            # The client sees the gap in seq and asks for a resync once the database is back.
            await send(unavailable_body() | {"type": "error"})

    async def forward(events) -> None:
        nonlocal last_seq, forwarding
        await first_state_sent.wait()  # the first message on a game socket is always its state
        async for event in events:
            forwarding = True
            try:
                if event.get("type") == DROPPED:  # the bus's word of a loss, at once (`Subscription.wakes`)
                    if events.dropped:
                        await resync(events)
                    continue
                if event.get("type") == "state":
                    if event["seq"] <= last_seq:
                        continue  # already sent (the first state and a published one can cross)
                    if events.dropped:
                        await resync(events)
                        continue
                    text = outgoing(event, last_seq)
                    last_seq = event["seq"]
                    await send.text(text)
                    continue
                await send(event)
            finally:
                forwarding = False

    chat_lines = chat.feed(game_id, actor.id if actor else None, send, first_state_sent)
    async with (
        bus.subscribe(f"game:{game_id}") as events,
        chat_lines,
        _ended_with_credential(websocket, send, actor, accounts),
    ):
        events.deliver = deliver
        events.wakes = True
        forwarder = asyncio.create_task(forward(events))
        joined = False
        try:
            # The state first, then the presence news: with Redis the publication may come back fast.
            await send_state()
            first_state_sent.set()
            if color and actor:
                games.player_joined(game_id, color)
            else:
                games.presence.joined(game_id, SPECTATORS)
            joined = True
            await bus.publish(f"game:{game_id}", presence(games, game_id))
            act = Act(actor, color, game_id, games, send, send_state, accounts)  # the same for every message
            while True:
                message = await receive_message(websocket, send)  # garbage frames get an error each
                if not await handle_game_message(message, act):
                    await websocket.close(code=4401)
                    return
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            forwarder.cancel()
            with contextlib.suppress(BaseException):
                await forwarder
            if joined:
                with contextlib.suppress(BaseException):
                    if color and actor:
                        games.player_left(game_id, color)
                    else:
                        games.presence.left(game_id, SPECTATORS)
                with contextlib.suppress(BaseException):
                    await bus.publish(f"game:{game_id}", presence(games, game_id))


def outgoing(state: dict, held_seq: int) -> str:
    """What a game socket sends of a published state when its client holds the state `held_seq`: the
    patch from the state before when that is the one held (only what changed), else the whole state."""
    patch = getattr(state, "patch", None)
    return patch if patch is not None and state["seq"] == held_seq + 1 else text_of(state)


def presence(games: GameService, game_id: str) -> dict[str, Any]:
    return games.presence.as_json(game_id)


@dataclass(frozen=True)
class Act:
    """What an action on a game socket needs: who, in which seat, and the services."""

    actor: Actor | None
    color: str | None
    game_id: str
    games: GameService
    send: Sender
    send_state: Callable[..., Awaitable[None]]
    accounts: AccountService


async def handle_game_message(message, act: Act) -> bool:
    """Answer one message; False when the socket's credential has ended (the socket is then closed)."""
    actor, game_id, games, send = act.actor, act.game_id, act.games, act.send
    if not isinstance(message, dict):
        await send({"type": "error", "error": {"code": "bad_message", "message": "Send JSON objects."}})
        return True
    kind = message.get("type")
    request_id = message.get("id")
    acting = kind == "move" or kind in GAME_ACTIONS
    if acting:
        send.hold()  # what the action publishes to this socket follows its answer
    try:
        if kind == "ping":
            await send({"type": "pong", "id": request_id})
            return True
        if kind == "resync":
            await act.send_state(resync=True)
            return True
        if kind != "move" and kind not in GAME_ACTIONS:
            raise ServiceError("bad_message", f"Unknown message type {kind!r}.")
        if actor is None:
            raise Unauthorized("login_required", "Spectators cannot act in a game: log in to play.")
        # Authority is checked on every action, not once per connection (issue 10, point 1).
        if not await act.accounts.still_valid(actor):
            await send(service_error_body(_credential_ended()) | {"type": "error", "id": request_id})
            return False
        actor.require_play()
        if kind == "move":
            ply = message.get("ply")
            state = await games.move(
                actor.id,
                game_id,
                str(message.get("move", "")),
                ply=ply if isinstance(ply, int) else None,
                lag_ms=int(message.get("lag_ms") or 0),
            )
            await send({"type": "ack", "id": request_id, "ply": state["ply"], "seq": state["seq"]})
        else:
            state = await getattr(games, GAME_ACTIONS[kind])(actor.id, game_id)
            await send({"type": "ack", "id": request_id, "seq": state["seq"]})
    except ServiceError as error:
        await send(service_error_body(error) | {"type": "error", "id": request_id})
    except UNAVAILABLE as error:
        # The database or Redis is away (or SQLite busy): the action was not acknowledged, so the client
        # may send it again; the socket stays, and a resync once the service is back shows what holds.
        log.warning("a game action met an unavailable service: %s", error)
        await send(unavailable_body() | {"type": "error", "id": request_id})
    finally:
        if acting:
            await send.release()
    return True


@router.websocket("/ws/lobby")
async def lobby_socket(
    websocket: WebSocket,
    accounts: Accounts,
    lobby: Lobby,
    games: Games,
    bus: Bus,
    watching: Watching,
    social: Social,
    settings: AppSettings,
) -> None:
    accepted, actor = await _accept(websocket, accounts)
    if not accepted:
        return
    send = Sender(websocket)
    number = 0
    numbering = asyncio.Lock()
    viewer = actor.id if actor else None

    async def emit(event: dict) -> None:
        # Numbered and sent under one lock: several tasks emit (the lobby's and the player's channels, the
        # games being played), and a number sent out of order looks like a gap, which makes the client
        # ask for every list again.
        nonlocal number
        async with numbering:
            number += 1
            await send({"n": number, **event})

    async def snapshot() -> None:
        try:
            await emit({"type": "seeks", "seeks": await lobby.list_seeks(viewer)})
            await emit(await watching.current())
            if actor is not None:
                await emit({"type": "challenges", **await lobby.challenges(actor.user)})
                await emit({"type": "playing", "games": await games.ongoing(actor.id)})
        except UNAVAILABLE as error:
            # The client keeps its socket and asks for a resync later.
            log.warning("lobby snapshot: a backing service is unavailable: %s", error)
            await send(unavailable_body() | {"type": "error"})
        except ServiceError as error:  # a stored row the lobby cannot read: say so, keep the socket
            log.warning("lobby snapshot refused: %s", error.message)
            await send(service_error_body(error) | {"type": "error"})

    async def forward(events) -> None:
        events.wakes = True
        async for event in events:
            if event.get("type") == DROPPED:  # events were lost (Redis reconnected): the lists now
                if events.dropped:
                    events.dropped = 0
                    await snapshot()
                continue
            if event.get("type") in ("gameStart", "gameFinish"):
                watching.nudge()
            if event.get("type") == "relationsChanged":  # blocks changed: the seeks shown change
                event = {"type": "seeks", "seeks": await lobby.list_seeks(viewer)}
            elif event.get("type") == "seeks" and viewer is not None:
                # The lobby's list is everyone's: the seeks of players blocked either way are left out.
                hidden = await social.hidden_from(viewer)
                event = {**event, "seeks": [s for s in event["seeks"] if s["user"]["id"] not in hidden]}
            await emit(event)

    try:
        async with contextlib.AsyncExitStack() as stack:
            await stack.enter_async_context(watching.listen(emit))
            if viewer is not None:
                await stack.enter_async_context(social.online.connected(viewer))  # on the site now (social)
            channels = ["lobby"] + ([f"user:{actor.id}"] if actor else [])
            tasks = []
            for channel in channels:
                events = await stack.enter_async_context(bus.subscribe(channel))
                tasks.append(asyncio.create_task(forward(events)))
            # A player's private news stops with their session or token.
            await stack.enter_async_context(_ended_with_credential(websocket, send, actor, accounts))
            try:
                await snapshot()
                await answer_until_closed(websocket, send, snapshot)
            except (WebSocketDisconnect, RuntimeError):
                pass
            finally:
                for task in tasks:
                    task.cancel()
                for task in tasks:
                    with contextlib.suppress(BaseException):
                        await task
    except UNAVAILABLE as error:
        log.warning("lobby socket closed, a backing service is unavailable: %s", error)
        await _close_with(websocket, send, unavailable_body(), TRY_AGAIN_LATER)
    finally:
        if viewer is not None:  # a real-time seek leaves with its player (lobby/seeks.py)
            lobby.withdraw_when_gone(viewer, social.online.here, settings.seek_left_seconds)
