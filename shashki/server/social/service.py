"""Following and blocking players, as lichess's "relation" module does them.

- **Follow**: a player follows others to see, on their own profile, which of them are online or playing
  now (with a link to the game), and to be told on their lobby channel (`user:<id>`, the same socket that
  carries challenges) when one of them starts a game: `{"type": "followingStarted", ...}`.
- **Block**: a blocked player cannot challenge the blocker (`LobbyService.challenge` asks
  `refuse_challenge`; `RematchService.offer` asks `blocks`), cannot take their seeks or be paired with them,
  cannot write in the players' chat of a game with them (`ChatService.post` asks `blocks`), and neither sees
  the other's seeks in the lobby (`hidden_from`). Blocking is private: the list is shown to the blocker
  alone, the blocked player is not told, and the refusal of a challenge says that the player does not accept
  challenges from them, not why.

Blocking someone also ends following them (one cannot both follow and block a player); being blocked
ends following the blocker, so that the blocked player is not told of the blocker's games.

Who is online is counted from the lobby sockets (`Online`), across every server process when they share
Redis (`connections.SharedConnections`): a player whose socket is on one process is online for all.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import cast

from sqlalchemy import Table, delete, func, or_, select

from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.connections import Connections
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound, log_failure
from shashki.server.events import EventBus
from shashki.server.games.live import LiveGame
from shashki.server.games.service import GameService
from shashki.server.social.models import Block, Follow
from shashki.server.storage import Database, insert_unless_there
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Row, Rows

log = logging.getLogger("shashki.server")

# lichess caps the players one follows (400) and blocks (500); a list larger than this is not a social
# list any more but a crawl.
MAX_FOLLOWING = 400
BLOCKS = cast(Table, Block.__table__)
FOLLOWS = cast(Table, Follow.__table__)
MAX_BLOCKING = 500


class Online:
    """Who has a lobby socket open (the lobby socket is open on every page of the site, so an account with
    one is on the site now): counted in this process, or in every process through Redis."""

    KIND = "lobby"

    def __init__(self, connections: Connections | None = None) -> None:
        self.connections = connections or Connections()

    @contextlib.asynccontextmanager
    async def connected(self, user_id: int) -> AsyncIterator[None]:
        async with self.connections.held(self.KIND, user_id):
            yield

    async def which(self, user_ids: Iterable[int]) -> set[int]:
        """Those of `user_ids` on the site now."""
        return {int(i) for i in await self.connections.holding(self.KIND, user_ids)}

    async def here(self, user_id: int) -> bool:
        """Whether the account is on the site now."""
        return user_id in await self.which([user_id])


class SocialService:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        games: GameService,
        accounts: AccountService,
        connections: Connections | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.games = games
        self.accounts = accounts
        self.online = Online(connections)
        self._tasks: set[asyncio.Task] = set()
        # Told of each block, (blocker, blocked), set by the app: the lobby settles their pending challenges.
        self.block_hooks: list[Callable[[User, User], Awaitable[object]]] = []

    async def _other(self, user: User, username: str) -> User:
        other = await self.accounts.user_by_name(username)
        if other is None:
            raise NotFound("no_such_user", f"There is no player {username!r}.")
        if other.id == user.id:
            raise Invalid("self_relation", "You cannot follow or block yourself.")
        return other

    async def _insert(self, table: type[Follow] | type[Block], **values: object) -> None:
        """Add a row unless it is there (INSERT ... ON CONFLICT DO NOTHING, spelt by each dialect)."""
        async with self.db.session() as s:
            await insert_unless_there(s, table, **values, created_at=utcnow())
            await s.commit()

    async def _count(self, column, user_id: int) -> int:
        async with self.db.session() as s:
            return int(await s.scalar(select(func.count()).where(column == user_id)) or 0)

    # -- following --------------------------------------------------------------------------------

    async def follow(self, user: User, username: str) -> None:
        other = await self._other(user, username)
        if other.closed:
            raise Conflict("account_closed", f"{other.username} closed their account.")
        if await self.blocked_between(user.id, other.id):
            raise Forbidden("cannot_follow", f"You cannot follow {other.username}.")
        if await self._count(Follow.follower_id, user.id) >= MAX_FOLLOWING:
            raise Invalid("too_many", f"You follow {MAX_FOLLOWING} players already.")
        await self._insert(Follow, follower_id=user.id, followed_id=other.id)

    async def unfollow(self, user: User, username: str) -> None:
        other = await self._other(user, username)
        async with self.db.session() as s:
            await s.execute(
                delete(Follow).where(Follow.follower_id == user.id, Follow.followed_id == other.id)
            )
            await s.commit()

    async def followed_ids(self, user_id: int) -> list[int]:
        query = select(Follow.followed_id).where(Follow.follower_id == user_id).order_by(Follow.created_at)
        async with self.db.session() as s:
            return list(await s.scalars(query))

    async def followers_of(self, user_ids: set[int]) -> set[tuple[int, int]]:
        """(follower, followed) for every follower of these accounts (told when one starts a game)."""
        found: set[tuple[int, int]] = set()
        for user_id in user_ids:  # a game's two players: an indexed read each, on the direct path
            rows = await self.db.direct.rows(Rows(FOLLOWS, ("follower_id",), {"followed_id": user_id}))
            found.update((row["follower_id"], user_id) for row in rows)
        return found

    async def following(self, user: User) -> list[dict]:
        """The players `user` follows, each with whether they are on the site now and their games in play."""
        ids = await self.followed_ids(user.id)
        users = await self.accounts.users_by_id(set(ids))
        games = await self.games.queries.in_play_of_players(set(ids))
        # A game with a running clock is played now, so its player is on (a bot, through the Bot API, with
        # no page of the site); a correspondence game's player may be away for days (found by an audit).
        playing_now = await self.games.queries.in_play_of_players(set(ids), clocked=True)
        online = await self.online.which(ids)
        return [
            {
                "id": i,
                "username": users[i].username,
                "bot": users[i].is_bot,
                "online": i in online or bool(playing_now.get(i)),
                "playing": games.get(i, []),
            }
            for i in ids
            if i in users
        ]

    # -- blocking ---------------------------------------------------------------------------------

    async def block(self, user: User, username: str) -> None:
        other = await self._other(user, username)
        if await self._count(Block.blocker_id, user.id) >= MAX_BLOCKING:
            raise Invalid("too_many", f"You block {MAX_BLOCKING} players already.")
        await self._insert(Block, blocker_id=user.id, blocked_id=other.id)
        async with self.db.session() as s:  # no following either way across a block
            await s.execute(
                delete(Follow).where(
                    or_(
                        (Follow.follower_id == user.id) & (Follow.followed_id == other.id),
                        (Follow.follower_id == other.id) & (Follow.followed_id == user.id),
                    )
                )
            )
            await s.commit()
        for hook in self.block_hooks:  # the lobby: the challenges pending between them settled
            try:
                await hook(user, other)
            except Exception:  # the block stands: what a hook leaves is refused when answered anyway
                log_failure(log, "a block's hook failed")
        await self._lobby_changed(user.id)

    async def unblock(self, user: User, username: str) -> None:
        other = await self._other(user, username)
        async with self.db.session() as s:
            await s.execute(delete(Block).where(Block.blocker_id == user.id, Block.blocked_id == other.id))
            await s.commit()
        await self._lobby_changed(user.id)

    async def _lobby_changed(self, user_id: int) -> None:
        # The seeks the blocker's lobby shows change: their lobby sockets send the lists again.
        await self.bus.publish(f"user:{user_id}", {"type": "relationsChanged"})

    async def blocking(self, user: User) -> list[dict]:
        """The players `user` blocks (their own list: nobody else ever reads it)."""
        async with self.db.session() as s:
            ids = list(
                await s.scalars(
                    select(Block.blocked_id).where(Block.blocker_id == user.id).order_by(Block.created_at)
                )
            )
        users = await self.accounts.users_by_id(set(ids))
        return [{"id": i, "username": users[i].username, "bot": users[i].is_bot} for i in ids if i in users]

    async def blocks(self, blocker_id: int, blocked_id: int) -> bool:
        """Whether `blocker_id` blocks `blocked_id` (on the direct path: every challenge asks both ways)."""
        where = {"blocker_id": blocker_id, "blocked_id": blocked_id}
        return await self.db.direct.row(Row(BLOCKS, ("blocker_id",), where)) is not None

    async def blocked_between(self, a: int, b: int) -> bool:
        """Whether either of two accounts blocks the other."""
        return await self.blocks(a, b) or await self.blocks(b, a)

    async def hidden_from(self, user_id: int) -> set[int]:
        """The accounts whose seeks `user_id` does not see, nor is paired with: those they block and those
        who block them (a seek one could not take is not offered)."""
        async with self.db.session() as s:
            rows = await s.execute(
                select(Block.blocker_id, Block.blocked_id).where(
                    or_(Block.blocker_id == user_id, Block.blocked_id == user_id)
                )
            )
            return {b if a == user_id else a for a, b in rows}

    async def refuse_challenge(self, challenger: User, dest: User) -> None:
        """Forbidden when a block stands between the challenger and the player challenged."""
        if await self.blocks(challenger.id, dest.id):
            raise Forbidden(
                "challenge_refused", f"You block {dest.username}: unblock them to challenge them."
            )
        if await self.blocks(dest.id, challenger.id):
            raise Forbidden("challenge_refused", f"{dest.username} does not accept challenges from you.")

    async def relation(self, user: User, username: str) -> dict:
        """How `user` stands to another player: following them, blocking them (their own relations only)."""
        other = await self._other(user, username)
        async with self.db.session() as s:
            following = await s.get(Follow, (user.id, other.id)) is not None
        blocking = await self.blocks(user.id, other.id)
        return {"username": other.username, "following": following, "blocking": blocking}

    # -- a followed player starts a game (a listener of the games store) ---------------------------

    def on_game_change(self, live: LiveGame) -> None:
        """Tell the followers of a game's players that it started. The store calls its listeners after
        every change; a game is new at its first version (a restart or any move makes a later one)."""
        record = live.record
        if record.version != 1 or not live.is_live:
            return
        task = asyncio.get_running_loop().create_task(self._announce(live))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _announce(self, live: LiveGame) -> None:
        record = live.record
        seated = {i for i in (record.white_id, record.black_id) if i is not None}
        try:
            pairs = await self.followers_of(seated)
            if not pairs:
                return
            players = {color.value: player.username for color, player in live.players.items()}
            by_id = {p.id: p.username for p in live.players.values() if p.id is not None}
            for follower, followed in sorted(pairs):
                if follower in seated:
                    continue  # they are in the game already
                event = {
                    "type": "followingStarted",
                    "user": {"id": followed, "username": by_id[followed]},
                    "game": {"id": record.id, "variant": record.variant, "rated": record.rated, **players},
                }
                await self.bus.publish(f"user:{follower}", event)
        except Exception:  # told or not, the game goes on
            log_failure(log, "could not tell the followers of game %s", record.id)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
