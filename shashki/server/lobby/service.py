"""The lobby's service: seeks and quick pairing (`lobby.seeks`), challenges to a named player (here) or by
link (`lobby.links`), and games against the computer. They end in a game started through the game
service. Anonymous visitors (issue 16) play casual games only and challenge nobody by name; each refusal
says why.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import replace

from sqlalchemy import or_, select, update

from shashki.engine.levels import LEVELS
from shashki.rules import DEFAULT_VARIANT_KEY
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound, log_failure
from shashki.server.events import EventBus
from shashki.server.games.service import GameService
from shashki.server.games.statements import Claim
from shashki.server.games.terms import GameTerms
from shashki.server.lobby.links import ChallengeLinks
from shashki.server.lobby.models import Challenge, Seek
from shashki.server.lobby.offers import (
    DECLINE_REASONS,
    MIN_CLOCK_SECONDS,
    Blocks,
    TimeControl,
    check_clock,
    check_color,
    refuse_across_a_block,
    refuse_blocked,
    seats,
)
from shashki.server.lobby.rows import CHALLENGES, challenge_row, settle
from shashki.server.lobby.seeks import Seeks
from shashki.server.lobby.views import challenge_json
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Insert, Update, new_row

log = logging.getLogger("shashki.server")

ChallengeHook = Callable[[int, dict], Awaitable[None]]
SettledHook = Callable[[int, int], Awaitable[None]]


class LobbyService(Seeks):
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        games: GameService,
        accounts: AccountService | None = None,
        *,
        min_clock_seconds: float = MIN_CLOCK_SECONDS,
    ) -> None:
        self.db = db
        # The shortest clock of every offer made here: seeks, challenges (the Bot API's too), the computer.
        self.min_clock_ms = round(min_clock_seconds * 1000)
        self.bus = bus
        self.games = games
        self.accounts = accounts or games.accounts
        # Challenges by link ("play with a friend"): the same table, their own rules.
        self.links = ChallengeLinks(db, games, self.accounts, min_clock_ms=self.min_clock_ms)
        # Told of each challenge made, with the challenged account's id and the challenge as shown
        # (the notifications: `NotificationService.challenged`).
        self.challenge_hooks: list[ChallengeHook] = []
        # Told when a challenge made to an account is settled (accepted, declined, cancelled), with that
        # account's id and the challenge's: its notification is read then (`NotificationService`).
        self.settled_hooks: list[SettledHook] = []
        # The players' blocks (shashki.server.social), set by the app: none in a lobby on its own.
        self.blocks: Blocks | None = None
        self._leaving: set[asyncio.Task] = set()
        self.here: Callable[[int], Awaitable[bool]] | None = None
        self._absent: set[int] = set()
        self.ratings_of: Callable[[list[int], str, str], Awaitable[dict[int, dict]]] | None = None
        self._sweeper: asyncio.Task | None = None
        games.start_hooks.append(self.withdraw_at_start)  # one timed game at a time: its seeks go

    def start(self, seek_left_seconds: float) -> None:
        """Sweep the seeks whose players' pages went without closing (`sweep_left`), every so often."""
        self._sweeper = asyncio.create_task(self.sweep_left_forever(seek_left_seconds))

    async def close(self) -> None:
        for task in [self._sweeper, *self._leaving]:
            if task is not None:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    # -- challenges ---------------------------------------------------------------------------------

    async def challenge(
        self,
        user: User,
        dest_username: str,
        terms: GameTerms | None = None,
        *,
        color: str = "random",
        variant: str = DEFAULT_VARIANT_KEY,
        double_diagonal: bool = False,
        time_control: TimeControl | None = None,
        rated: bool = False,
        initial_fen: str | None = None,
        days_per_move: int | None = None,
    ) -> dict:
        """Challenge a named player on `terms` (or on the terms given one by one), from the start
        position or from a set-up position (`initial_fen`), which is never rated."""
        if terms is None:
            terms = (time_control or TimeControl(None)).terms(variant, double_diagonal, rated, initial_fen)
            terms = replace(terms, days_per_move=days_per_move)
        terms = check_clock(terms.checked(), self.min_clock_ms)  # rated only if it can be (checked)
        if user.anonymous:
            raise Forbidden(
                "anonymous_challenge",
                "Anonymous players challenge nobody by name: send a challenge link, or register.",
            )
        dest = await self.accounts.user_by_name(dest_username)
        if dest is None:
            raise NotFound("no_such_user", f"There is no player {dest_username!r}.")
        if dest.id == user.id:
            raise Invalid("self_challenge", "You cannot challenge yourself.")
        if dest.closed:
            raise Conflict("account_closed", f"{dest.username} closed their account: they play no more.")
        await refuse_blocked(self.blocks, user, dest)
        challenge = Challenge(
            challenger_id=user.id,
            dest_user_id=dest.id,
            **terms.columns(),
            color=check_color(color),
            status="pending",
            created_at=utcnow(),
        )
        challenge.id = await self.db.direct.insert(Insert(CHALLENGES, new_row(challenge)))  # no session
        data = challenge_json(challenge, user, dest)
        await self.bus.publish(f"user:{dest.id}", {"type": "challenge", "challenge": data})
        for hook in self.challenge_hooks:
            await hook(dest.id, data)
        return data

    async def challenges(self, user: User) -> dict:
        async with self.db.session() as s:
            rows = list(
                await s.scalars(
                    select(Challenge)
                    .where(
                        Challenge.status == "pending",
                        Challenge.dest_user_id.is_not(None),  # a link's challenge waits on its own page
                        or_(Challenge.challenger_id == user.id, Challenge.dest_user_id == user.id),
                    )
                    .order_by(Challenge.id)
                )
            )
        named = [(c, c.dest_user_id) for c in rows if c.dest_user_id is not None]
        users = await self.accounts.users_by_id({c.challenger_id for c, _ in named} | {d for _, d in named})
        out = [challenge_json(c, users[c.challenger_id], users[dest]) for c, dest in named]
        return {
            "in": [c for c in out if c["dest"]["id"] == user.id],
            "out": [c for c in out if c["challenger"]["id"] == user.id],
        }

    async def accept_challenge(self, user: User, challenge_id: int) -> dict:
        """Accept a challenge: the game is created and the challenge marked accepted (with the game's id)
        in one transaction, so that no challenge is accepted without its game, nor answered twice."""
        challenge = await self._pending(challenge_id, dest=user)
        await refuse_across_a_block(self.blocks, user, challenge.challenger_id)  # made before the block
        white_id, black_id = seats(challenge.challenger_id, challenge.color, user.id)

        def settle(game_id: str) -> list[Claim]:
            accepted = Update(
                CHALLENGES,
                {"status": "accepted", "game_id": game_id},
                {"id": challenge.id, "status": "pending"},
            )
            answered = Conflict("challenge_settled", "That challenge was cancelled or answered already.")
            return [Claim(accepted, answered)]

        live = await self.games.create(
            white_id=white_id, black_id=black_id, terms=GameTerms.of(challenge), claims=settle
        )
        # Both sides' pages drop it from their lists (it may have been answered in another tab, or the API).
        accepted = {"type": "challengeAccepted", "id": challenge.id, "game": live.id}
        for user_id in (challenge.challenger_id, challenge.dest_user_id):
            await self.bus.publish(f"user:{user_id}", accepted)
        await self._tell_settled(challenge)
        return self.games.state(live)

    async def decline_challenge(self, user: User, challenge_id: int, reason: str = "generic") -> None:
        if reason not in DECLINE_REASONS:
            raise Invalid("bad_reason", f"Reasons are {', '.join(DECLINE_REASONS)}.")
        challenge = await self._pending(challenge_id, dest=user)
        if not await self._settle(challenge, "declined", reason):
            raise Conflict("challenge_settled", "That challenge was cancelled or answered already.")
        await self._tell_declined(challenge, reason)

    async def _tell_declined(self, challenge: Challenge, reason: str) -> None:
        await self.bus.publish(
            f"user:{challenge.challenger_id}",
            {
                "type": "challengeDeclined",
                "id": challenge.id,
                "reason": reason,
                "message": DECLINE_REASONS[reason],
            },
        )

    async def cancel_challenge(self, user: User, challenge_id: int) -> None:
        challenge = await self._pending(challenge_id, challenger=user)
        if not await self._settle(challenge, "cancelled"):
            raise Conflict("challenge_settled", "That challenge was answered already.")
        await self.bus.publish(
            f"user:{challenge.dest_user_id}", {"type": "challengeCancelled", "id": challenge.id}
        )

    async def cancel_timed_challenges(self, user_id: int) -> int:
        """Cancel the player's pending challenges with a clock (to a player, or by link), each challenged
        player told as when it is done by hand; how many. Its player has left the site (`withdraw_left`)."""
        timed = (Challenge.challenger_id == user_id, Challenge.clock_initial_ms.is_not(None))
        async with self.db.session() as s:
            pending = list(await s.scalars(select(Challenge).where(Challenge.status == "pending", *timed)))
        cancelled = 0
        for challenge in pending:
            if await self._settle(challenge, "cancelled"):
                cancelled += 1
                if challenge.dest_user_id is not None:
                    gone = {"type": "challengeCancelled", "id": challenge.id}
                    await self.bus.publish(f"user:{challenge.dest_user_id}", gone)
        return cancelled

    async def settle_between(self, blocker: User, blocked: User) -> None:
        """A block (social, `block_hooks`): the challenges pending between the two are settled, the blocked
        player's to the blocker declined and the blocker's to them cancelled, each side told (found by an
        audit: they stayed in the blocker's list, counted by the bell, and refused when accepted)."""
        pair = ((Challenge.challenger_id == blocker.id) & (Challenge.dest_user_id == blocked.id)) | (
            (Challenge.challenger_id == blocked.id) & (Challenge.dest_user_id == blocker.id)
        )
        async with self.db.session() as s:
            pending = list(await s.scalars(select(Challenge).where(Challenge.status == "pending", pair)))
        for challenge in pending:
            if challenge.challenger_id == blocked.id:
                if await self._settle(challenge, "declined", "generic"):
                    await self._tell_declined(challenge, "generic")
            elif await self._settle(challenge, "cancelled"):
                cancelled = {"type": "challengeCancelled", "id": challenge.id}
                await self.bus.publish(f"user:{blocked.id}", cancelled)

    async def withdraw_offers_of(self, user: User) -> None:
        """As the account closes (accounts/security.py): its open seeks and its pending challenges (to a
        player or by link) are cancelled, the challenges made to it declined, each side told as when it
        is done by hand. A challenge answered meanwhile keeps its answer."""
        async with self.db.session() as s:
            seeks = await s.execute(
                update(Seek).where(Seek.user_id == user.id, Seek.status == "open").values(status="cancelled")
            )
            mine = or_(Challenge.challenger_id == user.id, Challenge.dest_user_id == user.id)
            pending = list(await s.scalars(select(Challenge).where(Challenge.status == "pending", mine)))
            await s.commit()
        if rows_changed(seeks):
            await self.bus.publish("lobby", {"type": "seeks", "seeks": await self.list_seeks()})
        for challenge in pending:
            if challenge.challenger_id != user.id:
                if await self._settle(challenge, "declined", "generic"):
                    await self._tell_declined(challenge, "generic")
            elif await self._settle(challenge, "cancelled") and challenge.dest_user_id is not None:
                cancelled = {"type": "challengeCancelled", "id": challenge.id}
                await self.bus.publish(f"user:{challenge.dest_user_id}", cancelled)

    async def challenge_by_id(self, challenge_id: int) -> Challenge | None:
        """One challenge, whatever its status."""
        return await challenge_row(self.db, challenge_id)

    async def pending_challenges(self, user_id: int, *, incoming_only: bool) -> list[Challenge]:
        """The user's pending challenges (received, and sent unless `incoming_only`), oldest first."""
        mine = Challenge.dest_user_id == user_id
        if not incoming_only:
            mine = or_(mine, Challenge.challenger_id == user_id)
        named = Challenge.dest_user_id.is_not(None)  # challenges by link are not the Bot API's
        query = select(Challenge).where(Challenge.status == "pending", named, mine).order_by(Challenge.id)
        async with self.db.session() as s:
            return list(await s.scalars(query))

    async def _pending(
        self, challenge_id: int, *, dest: User | None = None, challenger: User | None = None
    ) -> Challenge:
        challenge = await challenge_row(self.db, challenge_id)
        if (
            challenge is None
            or challenge.link is not None  # a link's challenge is answered on its page (lobby.links)
            or (dest and challenge.dest_user_id != dest.id)
            or (challenger and challenge.challenger_id != challenger.id)
        ):
            if challenge is not None and (
                challenge.challenger_id == getattr(dest, "id", None)
                or challenge.dest_user_id == getattr(challenger, "id", None)
            ):
                raise Forbidden(
                    "not_yours",
                    "Only the challenged player answers a challenge, and only its sender cancels it.",
                )
            raise NotFound("no_such_challenge", "You have no such challenge.")
        if challenge.status != "pending":
            raise Conflict("challenge_settled", f"That challenge was {challenge.status} already.")
        return challenge

    async def _settle(self, challenge: Challenge, status: str, reason: str | None = None) -> bool:
        done = await settle(self.db, challenge.id, status, reason)
        if done:
            await self._tell_settled(challenge)
        return done

    async def _tell_settled(self, challenge: Challenge) -> None:
        if challenge.dest_user_id is None:
            return
        for hook in self.settled_hooks:
            try:
                await hook(challenge.dest_user_id, challenge.id)
            except Exception:  # the challenge is settled: a hook that fails changes nothing of it
                log_failure(log, "a settled challenge's hook failed")

    # -- the computer -------------------------------------------------------------------------------

    async def play_computer(
        self,
        user: User,
        *,
        level: int = 1,
        color: str = "random",
        variant: str = DEFAULT_VARIANT_KEY,
        double_diagonal: bool = False,
        time_control: TimeControl | None = None,
    ) -> dict:
        if level not in LEVELS:
            raise Invalid("bad_level", f"Levels are {LEVELS.start} to {LEVELS.stop - 1}.")
        terms = (time_control or TimeControl(None)).terms(variant, double_diagonal)
        terms = check_clock(terms.checked(), self.min_clock_ms)
        white_id, black_id = seats(user.id, check_color(color), None)
        live = await self.games.create(
            white_id=white_id, black_id=black_id, terms=terms, computer_level=level
        )
        return self.games.state(live)
