"""Rate limits on routes, as FastAPI dependencies: `Depends(per_address("logins"))`,
`Depends(per_account("challenges"))`, `Depends(computer_game)`.

The figures are in `shashki.server.limits.limit_table`; the counts are kept by `app.state.limits`
(in memory, or in Redis when it is configured). The address is the trusted client address: the TCP peer,
or what a trusted proxy said in X-Forwarded-For (shashki/server/http/edge.py).
"""

from __future__ import annotations

from fastapi import Depends, Request

from shashki.server.accounts import Actor
from shashki.server.errors import RateLimited
from shashki.server.http.auth import player
from shashki.server.http.deps import Games, Limits, Public


def client_address(request: Request) -> str:
    return request.client.host if request.client else ""


def per_address(name: str, what: str | None = None):
    """A dependency: one event of limit `name` for the request's client address."""

    async def limited(limits: Limits, request: Request) -> None:
        await limits.hit(name, client_address(request), what)

    return limited


def per_account(name: str, what: str | None = None):
    """A dependency: one event of limit `name` for the acting account (one that may play)."""

    async def limited(limits: Limits, actor: Actor = Depends(player)) -> None:
        # Keyed by the bare account id: the Bot API's challenge route counts in the same window.
        await limits.hit(name, str(actor.id), what)

    return limited


async def computer_game(public: Public, games: Games, limits: Limits, actor: Actor = Depends(player)) -> None:
    """A new game against the computer: within the rate, and under the cap of games at once."""
    at_once = public.computer_games_at_once
    if await games.queries.computer_games_of_player(actor.id) >= at_once:
        raise RateLimited(
            "too_many_computer_games",
            f"At most {at_once} games against the computer at once: finish or resign one first.",
            retry_after=60,
        )
    await limits.hit("computer_games", str(actor.id), "games against the computer")
