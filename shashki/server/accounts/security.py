"""An account's security, as on lichess: changing the password, ending the account's sessions ("log out
everywhere"), and closing the account; and turning it into a bot, which withdraws its offers as closing
does.

Each asks for a logged-in browser session (a token does none of it) and, but for ending sessions, the
account's password. Every session or token ended here is published like a logout (accounts/revocation.py),
so that the sockets and streams opened with it end too, in every process.

A password change ends the account's other sessions and keeps the one that made it, and the personal API
tokens (as lichess does: a token is revoked by hand). Closing ends every session and token; the row stays,
with `closed_at`: the name stays taken (nobody registers it again), the profile and finished games stay,
shown as closed, and the account never logs in again. What closing asks of other domains is wired in by
the app, as `AccountService.games_played` is: the account's games in play (`games_in_play`: while there
are any, it does not close) and what each domain withdraws (`closing_hooks`: the lobby's seeks and
challenges, the tournaments' entries).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.accounts.models import ApiToken, Session, User
from shashki.server.accounts.service import AccountService, Actor, check_password_strength
from shashki.server.errors import Conflict, Forbidden, log_failure
from shashki.server.storage import rows_changed
from shashki.server.storage.base import utcnow

log = logging.getLogger(__name__)

ClosingHook = Callable[[User], Awaitable[object]]


@dataclass(frozen=True)
class OpenSession:
    """One of the account's sessions that have not ended, as its owner sees it (no secret in it)."""

    created_at: datetime
    expires_at: datetime
    current: bool  # the session asking


class AccountSecurity:
    def __init__(self, accounts: AccountService) -> None:
        self.accounts = accounts
        self.db = accounts.db
        # The ids of the account's games in play: the games service's answer, wired in by the app.
        # Without it, no account plays.
        self.games_in_play: Callable[[int], Awaitable[list[str]]] | None = None
        # What the other domains withdraw as an account closes, each told the account (set by the app).
        self.closing_hooks: list[ClosingHook] = []
        # Aborting one of the account's games (the games service's `abort`, set by the app): a game that
        # started with the account as it closed (a seek or challenge accepted meanwhile) is called off.
        self.abort_game: Callable[[int, str], Awaitable[object]] | None = None

    # -- the password ------------------------------------------------------------------------------

    async def change_password(self, actor: Actor, current: str, new: str) -> int:
        """Set a new password (the registration's rule) once the current one is given; the account's
        other sessions end, this one and the API tokens stay. How many sessions ended."""
        user = await self._confirmed(actor, current, "The current password is wrong: nothing was changed.")
        check_password_strength(new)
        password_hash = await asyncio.to_thread(self.accounts.hasher.hash, new)
        async with self.db.session() as s:
            # Compare-and-set on the password checked: of two changes at once, one is made, the other
            # refused as a wrong password would be (its session is the one the first change ends).
            changed = await s.execute(
                update(User)
                .where(User.id == user.id, User.password_hash == user.password_hash)
                .values(password_hash=password_hash)
            )
            if rows_changed(changed) != 1:
                raise Conflict("password_changed", "The password was changed meanwhile: nothing was changed.")
            ended = await self._end_sessions(s, user.id, keep=actor.credential)
            await s.commit()
        await self._publish(user.id, ended)
        return len(ended)

    # -- sessions ------------------------------------------------------------------------------------

    async def sessions(self, actor: Actor) -> list[OpenSession]:
        """The account's sessions that have not ended nor expired, oldest first."""
        self._require_session(actor)
        async with self.db.session() as s:
            rows = await s.execute(
                select(Session.token_hash, Session.created_at, Session.expires_at)
                .where(Session.user_id == actor.id, Session.expires_at > utcnow())
                .order_by(Session.id)
            )
            return [OpenSession(made, expires, digest == actor.credential) for digest, made, expires in rows]

    async def end_sessions(self, actor: Actor, *, keep_current: bool = True) -> int:
        """Log out everywhere: end every session of the account, but for the one asking when
        `keep_current`. How many ended. The API tokens stay (each is revoked on its own)."""
        self._require_session(actor)
        async with self.db.session() as s:
            ended = await self._end_sessions(s, actor.id, keep=actor.credential if keep_current else None)
            await s.commit()
        await self._publish(actor.id, ended)
        return len(ended)

    # -- closing the account ---------------------------------------------------------------------------

    async def close(self, actor: Actor, password: str) -> None:
        """Close the account for good (Conflict `games_in_play` while it plays: those end first)."""
        user = await self._confirmed(actor, password, "The password is wrong: the account stays open.")
        playing = await self.games_in_play(user.id) if self.games_in_play is not None else []
        if playing:
            raise Conflict(
                "games_in_play",
                f"You have {len(playing)} game(s) in play: finish or resign them, then close the account.",
                games=playing,
            )
        # Closed first: from here on no session or token of the account is taken for it (the accounts
        # service refuses a closed account's), even one opened while the rest is done.
        async with self.db.session() as s:
            closed = await s.execute(
                update(User).where(User.id == user.id, User.closed_at.is_(None)).values(closed_at=utcnow())
            )
            ended = await self._end_sessions(s, user.id, keep=None)
            unrevoked = (ApiToken.user_id == user.id, ApiToken.revoked_at.is_(None))
            tokens = list(await s.scalars(select(ApiToken.token_hash).where(*unrevoked)))
            await s.execute(update(ApiToken).where(*unrevoked).values(revoked_at=utcnow()))
            await s.commit()
        await self._publish(user.id, ended + tokens)
        if rows_changed(closed) != 1:
            return  # closed at the same moment by another request, which withdraws the rest
        await self._withdraw_offers(user, "closed account")
        # A seek or challenge accepted as the account closed started a game it will not play: called off
        # (at its first move still: it began a moment ago).
        for game_id in await self.games_in_play(user.id) if self.games_in_play is not None else []:
            try:
                if self.abort_game is not None:
                    await self.abort_game(user.id, game_id)
            except Exception:  # noqa: BLE001  (its clock or first-move timer ends it then)
                log_failure(log, "aborting game %s of closed account %s", game_id, user.id)

    async def is_closed(self, user_id: int) -> bool:
        """Whether the account is closed (an account that is not there counts as closed)."""
        found = await self.accounts.users_by_id({user_id})
        return user_id not in found or found[user_id].closed

    # -- shared ----------------------------------------------------------------------------------------

    @staticmethod
    def _require_session(actor: Actor) -> None:
        actor.require_account()
        if actor.via != "session":
            raise Forbidden("session_required", "This is done from a logged-in browser session, not a token.")

    async def _confirmed(self, actor: Actor, password: str, wrong: str) -> User:
        """The actor's account, once its password is given (else Forbidden `wrong_password`, saying
        `wrong`)."""
        self._require_session(actor)
        if not await self.accounts.password_matches(actor.user, password):
            raise Forbidden("wrong_password", wrong)
        return actor.user

    @staticmethod
    async def _end_sessions(s: AsyncSession, user_id: int, *, keep: str | None) -> list[str]:
        """Delete the account's sessions (but `keep`, a session's digest) in `s`: their digests."""
        query = select(Session.token_hash).where(Session.user_id == user_id)
        if keep is not None:
            query = query.where(Session.token_hash != keep)
        digests = list(await s.scalars(query))
        if digests:
            await s.execute(delete(Session).where(Session.token_hash.in_(digests)))
        return digests

    async def _publish(self, user_id: int, digests: list[str]) -> None:
        """Tell every process these credentials ended: their sockets and streams close."""
        for digest in digests:
            await self.accounts.revocations.publish(user_id, digest)

    async def become_bot(self, actor: Actor) -> User:
        """Turn the account into a bot account (`AccountService.upgrade_to_bot`: only before its first
        game) and withdraw what it offered as a person, as closing does: a bot plays no lobby game and
        no arena (found by an audit: a seek and an arena entry made before the upgrade stayed, and a
        person took the seek, the arena paired the bot)."""
        user = await self.accounts.upgrade_to_bot(actor)
        await self._withdraw_offers(user, "account turned bot")
        return user

    async def _withdraw_offers(self, user: User, what: str) -> None:
        for hook in self.closing_hooks:
            try:
                await hook(user)
            except Exception:  # noqa: BLE001  (the account is changed: the other hooks still run)
                log_failure(log, "withdrawing what %s %s offered", what, user.id)
