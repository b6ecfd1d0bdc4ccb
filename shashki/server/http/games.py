"""Games over HTTP: their state (anyone may watch), and every action a player can take."""

from __future__ import annotations

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from shashki.server.accounts import Actor
from shashki.server.http.auth import any_player, any_reader
from shashki.server.http.deps import Bots, Games, Ratings
from shashki.server.ratings.speed import speed_of

router = APIRouter(prefix="/api", tags=["games"])


class MoveBody(BaseModel):
    move: str = Field(max_length=200, description="The move in any accepted notation: c3-d4, c3:e5:g3, 22-18")
    ply: int | None = Field(None, ge=0, description="Plies played before this move: guards against replays")
    lag_ms: int = Field(0, ge=0, description="The client's measured network delay (credited up to a bound)")


@router.get("/games/{game_id}", summary="A game's whole state: moves, legal moves, clocks, result")
async def game_state(game_id: str, games: Games) -> dict:
    return {"game": await games.get_state(game_id)}


@router.get("/games/{game_id}/ratings", summary="The players' ratings in the game's variant and speed")
async def game_ratings(game_id: str, games: Games, ratings: Ratings) -> dict:
    """Shown beside the players' names, as lichess does: a finished rated game's ratings as they were
    when it began; otherwise each player's rating now ("provisional" while it is). None for the computer's
    seat; an anonymous player's is the default, which the page does not show."""
    r = await games.record(game_id)
    speed = speed_of(r.clock_initial_ms, r.clock_increment_ms)
    now = await ratings.for_players([r.white_id, r.black_id], r.variant, speed)
    out: dict[str, dict | None] = {}
    seats = (
        ("white", r.white_id, r.white_rating, r.white_provisional),
        ("black", r.black_id, r.black_rating, r.black_provisional),
    )
    for color, user_id, stored, provisional in seats:
        if user_id is None:
            out[color] = None
        elif stored is not None:
            out[color] = {"rating": stored, "provisional": bool(provisional)}
        else:
            out[color] = {"rating": now[user_id]["rating"], "provisional": now[user_id]["provisional"]}
    return {"ratings": out, "speed": speed}


@router.get("/account/playing", summary="Your games in progress")
async def playing(bots: Bots, games: Games, actor: Actor = Depends(any_reader)) -> dict:
    # `nowPlaying`: the same games as lidraughts lists them, for bot clients.
    return {
        "games": await games.ongoing(actor.id),
        "nowPlaying": await bots.now_playing(actor.id),
    }


@router.post("/games/{game_id}/move", summary="Play a move (committed before this answers)")
async def move(game_id: str, body: MoveBody, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.move(actor.id, game_id, body.move, ply=body.ply, lag_ms=body.lag_ms)}


@router.post("/games/{game_id}/resign", summary="Resign")
async def resign(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.resign(actor.id, game_id)}


@router.post("/games/{game_id}/draw/offer", summary="Offer a draw (accepts one already offered to you)")
async def offer_draw(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.offer_draw(actor.id, game_id)}


@router.post("/games/{game_id}/moretime", summary="Give your opponent 15 seconds on their clock")
async def give_time(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.give_time(actor.id, game_id)}


@router.post("/games/{game_id}/draw/accept", summary="Accept your opponent's draw offer")
async def accept_draw(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.accept_draw(actor.id, game_id)}


@router.post("/games/{game_id}/draw/decline", summary="Decline your opponent's draw offer")
async def decline_draw(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.decline_draw(actor.id, game_id)}


@router.post(
    "/games/{game_id}/takeback/offer",
    summary="Ask to take your last move back (agreeing to your opponent's request; the computer agrees)",
)
async def offer_takeback(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.offer_takeback(actor.id, game_id)}


@router.post("/games/{game_id}/takeback/accept", summary="Agree to your opponent's takeback")
async def accept_takeback(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.accept_takeback(actor.id, game_id)}


@router.post("/games/{game_id}/takeback/decline", summary="Decline a takeback, or withdraw your own request")
async def decline_takeback(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.decline_takeback(actor.id, game_id)}


@router.post("/games/{game_id}/abort", summary="Abort the game (only before each side has moved)")
async def abort(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.abort(actor.id, game_id)}


@router.post(
    "/games/{game_id}/claim-victory",
    summary="Claim the win when the opponent has been disconnected long enough on their turn",
)
async def claim_victory(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.claim_victory(actor.id, game_id)}


@router.post(
    "/games/{game_id}/claim-draw",
    summary="Call it a draw when the opponent has been disconnected long enough on their turn",
)
async def claim_draw(game_id: str, games: Games, actor: Actor = Depends(any_player)) -> dict:
    return {"game": await games.claim_draw(actor.id, game_id)}
