"""Computer analysis of a finished game over HTTP: ask for it (an account, within its limit), and read it
with its progress (anyone: a review is shown to everyone)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from shashki.server.accounts import Actor
from shashki.server.http.auth import player
from shashki.server.http.deps import Reviews
from shashki.server.http.throttle import per_account

router = APIRouter(prefix="/api/games", tags=["analysis"])


@router.post(
    "/{game_id}/analysis",
    status_code=202,
    summary="Ask for the computer's analysis of a finished game (once per game; limited per account)",
    dependencies=[Depends(per_account("reviews", "computer analyses"))],
)
async def request_review(game_id: str, reviews: Reviews, actor: Actor = Depends(player)) -> dict:
    return {"analysis": await reviews.request(game_id, actor.id)}


@router.get("/{game_id}/analysis", summary="The computer's analysis of a game: progress, evaluations, marks")
async def review(game_id: str, reviews: Reviews) -> dict:
    return {"analysis": await reviews.state(game_id)}
