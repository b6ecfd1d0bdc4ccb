"""The opening explorer over HTTP: `GET /api/explorer?variant=...&fen=...&moves=...` — the moves played
on this server from the position the FEN gives (the variant's start by default) after the moves listed
(in the variant's notation, separated by spaces or commas). Anyone may ask; no account needed.

`GET /api/explorer/book` (same parameters) answers the engine's opening book's moves for that position
(server/explorer/book.py): the analysis board's explorer panel shows both."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from shashki.rules import DEFAULT_VARIANT_KEY, Game, Position, RulesError
from shashki.rules.errors import IllegalMove
from shashki.rules.variant import UnknownVariant
from shashki.server.errors import Invalid
from shashki.server.explorer.book import book_moves_async
from shashki.server.http.deps import Explorer
from shashki.server.http.throttle import per_address

router = APIRouter(prefix="/api", tags=["explorer"])


@router.get(
    "/explorer",
    summary="The moves played on this server from a position, with their results",
    dependencies=[Depends(per_address("explorer"))],
)
async def explore(
    explorer: Explorer,
    variant: str = Query(DEFAULT_VARIANT_KEY, max_length=40),
    fen: str | None = Query(None, max_length=300),
    moves: str = Query("", max_length=4000),
    double_diagonal: bool = False,
) -> dict:
    return await explorer.moves(position_of(variant, fen, moves, double_diagonal))


@router.get(
    "/explorer/book",
    summary="The engine's opening book's moves for a position, with their weights and scores",
    dependencies=[Depends(per_address("explorer"))],
)
async def book(
    variant: str = Query(DEFAULT_VARIANT_KEY, max_length=40),
    fen: str | None = Query(None, max_length=300),
    moves: str = Query("", max_length=4000),
    double_diagonal: bool = False,
) -> dict:
    return await book_moves_async(position_of(variant, fen, moves, double_diagonal))


def position_of(variant: str, fen: str | None, moves: str, double_diagonal: bool) -> Position:
    """The position from the FEN (or the variant's start) after the moves; Invalid naming what is wrong."""
    try:
        game = Game(variant, fen, double_diagonal=double_diagonal) if fen else Game(
            variant, double_diagonal=double_diagonal
        )
    except RulesError as e:
        raise Invalid(e.code, e.message) from None
    except UnknownVariant as e:
        raise Invalid(e.code, str(e)) from None
    for ply, text in enumerate(moves.replace(",", " ").split()):
        try:
            game.play(text)
        except IllegalMove as e:
            raise Invalid(e.code, f"Move {ply + 1} ({text}): {e.message}") from None
        except RulesError as e:
            raise Invalid(e.code, f"Move {ply + 1} ({text}): {e.message}") from None
    return game.position
