"""The games in play this process keeps in memory: each loaded once, followed while other processes
change it, brought up to date before every change, and let go when it ends or is found stale.

The server is the only authority. Each game's state in memory is a cache rebuilt from the database (its
record and its moves replayed through the rules, `games.replay`, by the `GameLoader`) whenever it is
missing or found stale, which is how a restarted server resumes every live game.

With several processes (Redis), the changes another process commits are applied to the copies as heard
(`games.follow.Followers`), and `refresh` reads the stored version only when a copy is not known
current. Each change that reaches a copy that way, or that a copy misses, is told to the
`add_heard_listener` listeners: the game's owner re-arms its timers then (`games.owners`). The games
store (`games.store.GameStore`) commits every change on these copies and forwards the cache's methods
the other modules call.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable

from shashki.server.errors import log_failure
from shashki.server.events import EventBus
from shashki.server.games.follow import Followers
from shashki.server.games.live import LiveGame
from shashki.server.games.loader import GameLoader
from shashki.server.games.statements import version_of
from shashki.server.storage import Database

log = logging.getLogger(__name__)

# Told of a change committed by another process: applied to the copy (True), or missed (False).
HeardListener = Callable[[LiveGame, bool], None]


class GameCache:
    def __init__(self, db: Database, bus: EventBus, loader: GameLoader) -> None:
        self.db = db
        self.bus = bus
        self.loader = loader
        self._heard_listeners: list[HeardListener] = []
        self._live: dict[str, LiveGame] = {}
        # With other processes (Redis), the changes they make to the cached games, applied as heard.
        self.followers = Followers(bus, self._heard, self._missed)
        self._loading: dict[str, asyncio.Lock] = {}

    def add_heard_listener(self, listener: HeardListener) -> None:
        """Call `listener(game, applied)` when a change another process committed reaches this process's
        copy of a game in play: applied to it (`applied`: heard, games/follow.py, or caught up by
        `refresh`), or missed (heard out of turn, events lost, or the copy dropped by `forget`: it is read
        again before its next use). The change's own listeners ran where it was committed; here reacts
        only what this process alone holds for the game (the owner's timers, games/owners.py)."""
        self._heard_listeners.append(listener)

    def _tell_heard(self, live: LiveGame, applied: bool) -> None:
        for listener in self._heard_listeners:
            try:
                listener(live, applied)
            except Exception:
                log_failure(log, "a listener of game %s failed", live.id)

    def _heard(self, live: LiveGame) -> None:
        """Another process's change, applied to the copy as heard."""
        self.drop(live)
        self._tell_heard(live, True)

    def _missed(self, live: LiveGame) -> None:
        """Another process's change this copy lacks (read again before its next use)."""
        self._tell_heard(live, False)

    # -- reading ------------------------------------------------------------------------------------

    def get(self, game_id: str) -> LiveGame | None:
        """The cached copy of a game in play, if this process keeps one (nothing is loaded)."""
        return self._live.get(game_id)

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

    def live_ids(self) -> list[str]:
        """The ids of the games in play this process keeps."""
        return list(self._live)

    @property
    def cached(self) -> int:
        """How many games in play this process keeps (the `live_games` gauge)."""
        return len(self._live)

    @property
    def loading(self) -> int:
        """How many games are being loaded now (none once every load has ended: a bounded map)."""
        return len(self._loading)

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
        refuses the stale one (`GameStore.commit`), which drops the copy, and the next action reloads it.
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
        self.drop(live)  # if ended by another process: read afresh when asked for, as after a commit
        self._tell_heard(live, True)

    # -- keeping and letting go ---------------------------------------------------------------------

    def keep(self, live: LiveGame) -> LiveGame:
        """Cache a game just made in play (and follow it); the copy already cached if there is one."""
        live = self._live.setdefault(live.id, live)
        self.followers.follow(live)
        return live

    def forget(self, game_id: str) -> None:
        """Drop a cached game found stale; the next use loads it afresh from the database."""
        old = self._live.pop(game_id, None)
        self.followers.stop(game_id)
        if old is not None:
            old.stale = True  # whoever still holds this copy reloads it before acting on it
            self._tell_heard(old, False)  # no longer followed: its owner loads it again

    def drop(self, live: LiveGame) -> None:
        """Let a game that has ended leave the cache: whoever asks again reads it from the database."""
        if not live.is_live and self._live.get(live.id) is live:
            del self._live[live.id]
            self.followers.stop(live.id)
