"""Rematches over HTTP: offer (offering back accepts), accept, decline (or withdraw your offer).

A rematch that starts a game is held to the limits of a new game as the lobby's routes are: against the
computer its cap of games at once and its rate (`throttle.computer_game`), and for an anonymous visitor the
games started from their address (`throttle.anonymous_game`), checked just before the game starts.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request

from shashki.server.accounts import Actor
from shashki.server.games.rematch import BeforeStart
from shashki.server.http.auth import Player, any_player
from shashki.server.http.deps import Games, Limits, Public, Rematch
from shashki.server.http.throttle import anonymous_game, computer_game, within_computer_cap

router = APIRouter(prefix="/api/games", tags=["games"])


def new_game_limits(
    request: Request, limits: Limits, public: Public, games: Games, actor: Player
) -> BeforeStart:
    """A dependency: the check a rematch makes before it starts its game."""

    async def check(against_computer: bool) -> None:
        if against_computer:
            await computer_game(public, games, limits, actor)
        await anonymous_game(limits, request, actor)

    return check


@router.post(
    "/{game_id}/rematch",
    summary='Offer a rematch, colours swapped; accepts one offered to you ({"game": ...} once it starts)',
)
async def offer(
    game_id: str,
    rematch: Rematch,
    public: Public,
    games: Games,
    limits: Limits,
    actor: Actor = Depends(any_player),
    before_start: BeforeStart = Depends(new_game_limits),
) -> dict:
    # A new offer is a challenge, counted with them (found by an audit: offered and withdrawn 200 times a
    # minute, it flooded the opponent's stream, where challenges stop at the 20th); an acceptance is not.
    answer = await rematch.offer(
        actor.id, game_id, before_start, lambda: limits.hit("challenges", str(actor.id), None)
    )
    game = answer.get("game")
    if game is not None and any((game.get(side) or {}).get("computer") for side in ("white", "black")):
        await within_computer_cap(public, games, actor, game)  # the checks before pass races too
    return answer


@router.post("/{game_id}/rematch/accept", summary="Accept the rematch your opponent offered")
async def accept(
    game_id: str,
    rematch: Rematch,
    actor: Actor = Depends(any_player),
    before_start: BeforeStart = Depends(new_game_limits),
) -> dict:
    return await rematch.accept(actor.id, game_id, before_start)


@router.post("/{game_id}/rematch/decline", summary="Decline the rematch offered to you, or withdraw yours")
async def decline(game_id: str, rematch: Rematch, actor: Actor = Depends(any_player)) -> dict:
    return await rematch.decline(actor.id, game_id)
