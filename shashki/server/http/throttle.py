"""Rate limits on routes, as FastAPI dependencies: `Depends(per_address("logins"))`,
`Depends(per_account("challenges"))`, `Depends(computer_game)`, `Depends(anonymous_game)`.

The figures are in `shashki.server.limits.limit_table`; the counts are kept by `app.state.limits`
(in memory, or in Redis when it is configured). The address is the trusted client address: the TCP peer,
or what a trusted proxy said in X-Forwarded-For (shashki/server/http/edge.py).
"""

from __future__ import annotations

from fastapi import Request

from shashki.server.errors import RateLimited
from shashki.server.http.auth import Player
from shashki.server.http.deps import Games, Limits, Public


def client_address(request: Request) -> str:
    return request.client.host if request.client else ""


def per_address(name: str, what: str | None = None):
    """A dependency: one event of limit `name` for the request's client address."""

    async def limited(limits: Limits, request: Request) -> None:
        await limits.hit(name, client_address(request), what)

    return limited


def per_account(name: str, what: str | None = None):
    """A dependency: one event of limit `name` for the acting player (an account, or an anonymous
    visitor's identity: the route itself says whether it admits them)."""

    async def limited(limits: Limits, actor: Player) -> None:
        # Keyed by the bare account id: the Bot API's challenge route counts in the same window.
        await limits.hit(name, str(actor.id), what)

    return limited


def _too_many(at_once: int) -> RateLimited:
    return RateLimited(
        "too_many_computer_games",
        f"At most {at_once} games against the computer at once: finish or resign one first.",
        retry_after=60,
    )


async def computer_game(public: Public, games: Games, limits: Limits, actor: Player) -> None:
    """A new game against the computer: within the rate, and under the cap of games at once (checked
    again once the game is made: `within_computer_cap`)."""
    at_once = public.computer_games_at_once
    if len(await games.queries.computer_games_of_player(actor.id)) >= at_once:
        raise _too_many(at_once)
    await limits.hit("computer_games", str(actor.id), "games against the computer")


async def within_computer_cap(public: Public, games: Games, actor: Player, game: dict) -> dict:
    """A game against the computer just made, kept if it is among the account's first games at once,
    else aborted and refused: requests sent at the same moment (to any process) all passed the check
    before, and this check after, ordering the games the same way for each, keeps exactly the first."""
    at_once = public.computer_games_at_once
    if game["id"] in (await games.queries.computer_games_of_player(actor.id))[at_once:]:
        await games.abort(actor.id, game["id"])
        raise _too_many(at_once)
    return game


async def anonymous_game(limits: Limits, request: Request, actor: Player) -> None:
    """A game started by an anonymous visitor (a seek, a link, the computer) counts against their address:
    a new anonymous identity costs nothing, so a limit per identity alone would hold nobody back."""
    if actor.anonymous:
        await limits.hit("anonymous_games", client_address(request), "games started anonymously")
