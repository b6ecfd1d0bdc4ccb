"""Game chat over HTTP (the live channel and the game streams carry new lines as they come)."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel, Field

from shashki.server.accounts import Actor
from shashki.server.http.auth import any_player, optional_reader
from shashki.server.http.deps import Chat

router = APIRouter(prefix="/api/games", tags=["chat"])


class ChatBody(BaseModel):
    text: str = Field(max_length=1000, description="1 to 140 characters")
    room: Literal["player", "spectator"] | None = Field(
        None, description="player (the two players only) or spectator; a player's default is player"
    )


class SpectatorsBody(BaseModel):
    mode: Literal["show", "hide", "close"] = Field(
        description="show; hide (for yourself); close (nobody may write there any more in this game)"
    )


@router.get("/{game_id}/chat", summary="The chat lines you may read (spectators' room; players' room too)")
async def read(game_id: str, chat: Chat, actor: Actor | None = Depends(optional_reader)) -> dict:
    return await chat.lines(actor.user if actor else None, game_id)


@router.post("/{game_id}/chat", status_code=201, summary="Write a chat line (rate limited)")
async def write(game_id: str, body: ChatBody, chat: Chat, actor: Actor = Depends(any_player)) -> dict:
    return {"line": await chat.post(actor.user, game_id, body.text, body.room)}


@router.post("/{game_id}/chat/spectators", summary="A player's choice about the spectators' chat")
async def spectators(
    game_id: str, body: SpectatorsBody, chat: Chat, actor: Actor = Depends(any_player)
) -> dict:
    return await chat.set_spectators(actor.user, game_id, body.mode)
