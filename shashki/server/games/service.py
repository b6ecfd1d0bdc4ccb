"""Live games, as the rest of the server asks for them: start a game, look one up, read its state, act
in it. A thin façade over the parts that do the work, which it wires together:

- `store` (`games.store`): the cache of games in play, load and refresh from the database, the
  compare-and-set commit, publication, and the listeners told after each change;
- `actions` (`games.actions`): move, draw offer/accept/decline, resign, abort, claim victory, and the
  finisher that ends a game with a rules `Outcome`;
- the view of the state (`games.view`), built once per change, whose JSON every client reads;
- `presence` (`games.presence`): who is connected to each game;
- the timers (`games.listeners`): the flag timer, the first-move timer and the computer opponent, armed
  by the game's owner (`games.owners`);
- `queries` (`games.queries`): the reads of the games' tables the other domains make (counts, lists,
  moves, the games being played now), so that no other domain queries these tables itself.
"""

from __future__ import annotations

import secrets
import string
from datetime import datetime, timedelta
from typing import Any

from shashki.rules import DEFAULT_VARIANT_KEY, Color, Move, RulesError
from shashki.server import metrics
from shashki.server.accounts import AccountService
from shashki.server.errors import Invalid
from shashki.server.events import EventBus
from shashki.server.games import lifecycle
from shashki.server.games.actions import GameActions
from shashki.server.games.computer import EngineOpponent, Opponent
from shashki.server.games.draws import Draws
from shashki.server.games.heartbeat import Heartbeat
from shashki.server.games.hooks import EndHook, StartHook
from shashki.server.games.listeners import Background, ComputerTurns, FirstMoveTimer, FlagTimer
from shashki.server.games.live import LiveGame, Player
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.owners import GameOwners, LocalOwners
from shashki.server.games.presence import Presence, SharedPresence
from shashki.server.games.replay import new_game
from shashki.server.games.statements import Claims
from shashki.server.games.store import AlsoWrite, GameStore
from shashki.server.games.takeback import Takebacks
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import RedisBus
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

__all__ = ["GameService", "LiveGame", "new_rules_game", "other"]

GAME_ID_ALPHABET = string.ascii_letters + string.digits

# The names the Bot API adapter still uses (it moves to `shashki.server.lidraughts`): `new_game` and
# `Color.other` are the typed forms.
new_rules_game = new_game


def other(color: str) -> str:
    """The other colour's name."""
    return Color(color).other.value


class GameService:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        *,
        disconnect_claim_seconds: float = 30.0,
        max_lag_compensation_ms: int = 500,
        computer_delay_seconds: float = 0.3,
        first_move_seconds: float = 60.0,
        game_lease_seconds: float = 10.0,
        engine: Opponent | None = None,
        accounts: AccountService | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.engine: Opponent = engine or EngineOpponent()
        # Who is connected: this process's sockets, plus the other processes' when events are shared.
        self.presence = SharedPresence(bus) if bus.shared else Presence()
        self.claim_after_ms = int(disconnect_claim_seconds * 1000)
        self.accounts = accounts or AccountService(db)
        self.store = GameStore(
            db,
            bus,
            self.presence,
            self._players,
            claim_after_ms=self.claim_after_ms,
            computer_name=self.engine.name,
            first_move_ms=int(first_move_seconds * 1000),
        )
        self.actions = GameActions(self.store, max_lag_ms=max_lag_compensation_ms)
        self.takebacks = Takebacks(self.actions, self.store)
        self.draws = Draws(self.actions, self.store, self.presence)
        self._background = Background()
        self._stopped = False  # `stop` has run
        self.flags = FlagTimer(self.actions, self._background)
        self.computer = ComputerTurns(
            self.store, self.actions, self.engine, self._background, delay=computer_delay_seconds
        )
        self.first_moves = FirstMoveTimer(self.actions, self._background, first_move_seconds)
        # The game's owner arms its timers; with several processes, one owns each live game, whichever
        # process commits its changes (a lease in Redis, games/owners.py).
        timers = (self.flags, self.first_moves, self.computer)
        self.owners: GameOwners | LocalOwners
        if isinstance(bus, RedisBus):
            self.owners = GameOwners(
                self.store,
                bus.client,
                timers,
                lease_seconds=game_lease_seconds,
                sweep_seconds=game_lease_seconds / 3,
                bus=bus,  # a clean stop's hand-over, told and heard on the bus's one pub/sub connection
            )
            self.store.add_heard_listener(self.owners.heard)
        else:
            self.owners = LocalOwners(timers)
        self.store.add_listener(self.owners)
        # One process: its sign of life, for the clocks after a crash (games/heartbeat.py).
        self.heartbeat = Heartbeat(db) if isinstance(self.owners, LocalOwners) else None
        # The read side of the games' tables for the other domains (profiles, lists, exports).
        self.queries = self.store.queries

    @property
    def end_hooks(self) -> list[EndHook]:
        """Called inside the transaction that records a game's end (the ratings); see `GameStore`."""
        return self.store.end_hooks

    @property
    def start_hooks(self) -> list[StartHook]:
        """Called after a game is stored and announced (the lobby's seeks); see `GameStore`."""
        return self.store.start_hooks

    async def _players(self, ids: set[int]) -> dict[int, Player]:
        users = await self.accounts.users_by_id(ids)
        return {
            u.id: Player(u.id, u.username, u.is_bot, anonymous=u.anonymous) for u in users.values()
        }

    # -- life cycle ---------------------------------------------------------------------------------

    async def resume(self) -> int:
        """Load every unfinished game and restart its turn (games/lifecycle.py `resume`); how many."""
        await self.presence.start()
        # Correspondence deadlines within the flag timer's horizon are armed from the database, now and
        # every half horizon (the games further off hold no timer).
        self._background.spawn(self.flags.sweep_forever())
        return await lifecycle.resume(self.store, self.owners, self.heartbeat)

    async def stop(self) -> int:
        """A clean stop's first step, as it is asked (games/lifecycle.py `stop`): the clocks stopped where
        they stand, the games handed over. Once; how many were handed over."""
        if self._stopped:
            return 0
        self._stopped = True
        return await lifecycle.stop(self.store, self.owners, self.actions, self.heartbeat)

    async def hand_over(self) -> int:
        """The games this process owns handed to the other processes at once (with one process: their
        timers dropped), games/owners.py; how many. Before `close`."""
        return await self.owners.hand_over()

    async def close(self) -> None:
        if self.heartbeat is not None:
            await self.heartbeat.stop()
        await self.store.cache.followers.close()
        await self.owners.close()
        await self.presence.close()
        self.flags.close()
        self.first_moves.close()
        await self._background.close()
        await self.engine.close()

    # -- creation and lookup ------------------------------------------------------------------------

    async def create(
        self,
        *,
        white_id: int | None,
        black_id: int | None,
        terms: GameTerms | None = None,
        computer_level: int | None = None,
        variant: str = DEFAULT_VARIANT_KEY,
        double_diagonal: bool = False,
        clock_initial_ms: int | None = None,
        clock_increment_ms: int = 0,
        rated: bool = False,
        initial_fen: str | None = None,
        within: AlsoWrite | None = None,
        claims: Claims | None = None,
        simul_id: str | None = None,
        more_time: tuple[Color, int] | None = None,
    ) -> LiveGame:
        """Start a game between two accounts, or an account and the computer (the player id left None),
        on `terms` (or on the terms given one by one). `claims(game_id)` (rows the game takes: the seek or
        challenge it answers) or `within(session, game_id)` (another domain's writes) are written in the
        same transaction as the game (`GameStore.insert`): what answered the offer is marked only with a
        game. A simultaneous exhibition's game names it (`simul_id`), and its host may start with
        `more_time` (a colour and milliseconds) on their clock."""
        if terms is None:
            terms = GameTerms(
                variant, double_diagonal, clock_initial_ms, clock_increment_ms, rated, initial_fen
            )
        terms = terms.checked()
        try:
            first = new_game(terms.variant, terms.double_diagonal, terms.initial_fen)
        except RulesError as e:
            raise Invalid(e.code, e.message) from None
        if first.is_over:
            raise Invalid("game_over", "That position has no game left to play.")
        # Rated games are between two accounts, with a real-time clock or days per move (a speed to rate),
        # from the start position (`GameTerms.checked` keeps `rated` only then).
        rated = terms.rated and computer_level is None
        now = utcnow()
        deadline = None if terms.days_per_move is None else now + timedelta(days=terms.days_per_move)
        record = GameRecord(
            id="".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(8)),
            **terms.columns() | {"rated": rated},
            white_id=white_id,
            black_id=black_id,
            computer_level=computer_level,
            white_ms=_started_clock(terms, Color.WHITE, more_time),
            black_ms=_started_clock(terms, Color.BLACK, more_time),
            turn_started_at=now,
            ply=0,
            version=1,
            status=GameStatus.STARTED,
            created_at=now,
            move_deadline_at=deadline,
            simul_id=simul_id,
        )
        return await self.store.insert(record, within, claims)

    async def live(self, game_id: str) -> LiveGame:
        return await self.store.live(game_id)

    async def record(self, game_id: str) -> GameRecord:
        """The game's stored record: who plays it, on what terms, how it stands (no replay)."""
        return await self.store.record(game_id)

    async def games_played(self, user_id: int) -> int:
        """How many games the account has played (or plays)."""
        return await self.queries.count_of_player(user_id)

    async def adopt_games(self, from_id: int, to_id: int) -> int:
        """Hand an anonymous visitor's casual games to the account they have just logged in to (issue
        16: "registering afterwards keeps that visitor's games"); how many were handed over.

        A game against that very account stays where it is (nobody plays themselves). A game in play
        changes seat through the store (compare-and-set, published), so every cache and client follows.
        """
        moved = 0
        for game_id in await self.queries.casual_games_of_player(from_id):
            live = await self.store.live(game_id)
            async with self.store.locked(live):
                record = live.record
                color = record.color_of(from_id)
                if color is None or record.rated or to_id in (record.white_id, record.black_id):
                    continue
                column = "white_id" if color is Color.WHITE else "black_id"
                if live.is_live:
                    live.players[color] = (await self._players({to_id}))[to_id]
                    await self.store.commit(live, {column: to_id})
                else:
                    await self.store.reseat(record.id, column, from_id, to_id)
                moved += 1
        return moved

    async def playing(self, user_ids: list[int]) -> set[int]:
        """Which of these accounts have a game in play."""
        return await self.queries.playing(user_ids)

    async def ongoing(self, user_id: int) -> list[dict[str, Any]]:
        """The states of the user's games in play."""
        return [self.state(await self.store.live(i)) for i in await self.queries.started_ids(user_id)]

    async def your_turn(self, user_id: int, now: datetime | None = None) -> list[dict[str, Any]]:
        """The user's games in play where it is their turn, the most urgent first: by the time left —
        to a correspondence game's deadline, or on a running clock — and games without a limit last."""
        now = now or utcnow()
        out = []
        for game_id in await self.queries.started_ids(user_id):
            live = await self.fresh(game_id)  # a deadline that has passed ends the game here
            color = live.seat(user_id)
            if not live.is_live or color is None or live.to_move is not color:
                continue
            deadline = live.deadline()
            clock = live.clock()
            if deadline is None and clock is not None and clock.running:
                deadline = now + timedelta(milliseconds=clock.mover_left(now))
            r = live.record
            out.append(
                {
                    "id": r.id,
                    "variant": r.variant,
                    "color": color.value,
                    "opponent": live.players[color.other].as_dict(),
                    "ply": r.ply,
                    "fen": live.rules.position.fen(),
                    "days_per_move": r.days_per_move,
                    "deadline": None if deadline is None else deadline.isoformat(),
                    "remaining_ms": (
                        None if deadline is None else max(0, int((deadline - now).total_seconds() * 1000))
                    ),
                }
            )
        out.sort(key=lambda g: (g["remaining_ms"] is None, g["remaining_ms"] or 0, g["id"]))
        return out

    # -- what clients see ---------------------------------------------------------------------------

    def state(self, live: LiveGame, now: datetime | None = None) -> dict[str, Any]:
        """The whole state of a game: every message carries it, so a client never computes rules itself."""
        return self.store.view(live, now).to_json()

    async def fresh(self, game_id: str) -> LiveGame:
        """The game brought up to date: changes by other processes read (the stored version is checked
        even if the copy is known current: this is what a client's resync asks), a fallen flag recorded."""
        live = await self.store.live(game_id)
        async with self.store.locked(live, read=True):
            await self.actions.flag_locked(live)
        return live

    async def get_state(self, game_id: str) -> dict[str, Any]:
        return self.state(await self.fresh(game_id))

    # -- player actions (see `games.actions`) ---------------------------------------------------------

    async def move(
        self, user_id: int, game_id: str, move: str | Move, *, ply: int | None = None, lag_ms: int = 0
    ) -> dict[str, Any]:
        with metrics.MOVE_SECONDS.time():  # refused moves too: the player waited on those as well
            return await self.actions.move(user_id, game_id, move, ply=ply, lag_ms=lag_ms)

    async def offer_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.draws.offer(user_id, game_id)

    async def accept_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.draws.accept(user_id, game_id)

    async def decline_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.draws.decline(user_id, game_id)

    async def resign(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.resign(user_id, game_id)

    async def abort(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.abort(user_id, game_id)

    async def claim_victory(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.draws.claim_victory(user_id, game_id)

    async def claim_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.draws.claim_draw(user_id, game_id)

    async def give_time(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.give_time(user_id, game_id)

    async def offer_takeback(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.takebacks.offer(user_id, game_id)

    async def accept_takeback(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.takebacks.accept(user_id, game_id)

    async def decline_takeback(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.takebacks.decline(user_id, game_id)

    async def halve_clock(self, game_id: str, color: Color) -> dict[str, Any]:
        return await self.actions.halve_clock(game_id, color)  # an arena's berserk

    # -- presence (called by the live channel and the Bot API's game stream) ---------------------------

    def player_joined(self, game_id: str, color: Color | str) -> None:
        """A player's socket or stream to their game opened (`color`: their seat, known when it opened; a
        seat does not change while the game is played). No reading of the game: at its end both sockets
        close, and a finished game is not cached (issue 11: each left reloaded and replayed it)."""
        self.presence.joined(game_id, Color(color))

    def player_left(self, game_id: str, color: Color | str) -> None:
        self.presence.left(game_id, Color(color))


def _started_clock(terms: GameTerms, color: Color, more_time: tuple[Color, int] | None) -> int | None:
    """A side's clock at the start: the terms' time, and a simul host's extra time on their side."""
    if terms.clock_initial_ms is None:
        return None
    extra = more_time[1] if more_time is not None and more_time[0] is color else 0
    return terms.clock_initial_ms + extra
