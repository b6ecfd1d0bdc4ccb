"""Challenges by link: "play with a friend" (issue 16, point 2), as lichess's open challenges.

A link challenge is a row of the lobby's `challenges` table with no challenged player (`dest_user_id`
NULL) and a secret `link`: its page is `/challenge/<link>`. Whoever opens the page and takes the seat
first — an account or an anonymous visitor, anyone but its creator — plays: the seat is taken in the
transaction that creates the game (`GameService.create(within=...)`), guarded on the challenge being still
pending and seatless, so of two people taking it at once exactly one gets the game and the other a clear
`challenge_taken`. The game's `gameStart` reaches the creator on the lobby channel, which moves their
waiting page to the game.

A rated link challenge is made only by an account and taken only by one (rated games are between
registered players); without a clock or days per move it is casual, as every untimed game
(`GameTerms.checked`).
"""

from __future__ import annotations

import secrets
from dataclasses import replace

from sqlalchemy import select, update

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Forbidden, NotFound
from shashki.server.games.service import GameService
from shashki.server.games.statements import Claim
from shashki.server.games.terms import GameTerms
from shashki.server.lobby.models import Challenge
from shashki.server.lobby.offers import (
    Blocks,
    TimeControl,
    check_clock,
    check_color,
    refuse_across_a_block,
    seats,
)
from shashki.server.lobby.rows import CHALLENGES
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Update

LINK_LENGTH = 10  # characters of token_urlsafe: about 60 bits, not to be guessed


def refuse_rated_anonymous(user: User, rated: bool) -> None:
    """Rated games are between accounts: an anonymous visitor plays casual games only."""
    if rated and user.anonymous:
        raise Forbidden(
            "anonymous_rated", "Anonymous players play casual games only: register or log in to play rated."
        )


def refuse_bot(user: User) -> None:
    """Bots play by challenges, never from the lobby's seeks (lichess: a bot "cannot use lobby seeks or
    pools"; the Board API's seek is for people only): nobody seeking a game is paired with an engine."""
    if user.is_bot:
        raise Forbidden(
            "bot_account", "Bot accounts do not seek games in the lobby: challenge a player or be challenged."
        )


def player_json(user: User) -> dict:
    """A player as offers show them; an anonymous visitor is flagged (and named "Anonymous")."""
    out = {"id": user.id, "username": user.username, "bot": user.is_bot}
    if user.anonymous:
        out["anonymous"] = True
    return out


class ChallengeLinks:
    def __init__(
        self, db: Database, games: GameService, accounts: AccountService, *, min_clock_ms: int
    ) -> None:
        self.db = db
        self.games = games
        self.accounts = accounts
        self.min_clock_ms = min_clock_ms
        # The players' blocks (shashki.server.social), set with the lobby's: none on its own.
        self.blocks: Blocks | None = None

    async def create(self, user: User, terms: GameTerms, *, color: str = "random") -> dict:
        """An open challenge on `terms` (from the start position) with its link to send."""
        terms = check_clock(replace(terms, initial_fen=None).checked(), self.min_clock_ms)
        refuse_rated_anonymous(user, terms.rated)
        challenge = Challenge(
            challenger_id=user.id,
            dest_user_id=None,
            link=secrets.token_urlsafe(LINK_LENGTH)[:LINK_LENGTH],
            **terms.columns(),
            color=check_color(color),
            status="pending",
            created_at=utcnow(),
        )
        async with self.db.session() as s:
            s.add(challenge)
            await s.commit()
        return self._json(challenge, user)

    async def show(self, link: str) -> dict:
        """The challenge behind a link, whatever its status (its page shows who waits, or the game)."""
        challenge = await self._by_link(link)
        users = await self.accounts.users_by_id({challenge.challenger_id})
        if challenge.challenger_id not in users:
            raise NotFound("no_such_challenge", "There is no challenge behind this link.")
        return self._json(challenge, users[challenge.challenger_id])

    async def take(self, user: User, link: str) -> dict:
        """Take the seat: the game starts for both players (its state is returned)."""
        challenge = await self._by_link(link)
        if challenge.challenger_id == user.id:
            raise Conflict("own_challenge", "This is your own challenge: send its link to a friend.")
        if challenge.status != "pending":
            raise self._settled(challenge)
        if challenge.rated and user.anonymous:
            raise Forbidden("account_required", "This challenge is rated: register or log in to take it.")
        await refuse_across_a_block(self.blocks, user, challenge.challenger_id)
        white_id, black_id = seats(challenge.challenger_id, challenge.color, user.id)

        def seat(game_id: str) -> list[Claim]:
            taken = Update(
                CHALLENGES,
                {"status": "accepted", "dest_user_id": user.id, "game_id": game_id},
                {"id": challenge.id, "status": "pending", "dest_user_id": None},
            )
            return [Claim(taken, Conflict("challenge_taken", "Someone else took this challenge first."))]

        live = await self.games.create(
            white_id=white_id, black_id=black_id, terms=GameTerms.of(challenge), claims=seat
        )
        return self.games.state(live)

    async def cancel(self, user: User, link: str) -> None:
        """Withdraw one's own open challenge; its page then says so to whoever opens it."""
        challenge = await self._by_link(link)
        if challenge.challenger_id != user.id:
            raise Forbidden("not_yours", "Only the challenge's creator cancels it.")
        async with self.db.session() as s:
            done = await s.execute(
                update(Challenge)
                .where(Challenge.id == challenge.id, Challenge.status == "pending")
                .values(status="cancelled")
            )
            await s.commit()
        if rows_changed(done) != 1:
            raise self._settled(await self._by_link(link))

    async def is_link_game(self, game_id: str) -> bool:
        """Whether a game was started from a link (its players know each other: the chat allows
        anonymous players there, chat/service.py)."""
        async with self.db.session() as s:
            found = await s.scalar(
                select(Challenge.id).where(Challenge.game_id == game_id, Challenge.link.is_not(None))
            )
        return found is not None

    async def _by_link(self, link: str) -> Challenge:
        async with self.db.session() as s:
            challenge = await s.scalar(select(Challenge).where(Challenge.link == link))
        if challenge is None:
            raise NotFound("no_such_challenge", "There is no challenge behind this link.")
        return challenge

    @staticmethod
    def _settled(challenge: Challenge) -> Conflict:
        if challenge.status == "accepted":
            return Conflict(
                "challenge_taken", "Someone else took this challenge first.", game_id=challenge.game_id
            )
        return Conflict("challenge_settled", f"This challenge was {challenge.status}.")

    @staticmethod
    def _json(c: Challenge, challenger: User) -> dict:
        return {
            "id": c.id,
            "link": c.link,
            "url": f"/challenge/{c.link}",
            "status": c.status,
            "variant": c.variant,
            "double_diagonal": c.double_diagonal,
            "time_control": TimeControl.from_ms(c.clock_initial_ms, c.clock_increment_ms).json(),
            "rated": c.rated,
            "color": c.color,
            "challenger": player_json(challenger),
            "game_id": c.game_id,
        }
