"""Game exports over HTTP, on lidraughts' routes: one game (`/game/export/{id}`) as PDN or JSON, a
player's games (`/api/games/user/{username}`) streamed as PDN or NDJSON. The PDN replays with
`shashki pdn check` to the recorded result.

The format is chosen by the Accept header as on lidraughts (`application/json` for one game,
`application/x-ndjson` for a player's games; PDN otherwise) or by `?format=pdn|json|ndjson`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, PlainTextResponse, StreamingResponse

from shashki.server.errors import Invalid
from shashki.server.history import GameFilter
from shashki.server.http.deps import History
from shashki.server.ratings import SPEEDS

router = APIRouter(tags=["exports"])
PDN = "application/x-draughts-pdn"


def moment(ms: int | None) -> datetime | None:
    """A lidraughts timestamp (ms since 1970, UTC) as a time; None stays None."""
    if ms is None:
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise Invalid("bad_time", "since and until are times in ms since 1970 (UTC).") from None


def site(request: Request) -> str:
    return str(request.base_url).rstrip("/")


def wanted(request: Request, fmt: str | None, default: str, other: str, other_type: str) -> str:
    if fmt:
        return fmt
    return other if other_type in request.headers.get("accept", "") else default


CLOCKS = "Each move's clock in a PDN comment, [%clk H:MM:SS]"


@router.get("/game/export/{game_id}", summary="One game as PDN, or JSON (Accept: application/json)")
async def export_game(
    game_id: str,
    history: History,
    request: Request,
    format: str | None = Query(None, pattern="^(pdn|json)$"),
    clocks: bool = Query(True, description=CLOCKS),
):
    if wanted(request, format, "pdn", "json", "application/json") == "json":
        return JSONResponse(await history.json(game_id))
    return PlainTextResponse(await history.pdn(game_id, site=site(request), clocks=clocks), media_type=PDN)


@router.get("/api/games/{game_id}/pdn", summary="One game as PDN (the same as /game/export/{id})")
async def game_pdn(
    game_id: str, history: History, request: Request, clocks: bool = Query(True, description=CLOCKS)
) -> PlainTextResponse:
    text = await history.pdn(game_id, site=site(request), clocks=clocks)
    return PlainTextResponse(text, media_type=PDN)


@router.get(
    "/api/games/user/{username}",
    summary="A player's games, newest first, streamed as PDN or NDJSON (Accept: application/x-ndjson)",
)
async def export_user_games(
    username: str,
    history: History,
    request: Request,
    max: int | None = Query(None, ge=1, description="At most this many games"),
    variant: str | None = None,
    perfType: str | None = Query(
        None, description=f"Speeds, separated by commas: any of {', '.join(SPEEDS)}", max_length=200
    ),
    rated: bool | None = None,
    color: str | None = Query(None, description="white or black"),
    vs: str | None = None,
    result: str | None = Query(None, description="win, loss or draw"),
    ongoing: bool = Query(False, description="Include games in progress"),
    since: int | None = Query(None, ge=0, description="Games begun at or after this time (ms, UTC)"),
    until: int | None = Query(None, ge=0, description="Games begun at or before this time (ms, UTC)"),
    moves: bool = Query(True, description="Include the moves (a PDN keeps its result)"),
    tags: bool = Query(True, description="Include the PDN tags"),
    clocks: bool = Query(False, description=CLOCKS),
    format: str | None = Query(None, pattern="^(pdn|ndjson)$"),
) -> StreamingResponse:
    fmt = wanted(request, format, "pdn", "ndjson", "application/x-ndjson")
    f = GameFilter(
        variant=variant,
        speed=perfType,
        rated=rated,
        color=color,
        vs=vs,
        result=result,
        finished_only=not ongoing,
        since=moment(since),
        before=moment(None if until is None else until + 1),  # lidraughts' until, to the millisecond
    )
    chunks = await history.export(
        username, f, fmt=fmt, site=site(request), limit=max, moves=moves, tags=tags, clocks=clocks
    )
    media = PDN if fmt == "pdn" else "application/x-ndjson"
    return StreamingResponse(chunks, media_type=media)
