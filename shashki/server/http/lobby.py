"""The lobby over HTTP: seeks, quick pairing, challenges (to a player, or by link), games against the
computer. Anonymous visitors may use every route here that names `Player` (issue 16); the lobby service
refuses them rated games and challenges by name, each with its reason."""

from __future__ import annotations

from dataclasses import replace
from typing import Literal

from fastapi import APIRouter, Depends, Path, Request
from pydantic import BaseModel, Field

from shashki.server.accounts import Actor
from shashki.server.errors import ServiceError
from shashki.server.games.terms import GameTerms
from shashki.server.http.auth import Player, Visitor, optional_actor
from shashki.server.http.deps import Games, Lobby, Public
from shashki.server.http.throttle import anonymous_game, computer_game, per_account, within_computer_cap
from shashki.server.lobby import DECLINE_REASONS, QUICK_PAIRING, TimeControl

router = APIRouter(prefix="/api", tags=["lobby"])


class TimeControlBody(BaseModel):
    minutes: float = Field(gt=0, le=180, description="Minutes on each clock")
    increment: int = Field(0, ge=0, le=180, description="Seconds added after each move (Fischer)")


class SeekBody(BaseModel):
    """The terms of a seek (`GameTerms`) and the colour asked for."""

    variant: str = Field("russian-giveaway", max_length=40)
    double_diagonal: bool = Field(False, description="Russian giveaway's optional double-diagonal draw rule")
    time_control: TimeControlBody | None = Field(None, description="Absent or null: no clocks")
    rated: bool = False
    color: Literal["white", "black", "random"] = "random"
    days: int | None = Field(
        None, description="A correspondence game: days per move (1, 2, 3, 5, 7, 14), time_control null"
    )

    def clock(self) -> TimeControl:
        tc = self.time_control
        return TimeControl(tc.minutes, tc.increment) if tc else TimeControl(None)

    def terms(self) -> GameTerms:
        terms = self.clock().terms(self.variant, self.double_diagonal, self.rated)
        return replace(terms, days_per_move=self.days)


class ChallengeBody(SeekBody):
    username: str = Field(max_length=30, description="The player challenged")
    fen: str | None = Field(None, max_length=300, description="Start from this position (FEN); casual only")

    def terms(self) -> GameTerms:
        terms = self.clock().terms(self.variant, self.double_diagonal, self.rated, self.fen)
        return replace(terms, days_per_move=self.days)


class QuickPairingBody(BaseModel):
    preset: str = Field(max_length=10, description=f"One of {', '.join(QUICK_PAIRING)}")
    variant: str = Field("russian-giveaway", max_length=40)
    rated: bool = False


class DeclineBody(BaseModel):
    reason: str = Field(default="generic", max_length=40, description=f"One of {', '.join(DECLINE_REASONS)}")


class ComputerGameBody(BaseModel):
    level: int = Field(1, ge=1, le=8)
    color: Literal["white", "black", "random"] = "random"
    variant: str = Field("russian-giveaway", max_length=40)
    double_diagonal: bool = False
    time_control: TimeControlBody | None = None


async def _viewer(request: Request) -> Actor | None:
    """Who looks at the seeks, if known; a credential that fails to resolve sees them as a visitor does
    (the list is public: it never answered 401)."""
    try:
        return await optional_actor(request)
    except ServiceError:
        return None


@router.get("/seeks", summary="Open seeks (but those of players blocked either way)")
async def list_seeks(lobby: Lobby, actor: Actor | None = Depends(_viewer)) -> dict:
    return {"seeks": await lobby.list_seeks(actor.id if actor else None)}


@router.post(
    "/seeks",
    summary="Post a seek; starts a game at once if a compatible seek is waiting",
    dependencies=[Depends(per_account("seeks")), Depends(anonymous_game)],
)
async def create_seek(body: SeekBody, lobby: Lobby, actor: Player) -> dict:
    return await lobby.create_seek(actor.user, body.terms(), color=body.color)


@router.post(
    "/seeks/{seek_id}/accept",
    summary="Accept a seek: starts the game",
    dependencies=[Depends(anonymous_game)],
)
async def accept_seek(seek_id: int, lobby: Lobby, actor: Player) -> dict:
    return {"game": await lobby.accept_seek(actor.user, seek_id)}


@router.delete("/seeks/{seek_id}", summary="Withdraw your seek")
async def cancel_seek(seek_id: int, lobby: Lobby, actor: Player) -> dict:
    await lobby.cancel_seek(actor.user, seek_id)
    return {"ok": True}


@router.post(
    "/quick-pairing",
    summary="Quick pairing: a seek with a preset clock (1+0 ... 15+15)",
    dependencies=[Depends(per_account("seeks")), Depends(anonymous_game)],
)
async def quick_pairing(body: QuickPairingBody, lobby: Lobby, actor: Player) -> dict:
    return await lobby.quick_pairing(actor.user, body.preset, variant=body.variant, rated=body.rated)


@router.get("/challenges", summary="Your pending challenges, received (in) and sent (out)")
async def list_challenges(lobby: Lobby, actor: Visitor) -> dict:
    return await lobby.challenges(actor.user)


@router.post(
    "/challenges",
    status_code=201,
    summary="Challenge a named player",
    dependencies=[Depends(per_account("challenges"))],
)
async def create_challenge(body: ChallengeBody, lobby: Lobby, actor: Player) -> dict:
    return {"challenge": await lobby.challenge(actor.user, body.username, body.terms(), color=body.color)}


@router.post("/challenges/{challenge_id}/accept", summary="Accept a challenge made to you: starts the game")
async def accept_challenge(challenge_id: int, lobby: Lobby, actor: Player) -> dict:
    return {"game": await lobby.accept_challenge(actor.user, challenge_id)}


@router.post("/challenges/{challenge_id}/decline", summary="Decline a challenge made to you, with a reason")
async def decline_challenge(
    challenge_id: int, lobby: Lobby, actor: Player, body: DeclineBody | None = None
) -> dict:
    await lobby.decline_challenge(actor.user, challenge_id, (body or DeclineBody()).reason)
    return {"ok": True}


@router.post("/challenges/{challenge_id}/cancel", summary="Cancel a challenge you made")
async def cancel_challenge(challenge_id: int, lobby: Lobby, actor: Player) -> dict:
    await lobby.cancel_challenge(actor.user, challenge_id)
    return {"ok": True}


@router.post(
    "/computer-games",
    status_code=201,
    summary="Play the computer (shashki.engine at a level from 1 to 8)",
    dependencies=[Depends(computer_game), Depends(anonymous_game)],
)
async def play_computer(
    body: ComputerGameBody, lobby: Lobby, public: Public, games: Games, actor: Player
) -> dict:
    tc = TimeControl(body.time_control.minutes, body.time_control.increment) if body.time_control else None
    game = await lobby.play_computer(
        actor.user,
        level=body.level,
        color=body.color,
        variant=body.variant,
        double_diagonal=body.double_diagonal,
        time_control=tc,
    )
    return {"game": await within_computer_cap(public, games, actor, game)}


# -- challenges by link ("play with a friend", lobby/links.py) -----------------------------------------

LinkKey = Path(min_length=4, max_length=16, pattern=r"^[A-Za-z0-9_-]+$", description="The link's secret")


@router.post(
    "/challenges/open",
    status_code=201,
    summary="Play with a friend: an open challenge whose link (/challenge/{link}) anyone may take",
    dependencies=[Depends(per_account("challenges")), Depends(anonymous_game)],
)
async def create_link(body: SeekBody, lobby: Lobby, actor: Player) -> dict:
    return {"challenge": await lobby.links.create(actor.user, body.terms(), color=body.color)}


@router.get("/challenges/open/{link}", summary="The challenge behind a link (anyone may look)")
async def show_link(lobby: Lobby, link: str = LinkKey) -> dict:
    return {"challenge": await lobby.links.show(link)}


@router.post(
    "/challenges/open/{link}/accept",
    summary="Take the seat of a link's challenge: the game starts for both (first come, only one)",
    dependencies=[Depends(anonymous_game)],
)
async def take_link(lobby: Lobby, actor: Player, link: str = LinkKey) -> dict:
    return {"game": await lobby.links.take(actor.user, link)}


@router.post("/challenges/open/{link}/cancel", summary="Withdraw your challenge by link")
async def cancel_link(lobby: Lobby, actor: Player, link: str = LinkKey) -> dict:
    await lobby.links.cancel(actor.user, link)
    return {"ok": True}
