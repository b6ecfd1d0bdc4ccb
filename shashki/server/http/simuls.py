"""Simultaneous exhibitions over HTTP and WebSocket (`server/simuls`).

Reading is open to anyone; announcing a simul, asking to play one and the host's answers need an account
that may play (a browser session, or a token with `board:play`); the service refuses anonymous visitors
and bots.

Socket `/ws/simuls/{id}`: `{"type": "simul", "simul": S}` on connecting and after every change (S as
`GET /api/simuls/{id}` gives it), and `{"type": "board", "board": B}` after every move of one of its
games (B as each player's `board` in S); `{"type": "resync"}` sends S again, `{"type": "ping"}` is
answered `pong`.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, WebSocket
from pydantic import BaseModel, Field

from shashki.server.accounts import Actor
from shashki.server.http.auth import player
from shashki.server.http.deps import Accounts, Bus, Simuls
from shashki.server.http.feeds import follow_channel
from shashki.server.http.sender import Sender
from shashki.server.http.throttle import per_account
from shashki.server.simuls import SimulTerms

router = APIRouter(tags=["simuls"])
ACTIONS = [Depends(per_account("simul_actions", "simul actions"))]


class ClockBody(BaseModel):
    initial: float = Field(gt=0, le=10_800, description="Seconds on each clock")
    increment: float = Field(0, ge=0, le=180, description="Seconds added after each move (Fischer)")


class CreateBody(BaseModel):
    name: str = Field(max_length=100)
    variant: str = Field("russian-giveaway", max_length=40)
    clock: ClockBody
    host_extra_minutes: float = Field(0, ge=0, le=60, description="Minutes more on the host's clock")
    host_color: str = Field("white", max_length=8, description="white, black or random (for each game)")
    text: str = Field("", max_length=2000, description="What the host tells the players")

    def terms(self) -> SimulTerms:
        return SimulTerms(
            self.name,
            self.variant,
            round(self.clock.initial * 1000),
            round(self.clock.increment * 1000),
            round(self.host_extra_minutes * 60_000),
            self.host_color,
            self.text,
        )


@router.get("/api/simuls", summary="Simuls: waiting for players, being played, the last 20 finished")
async def list_simuls(simuls: Simuls) -> dict:
    return await simuls.list()


@router.post(
    "/api/simuls",
    status_code=201,
    summary="Announce a simul (you host it)",
    dependencies=[Depends(per_account("simuls", "simuls announced"))],
)
async def create(body: CreateBody, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.create(actor.user, body.terms())


@router.get("/api/simuls/{simul_id}", summary="One simul: its players, their games, the host's score")
async def one(simul_id: str, simuls: Simuls) -> dict:
    return await simuls.get(simul_id)


@router.post("/api/simuls/{simul_id}/join", summary="Ask to play the host", dependencies=ACTIONS)
async def join(simul_id: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.join(actor.user, simul_id)


@router.post(
    "/api/simuls/{simul_id}/withdraw", summary="Take back your request to play", dependencies=ACTIONS
)
async def withdraw(simul_id: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.withdraw(actor.user, simul_id)


@router.post(
    "/api/simuls/{simul_id}/accept/{username}", summary="The host: take this player", dependencies=ACTIONS
)
async def accept(simul_id: str, username: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.accept(actor.user, simul_id, username)


@router.post(
    "/api/simuls/{simul_id}/unaccept/{username}",
    summary="The host: put this player back among those waiting",
    dependencies=ACTIONS,
)
async def unaccept(simul_id: str, username: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.accept(actor.user, simul_id, username, accepted=False)


@router.post(
    "/api/simuls/{simul_id}/remove/{username}",
    summary="The host: turn this player's request down",
    dependencies=ACTIONS,
)
async def remove(simul_id: str, username: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.remove(actor.user, simul_id, username)


@router.post(
    "/api/simuls/{simul_id}/start", summary="The host: start the accepted players' games",
    dependencies=ACTIONS,
)
async def start(simul_id: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.start(actor.user, simul_id)


@router.post(
    "/api/simuls/{simul_id}/cancel", summary="The host: call it off before it starts", dependencies=ACTIONS
)
async def cancel(simul_id: str, simuls: Simuls, actor: Actor = Depends(player)) -> dict:
    return await simuls.cancel(actor.user, simul_id)


@router.websocket("/ws/simuls/{simul_id}")
async def simul_socket(
    websocket: WebSocket, simul_id: str, accounts: Accounts, simuls: Simuls, bus: Bus
) -> None:
    async def state(_actor: Actor | None) -> dict:
        return {"type": "simul", "simul": await simuls.get(simul_id)}

    async def relay(send: Sender, _actor: Actor | None, event: dict) -> None:
        if event.get("type") in ("simul", "board"):
            await send(event)

    await follow_channel(websocket, accounts, bus, f"simul:{simul_id}", state, relay)
