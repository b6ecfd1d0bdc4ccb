"""The puzzles domain without HTTP: the starter set loaded once, the daily puzzle chosen once a day and
never twice, ratings moved on both sides by Glicko-2."""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

from shashki.server.puzzles.rating import rate_attempt
from shashki.server.puzzles.service import PuzzleService
from shashki.server.puzzles.starter import read_puzzles, starter_files
from shashki.server.ratings.glicko2 import Rating
from shashki.server.storage import Database


def run(tmp_path, scenario):
    async def main():
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        try:
            return await scenario(PuzzleService(db))
        finally:
            await db.close()

    return asyncio.run(main())


def test_the_starter_set_is_loaded_once_into_an_empty_table(tmp_path):
    shipped = sum(1 for path in starter_files() for _ in read_puzzles(path))

    async def scenario(puzzles):
        first = await puzzles.ensure_starter_set()
        second = await puzzles.ensure_starter_set()
        again = await puzzles.import_puzzles(p for path in starter_files() for p in read_puzzles(path))
        variants = (await puzzles.themes("russian-giveaway"))["variants"]
        return first, second, again, sum(v["count"] for v in variants)

    assert run(tmp_path, scenario) == (shipped, 0, 0, shipped)


def test_the_daily_puzzle_is_stable_within_a_day_and_new_each_day(tmp_path):
    day = date(2026, 12, 1)

    async def scenario(puzzles):
        await puzzles.ensure_starter_set()
        same = [(await puzzles.daily("russian-giveaway", day))["puzzle"]["id"] for _ in range(2)]
        week = [(await puzzles.daily("russian-giveaway", day + timedelta(days=n)))["puzzle"]["id"]
                for n in range(7)]
        other = (await puzzles.daily("russian", day))["puzzle"]
        return same, week, other

    same, week, other = run(tmp_path, scenario)
    assert same[0] == same[1] == week[0]
    assert len(set(week)) == 7  # never the same puzzle twice
    assert other["variant"] == "russian"


def test_an_attempt_moves_both_ratings_in_opposite_directions():
    player, puzzle = Rating(1500, 350), Rating(1500, 350)
    solved_player, solved_puzzle = rate_attempt(player, puzzle, solved=True)
    failed_player, failed_puzzle = rate_attempt(player, puzzle, solved=False)
    assert solved_player.rating > 1500 > solved_puzzle.rating
    assert failed_player.rating < 1500 < failed_puzzle.rating
    assert solved_player.deviation < 350 and solved_puzzle.deviation < 350
    # A hard puzzle (rated well above the player) costs little when missed and gains much when solved.
    hard = Rating(1900, 80)
    gain = rate_attempt(player, hard, True)[0].rating - 1500
    assert gain > 1500 - rate_attempt(player, hard, False)[0].rating
