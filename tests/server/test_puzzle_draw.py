"""The next puzzle's draw and the themes page's counts (puzzles/draw.py), on SQLite and PostgreSQL: a
puzzle of the window at random, every one of them reachable however many share a rating, never one
the member tried, the nearest when the window is empty; the counts and the draw's rows always what a
recount of the puzzles gives — after imports, ratings changed by attempts, and a migration's fill."""

from __future__ import annotations

import asyncio
import random
import secrets
from collections import Counter
from datetime import UTC, date, datetime, timedelta

import pytest
from sqlalchemy import insert, select, update

from shashki.server.accounts.service import AccountService, Actor
from shashki.server.errors import NotFound
from shashki.server.puzzles import draw
from shashki.server.puzzles.models import PuzzleAttempt, PuzzleCount, PuzzleRow, PuzzleTheme
from shashki.server.puzzles.service import PuzzleService
from shashki.server.puzzles.starter import read_puzzles, starter_file
from shashki.server.storage import Database

from .helpers import fresh_database_url

DATABASES = ["sqlite", "postgresql"]
VARIANT = "russian"
SHIPPED = list(read_puzzles(starter_file(VARIANT)))


def run(url: str, scenario, *, seed: int = 1):
    async def main():
        db = await Database(url).open()
        puzzles = PuzzleService(db, starter_sets=False)
        puzzles.random = random.Random(seed)
        try:
            return await scenario(puzzles)
        finally:
            await db.close()

    return asyncio.run(main())


async def rated(puzzles: PuzzleService, ratings: dict[str, float]) -> None:
    """Puzzles given these ratings, as an attempt's rating changes them."""
    async with puzzles.db.session() as s:
        for puzzle_id, rating in ratings.items():
            before = await s.scalar(select(PuzzleRow.rating).where(PuzzleRow.id == puzzle_id))
            await s.execute(update(PuzzleRow).where(PuzzleRow.id == puzzle_id).values(rating=rating))
            await draw.rerated(s, puzzle_id, before, rating)
        await s.commit()


async def recount(puzzles: PuzzleService) -> tuple[Counter, Counter, list[tuple], list[tuple]]:
    """The counts and the draw's rows as stored, and as the puzzles themselves give them."""
    async with puzzles.db.session() as s:
        rows = [
            {"id": p.id, "variant": p.variant, "themes": p.themes, "rating": p.rating}
            for p in await s.scalars(select(PuzzleRow))
        ]
        counts = await s.scalars(select(PuzzleCount))
        stored = Counter({(c.variant, c.theme, c.band): c.count for c in counts})
        index = sorted(
            (t.puzzle_id, t.theme, t.variant, t.band) for t in await s.scalars(select(PuzzleTheme))
        )
    expected = draw.index_rows(rows)
    counted = Counter((r["variant"], r["theme"], r["band"]) for r in expected)
    return stored, counted, index, sorted(tuple(r.values()) for r in expected)


@pytest.mark.parametrize("database", DATABASES)
def test_every_puzzle_of_the_window_is_drawn_and_none_outside_it(database, tmp_path):
    # 40 puzzles at 1500 (as every new puzzle stands), 10 spread over the window, 10 far above it.
    chosen = SHIPPED[:60]
    spread = {p["id"]: r for p, r in zip(chosen[40:50], (1360, 1390, 1420, 1440, 1470, 1530, 1560, 1590,
                                                          1620, 1645), strict=True)}
    far = {p["id"]: 2400.0 for p in chosen[50:]}

    async def scenario(puzzles):
        await puzzles.import_puzzles(chosen)
        await rated(puzzles, {**spread, **far})
        return Counter([(await puzzles.next(VARIANT, "any", None))["id"] for _ in range(1500)])

    with fresh_database_url(database, tmp_path) as url:
        drawn = run(url, scenario)
    window = {p["id"] for p in chosen[:50]}
    assert set(drawn) <= window
    # Each as likely as another, the 40 that share a rating too: 30 draws each on average.
    assert len(drawn) == 50 and min(drawn.values()) >= 12 and max(drawn.values()) <= 60


@pytest.mark.parametrize("database", DATABASES)
def test_a_member_never_gets_a_tried_puzzle_then_the_nearest_then_none(database, tmp_path):
    chosen = SHIPPED[:10]
    far = {p["id"]: 1900.0 + 10 * i for i, p in enumerate(chosen[6:])}  # beyond the window of 1500

    async def scenario(puzzles):
        await puzzles.import_puzzles(chosen)
        await rated(puzzles, far)
        accounts = AccountService(puzzles.db, argon2_memory_kib=1024, argon2_time_cost=1)
        member = Actor(user=await accounts.register(f"m{secrets.token_hex(4)}", "x" * 12), via="session")
        seen = []
        for _ in range(len(chosen)):
            got = await puzzles.next(VARIANT, "any", member)
            seen.append(got["id"])
            async with puzzles.db.session() as s:  # tried, unrated: the member's rating stays 1500
                await s.execute(insert(PuzzleAttempt).values(
                    user_id=member.id, puzzle_id=got["id"], variant=VARIANT, solved=False, rated=False,
                    at=datetime.now(UTC), rating_before=1500.0, rating_after=1500.0))
                await s.commit()
        with pytest.raises(NotFound) as none_left:
            await puzzles.next(VARIANT, "any", member)
        return seen, none_left.value.code

    with fresh_database_url(database, tmp_path) as url:
        seen, code = run(url, scenario)
    assert sorted(seen) == sorted(p["id"] for p in chosen)  # each once
    assert set(seen[:6]) == {p["id"] for p in chosen[:6]}  # the window's first
    assert set(seen[6:]) == set(far)  # then those nearest, outside it
    assert code == "no_puzzle"


@pytest.mark.parametrize("database", DATABASES)
def test_a_theme_draws_its_own_puzzles_and_the_counts_follow_imports_and_ratings(database, tmp_path):
    rng = random.Random(5)
    first, second = SHIPPED[:300], SHIPPED[200:700]  # the second import half new

    async def scenario(puzzles):
        await puzzles.import_puzzles(first)
        after_first = await recount(puzzles)
        await puzzles.import_puzzles(second)
        moved = {p["id"]: rng.uniform(900, 2100) for p in rng.sample(second, 150)}
        await rated(puzzles, moved)
        accounts = AccountService(puzzles.db, argon2_memory_kib=1024, argon2_time_cost=1)
        member = Actor(user=await accounts.register(f"t{secrets.token_hex(4)}", "x" * 12), via="session")
        for puzzle_id in rng.sample(sorted(moved), 20):  # rated attempts move the ratings
            await puzzles._record(puzzle_id, member, rng.random() < 0.5)
        themes = await puzzles.themes(VARIANT)
        drawn = {t["key"]: [await puzzles.next(VARIANT, t["key"], None) for _ in range(20)]
                 for t in themes["themes"]}
        return after_first, await recount(puzzles), themes, drawn

    with fresh_database_url(database, tmp_path) as url:
        after_first, after_all, themes, drawn = run(url, scenario)
    for stored, counted, index, expected in (after_first, after_all):
        assert +stored == counted and index == expected  # (+: the bands emptied, at 0, left out)
    per_theme = Counter()
    for (_, theme, _), n in after_all[1].items():
        per_theme[theme] += n
    assert themes["variants"] == [{"key": VARIANT, "count": 700}]
    assert {t["key"]: t["count"] for t in themes["themes"]} == {
        theme: n for theme, n in per_theme.items() if theme != draw.ANY}
    for theme, puzzles in drawn.items():
        assert all(theme in p["themes"] for p in puzzles)


@pytest.mark.parametrize("database", DATABASES)
def test_the_migration_fills_the_draw_and_the_counts_from_the_puzzles_stored(database, tmp_path):
    chosen = SHIPPED[:120]
    rng = random.Random(3)

    async def scenario(url):
        db = Database(url)
        await db.migrate("0006_history_indexes")
        now = datetime.now(UTC)
        async with db.session() as s:  # puzzles of a release before the draw's tables
            await s.execute(insert(PuzzleRow), [
                {"id": p["id"], "variant": p["variant"], "fen": p["fen"], "solution": "[]",
                 "themes": "," + ",".join(p["themes"]) + ",", "verified": p["verified"],
                 "rating": rng.uniform(1000, 2000), "deviation": 350.0, "volatility": 0.06, "plays": 0,
                 "created_at": now} for p in chosen])
            await s.commit()
        await db.migrate()
        await db.close()

    with fresh_database_url(database, tmp_path) as url:
        asyncio.run(scenario(url))
        stored, counted, index, expected = run(url, recount)
    assert stored == counted and index == expected
    assert sum(n for (_, theme, _), n in counted.items() if theme == draw.ANY) == 120


def test_the_daily_puzzle_is_drawn_by_the_day_and_never_twice_until_none_is_left(tmp_path):
    chosen = SHIPPED[:12]

    async def scenario(puzzles):
        await puzzles.import_puzzles(chosen)
        days = [date(2026, 12, 1) + timedelta(days=n) for n in range(len(chosen))]
        first = [(await puzzles.daily(VARIANT, day))["puzzle"]["id"] for day in days]
        again = [(await puzzles.daily(VARIANT, day))["puzzle"]["id"] for day in days]
        with pytest.raises(NotFound):
            await puzzles.daily(VARIANT, days[-1] + timedelta(days=1))
        return first, again

    with fresh_database_url("sqlite", tmp_path) as url:
        first, again = run(url, scenario)
    assert first == again and sorted(first) == sorted(p["id"] for p in chosen)
