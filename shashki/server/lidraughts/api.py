"""The Bot and Board APIs with lidraughts' conventions: what each route asks of the domain services.

Everything here translates between lidraughts' shapes and the domain services (games, lobby, ratings,
chat, rematch, accounts); none of the rules of play live here. Moves reach the games service as rules
`Move`s resolved by the rules' own resolver (`moves.PendingJumps.resolve` → `Position.move_by_path`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

from shashki.rules import Move
from shashki.server.accounts import AccountService
from shashki.server.accounts.models import User
from shashki.server.chat import ChatService
from shashki.server.connections import Connections
from shashki.server.errors import Conflict, Invalid, ServiceError
from shashki.server.events import EventBus
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService
from shashki.server.lidraughts.facts import facts, rules_of, state_view
from shashki.server.lidraughts.moves import PendingJumps
from shashki.server.lidraughts.shapes import snake
from shashki.server.lidraughts.streams import Streams, merged
from shashki.server.lidraughts.views import Views
from shashki.server.lobby import DECLINE_REASONS, LobbyService, TimeControl
from shashki.server.ratings import RatingService
from shashki.server.social.service import Online

Json = dict[str, Any]
OK: Json = {"ok": True}


async def play(games: GameService, user_id: int, game_id: str, move: Move, ply: int) -> Json:
    """Hand a resolved move to the games service (as a rules `Move`, never as text)."""
    return await games.move(user_id, game_id, move, ply=ply)


class BotApi:
    def __init__(
        self,
        bus: EventBus,
        games: GameService,
        lobby: LobbyService,
        ratings: RatingService,
        chat: ChatService,
        rematch: RematchService,
        accounts: AccountService,
        *,
        keepalive_seconds: float = 6.0,
        event_streams: int = 3,
        game_streams: int = 20,
        redis_url: str | None = None,
        connections: Connections | None = None,
    ) -> None:
        self.bus = bus
        self.games = games
        self.lobby = lobby
        self.rematch = rematch
        self.accounts = accounts
        self.keepalive = keepalive_seconds
        self.views = Views(games, ratings, accounts)
        self.streams = Streams(
            lobby,
            bus,
            games,
            chat,
            self.views,
            keepalive_seconds=keepalive_seconds,
            event_streams=event_streams,
            game_streams=game_streams,
            connections=connections,  # the streams' caps and who streams, across processes
        )
        self.jumps = PendingJumps(redis_url)  # shared by the processes when there are several
        # A seek's stream counts as a page of the site (social.Online): the player's real-time seek leaves
        # with them when they have neither (lobby/seeks.py `withdraw_when_gone`), not while it streams.
        self.online = Online(connections)

    # -- what other routes show in lidraughts' shape ------------------------------------------------

    async def account(self, user: User) -> Json:
        return await self.views.account(user)

    async def now_playing(self, user_id: int) -> list[Json]:
        states = [state_view(state) for state in await self.games.ongoing(user_id)]
        events = [await self.views.game_event(state, user_id) for state in states]
        # The most urgent first: your move, least time left.
        events.sort(key=lambda e: (not e["isMyTurn"], 1e9 if e["secondsLeft"] is None else e["secondsLeft"]))
        return events

    async def users_status(self, ids: list[str]) -> list[Json]:
        """lidraughts' `/api/users/status`: `{id, name, title?, online, playing}` of the existing accounts
        among at most 50 names. Online: an open event or game stream on any process, or connected to a
        game in progress (presence, shared too); playing: a game in progress."""
        users = await self.accounts.users_by_name([i.strip() for i in ids if i.strip()][:50])
        playing = await self.games.playing([u.id for u in users])
        streaming = await self.streaming([u.id for u in users])
        out = []
        for user in users:
            row: Json = {"id": user.username_key, "name": user.username}
            if user.is_bot:
                row["title"] = "BOT"
            row["online"] = user.id in streaming or await self._connected(user.id, user.id in playing)
            row["playing"] = user.id in playing
            out.append(row)
        return out

    async def streaming(self, user_ids: list[int]) -> set[int]:
        """Those of `user_ids` with an event or game stream open."""
        streams = self.streams
        return await streams.event_slots.holding(user_ids) | await streams.game_slots.holding(user_ids)

    async def _connected(self, user_id: int, playing: bool) -> bool:
        if not playing:
            return False
        for state in await self.games.ongoing(user_id):
            view = state_view(state)
            color = facts(await self.games.live(view.id)).color_of(user_id)
            if color and self.games.presence.connected(view.id, color):
                return True
        return False

    # -- acting in a game -------------------------------------------------------------------------

    async def move(self, user: User, game_id: str, text: str, *, offering_draw: bool = False) -> Json:
        """Play a move given as a lidraughts move string (or one jump of a capture). A draw offer sent
        with it is made first, as lidraughts' BotPlayer does (offering when the opponent has offered
        is accepting); with a capture sent jump by jump, the offer waits for the last jump."""
        await self.streams.my_game(user, game_id)
        await self.games.get_state(game_id)  # brought up to date (clocks, other processes)
        game, color = await self.streams.my_game(user, game_id)
        if game.status != "started":
            raise Conflict("game_over", f"The game is over ({game.reason}).")
        if game.side_to_move != color:
            raise Conflict("not_your_turn", "It is not your turn.")
        position = rules_of(await self.games.live(game_id)).position
        key = (game_id, user.id)
        await self.jumps.load(key)
        try:
            move, offer = self.jumps.resolve(position, key, game.ply, text, offering_draw=offering_draw)
        finally:
            await self.jumps.save(key)
        if move is None:
            return OK
        if offer:
            try:
                state = state_view(await self.games.offer_draw(user.id, game_id))
            except Conflict as refused:
                if refused.code not in ("too_early_for_a_draw", "draw_offered_recently"):
                    raise
                # Before each side has moved there is no draw to offer, and a side that offered lately
                # offers again only later (games/draws.py): the offer is dropped and the move played, as
                # lidraughts and lichess drop it (a bot client offering at every move of a drawn
                # ending would otherwise have each of its moves refused).
            else:
                if state.status != "started":
                    return OK  # the opponent had offered: the draw is agreed, nothing left to play
        await play(self.games, user.id, game_id, move, game.ply)
        return OK

    async def draw(self, user: User, game_id: str, accept: bool) -> Json:
        if accept:
            await self.games.offer_draw(user.id, game_id)
        else:
            await self.games.decline_draw(user.id, game_id)
        return OK

    async def resign(self, user: User, game_id: str) -> Json:
        """Resign; before each side has moved that is aborting (`GameActions.resign`), as on lidraughts."""
        await self.streams.my_game(user, game_id)
        await self.games.resign(user.id, game_id)
        return OK

    # -- challenges and seeks ---------------------------------------------------------------------

    async def accept(self, user: User, challenge_id: str) -> Json:
        """Accept a challenge — or, for a finished game's id, the rematch offered in it."""
        if challenge_id.isdigit():
            await self.lobby.accept_challenge(user, int(challenge_id))
        else:
            await self.rematch.accept(user.id, challenge_id)
        return OK

    async def decline(self, user: User, challenge_id: str, reason: str) -> Json:
        if challenge_id.isdigit():
            await self.lobby.decline_challenge(user, int(challenge_id), snake(reason or "generic"))
        else:  # a rematch offer: its reason reaches the one who offered, as a challenge's does
            reason = snake(reason or "generic")
            if reason not in DECLINE_REASONS:
                raise Invalid("bad_reason", f"Reasons are {', '.join(DECLINE_REASONS)}.")
            await self.rematch.decline(user.id, challenge_id, reason)
        return OK

    async def cancel(self, user: User, challenge_id: str) -> Json:
        if challenge_id.isdigit():
            await self.lobby.cancel_challenge(user, int(challenge_id))
        else:
            await self.rematch.decline(user.id, challenge_id)
        return OK

    async def create_challenge(self, user: User, username: str, terms: Json) -> Json:
        """The challenge made, as lidraughts answers it (`{"challenge": {...}, "socketVersion": 0}`, read
        by its clients as `challenge.id`), its fields also at the top, where lichess's clients read them."""
        made = await self.lobby.challenge(user, username, **terms)
        challenge = await self.views.challenge_json(await self.streams.challenge(made["id"]))
        challenge["direction"] = "out"
        return {**challenge, "challenge": challenge, "socketVersion": 0}

    async def list_challenges(self, user: User) -> Json:
        out: dict[str, list[Json]] = {"in": [], "out": []}
        for challenge in await self.lobby.pending_challenges(user.id, incoming_only=False):
            data = await self.views.challenge_json(challenge)
            direction = "in" if challenge.dest_user_id == user.id else "out"
            out[direction].append(data | {"direction": direction})
        return out

    async def seek(self, user: User, terms: Json) -> AsyncIterator[None]:
        """Post a seek and keep it while the stream is open: it ends once a game starts from it (the
        gameStart comes on the event stream); closing the stream first withdraws the seek.
        """
        async with self.online.connected(user.id), self.bus.subscribe(f"user:{user.id}") as sub:
            # The seek is visible from its commit on, while create_seek still publishes the lobby's list:
            # a client that leaves then must not leave the seek behind, so its creation is finished
            # (shielded) and the seek withdrawn before the cancellation goes on.
            creating = asyncio.ensure_future(self.lobby.create_seek(user, **terms))
            try:
                made = await asyncio.shield(creating)
            except asyncio.CancelledError:
                with contextlib.suppress(Exception):
                    left = await creating
                    if left["seek"] is not None:
                        await self.lobby.cancel_seek(user, left["seek"]["id"])
                raise
            if made["game"] is not None:
                return
            seek_id = made["seek"]["id"]
            stream = merged([sub], self.keepalive)
            try:
                async for _event in stream:
                    if not await self.lobby.seek_is_open(seek_id):
                        return
                    yield None
            finally:
                await stream.aclose()
                with contextlib.suppress(ServiceError):
                    await self.lobby.cancel_seek(user, seek_id)


def days_of(fields: dict[str, str]) -> int | None:
    """The days per move of a lidraughts challenge or seek form (`days`): a correspondence game."""
    days = fields.get("days")
    if days in (None, ""):
        return None
    try:
        return int(str(days))
    except ValueError:
        raise Invalid("bad_days", "days is a number of days per move: 1, 2, 3, 5, 7 or 14.") from None


def time_control_of(fields: dict[str, str]) -> TimeControl:
    """The clock of a lidraughts challenge form: `clock.limit` seconds and `clock.increment` seconds;
    without them (or with `days`, a correspondence game: `days_of`) a game without clocks.
    """
    limit = fields.get("clock.limit")
    if limit in (None, "") or fields.get("days"):
        return TimeControl(None)
    try:
        return TimeControl(float(str(limit)) / 60, int(fields.get("clock.increment") or 0))
    except ValueError:
        raise Invalid("bad_time_control", "clock.limit and clock.increment are numbers of seconds.") from None
