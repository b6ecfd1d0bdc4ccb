"""The games store: the cache of games in play, loading and refreshing them from the database, the
compare-and-set commit of every change, its publication, and the listeners told after each change.

The server is the only authority. Each game's state in memory is a cache rebuilt from the database (its
record and its moves replayed through the rules, `games.replay`) whenever it is missing or found stale,
which is how a restarted server resumes every live game.

Writes are compare-and-set on the game's `version` (it numbers the events too) and a move row is unique
per (game, ply): of two submissions of the same ply — a double click, two tabs, two server processes —
exactly one is applied and the other gets a clear answer. Within one process a lock per game orders the
writers (`LiveGame.lock`; `locked` takes it and brings the game up to date).

After a change is committed and published, the listeners (`add_listener`) are called with the game: the
game's owner arms the flag timer and the computer opponent (`games.owners`, `games.listeners`) there,
never inside the commit. With several processes, a change another process committed is told to the
`add_heard_listener` listeners when it reaches this process's copy: the owner re-arms its timers then.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from datetime import datetime
from typing import Any

from sqlalchemy import update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import make_transient_to_detached
from sqlalchemy.orm.attributes import set_committed_value

from shashki.rules import Outcome
from shashki.server.errors import Conflict, NotFound, log_failure
from shashki.server.events import AfterCommit, Encoded, EventBus
from shashki.server.games.follow import Followers, change_for_servers
from shashki.server.games.hooks import END_ATTEMPTS, EndHook
from shashki.server.games.live import LiveGame
from shashki.server.games.loader import GameLoader, PlayerLookup, TournamentLookup
from shashki.server.games.models import GameRecord, GameStatus, outcome_columns
from shashki.server.games.presence import Presence
from shashki.server.games.queries import GameQueries
from shashki.server.games.statements import Claims, change, game_row, version_of
from shashki.server.games.view import GameView, build_view, state_patch
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow
from shashki.server.storage.direct import Refused

log = logging.getLogger(__name__)

Listener = Callable[[LiveGame], None]
# Told of a change committed by another process: applied to the copy (True), or missed (False).
HeardListener = Callable[[LiveGame, bool], None]


# Another domain's write in the transaction that stores a new game, given the session and the game's id.
AlsoWrite = Callable[[AsyncSession, str], Awaitable[None]]


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
    ) -> None:
        self.db = db
        self.queries = GameQueries(db)  # the reads of the games' tables (also the service's `queries`)
        self.bus = bus
        self.presence = presence
        self.claim_after_ms = claim_after_ms
        self.end_hooks: list[EndHook] = []
        # Games are made in memory by the loader: loaded, made as written, or caught up.
        self.loader = GameLoader(db, players, computer_name)
        self._listeners: list[Listener] = []
        self._heard_listeners: list[HeardListener] = []
        self._live: dict[str, LiveGame] = {}
        # With other processes (Redis), the changes they make to the cached games, applied as heard.
        self.followers = Followers(bus, self._heard, self._missed)
        self._loading: dict[str, asyncio.Lock] = {}
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
        copy of a game in play: applied to it (`applied`: heard, games/follow.py, or caught up by
        `refresh`), or missed (heard out of turn, events lost, or the copy dropped by `forget`: it is read
        again before its next use). The change's own listeners ran where it was committed; here reacts
        only what this process alone holds for the game (the owner's timers, games/owners.py)."""
        self._heard_listeners.append(listener)

    def notify(self, live: LiveGame) -> None:
        for listener in self._listeners:
            try:
                listener(live)
            except Exception:
                log_failure(log, "a listener of game %s failed", live.id)

    def _tell_heard(self, live: LiveGame, applied: bool) -> None:
        for listener in self._heard_listeners:
            try:
                listener(live, applied)
            except Exception:
                log_failure(log, "a listener of game %s failed", live.id)

    def _heard(self, live: LiveGame) -> None:
        """Another process's change, applied to the copy as heard."""
        self._drop(live)
        self._tell_heard(live, True)

    def _missed(self, live: LiveGame) -> None:
        """Another process's change this copy lacks (read again before its next use)."""
        self._tell_heard(live, False)

    # -- reading ------------------------------------------------------------------------------------

    async def live(self, game_id: str) -> LiveGame:
        """The game, from the cache or loaded; NotFound if there is none."""
        live = self._live.get(game_id)
        if live is not None:
            return live
        # One loader per game at a time; the lock is dropped whatever the outcome (found, not found, an
        # error), so that asking for unknown ids leaves nothing behind. A waiter still holding the dropped
        # lock finds the game in the cache (or loads it again, as a later caller would).
        lock = self._loading.setdefault(game_id, asyncio.Lock())
        try:
            async with lock:
                live = self._live.get(game_id)
                if live is None:
                    live = await self.loader.load(game_id)
                    # Only games in play are kept: a finished one is read afresh when asked for, so the
                    # cache does not grow with the history of every game looked at.
                    if live.is_live:
                        self._live[game_id] = live
                        self.followers.follow(live)
        finally:
            if self._loading.get(game_id) is lock:
                del self._loading[game_id]
        return live

    async def live_many(self, game_ids: list[str]) -> list[LiveGame]:
        """The games among `game_ids` that are stored: from the cache, the others loaded together
        (`GameLoader.load_many`) and cached if in play — the server's start resumes every game in play
        this way. A game that another caller loaded meanwhile is taken from the cache, not replaced."""
        loaded = await self.loader.load_many([g for g in game_ids if g not in self._live])
        games = []
        for game_id in game_ids:
            live = self._live.get(game_id) or loaded.get(game_id)
            if live is None:
                continue
            if live.is_live and game_id not in self._live:
                self._live[game_id] = live
                self.followers.follow(live)
            games.append(live)
        return games

    @property
    def cached(self) -> int:
        """How many games in play this process keeps (the `live_games` gauge)."""
        return len(self._live)

    @property
    def loading(self) -> int:
        """How many games are being loaded now (none once every load has ended: a bounded map)."""
        return len(self._loading)

    async def record(self, game_id: str) -> GameRecord:
        """The game's stored record (the cached copy of a game in play), without replaying its moves."""
        live = self._live.get(game_id)
        if live is not None:
            return live.record
        async with self.db.session() as s:
            record = await s.get(GameRecord, game_id)
        if record is None:
            raise NotFound("no_such_game", f"There is no game {game_id!r}.")
        return record

    async def refresh(self, live: LiveGame, *, read: bool = False) -> None:
        """Bring a game up to date if another process has changed it (call under its lock); `read`: check
        the stored version even if the copy is known current (a client asked for the state again, or
        knows of a later ply than the copy).

        With several server processes on one database (DATABASE_URL + REDIS_URL), any of them may have
        written the game since this one cached it: one indexed read of its version tells, unless every
        change they made has been heard and applied already (`games/follow.py`: then nothing is read).
        With events in this process (no Redis) this process is the only server of its games, so the
        cached game is the authority and is not read again: only a copy marked stale (a failed write) is
        reloaded. A second process on the same file anyway would still lose no write: the compare-and-set
        refuses the stale one (`commit`), which drops the copy, and the next action reloads it.
        """
        live.trusted = False
        if not self.bus.shared and not live.stale:
            return
        if not live.stale and not read and self.followers.current(live):
            live.trusted = True  # every change made elsewhere has been heard and applied (games/follow.py)
            return
        since = self.followers.listening(live.id)
        version = await self.db.direct.scalar(version_of(live.id))
        if version is None:
            return
        if version == live.record.version and not live.stale:
            self.followers.confirm(since)
            return
        if live.stale or not await self.loader.catch_up(live):
            fresh = await self.loader.load(live.id)
            live.record, live.rules = fresh.record, fresh.rules
            live.notations, live.players = fresh.notations, fresh.players
            live.tournament = fresh.tournament
            live.stale = False
        self.followers.confirm(since)
        self._drop(live)  # if ended by another process: read afresh when asked for, as after `commit`
        self._tell_heard(live, True)

    @contextlib.asynccontextmanager
    async def locked(self, live: LiveGame, *, read: bool = False) -> AsyncIterator[LiveGame]:
        """Hold the game's lock with the game brought up to date: how every change begins (`read`: as
        in `refresh`)."""
        async with live.lock:
            await self.refresh(live, read=read)
            yield live

    def forget(self, game_id: str) -> None:
        """Drop a cached game found stale; the next use loads it afresh from the database."""
        old = self._live.pop(game_id, None)
        self.followers.stop(game_id)
        if old is not None:
            old.stale = True  # whoever still holds this copy reloads it before acting on it
            self._tell_heard(old, False)  # no longer followed: its owner loads it again

    def _drop(self, live: LiveGame) -> None:
        """Let a game that has ended leave the cache: whoever asks again reads it from the database."""
        if not live.is_live and self._live.get(live.id) is live:
            del self._live[live.id]
            self.followers.stop(live.id)

    def view(self, live: LiveGame, now: datetime | None = None) -> GameView:
        """The state of the game now (clocks read at `now`)."""
        now = now or utcnow()
        gone = None
        if live.is_live and not live.is_computer(live.to_move):
            r = live.record
            gone = self.presence.gone_ms(r.id, live.to_move, r.created_at, now) or None
        live.shown = view = build_view(live, now, gone_ms=gone, claim_after_ms=self.claim_after_ms)
        return view

    # -- writing ------------------------------------------------------------------------------------

    async def restart_turn(self, live: LiveGame) -> None:
        """Start the side to move's turn afresh, now: its clock goes on from the time it had stored.

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
                await self.commit(live, {"turn_started_at": utcnow()})

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
                await self.db.direct.write(game_row(record), *(claim.update for claim in taken))
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
                await within(s, record.id)
                tournament = await self.loader.tournament_of(s, record.id)
                await s.commit()
        # The game in memory is made from what was just written, not read back and replayed (issue 11:
        # a start cost a second transaction): the record as flushed, the rules game at its start.
        live = self.loader.made(record, [], tournament, await self.loader.accounts_of(record))
        if live.is_live:
            live = self._live.setdefault(live.id, live)
            self.followers.follow(live)
        state = self.view(live).to_json()
        for user_id in (record.white_id, record.black_id):
            if user_id is not None:
                await self.published.publish(f"user:{user_id}", {"type": "gameStart", "game": state})
        self.notify(live)
        return live

    async def reseat(self, game_id: str, column: str, from_id: int, to_id: int) -> None:
        """Give a finished game's seat (`white_id` or `black_id`) to another account: a finished game is
        not cached and changes no more, so this is one guarded update (`GameService.adopt_games`)."""
        seat = getattr(GameRecord, column)
        async with self.db.session() as s:
            await s.execute(
                update(GameRecord)
                .where(GameRecord.id == game_id, seat == from_id, GameRecord.status != GameStatus.STARTED)
                .values({column: to_id})
            )
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
        try:
            hooks = [h for h in self.end_hooks if h.applies(r, outcome)] if ending and outcome else []
            if hooks and outcome is not None:
                await self._commit_end(r, changes, move, outcome, hooks)
            else:
                # The per-move path: two Core statements in one transaction (storage/direct.py).
                await self.db.direct.write(*change(r.id, r.version, changes, move))
        except (IntegrityError, Refused):
            # Another writer (another process) got there first: our copy is stale.
            self.forget(r.id)
            raise Conflict(
                "ply_already_played", "The game changed before this was applied; ask for its state."
            ) from None
        for name, value in changes.items():
            # The cached record mirrors what is committed: no change history for a session to flush.
            set_committed_value(r, name, value)
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
        self._drop(live)
        self.notify(live)
        return view

    async def _commit_end(
        self,
        r: GameRecord,
        changes: dict[str, Any],
        move: dict[str, Any] | None,
        outcome: Outcome,
        hooks: list[EndHook],
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
                await self.db.direct.write(*change(r.id, r.version, {**changes, **extra}, move), *theirs)
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
