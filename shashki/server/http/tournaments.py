"""Tournaments over HTTP and WebSocket (issue 13; TOURNAMENT-CONTRACT.md).

Reading is open to anyone (the lobby and the tournament page, and bots: list, one, standings, pairings,
results, the games as PDN); entering and leaving need an account that may play — a browser session, or a
token with `board:play` or `bot:play` (bots join Swiss events and round robins; the service refuses them in
arenas); creating is for people (not bots), within the `tournaments` rate limit.

Socket `/ws/tournaments/{id}`: `{"type": "tournament", "tournament": T}` on connecting and after every
change (T's `me` is the viewer's own), and to a player who is paired `{"type": "paired", "game": id}`;
`{"type": "resync"}` sends T again, `{"type": "ping"}` is answered `pong`.
"""

from __future__ import annotations

import json
from datetime import datetime

from fastapi import APIRouter, Depends, Query, Request, WebSocket
from fastapi.responses import PlainTextResponse
from pydantic import BaseModel, Field

from shashki.server.accounts import Actor
from shashki.server.errors import Forbidden
from shashki.server.http.auth import optional_actor, player
from shashki.server.http.deps import Accounts, Bus, Tournaments
from shashki.server.http.exports import site
from shashki.server.http.feeds import follow_channel
from shashki.server.http.sender import Sender
from shashki.server.http.throttle import per_account
from shashki.server.tournaments.terms import TournamentTerms

router = APIRouter(tags=["tournaments"])


class ClockBody(BaseModel):
    initial: float = Field(gt=0, le=10_800, description="Seconds on each clock")
    increment: float = Field(0, ge=0, le=180, description="Seconds added after each move (Fischer)")


class CreateBody(BaseModel):
    name: str = Field(max_length=100)
    system: str = Field(max_length=20, description="arena, swiss or roundrobin")
    variant: str = Field("russian-giveaway", max_length=40)
    clock: ClockBody
    starts_at: datetime | None = Field(None, description="ISO 8601 UTC; null: in 2 minutes")
    minutes: int | None = Field(None, ge=0, le=100_000, description="An arena's duration")
    rounds: int | None = Field(None, ge=0, le=1000, description="A Swiss event's rounds")
    double: bool = Field(False, description="Round robin: each pair twice, colours reversed")
    rated: bool = True
    password: str | None = Field(None, max_length=200)
    min_rating: int | None = Field(None, ge=-100_000, le=100_000)
    min_games: int | None = Field(None, ge=-100_000, le=100_000)
    max_players: int | None = Field(None, ge=-100_000, le=100_000)

    def terms(self) -> TournamentTerms:
        return TournamentTerms(
            self.name,
            self.system,
            self.variant,
            self.clock.initial,
            self.clock.increment,
            self.starts_at,
            self.minutes,
            self.rounds,
            self.double,
            self.rated,
            self.password,
            self.min_rating,
            self.min_games,
            self.max_players,
        )


class JoinBody(BaseModel):
    password: str | None = Field(None, max_length=200)


class BerserkBody(BaseModel):
    game: str = Field(max_length=32)


def _viewer(actor: Actor | None) -> int | None:
    return actor.id if actor else None


@router.get("/api/tournaments", summary="Tournaments: coming, running, the last 20 finished")
async def list_tournaments(tournaments: Tournaments, actor: Actor | None = Depends(optional_actor)) -> dict:
    return await tournaments.list(_viewer(actor))


@router.post(
    "/api/tournaments",
    status_code=201,
    summary="Create a tournament (arena, swiss or roundrobin)",
    dependencies=[Depends(per_account("tournaments", "tournaments created"))],
)
async def create(body: CreateBody, tournaments: Tournaments, actor: Actor = Depends(player)) -> dict:
    if actor.user.is_bot:
        raise Forbidden("bots_cannot_create", "Bot accounts cannot create tournaments.")
    return await tournaments.create(actor.user, body.terms())


@router.get("/api/tournaments/{tournament_id}", summary="One tournament: standings, pairings, podium")
async def one(
    tournament_id: str, tournaments: Tournaments, actor: Actor | None = Depends(optional_actor)
) -> dict:
    return await tournaments.get(tournament_id, _viewer(actor))


@router.get("/api/tournaments/{tournament_id}/standings", summary="The standings, 20 players a page")
async def standings(tournament_id: str, tournaments: Tournaments, page: int = Query(1, ge=1)) -> dict:
    return await tournaments.standings(tournament_id, page)


@router.get(
    "/api/tournaments/{tournament_id}/pairings", summary="A round's pairings (arena: games now and recent)"
)
async def pairings(
    tournament_id: str, tournaments: Tournaments, round: int | None = Query(None, ge=1)
) -> dict:
    return await tournaments.pairings(tournament_id, round)


@router.get("/api/tournaments/{tournament_id}/results", summary="The standings, every player")
async def results(tournament_id: str, tournaments: Tournaments) -> dict:
    return await tournaments.results(tournament_id)


@router.get(
    "/api/tournaments/{tournament_id}/games.pdn", summary="Every game of the tournament, one PDN file"
)
async def games_pdn(tournament_id: str, tournaments: Tournaments, request: Request) -> PlainTextResponse:
    return PlainTextResponse(await tournaments.pdn(tournament_id, site=site(request)))


@router.post(
    "/api/tournaments/{tournament_id}/join",
    summary="Join (or come back after a pause)",
    dependencies=[Depends(per_account("tournament_actions", "tournament actions"))],
)
async def join(
    tournament_id: str, tournaments: Tournaments, body: JoinBody | None = None, actor: Actor = Depends(player)
) -> dict:
    return await tournaments.join(actor.user, tournament_id, body.password if body else None)


@router.post(
    "/api/tournaments/{tournament_id}/withdraw",
    summary="Withdraw (Swiss, round robin) or leave (arena)",
    dependencies=[Depends(per_account("tournament_actions", "tournament actions"))],
)
async def withdraw(tournament_id: str, tournaments: Tournaments, actor: Actor = Depends(player)) -> dict:
    return await tournaments.withdraw(actor.user, tournament_id)


@router.post(
    "/api/tournaments/{tournament_id}/pause",
    summary="Arena: not paired again until you join again",
    dependencies=[Depends(per_account("tournament_actions", "tournament actions"))],
)
async def pause(tournament_id: str, tournaments: Tournaments, actor: Actor = Depends(player)) -> dict:
    return await tournaments.pause(actor.user, tournament_id)


@router.post(
    "/api/tournaments/{tournament_id}/berserk", summary="Arena: halve your clock before your first move"
)
async def berserk(
    tournament_id: str, body: BerserkBody, tournaments: Tournaments, actor: Actor = Depends(player)
) -> dict:
    return await tournaments.berserk(actor.user, tournament_id, body.game)


def personal(event: dict, me: dict | None) -> str:
    """The tournament message with this viewer's `me`. T is encoded once per event, not once per socket
    (an arena of 200 players has 200 sockets): its text, without `me`, is kept on the event."""
    text = event.get("_text")
    if text is None:
        state = {k: v for k, v in event["tournament"].items() if k != "me"}
        text = event["_text"] = json.dumps(state)[:-1]
    return f'{{"type": "tournament", "tournament": {text}, "me": {json.dumps(me)}}}}}'


@router.websocket("/ws/tournaments/{tournament_id}")
async def tournament_socket(
    websocket: WebSocket, tournament_id: str, accounts: Accounts, tournaments: Tournaments, bus: Bus
) -> None:
    async def state(actor: Actor | None) -> dict:
        return {"type": "tournament", "tournament": await tournaments.get(tournament_id, _viewer(actor))}

    async def relay(send: Sender, actor: Actor | None, event: dict) -> None:
        viewer = _viewer(actor)
        if event.get("type") == "paired":
            if viewer in event.get("users", ()):
                await send({"type": "paired", "game": event["game"]})
        elif event.get("type") == "tournament":
            me = event.get("entries", {}).get(str(viewer)) if viewer is not None else None
            if viewer is not None and me is None:
                me = {"joined": False, "paused": False, "withdrawn": False, "game": None}
            await send.text(personal(event, me))

    await follow_channel(websocket, accounts, bus, f"tournament:{tournament_id}", state, relay)
