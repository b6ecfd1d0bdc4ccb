"""Computer analysis of finished games (issue 14, point 2).

A review is asked for a finished game (by anyone who can see it; each account within its limit), or made
by itself for every rated game when `SHASHKI_REVIEW_RATED_GAMES` is on. It is one row per game — asked
twice, it is the same review, queued or done — and the work runs in the background: the engine looks at
each position of the game for `seconds_per_move` (on `shashki worker` processes through the job queue
when Redis is configured, in the server's own pool otherwise), the row's progress counting the plies
done, and the judged moves (`judge.py`) are stored once, shown to everyone, and written into the game's
PDN as comments. Reviews queued or running when the server stopped start again when it starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from sqlalchemy import select, update
from sqlalchemy.exc import IntegrityError

from shashki.engine.search import Limit, Line
from shashki.rules import Color, Game
from shashki.server.errors import Conflict, NotFound, log_failure
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.replay import replay
from shashki.server.reviews.judge import CAP, judge, white_score
from shashki.server.reviews.models import GameReview
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

log = logging.getLogger("shashki.reviews")

PROGRESS_EVERY = 4  # plies between two progress writes


class Analyser(Protocol):
    async def analyse(self, position_or_game: Any, limit: Limit) -> list[Line]: ...

    async def close(self) -> None: ...


class GameSource(Protocol):
    """What the reviews read of the games (GameService.queries)."""

    async def stored(self, game_id: str) -> GameRecord | None: ...

    async def moves_of(self, game_ids: list[str]) -> dict[str, list[str]]: ...


class ReviewService:
    def __init__(
        self, db: Database, games: GameSource, engine: Analyser, *, seconds_per_move: float = 0.25
    ) -> None:
        self.db = db
        self.games = games
        self.engine = engine
        self.seconds_per_move = seconds_per_move
        self._running: dict[str, asyncio.Task] = {}

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
                await s.rollback()  # asked before: the same review
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

    async def resume(self) -> int:
        """Start again the reviews a stop interrupted."""
        async with self.db.session() as s:
            unfinished = GameReview.status.in_(("queued", "running"))
            ids = list(await s.scalars(select(GameReview.game_id).where(unfinished)))
        for game_id in ids:
            self._start(game_id)
        return len(ids)

    async def _set(self, game_id: str, **values: Any) -> None:
        async with self.db.session() as s:
            await s.execute(update(GameReview).where(GameReview.game_id == game_id).values(**values))
            await s.commit()

    async def _run(self, game_id: str) -> None:
        try:
            record = await self.games.stored(game_id)
            moves = (await self.games.moves_of([game_id])).get(game_id, [])
            if record is None:
                return
            await self._set(game_id, status="running", total_plies=len(moves), done_plies=0)
            result = await self._analyse(game_id, record, moves)
            await self._set(game_id, status="done", done_plies=len(moves), finished_at=utcnow(),
                            result=json.dumps(result))
            log.info("game %s reviewed (%d plies)", game_id, len(moves))
        except asyncio.CancelledError:
            raise
        except Exception:
            log_failure(log, "review of game %s failed", game_id)
            with contextlib.suppress(Exception):
                await self._set(game_id, status="failed")

    async def _analyse(self, game_id: str, record: GameRecord, moves: list[str]) -> dict[str, Any]:
        async def progress(done: int) -> None:
            await self._set(game_id, done_plies=done)

        return await evaluate_game(self.engine, replay(record, moves), self.seconds_per_move, progress)

    async def close(self) -> None:
        for task in list(self._running.values()):
            task.cancel()
        for task in list(self._running.values()):
            with contextlib.suppress(BaseException):
                await task
        await self.engine.close()


async def evaluate_game(
    engine: Analyser,
    full: Game,
    seconds_per_move: float,
    progress: Callable[[int], Awaitable[None]] | None = None,
) -> dict[str, Any]:
    """The engine's look at every position of a played game, the moves judged (`judge.py`)."""
    moves = full.notations()
    game = Game(full.variant, full.positions[0])
    white_first = game.position.white_to_move
    limit = Limit(time=seconds_per_move)
    evals: list[int] = []
    best: list[str | None] = []
    for ply in range(len(moves) + 1):
        position = game.position
        if ply == len(moves) and not position.legal_moves():
            outcome = full.outcome
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
    judged, accuracy = judge(moves, evals, best, white_first)
    return {
        "evals": evals,
        "moves": [
            {"ply": j.ply, "move": j.move, "eval": j.eval, "loss": j.loss, "mark": j.mark, "best": j.best}
            for j in judged
        ],
        "accuracy": accuracy,
        "seconds_per_move": seconds_per_move,
    }
