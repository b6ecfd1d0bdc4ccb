"""Faults a public server must survive (issue 10): lookups of unknown games leave nothing behind, the
server's downtime is charged to nobody's clock, games whose first moves never come abort themselves, an
offer from a finished position or with a too short clock is refused, and accepting a challenge is one
transaction with its game. Most run on the services in this process (SQLite); the last needs the
PostgreSQL and Redis of `.ci/run` and runs two server processes.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import secrets
import string
import tracemalloc
from datetime import UTC, datetime, timedelta
from pathlib import Path

import httpx
import pytest
from sqlalchemy import func, select, update

from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Invalid, NotFound
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.models import GameRecord, GameStatus
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.lobby import LobbyService, TimeControl
from shashki.server.lobby.models import Challenge
from shashki.server.ratings import RatingService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database

from .helpers import Player, Server, eventually

NOW = datetime(2026, 1, 1, tzinfo=UTC)
ALPHABET = string.ascii_letters + string.digits


async def _database(tmp_path) -> Database:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        if await s.get(User, 1) is None:
            for user_id, name in ((1, "Anna"), (2, "Boris")):
                key = name.lower()
                s.add(User(id=user_id, username=name, username_key=key, password_hash="-", created_at=NOW))
            await s.commit()
    return db


def _games(db: Database, **options) -> GameService:
    return GameService(db, make_bus(None), engine=RandomOpponent(seed=1), computer_delay_seconds=0, **options)


# -- unknown games leave nothing behind ---------------------------------------------------------------


def test_thousands_of_unknown_game_ids_leave_the_loading_map_empty_and_memory_bounded(tmp_path):
    async def ask(games: GameService, n: int) -> int:
        missing = 0
        for _ in range(0, n, 100):
            ids = ["".join(secrets.choice(ALPHABET) for _ in range(8)) for _ in range(100)]
            answers = await asyncio.gather(*(games.live(i) for i in ids), return_exceptions=True)
            missing += sum(isinstance(a, NotFound) for a in answers)
        return missing

    def allocated() -> int:
        gc.collect()  # the refused lookups' tracebacks are cycles
        return sum(stat.size for stat in tracemalloc.take_snapshot().statistics("filename"))

    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        live = await games.create(white_id=1, black_id=2)
        tracemalloc.start()
        await ask(games, 2000)  # the database's and SQLAlchemy's caches warm up
        before = allocated()
        missing = await ask(games, 6000)
        grown = allocated() - before
        tracemalloc.stop()
        # A game that exists, asked for by many at once, is loaded once and cached; the map empties too.
        games.store.forget(live.id)
        found = await asyncio.gather(*(games.live(live.id) for _ in range(50)))
        loading = games.store.loading
        await games.close()
        await db.close()
        return missing, loading, grown, {g.id for g in found}, live.id

    missing, loading, grown, found, game_id = asyncio.run(scenario())
    assert missing == 6000
    assert loading == 0
    assert found == {game_id}
    # An entry left per id (its key and its lock) would be some 150 bytes each, 900 kB in all.
    assert grown < 200_000, f"{grown} bytes kept after 6,000 unknown ids"


# -- the server's downtime is charged to nobody -------------------------------------------------------


def test_the_clock_of_the_side_to_move_restarts_from_its_stored_time_after_the_server_was_down(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        live = await games.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        await games.move(1, live.id, "c3-d4", ply=0)
        await games.move(2, live.id, "f6-g5", ply=1)
        await games.move(1, live.id, "g3-h4", ply=2)  # White's clock ran; now Black's runs
        stored = await games.record(live.id)
        await games.close()
        # The server is down for 40 s: the turn began 40 s before the server comes back.
        async with db.session() as s:
            await s.execute(
                update(GameRecord)
                .where(GameRecord.id == live.id)
                .values(turn_started_at=stored.turn_started_at - timedelta(seconds=40))
            )
            await s.commit()
        again = _games(db)
        await again.resume()
        state = again.state(await again.live(live.id))
        await again.close()
        await db.close()
        return stored, state

    stored, state = asyncio.run(scenario())
    assert state["status"] == "started" and state["clocks"]["running"] == "black"
    assert stored.black_ms - 500 <= state["clocks"]["black_ms"] <= stored.black_ms
    assert state["clocks"]["white_ms"] == stored.white_ms


# -- games whose first moves never come ---------------------------------------------------------------


def test_a_game_whose_first_move_never_comes_aborts_itself_unrated_and_the_timer_is_rearmed_on_resume(
    tmp_path,
):
    clock = GameTerms(clock_initial_ms=60_000, rated=True)

    async def scenario():
        db = await _database(tmp_path)
        games = _games(db, first_move_seconds=0.8)
        ratings = RatingService(db, games.accounts)
        games.end_hooks.append(ratings.end_hook)
        nobody_moves = await games.create(white_id=1, black_id=2, terms=clock)
        black_never_moves = await games.create(white_id=1, black_id=2, terms=clock)
        await games.move(1, black_never_moves.id, "c3-d4", ply=0)
        both_moved = await games.create(white_id=1, black_id=2, terms=clock)
        await games.move(1, both_moved.id, "c3-d4", ply=0)
        await games.move(2, both_moved.id, "f6-g5", ply=1)
        untimed = await games.create(white_id=1, black_id=2)
        early = (await games.record(nobody_moves.id)).status
        await asyncio.sleep(1.2)
        three = (nobody_moves, black_never_moves, both_moved)
        first = {g.id: (await games.record(g.id)).status for g in three}
        untimed_status = (await games.record(untimed.id)).status
        rated = await ratings.of_user(1)
        await games.close()

        # Resumed after a restart, a game still waiting for its first move gets its full time again
        # (though its turn began long ago), and then aborts.
        before = _games(db)
        waiting = await before.create(white_id=1, black_id=2, terms=clock)
        await before.close()
        async with db.session() as s:
            long_ago = NOW - timedelta(days=1)
            moved = update(GameRecord).where(GameRecord.id == waiting.id).values(turn_started_at=long_ago)
            await s.execute(moved)
            await s.commit()
        resumed = _games(db, first_move_seconds=0.8)
        await resumed.resume()
        await asyncio.sleep(0.2)
        after_resume = (await resumed.record(waiting.id)).status
        await asyncio.sleep(1.2)
        later = (await resumed.record(waiting.id)).status
        await resumed.close()
        await db.close()
        return early, first, untimed_status, rated, after_resume, later, three

    early, first, untimed_status, rated, after_resume, later, (none, black, both) = asyncio.run(scenario())
    assert early is GameStatus.STARTED
    assert first[none.id] is GameStatus.ABORTED
    assert first[black.id] is GameStatus.ABORTED
    assert first[both.id] is GameStatus.STARTED
    assert untimed_status is GameStatus.STARTED  # no clock, no hurry: either player may abort it
    assert rated == [] or all(r["games"] == 0 for r in rated)  # an aborted game moves no rating
    assert after_resume is GameStatus.STARTED and later is GameStatus.ABORTED


# -- offers from a finished position; accepting is one transaction with the game ----------------------


def test_a_challenge_from_a_finished_position_is_refused_saying_so(server, players):
    anna, boris = players(), players()
    r = anna.post("/api/challenges", {"username": boris.name, "fen": "W:W:B"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "game_over", r.text
    assert "over" in r.json()["error"]["message"]
    token = players(bot=True).token("bot:play")
    r = httpx.post(
        f"{server.url}/api/challenge/{boris.name}",
        data={"fen": "W:W:B"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "game_over", r.text


def test_a_challenge_is_marked_accepted_only_with_its_game(tmp_path):
    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        lobby = LobbyService(db, make_bus(None), games)
        users = await games.accounts.users_by_id({1, 2})
        anna, boris = users[1], users[2]
        # A challenge stored before finished positions were refused: its game cannot be made.
        async with db.session() as s:
            old = Challenge(
                challenger_id=1,
                dest_user_id=2,
                **GameTerms(initial_fen="W:W:B").columns(),
                color="white",
                status="pending",
                created_at=NOW,
            )
            s.add(old)
            await s.commit()
        with pytest.raises(Invalid):
            await lobby.accept_challenge(boris, old.id)
        stale = await lobby.challenge_by_id(old.id)
        # Two accepts of one challenge at once: one game, and the challenge names it.
        twice = await lobby.challenge(anna, "Boris", time_control=TimeControl(1))
        answers = await asyncio.gather(
            lobby.accept_challenge(boris, twice["id"]), lobby.accept_challenge(boris, twice["id"]),
            return_exceptions=True,
        )
        accepted = await lobby.challenge_by_id(twice["id"])
        async with db.session() as s:
            count = await s.scalar(select(func.count()).select_from(GameRecord))
        await games.close()
        await db.close()
        return stale, answers, accepted, count

    stale, answers, accepted, count = asyncio.run(scenario())
    assert stale.status == "pending" and stale.game_id is None
    games = [a for a in answers if isinstance(a, dict)]
    assert len(games) == 1 and isinstance(next(a for a in answers if not isinstance(a, dict)), Conflict)
    assert accepted.status == "accepted" and accepted.game_id == games[0]["id"]
    assert count == 1


# -- the shortest clock ---------------------------------------------------------------------------------


def test_a_clock_below_the_minimum_is_refused_by_the_lobby_the_bot_api_and_the_computer(server, players):
    # The test server's minimum is 0.5 s (helpers.FAST); 1 ms is below it everywhere.
    anna, boris = players(), players()
    tiny = {"minutes": 0.001 / 60, "increment": 0}
    for path, body in (
        ("/api/challenges", {"username": boris.name, "time_control": tiny}),
        ("/api/seeks", {"time_control": tiny}),
        ("/api/computer-games", {"time_control": tiny}),
    ):
        r = anna.post(path, body)
        assert r.status_code == 400 and r.json()["error"]["code"] == "clock_too_short", (path, r.text)
    bot = players(bot=True)
    r = httpx.post(
        f"{server.url}/api/challenge/{boris.name}",
        data={"clock.limit": "0.001", "clock.increment": "0"},
        headers={"Authorization": f"Bearer {bot.token('bot:play')}"},
    )
    assert r.status_code == 400 and r.json()["error"]["code"] == "clock_too_short", r.text
    assert "at least 0.5 s" in r.json()["error"]["message"]


def test_the_default_minimum_clock_is_lidraughts_quarter_minute(tmp_path):
    from shashki.server.config import Settings

    assert Settings().min_clock_seconds == 15.0

    async def scenario():
        db = await _database(tmp_path)
        games = _games(db)
        lobby = LobbyService(db, make_bus(None), games)
        anna = (await games.accounts.users_by_id({1}))[1]
        with pytest.raises(Invalid) as short:
            await lobby.play_computer(anna, time_control=TimeControl(10 / 60, 5))
        made = await lobby.play_computer(anna, time_control=TimeControl(15 / 60))
        await games.close()
        await db.close()
        return short.value, made

    short, made = asyncio.run(scenario())
    assert short.code == "clock_too_short"
    assert made["clocks"]["white_ms"] == 15_000


# -- the engine's workers die with the server ---------------------------------------------------------


def _children(pid: int) -> set[int]:
    """The processes whose parent is `pid` (Linux /proc)."""
    out = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, ValueError, IndexError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) == pid:
                out.add(int(stat.parent.name))
    return out


def _alive(pid: int) -> bool:
    """Running, and not a zombie waiting for a parent (in a container, nobody may ever reap it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


@pytest.mark.slow
@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads the process table in /proc")
def test_the_engine_workers_die_with_a_server_killed_outright(tmp_path):
    server = Server(tmp_path / "data", env={"SHASHKI_ENGINE": "engine"}).start()
    try:
        person = Player(server)
        clock = {"minutes": 1, "increment": 0}
        r = person.post("/api/computer-games", {"level": 1, "color": "black", "time_control": clock})
        assert r.status_code == 201, r.text
        gid = r.json()["game"]["id"]
        # The computer (White) moves first: the engine's pool has started its worker.
        moved = eventually(
            lambda: person.http.get(f"/api/games/{gid}").json()["game"]["ply"], lambda ply: ply >= 1, 30
        )
        assert moved >= 1
        workers = _children(server.process.pid)
        assert workers, "no engine worker was started"
    finally:
        server.kill()  # SIGKILL: the server's shutdown never runs, nor the pool's
    gone = eventually(lambda: {p for p in workers if _alive(p)}, lambda alive: not alive, timeout=5)
    assert not gone, f"engine workers {gone} outlived the server"


# -- the Bot API's limits, shared by the server processes ----------------------------------------------

DATABASE_URL = os.environ.get("SHASHKI_TEST_DATABASE_URL")
REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")


@pytest.mark.skipif(not (DATABASE_URL and REDIS_URL), reason="needs SHASHKI_TEST_DATABASE_URL and _REDIS_URL")
def test_bot_api_requests_challenges_and_chat_lines_are_counted_across_server_processes(tmp_path):
    limits = {
        "SHASHKI_API_REQUESTS_PER_MINUTE": "6",
        "SHASHKI_CHALLENGES_PER_MINUTE": "2",
        "SHASHKI_CHAT_LINES": "2",
        "SHASHKI_CHAT_WINDOW_SECONDS": "60",
    }
    servers = []
    for name in ("a", "b"):
        server = Server(tmp_path / name, env=limits)
        server.env["DATABASE_URL"], server.env["REDIS_URL"] = DATABASE_URL, REDIS_URL
        servers.append(server.start())
    a, b = servers
    try:
        bot, person, other = Player(a, bot=True), Player(a), Player(a)
        auth = {"Authorization": f"Bearer {bot.token('bot:play')}"}
        # Challenges: two a minute, whichever process receives them.
        answers = [
            httpx.post(f"{s.url}/api/challenge/{person.name}", data={"clock.limit": "60"}, headers=auth)
            for s in (a, b, a)
        ]
        assert [r.status_code for r in answers] == [200, 200, 429], [r.text for r in answers]
        # Requests: six a minute in all (three made above).
        codes = [httpx.get(f"{s.url}/api/challenge", headers=auth).status_code for s in (b, a, b, a)]
        assert codes == [200, 200, 200, 429]
        assert "retry-after" in {k.lower() for k in httpx.get(f"{b.url}/api/challenge", headers=auth).headers}
        # Chat: two lines per game a minute, written through either process.
        game = person.challenge(other)
        lines = [
            httpx.post(
                f"{s.url}/api/games/{game['id']}/chat",
                json={"text": f"line {i}", "room": "player"},
                cookies=person.http.cookies,
                headers={"X-CSRF-Token": person.csrf},
            ).status_code
            for i, s in enumerate((a, b, a))
        ]
        assert lines == [201, 201, 429], lines
    finally:
        for server in servers:
            server.stop()

