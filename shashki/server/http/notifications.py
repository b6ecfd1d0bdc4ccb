"""Notifications and the "your turn" list over HTTP (the correspondence player's pages): the list of a
player's notifications with the unread count, marking them read, and the games where it is their turn,
the most urgent first. The counter on every page updates live through the lobby socket (a
`{"type": "notification", "unread": n}` event on the player's channel; see `shashki.server.notifications`).
`unread` counts up to 100: 100 means 100 or more.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends, Query

from shashki.server.accounts import Actor
from shashki.server.http.auth import player, reader
from shashki.server.http.deps import Games, Notifications

router = APIRouter(prefix="/api", tags=["notifications"])


@router.get("/account/your-turn", summary="Your games where it is your turn, the least time left first")
async def your_turn(games: Games, actor: Actor = Depends(reader)) -> dict:
    return {"games": await games.your_turn(actor.id)}


@router.get("/notifications", summary="Your newest notifications and how many are unread")
async def list_notifications(
    notifications: Notifications,
    actor: Actor = Depends(reader),
    before: int | None = Query(None, ge=1, description="The next page: those older than this one's id"),
) -> dict:
    """The newest 50, newest first (`before`: the 50 older than the notification of that id, the next
    page); `unread` counts up to 100 (100 means 100 or more)."""
    return await notifications.list(actor.id, before=before)


@router.post("/notifications/read", summary="Mark all your notifications read")
async def read_all(notifications: Notifications, actor: Actor = Depends(player)) -> dict:
    marked = await notifications.mark_read(actor.id)
    return {"marked": marked, "unread": await notifications.unread(actor.id)}


@router.post("/notifications/{notification_id}/read", summary="Mark one of your notifications read")
async def read_one(
    notification_id: int, notifications: Notifications, actor: Actor = Depends(player)
) -> dict:
    marked = await notifications.mark_read(actor.id, notification_id)
    return {"marked": marked, "unread": await notifications.unread(actor.id)}
