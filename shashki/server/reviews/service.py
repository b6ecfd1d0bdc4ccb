"""Computer analysis of finished games (issue 14, point 2).

A review is asked for a finished game (by anyone who can see it; each account within its limit), or made
by itself for every rated game when `SHASHKI_REVIEW_RATED_GAMES` is on. It is one row per game — asked
twice, it is the same review, queued or done — and the work runs in the background: the engine looks at
each position of the game for `seconds_per_move` (on `shashki worker` processes through the job queue
when Redis is configured, in the server's own pool otherwise), the row's progress counting the plies
done, and the judged moves (`judge.py`) are stored once, shown to everyone, and written into the game's
PDN as comments. Reviews queued or running when the server stopped start again when it starts.

One process runs a review at a time, however many share the database (issue 11, point 3): the process
claims the row before it starts — one compare-and-set UPDATE (`WHERE status is queued or running AND
(nobody holds it OR the holder's claim has lapsed)`), setting `owner` to itself and `claimed_until` —
and every write of its work is made only while `owner` still names it, so a process that lost the claim
(stalled past it) can neither overwrite the other's work nor finish it twice. With several processes
(`shared`: Redis configured) each renews the claims of the reviews it runs every third of the claim and
sweeps as often for unfinished reviews nobody holds: a review whose process died is taken by a live one
within about a claim and a third, without a restart. A process leaving lets its claims go at once. In one
process every unfinished review is its own: at start it takes them all back at once, as before, and runs
no loop. Clocks of different machines must agree within a small part of the claim (NTP), as the
tournaments' lease assumes.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Any, Protocol

from sqlalchemy import ColumnElement, and_, or_, select, update
from sqlalchemy.exc import IntegrityError

from shashki.engine.search import Limit, Line
from shashki.rules import Color, Game
from shashki.server.errors import Conflict, NotFound, log_failure
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.replay import replay
from shashki.server.reviews.judge import CAP, judge, white_score
from shashki.server.reviews.models import GameReview
from shashki.server.storage import Database, rows_changed
from shashki.server.storage.base import utcnow

log = logging.getLogger("shashki.reviews")

PROGRESS_EVERY = 4  # plies between two progress writes
UNFINISHED = ("queued", "running")


class LostClaim(Exception):
    """Another process holds the review now (this one's claim lapsed): this one leaves it to that one."""


class Analyser(Protocol):
    async def analyse(self, position_or_game: Any, limit: Limit) -> list[Line]: ...

    async def close(self) -> None: ...


class GameSource(Protocol):
    """What the reviews read of the games (GameService.queries)."""

    async def stored(self, game_id: str) -> GameRecord | None: ...

    async def moves_of(self, game_ids: list[str]) -> dict[str, list[str]]: ...


class ReviewService:
    def __init__(
        self,
        db: Database,
        games: GameSource,
        engine: Analyser,
        *,
        seconds_per_move: float = 0.25,
        shared: bool = False,
        claim_seconds: float = 15.0,
        owner: str | None = None,
        clock: Callable[[], datetime] = utcnow,
    ) -> None:
        self.db = db
        self.games = games
        self.engine = engine
        self.seconds_per_move = seconds_per_move
        self.shared = shared  # other processes share the database: claims are kept and swept for
        self.claim = timedelta(seconds=claim_seconds)
        self.owner = owner or secrets.token_hex(8)
        self.clock = clock
        self._running: dict[str, asyncio.Task] = {}
        self._held: set[str] = set()  # the reviews this process has claimed and works on
        self._loop: asyncio.Task | None = None

    # -- asking -------------------------------------------------------------------------------------

    async def request(self, game_id: str, user_id: int | None) -> dict[str, Any]:
        """The game's review, queued now if there is none yet."""
        record = await self.games.stored(game_id)
        if record is None:
            raise NotFound("no_such_game", f"There is no game {game_id}.")
        if record.status != GameStatus.FINISHED:
            raise Conflict("game_in_progress", "A game is analysed once it has finished.")
        async with self.db.session() as s:
            s.add(GameReview(game_id=game_id, status="queued", requested_by=user_id, requested_at=utcnow()))
            try:
                await s.commit()
            except IntegrityError:
                await s.rollback()  # asked before: the same review; a failed one is tried again
                await s.execute(
                    update(GameReview)
                    .where(GameReview.game_id == game_id, GameReview.status == "failed")
                    .values(status="queued", owner=None, claimed_until=None)
                )
                await s.commit()
        self._start(game_id)
        return await self.state(game_id)

    async def state(self, game_id: str) -> dict[str, Any]:
        async with self.db.session() as s:
            review = await s.get(GameReview, game_id)
        if review is None:
            return {"game": game_id, "status": "none"}
        answer: dict[str, Any] = {
            "game": game_id,
            "status": review.status,
            "progress": {"done": review.done_plies, "total": review.total_plies},
        }
        if review.result:
            answer |= json.loads(review.result)
        return answer

    async def stored(self, game_id: str) -> dict[str, Any] | None:
        """The finished review of a game (for the PDN export), or None."""
        state = await self.state(game_id)
        return state if state["status"] == "done" else None

    def on_game_change(self, live: Any) -> None:
        """A listener of the games store (when every rated game is to be analysed): a rated game that
        has just finished is queued."""
        r = live.record
        if r.rated and r.status == GameStatus.FINISHED:
            asyncio.get_running_loop().create_task(self._queue_quietly(r.id))

    async def _queue_quietly(self, game_id: str) -> None:
        try:
            await self.request(game_id, None)
        except Exception:
            log_failure(log, "rated game %s not queued for analysis", game_id)

    async def comments(self, game_id: str) -> dict[int, str] | None:
        """The finished analysis as PDN comments by ply: the evaluation after each move (lichess's
        `[%eval]`, in men from White's side), and for a marked move its mark and the engine's move."""
        review = await self.stored(game_id)
        if review is None:
            return None
        notes: dict[int, str] = {}
        for move in review["moves"]:
            text = f"[%eval {move['eval'] / 100:+.2f}]"
            if move["mark"]:
                text += f" {move['mark'].capitalize()}."
                if move["best"]:
                    text += f" Best was {move['best']}."
            notes[move["ply"]] = text
        return notes

    # -- working ------------------------------------------------------------------------------------

    def _start(self, game_id: str) -> None:
        if game_id in self._running:
            return
        task = asyncio.get_running_loop().create_task(self._run(game_id))
        self._running[game_id] = task
        task.add_done_callback(lambda _: self._running.pop(game_id, None))

    def _claimable(self, now: datetime) -> ColumnElement[bool]:
        """Unfinished and, with other processes, held by nobody, by this process, or by a lapsed claim.
        In one process a claim left in the table is a stopped server's: never in the way."""
        unfinished = GameReview.status.in_(UNFINISHED)
        if not self.shared:
            return unfinished
        free = or_(
            GameReview.owner.is_(None), GameReview.owner == self.owner, GameReview.claimed_until < now
        )
        return and_(unfinished, free)

    async def _claim(self, game_id: str) -> bool:
        """Make the review this process's, if it is unfinished and free: True when this process won it."""
        now = self.clock()
        async with self.db.session() as s:
            done = await s.execute(
                update(GameReview)
                .where(GameReview.game_id == game_id, self._claimable(now))
                .values(owner=self.owner, claimed_until=now + self.claim)
            )
            await s.commit()
        return rows_changed(done) == 1

    async def resume(self) -> int:
        """Start again the reviews a stop interrupted: every unfinished review nobody else holds (in one
        process, every unfinished review). Returns how many were started; each claims its review."""
        return await self.sweep()

    async def sweep(self) -> int:
        """Start every unfinished review that is free (queued and not claimed yet, or its process's claim
        lapsed) and not already running here."""
        async with self.db.reading() as s:
            ids = list(await s.scalars(select(GameReview.game_id).where(self._claimable(self.clock()))))
        started = [game_id for game_id in ids if game_id not in self._running]
        for game_id in started:
            self._start(game_id)
        return len(started)

    def start(self) -> None:
        """With other processes: keep this process's claims and sweep for the reviews of dead ones."""
        if self.shared and self._loop is None:
            self._loop = asyncio.get_running_loop().create_task(self._keeping())

    async def _keeping(self) -> None:
        while True:
            await asyncio.sleep(self.claim.total_seconds() / 3)
            try:
                await self.renew()
                await self.sweep()
            except Exception as e:
                log.warning("review claims not renewed or swept: %s", e)

    async def renew(self) -> None:
        """Extend the claims of the reviews this process works on; stop working on any it lost."""
        ids = sorted(self._held)
        if not ids:
            return
        now = self.clock()
        async with self.db.session() as s:
            mine = (GameReview.game_id.in_(ids), GameReview.owner == self.owner)
            done = await s.execute(update(GameReview).where(*mine).values(claimed_until=now + self.claim))
            await s.commit()
            if rows_changed(done) == len(ids):
                return
            kept = set(await s.scalars(select(GameReview.game_id).where(*mine)))
        for game_id in ids:
            task = self._running.get(game_id)
            if game_id not in kept and game_id in self._held and task is not None:
                log.warning("review of game %s lost to another process: stopped here", game_id)
                task.cancel()

    async def _set(self, game_id: str, **values: Any) -> None:
        """Write the review's columns while this process holds it (else `LostClaim`: another does)."""
        async with self.db.session() as s:
            done = await s.execute(
                update(GameReview)
                .where(GameReview.game_id == game_id, GameReview.owner == self.owner)
                .values(**values)
            )
            await s.commit()
        if rows_changed(done) != 1:
            raise LostClaim(game_id)

    async def _run(self, game_id: str) -> None:
        try:
            if not await self._claim(game_id):
                return  # finished, or another process holds it
            self._held.add(game_id)
            record = await self.games.stored(game_id)
            moves = (await self.games.moves_of([game_id])).get(game_id, [])
            if record is None:
                await self._set(game_id, status="failed", owner=None, claimed_until=None)
                return
            await self._set(game_id, status="running", total_plies=len(moves), done_plies=0)
            result = await self._analyse(game_id, record, moves)
            await self._set(game_id, status="done", done_plies=len(moves), finished_at=utcnow(),
                            result=json.dumps(result), owner=None, claimed_until=None)
            log.info("game %s reviewed (%d plies)", game_id, len(moves))
        except asyncio.CancelledError:
            raise
        except LostClaim:
            log.warning("review of game %s taken over by another process: left to it", game_id)
        except Exception:
            log_failure(log, "review of game %s failed", game_id)
            with contextlib.suppress(Exception):
                await self._set(game_id, status="failed", owner=None, claimed_until=None)
        finally:
            self._held.discard(game_id)

    async def _analyse(self, game_id: str, record: GameRecord, moves: list[str]) -> dict[str, Any]:
        async def progress(done: int) -> None:
            await self._set(game_id, done_plies=done)

        return await evaluate_game(self.engine, replay(record, moves), self.seconds_per_move, progress)

    async def close(self) -> None:
        if self._loop is not None:
            self._loop.cancel()
            with contextlib.suppress(BaseException):
                await self._loop
        held = sorted(self._held)
        for task in list(self._running.values()):
            task.cancel()
        for task in list(self._running.values()):
            with contextlib.suppress(BaseException):
                await task
        if held:  # leaving: the reviews under way are free for another process's next sweep at once
            try:
                async with self.db.session() as s:
                    await s.execute(
                        update(GameReview)
                        .where(GameReview.game_id.in_(held), GameReview.owner == self.owner)
                        .values(owner=None, claimed_until=None)
                    )
                    await s.commit()
            except Exception as e:
                log.warning("review claims not let go (they lapse by themselves): %s", e)
        await self.engine.close()


async def evaluate_game(
    engine: Analyser,
    full: Game,
    seconds_per_move: float,
    progress: Callable[[int], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """The engine's look at every position of a played game, the moves judged (`judge.py`); a move that
    was the only legal one in its position is forced, and not judged."""
    moves = full.notations()
    game = Game(full.variant, full.positions[0])
    white_first = game.position.white_to_move
    limit = Limit(time=seconds_per_move)
    evals: list[int] = []
    best: list[str | None] = []
    forced: set[int] = set()
    for ply in range(len(moves) + 1):
        position = game.position
        if ply < len(moves) and len(position.legal_moves()) == 1:
            forced.add(ply)
        if ply == len(moves) and (game.outcome is not None or not position.legal_moves()):
            # The rules ended the game here (no move left, or a draw by a rule: repetition, a count, the
            # double diagonal): its result is the evaluation, not a search (an audit found a rule's draw
            # scored +19.5 and the move that reached it called a blunder).
            outcome = game.outcome or full.outcome
            winner = outcome.winner if outcome is not None else None
            evals.append(0 if winner is None else CAP if winner is Color.WHITE else -CAP)
            best.append(None)
        else:
            line = (await engine.analyse(game, limit))[-1]
            evals.append(white_score(line.score, position.white_to_move))
            best.append(line.move.notation(game.variant) if line.move is not None else None)
        if ply < len(moves):
            game.play(moves[ply])
            if progress is not None and ply % PROGRESS_EVERY == PROGRESS_EVERY - 1:
                await progress(ply + 1)
    judged, accuracy = judge(moves, evals, best, white_first, forced)
    return {
        "evals": evals,
        "moves": [
            {"ply": j.ply, "move": j.move, "eval": j.eval, "loss": j.loss, "mark": j.mark, "best": j.best}
            for j in judged
        ],
        "accuracy": accuracy,
        "seconds_per_move": seconds_per_move,
    }
