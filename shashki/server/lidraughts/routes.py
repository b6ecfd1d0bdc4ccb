"""The Bot and Board APIs over HTTP, on lidraughts' routes (docs/bot-api.md has the whole story).

- `/api/bot/*` needs a bot account and a token with the `bot:play` scope; `/api/board/*` a person's
  account and `board:play`. The event stream and the challenge routes take either.
- Streams are NDJSON (`application/x-ndjson`): one JSON object per line, and an empty line every few
  seconds while nothing happens, so that clients and proxies see the connection alive.
- Forms are read as lidraughts clients send them (`application/x-www-form-urlencoded`, or
  `multipart/form-data`); JSON bodies and query parameters work too; a body of another type is refused
  (`wire.fields`; the streams are written by `wire.ndjson`).
- Limits: `api_requests_per_minute` requests per account on these routes, `challenges_per_minute`
  challenges and `limit_seeks` seeks (each counted with the site's in one window), `event_streams` open
  event streams and `game_streams` open game streams per account.
  Beyond them the answer is 429 with a JSON error and a Retry-After header.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse

from shashki.server.accounts import Actor
from shashki.server.errors import Forbidden, Invalid, RateLimited
from shashki.server.http.auth import current_actor
from shashki.server.http.deps import Accounts, Bots, Chat, Games, Limits, Security, Stopping
from shashki.server.lidraughts.api import days_of, time_control_of
from shashki.server.lidraughts.shapes import variant_key
from shashki.server.lidraughts.wire import fields, flag, ndjson, while_authorized
from shashki.server.limits import Limiter
from shashki.server.lobby import TimeControl

log = logging.getLogger(__name__)

router = APIRouter(tags=["bot and board API"])


async def _limited(limits: Limiter, actor: Actor) -> Actor:
    # The server's one limiter (shashki/server/limits.py): in Redis when configured, so shared by processes.
    await limits.hit("api_requests", str(actor.id), "API requests")
    return actor


async def bot_actor(request: Request, limits: Limits) -> Actor:
    actor = await current_actor(request)
    actor.require("bot:play")
    if not actor.user.is_bot:
        raise Forbidden("not_a_bot", "The Bot API is for bot accounts; people play through /api/board.")
    return await _limited(limits, actor)


async def board_actor(request: Request, limits: Limits) -> Actor:
    actor = await current_actor(request)
    actor.require("board:play")
    if actor.user.is_bot:
        raise Forbidden("bot_account", "Bot accounts play through /api/bot.")
    return await _limited(limits, actor)


async def any_player(request: Request, limits: Limits) -> Actor:
    actor = await current_actor(request)
    actor.require("bot:play", "board:play")
    return await _limited(limits, actor)


ACTORS = {"bot": bot_actor, "board": board_actor}


# -- the account's events -----------------------------------------------------------------------------


@router.get(
    "/api/stream/event",
    summary="Stream your events (NDJSON): challenge, challengeCanceled/Declined, gameStart, gameFinish",
)
async def stream_events(
    api: Bots, accounts: Accounts, stopping: Stopping, actor: Actor = Depends(any_player)
) -> StreamingResponse:
    streams = api.streams
    await streams.event_slots.check(actor.id)
    return ndjson(while_authorized(streams.events(actor.user), accounts, actor, stopping))


@router.post("/api/bot/account/upgrade", summary="Turn this account into a bot account (before any game)")
async def upgrade(security: Security, request: Request) -> dict:
    actor = await current_actor(request)
    if actor.via != "session":
        actor.require("bot:play")
    await security.become_bot(actor)  # what it offered as a person is withdrawn
    return {"ok": True}


@router.get(
    "/api/users/status",
    summary="Whether players are online and playing: ids (comma-separated names, at most 50)",
)
async def users_status(api: Bots, ids: str = "") -> list[dict]:
    # Mounted before /api/users/{username} (shashki/server/app.py), which would take "status" for a name.
    return await api.users_status(ids.split(","))


# -- games, for bots and for boards -------------------------------------------------------------------


def _game_routes(kind: str) -> None:
    who = ACTORS[kind]
    prefix = f"/api/{kind}/game"
    noun = "Bot" if kind == "bot" else "Board"

    async def stream(
        game_id: str, api: Bots, accounts: Accounts, stopping: Stopping, actor: Actor = Depends(who)
    ) -> StreamingResponse:
        streams = api.streams
        await streams.game_slots.check(actor.id)
        lines = streams.game_stream(actor.user, game_id)
        first = await anext(lines)  # errors (not your game, no such game) are still HTTP errors here

        async def all_lines() -> AsyncIterator[dict | None]:
            yield first
            async for line in lines:
                yield line

        return ndjson(while_authorized(all_lines(), accounts, actor, stopping))

    async def move(
        game_id: str,
        move: str,
        api: Bots,
        offeringDraw: bool = False,  # lidraughts' name: offer (or accept) a draw with the move
        actor: Actor = Depends(who),
    ) -> dict:
        return await api.move(actor.user, game_id, move, offering_draw=offeringDraw)

    async def draw(game_id: str, accept: str, api: Bots, actor: Actor = Depends(who)) -> dict:
        if accept not in ("yes", "no", "true", "false"):
            raise Invalid("bad_request", "Say yes (offer or accept a draw) or no (decline one).")
        return await api.draw(actor.user, game_id, accept in ("yes", "true"))

    async def resign(game_id: str, api: Bots, actor: Actor = Depends(who)) -> dict:
        return await api.resign(actor.user, game_id)

    async def takeback(game_id: str, accept: str, games: Games, actor: Actor = Depends(who)) -> dict:
        # lichess's Board API: yes asks for a takeback or agrees to the opponent's, no declines one.
        if accept not in ("yes", "no", "true", "false"):
            raise Invalid("bad_request", "Say yes (ask for or agree to a takeback) or no (decline one).")
        if accept in ("yes", "true"):
            await games.offer_takeback(actor.id, game_id)
        else:
            await games.decline_takeback(actor.id, game_id)
        return {"ok": True}

    async def abort(game_id: str, games: Games, actor: Actor = Depends(who)) -> dict:
        await games.abort(actor.id, game_id)
        return {"ok": True}

    async def claim_victory(game_id: str, games: Games, actor: Actor = Depends(who)) -> dict:
        await games.claim_victory(actor.id, game_id)
        return {"ok": True}

    async def claim_draw(game_id: str, games: Games, actor: Actor = Depends(who)) -> dict:
        await games.claim_draw(actor.id, game_id)
        return {"ok": True}

    async def write_chat(game_id: str, chat: Chat, request: Request, actor: Actor = Depends(who)) -> dict:
        data = await fields(request)
        room = data.get("room") or "player"
        try:
            await chat.post(actor.user, game_id, data.get("text", ""), room)
        except RateLimited:
            # A line over the chat's limit is dropped, answered as posted, as lidraughts does: its bot
            # client waits a whole minute after any 429, inside its game loop, and an opponent typing
            # "!help" (which it answers) a few times made it lose on time (found by an audit).
            log.info("a chat line over the limit dropped (game %s, account %s)", game_id, actor.id)
        return {"ok": True}

    async def read_chat(game_id: str, chat: Chat, actor: Actor = Depends(who)) -> list:
        lines = (await chat.lines(actor.user, game_id))["lines"]
        return [{"text": line["text"], "user": line["username"], "room": line["room"]} for line in lines]

    routes: list[tuple[str, str, Callable[..., Any], str]] = [
        ("GET", "/stream/{game_id}", stream, f"Stream a game (NDJSON): gameFull, gameState... ({noun})"),
        ("POST", "/{game_id}/move/{move}", move, "Play a move: square numbers, e.g. 3227 or 423122"),
        ("POST", "/{game_id}/draw/{accept}", draw, "Offer or accept a draw (yes), decline one (no)"),
        ("POST", "/{game_id}/resign", resign, "Resign (before each side has moved: abort)"),
        ("POST", "/{game_id}/abort", abort, "Abort the game (before each side has moved)"),
        ("POST", "/{game_id}/claim-victory", claim_victory, "Claim the win: the opponent left on their turn"),
        ("POST", "/{game_id}/claim-draw", claim_draw, "Call it a draw: the opponent left on their turn"),
        ("POST", "/{game_id}/chat", write_chat, "Write in the chat: room (player or spectator), text"),
        ("GET", "/{game_id}/chat", read_chat, "The chat lines you can see"),
    ]
    if kind == "board":  # a bot's games have no takebacks (games/takeback.py)
        summary = "Ask for or agree to a takeback (yes), decline one (no)"
        routes.append(("POST", "/{game_id}/takeback/{accept}", takeback, summary))
    for method, path, endpoint, summary in routes:
        router.add_api_route(
            prefix + path,
            endpoint,
            methods=[method],
            summary=summary,
            name=f"{kind}_{endpoint.__name__}",
            response_model=None,
        )


_game_routes("bot")
_game_routes("board")


# -- challenges ---------------------------------------------------------------------------------------


@router.get("/api/challenge", summary="Your pending challenges, received (in) and sent (out)")
async def list_challenges(api: Bots, actor: Actor = Depends(any_player)) -> dict:
    return await api.list_challenges(actor.user)


@router.post(
    "/api/challenge/{username}",
    summary="Challenge a player: rated, clock.limit (s), clock.increment (s), color, variant, fen",
)
async def create_challenge(
    username: str, api: Bots, limits: Limits, request: Request, actor: Actor = Depends(any_player)
) -> dict:
    await limits.hit("challenges", str(actor.id), "challenges")
    data = await fields(request)
    terms = {
        "variant": variant_key(data.get("variant") or "standard"),
        "time_control": time_control_of(data),
        "days_per_move": days_of(data),
        "rated": flag(data.get("rated")),
        "color": data.get("color") or "random",
        "initial_fen": data.get("fen") or None,
    }
    return await api.create_challenge(actor.user, username, terms)


@router.post("/api/challenge/{challenge_id}/accept", summary="Accept a challenge (or a rematch offer)")
async def accept_challenge(challenge_id: str, api: Bots, actor: Actor = Depends(any_player)) -> dict:
    return await api.accept(actor.user, challenge_id)


@router.post("/api/challenge/{challenge_id}/decline", summary="Decline a challenge, with a reason")
async def decline_challenge(
    challenge_id: str, api: Bots, request: Request, actor: Actor = Depends(any_player)
) -> dict:
    data = await fields(request)
    return await api.decline(actor.user, challenge_id, data.get("reason") or "generic")


@router.post("/api/challenge/{challenge_id}/cancel", summary="Cancel a challenge you made")
async def cancel_challenge(challenge_id: str, api: Bots, actor: Actor = Depends(any_player)) -> dict:
    return await api.cancel(actor.user, challenge_id)


# -- seeks --------------------------------------------------------------------------------------------


@router.post(
    "/api/board/seek",
    summary="Seek an opponent: rated, time (min), increment (s) or days, variant, color; open until paired",
)
async def seek(
    api: Bots,
    accounts: Accounts,
    limits: Limits,
    request: Request,
    stopping: Stopping,
    actor: Actor = Depends(board_actor),
) -> Response:
    await limits.hit("seeks", str(actor.id), "seeks")  # the site's seeks count in the same window
    data = await fields(request)
    try:
        minutes = float(data["time"]) if data.get("time") and not data.get("days") else None
        increment = int(data.get("increment") or 0)
    except ValueError:
        raise Invalid("bad_time_control", "time is minutes and increment seconds.") from None
    terms: dict[str, Any] = {
        "variant": variant_key(data.get("variant") or "standard"),
        "time_control": TimeControl(minutes, increment),
        "days_per_move": days_of(data),
        "rated": flag(data.get("rated")),
        "color": data.get("color") or "random",
    }
    api.lobby.new_seek(actor.user, **terms)  # refused now, with a 4xx, not in the stream after its 200
    if terms["days_per_move"] is not None:
        # A correspondence seek, as on lichess: not streamed; the answer is its id at once, and the seek
        # stays open until someone joins it (the game then starts on the event stream).
        made = await api.lobby.create_seek(actor.user, **terms)
        if made["seek"] is None:  # a waiting seek fitted: the game has started already
            return JSONResponse({"id": None, "gameId": made["game"]["id"]})
        return JSONResponse({"id": made["seek"]["id"]})
    return ndjson(while_authorized(api.seek(actor.user, terms), accounts, actor, stopping))
