"""A player's games newest first (`GameQueries.page_of_player`, `newest_of_player`): each seat's games are
read from its own index and merged (games/queries.py `_newest`), so every page and every batch of an
export must still hold exactly the games one sort of them all gives, in its order — creation times tied
on purpose, games against the computer, each colour, finished-only selections — on both databases."""

from __future__ import annotations

import asyncio
import random
import secrets
from datetime import UTC, datetime, timedelta

import pytest

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.games import tally
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.queries import GameQueries, PlayerGames
from shashki.server.storage import Database

from .helpers import database_url

T0 = datetime(2026, 1, 1, tzinfo=UTC)
STATUSES = (GameStatus.FINISHED, GameStatus.ABORTED, GameStatus.STARTED)


@pytest.mark.parametrize("database", ["sqlite", "postgresql"])
def test_pages_and_export_batches_hold_the_games_of_one_sort_in_its_order(database, tmp_path):
    key = "o" + secrets.token_hex(3)  # a shared PostgreSQL database holds other tests' games
    rng = random.Random(11)

    async def scenario():
        db = await Database(database_url(database, tmp_path)).open()
        try:
            async with db.session() as s:
                users = [
                    User(username=f"{key}{i}", username_key=f"{key}{i}", password_hash="-", created_at=T0)
                    for i in range(3)
                ]
                s.add_all(users)
                await s.flush()
                a, b, c = (user.id for user in users)
                made = []
                for i in range(40):
                    white, black = rng.choice([(a, b), (b, a), (a, None), (b, c), (c, a), (None, a)])
                    at = T0 + timedelta(minutes=rng.randrange(8))  # many games share a creation time
                    status = rng.choice(STATUSES)
                    game_id = f"{key}{i:03d}"
                    s.add(
                        GameRecord(
                            id=game_id, variant="russian-giveaway", double_diagonal=False, white_id=white,
                            black_id=black, computer_level=1 if None in (white, black) else None, rated=False,
                            turn_started_at=at, ply=0, version=1, status=status, created_at=at,
                        )
                    )  # fmt: skip
                    made.append((game_id, white, black, at, status))
                await s.flush()
                await tally.rebuild(s, {a, b, c})  # written here, not by the store: their counts made
                await s.commit()
            queries = GameQueries(db)
            seen = {}
            for name, selection in (
                ("all", PlayerGames(a)),
                ("white", PlayerGames(a, color=Color.WHITE)),
                ("black", PlayerGames(a, color=Color.BLACK)),
                ("finished", PlayerGames(a, finished_only=True, with_aborted=False)),
            ):
                pages, totals = [], set()
                for page in range(1, 20):
                    found = await queries.page_of_player(selection, page=page, per_page=4)
                    pages += [r.id for r in found.records]
                    totals.add(found.total)
                batches, after = [], None
                while batch := await queries.newest_of_player(selection, limit=3, after=after):
                    batches += [r.id for r in batch]
                    after = (batch[-1].created_at, batch[-1].id)
                seen[name] = (pages, totals, batches)
            return a, made, seen
        finally:
            await db.close()

    a, made, seen = asyncio.run(scenario())

    def expected(keep) -> list[str]:
        chosen = [m for m in made if keep(m)]
        return [m[0] for m in sorted(chosen, key=lambda m: (m[3], m[0]), reverse=True)]

    wanted = {
        "all": expected(lambda m: a in (m[1], m[2])),
        "white": expected(lambda m: m[1] == a),
        "black": expected(lambda m: m[2] == a),
        "finished": expected(lambda m: a in (m[1], m[2]) and m[4] == GameStatus.FINISHED),
    }
    for name, (pages, totals, batches) in seen.items():
        assert pages == wanted[name] == batches, name
        assert totals == {len(wanted[name])}, name
    assert 10 < len(wanted["all"]) < 40 and wanted["white"] and wanted["black"]
