"""A player's profile figures, game lists by every filter, exports in batches and the games being played
now, read through the games domain's queries (`games.queries`) on a handful of stored games.

Anna (1) plays six games: wins, losses (one to the computer, whose id is NULL), a draw, one in play, one
aborted; Boris (2) and Vera (3) play two more without her. Speeds are lichess's (`ratings.speed`): the
estimated duration is the initial time plus forty increments, bullet below 3 min, blitz below 8 min,
rapid below 25 min.
"""

from __future__ import annotations

import asyncio
import json
import re
from datetime import UTC, datetime, timedelta

import pytest

import shashki.server.history.service as history_module
from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.errors import Invalid, NotFound
from shashki.server.games import tally
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.service import GameService
from shashki.server.history import GameFilter, HistoryService
from shashki.server.ratings import RatingService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

T0 = datetime(2026, 1, 1, tzinfo=UTC)
ANNA, BORIS, VERA = 1, 2, 3
RESULTS = {Color.WHITE: "1-0", Color.BLACK: "0-1"}
FINISHED, STARTED, ABORTED = GameStatus.FINISHED, GameStatus.STARTED, GameStatus.ABORTED

# id, white, black, variant, clock (minutes, increment s) or None, rated, status, winner, minutes after T0
GAMES = [
    ("g1", ANNA, BORIS, "russian-giveaway", (3, 2), True, FINISHED, Color.WHITE, 1),  # blitz: 260 s
    ("g2", BORIS, ANNA, "russian-giveaway", (1, 0), False, FINISHED, Color.WHITE, 2),  # bullet
    ("g3", ANNA, None, "russian-giveaway", None, False, FINISHED, Color.BLACK, 3),  # lost to the computer
    ("g4", VERA, ANNA, "russian", (10, 0), False, FINISHED, None, 4),  # rapid, a draw
    ("g5", ANNA, VERA, "russian-giveaway", (5, 3), False, STARTED, None, 5),  # blitz: 420 s
    ("g6", ANNA, BORIS, "russian-giveaway", (3, 0), False, ABORTED, None, 5),  # blitz from exactly 180 s
    ("g7", BORIS, VERA, "russian-giveaway", (1, 0), False, FINISHED, Color.BLACK, 6),
    ("g8", BORIS, VERA, "russian", None, False, STARTED, None, 7),
]


async def _history(tmp_path) -> tuple[Database, GameService, HistoryService]:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        for user_id, name in ((ANNA, "Anna"), (BORIS, "Boris"), (VERA, "Vera")):
            key = name.lower()
            s.add(User(id=user_id, username=name, username_key=key, password_hash="-", created_at=T0))
        await s.commit()
        for game_id, white, black, variant, clock, rated, status, winner, minutes in GAMES:
            at = T0 + timedelta(minutes=minutes)
            initial = None if clock is None else clock[0] * 60_000
            s.add(
                GameRecord(
                    id=game_id,
                    variant=variant,
                    double_diagonal=False,
                    white_id=white,
                    black_id=black,
                    computer_level=1 if black is None else None,
                    rated=rated,
                    clock_initial_ms=initial,
                    clock_increment_ms=0 if clock is None else clock[1] * 1000,
                    white_ms=initial,
                    black_ms=initial,
                    turn_started_at=at,
                    ply=0,
                    version=1,
                    status=status,
                    result=RESULTS.get(winner, "1/2-1/2") if status == FINISHED else None,
                    winner=winner,
                    created_at=at,
                    finished_at=None if status == STARTED else at,
                )
            )
        await s.flush()
        await tally.rebuild(s)  # the games written here, not by the store: their players' counts made
        await s.commit()
    games = GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0)
    return db, games, HistoryService(db, games, RatingService(db))


def _run(tmp_path, read):
    async def scenario():
        db, games, history = await _history(tmp_path)
        try:
            return await read(history)
        finally:
            await games.close()
            await db.close()

    return asyncio.run(scenario())


def test_a_profile_counts_the_players_games_by_kind_and_lists_those_in_play(tmp_path):
    profile = _run(tmp_path, lambda h: h.profile("Anna"))
    assert profile["count"] == {"all": 6, "rated": 1, "win": 1, "loss": 2, "draw": 1, "playing": 1}
    assert profile["playing"] == ["g5"]


@pytest.mark.parametrize(
    ("f", "ids"),
    [
        (GameFilter(), ["g6", "g5", "g4", "g3", "g2", "g1"]),  # newest first; same time: larger id first
        (GameFilter(speed="bullet"), ["g2"]),
        (GameFilter(speed="blitz"), ["g6", "g5", "g1"]),
        (GameFilter(speed="rapid"), ["g4"]),
        (GameFilter(speed="classical"), []),
        (GameFilter(speed="correspondence"), ["g3"]),  # without a clock (found by an audit: every timed one)
        # Several speeds with commas, as lidraughts' perfType: any of them, untimed ones included.
        (GameFilter(speed="bullet,rapid"), ["g4", "g2"]),
        (GameFilter(speed="rapid, correspondence"), ["g4", "g3"]),
        (GameFilter(speed="bullet,blitz,bullet"), ["g6", "g5", "g2", "g1"]),
        (GameFilter(speed="classical,correspondence", color="white"), ["g3"]),
        (GameFilter(color="black"), ["g4", "g2"]),
        (GameFilter(vs="Boris"), ["g6", "g2", "g1"]),
        (GameFilter(result="win"), ["g1"]),
        (GameFilter(result="loss"), ["g3", "g2"]),
        (GameFilter(result="draw"), ["g4"]),
        (GameFilter(rated=True), ["g1"]),
        (GameFilter(rated=False, color="white"), ["g6", "g5", "g3"]),
        (GameFilter(variant="russian"), ["g4"]),
        (GameFilter(finished_only=True), ["g4", "g3", "g2", "g1"]),
    ],
    ids=repr,
)
def test_a_players_games_are_listed_by_each_filter_newest_first(tmp_path, f, ids):
    page = _run(tmp_path, lambda h: h.games_page("Anna", f, per_page=100))
    assert [g["id"] for g in page["games"]] == ids
    assert page["total"] == len(ids)


def test_pages_split_the_list_and_count_it_whole(tmp_path):
    async def read(h):
        return [await h.games_page("Anna", GameFilter(), page=n, per_page=4) for n in (1, 2, 3)]

    pages = _run(tmp_path, read)
    assert [[g["id"] for g in p["games"]] for p in pages] == [["g6", "g5", "g4", "g3"], ["g2", "g1"], []]
    assert {(p["total"], p["pages"]) for p in pages} == {(6, 2)}


def test_an_export_leaves_out_aborted_games_and_reads_them_in_batches(tmp_path, monkeypatch):
    monkeypatch.setattr(history_module, "EXPORT_BATCH", 2)  # several batches, a tie on the time between two

    async def read(h):
        out = []
        for limit in (None, 3):
            chunks = await h.export("Anna", GameFilter(), fmt="json", site="http://x", limit=limit)
            out.append([json.loads(line)["id"] async for line in chunks])
        chunks = await h.export("Anna", GameFilter(vs="Vera"), fmt="pdn", site="http://x")
        out.append([re.search(r'\[Site "http://x/game/(\w+)"\]', text)[1] async for text in chunks])
        return out

    everything, first_three, against_vera = _run(tmp_path, read)
    assert everything == ["g5", "g4", "g3", "g2", "g1"]
    assert first_three == ["g5", "g4", "g3"]
    assert against_vera == ["g5", "g4"]


def test_one_game_is_exported_with_its_players_and_unknown_ones_are_not_found(tmp_path):
    async def read(h):
        game = await h.json("g2")
        with pytest.raises(NotFound):
            await h.json("nope")
        with pytest.raises(NotFound):
            await h.games_page("Anna", GameFilter(vs="Nobody"))
        return game

    game = _run(tmp_path, read)
    assert game["id"] == "g2" and game["moves"] == ""
    assert [game["players"][c]["user"]["name"] for c in ("white", "black")] == ["Boris", "Anna"]


def test_the_games_being_played_now_come_latest_first_and_by_variant(tmp_path):
    async def read(h):
        variants = (None, "russian", "russian-giveaway")
        return [[g["id"] for g in await h.now_playing(variant=v)] for v in variants]

    assert _run(tmp_path, read) == [["g8", "g5"], ["g8"], ["g5"]]


def test_a_filter_refuses_a_colour_result_or_speed_it_does_not_know():
    with pytest.raises(Invalid):
        GameFilter(color="red")
    with pytest.raises(Invalid):
        GameFilter(result="won")
    for speed in ("slow", "blitz,slow", "blitz,", ","):
        with pytest.raises(Invalid, match="Speeds are"):
            GameFilter(speed=speed)
