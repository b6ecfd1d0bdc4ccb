"""The games store: the compare-and-set commit of every change to a game, its publication, and the
listeners told after each change; over the cache of games in play (`games.cache`), whose methods the other
modules call are forwarded here.

Writes are compare-and-set on the game's `version` (it numbers the events too) and a move row is unique
per (game, ply): of two submissions of the same ply — a double click, two tabs, two server processes —
exactly one is applied and the other gets a clear answer. Within one process a lock per game orders the
writers (`LiveGame.lock`; `locked` takes it and brings the game up to date, `GameCache.refresh`).

After a change is committed and published, the listeners (`add_listener`) are called with the game: the
game's owner arms the flag timer and the computer opponent (`games.owners`, `games.listeners`) there,
never inside the commit. With several processes, a change another process committed is told to the
`add_heard_listener` listeners when it reaches this process's copy: the owner re-arms its timers then.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached

from shashki.rules import Outcome
from shashki.server.errors import Conflict, NotFound, log_failure
from shashki.server.events import AfterCommit, Encoded, EventBus
from shashki.server.games import tally
from shashki.server.games.cache import GameCache, HeardListener
from shashki.server.games.follow import change_for_servers
from shashki.server.games.hooks import END_ATTEMPTS, EndHook, StartHook
from shashki.server.games.live import LiveGame
from shashki.server.games.loader import GameLoader, PlayerLookup, TournamentLookup
from shashki.server.games.models import GameRecord, GameStatus, outcome_columns
from shashki.server.games.presence import Presence
from shashki.server.games.queries import GameQueries
from shashki.server.games.statements import Claims, change, game_row
from shashki.server.games.view import GameView, build_view, state_patch
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import set_committed_values, utcnow
from shashki.server.storage.direct import Refused, Upsert

log = logging.getLogger(__name__)

Listener = Callable[[LiveGame], None]

# Another domain's write in the transaction that stores a new game, given the session and the game's id.
AlsoWrite = Callable[[AsyncSession, str], Awaitable[None]]


class StaleCopy(Conflict):
    """A change refused by the compare-and-set of its commit: another process changed the game after this
    one read it. Nothing was written, and the copy is dropped; an action may be tried again on the game
    read afresh (`games/actions.py` `checked_again`, `games/rematch.py`)."""


class GameStore:
    def __init__(
        self,
        db: Database,
        bus: EventBus,
        presence: Presence,
        players: PlayerLookup,
        *,
        claim_after_ms: int,
        computer_name: str,
        first_move_ms: int = 0,
    ) -> None:
        self.db = db
        self.queries = GameQueries(db)  # the reads of the games' tables (also the service's `queries`)
        self.bus = bus
        self.presence = presence
        self.claim_after_ms = claim_after_ms
        self.first_move_ms = first_move_ms  # the first-move timer's wait, shown in the states
        self.end_hooks: list[EndHook] = []
        # Told of each game stored and announced (its record), after its commit: the lobby withdraws
        # the players' seeks with a clock. A hook that fails is logged; the game stands.
        self.start_hooks: list[StartHook] = []
        # Games are made in memory by the loader: loaded, made as written, or caught up.
        self.loader = GameLoader(db, players, computer_name)
        # The games in play kept in memory, and the changes other processes make to them (games/cache.py).
        self.cache = GameCache(db, bus, self.loader)
        self._listeners: list[Listener] = []
        self.published = AfterCommit(bus)  # publishes that never fail a committed change

    @property
    def tournaments_of(self) -> TournamentLookup | None:
        """The tournaments some games belong to (set by the tournaments service; the loader asks it)."""
        return self.loader.tournaments_of

    @tournaments_of.setter
    def tournaments_of(self, lookup: TournamentLookup | None) -> None:
        self.loader.tournaments_of = lookup

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(game)` after every committed change, on creation and when resumed at start."""
        self._listeners.append(listener)

    def add_heard_listener(self, listener: HeardListener) -> None:
        """Call `listener(game, applied)` when a change another process committed reaches this process's
        copy of a game in play (`GameCache.add_heard_listener`)."""
        self.cache.add_heard_listener(listener)

    def notify(self, live: LiveGame) -> None:
        for listener in self._listeners:
            try:
                listener(live)
            except Exception:
                log_failure(log, "a listener of game %s failed", live.id)

    # -- reading ------------------------------------------------------------------------------------

    async def live(self, game_id: str) -> LiveGame:
        """The game, from the cache or loaded; NotFound if there is none (`GameCache.live`)."""
        return await self.cache.live(game_id)

    async def live_many(self, game_ids: list[str]) -> list[LiveGame]:
        """The games among `game_ids` that are stored, cached if in play (`GameCache.live_many`)."""
        return await self.cache.live_many(game_ids)

    @property
    def cached(self) -> int:
        """How many games in play this process keeps (the `live_games` gauge)."""
        return self.cache.cached

    @property
    def loading(self) -> int:
        """How many games are being loaded now."""
        return self.cache.loading

    async def record(self, game_id: str) -> GameRecord:
        """The game's stored record (the cached copy of a game in play), without replaying its moves."""
        live = self.cache.get(game_id)
        if live is not None:
            return live.record
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
        if record is None:
            raise NotFound("no_such_game", f"There is no game {game_id!r}.")
        return record

    @contextlib.asynccontextmanager
    async def locked(self, live: LiveGame, *, read: bool = False) -> AsyncIterator[LiveGame]:
        """Hold the game's lock with the game brought up to date: how every change begins (`read`: as
        in `GameCache.refresh`)."""
        async with live.lock:
            await self.cache.refresh(live, read=read)
            yield live

    def forget(self, game_id: str) -> None:
        """Drop a cached game found stale; the next use loads it afresh from the database."""
        self.cache.forget(game_id)

    def view(self, live: LiveGame, now: datetime | None = None) -> GameView:
        """The state of the game now (clocks read at `now`)."""
        now = now or utcnow()
        gone = None
        if live.is_live and not live.is_computer(live.to_move):
            r = live.record
            gone = self.presence.gone_ms(r.id, live.to_move, r.created_at, now) or None
        live.shown = view = build_view(
            live, now, gone_ms=gone, claim_after_ms=self.claim_after_ms, first_move_ms=self.first_move_ms
        )
        return view

    # -- writing ------------------------------------------------------------------------------------

    async def restart_turn(self, live: LiveGame, alive: datetime | None = None) -> None:
        """Start the side to move's turn afresh, now: its clock goes on from the time it had stored, less
        the time it thought until the server was last `alive` (after a crash: games/heartbeat.py; a
        clean stop has written the clock already, and was alive no later).

        Called for each game in play when the server starts (`GameService.resume`), as lichess does
        after a restart: the time the server was down is nobody's thinking time, so it is not charged to
        the player to move. A correspondence game keeps its stored deadline (days, not seconds). The
        change is committed like any other (a new version, published), so other
        processes and clients read the same clocks.
        """
        async with self.locked(live):
            if live.is_live and live.is_correspondence:
                # A correspondence game's deadline is a date that a restart does not move: it is only
                # read again (the listeners are told, the flag timer arms from the stored deadline).
                self.notify(live)
            elif live.is_live:
                # Its clock as it stood when the server was last alive; one at 0 falls at once (the
                # flag timer, armed by this commit).
                await self.commit(live, live.turn_restarted(utcnow(), alive))

    async def insert(
        self, record: GameRecord, within: AlsoWrite | None = None, claims: Claims | None = None
    ) -> LiveGame:
        """Store a new game, tell its players (`gameStart`) and the listeners.

        What must be recorded with the game or not at all: `claims(game_id)`, rows it takes by a guarded
        update (the seek it matches, the challenge it answers), written with the game's row in one short
        transaction on the direct path (issue 11: a session held SQLite's one writer across several trips
        to its thread, and under load every move waited behind a game's start); or `within(session,
        game_id)`, another domain's writes that need a session (a tournament's pairing). If a claim is
        refused or `within` raises, no game is stored.
        """
        if within is None:
            taken = list(claims(record.id)) if claims is not None else []
            try:
                await self.db.direct.write(
                    game_row(record), *(claim.update for claim in taken), *tally.started(record)
                )
            except Refused as refused:
                lost = next((c.refused for c in taken if c.update is refused.op and c.refused), None)
                if lost is None:
                    raise
                raise lost from None
            make_transient_to_detached(record)  # as a closed session leaves what it stored
            tournament = None  # a tournament's games are made with its pairing (`within`)
        else:
            async with self.db.session() as s:
                s.add(record)
                await s.flush()
                await tally.run_in(s, tally.started(record))
                await within(s, record.id)
                tournament = await self.loader.tournament_of(s, record.id)
                await s.commit()
        # The game in memory is made from what was just written, not read back and replayed (issue 11:
        # a start cost a second transaction): the record as flushed, the rules game at its start.
        live = self.loader.made(record, [], tournament, await self.loader.accounts_of(record))
        if live.is_live:
            live = self.cache.keep(live)
        state = self.view(live).to_json()
        for user_id in (record.white_id, record.black_id):
            if user_id is not None:
                await self.published.publish(f"user:{user_id}", {"type": "gameStart", "game": state})
        self.notify(live)
        for hook in self.start_hooks:
            try:
                await hook(record)
            except Exception:
                log_failure(log, "a game start's hook failed")
        return live

    async def reseat(self, game_id: str, column: str, from_id: int, to_id: int) -> None:
        """Give a finished game's seat (`white_id` or `black_id`) to another account: a finished game is
        not cached and changes no more, so this is one guarded update (`GameService.adopt_games`)."""
        seat = getattr(GameRecord, column)
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
            # The players' counts go with the game (made before the update, which changes `record`).
            counted = [] if record is None else tally.changed(record, {column: to_id})
            done = await s.execute(
                update(GameRecord)
                .where(GameRecord.id == game_id, seat == from_id, GameRecord.status != GameStatus.STARTED)
                .values({column: to_id})
            )
            if rows_changed(done) == 1:
                await tally.run_in(s, counted)
            await s.commit()

    async def commit(
        self,
        live: LiveGame,
        changes: dict[str, Any],
        move: dict[str, Any] | None = None,
        *,
        outcome: Outcome | None = None,
    ) -> GameView:
        """Write `changes` (and the move's row, the columns of `moves`; and the end of the game when
        `outcome` is given) if nobody changed the game since it was read; then publish its new state and
        tell the listeners.

        Call under the game's lock (`locked`). Returns the state published. If another writer got there
        first, the cached copy is dropped and Conflict says so.
        """
        r = live.record
        now = utcnow()
        before = live.shown if live.shown is not None and live.shown.seq == r.version else None
        changes = {**changes, "version": r.version + 1}
        ending = outcome is not None and r.status == GameStatus.STARTED
        if outcome is not None:
            at = changes.get("turn_started_at") or now
            changes.update(outcome_columns(outcome, at))
            clock = live.clock()
            if clock is not None and "turn_started_at" not in changes:
                # Freeze the clocks where they stood when the game ended.
                changes["white_ms"], changes["black_ms"] = clock.at(at)
        # A game's end, or a seat given to another account, changes its players' counts (games/tally.py).
        counted = tally.changed(r, changes) if tally.needed(changes) else []
        try:
            hooks = [h for h in self.end_hooks if h.applies(r, outcome)] if ending and outcome else []
            if hooks and outcome is not None:
                await self._commit_end(r, changes, move, outcome, hooks, counted)
            else:
                # The per-move path: two Core statements in one transaction (storage/direct.py).
                await self.db.direct.write(*change(r.id, r.version, changes, move), *counted)
        except (IntegrityError, Refused):
            # Another writer (another process) got there first: our copy is stale.
            self.cache.forget(r.id)
            raise StaleCopy(
                "ply_already_played", "The game changed before this was applied; ask for its state."
            ) from None
        return await self._published(live, changes, before, move, outcome, ending)

    async def committed(self, live: LiveGame, changes: dict[str, Any]) -> GameView:
        """After `changes` (with the next `version`) were written in the transaction of another write (a
        rematch's link, claimed by its new game: `RematchService`; a takeback, with the moves it deletes:
        `games/takeback.py`): the cached copy mirrors them and the new state is published, as after
        `commit`'s own write. Call under the game's lock."""
        r = live.record
        before = live.shown if live.shown is not None and live.shown.seq == r.version else None
        return await self._published(live, changes, before, None, None, False)

    async def _published(
        self,
        live: LiveGame,
        changes: dict[str, Any],
        before: GameView | None,
        move: dict[str, Any] | None,
        outcome: Outcome | None,
        ending: bool,
    ) -> GameView:
        r = live.record
        # The cached record mirrors what is committed: no change history for a session to flush.
        set_committed_values(r, changes)
        if outcome is not None and live.rules.outcome is None:
            live.rules.finish(outcome)  # an end decided off the board
        view = self.view(live)
        # Serialised once here, sent as such by every socket of the game (events.Encoded); the other
        # processes also get the change itself, to apply to their copies (games/follow.py).
        servers = change_for_servers(changes, move["notation"] if move else None) if self.bus.shared else None
        game = view.to_json()
        state = {"type": "state", "seq": r.version, "game": game}
        # ... and, for the sockets holding the state before, only what changed.
        patch = None if before is None else state_patch(before.to_json(), game)
        await self.published.publish(f"game:{r.id}", Encoded(state, servers=servers, patch=patch))
        if ending:
            for user_id in (r.white_id, r.black_id):
                if user_id is not None:
                    await self.published.publish(f"user:{user_id}", {"type": "gameFinish", "game": r.id})
        self.cache.drop(live)
        self.notify(live)
        return view

    async def _commit_end(
        self,
        r: GameRecord,
        changes: dict[str, Any],
        move: dict[str, Any] | None,
        outcome: Outcome,
        hooks: list[EndHook],
        counted: list[Upsert],
    ) -> None:
        """The end of a game with its end hooks' statements (the ratings move with it), in one transaction
        on the direct path; each hook reads before the write, and plans again when what it read changed
        before the write (another game of the same player ending at once). `changes` gains the hooks'
        columns."""
        for attempt in range(1, END_ATTEMPTS + 1):
            plans = [await hook.plan(r, outcome, changes["finished_at"]) for hook in hooks]
            extra = {name: value for plan in plans for name, value in plan.columns.items()}
            theirs = [op for plan in plans for op in plan.ops]
            try:
                await self.db.direct.write(
                    *change(r.id, r.version, {**changes, **extra}, move), *counted, *theirs
                )
            except Refused as refused:
                if attempt == END_ATTEMPTS or not any(refused.op is op for op in theirs):
                    raise
                continue
            except IntegrityError:
                if attempt == END_ATTEMPTS or not theirs:
                    raise
                continue
            changes.update(extra)
            return
