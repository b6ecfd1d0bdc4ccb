"""The account's preferences of the pages' looks over HTTP: `GET` and `PUT /api/account/preferences`.

The browser client reads them after login and applies them (shashki/web/js/looks.js); the settings page
writes them. A `PUT` names only the fields it changes.
"""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter, Depends
from pydantic import BaseModel

from shashki.server.accounts import Actor
from shashki.server.http.auth import current_actor, reader
from shashki.server.http.deps import Preferences

router = APIRouter(prefix="/api", tags=["accounts"])


class LooksChange(BaseModel):
    # The same lists as accounts/preferences.py (THEMES, BOARDS, PIECES), spelled out for the API schema.
    theme: Literal["auto", "light", "dark"] | None = None
    board: Literal["wood", "marine"] | None = None
    pieces: Literal["ringed", "flat"] | None = None


@router.get("/account/preferences", summary="How the account wants the pages to look")
async def get_preferences(preferences: Preferences, actor: Actor = Depends(reader)) -> dict:
    return {"preferences": (await preferences.get(actor.id)).as_dict()}


@router.put("/account/preferences", summary="Change how the account wants the pages to look")
async def put_preferences(
    body: LooksChange, preferences: Preferences, actor: Actor = Depends(current_actor)
) -> dict:
    # A browser session may; a token only with a play scope (a read-only token changes nothing).
    if actor.via != "session":
        actor.require("board:play", "bot:play")
    looks = await preferences.update(actor.id, body.model_dump())
    return {"preferences": looks.as_dict()}
