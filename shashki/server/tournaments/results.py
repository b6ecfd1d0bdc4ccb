"""The tournaments as a listener of the games store: a tournament game that ends is recorded on its
pairing (compare-and-set on the pairing's status, so two processes, or the listener and the director's
reconciliation, record it once), the two players' cached figures are recomputed by the pure rules, and the
director is woken to pair them again (arena) or to see whether the round is over.

An aborted game (the first-move timer: a player did not start) counts for nobody in an arena, and the
player who did not move is paused, as lila withdraws players who do not start their game; in a Swiss event
or a round robin it is lost by that player (a forfeit, lichess Swiss, recorded "+-" or "-+": a win that the
tie-break of wins over the board leaves out), so that the round can end. In a Swiss event that player is
also withdrawn, in the same transaction, as lichess's Swiss does ("so they don't lose more games"): the
next rounds do not pair them; a round robin's table keeps them (each game they do not start is lost by
forfeit). The player who did not move is the side to move: Black first in English and Pool (`to_move`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from sqlalchemy import select, update

from shashki.rules import Color, Position, get_variant
from shashki.server.errors import log_failure
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow
from shashki.server.tournaments.live import TournamentFeed
from shashki.server.tournaments.models import Tournament, TournamentPairing, TournamentPlayer
from shashki.server.tournaments.state import (
    ABORTED,
    ARENA,
    DONE,
    FORFEITS,
    PLAYING,
    SWISS,
    Snapshot,
    load,
    points_of,
)

log = logging.getLogger(__name__)


def to_move(record: GameRecord) -> Color:
    """The side to move in a game at its ply: the side that moves first (Black in English and Pool, or a
    set-up position's side to move), at every even ply."""
    if record.initial_fen:
        first = Position.from_fen(record.initial_fen, get_variant(record.variant)).side_to_move
    else:
        first = get_variant(record.variant).first_player
    return first if record.ply % 2 == 0 else first.other


class Results:
    def __init__(self, db: Database, feed: TournamentFeed) -> None:
        self.db = db
        self.feed = feed
        self._tasks: set[asyncio.Task] = set()

    def __call__(self, live: LiveGame) -> None:
        """The store's listener: called after every committed change of every game."""
        if live.tournament is None or live.record.status == GameStatus.STARTED:
            return
        task = asyncio.get_running_loop().create_task(self.record(live.tournament, live.record))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def record(self, tournament_id: str, record: GameRecord) -> bool:
        """Record the end of `record` on its pairing; False if it was recorded already."""
        try:
            return await self._record(tournament_id, record)
        except Exception:
            log_failure(log, "recording the result of game %s in tournament %s", record.id, tournament_id)
            return False

    async def _record(self, tournament_id: str, record: GameRecord) -> bool:
        now = utcnow()
        async with self.db.session() as s:
            t = await s.get(Tournament, tournament_id)
            pairing = await s.scalar(select(TournamentPairing).where(TournamentPairing.game_id == record.id))
            if t is None or pairing is None or pairing.status != PLAYING:
                return False
            values: dict = {"finished_at": record.finished_at or now, "plies": record.ply}
            absent = to_move(record)  # who did not make their first move
            if record.status == GameStatus.ABORTED and t.system == ARENA:
                values.update(status=ABORTED)
            elif record.status == GameStatus.ABORTED:
                winner = absent.other.value
                values.update(status=DONE, winner=winner, result=FORFEITS[winner])
            else:
                values.update(
                    status=DONE,
                    winner=None if record.winner is None else Color(record.winner).value,
                    result=record.result,
                )
            done = await s.execute(
                update(TournamentPairing)
                .where(TournamentPairing.id == pairing.id, TournamentPairing.status == PLAYING)
                .values(**values)
            )
            if rows_changed(done) != 1:
                return False
            if t.system == ARENA:
                await s.execute(
                    update(TournamentPlayer)
                    .where(TournamentPlayer.tournament_id == t.id, TournamentPlayer.game_id == record.id)
                    .values(game_id=None, waiting_since=now)
                )
                if record.status == GameStatus.ABORTED:
                    await s.execute(
                        update(TournamentPlayer)
                        .where(
                            TournamentPlayer.tournament_id == t.id,
                            TournamentPlayer.user_id == record.player_id(absent),
                        )
                        .values(paused=True)
                    )
            withdrawn = record.status == GameStatus.ABORTED and t.system == SWISS
            if withdrawn:
                # lichess Swiss: the player who did not play is withdrawn, "so they don't lose more games":
                # with the forfeit, so that no later round (which needs this round over) pairs them.
                await s.execute(
                    update(TournamentPlayer)
                    .where(
                        TournamentPlayer.tournament_id == t.id,
                        TournamentPlayer.user_id == record.player_id(absent),
                    )
                    .values(withdrawn=True, paused=False)
                )
            await s.commit()
        self.feed.poke()  # the director may pair them again now; the cached figures follow
        await self.refresh_entries(tournament_id, [pairing.white_id, pairing.black_id or 0])
        if withdrawn:
            self.feed.entrants_changed(tournament_id)  # one player fewer: the lists' counts too
        else:
            self.feed.changed(tournament_id)
        return True

    async def refresh_entries(self, tournament_id: str, user_ids: list[int]) -> None:
        """The cached figures of these players (score, games, sheet, on fire, colours), from the rules."""
        async with self.db.session() as s:
            snap = await load(s, tournament_id)
            if snap is None:
                return
            for user_id in user_ids:
                entry = snap.player(user_id)
                if entry is not None:
                    await s.execute(
                        update(TournamentPlayer)
                        .where(TournamentPlayer.id == entry.id)
                        .values(**figures(snap, user_id))
                    )
            await s.commit()

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        for task in list(self._tasks):
            with contextlib.suppress(BaseException):  # cancelled: the director reconciles later
                await task


def figures(snap: Snapshot, user_id: int) -> dict:
    mine = [p for p in snap.finished_games() if user_id in (p.white_id, p.black_id)]
    colors = "".join(
        "w" if p.white_id == user_id else "b"
        for p in snap.games()
        if user_id in (p.white_id, p.black_id) and p.status != ABORTED
    )
    if snap.tournament.system == ARENA:
        sheet = snap.sheet_of(user_id)
        return {
            "score": sheet.total,
            "games": len(mine),
            "fire": sheet.on_fire,
            "colors": colors,
            "sheet": " ".join(str(e.points) for e in sheet.entries),
        }
    half = 0
    marks = []
    for p in sorted(mine, key=lambda p: p.round):
        points = points_of(p, user_id)  # a double forfeit: 0, a loss for both
        half += points
        marks.append({2: "1", 1: "½", 0: "0"}[points])
    half += sum(b.half_points for b in snap.byes() if b.player == user_id)
    return {"score": half, "games": len(mine), "colors": colors, "sheet": " ".join(marks)}
