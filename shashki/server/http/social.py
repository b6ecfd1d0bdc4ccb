"""Following and blocking over HTTP, in lichess's shape (`/api/rel/follow/{username}` and the like).

Each route acts for the account asking and for no one else: the follower or blocker is always the
session's or the token's own account, never a name in the request. The lists are their owner's alone.
"""

from __future__ import annotations

from fastapi import APIRouter, Depends

from shashki.server.accounts import Actor
from shashki.server.http.auth import player, reader
from shashki.server.http.deps import Social

router = APIRouter(prefix="/api/rel", tags=["social"])


@router.post("/follow/{username}", summary="Follow a player: see when they are online or playing")
async def follow(username: str, social: Social, actor: Actor = Depends(player)) -> dict:
    await social.follow(actor.user, username)
    return {"ok": True}


@router.post("/unfollow/{username}", summary="Stop following a player")
async def unfollow(username: str, social: Social, actor: Actor = Depends(player)) -> dict:
    await social.unfollow(actor.user, username)
    return {"ok": True}


@router.post("/block/{username}", summary="Block a player: no challenges, chat or seeks between you")
async def block(username: str, social: Social, actor: Actor = Depends(player)) -> dict:
    await social.block(actor.user, username)
    return {"ok": True}


@router.post("/unblock/{username}", summary="Unblock a player")
async def unblock(username: str, social: Social, actor: Actor = Depends(player)) -> dict:
    await social.unblock(actor.user, username)
    return {"ok": True}


@router.get("/following", summary="The players you follow, who of them is online, and their games now")
async def following(social: Social, actor: Actor = Depends(reader)) -> dict:
    return {"following": await social.following(actor.user)}


@router.get("/blocking", summary="The players you block (nobody else sees this list)")
async def blocking(social: Social, actor: Actor = Depends(reader)) -> dict:
    return {"blocking": await social.blocking(actor.user)}


@router.get("/status/{username}", summary="Whether you follow and whether you block a player")
async def status(username: str, social: Social, actor: Actor = Depends(reader)) -> dict:
    return await social.relation(actor.user, username)
