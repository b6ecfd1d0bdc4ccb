"""The puzzles domain without HTTP: the starter set loaded once, the daily puzzle chosen once a day and
never twice, ratings moved on both sides by Glicko-2."""

from __future__ import annotations

import asyncio
import os
import secrets
from datetime import date, timedelta

import pytest
from sqlalchemy import select

from shashki.server.accounts.service import AccountService, Actor
from shashki.server.puzzles.models import PuzzleAttempt, PuzzleRating, PuzzleRow
from shashki.server.puzzles.rating import rate_attempt
from shashki.server.puzzles.service import PuzzleService
from shashki.server.puzzles.starter import read_puzzles, starter_file, starter_files, starter_variants
from shashki.server.ratings.glicko2 import Rating
from shashki.server.storage import Database


def run(tmp_path, scenario, url: str | None = None):
    async def main():
        db = await Database(url or f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
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


def test_a_database_from_an_older_release_gets_the_puzzles_a_newer_one_ships(tmp_path):
    shipped = {v: sum(1 for _ in read_puzzles(starter_file(v))) for v in starter_variants()}
    older = list(read_puzzles(starter_file("russian")))[::3]  # what an older release had shipped

    async def scenario(puzzles):
        await puzzles.import_puzzles(older)
        await puzzles.ready()
        return {v["key"]: v["count"] for v in (await puzzles.themes("russian"))["variants"]}

    assert run(tmp_path, scenario) == shipped


def test_a_variant_s_starter_set_is_read_when_first_asked_for(tmp_path):
    async def scenario(puzzles):
        puzzles.start()  # the server's start: the default variant only
        await puzzles.ready("russian-giveaway")
        async with puzzles.db.session() as s:
            before = set(await s.scalars(select(PuzzleRow.variant).distinct()))
        russian = await puzzles.next("russian", "any", None)
        async with puzzles.db.session() as s:
            after = set(await s.scalars(select(PuzzleRow.variant).distinct()))
        await puzzles.close()
        return before, russian["variant"], after

    assert run(tmp_path, scenario) == ({"russian-giveaway"}, "russian", {"russian-giveaway", "russian"})


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


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_attempts_ending_at_once_rate_only_the_first_and_lose_no_rating_update(tmp_path, database):
    """Two tabs (or two processes) ending a member's first attempts at the same moment: exactly one is
    rated, and every rating change is applied to the values the one before it left (none overwritten)."""
    url = None
    if database == "postgresql":
        url = os.environ.get("SHASHKI_TEST_DATABASE_URL")
        if not url:
            pytest.skip("needs SHASHKI_TEST_DATABASE_URL (scripts/test-services.sh)")
    names = [f"{who}{secrets.token_hex(4)}" for who in ("alice", "bob")]  # the shared database has others

    async def scenario(puzzles):
        shipped = list(read_puzzles(starter_file("russian")))[:3]
        await puzzles.import_puzzles(shipped)
        accounts = AccountService(puzzles.db, argon2_memory_kib=1024, argon2_time_cost=1)
        member = Actor(user=await accounts.register(names[0], "x" * 12), via="session")
        other = Actor(user=await accounts.register(names[1], "y" * 12), via="session")
        first, second, third = (p["id"] for p in shipped)
        # One puzzle tried at once in four tabs; two other puzzles at once; another member on the first.
        same = await asyncio.gather(*(puzzles._record(first, member, True) for _ in range(4)))
        await asyncio.gather(puzzles._record(second, member, False), puzzles._record(third, member, True),
                             puzzles._record(first, other, False))
        async with puzzles.db.session() as s:
            rated = list(await s.scalars(select(PuzzleAttempt.rated).where(
                PuzzleAttempt.user_id == member.id, PuzzleAttempt.puzzle_id == first)))
            player = await s.get(PuzzleRating, (member.id, "russian"))
            assert player is not None
            return sum(change is not None for change, _ in same), sorted(rated), player.attempts

    assert run(tmp_path, scenario, url) == (1, [False, False, False, True], 3)
