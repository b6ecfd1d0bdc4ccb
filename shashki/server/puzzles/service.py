"""The puzzles domain (issue 14, point 3): the puzzles, a player's next puzzle, attempts and their
ratings, the daily puzzle, a member's history.

- **Next puzzle**: a puzzle of the variant (and theme) rated within `WINDOW` of the player's puzzle
  rating (1500 for visitors), at random; when there is none, one of the nearest rating band holding
  one. Never one the member has attempted. Drawn from an index as far as the draw needs, and the
  themes page's counts kept, not counted (`draw.py`).
- **Attempts**: a wrong move or the solution's last move ends an attempt. A member's attempts are
  stored; only the first attempt at a puzzle is rated (both the player's and the puzzle's Glicko-2
  ratings move: `rating.rate_attempt`); visitors without an account solve unrated and nothing of theirs
  is stored but the puzzle's count of plays.
- **Daily puzzle** (`daily`): one per variant per UTC day, chosen once and stored, never one that was
  daily before: among a sample of the variant's puzzles rated between `DAILY_RATINGS` (`draw.sample`,
  seeded by the day; all of them only when every one drawn was daily before), those with at least two
  solver moves, preferring those played at least `DAILY_MIN_PLAYS` times; the choice among them is the
  smallest SHA-256 of (day, id): deterministic, and different from day to day.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import random
from collections.abc import Iterable
from datetime import date
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError

from shashki.rules import DEFAULT_VARIANT_KEY, Position, UnknownVariant, get_variant
from shashki.server.accounts import Actor
from shashki.server.analysis.board import position_json
from shashki.server.errors import Invalid, NotFound
from shashki.server.puzzles import draw
from shashki.server.puzzles.models import PuzzleAttempt, PuzzleDaily, PuzzleRating, PuzzleRow
from shashki.server.puzzles.rating import rate_attempt
from shashki.server.puzzles.solution import SOLVED, step
from shashki.server.puzzles.starter import read_puzzles, starter_file, starter_files, starter_variants
from shashki.server.puzzles.themes import ALL_THEMES
from shashki.server.ratings.glicko2 import Rating
from shashki.server.storage import Database, insert_unless_there
from shashki.server.storage.base import utcnow

PAGE = 20
DAILY_MIN_PLAYS = 5
DAILY_RATINGS = (1200.0, 2100.0)
DAILY_DRAWS = 4  # draws of `draw.CANDIDATES` puzzles the daily puzzle is chosen among


def _member(actor: Actor | None) -> Actor | None:
    return actor if actor is not None and not actor.anonymous else None


def variant_key(variant: str | None) -> str:
    try:
        return get_variant(variant).key
    except UnknownVariant as exc:
        raise Invalid("unknown_variant", str(exc)) from None


def puzzle_json(row: PuzzleRow) -> dict[str, Any]:
    """A puzzle as clients receive it (never its solution)."""
    start = Position.from_fen(row.fen, row.variant)
    solution = json.loads(row.solution)
    return {
        "id": row.id,
        "variant": row.variant,
        "fen": row.fen,
        "solver": start.side_to_move.value,
        "rating": round(row.rating),
        "plays": row.plays,
        "themes": [t for t in row.themes.split(",") if t],
        # The ply of the server game it came from (a self-play game has no id to go with its ply).
        "source": {"game": row.game_id, "ply": row.ply if row.game_id else None},
        "position": position_json(start),
        "length": (len(solution) + 1) // 2,
        "verified": row.verified,
    }


class PuzzleService:
    def __init__(self, db: Database, *, starter_sets: bool = True) -> None:
        self.db = db
        self.starter_sets = starter_sets  # False: only the puzzles imported (tests of the draw)
        self.random = random.Random()
        self._loading: dict[str, asyncio.Task] = {}  # a variant's starter set, loading or loaded

    def start(self) -> None:
        """Load the default variant's starter set in the background (the server answers meanwhile; its
        puzzle requests wait). The other variants' sets load when first asked for, so that a process
        that serves no puzzles of a variant never reads its file."""
        self._load(DEFAULT_VARIANT_KEY)

    def _load(self, key: str) -> asyncio.Task:
        task = self._loading.get(key)
        if task is None:
            task = self._loading[key] = asyncio.create_task(self.ensure_starter_set(key))
        return task

    async def ready(self, variant: str | None = None) -> None:
        """The starter set of `variant` (of every variant when None) loaded, or loading it now."""
        if not self.starter_sets:
            return
        keys = [variant] if variant is not None else starter_variants()
        await asyncio.gather(*(asyncio.shield(self._load(key)) for key in keys))

    async def close(self) -> None:
        for task in self._loading.values():
            if not task.done():
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task

    # -- the puzzles ------------------------------------------------------------------------------

    async def import_puzzles(self, puzzles: Iterable[dict[str, Any]]) -> int:
        """Add puzzles (the JSON of `generate.Puzzle`); those already stored are kept. Returns how many
        were added."""
        now = utcnow()
        rows = {}
        for p in puzzles:
            rows[p["id"]] = {
                "id": p["id"], "variant": p["variant"], "fen": p["fen"],
                "solution": json.dumps(p["solution"]),
                "themes": "," + ",".join(p["themes"]) + ",", "verified": p["verified"],
                "game_id": p.get("game"), "ply": p.get("ply"), "rating": 1500.0, "deviation": 350.0,
                "volatility": 0.06, "plays": 0, "created_at": now}
        added = 0
        async with self.db.session() as s:
            ids = list(rows)
            for i in range(0, len(ids), 500):
                chunk = ids[i:i + 500]
                known = set(await s.scalars(select(PuzzleRow.id).where(PuzzleRow.id.in_(chunk))))
                fresh = [rows[k] for k in chunk if k not in known]
                if fresh:
                    await s.execute(insert(PuzzleRow), fresh)  # one executemany: thousands at start
                    await draw.add(s, fresh)
                added += len(fresh)
            await s.commit()
        return added

    async def ensure_starter_set(self, variant: str | None = None) -> int:
        """Store every shipped puzzle of `variant` (of every variant when None) not stored yet: a new
        database gets the whole set, an older one the puzzles a newer release ships (idempotent).
        Returns how many were added."""
        paths = [starter_file(variant)] if variant is not None else starter_files()
        return await self.import_puzzles(p for path in paths if path.exists() for p in read_puzzles(path))

    async def get(self, puzzle_id: str) -> dict[str, Any]:
        return puzzle_json(await self._row(puzzle_id))

    async def _row(self, puzzle_id: str) -> PuzzleRow:
        async with self.db.session() as s:
            row = await s.get(PuzzleRow, puzzle_id)
        if row is None:  # perhaps a shipped puzzle not loaded yet
            await self.ready()
            async with self.db.session() as s:
                row = await s.get(PuzzleRow, puzzle_id)
        if row is None:
            raise NotFound("no_such_puzzle", f"There is no puzzle {puzzle_id}.")
        return row

    async def next(self, variant: str | None, theme: str, actor: Actor | None) -> dict[str, Any]:
        """A puzzle near the player's rating, of the theme (`any`: every theme), not attempted before."""
        key = variant_key(variant)
        if theme != draw.ANY and theme not in ALL_THEMES:
            raise Invalid("unknown_theme", f"Unknown theme {theme!r}: any, {', '.join(ALL_THEMES)}.")
        await self.ready(key)
        member = _member(actor)
        rating = (await self._player(member.id, key)).rating if member else 1500.0
        async with self.db.session() as s:
            row = await draw.draw(s, self.random, key, theme, member.id if member else None, rating)
        if row is None:
            on = "" if theme == draw.ANY else f" on {theme}"
            raise NotFound("no_puzzle", f"No {key} puzzle{on} left to play.")
        return puzzle_json(row)

    # -- attempts ---------------------------------------------------------------------------------

    async def move(self, puzzle_id: str, line: list[Any], actor: Actor | None) -> dict[str, Any]:
        """The newest move of `line` judged (solution.step); an ended attempt is recorded and rated."""
        row = await self._row(puzzle_id)
        start = Position.from_fen(row.fen, row.variant)
        judged = step(start, json.loads(row.solution), line)
        answer: dict[str, Any] = {
            "result": judged.result,
            "reply": judged.reply,
            "position": position_json(judged.position, judged.ply),
            "expected": judged.expected,
            "rating": None,
            "puzzle_rating": round(row.rating),
        }
        if judged.finished:
            change, puzzle_rating = await self._record(row.id, _member(actor), judged.result == SOLVED)
            answer["rating"] = change
            answer["puzzle_rating"] = round(puzzle_rating)
        return answer

    async def solution(self, puzzle_id: str, actor: Actor | None) -> dict[str, Any]:
        """The whole solution line. A member who asks before any attempt at the puzzle gives it up: a failed
        attempt is recorded (rated, as a first attempt is), so that no rated solve can follow the answer."""
        row = await self._row(puzzle_id)
        member = _member(actor)
        change = None
        if member is not None:
            async with self.db.session() as s:
                tried = await s.scalar(select(PuzzleAttempt.id).where(
                    PuzzleAttempt.user_id == member.id, PuzzleAttempt.puzzle_id == row.id).limit(1))
            if tried is None:
                change, _ = await self._record(row.id, member, False)
        return {"solution": json.loads(row.solution), "rating": change}

    async def _player(self, user_id: int, variant: str) -> PuzzleRating:
        async with self.db.session() as s:
            found = await s.get(PuzzleRating, (user_id, variant))
        return found or _new_rating(user_id, variant)

    async def _record(self, puzzle_id: str, member: Actor | None, solved: bool
                      ) -> tuple[dict[str, int] | None, float]:
        """Count the play; for a member store the attempt, rated when it is their first at the puzzle."""
        async with self.db.session() as s:
            # The play is counted first, by an UPDATE: from then on this transaction holds the puzzle's
            # row (PostgreSQL) or the one writer's lock (SQLite: storage/writer.py), so attempts ending at
            # once are judged one after the other: only the first is rated, and no rating change is lost.
            counted = update(PuzzleRow).where(PuzzleRow.id == puzzle_id).values(plays=PuzzleRow.plays + 1)
            await s.execute(counted)
            row = await s.get(PuzzleRow, puzzle_id, populate_existing=True)
            assert row is not None
            change = None
            if member is not None:
                # The player's row, there and locked (their attempts at other puzzles wait for it).
                await insert_unless_there(s, PuzzleRating, **_new_rating_values(member.id, row.variant))
                player = (await s.scalars(
                    select(PuzzleRating)
                    .where(PuzzleRating.user_id == member.id, PuzzleRating.variant == row.variant)
                    .with_for_update()
                    .execution_options(populate_existing=True)
                )).one()
                tried = await s.scalar(select(PuzzleAttempt.id).where(
                    PuzzleAttempt.user_id == member.id, PuzzleAttempt.puzzle_id == puzzle_id).limit(1))
                before = player.rating
                rated = tried is None
                if rated:
                    before_puzzle = row.rating
                    mine, theirs = rate_attempt(Rating(player.rating, player.deviation, player.volatility),
                                                Rating(row.rating, row.deviation, row.volatility), solved)
                    player.rating, player.deviation, player.volatility = (
                        mine.rating, mine.deviation, mine.volatility)
                    row.rating, row.deviation, row.volatility = (
                        theirs.rating, theirs.deviation, theirs.volatility)
                    await draw.rerated(s, puzzle_id, before_puzzle, theirs.rating)
                    player.attempts += 1
                    player.solved += int(solved)
                    player.updated_at = utcnow()
                    change = {"before": round(before), "after": round(player.rating),
                              "delta": round(player.rating) - round(before)}
                s.add(PuzzleAttempt(user_id=member.id, puzzle_id=puzzle_id, variant=row.variant,
                                    solved=solved, rated=rated, at=utcnow(), rating_before=before,
                                    rating_after=player.rating))
            rating = row.rating
            await s.commit()
        return change, rating

    async def me(self, variant: str | None, actor: Actor | None) -> dict[str, int]:
        key = variant_key(variant)
        member = _member(actor)
        player = await self._player(member.id, key) if member else _new_rating(0, key)
        return {"rating": round(player.rating), "rd": round(player.deviation), "attempts": player.attempts,
                "solved": player.solved}

    async def history(self, actor: Actor, page: int) -> dict[str, Any]:
        """A member's attempts, newest first, `PAGE` a page."""
        page = max(1, page)
        async with self.db.session() as s:
            rows = (await s.execute(
                select(PuzzleAttempt, PuzzleRow.themes)
                .join(PuzzleRow, PuzzleRow.id == PuzzleAttempt.puzzle_id)
                .where(PuzzleAttempt.user_id == actor.id)
                .order_by(PuzzleAttempt.at.desc(), PuzzleAttempt.id.desc())
                .offset((page - 1) * PAGE).limit(PAGE + 1))).all()
        attempts = [{
            "puzzle": a.puzzle_id, "variant": a.variant, "solved": a.solved, "rated": a.rated,
            "at": a.at.isoformat(), "rating_before": round(a.rating_before),
            "rating_after": round(a.rating_after), "delta": round(a.rating_after) - round(a.rating_before),
            "themes": [t for t in themes.split(",") if t],
        } for a, themes in rows[:PAGE]]
        return {"attempts": attempts, "next_page": page + 1 if len(rows) > PAGE else None}

    async def themes(self, variant: str | None) -> dict[str, Any]:
        key = variant_key(variant)
        await self.ready()  # the count of every variant's puzzles
        async with self.db.session() as s:
            variants, themes = await draw.counts(s, key)
        return {"variants": [{"key": v, "count": n} for v, n in variants],
                "themes": [{"key": t, "count": themes[t]} for t in ALL_THEMES if themes.get(t)]}

    # -- the daily puzzle -------------------------------------------------------------------------

    async def daily(self, variant: str | None, day: date | None = None) -> dict[str, Any]:
        key = variant_key(variant)
        await self.ready(key)
        today = (day or utcnow().date()).isoformat()
        for _ in range(2):  # a second process may choose the same day at the same time: take its choice
            async with self.db.session() as s:
                chosen = await s.scalar(select(PuzzleDaily.puzzle_id).where(
                    PuzzleDaily.variant == key, PuzzleDaily.day == today))
                if chosen is None:
                    chosen = await self._choose_daily(s, key, today)
                    s.add(PuzzleDaily(variant=key, day=today, puzzle_id=chosen))
                    try:
                        await s.commit()
                    except IntegrityError:
                        await s.rollback()
                        continue
            return {"puzzle": await self.get(chosen), "date": today}
        raise AssertionError("the daily puzzle was neither found nor chosen")

    async def _choose_daily(self, s, variant: str, day: str) -> str:
        used = select(PuzzleDaily.puzzle_id).where(PuzzleDaily.variant == variant)
        unused = (select(PuzzleRow.id, PuzzleRow.solution, PuzzleRow.rating, PuzzleRow.plays)
                  .where(PuzzleRow.variant == variant, PuzzleRow.id.not_in(used)))
        # A sample of the variant's puzzles drawn by the day (the same in every process), not all of them.
        drawn = await draw.sample(s, random.Random(f"{variant} {day}"), variant, DAILY_RATINGS, DAILY_DRAWS)
        rows = (await s.execute(unused.where(PuzzleRow.id.in_(drawn)))).all() if drawn else []
        if not rows:  # every puzzle drawn was a daily puzzle before: all those left looked at
            rows = (await s.execute(unused)).all()
        if not rows:
            raise NotFound("no_puzzle", f"No {variant} puzzle for the daily puzzle.")
        low, high = DAILY_RATINGS
        rows = [r for r in rows if len(json.loads(r.solution)) >= 3] or rows  # two solver moves or more
        groups = [
            [r for r in rows if r.plays >= DAILY_MIN_PLAYS and low <= r.rating <= high],
            [r for r in rows if low <= r.rating <= high],
            rows,
        ]
        pool = next(g for g in groups if g)
        return min(pool, key=lambda r: hashlib.sha256(f"{day} {r.id}".encode()).hexdigest()).id


def _new_rating_values(user_id: int, variant: str) -> dict[str, Any]:
    return {"user_id": user_id, "variant": variant, "rating": 1500.0, "deviation": 350.0, "volatility": 0.06,
            "attempts": 0, "solved": 0, "updated_at": utcnow()}


def _new_rating(user_id: int, variant: str) -> PuzzleRating:
    return PuzzleRating(**_new_rating_values(user_id, variant))
