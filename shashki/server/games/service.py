"""Live games, as the rest of the server asks for them: start a game, look one up, read its state, act
in it. A thin façade over the parts that do the work, which it wires together:

- `store` (`games.store`): the cache of games in play, load and refresh from the database, the
  compare-and-set commit, publication, and the listeners told after each change;
- `actions` (`games.actions`): move, draw offer/accept/decline, resign, abort, claim victory, and the
  finisher that ends a game with a rules `Outcome`;
- the view of the state (`games.view`), built once per change, whose JSON every client reads;
- `presence` (`games.presence`): who is connected to each game;
- the listeners (`games.listeners`): the flag timer, the first-move timer and the computer opponent;
- `queries` (`games.queries`): the reads of the games' tables the other domains make (counts, lists,
  moves, the games being played now), so that no other domain queries these tables itself.
"""

from __future__ import annotations

import secrets
import string
from datetime import datetime
from typing import Any

from shashki.rules import DEFAULT_VARIANT_KEY, Color, Move, RulesError
from shashki.server.accounts import AccountService
from shashki.server.errors import Conflict, Invalid, NotFound
from shashki.server.events import EventBus
from shashki.server.games.actions import GameActions
from shashki.server.games.computer import EngineOpponent, Opponent
from shashki.server.games.listeners import Background, ComputerTurns, FirstMoveTimer, FlagTimer
from shashki.server.games.live import LiveGame, Player
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.presence import Presence
from shashki.server.games.queries import GameQueries
from shashki.server.games.replay import new_game
from shashki.server.games.store import AlsoWrite, EndHook, GameStore
from shashki.server.games.terms import GameTerms
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
        engine: Opponent | None = None,
        accounts: AccountService | None = None,
    ) -> None:
        self.db = db
        self.bus = bus
        self.engine: Opponent = engine or EngineOpponent()
        self.presence = Presence()
        self.claim_after_ms = int(disconnect_claim_seconds * 1000)
        self.accounts = accounts or AccountService(db)
        self.store = GameStore(
            db,
            bus,
            self.presence,
            self._players,
            claim_after_ms=self.claim_after_ms,
            computer_name=self.engine.name,
        )
        self.actions = GameActions(self.store, self.presence, max_lag_ms=max_lag_compensation_ms)
        self._background = Background()
        self.flags = FlagTimer(self.actions, self._background)
        self.computer = ComputerTurns(
            self.store, self.actions, self.engine, self._background, delay=computer_delay_seconds
        )
        self.first_moves = FirstMoveTimer(self.actions, self._background, first_move_seconds)
        self.store.add_listener(self.flags)
        self.store.add_listener(self.first_moves)
        self.store.add_listener(self.computer)
        # The read side of the games' tables for the other domains (profiles, lists, exports).
        self.queries = GameQueries(db)

    @property
    def end_hooks(self) -> list[EndHook]:
        """Called inside the transaction that records a game's end (the ratings); see `GameStore`."""
        return self.store.end_hooks

    async def _players(self, ids: set[int]) -> dict[int, Player]:
        users = await self.accounts.users_by_id(ids)
        return {u.id: Player(u.id, u.username, u.is_bot) for u in users.values()}

    # -- life cycle ---------------------------------------------------------------------------------

    async def resume(self) -> int:
        """Load every unfinished game: the side to move's clock restarts from its stored time (the
        server's downtime is not charged, lichess-style), and the listeners are told (by the commit of
        that restart): flags and first-move timers are armed, the computer moves when to move."""
        ids = await self.store.started_ids()
        for game_id in ids:
            try:
                await self.store.restart_turn(await self.store.live(game_id))
            except Conflict:  # another process changed it meanwhile: resume it as it now stands
                self.store.notify(await self.store.live(game_id))
            except NotFound:
                pass  # deleted meanwhile (with its account)
        return len(ids)

    async def close(self) -> None:
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
    ) -> LiveGame:
        """Start a game between two accounts, or an account and the computer (the player id left None),
        on `terms` (or on the terms given one by one). `within(session, game_id)` is written in the same
        transaction as the game (`GameStore.insert`): what answered the offer is marked only with a game."""
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
        # Rated games are between two accounts, with clocks (a speed to rate), from the start position.
        rated = terms.rated and computer_level is None and terms.is_timed and terms.initial_fen is None
        now = utcnow()
        record = GameRecord(
            id="".join(secrets.choice(GAME_ID_ALPHABET) for _ in range(8)),
            **terms.columns() | {"rated": rated},
            white_id=white_id,
            black_id=black_id,
            computer_level=computer_level,
            white_ms=terms.clock_initial_ms,
            black_ms=terms.clock_initial_ms,
            turn_started_at=now,
            ply=0,
            version=1,
            status=GameStatus.STARTED,
            created_at=now,
        )
        return await self.store.insert(record, within)

    async def live(self, game_id: str) -> LiveGame:
        return await self.store.live(game_id)

    async def record(self, game_id: str) -> GameRecord:
        """The game's stored record: who plays it, on what terms, how it stands (no replay)."""
        return await self.store.record(game_id)

    async def games_played(self, user_id: int) -> int:
        """How many games the account has played (or plays)."""
        return await self.store.count_of_player(user_id)

    async def playing(self, user_ids: list[int]) -> set[int]:
        """Which of these accounts have a game in play."""
        return await self.store.playing(user_ids)

    async def ongoing(self, user_id: int) -> list[dict[str, Any]]:
        """The states of the user's games in play."""
        return [self.state(await self.store.live(i)) for i in await self.store.started_ids(user_id)]

    # -- what clients see ---------------------------------------------------------------------------

    def state(self, live: LiveGame, now: datetime | None = None) -> dict[str, Any]:
        """The whole state of a game: every message carries it, so a client never computes rules itself."""
        return self.store.view(live, now).to_json()

    async def fresh(self, game_id: str) -> LiveGame:
        """The game brought up to date: changes by other processes read, a fallen flag recorded."""
        live = await self.store.live(game_id)
        async with self.store.locked(live):
            await self.actions.flag_locked(live)
        return live

    async def get_state(self, game_id: str) -> dict[str, Any]:
        return self.state(await self.fresh(game_id))

    # -- player actions (see `games.actions`) ---------------------------------------------------------

    async def move(
        self, user_id: int, game_id: str, move: str | Move, *, ply: int | None = None, lag_ms: int = 0
    ) -> dict[str, Any]:
        return await self.actions.move(user_id, game_id, move, ply=ply, lag_ms=lag_ms)

    async def offer_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.offer_draw(user_id, game_id)

    async def accept_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.accept_draw(user_id, game_id)

    async def decline_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.decline_draw(user_id, game_id)

    async def resign(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.resign(user_id, game_id)

    async def abort(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.abort(user_id, game_id)

    async def claim_victory(self, user_id: int, game_id: str) -> dict[str, Any]:
        return await self.actions.claim_victory(user_id, game_id)

    async def halve_clock(self, game_id: str, color: Color) -> dict[str, Any]:
        """Halve `color`'s clock before that side's first move: an arena's berserk (lila `Berserk`;
        the tournaments decide who may). The clocks do not run before `CLOCK_STARTS_AT_PLY`, so the
        stored time is the whole of it."""
        live = await self.store.live(game_id)
        async with self.store.locked(live):
            r = live.record
            if not live.is_live:
                raise Conflict("game_over", "The game is over.")
            if r.ply > (0 if color is Color.WHITE else 1):
                raise Conflict("already_moved", "Berserk is only possible before your first move.")
            column = "white_ms" if color is Color.WHITE else "black_ms"
            current = getattr(r, column)
            if current is None:
                raise Invalid("no_clock", "This game has no clock to halve.")
            view = await self.store.commit(live, {column: current // 2})
        return view.to_json()

    # -- presence (called by the live channel and the Bot API's game stream) ---------------------------

    async def player_joined(self, game_id: str, user_id: int) -> None:
        color = (await self.store.live(game_id)).seat(user_id)
        if color is not None:
            self.presence.joined(game_id, color)

    async def player_left(self, game_id: str, user_id: int) -> None:
        color = (await self.store.live(game_id)).seat(user_id)
        if color is not None:
            self.presence.left(game_id, color)
