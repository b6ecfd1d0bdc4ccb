"""The puzzle trainer over HTTP (shashki/server/puzzles). No account is needed to solve puzzles; a
member's first attempt at each puzzle is rated, and members have a history of their attempts.

- `GET /api/puzzles/next?variant=&theme=` — a puzzle near the player's puzzle rating, not played before.
- `GET /api/puzzles/daily?variant=` — the daily puzzle (one per variant per UTC day).
- `GET /api/puzzles/{id}` — one puzzle (its start, never its solution).
- `POST /api/puzzles/{id}/move` `{"line": [...]}` — the moves played from the start, ending with the
  solver's newest: `correct` (with the opponent's reply), `wrong` (with the expected move) or `solved`;
  a wrong or final move ends the attempt, recorded and (a member's first) rated. Limited per address
  (`puzzle_moves`, shashki/server/limits.py).
- `POST /api/puzzles/{id}/solution` — the whole solution; a member who has not tried the puzzle yet gives
  it up (a failed attempt, rated as a first attempt is).
- `GET /api/puzzles/history?page=` (members), `GET /api/puzzles/me?variant=`,
  `GET /api/puzzles/themes?variant=`.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Depends, Query, Request
from pydantic import BaseModel, Field

from shashki.rules import DEFAULT_VARIANT_KEY
from shashki.server.accounts import Actor
from shashki.server.http.auth import optional_actor, reader
from shashki.server.http.deps import Puzzles
from shashki.server.http.throttle import per_address

router = APIRouter(prefix="/api/puzzles", tags=["puzzles"])

VARIANT = Query(DEFAULT_VARIANT_KEY, max_length=40, description="The variant's key")


class MoveBody(BaseModel):
    line: list[str] = Field(max_length=64, description="The moves from the puzzle's start, yours last")


@router.get("/next", summary="A puzzle near your puzzle rating, not played before")
async def next_puzzle(puzzles: Puzzles, variant: str = VARIANT,
                      theme: str = Query("any", max_length=40, description="A theme, or any"),
                      actor: Actor | None = Depends(optional_actor)) -> dict:
    return {"puzzle": await puzzles.next(variant, theme, actor)}


@router.get("/daily", summary="The daily puzzle of a variant")
async def daily(puzzles: Puzzles, variant: str = VARIANT) -> dict:
    return await puzzles.daily(variant)


@router.get("/history", summary="Your attempts, newest first (members)")
async def history(puzzles: Puzzles, page: int = Query(1, ge=1), actor: Actor = Depends(reader)) -> dict:
    return await puzzles.history(actor, page)


@router.get("/me", summary="Your puzzle rating and counts in a variant")
async def me(puzzles: Puzzles, variant: str = VARIANT, actor: Actor | None = Depends(optional_actor)) -> dict:
    return await puzzles.me(variant, actor)


@router.get("/themes", summary="The variants with puzzles, and a variant's themes, with counts")
async def themes(puzzles: Puzzles, variant: str = VARIANT) -> dict:
    return await puzzles.themes(variant)


@router.get("/{puzzle_id}", summary="One puzzle (its start, not its solution)")
async def puzzle(puzzle_id: str, puzzles: Puzzles) -> dict:
    return {"puzzle": await puzzles.get(puzzle_id)}


async def solver(request: Request) -> Actor | None:
    """Who solves a puzzle: a visitor, a session, or a token with the puzzle:write scope (as on lichess): an
    attempt changes the account's puzzle rating, which a read-only token never does (found by an audit)."""
    actor = await optional_actor(request)
    if actor is not None and actor.via == "token":
        actor.require("puzzle:write")
    return actor


@router.post("/{puzzle_id}/move", summary="Play your next move of a puzzle",
             dependencies=[Depends(per_address("puzzle_moves", "puzzle moves"))])
async def move(puzzle_id: str, body: MoveBody, puzzles: Puzzles,
               actor: Actor | None = Depends(solver)) -> dict[str, Any]:
    return await puzzles.move(puzzle_id, list(body.line), actor)


@router.post("/{puzzle_id}/solution", summary="The whole solution (before an attempt: the puzzle given up)",
             dependencies=[Depends(per_address("puzzle_moves", "puzzle moves"))])
async def solution(puzzle_id: str, puzzles: Puzzles,
                   actor: Actor | None = Depends(solver)) -> dict[str, Any]:
    return await puzzles.solution(puzzle_id, actor)
