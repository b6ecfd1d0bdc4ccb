"""A player's games counted as they happen (games/tally.py), on SQLite and PostgreSQL: after games started
(with a pairing's session too), played to their end, resigned, drawn, aborted, rated and casual,
against the computer, and handed from an anonymous visitor to an account — in play and finished — the
counts kept equal the counts made from the games themselves; the profile reads them; the migration
fills them from the games stored."""

from __future__ import annotations

import asyncio
import random
from datetime import UTC, datetime

import pytest
from sqlalchemy import MetaData, Table, insert, select

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.games import tally
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.models import GameRecord, GameStatus, PlayerTally
from shashki.server.games.queries import PlayerGames
from shashki.server.games.service import GameService
from shashki.server.ratings.service import RatingService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

from .helpers import first_moves_in, fresh_database_url

DATABASES = ["sqlite", "postgresql"]
T0 = datetime(2026, 1, 1, tzinfo=UTC)
BLITZ = 180_000


async def stored_and_recounted(db: Database) -> tuple[dict, dict]:
    async with db.session() as s:
        stored = {
            row.user_id: {k: getattr(row, k) for k in tally.COUNTS}
            for row in await s.scalars(select(PlayerTally))
        }
        return stored, await tally.recounted(s)


async def play_out(games: GameService, game_id: str, rng: random.Random) -> None:
    """Random legal moves by whoever is to move, to the end."""
    while True:
        live = await games.live(game_id)
        if live.rules.outcome is not None or not live.is_live:
            return
        color = live.to_move
        user_id = live.record.player_id(color)
        move = rng.choice(live.rules.legal_moves())
        await games.move(user_id, game_id, move, ply=live.record.ply)


@pytest.mark.parametrize("database", DATABASES)
def test_the_counts_kept_are_the_games_counted_whatever_happens_to_them(database, tmp_path):
    rng = random.Random(4)

    async def scenario(url: str) -> tuple[dict, dict, dict, int]:
        db = await Database(url).open()
        games = GameService(db, make_bus(None), engine=RandomOpponent(seed=2), computer_delay_seconds=0)
        games.end_hooks.append(RatingService(db).end_hook)
        try:
            async with db.session() as s:
                users = [
                    User(username=f"p{i}", username_key=f"p{i}", password_hash="-", created_at=T0)
                    for i in range(3)
                ]
                visitor = User(username="Anonymous", username_key="anon-1", password_hash="-",
                               created_at=T0, anonymous=True)  # fmt: skip
                s.add_all([*users, visitor])
                await s.commit()
            a, b, c = (u.id for u in users)
            anon = visitor.id
            made = []
            pairs = ((a, b, True), (b, a, True), (a, c, False), (c, b, True), (b, c, False))
            for white, black, rated in pairs:
                made.append((await games.create(
                    white_id=white, black_id=black, rated=rated, clock_initial_ms=BLITZ)).id)  # fmt: skip
            played, resigned, drawn, aborted, left = made
            await play_out(games, played, rng)
            await first_moves_in(games, resigned, b, a)
            await games.resign(a, resigned)
            await first_moves_in(games, drawn, a, c)
            await games.offer_draw(c, drawn)
            await games.accept_draw(a, drawn)
            await games.abort(c, aborted)  # `left` stays in play
            computer = (await games.create(white_id=None, black_id=a, computer_level=1)).id
            await play_out_against_the_computer(games, computer, a, rng)

            async def pairing(s, game_id):  # a tournament's pairing writes with the game in a session
                return None

            await games.create(white_id=a, black_id=b, clock_initial_ms=BLITZ, within=pairing)
            # A visitor's casual games, one finished and one in play, handed to the account `c`.
            finished = (await games.create(white_id=anon, black_id=b, clock_initial_ms=BLITZ)).id
            await first_moves_in(games, finished, anon, b)
            await games.resign(b, finished)
            await games.create(white_id=b, black_id=anon, clock_initial_ms=BLITZ)
            handed = await games.adopt_games(anon, c)
            stored, recounted = await stored_and_recounted(db)
            queries = games.queries
            seen = {"c": await queries.counts_of_player(c), "playing": await queries.in_play_of_player(c)}
            # A list's total: from the counts kept when they hold it, counted otherwise; the same figure.
            seen["totals"] = [
                (await queries.total_of_player(selection), await queries.counted_total_of_player(selection))
                for user_id in (a, b, c) for selection in selections(user_id)
            ]  # fmt: skip
            return stored, recounted, seen, handed
        finally:
            await games.close()
            await db.close()

    with fresh_database_url(database, tmp_path) as url:
        stored, recounted, seen, handed = asyncio.run(scenario(url))
    assert handed == 2
    assert {u: n for u, n in stored.items() if any(n.values())} == recounted
    counts = seen["c"]
    assert counts.total == 5 and counts.playing == 2 and counts.win == 1  # the visitor's win is c's now
    assert len(seen["playing"]) == 2
    assert all(kept == counted for kept, counted in seen["totals"]), seen["totals"]
    assert len({counted for _, counted in seen["totals"]}) > 4  # selections of different sizes


def selections(user_id: int) -> list[PlayerGames]:
    """Every selection a games list offers without a filter the counts do not keep, and some with one."""
    plain = [
        PlayerGames(user_id, rated=rated, result=result, finished_only=finished, with_aborted=aborted)
        for rated in (None, True, False)
        for result in (None, "win", "loss", "draw")
        for finished in (False, True)
        for aborted in (True, False)
    ]
    return [*plain, PlayerGames(user_id, color=Color.WHITE), PlayerGames(user_id, variant="russian-giveaway")]


async def play_out_against_the_computer(games: GameService, game_id: str, user_id: int, rng) -> None:
    """The player's random moves; the computer answers on its own."""
    for _ in range(400):
        live = await games.live(game_id)
        if live.rules.outcome is not None or not live.is_live:
            return
        if live.record.player_id(live.to_move) != user_id:
            await asyncio.sleep(0.005)
            continue
        await games.move(user_id, game_id, rng.choice(live.rules.legal_moves()), ply=live.record.ply)
    raise AssertionError("the game against the computer did not end")


@pytest.mark.parametrize("database", DATABASES)
def test_the_migration_counts_the_games_stored(database, tmp_path):
    rng = random.Random(9)

    async def scenario(url: str) -> tuple[dict, dict]:
        db = Database(url)
        await db.migrate("0007_puzzle_draw")
        async with db.session() as s:
            await s.execute(insert(User), [
                {"id": i, "username": f"u{i}", "username_key": f"u{i}", "password_hash": "-",
                 "created_at": T0} for i in range(1, 6)])  # fmt: skip
            rows = []
            for i in range(80):
                white, black = rng.sample([1, 2, 3, 4, 5, None], 2)
                status = rng.choice(list(GameStatus))
                ended = status == GameStatus.FINISHED
                winner = rng.choice([Color.WHITE, Color.BLACK, None]) if ended else None
                rows.append({
                    "id": f"m{i:03d}", "variant": "russian", "double_diagonal": False, "white_id": white,
                    "black_id": black, "rated": rng.random() < 0.5, "clock_increment_ms": 0,
                    "turn_started_at": T0, "ply": 0, "version": 1, "status": status, "winner": winner,
                    "created_at": T0})  # fmt: skip
            # The games table as 0007 left it: the model's later columns (0010's `takebacks`) not there yet.
            columns = GameRecord.__table__.c
            old_games = Table("games", MetaData(), *(columns[name]._copy() for name in rows[0]))
            await s.execute(insert(old_games), rows)
            await s.commit()
        await db.migrate()
        try:
            return await stored_and_recounted(db)
        finally:
            await db.close()

    with fresh_database_url(database, tmp_path) as url:
        stored, recounted = asyncio.run(scenario(url))
    assert stored == recounted and len(stored) == 5


@pytest.mark.parametrize("rated", [False, True], ids=["casual", "rated"])
@pytest.mark.parametrize("database", DATABASES)
def test_games_of_the_same_two_players_ending_at_once_all_end_and_are_counted(database, rated, tmp_path):
    """Each end changes both players' rows (their counts; their ratings when rated): the ends of 16 games
    with the colours swapped, all at once, take the rows in one order (PostgreSQL found deadlocks and
    failed them) and, rated, plan again as often as another end got there first (5 attempts failed some)."""

    async def scenario(url: str) -> tuple[list, dict, dict, list]:
        db = await Database(url).open()
        games = GameService(db, make_bus(None), engine=RandomOpponent(seed=2), computer_delay_seconds=0)
        games.end_hooks.append(RatingService(db).end_hook)
        try:
            async with db.session() as s:
                users = [User(username=f"q{i}", username_key=f"q{i}", password_hash="-", created_at=T0)
                         for i in range(2)]  # fmt: skip
                s.add_all(users)
                await s.commit()
            a, b = (u.id for u in users)
            made = []
            for w, k in [(a, b), (b, a)] * 8:
                game = await games.create(white_id=w, black_id=k, rated=rated, clock_initial_ms=BLITZ)
                await first_moves_in(games, game.id, w, k)
                made.append(game.id)
            ended = await asyncio.gather(
                *(games.resign(a if i % 2 else b, game_id) for i, game_id in enumerate(made)),
                return_exceptions=True,
            )
            stored, recounted = await stored_and_recounted(db)
            rating = RatingService(db)
            ratings = [r["games"] for user_id in (a, b) for r in await rating.of_user(user_id)]
            return ended, stored, recounted, ratings
        finally:
            await games.close()
            await db.close()

    with fresh_database_url(database, tmp_path) as url:
        ended, stored, recounted, ratings = asyncio.run(scenario(url))
    assert not [e for e in ended if isinstance(e, BaseException)]
    assert stored == recounted and all(n["games"] == 16 and n["playing"] == 0 for n in stored.values())
    assert ratings == ([16, 16] if rated else [])  # each rating moved by every game
