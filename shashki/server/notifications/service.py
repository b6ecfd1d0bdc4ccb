"""Notifications inside the site (no e-mail): it is your turn in a correspondence game, a correspondence
game has ended, someone challenged you. Each is stored (so a player who was away reads it later), counted
as unread until read, and pushed to the player's open pages on the player's channel of the event bus
(`user:<id>`, which the lobby socket of every page forwards) as `{"type": "notification", ...}`.

The domain listens to the games store (`GameStore.add_listener`: told after every committed change) and
to the lobby's challenges (`LobbyService.challenge_hooks`); it reads games through `LiveGame` only and
owns its one table. The same news told twice — a listener called again after a restart, two processes —
is stored once: (user, kind, subject, ply) is unique.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Callable
from typing import Any, cast

from sqlalchemy import Table, select, update
from sqlalchemy.exc import IntegrityError

from shashki.rules import Color
from shashki.server.errors import NotFound, log_failure
from shashki.server.events import EventBus
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameStatus
from shashki.server.notifications.models import Notification
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Count, Insert, new_row

NOTIFICATIONS = cast(Table, Notification.__table__)

log = logging.getLogger(__name__)

YOUR_TURN = "yourTurn"
GAME_END = "gameEnd"
CHALLENGE = "challenge"
KINDS = (YOUR_TURN, GAME_END, CHALLENGE)
# The newest notifications a list shows.
LIST_LIMIT = 50
# The unread notifications counted at most: `unread` is exact below it and means "this many or more" at
# it (the bell shows 99+). A player who never reads them (a bot is challenged for every game it plays)
# would otherwise make every notification's count, and so every challenge to them, cost more (issue 11).
UNREAD_COUNTED = 100


def notification_json(row: Notification) -> dict[str, Any]:
    return {
        "id": row.id,
        "kind": row.kind,
        "subject": row.subject,
        "ply": row.ply,
        "data": json.loads(row.data or "{}"),
        "created_at": row.created_at.isoformat(),
        "read": row.read_at is not None,
    }


class NotificationService:
    def __init__(self, db: Database, bus: EventBus) -> None:
        self.db = db
        self.bus = bus
        self._tasks: set[asyncio.Task[None]] = set()
        # Whether a player has the game open (a socket on it, in any process: `Presence.connected`), set
        # by the app: a player watching the game end is not told of it again.
        self.present: Callable[[str, Color], bool] = lambda game_id, color: False

    # -- what is told -------------------------------------------------------------------------------

    async def notify(self, user_id: int, kind: str, subject: str, ply: int, data: dict[str, Any]) -> bool:
        """Store a notification (once: False when it was already stored) and push it to the player."""
        row = Notification(
            user_id=user_id,
            kind=kind,
            subject=subject,
            ply=ply,
            data=json.dumps(data, separators=(",", ":")),
            created_at=utcnow(),
        )
        try:  # one INSERT on the direct path (issue 11: a session held SQLite's writer across two trips)
            row.id = await self.db.direct.insert(Insert(NOTIFICATIONS, new_row(row)))
        except IntegrityError:
            return False
        await self._push(user_id, notification_json(row))
        return True

    async def _push(self, user_id: int, notification: dict[str, Any] | None) -> None:
        event: dict[str, Any] = {"type": "notification", "unread": await self.unread(user_id)}
        if notification is not None:
            event["notification"] = notification
        try:
            await self.bus.publish(f"user:{user_id}", event)
        except Exception as error:  # the notification is stored: the next list shows it
            log.warning("could not push a notification to user %s: %s", user_id, error)

    def game_changed(self, live: LiveGame) -> None:
        """The games store's listener: a correspondence game's turn or end, told to its players. What to
        tell is read now (the game changes on); the writes run in a task of their own."""
        r = live.record
        if r.days_per_move is None or live.stale:
            return
        reads: list[int] = []  # players whose "your turn" of this game is answered
        news: list[tuple[int, str, int, dict[str, Any]]] = []
        if live.is_live:
            mover = live.to_move
            # The side that has just moved has answered: its "your turn" of this game is read.
            moved_id = r.player_id(mover.other)
            if moved_id is not None:
                reads.append(moved_id)
            mover_id = r.player_id(mover)
            if mover_id is not None:
                deadline = live.deadline()
                data = {
                    "game": r.id,
                    "opponent": live.players[mover.other].username,
                    "deadline": None if deadline is None else deadline.isoformat(),
                }
                # Each turn is told once: numbered by every ply made, so that the same ply played again
                # after a takeback is a turn of its own (found by an audit: it was never told).
                news.append((mover_id, YOUR_TURN, r.ply + (r.takebacks or 0), data))
        else:
            for color in (Color.WHITE, Color.BLACK):
                user_id = r.player_id(color)
                if user_id is None:
                    continue
                reads.append(user_id)
                # As lichess's: no news of an aborted game, nor for a player who saw the end on the game's
                # page (who resigned there, say; found by an audit).
                if r.status == GameStatus.ABORTED or self.present(r.id, color):
                    continue
                data = {
                    "game": r.id,
                    "opponent": live.players[color.other].username,
                    "status": str(r.status),
                    "winner": None if r.winner is None else r.winner.value,
                    "reason": r.reason,
                    "color": color.value,
                }
                news.append((user_id, GAME_END, 0, data))
        task = asyncio.create_task(self._tell(r.id, reads, news))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _tell(
        self, game_id: str, reads: list[int], news: list[tuple[int, str, int, dict[str, Any]]]
    ) -> None:
        try:
            for user_id in reads:
                await self._read_turns(user_id, game_id)
            for user_id, kind, ply, data in news:
                await self.notify(user_id, kind, game_id, ply, data)
        except asyncio.CancelledError:
            raise
        except Exception:
            log_failure(log, "the notifications of game %s failed", game_id)

    async def _read_turns(self, user_id: int, game_id: str) -> None:
        await self._read(user_id, YOUR_TURN, game_id)

    async def challenge_settled(self, user_id: int, challenge_id: int) -> None:
        """The lobby's hook: a challenge made to `user_id` was accepted, declined or cancelled: its
        notification is read (the bell counts only what still waits for the player, as lichess's)."""
        await self._read(user_id, CHALLENGE, str(challenge_id))

    async def _read(self, user_id: int, kind: str, subject: str) -> None:
        async with self.db.session() as s:
            done = await s.execute(
                update(Notification)
                .where(
                    Notification.user_id == user_id,
                    Notification.kind == kind,
                    Notification.subject == subject,
                    Notification.read_at.is_(None),
                )
                .values(read_at=utcnow())
            )
            await s.commit()
        if rows_changed(done):
            await self._push(user_id, None)

    async def challenged(self, user_id: int, challenge: dict[str, Any]) -> None:
        """The lobby's hook: `user_id` has been challenged."""
        await self.notify(
            user_id,
            CHALLENGE,
            str(challenge["id"]),
            0,
            {
                "challenge": challenge["id"],
                "opponent": challenge["challenger"]["username"],
                "variant": challenge["variant"],
                "time_control": challenge.get("time_control"),
                "days": challenge.get("days"),
            },
        )

    async def settled(self) -> None:
        """Wait for the notifications being written (tests, shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # -- what a player reads ------------------------------------------------------------------------

    async def unread(self, user_id: int) -> int:
        """How many of the player's notifications are unread, up to `UNREAD_COUNTED` (an indexed count on
        the direct path that stops there: one is pushed with every notification)."""
        unread = Count(NOTIFICATIONS, {"user_id": user_id, "read_at": None}, at_most=UNREAD_COUNTED)
        return await self.db.direct.count(unread)

    async def list(
        self, user_id: int, *, limit: int = LIST_LIMIT, before: int | None = None
    ) -> dict[str, Any]:
        """The player's newest notifications, or the newest older than the one numbered `before` (the
        next page: found by an audit, those past the first 50 could not be read), read by the index on the
        player and the id, newest first without sorting them all; and how many are unread (`unread`)."""
        query = select(Notification).where(Notification.user_id == user_id)
        if before is not None:
            query = query.where(Notification.id < before)
        query = query.order_by(Notification.id.desc()).limit(limit)
        # Counted first: the list read after it holds at least what was counted (news may come between).
        unread = await self.unread(user_id)
        async with self.db.session() as s:
            rows = list(await s.scalars(query))
        return {"unread": unread, "notifications": [notification_json(r) for r in rows]}

    async def mark_read(self, user_id: int, notification_id: int | None = None) -> int:
        """Mark one of the player's notifications read (NotFound if it is not theirs), or all of them;
        returns how many unread ones it marked."""
        where = [Notification.user_id == user_id, Notification.read_at.is_(None)]
        if notification_id is not None:
            async with self.db.session() as s:
                row = await s.get(Notification, notification_id)
            if row is None or row.user_id != user_id:
                raise NotFound("no_such_notification", "You have no such notification.")
            where.append(Notification.id == notification_id)
        async with self.db.session() as s:
            done = await s.execute(update(Notification).where(*where).values(read_at=utcnow()))
            await s.commit()
        changed = rows_changed(done)
        if changed:
            await self._push(user_id, None)
        return changed
