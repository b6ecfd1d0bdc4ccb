"""Who is asking: a browser session cookie (with a CSRF token on state-changing requests) or a personal
API token in `Authorization: Bearer`. Both resolve to an `Actor` of the accounts service.

A session may be an anonymous visitor's (issue 16): it is refused by `current_actor`, `player` and
`reader` — every route that does not say otherwise is for accounts — and accepted by `any_player` and
`any_reader`. The typed forms, for a route's signature like the services' in `deps.py` (they live here,
as `deps` cannot import this module without an import circle): `Player` (an account or an anonymous
visitor, allowed to play), `Visitor` (the same, reading), `Member` (an account allowed to play).
"""

from __future__ import annotations

import secrets
from typing import Annotated
from urllib.parse import urlsplit

from fastapi import Depends, Request, WebSocket

from shashki.server.accounts import AccountService, Actor
from shashki.server.errors import Forbidden, Unauthorized
from shashki.server.http.deps import accounts_of

SESSION_COOKIE = "shashki_session"
CSRF_HEADER = "X-CSRF-Token"
SAFE_METHODS = {"GET", "HEAD", "OPTIONS"}


async def resolve(accounts: AccountService, headers, cookies) -> Actor | None:
    authorization = headers.get("authorization")
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise Unauthorized("bad_token", "Send API tokens as 'Authorization: Bearer <token>'.")
        actor = await accounts.actor_for_token(token.strip())
        if actor is None:
            raise Unauthorized("bad_token", "This API token is unknown or revoked.")
        return actor
    session = cookies.get(SESSION_COOKIE)
    if session:
        return await accounts.actor_for_session(session)
    return None


async def optional_actor(request: Request) -> Actor | None:
    actor = await resolve(accounts_of(request), request.headers, request.cookies)
    if actor is not None and actor.via == "session" and request.method not in SAFE_METHODS:
        # The session cookie is sent by the browser on its own; the CSRF token only by our own pages.
        sent = request.headers.get(CSRF_HEADER, "")
        if not secrets.compare_digest(sent.encode(), (actor.csrf_token or "").encode()):
            raise Forbidden(
                "csrf", f"This request needs the session's CSRF token in the {CSRF_HEADER} header."
            )
    return actor


async def current_actor(request: Request) -> Actor:
    """An account (not an anonymous visitor), through its session or a token."""
    actor = await any_actor(request)
    actor.require_account()
    return actor


async def any_actor(request: Request) -> Actor:
    """An account or an anonymous visitor."""
    actor = await optional_actor(request)
    if actor is None:
        raise Unauthorized(
            "login_required",
            "Log in, send a personal API token, or play anonymously (POST /api/auth/anonymous).",
        )
    return actor


async def optional_reader(request: Request) -> Actor | None:
    """`optional_actor` for a read whose answer depends on the account (a game's players' chat): a
    credential without a reading scope is refused, as on the sockets (`websocket_actor`), rather than
    read as the account's (found by an audit: a `puzzle:write` token read the players' chat)."""
    actor = await optional_actor(request)
    if actor is not None:
        actor.require("read", "board:play", "bot:play")
    return actor


async def any_player(request: Request) -> Actor:
    """An actor allowed to play, anonymous visitors included (casual games; the services refuse them
    the rest with their reasons)."""
    actor = await any_actor(request)
    actor.require_play()
    return actor


async def any_reader(request: Request) -> Actor:
    actor = await any_actor(request)
    actor.require("read", "board:play", "bot:play")
    return actor


async def player(request: Request) -> Actor:
    """An actor allowed to play: a session, or a token with board:play or bot:play."""
    actor = await current_actor(request)
    actor.require_play()
    return actor


async def reader(request: Request) -> Actor:
    actor = await current_actor(request)
    actor.require("read", "board:play", "bot:play")
    return actor


async def websocket_actor(websocket: WebSocket, accounts: AccountService) -> Actor | None:
    """The actor of a WebSocket, refusing a cookie-authenticated one opened by another site's page, and a
    token whose scopes would not read the same over HTTP (`any_reader`: a socket carries the account's
    challenges, games in play, notifications and its players' chat; found by an audit: a `puzzle:write`
    token read them over the sockets)."""
    actor = await resolve(accounts, websocket.headers, websocket.cookies)
    if actor is not None and actor.via == "session":
        origin = websocket.headers.get("origin")
        if origin and urlsplit(origin).netloc != websocket.headers.get("host"):
            raise Forbidden("bad_origin", "This WebSocket was opened from another site.")
    if actor is not None:
        actor.require("read", "board:play", "bot:play")
    return actor


Player = Annotated[Actor, Depends(any_player)]
Visitor = Annotated[Actor, Depends(any_reader)]
Member = Annotated[Actor, Depends(player)]
