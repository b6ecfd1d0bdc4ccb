"""Accounts over HTTP: register, log in and out, the account, personal API tokens, the account's security
(its password, its sessions, closing it: accounts/security.py); and an anonymous visitor's session (issue
16), whose casual games go to the account it then logs in to."""

from __future__ import annotations

from fastapi import APIRouter, Depends, Request, Response
from pydantic import BaseModel, Field

from shashki.server.accounts import SCOPES, Actor
from shashki.server.http.auth import SESSION_COOKIE, Visitor, current_actor, optional_actor, reader
from shashki.server.http.deps import Accounts, AppSettings, Bots, Games, Limits, Lobby, Security
from shashki.server.http.throttle import client_address, per_address

router = APIRouter(prefix="/api", tags=["accounts"])


class Credentials(BaseModel):
    username: str = Field(max_length=30)
    password: str = Field(max_length=200)


class Registration(Credentials):
    bot: bool = Field(False, description="A bot account: it plays through tokens with the bot:play scope.")


class TokenRequest(BaseModel):
    scopes: list[str] = Field(max_length=10, description=f"Some of: {', '.join(SCOPES)}")
    description: str = Field("", max_length=100)


class PasswordChange(BaseModel):
    current_password: str = Field(max_length=200)
    new_password: str = Field(max_length=200, description="At least 8 characters, as at registration.")


class SessionsEnd(BaseModel):
    keep_current: bool = Field(True, description="Keep the session making the request (the default).")


class Closing(BaseModel):
    password: str = Field(max_length=200)


def user_json(user) -> dict:
    out = {"id": user.id, "username": user.username, "bot": user.is_bot}
    if user.anonymous:
        out["anonymous"] = True
    return out


def set_session_cookie(response: Response, token: str, settings, request: Request) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        token,
        httponly=True,
        samesite="lax",
        # Secure when the request came over TLS, as a trusted proxy says (http/edge.py), or when told.
        secure=settings.secure_cookies or request.url.scheme == "https",
        max_age=settings.session_days * 86400,
        path="/",
    )


@router.post(
    "/auth/register",
    status_code=201,
    summary="Create an account",
    dependencies=[Depends(per_address("registrations"))],
)
async def register(body: Registration, accounts: Accounts) -> dict:
    user = await accounts.register(body.username, body.password, bot=body.bot)
    return {"user": user_json(user)}


@router.post(
    "/auth/login",
    summary="Log in: sets the session cookie and returns the CSRF token",
    dependencies=[Depends(per_address("logins", "login attempts"))],
)
async def login(
    body: Credentials,
    settings: AppSettings,
    limits: Limits,
    accounts: Accounts,
    games: Games,
    lobby: Lobby,
    request: Request,
    response: Response,
) -> dict:
    await limits.hit("logins_per_account", body.username.lower(), "login attempts")
    user, token, csrf = await accounts.login(body.username, body.password)
    adopted = 0
    # Logging in from an anonymous visitor's session (registering logs in too) keeps its games: they go
    # to the account, and the anonymous session ends (issue 16). What it offered (a seek, a friend's
    # link) is withdrawn, as when an account closes: nobody could answer for it any more (found by an
    # audit: whoever took it played a ghost that nobody could move for). A bot account keeps none: a bot
    # plays no lobby game (found by an audit).
    previous = request.cookies.get(SESSION_COOKIE)
    if previous:
        anonymous = await accounts.actor_for_session(previous)
        if anonymous is not None and anonymous.anonymous:
            if not user.is_bot:
                adopted = await games.adopt_games(anonymous.id, user.id)
            await lobby.withdraw_offers_of(anonymous.user)
            await accounts.end_anonymous(anonymous, previous)
    set_session_cookie(response, token, settings, request)
    return {"user": user_json(user), "csrf_token": csrf, "games_kept": adopted}


@router.post(
    "/auth/anonymous",
    status_code=201,
    summary="Play without an account: an anonymous session (casual games only), or the session you have",
)
async def anonymous(
    settings: AppSettings,
    limits: Limits,
    accounts: Accounts,
    request: Request,
    response: Response,
    actor: Actor | None = Depends(optional_actor),
) -> dict:
    if actor is not None and actor.via == "session":
        return {"user": user_json(actor.user), "csrf_token": actor.csrf_token}
    # Free to make, so limited per address (limits.py: "anonymous_sessions").
    await limits.hit("anonymous_sessions", client_address(request), "anonymous sessions")
    user, token, csrf = await accounts.start_anonymous()
    set_session_cookie(response, token, settings, request)
    return {"user": user_json(user), "csrf_token": csrf}


@router.post("/auth/logout", summary="Log out: ends the session")
async def logout(
    accounts: Accounts, request: Request, response: Response, actor: Actor | None = Depends(optional_actor)
) -> dict:
    token = request.cookies.get(SESSION_COOKIE)
    if actor is not None and actor.via == "session" and token:
        await accounts.logout(token)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True}


@router.get("/account", summary="The account making the request (or the anonymous visitor)")
async def account(bots: Bots, actor: Visitor) -> dict:
    if actor.anonymous:  # the page learns its anonymous identity and CSRF token here
        return {"user": user_json(actor.user), "via": actor.via, "scopes": [], "csrf_token": actor.csrf_token}
    # lidraughts' account fields (id, username, title, createdAt, perfs) first, for bot clients.
    return {
        **await bots.account(actor.user),
        "user": user_json(actor.user),
        "via": actor.via,
        "scopes": sorted(actor.scopes),
        "csrf_token": actor.csrf_token,
    }


@router.get("/session", summary="This browser's session: its account, its anonymous identity, or none")
async def browser_session(bots: Bots, actor: Actor | None = Depends(optional_actor)) -> dict:
    """What the web client asks as each page loads: `/api/account` without its 401 for a visitor who has
    no session yet (a first visit is no error: `{"user": null}`)."""
    if actor is None:
        return {"user": None, "via": None, "scopes": [], "csrf_token": None}
    actor.require("read", "board:play", "bot:play")
    return await account(bots, actor)


@router.post("/account/bot", summary="Turn this account into a bot account (only before its first game)")
async def upgrade_to_bot(security: Security, actor: Actor = Depends(current_actor)) -> dict:
    if actor.via != "session":
        actor.require("bot:play")
    return {"user": user_json(await security.become_bot(actor))}


@router.get("/account/tokens", summary="The account's personal API tokens (without their secrets)")
async def list_tokens(accounts: Accounts, actor: Actor = Depends(reader)) -> dict:
    tokens = await accounts.list_tokens(actor)
    return {
        "tokens": [
            {
                "id": t.id,
                "description": t.description,
                "scopes": t.scopes.split(),
                "created_at": t.created_at.isoformat(),
            }
            for t in tokens
        ]
    }


@router.post("/account/tokens", status_code=201, summary="Create a personal API token (shown once)")
async def create_token(body: TokenRequest, accounts: Accounts, actor: Actor = Depends(current_actor)) -> dict:
    secret, token = await accounts.create_token(actor, body.scopes, body.description)
    return {"id": token.id, "token": secret, "scopes": token.scopes.split(), "description": token.description}


@router.delete("/account/tokens/{token_id}", summary="Revoke one of the account's API tokens")
async def revoke_token(token_id: int, accounts: Accounts, actor: Actor = Depends(current_actor)) -> dict:
    await accounts.revoke_token(actor, token_id)
    return {"ok": True}


# -- the account's security (accounts/security.py): from a browser session only, never with a token ------


@router.post(
    "/account/password",
    summary="Change the password (the current one is needed): the account's other sessions end, this "
    "session and the API tokens stay",
)
async def change_password(
    body: PasswordChange, security: Security, limits: Limits, actor: Actor = Depends(current_actor)
) -> dict:
    # Guessing the password through a stolen session counts with the logins' guesses at the account.
    await limits.hit("logins_per_account", actor.user.username_key, "password attempts")
    ended = await security.change_password(actor, body.current_password, body.new_password)
    return {"ok": True, "sessions_ended": ended}


@router.get("/account/sessions", summary="The account's open sessions (without their secrets)")
async def list_sessions(security: Security, actor: Actor = Depends(current_actor)) -> dict:
    sessions = await security.sessions(actor)
    return {
        "count": len(sessions),
        "sessions": [
            {
                "created_at": session.created_at.isoformat(),
                "expires_at": session.expires_at.isoformat(),
                "current": session.current,
            }
            for session in sessions
        ],
    }


@router.post(
    "/account/sessions/end",
    summary="Log out everywhere: end every session of the account but this one (`keep_current`, the "
    "default) or all of them, this one too; the API tokens stay",
)
async def end_sessions(
    security: Security,
    response: Response,
    body: SessionsEnd | None = None,
    actor: Actor = Depends(current_actor),
) -> dict:
    keep_current = body is None or body.keep_current
    ended = await security.end_sessions(actor, keep_current=keep_current)
    if not keep_current:
        response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ended": ended, "kept_current": keep_current}


@router.post(
    "/account/close",
    summary="Close the account (its password is needed; refused with 409 while it has games in play): every "
    "session and API token ends, its seeks, challenges and tournament entries are withdrawn; the name stays "
    "taken and the profile and finished games stay, shown as closed",
)
async def close_account(
    body: Closing,
    security: Security,
    limits: Limits,
    response: Response,
    actor: Actor = Depends(current_actor),
) -> dict:
    await limits.hit("logins_per_account", actor.user.username_key, "password attempts")
    await security.close(actor, body.password)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"ok": True, "closed": True}
