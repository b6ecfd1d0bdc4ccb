"""The NDJSON streams: the account's events and a game's stream, with lidraughts' lines.

A draw offer sent with a move (`offeringDraw=true`) is made just before the move, as lidraughts' BotPlayer
does; the two changes then reach the game stream as two states a few milliseconds apart. lidraughts shows
them as one `gameState` (its stream speaks only after moves), and a bot decides on the line it reads, so
here a state that adds nothing but a draw offer by the side to move is held back for a moment
(`OFFER_HOLD_SECONDS`): when the move follows, only the line with the move is sent, carrying the offer.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
from collections.abc import AsyncGenerator, AsyncIterator, Iterable
from typing import Any

from shashki.server.accounts.models import User
from shashki.server.chat import ChatService
from shashki.server.chat.service import channel as chat_channel
from shashki.server.connections import Connections, Full
from shashki.server.errors import Forbidden, NotFound, RateLimited, ServiceError
from shashki.server.events import DROPPED, EventBus, Subscription
from shashki.server.games.service import GameService
from shashki.server.lidraughts.facts import GameFacts, StateView, facts, other, state_view
from shashki.server.lidraughts.moves import MoveStrings
from shashki.server.lidraughts.views import Views
from shashki.server.lobby import LobbyService
from shashki.server.lobby.models import Challenge

Json = dict[str, Any]
# How long a state whose only news is the mover's draw offer waits for the move that goes with it.
OFFER_HOLD_SECONDS = 2.0


class StreamSlots:
    """How many streams of one kind each account holds open: in this process, or in every process through
    Redis (`connections.SharedConnections`), so that a bot cannot pass its cap by spreading its streams
    over processes, and is online on every process while one holds a stream."""

    def __init__(self, limit: int, what: str, connections: Connections | None = None) -> None:
        self.limit = limit
        self.what = what
        self.kind = what.replace(" ", "_")
        self.connections = connections or Connections()

    def _refusal(self) -> RateLimited:
        return RateLimited(
            "too_many_streams",
            f"At most {self.limit} {self.what} may be open at once per account; close one first.",
            retry_after=60,
        )

    async def check(self, user_id: int) -> None:
        """Refuse before the stream starts (a 429) when the account's streams fill the cap."""
        if await self.connections.count(self.kind, user_id) >= self.limit:
            raise self._refusal()

    async def holding(self, user_ids: Iterable[int]) -> set[int]:
        """Those of `user_ids` with a stream of this kind open."""
        return {int(i) for i in await self.connections.holding(self.kind, user_ids)}

    @contextlib.asynccontextmanager
    async def hold(self, user_id: int) -> AsyncIterator[None]:
        """One stream for as long as the block runs; refused when the cap was filled since `check`."""
        try:
            async with self.connections.held(self.kind, user_id, self.limit):
                yield
        except Full:
            raise self._refusal() from None


async def merged(subscriptions: list[Subscription], keepalive: float) -> AsyncGenerator[Json | None, None]:
    """Events of several subscriptions as they come, and None whenever `keepalive` seconds pass quietly;
    `{"type": "dropped"}` before the first event after some were lost, or as soon as the bus says so."""
    queue: asyncio.Queue[tuple[Subscription, Json]] = asyncio.Queue()

    async def pump(sub: Subscription) -> None:
        sub.wakes = True
        async for event in sub:
            await queue.put((sub, event))

    tasks = [asyncio.create_task(pump(sub)) for sub in subscriptions]
    try:
        while True:
            try:
                # asyncio.timeout, not wait_for: Python 3.11's wait_for can swallow a cancellation that
                # comes as the queue hands an event over, and the stream then outlived its close (found
                # by an audit: a stop waited 10 s on a Board API stream whose game's clock was stopped).
                async with asyncio.timeout(keepalive):
                    sub, event = await queue.get()
            except TimeoutError:
                yield None
                continue
            if sub.dropped:
                sub.dropped = 0
                yield {"type": DROPPED}
            if event.get("type") != DROPPED:  # the bus's own word that events were lost: said above
                yield event
    finally:
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task


def _subject(event: Json) -> tuple[str, str] | None:
    """What a game start or a challenge heard on a user's channel is about (its kind and id)."""
    kind = event.get("type")
    if kind == "gameStart":
        return kind, str(event["game"].get("id"))
    if kind == "challenge":
        return kind, str(event["challenge"].get("id"))
    return None


def only_an_offer(before: StateView, after: StateView) -> bool:
    """Whether `after` differs from `before` only by a draw offer of the side to move."""
    return (
        after.status == "started"
        and after.moves == before.moves
        and after.draw_offer == after.side_to_move
        and before.draw_offer != after.draw_offer
    )


class Streams:
    def __init__(
        self,
        lobby: LobbyService,
        bus: EventBus,
        games: GameService,
        chat: ChatService,
        views: Views,
        *,
        keepalive_seconds: float,
        event_streams: int,
        game_streams: int,
        offer_hold_seconds: float = OFFER_HOLD_SECONDS,
        connections: Connections | None = None,
    ) -> None:
        self.lobby = lobby
        self.bus = bus
        self.games = games
        self.chat = chat
        self.views = views
        self.keepalive = keepalive_seconds
        self.offer_hold = offer_hold_seconds
        self.event_slots = StreamSlots(event_streams, "event streams", connections)
        self.game_slots = StreamSlots(game_streams, "game streams", connections)

    # -- the event stream -------------------------------------------------------------------------

    async def events(self, user: User) -> AsyncIterator[Json | None]:
        """The account's events: games in progress and pending challenges first, then as they come.

        A game or challenge that began while the first ones were being listed is both listed and heard
        (the subscription comes first, so that nothing is missed): it is sent once, as listed."""
        async with self.event_slots.hold(user.id), self.bus.subscribe(f"user:{user.id}") as sub:
            listed: set[tuple[str, str]] = set()
            for state in await self.games.ongoing(user.id):
                game = await self.views.game_event(state_view(state), user.id)
                listed.add(("gameStart", str(state["id"])))
                yield {"type": "gameStart", "game": game}
            for challenge in await self.lobby.pending_challenges(user.id, incoming_only=True):
                listed.add(("challenge", str(challenge.id)))
                yield {"type": "challenge", "challenge": await self.views.challenge_json(challenge)}
            async with contextlib.aclosing(merged([sub], self.keepalive)) as stream:
                async for event in stream:
                    if event is None:
                        yield None
                        continue
                    if listed and (subject := _subject(event)) in listed:
                        listed.discard(subject)  # sent already, as listed
                        continue
                    try:
                        out = await self._event(event, user)
                    except ServiceError:
                        continue  # the thing the event speaks of is gone
                    if out is not None:
                        yield out

    async def challenge(self, challenge_id: object) -> Challenge:
        challenge = await self.lobby.challenge_by_id(int(str(challenge_id)))
        if challenge is None:
            raise NotFound("no_such_challenge", "There is no such challenge.")
        return challenge

    async def _event(self, event: Json, user: User) -> Json | None:
        kind = event.get("type")
        views = self.views
        if kind == "challenge":
            challenge = await self.challenge(event["challenge"]["id"])
            return {"type": "challenge", "challenge": await views.challenge_json(challenge)}
        if kind == "challengeDeclined":
            challenge = await self.challenge(event["id"])
            return {"type": "challengeDeclined", "challenge": await views.challenge_json(challenge)}
        if kind == "challengeCancelled":
            challenge = await self.challenge(event["id"])
            return {"type": "challengeCanceled", "challenge": await views.challenge_json(challenge)}
        if kind == "gameStart":
            return {"type": "gameStart", "game": await views.game_event(state_view(event["game"]), user.id)}
        if kind == "gameFinish":
            state = state_view(await self.games.get_state(event["game"]))
            return {"type": "gameFinish", "game": await views.game_event(state, user.id)}
        if kind == "rematchOffer":
            return {"type": "challenge", "challenge": await views.rematch_json(event["game"], event["by"])}
        if kind == "rematchCancelled":
            if event.get("declined"):
                offer = await views.rematch_json(event["game"], user.id, "declined", event.get("reason"))
                return {"type": "challengeDeclined", "challenge": offer}
            offer = await views.rematch_json(event["game"], event["by"], "canceled")
            return {"type": "challengeCanceled", "challenge": offer}
        return None

    # -- a game's stream --------------------------------------------------------------------------

    async def my_game(self, user: User, game_id: str) -> tuple[GameFacts, str]:
        game = facts(await self.games.live(game_id))
        color = game.color_of(user.id)
        if color is None:
            raise Forbidden("not_your_game", "This stream is for the players of the game.")
        return game, color

    def presence(self, game_id: str) -> Json:
        presence = self.games.presence
        return {
            "type": "presence",
            "white": presence.connected(game_id, "white"),
            "black": presence.connected(game_id, "black"),
        }

    async def game_stream(self, user: User, game_id: str) -> AsyncIterator[Json | None]:
        """gameFull, then a gameState per change, chatLine per chat line, opponentGone when the opponent
        leaves or comes back; it ends with the game. While it is open the player counts as connected.
        """
        game, color = await self.my_game(user, game_id)
        moves = MoveStrings(game.variant, game.double_diagonal, game.initial_fen)
        async with (
            self.game_slots.hold(user.id),
            self.bus.subscribe(f"game:{game_id}") as game_events,
            self.bus.subscribe(chat_channel(game_id)) as chat_events,
        ):
            state = state_view(await self.games.get_state(game_id))
            yield await self.views.game_full(game, state, moves)
            if state.status != "started":
                return
            self.games.player_joined(game_id, color)
            await self.bus.publish(f"game:{game_id}", self.presence(game_id))
            # The computer (an empty seat) is always there.
            opponent_here = game.seat(other(color)) is None or self.games.presence.connected(
                game_id, other(color)
            )
            queue: asyncio.Queue[Json | None] = asyncio.Queue()
            events = merged([game_events, chat_events], self.keepalive)
            pump = asyncio.create_task(self._pump(events, queue))
            sent = state  # the state of the last gameState line
            held: StateView | None = None  # a state waiting for the move that goes with its offer
            loop = asyncio.get_running_loop()
            release_at = 0.0
            try:
                while True:
                    try:
                        wait = max(0.0, release_at - loop.time()) if held else None
                        async with asyncio.timeout(wait):  # not wait_for: see `merged`
                            event = await queue.get()
                    except TimeoutError:
                        event = {"type": "release"}
                    kind = event and event.get("type")
                    if kind in ("state", "dropped", "release"):
                        if kind == "state" and event is not None:
                            if event["seq"] <= max(sent.seq, held.seq if held else 0):
                                continue
                            fresh = state_view(event["game"])
                        elif kind == "dropped":
                            fresh = state_view(await self.games.get_state(game_id))
                        else:
                            assert held is not None
                            fresh, held = held, None
                        if kind != "release" and only_an_offer(sent, fresh):
                            if held is None:
                                release_at = loop.time() + self.offer_hold
                            held = fresh
                            continue
                        held = None
                        sent = fresh
                        yield self.views.state_json(fresh, moves.update(fresh.moves))
                        if fresh.status != "started":
                            return
                    elif event is None:
                        yield None
                    elif kind == "presence" and event[other(color)] != opponent_here:
                        # Told when the opponent leaves or comes back, as lichess's opponentGone.
                        opponent_here = event[other(color)]
                        out: Json = {"type": "opponentGone", "gone": not opponent_here}
                        if not opponent_here and state.clocks is not None:  # no claim without a clock
                            out["claimWinInSeconds"] = math.ceil(self.games.claim_after_ms / 1000)
                        yield out
                    elif kind == "chat" and "room" in event and await self.chat.shown(
                        event, game_id, user.id, color
                    ):
                        yield {
                            "type": "chatLine",
                            "room": event["room"],
                            "username": event["username"],
                            "text": event["text"],
                        }
            finally:
                pump.cancel()
                with contextlib.suppress(BaseException):
                    await pump
                self.games.player_left(game_id, color)
                await self.bus.publish(f"game:{game_id}", self.presence(game_id))

    @staticmethod
    async def _pump(events: AsyncGenerator[Json | None, None], queue: asyncio.Queue[Json | None]) -> None:
        async with contextlib.aclosing(events) as stream:
            async for event in stream:
                await queue.put(event)
