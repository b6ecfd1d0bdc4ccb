"""Players over HTTP: profiles, their games (paged, filtered), rating histories, leaderboards, and the
games being played now. Everything here is public; nothing here needs an account.
"""

from __future__ import annotations

from fastapi import APIRouter, Query

from shashki.server.history import GameFilter, tv
from shashki.server.http.deps import History, Ratings
from shashki.server.lidraughts import variant_key
from shashki.server.ratings import SPEEDS

router = APIRouter(prefix="/api", tags=["players"])


@router.get("/users/{username}", summary="A player's profile: ratings, rating history, game counts")
async def profile(username: str, history: History) -> dict:
    return await history.profile(username)


@router.get("/users/{username}/rating-history", summary="A player's rating after each rated game")
async def rating_history(
    username: str, history: History, ratings: Ratings, variant: str | None = None, speed: str | None = None
) -> dict:
    user = await history.player(username)
    key = variant_key(variant) if variant else None
    return {"history": await ratings.history(user.id, variant=key, speed=speed)}


@router.get("/users/{username}/games", summary="A player's games, newest first, a page at a time")
async def games(
    username: str,
    history: History,
    page: int = Query(1, ge=1),
    per_page: int = Query(20, ge=1, le=100),
    variant: str | None = None,
    result: str | None = Query(None, description="win, loss or draw, from this player's side"),
    speed: str | None = Query(
        None, description=f"Speeds, separated by commas: any of {', '.join(SPEEDS)}", max_length=200
    ),
    rated: bool | None = None,
    color: str | None = Query(None, description="white or black"),
    vs: str | None = Query(None, description="Only games against this player"),
) -> dict:
    f = GameFilter(variant=variant, speed=speed, rated=rated, color=color, vs=vs, result=result)
    return await history.games_page(username, f, page=page, per_page=per_page)


@router.get("/leaderboards/{variant}/{speed}", summary="The best established ratings of a variant and speed")
async def leaderboard(
    variant: str, speed: str, ratings: Ratings, limit: int = Query(100, ge=1, le=200)
) -> dict:
    key = variant_key(variant)
    return {
        "variant": key,
        "speed": speed,
        "players": await ratings.leaderboard(key, speed, limit=limit),
    }


@router.get("/leaderboards/{variant}", summary="The top ten of each speed of a variant")
async def leaderboards(variant: str, ratings: Ratings) -> dict:
    key = variant_key(variant)
    ratings = ratings
    tops = {speed: await ratings.leaderboard(key, speed, limit=10) for speed in SPEEDS}
    return {"variant": key, "speeds": tops}


@router.get("/now-playing", summary="Games being played now, the latest moves first")
async def now_playing(
    history: History, variant: str | None = None, limit: int = Query(30, ge=1, le=100)
) -> dict:
    return {"games": await history.now_playing(variant=variant, limit=limit)}


@router.get("/tv", summary="TV: the best-rated game in progress of each variant")
async def tv_channels(history: History, ratings: Ratings) -> dict:
    return {"channels": await tv.channels(history, ratings)}


@router.get("/tv/{variant}", summary="TV: one variant's best-rated game in progress, kept until it ends")
async def tv_channel(
    variant: str,
    history: History,
    ratings: Ratings,
    current: str | None = Query(None, description="The game shown now: kept while it is in play"),
) -> dict:
    return await tv.channel(history, ratings, variant, current)
