"""The chat of a game: two rooms, as on lichess and lidraughts.

- `player`: the two players' own room. Only they read it and write in it.
- `spectator`: everyone watching reads it (without logging in); any logged-in account writes in it.
  The players read it and write in it only once their game is over, as on lichess: while it is in play
  a spectator's line would be advice (found by an audit: "white, play c3-b4!" reached the player).

Each player chooses what the spectators' room is to them in their game (`spectators`):
- `show` (the default): they read it like everyone;
- `hide`: they no longer receive or see it (for themselves only; spectators go on talking);
- `close`: the room is closed for the whole game — nobody may write in it any more — and hidden from them.
  It stays closed while either player keeps it closed.

Anonymous visitors (issue 16) chat with no stranger: they never write in the spectators' room, and the
players' room of a game with an anonymous player is open only when the game came from a challenge link
(the two know each other: lichess's "play with a friend"); elsewhere it is closed to both players.

A line is 1 to `MAX_LENGTH` characters (control characters removed, spaces trimmed). Each account may
write `lines` lines per game within `window` seconds; beyond that the answer is `rate_limited` (HTTP 429)
with the seconds to wait. Lines are published on the channel `chat:<game id>`; whoever forwards them
(the game's WebSocket, the Bot/Board API's game stream) asks `visible_to` whether their listener sees them.
"""

from __future__ import annotations

import asyncio
import contextlib
import unicodedata
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from sqlalchemy import select

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.accounts.service import AccountService
from shashki.server.chat.models import ChatLine, ChatSetting
from shashki.server.errors import Forbidden, Invalid
from shashki.server.events import EventBus
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.service import GameService
from shashki.server.limits import Limit, Limiter
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

ROOMS = ("player", "spectator")
SPECTATOR_MODES = ("show", "hide", "close")
MAX_LENGTH = 140
HISTORY = 200  # lines kept in view per room


def channel(game_id: str) -> str:
    return f"chat:{game_id}"


# Format characters a line may keep: the joiners that make one emoji of several (👨‍💻) and shape
# Persian, Hindi or Arabic words. Every other format character goes — the direction overrides among
# them, which would turn the rest of a page's text around.
KEPT_FORMAT = {"\u200c", "\u200d"}


def clean(text: str) -> str:
    """The text without control characters (newlines and tabs become spaces), without format characters
    but the joiners (found by an audit: each became a space, breaking emoji and Persian words), and
    without surrounding spaces."""
    out = []
    for c in text or "":
        category = unicodedata.category(c)
        if category == "Cf":
            if c in KEPT_FORMAT:
                out.append(c)
        elif category.startswith("C"):
            out.append(" ")
        else:
            out.append(c)
    return "".join(out).strip()


def seat(record: GameRecord, user_id: int | None) -> Color | None:
    return record.color_of(user_id)


class ChatService:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        games: GameService,
        accounts: AccountService,
        *,
        lines: int = 5,
        window: float = 10.0,
        limits: Limiter | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.games = games
        self.accounts = accounts
        # The server's limiter (its "chat" limit, in Redis when configured, so that every process counts
        # the same lines); on its own, a limiter of this process with `lines` per `window`.
        self.limits = limits or Limiter({"chat": Limit(lines, window)})
        # Whether a game came from a challenge link (the lobby's answer, wired in by the app); without
        # it, no game did.
        self.friends: Callable[[str], Awaitable[bool]] | None = None
        # Whether the first account blocks the second (shashki.server.social), set by the app: a blocked
        # player's lines reach the blocker in neither room, and the players' room refuses them.
        self.blocks: Callable[[int, int], Awaitable[bool]] | None = None

    async def _blocked_by(self, reader_id: int | None, author_id: int | None) -> bool:
        if self.blocks is None or reader_id is None or author_id is None or reader_id == author_id:
            return False
        return await self.blocks(reader_id, author_id)

    async def _game(self, game_id: str) -> GameRecord:
        return await self.games.record(game_id)

    async def _settings(self, game_id: str) -> dict[int, str]:
        async with self.db.session() as s:
            rows = await s.scalars(select(ChatSetting).where(ChatSetting.game_id == game_id))
            return {row.user_id: row.spectators for row in rows}

    @staticmethod
    def _line_json(line: ChatLine, user: User) -> dict:
        return {
            "id": line.id,
            "room": line.room,
            "user": {"id": user.id, "username": user.username, "bot": user.is_bot},
            "username": user.username,
            "text": line.text,
            "at": line.created_at.isoformat(),
        }

    # -- writing ----------------------------------------------------------------------------------

    async def post(self, user: User, game_id: str, text: str, room: str | None = None) -> dict:
        """Write a line: in the players' room by default for a player, else in the spectators'."""
        record = await self._game(game_id)
        color = seat(record, user.id)
        room = room or ("player" if color else "spectator")
        if room not in ROOMS:
            raise Invalid("bad_room", "The rooms are player and spectator.")
        text = clean(text)
        if not text:
            raise Invalid("empty_message", "Write something first.")
        if len(text) > MAX_LENGTH:
            raise Invalid("message_too_long", f"A chat line has at most {MAX_LENGTH} characters.")
        await self._may_write(user, record, room)
        await self.limits.hit("chat", f"{user.id}:{game_id}", "chat lines")
        line = ChatLine(game_id=game_id, room=room, user_id=user.id, text=text, created_at=utcnow())
        async with self.db.session() as s:
            s.add(line)
            await s.commit()
        data = self._line_json(line, user)
        await self.bus.publish(channel(game_id), {"type": "chat", **data})
        return data

    async def _may_write(self, user: User, record: GameRecord, room: str) -> None:
        """Refuse (Forbidden, saying why) a writer a room: the players' room to anyone but the players, a
        blocked player's lines, a closed spectators' room, strangers and anonymous visitors."""
        color = seat(record, user.id)
        if room == "player" and color is None:
            raise Forbidden("players_only", "Only the two players write in the players' room.")
        opponent = record.white_id if color is Color.BLACK else record.black_id
        if room == "player" and await self._blocked_by(opponent, user.id):
            raise Forbidden("chat_refused", "Your opponent does not accept chat messages from you.")
        if room == "spectator" and "close" in (await self._settings(record.id)).values():
            raise Forbidden("spectator_chat_closed", "A player has closed the spectators' chat of this game.")
        await self._refuse_strangers(user, record, room)
        if room == "spectator" and color is not None and record.status == GameStatus.STARTED:
            raise Forbidden(
                "players_in_play", "The players write in the spectators' chat once their game is over."
            )

    async def _refuse_strangers(self, user: User, record: GameRecord, room: str) -> None:
        """No chat between an anonymous visitor and strangers (see the module's docstring)."""
        if room == "spectator":
            if user.anonymous:
                raise Forbidden(
                    "anonymous_chat", "Anonymous players do not write in the spectators' chat: register."
                )
            return
        seated = {i for i in (record.white_id, record.black_id) if i is not None}
        if not any(u.anonymous for u in (await self.accounts.users_by_id(seated)).values()):
            return
        if self.friends is None or not await self.friends(record.id):
            raise Forbidden(
                "anonymous_chat",
                "The players' chat is closed in a game with an anonymous player, unless it began from "
                "a challenge link.",
            )

    async def set_spectators(self, user: User, game_id: str, mode: str) -> dict:
        """A player's choice about the spectators' room of their game: show, hide or close."""
        if mode not in SPECTATOR_MODES:
            raise Invalid("bad_mode", f"The choices are {', '.join(SPECTATOR_MODES)}.")
        record = await self._game(game_id)
        if seat(record, user.id) is None:
            raise Forbidden("not_your_game", "Only the players of a game choose about its spectators' chat.")
        async with self.db.session() as s:
            setting = await s.get(ChatSetting, (game_id, user.id))
            if setting is None:
                s.add(ChatSetting(game_id=game_id, user_id=user.id, spectators=mode))
            else:
                setting.spectators = mode
            await s.commit()
        settings = await self._settings(game_id)
        closed = "close" in settings.values()
        await self.bus.publish(channel(game_id), {"type": "chatSettings", "spectatorsClosed": closed})
        return {"spectators": mode, "spectators_closed": closed}

    # -- reading ----------------------------------------------------------------------------------

    async def visible_to(
        self, game_id: str, user_id: int | None, color: Color | str | None, room: str
    ) -> bool:
        """Whether a listener (a player of `color`, or a spectator: color None) sees lines of `room`."""
        if room == "player":
            return color is not None
        if color is None:
            return True
        if (await self._game(game_id)).status == GameStatus.STARTED:
            return False  # a player hears no spectator before the game is over
        async with self.db.session() as s:
            setting = await s.get(ChatSetting, (game_id, user_id))
        return setting is None or setting.spectators == "show"

    async def shown(
        self, event: dict, game_id: str, user_id: int | None, color: Color | str | None
    ) -> bool:
        """Whether a chat event of the game's channel reaches this listener, whichever way they listen
        (the game socket, the Bot and Board APIs' game stream): not a line of an author they block, and of
        a room they read; an event of no room (the chat's settings) reaches everyone."""
        if await self._blocked_by(user_id, (event.get("user") or {}).get("id")):
            return False
        room = event.get("room")
        return room is None or await self.visible_to(game_id, user_id, color, room)

    async def lines(self, user: User | None, game_id: str) -> dict:
        """The lines the asker sees, oldest first, and the state of the spectators' room."""
        record = await self._game(game_id)
        user_id = user.id if user else None
        color = seat(record, user_id)
        settings = await self._settings(game_id)
        rooms = [room for room in ROOMS if await self.visible_to(game_id, user_id, color, room)]
        async with self.db.session() as s:
            rows: list[ChatLine] = []
            for room in rooms:
                rows += await s.scalars(
                    select(ChatLine)
                    .where(ChatLine.game_id == game_id, ChatLine.room == room)
                    .order_by(ChatLine.id.desc())
                    .limit(HISTORY)
                )
        rows.sort(key=lambda line: line.id)
        rows = [line for line in rows if not await self._blocked_by(user_id, line.user_id)]
        authors = await self.accounts.users_by_id({line.user_id for line in rows})
        write: dict[str, Any] | None = None  # where the asker writes, and whether a line would be refused
        if user is not None:
            room = "player" if color else "spectator"
            try:
                await self._may_write(user, record, room)
                write = {"room": room, "refused": None}
            except Forbidden as refused:
                write = {"room": room, "refused": {"code": refused.code, "message": refused.message}}
        return {
            "lines": [self._line_json(line, authors[line.user_id]) for line in rows],
            "rooms": rooms,
            "write": write,
            "spectators": settings.get(user_id, "show") if color and user_id is not None else None,
            "spectators_closed": "close" in settings.values(),
        }

    @contextlib.asynccontextmanager
    async def feed(
        self,
        game_id: str,
        user_id: int | None,
        send: Callable[[dict], Awaitable[None]],
        ready: asyncio.Event | None = None,
    ) -> AsyncIterator[None]:
        """While open, `send` each new line of the game that this listener sees (after `ready` is set)."""
        color = seat(await self._game(game_id), user_id)
        async with self.bus.subscribe(channel(game_id)) as events:

            async def forward() -> None:
                if ready is not None:
                    await ready.wait()
                async for event in events:
                    if await self.shown(event, game_id, user_id, color):
                        await send(event)

            task = asyncio.create_task(forward())
            try:
                yield
            finally:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
