"""Rematches over HTTP: offer (offering back accepts), accept, decline (or withdraw your offer)."""

from __future__ import annotations

from fastapi import APIRouter, Depends

from shashki.server.accounts import Actor
from shashki.server.http.auth import any_player
from shashki.server.http.deps import Rematch

router = APIRouter(prefix="/api/games", tags=["games"])


@router.post(
    "/{game_id}/rematch",
    summary='Offer a rematch, colours swapped; accepts one offered to you ({"game": ...} once it starts)',
)
async def offer(game_id: str, rematch: Rematch, actor: Actor = Depends(any_player)) -> dict:
    return await rematch.offer(actor.id, game_id)


@router.post("/{game_id}/rematch/accept", summary="Accept the rematch your opponent offered")
async def accept(game_id: str, rematch: Rematch, actor: Actor = Depends(any_player)) -> dict:
    return await rematch.accept(actor.id, game_id)


@router.post("/{game_id}/rematch/decline", summary="Decline the rematch offered to you, or withdraw yours")
async def decline(game_id: str, rematch: Rematch, actor: Actor = Depends(any_player)) -> dict:
    return await rematch.decline(actor.id, game_id)
