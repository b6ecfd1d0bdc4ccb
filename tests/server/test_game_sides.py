"""What a game keeps of each side besides its clock (migration 0013, found by an audit of clocks and game
ends): the delay its client reports credited from a quota, berserk's lost increment, a draw offered again
only 20 plies later, calling it a draw when the opponent left, and a provisional rating shown as it was
when a rated game began."""

from __future__ import annotations

import asyncio
from datetime import timedelta

import httpx
import pytest
from sqlalchemy import text

from shashki.rules import Color
from shashki.server.errors import Conflict
from shashki.server.games import actions, draws
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

from .helpers import fresh_database_url
from .test_game_parts import _service

DATABASES = ["sqlite", "postgresql"]


class FakeTime:
    """The actions' clock, moved by hand: a move's thinking time is exactly what the test says."""

    def __init__(self) -> None:
        self.now = utcnow()

    def __call__(self):
        return self.now

    def advance(self, ms: int) -> None:
        self.now += timedelta(milliseconds=ms)


async def _play(games: GameService, game_id: str, time: FakeTime, *, think_ms: int, lag_ms: int, plies: int):
    """`plies` moves of the first legal move, each after `think_ms`, each claiming `lag_ms` of delay."""
    for _ in range(plies):
        state = games.state(await games.live(game_id))
        mover = 1 if state["side_to_move"] == "white" else 2
        time.advance(think_ms)
        await games.move(mover, game_id, state["legal_moves"][0]["move"], ply=state["ply"], lag_ms=lag_ms)
    return games.state(await games.live(game_id))


def test_the_delay_a_client_claims_is_credited_from_a_quota(tmp_path, monkeypatch):
    """A client claiming 0.5 s of delay on every move thought for free (the audit: a 15 s game ended with
    its whole clock). 1+0: 0.39 s a move more, 1.17 s to begin with; White's ten timed moves of 1 s are
    credited 0.5 s seven times, then 0.4, 0.39 and 0.39: 4.68 s in all, not 5."""
    time = FakeTime()
    monkeypatch.setattr(actions, "utcnow", time)

    async def scenario():
        db, games = await _service(tmp_path)
        try:
            live = await games.create(
                white_id=1, black_id=2, terms=GameTerms(variant="russian", clock_initial_ms=60_000)
            )
            # Two untimed first moves, then ten timed moves a side.
            return await _play(games, live.id, time, think_ms=1000, lag_ms=500, plies=22)
        finally:
            await games.close()
            await db.close()

    state = asyncio.run(scenario())
    assert state["clocks"]["white_ms"] == 60_000 - 10 * 1000 + 4680
    assert state["clocks"]["black_ms"] == 60_000 - 10 * 1000 + 4680


def test_berserk_halves_the_clock_and_takes_the_increment_away(tmp_path, monkeypatch):
    time = FakeTime()
    monkeypatch.setattr(actions, "utcnow", time)

    async def scenario():
        db, games = await _service(tmp_path)
        try:
            terms = GameTerms(variant="russian", clock_initial_ms=60_000, clock_increment_ms=2000)
            live = await games.create(white_id=1, black_id=2, terms=terms)
            halved = await games.halve_clock(live.id, Color.WHITE)
            again = await games.halve_clock(live.id, Color.WHITE)  # once, however often it is asked
            state = await _play(games, live.id, time, think_ms=1000, lag_ms=0, plies=4)
            return halved["clocks"], again["clocks"], state["clocks"]
        finally:
            await games.close()
            await db.close()

    halved, again, clocks = asyncio.run(scenario())
    assert halved["white_ms"] == again["white_ms"] == 30_000
    assert halved["berserk"] == {"white": True, "black": False}
    # One timed move each: White pays its second and gets nothing; Black pays it and gets its 2 s.
    assert (clocks["white_ms"], clocks["black_ms"]) == (29_000, 61_000)


def test_a_side_offers_a_draw_again_twenty_plies_after_its_last_offer(tmp_path):
    async def scenario():
        db, games = await _service(tmp_path)
        try:
            live = await games.create(white_id=1, black_id=2, terms=GameTerms(variant="russian"))
            time = FakeTime()
            await _play(games, live.id, time, think_ms=0, lag_ms=0, plies=2)
            await games.offer_draw(1, live.id)  # at ply 2
            await games.decline_draw(2, live.id)
            refusals = []
            for _ in range(21):
                try:
                    await games.offer_draw(1, live.id)
                    break
                except Conflict as refused:
                    refusals.append((refused.code, games.state(await games.live(live.id))["draw_again_at"]))
                await _play(games, live.id, time, think_ms=0, lag_ms=0, plies=1)
            return refusals, games.state(await games.live(live.id))
        finally:
            await games.close()
            await db.close()

    refusals, state = asyncio.run(scenario())
    assert len(refusals) == 20  # plies 2 to 21
    assert {refusal for refusal, _ in refusals} == {"draw_offered_recently"}
    assert all(shown == {"white": 22, "black": None} for _, shown in refusals)
    assert state["ply"] == 22 and state["draw_offer"] == "white"  # offered again at ply 22
    assert draws.DRAW_OFFER_EVERY == 20


def test_a_player_whose_opponent_left_may_call_it_a_draw(tmp_path):
    async def scenario():
        db, first = await _service(tmp_path)
        await first.close()
        games = GameService(db, make_bus(None), disconnect_claim_seconds=0)
        try:
            live = await games.create(
                white_id=1, black_id=2, terms=GameTerms(variant="russian", clock_initial_ms=60_000)
            )
            refused = []
            for user in (1, 2):  # before each side has moved: abort instead
                with pytest.raises(Conflict) as error:
                    await games.claim_draw(user, live.id)
                refused.append(error.value.code)
            await _play(games, live.id, FakeTime(), think_ms=0, lag_ms=0, plies=2)
            with pytest.raises(Conflict) as own_turn:  # White is to move: Black is not the one waiting
                await games.claim_draw(1, live.id)
            refused.append(own_turn.value.code)
            return refused, await games.claim_draw(2, live.id)
        finally:
            await games.close()
            await db.close()

    refused, ended = asyncio.run(scenario())
    assert refused == ["cannot_claim"] * 3
    assert (ended["result"], ended["winner"], ended["reason"]) == ("1/2-1/2", None, "abandonment-draw")


def test_a_finished_rated_game_shows_the_ratings_provisional_as_they_were(players, server):
    """Found by an audit: once the game had ended its page dropped the "?" of two new players."""
    white, black = players(), players()
    game = white.challenge(black, rated=True, time_control={"minutes": 3, "increment": 2})
    assert white.post(f"/api/games/{game['id']}/move", {"move": "c3-d4"}).status_code == 200
    assert black.post(f"/api/games/{game['id']}/move", {"move": "f6-g5"}).status_code == 200
    during = httpx.get(f"{server.url}/api/games/{game['id']}/ratings").json()["ratings"]
    assert white.post(f"/api/games/{game['id']}/resign").json()["game"]["status"] == "finished"
    after = httpx.get(f"{server.url}/api/games/{game['id']}/ratings").json()["ratings"]
    exported = httpx.get(f"{server.url}/game/export/{game['id']}", headers={"Accept": "application/json"})
    assert during["white"]["provisional"] and during["black"]["provisional"]
    assert after["white"] == {"rating": 1500, "provisional": True}
    assert after["black"] == {"rating": 1500, "provisional": True}
    assert exported.json()["players"]["white"]["provisional"] is True


@pytest.mark.parametrize("database", DATABASES)
def test_the_migration_fills_berserk_and_provisional_from_what_was_stored(database, tmp_path):
    async def scenario(url: str):
        db = Database(url)
        await db.migrate("0012_heartbeat")
        now = utcnow()
        async with db.session() as s:
            for i in (1, 2):
                await s.execute(text(
                    "INSERT INTO users (id, username, username_key, password_hash, is_bot, created_at) "
                    "VALUES (:i, :name, :name, '-', false, :now)"),
                    {"i": i, "name": f"m{i}", "now": now})  # fmt: skip
            for n in range(12):  # game g11 is White's twelfth rated game and Black's first
                await s.execute(text(
                    "INSERT INTO games (id, variant, double_diagonal, white_id, black_id, rated, "
                    "clock_initial_ms, clock_increment_ms, white_ms, black_ms, turn_started_at, ply, "
                    "version, status, created_at, white_rating, black_rating) VALUES (:id, 'russian', "
                    "false, 1, :black, true, 60000, 0, 60000, 60000, :now, 0, 0, 'finished', :now, 1500, "
                    "1500)"),
                    {"id": f"g{n}", "black": 2 if n == 11 else None, "now": now})  # fmt: skip
                for user in (1, 2) if n == 11 else (1,):
                    await s.execute(text(
                        "INSERT INTO rating_history (user_id, variant, speed, game_id, rating, deviation, "
                        "volatility, recorded_at) VALUES (:u, 'russian', 'bullet', :g, 1500, 100, 0.06, "
                        ":now)"),
                        {"u": user, "g": f"g{n}", "now": now})  # fmt: skip
            await s.execute(text(
                "INSERT INTO tournaments (id, name, system, variant, clock_initial_ms, "
                "clock_increment_ms, rated, status, starts_at, double, round, created_by, created_at) "
                "VALUES ('t1', 'T', 'arena', 'russian', 60000, 0, true, 'started', :now, false, 1, 1, "
                ":now)"), {"now": now})  # fmt: skip
            await s.execute(text(
                "INSERT INTO tournament_pairings (tournament_id, round, white_id, black_id, game_id, "
                "status, plies, white_berserk, black_berserk, white_rating, black_rating, created_at) "
                "VALUES ('t1', 1, 1, 2, 'g11', 'finished', 0, false, true, 1500, 1500, :now)"),
                {"now": now})  # fmt: skip
            await s.commit()
        await db.migrate()
        try:
            async with db.session() as s:
                rows = await s.execute(text(
                    "SELECT id, white_provisional, black_provisional, white_berserk, black_berserk "
                    "FROM games ORDER BY id"))  # fmt: skip
                return {row[0]: tuple(None if v is None else bool(v) for v in row[1:]) for row in rows}
        finally:
            await db.close()

    with fresh_database_url(database, tmp_path) as url:
        rows = asyncio.run(scenario(url))
    assert rows["g0"] == (True, None, False, False)  # no Black (NULL: the computer) to fill
    assert rows["g9"] == (True, None, False, False)  # White's tenth game: nine before it
    assert rows["g10"] == (False, None, False, False)  # White's eleventh: ten before it
    assert rows["g11"] == (False, True, False, True)
