"""The Bot and Board APIs with lidraughts' conventions: the account's event stream, a game's stream,
moves as square numbers, challenges, seeks. Everything here translates between lidraughts' shapes and
the domain services (games, lobby, ratings, chat, rematch); none of the rules of play live here.

Moves. A move string is the start square and every landing square, two digits each (`3227`, `423122`).
A capture may also be sent jump by jump, one request per jump (`4231`, then `3122`), as lidraughts lets
bots do: a jump that begins a legal capture without finishing it is kept (in this process) until the
jumps that follow complete it — nothing is played until then. A capture may also be sent as its start
and end squares alone (`4222`) when only one legal capture joins them.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

from sqlalchemy import select

from shashki.rules import IllegalMove
from shashki.server.accounts.models import User
from shashki.server.chat import ChatService
from shashki.server.chat.service import channel as chat_channel
from shashki.server.errors import Conflict, Forbidden, Invalid, NotFound, RateLimited, ServiceError
from shashki.server.events import EventBus, Subscription
from shashki.server.games.models import GameRecord
from shashki.server.games.rematch import RematchService
from shashki.server.games.service import GameService, LiveGame, new_rules_game, other
from shashki.server.lidraughts import (
    NO_CLOCK_MS,
    jump_strings,
    move_string,
    speed_title,
    squares_of,
    status_name,
    user_json,
    variant_json,
)
from shashki.server.lobby import DECLINE_REASONS, LobbyService, TimeControl
from shashki.server.lobby.models import Challenge, Seek
from shashki.server.ratings import RatingService, speed_of
from shashki.server.storage import Database

# lidraughts' numeric status ids, for the `status` objects of gameStart and gameFinish events.
STATUS_IDS = {
    "started": 20, "aborted": 25, "mate": 30, "resign": 31, "timeout": 33, "draw": 34, "outoftime": 35
}
CHALLENGE_STATUS = {
    "pending": "created", "accepted": "accepted", "declined": "declined", "cancelled": "canceled"
}


class MoveStrings:
    """A game's moves as lidraughts lists them (captures jump by jump, `jump_strings`), kept up to date
    from the notations of its states."""

    def __init__(self, variant: str, double_diagonal: bool, fen: str | None) -> None:
        self.game = new_rules_game(variant, double_diagonal, fen)
        self.strings: list[str] = []
        self.played = 0  # moves read so far (a capture adds one string per jump)
        self.last = ""  # the last move whole (lidraughts' `lastMove`)

    def update(self, notations: list[str]) -> list[str]:
        for notation in notations[self.played :]:
            move = self.game.play(notation)
            self.strings.extend(jump_strings(self.game.variant, move))
            self.last = move_string(self.game.variant, move)
            self.played += 1
        return self.strings


class StreamSlots:
    """How many streams of one kind each account holds open (in this process)."""

    def __init__(self, limit: int, what: str) -> None:
        self.limit = limit
        self.what = what
        self._open: dict[int, int] = {}

    def check(self, user_id: int) -> None:
        if self._open.get(user_id, 0) >= self.limit:
            raise RateLimited(
                "too_many_streams",
                f"At most {self.limit} {self.what} may be open at once per account; close one first.",
                retry_after=60,
            )

    @contextlib.contextmanager
    def hold(self, user_id: int):
        self._open[user_id] = self._open.get(user_id, 0) + 1
        try:
            yield
        finally:
            self._open[user_id] -= 1
            if not self._open[user_id]:
                del self._open[user_id]


@dataclass
class PendingJumps:
    ply: int
    path: list[int] = field(default_factory=list)


async def merged(subscriptions: list[Subscription], keepalive: float) -> AsyncIterator[dict | None]:
    """Events of several subscriptions as they come, and None whenever `keepalive` seconds pass quietly."""
    queue: asyncio.Queue = asyncio.Queue()

    async def pump(sub: Subscription) -> None:
        async for event in sub:
            await queue.put((sub, event))

    tasks = [asyncio.create_task(pump(sub)) for sub in subscriptions]
    try:
        while True:
            try:
                sub, event = await asyncio.wait_for(queue.get(), keepalive)
            except TimeoutError:
                yield None
                continue
            if sub.dropped:
                sub.dropped = 0
                yield {"type": "dropped"}
            yield event
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


class BotApi:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        games: GameService,
        lobby: LobbyService,
        ratings: RatingService,
        chat: ChatService,
        rematch: RematchService,
        *,
        keepalive_seconds: float = 6.0,
        event_streams: int = 3,
        game_streams: int = 20,
    ) -> None:
        self.db = db
        self.bus = bus
        self.games = games
        self.lobby = lobby
        self.ratings = ratings
        self.chat = chat
        self.rematch = rematch
        self.keepalive = keepalive_seconds
        self.event_slots = StreamSlots(event_streams, "event streams")
        self.game_slots = StreamSlots(game_streams, "game streams")
        self._jumps: dict[tuple[str, int], PendingJumps] = {}

    # -- shapes -----------------------------------------------------------------------------------

    async def _users(self, ids) -> dict[int, User]:
        ids = {i for i in ids if i is not None}
        if not ids:
            return {}
        async with self.db.session() as s:
            return {u.id: u for u in await s.scalars(select(User).where(User.id.in_(ids)))}

    async def challenge_json(self, challenge: Challenge) -> dict:
        users = await self._users([challenge.challenger_id, challenge.dest_user_id])
        speed = speed_of(challenge.clock_initial_ms, challenge.clock_increment_ms)
        ratings = await self.ratings.for_players(
            [challenge.challenger_id, challenge.dest_user_id], challenge.variant, speed
        )
        out = {
            "id": str(challenge.id),
            "status": CHALLENGE_STATUS.get(challenge.status, challenge.status),
            "challenger": user_json(users[challenge.challenger_id], ratings[challenge.challenger_id]),
            "destUser": user_json(users[challenge.dest_user_id], ratings[challenge.dest_user_id]),
            "variant": variant_json(challenge.variant),
            "rated": challenge.rated,
            "speed": speed,
            "timeControl": time_control_json(challenge.clock_initial_ms, challenge.clock_increment_ms),
            "color": challenge.color,
            "perf": {"icon": "", "name": speed_title(speed)},
        }
        if challenge.initial_fen:
            out["initialFen"] = challenge.initial_fen
        if challenge.status == "declined":
            reason = challenge.decline_reason if challenge.decline_reason in DECLINE_REASONS else "generic"
            out["declineReasonKey"] = camel(reason)
            out["declineReason"] = DECLINE_REASONS[reason]
        if challenge.game_id:
            out["gameId"] = challenge.game_id
        return out

    async def rematch_json(self, game_id: str, offerer_id: int, status: str = "created") -> dict:
        """A rematch offer shown as a challenge, as lidraughts does: its id is the finished game's."""
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
        dest_id = record.black_id if record.white_id == offerer_id else record.white_id
        users = await self._users([offerer_id, dest_id])
        speed = speed_of(record.clock_initial_ms, record.clock_increment_ms)
        ratings = await self.ratings.for_players([offerer_id, dest_id], record.variant, speed)
        offerer_color = "white" if record.white_id == offerer_id else "black"
        return {
            "id": game_id,
            "status": status,
            "challenger": user_json(users[offerer_id], ratings[offerer_id]),
            "destUser": user_json(users[dest_id], ratings[dest_id]) if dest_id in users else None,
            "variant": variant_json(record.variant),
            "rated": record.rated,
            "speed": speed,
            "timeControl": time_control_json(record.clock_initial_ms, record.clock_increment_ms),
            "color": other(offerer_color),  # the colours swap
            "perf": {"icon": "", "name": speed_title(speed)},
            "rematchOf": game_id,
        }

    def _state_json(self, state: dict, strings: list[str]) -> dict:
        clocks = state["clocks"]
        out = {
            "type": "gameState",
            "moves": " ".join(strings),
            "wtime": clocks["white_ms"] if clocks else NO_CLOCK_MS,
            "btime": clocks["black_ms"] if clocks else NO_CLOCK_MS,
            "winc": clocks["increment_ms"] if clocks else 0,
            "binc": clocks["increment_ms"] if clocks else 0,
            "wdraw": state["draw_offer"] == "white",
            "bdraw": state["draw_offer"] == "black",
            "status": status_name(state["status"], state["reason"]),
        }
        if state["winner"]:
            out["winner"] = state["winner"]
        rematch = (state.get("rematch") or {}).get("game_id")
        if rematch:
            out["rematch"] = rematch
        return out

    async def _players_json(self, live: LiveGame) -> dict:
        r = live.record
        speed = speed_of(r.clock_initial_ms, r.clock_increment_ms)
        ratings = await self.ratings.for_players([r.white_id, r.black_id], r.variant, speed)
        users = await self._users([r.white_id, r.black_id])
        out = {}
        for color, user_id in (("white", r.white_id), ("black", r.black_id)):
            if user_id is None:
                out[color] = {"aiLevel": r.computer_level}
            else:
                out[color] = user_json(users[user_id], ratings[user_id])
        return out

    async def game_full(self, live: LiveGame, state: dict, strings: list[str]) -> dict:
        r = live.record
        speed = speed_of(r.clock_initial_ms, r.clock_increment_ms)
        clock = None
        if r.clock_initial_ms is not None:
            clock = {"initial": r.clock_initial_ms, "increment": r.clock_increment_ms}
        return {
            "type": "gameFull",
            "id": r.id,
            "variant": variant_json(r.variant),
            "clock": clock,
            "speed": speed,
            "perf": {"name": speed_title(speed)},
            "rated": r.rated,
            "createdAt": int(r.created_at.timestamp() * 1000),
            **await self._players_json(live),
            "initialFen": r.initial_fen or "startpos",
            "state": self._state_json(state, strings),
        }

    async def game_event(self, state: dict, user_id: int) -> dict:
        """A game as the event stream's gameStart and gameFinish show it, from one player's side."""
        live = await self.games.live(state["id"])
        r = live.record
        color = live.color_of(user_id) or "white"
        opponent_id = r.black_id if color == "white" else r.white_id
        speed = speed_of(r.clock_initial_ms, r.clock_increment_ms)
        moves = MoveStrings(r.variant, r.double_diagonal, r.initial_fen)
        moves.update(state["moves"])
        if opponent_id is None:
            opponent = {"id": None, "username": f"Computer level {r.computer_level}", "ai": r.computer_level}
        else:
            user = (await self._users([opponent_id]))[opponent_id]
            rating = (await self.ratings.for_players([opponent_id], r.variant, speed))[opponent_id]
            opponent = {"id": user.username_key, "username": user.username, "rating": rating["rating"]}
        clocks = state["clocks"]
        status = status_name(state["status"], state["reason"])
        out = {
            "id": r.id,
            "gameId": r.id,
            "fullId": r.id,
            "color": color,
            "fen": state["fen"],
            "hasMoved": moves.played > (0 if color == "white" else 1),
            "isMyTurn": state["status"] == "started" and state["side_to_move"] == color,
            "lastMove": moves.last,
            "opponent": opponent,
            "perf": speed,
            "rated": r.rated,
            "secondsLeft": (clocks[f"{color}_ms"] // 1000) if clocks else None,
            "source": "friend",
            "speed": speed,
            "status": {"id": STATUS_IDS.get(status, 38), "name": status},
            "variant": variant_json(r.variant),
            "compat": {"bot": True, "board": True},
        }
        if state["winner"]:
            out["winner"] = state["winner"]
        return out

    async def account(self, user: User) -> dict:
        """The account in lidraughts' shape (`/api/account` adds these fields to its own answer)."""
        perfs = {
            f"{r['variant']}.{r['speed']}": {
                "games": r["games"],
                "rating": r["rating"],
                "rd": r["deviation"],
                "prog": 0,
                "prov": r["provisional"],
            }
            for r in await self.ratings.of_user(user.id)
        }
        return {
            "id": user.username_key,
            "username": user.username,
            "title": "BOT" if user.is_bot else None,
            "createdAt": int(user.created_at.timestamp() * 1000),
            "perfs": perfs,
        }

    async def now_playing(self, user_id: int) -> list[dict]:
        events = [await self.game_event(state, user_id) for state in await self.games.ongoing(user_id)]
        # The most urgent first: your move, least time left.
        events.sort(key=lambda e: (not e["isMyTurn"], 1e9 if e["secondsLeft"] is None else e["secondsLeft"]))
        return events

    # -- the event stream -------------------------------------------------------------------------

    async def events(self, user: User) -> AsyncIterator[dict | None]:
        """The account's events: games in progress and pending challenges first, then as they come."""
        with self.event_slots.hold(user.id):
            async with self.bus.subscribe(f"user:{user.id}") as sub:
                for state in await self.games.ongoing(user.id):
                    yield {"type": "gameStart", "game": await self.game_event(state, user.id)}
                async with self.db.session() as s:
                    pending = list(
                        await s.scalars(
                            select(Challenge)
                            .where(Challenge.dest_user_id == user.id, Challenge.status == "pending")
                            .order_by(Challenge.id)
                        )
                    )
                for challenge in pending:
                    yield {"type": "challenge", "challenge": await self.challenge_json(challenge)}
                async with contextlib.aclosing(merged([sub], self.keepalive)) as stream:
                    async for event in stream:
                        if event is None:
                            yield None
                            continue
                        try:
                            out = await self._event(event, user)
                        except ServiceError:
                            continue  # the thing the event speaks of is gone
                        if out is not None:
                            yield out

    async def _challenge(self, challenge_id) -> Challenge:
        async with self.db.session() as s:
            challenge = await s.get(Challenge, int(challenge_id))
        if challenge is None:
            raise NotFound("no_such_challenge", "There is no such challenge.")
        return challenge

    async def _event(self, event: dict, user: User) -> dict | None:
        kind = event.get("type")
        if kind == "challenge":
            challenge = await self._challenge(event["challenge"]["id"])
            return {"type": "challenge", "challenge": await self.challenge_json(challenge)}
        if kind == "challengeDeclined":
            challenge = await self._challenge(event["id"])
            return {"type": "challengeDeclined", "challenge": await self.challenge_json(challenge)}
        if kind == "challengeCancelled":
            challenge = await self._challenge(event["id"])
            return {"type": "challengeCanceled", "challenge": await self.challenge_json(challenge)}
        if kind == "gameStart":
            return {"type": "gameStart", "game": await self.game_event(event["game"], user.id)}
        if kind == "gameFinish":
            state = await self.games.get_state(event["game"])
            return {"type": "gameFinish", "game": await self.game_event(state, user.id)}
        if kind == "rematchOffer":
            return {"type": "challenge", "challenge": await self.rematch_json(event["game"], event["by"])}
        if kind == "rematchCancelled":
            if event.get("declined"):
                offer = await self.rematch_json(event["game"], user.id, "declined")
                return {"type": "challengeDeclined", "challenge": offer}
            offer = await self.rematch_json(event["game"], event["by"], "canceled")
            return {"type": "challengeCanceled", "challenge": offer}
        return None

    # -- a game's stream --------------------------------------------------------------------------

    async def _my_game(self, user: User, game_id: str) -> tuple[LiveGame, str]:
        live = await self.games.live(game_id)
        color = live.color_of(user.id)
        if color is None:
            raise Forbidden("not_your_game", "This stream is for the players of the game.")
        return live, color

    async def game_stream(self, user: User, game_id: str) -> AsyncIterator[dict | None]:
        """gameFull, then a gameState per change, chatLine per chat line, opponentGone when the opponent
        leaves or comes back; it ends with the game. While it is open the player counts as connected.
        """
        live, color = await self._my_game(user, game_id)
        r = live.record
        strings = MoveStrings(r.variant, r.double_diagonal, r.initial_fen)
        with self.game_slots.hold(user.id):
            async with (
                self.bus.subscribe(f"game:{game_id}") as game_events,
                self.bus.subscribe(chat_channel(game_id)) as chat_events,
            ):
                state = await self.games.get_state(game_id)
                last_seq = state["seq"]
                yield await self.game_full(live, state, strings.update(state["moves"]))
                if state["status"] != "started":
                    return
                await self.games.player_joined(game_id, user.id)
                await self.bus.publish(f"game:{game_id}", self._presence(game_id))
                opponent_here = live.is_computer(other(color)) or self.games.presence.connected(
                    game_id, other(color)
                )
                stream = merged([game_events, chat_events], self.keepalive)
                try:
                    async for event in stream:
                        kind = event and event.get("type")
                        if event is None:
                            yield None
                        elif kind in ("state", "dropped"):
                            if kind == "state" and event["seq"] <= last_seq:
                                continue
                            state = event["game"] if kind == "state" else await self.games.get_state(game_id)
                            last_seq = state["seq"]
                            yield self._state_json(state, strings.update(state["moves"]))
                            if state["status"] != "started":
                                return
                        elif kind == "presence" and event[other(color)] != opponent_here:
                            # Told when the opponent leaves or comes back, as lichess's opponentGone.
                            opponent_here = event[other(color)]
                            out = {"type": "opponentGone", "gone": not opponent_here}
                            if not opponent_here:
                                out["claimWinInSeconds"] = math.ceil(self.games.claim_after_ms / 1000)
                            yield out
                        elif kind == "chat" and await self.chat.visible_to(
                            game_id, user.id, color, event["room"]
                        ):
                            yield {
                                "type": "chatLine",
                                "room": event["room"],
                                "username": event["username"],
                                "text": event["text"],
                            }
                finally:
                    await stream.aclose()
                    await self.games.player_left(game_id, user.id)
                    await self.bus.publish(f"game:{game_id}", self._presence(game_id))

    def _presence(self, game_id: str) -> dict:
        presence = self.games.presence
        return {
            "type": "presence",
            "white": presence.connected(game_id, "white"),
            "black": presence.connected(game_id, "black"),
        }

    # -- acting in a game -------------------------------------------------------------------------

    async def move(self, user: User, game_id: str, text: str, *, offering_draw: bool = False) -> dict:
        """Play a move given as a lidraughts move string (or one jump of a capture); `{"ok": true}`."""
        await self._my_game(user, game_id)
        await self.games.get_state(game_id)  # brought up to date (clocks, other processes)
        live, color = await self._my_game(user, game_id)
        if live.record.status != "started":
            raise Conflict("game_over", f"The game is over ({live.record.reason}).")
        if live.side_to_move != color:
            raise Conflict("not_your_turn", "It is not your turn.")
        ply = live.record.ply
        move = self._resolve(live, user.id, ply, squares_of(live.rules.variant, text))
        if move is not None:
            state = await self.games.move(user.id, game_id, move.notation(live.rules.variant), ply=ply)
            if offering_draw and state["status"] == "started":
                await self.games.offer_draw(user.id, game_id)
        elif offering_draw:
            await self.games.offer_draw(user.id, game_id)
        return {"ok": True}

    def _resolve(self, live: LiveGame, user_id: int, ply: int, path: list[int]):
        """The legal move the squares name, None for a jump that begins a capture, else Invalid."""
        key = (live.id, user_id)
        pending = self._jumps.pop(key, None)
        if pending is not None and pending.ply == ply and path[0] == pending.path[-1]:
            path = pending.path + path[1:]
        position = live.rules.position
        legal = position.legal_moves()
        legal_keys = {m.key for m in legal}
        routes = [m for m in position.capture_routes() if m.key in legal_keys]
        for route in routes:
            if list(route.path) == path:
                return route
        if len(path) == 2:
            ends = {m.key: m for m in routes if m.path[0] == path[0] and m.path[-1] == path[-1]}
            if len(ends) == 1:
                return next(iter(ends.values()))
            if len(ends) > 1:
                raise Invalid(
                    "ambiguous",
                    "Several captures join these squares: send every landing square.",
                    legal=[move_string(live.rules.variant, m) for m in ends.values()],
                )
        if any(len(m.path) > len(path) and list(m.path[: len(path)]) == path for m in routes):
            self._jumps[key] = PendingJumps(ply, path)
            return None
        variant = live.rules.variant
        try:
            # The rules explain the refusal (a capture is compulsory, a man cannot go back, ...).
            position.parse_move("-".join(str(variant.board.number(b)) for b in path))
            reason, message = "illegal_move", "That is not a legal move here."
        except IllegalMove as e:
            reason, message = e.code, e.message
        raise Invalid(reason, message, legal=[move_string(variant, m) for m in routes])

    async def draw(self, user: User, game_id: str, accept: bool) -> dict:
        if accept:
            await self.games.offer_draw(user.id, game_id)
        else:
            await self.games.decline_draw(user.id, game_id)
        return {"ok": True}

    async def resign(self, user: User, game_id: str) -> dict:
        """Resign; before each side has moved that is aborting, as on lidraughts."""
        live, _ = await self._my_game(user, game_id)
        if live.record.status == "started" and live.record.ply < 2:
            await self.games.abort(user.id, game_id)
        else:
            await self.games.resign(user.id, game_id)
        return {"ok": True}

    # -- challenges and seeks ---------------------------------------------------------------------

    async def accept(self, user: User, challenge_id: str) -> dict:
        """Accept a challenge — or, for a finished game's id, the rematch offered in it."""
        if challenge_id.isdigit():
            await self.lobby.accept_challenge(user, int(challenge_id))
        else:
            await self.rematch.accept(user.id, challenge_id)
        return {"ok": True}

    async def decline(self, user: User, challenge_id: str, reason: str) -> dict:
        if challenge_id.isdigit():
            await self.lobby.decline_challenge(user, int(challenge_id), snake(reason or "generic"))
        else:
            await self.rematch.decline(user.id, challenge_id)
        return {"ok": True}

    async def cancel(self, user: User, challenge_id: str) -> dict:
        if challenge_id.isdigit():
            await self.lobby.cancel_challenge(user, int(challenge_id))
        else:
            await self.rematch.decline(user.id, challenge_id)
        return {"ok": True}

    async def create_challenge(self, user: User, username: str, terms: dict) -> dict:
        made = await self.lobby.challenge(user, username, **terms)
        return await self.challenge_json(await self._challenge(made["id"]))

    async def list_challenges(self, user: User) -> dict:
        async with self.db.session() as s:
            rows = list(
                await s.scalars(
                    select(Challenge)
                    .where(Challenge.status == "pending")
                    .where((Challenge.challenger_id == user.id) | (Challenge.dest_user_id == user.id))
                    .order_by(Challenge.id)
                )
            )
        out: dict[str, list] = {"in": [], "out": []}
        for challenge in rows:
            data = await self.challenge_json(challenge)
            direction = "in" if challenge.dest_user_id == user.id else "out"
            out[direction].append(data | {"direction": direction})
        return out

    async def seek(self, user: User, terms: dict) -> AsyncIterator[None]:
        """Post a seek and keep it while the stream is open: it ends once a game starts from it (the
        gameStart comes on the event stream); closing the stream first withdraws the seek.
        """
        async with self.bus.subscribe(f"user:{user.id}") as sub:
            made = await self.lobby.create_seek(user, **terms)
            if made["game"] is not None:
                return
            seek_id = made["seek"]["id"]
            stream = merged([sub], self.keepalive)
            try:
                async for _event in stream:
                    async with self.db.session() as s:
                        status = await s.scalar(select(Seek.status).where(Seek.id == seek_id))
                    if status != "open":
                        return
                    yield None
            finally:
                await stream.aclose()
                with contextlib.suppress(ServiceError):
                    await self.lobby.cancel_seek(user, seek_id)


def time_control_json(initial_ms: int | None, increment_ms: int) -> dict:
    if initial_ms is None:
        return {"type": "unlimited"}
    limit, increment = initial_ms // 1000, increment_ms // 1000
    minutes = initial_ms / 60_000
    shown = f"{minutes:g}" if minutes >= 1 else {0.25: "¼", 0.5: "½", 0.75: "¾"}.get(minutes, f"{minutes:g}")
    return {"type": "clock", "limit": limit, "increment": increment, "show": f"{shown}+{increment}"}


def camel(key: str) -> str:
    """lichess's decline reason keys are camelCase (tooFast); ours snake_case (too_fast)."""
    head, *rest = key.split("_")
    return head + "".join(part.capitalize() for part in rest)


def snake(key: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in key)


def time_control_of(fields: dict) -> TimeControl:
    """The clock of a lidraughts challenge form: `clock.limit` seconds and `clock.increment` seconds;
    without them (or with `days`) a game without clocks.
    """
    limit = fields.get("clock.limit")
    if limit in (None, "") or fields.get("days"):
        return TimeControl(None)
    try:
        return TimeControl(float(limit) / 60, int(fields.get("clock.increment") or 0))
    except ValueError:
        raise Invalid("bad_time_control", "clock.limit and clock.increment are numbers of seconds.") from None
