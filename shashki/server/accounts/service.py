"""The account service. Secrets (session and API tokens) are random, shown once, and stored only as their
SHA-256; passwords are hashed with argon2id (argon2-cffi's defaults), off the event loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import re
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any, cast

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from sqlalchemy import Table, select, update
from sqlalchemy.exc import IntegrityError

from shashki.server.accounts.models import ApiToken, Session, User
from shashki.server.accounts.revocation import Revocations
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound, Unauthorized
from shashki.server.events import EventBus
from shashki.server.limits import RateLimiter  # noqa: F401  (the one limiter; imported from here before)
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import detached, utcnow
from shashki.server.storage.direct import Read, Row

# What a personal API token may do. A browser session may do everything its owner may.
SCOPES = {
    "board:play": "play games as a person through the API (not for bot accounts)",
    "bot:play": "play games as a bot (a bot account, or an account to upgrade to one, as on lichess)",
    "read": "read account details, games and the lobby",
    "puzzle:write": "solve puzzles: record attempts and the puzzle rating (lichess's scope)",
}
PLAY_SCOPES = frozenset({"board:play", "bot:play"})
# Matched whole (fullmatch): with `$`, "alice\n" would pass, `$` matching before a final newline.
USERNAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{1,19}")
MIN_PASSWORD = 8
# Names people could mistake for the server itself, and "status": /api/users/status is lidraughts' route
# for players' status, not that player's profile.
RESERVED = {"computer", "admin", "shashki", "system", "anonymous", "status"}


# An anonymous visitor's shown name (lichess's) and the start of its key, which no username has.
ANONYMOUS_NAME = "Anonymous"
ANONYMOUS_KEY_PREFIX = "~"
# The tables the credential check reads without a session (`still_valid`).
SESSIONS = cast(Table, Session.__table__)
API_TOKENS = cast(Table, ApiToken.__table__)
USERS = cast(Table, User.__table__)
USER_COLUMNS = tuple(column.key for column in USERS.columns)


def secret_digest(secret: str) -> str:
    """What is stored of a session or API token: its SHA-256 (a stolen table opens nothing)."""
    return hashlib.sha256(secret.encode()).hexdigest()


def check_password_strength(password: str) -> None:
    """The one rule of a new password, at registration and at a change (accounts/security.py)."""
    if len(password or "") < MIN_PASSWORD:
        raise Invalid("weak_password", f"A password has at least {MIN_PASSWORD} characters.")


@dataclass(frozen=True)
class Actor:
    """Who is making a request, and how: through a browser session (every scope) or an API token."""

    user: User
    via: str  # "session" or "token"
    scopes: frozenset[str] = field(default_factory=lambda: frozenset(SCOPES))
    csrf_token: str | None = None
    # The SHA-256 of the session or token the request came with: what a logout or a revocation names
    # (accounts/revocation.py), so that sockets and streams opened with it end too.
    credential: str = ""

    @property
    def id(self) -> int:
        return self.user.id

    def require(self, *any_of: str) -> None:
        if not self.scopes.intersection(any_of):
            needed = " or ".join(any_of)
            raise Forbidden("missing_scope", f"This token lacks the scope needed here: {needed}.")

    def require_play(self) -> None:
        self.require(*PLAY_SCOPES)

    @property
    def anonymous(self) -> bool:
        """An anonymous visitor's session (issue 16): casual games only, no account's rights."""
        return self.user.anonymous

    def require_account(self) -> None:
        """Refuse an anonymous visitor what only accounts may do (rated games, tournaments, the API)."""
        if self.anonymous:
            raise Forbidden(
                "account_required", "Anonymous players cannot do this: register or log in first."
            )


class AccountService:
    def __init__(
        self,
        db: Database,
        *,
        session_days: int = 30,
        argon2_memory_kib: int = 65536,
        argon2_time_cost: int = 3,
        bus: EventBus | None = None,
    ) -> None:
        self.db = db
        # Ended sessions and tokens, told to every process on the bus (accounts/revocation.py).
        self.revocations = Revocations(bus)
        self.hasher = PasswordHasher(memory_cost=argon2_memory_kib, time_cost=argon2_time_cost)
        self.session_days = session_days
        # How many games an account has played: the games service's answer, wired in by the app (the
        # accounts know nothing of the games' tables). Without it, no account has played.
        self.games_played: Callable[[int], Awaitable[int]] | None = None

    # -- registration and passwords ---------------------------------------------------------------

    async def register(self, username: str, password: str, *, bot: bool = False) -> User:
        # Registrations and logins are rate limited per address and account at the edge (http/throttle.py).
        if not USERNAME.fullmatch(username or ""):
            raise Invalid(
                "bad_username",
                "A username is 2 to 20 letters, digits, '_' or '-', starting with a letter or digit.",
            )
        if username.lower() in RESERVED:
            raise Conflict("username_taken", f"The name {username!r} is reserved.")
        check_password_strength(password)
        password_hash = await asyncio.to_thread(self.hasher.hash, password)
        async with self.db.session() as s:
            taken = await s.scalar(select(User.id).where(User.username_key == username.lower()))
            if taken is not None:
                raise Conflict("username_taken", f"The name {username!r} is already taken.")
            user = User(
                username=username,
                username_key=username.lower(),
                password_hash=password_hash,
                is_bot=bot,
                created_at=utcnow(),
            )
            s.add(user)
            try:
                await s.commit()
            except IntegrityError:  # the same name registered at the same moment: its unique key
                raise Conflict("username_taken", f"The name {username!r} is already taken.") from None
            return user

    async def login(self, username: str, password: str) -> tuple[User, str, str]:
        """Check the password and open a session: the user, the session token and its CSRF token."""
        user = await self.user_by_name(username or "")
        if user is None or not await self.password_matches(user, password):
            raise Unauthorized("bad_credentials", "Wrong username or password.")
        if user.closed:  # told only to whoever knows the password (the profile says so to everyone)
            raise Forbidden("account_closed", "This account is closed: it can no longer log in.")
        token, csrf = await self._open_session(user.id)
        return user, token, csrf

    async def password_matches(self, user: User, password: str) -> bool:
        """Whether `password` is the account's (argon2, off the event loop)."""
        try:
            return await asyncio.to_thread(self.hasher.verify, user.password_hash, password or "")
        except (VerificationError, InvalidHashError):
            return False

    async def _open_session(self, user_id: int) -> tuple[str, str]:
        """A new browser session of the user: its token (for the cookie) and its CSRF token."""
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        now = utcnow()
        async with self.db.session() as s:
            s.add(
                Session(
                    token_hash=secret_digest(token),
                    user_id=user_id,
                    csrf_token=csrf,
                    created_at=now,
                    expires_at=now + timedelta(days=self.session_days),
                )
            )
            await s.commit()
        return token, csrf

    # -- anonymous visitors (issue 16) ----------------------------------------------------------------

    async def start_anonymous(self) -> tuple[User, str, str]:
        """A new anonymous identity and its session: the user, the session token and its CSRF token.

        The identity is a `users` row marked `anonymous`, so that games and seeks reference it like any
        account (and logging in later hands its games over, `GameService.adopt_games`). Its name is
        "Anonymous", as on lichess; its `username_key` is a random key no name can take ("~" is not
        allowed in usernames), and it has no password: nobody logs in as it, it is never found by name.
        Creating one is limited per address (the "anonymous_sessions" limit, in http/accounts.py).
        """
        key = ANONYMOUS_KEY_PREFIX + secrets.token_hex(8)
        user = User(
            username=ANONYMOUS_NAME,
            username_key=key,
            password_hash="",
            is_bot=False,
            anonymous=True,
            created_at=utcnow(),
        )
        async with self.db.session() as s:
            s.add(user)
            await s.commit()
        token, csrf = await self._open_session(user.id)
        return user, token, csrf

    async def end_anonymous(self, actor: Actor, session_token: str) -> None:
        """End an anonymous visitor's session once its games have gone to an account (at log-in)."""
        if actor.anonymous:
            await self.logout(session_token)

    async def logout(self, session_token: str) -> None:
        """End the session, and with it every socket and stream it opened (in every process)."""
        digest = secret_digest(session_token)
        async with self.db.session() as s:
            session = await s.scalar(select(Session).where(Session.token_hash == digest))
            if session is None:
                return
            user_id = session.user_id
            await s.delete(session)
            await s.commit()
        await self.revocations.publish(user_id, digest)

    # -- who is asking ----------------------------------------------------------------------------

    # The actor of every request and socket is read by two indexed reads on the direct path, no session
    # (issue 11: an ORM join per request was a twentieth of the server's time under load).

    async def actor_for_session(self, session_token: str) -> Actor | None:
        digest = secret_digest(session_token)
        found = await self.db.direct.row(
            Row(SESSIONS, ("user_id", "csrf_token", "expires_at"), {"token_hash": digest})
        )
        if found is None or found["expires_at"] <= utcnow():
            return None
        user = await self._user_by_id(found["user_id"])
        if user is None or user.closed:  # a session opened as its account closed (security.py ends them)
            return None
        return Actor(user=user, via="session", csrf_token=found["csrf_token"], credential=digest)

    async def actor_for_token(self, token: str) -> Actor | None:
        digest = secret_digest(token)
        found = await self.db.direct.row(
            Row(API_TOKENS, ("user_id", "scopes"), {"token_hash": digest, "revoked_at": None})
        )
        user = None if found is None else await self._user_by_id(found["user_id"])
        if found is None or user is None or user.closed:
            return None
        return Actor(user=user, via="token", scopes=frozenset(found["scopes"].split()), credential=digest)

    async def _user_by_id(self, user_id: int) -> User | None:
        return await self._user_where({"id": user_id})

    async def _user_where(self, where: dict[str, Any]) -> User | None:
        """The account matching `where` (a unique key), read on the direct path; a detached `User` as a
        closed session leaves it."""
        found = await self.db.direct.row(Row(USERS, USER_COLUMNS, where))
        if found is None:
            return None
        return detached(User, found)

    async def still_valid(self, actor: Actor, *, fresh: bool = False) -> bool:
        """Whether the actor's session or token still holds (not logged out, revoked or expired): asked
        before each action on a socket opened earlier, the answer remembered for a few seconds; `fresh`
        asks the database whatever is remembered (once a watch has begun, to close the gap before it).
        """
        if not actor.credential:
            return True  # an actor made in-process (tests, the computer), with no credential to end

        async def check() -> bool:
            # One indexed read, no session (storage/direct.py): this runs before a move once per
            # `VALID_FOR_SECONDS` per socket, and a session was a fifth of the event loop's time under load.
            if actor.via == "session":
                expires = await self.db.direct.scalar(
                    Read(SESSIONS, "expires_at", {"token_hash": actor.credential})
                )
                return expires is not None and expires > utcnow()
            found = await self.db.direct.scalar(
                Read(API_TOKENS, "id", {"token_hash": actor.credential, "revoked_at": None})
            )
            return found is not None

        return await self.revocations.still_valid(actor.credential, check, fresh=fresh)

    def watch(self, actor: Actor) -> contextlib.AbstractAsyncContextManager[asyncio.Event]:
        """An event set once the actor's credential is logged out or revoked, in any process."""
        return self.revocations.watch(actor.id, actor.credential)

    async def user_by_name(self, username: str) -> User | None:
        """The account of this name (any case); anonymous identities have none."""
        return await self._user_where({"username_key": username.lower(), "anonymous": False})

    async def users_by_id(self, ids: set[int]) -> dict[int, User]:
        if not ids:
            return {}
        if len(ids) <= 2:  # a game's players, on the direct path (every game's start asks)
            found = [await self._user_by_id(i) for i in sorted(ids)]
            return {u.id: u for u in found if u is not None}
        async with self.db.session() as s:
            return {u.id: u for u in await s.scalars(select(User).where(User.id.in_(ids)))}

    async def users_by_name(self, names: list[str]) -> list[User]:
        """The existing accounts among these names (any case), in the order asked, each once."""
        keys = list(dict.fromkeys(name.lower() for name in names))
        if not keys:
            return []
        async with self.db.session() as s:
            users = await s.scalars(
                select(User).where(User.username_key.in_(keys), User.anonymous.is_(False))
            )
            found = {u.username_key: u for u in users}
        return [found[key] for key in keys if key in found]

    # -- personal API tokens ------------------------------------------------------------------------

    async def create_token(
        self, actor: Actor, scopes: list[str], description: str = ""
    ) -> tuple[str, ApiToken]:
        """A new token for the actor's own account; the secret is returned here and never again."""
        actor.require_account()
        if actor.via != "session":
            raise Forbidden("session_required", "API tokens are created from a logged-in browser session.")
        wanted = sorted(set(scopes))
        unknown = [s for s in wanted if s not in SCOPES]
        if not wanted or unknown:
            known = ", ".join(sorted(SCOPES))
            raise Invalid("bad_scope", f"Scopes are some of {known}; got {unknown or 'none'}.")
        # An ordinary account may hold bot:play before its upgrade (`lidraughts-bot -u` upgrades with the
        # token it will play with, as on lichess); the Bot API itself still serves bot accounts only.
        if "board:play" in wanted and actor.user.is_bot:
            raise Forbidden("bot_account", "Bot accounts play with the bot:play scope.")
        secret = "shk_" + secrets.token_urlsafe(32)
        token = ApiToken(
            token_hash=secret_digest(secret),
            user_id=actor.id,
            description=description[:100],
            scopes=" ".join(wanted),
            created_at=utcnow(),
        )
        async with self.db.session() as s:
            s.add(token)
            await s.commit()
        return secret, token

    async def list_tokens(self, actor: Actor) -> list[ApiToken]:
        async with self.db.session() as s:
            return list(
                await s.scalars(
                    select(ApiToken)
                    .where(ApiToken.user_id == actor.id, ApiToken.revoked_at.is_(None))
                    .order_by(ApiToken.id)
                )
            )

    async def revoke_token(self, actor: Actor, token_id: int) -> None:
        if actor.via != "session":
            raise Forbidden("session_required", "API tokens are revoked from a logged-in browser session.")
        mine = (ApiToken.id == token_id, ApiToken.user_id == actor.id, ApiToken.revoked_at.is_(None))
        async with self.db.session() as s:
            digest = await s.scalar(select(ApiToken.token_hash).where(*mine))
            done = await s.execute(update(ApiToken).where(*mine).values(revoked_at=utcnow()))
            await s.commit()
        if digest is None or rows_changed(done) != 1:
            raise NotFound("no_such_token", "You have no such token.")
        # Streams and sockets opened with the token end now, in every process.
        await self.revocations.publish(actor.id, digest)

    async def upgrade_to_bot(self, actor: Actor) -> User:
        """Turn an account into a bot account, which is possible only before it has played a game."""
        actor.require_account()
        if self.games_played is not None and await self.games_played(actor.id):
            raise Conflict("has_games", "Only an account that has played no game can become a bot.")
        async with self.db.session() as s:
            user = await s.get(User, actor.id)
            if user is None:
                raise NotFound("no_such_user", "That account no longer exists.")
            user.is_bot = True
            await s.commit()
            return user
