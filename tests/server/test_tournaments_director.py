"""The director across processes (issue 13, point 7), in process: two "server processes" are two stacks
of services on one SQLite file, each with its own director and lease, and clocks the test moves.

- the lease: one holder at a time; taken over once the holder has stopped renewing it;
- two directors on one database: only the lease holder pairs, and the other takes over when the holder
  is gone;
- a round stored but whose games were not created (the process died in between) gets its games from the
  next director, once each: nobody is paired twice.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from sqlalchemy import func, select

from shashki.server.accounts import AccountService
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.service import GameService
from shashki.server.ratings import RatingService
from shashki.server.redisbus import make_bus
from shashki.server.storage import Database
from shashki.server.tournaments.director import Director
from shashki.server.tournaments.lease import Lease
from shashki.server.tournaments.live import TournamentFeed
from shashki.server.tournaments.models import TournamentPairing
from shashki.server.tournaments.results import Results
from shashki.server.tournaments.service import TournamentService
from shashki.server.tournaments.terms import TournamentTerms


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@dataclass
class Process:
    db: Database
    games: GameService
    service: TournamentService
    director: Director
    clock: Clock

    async def close(self) -> None:
        await self.director.results.close()
        await self.games.close()
        await self.db.close()


async def process(url: str, lease_seconds: float = 10.0) -> Process:
    db = await Database(url).open()
    bus = make_bus(None)
    accounts = AccountService(db, argon2_memory_kib=1024, argon2_time_cost=1)
    games = GameService(db, bus, engine=RandomOpponent(), accounts=accounts, first_move_seconds=0)
    ratings = RatingService(db, accounts)
    games.end_hooks.append(ratings.end_hook)
    feed = TournamentFeed(bus, coalesce=0.01)
    service = TournamentService(db, games, accounts, ratings, feed, min_clock_ms=1000)
    results = Results(db, feed)
    games.store.add_listener(results)
    clock = Clock()
    director = Director(service, results, Lease(db, seconds=lease_seconds, clock=clock), clock=clock)
    return Process(db, games, service, director, clock)


async def pairings(db: Database, tid: str, status: str | None = None) -> list[TournamentPairing]:
    async with db.session() as s:
        query = select(TournamentPairing).where(TournamentPairing.tournament_id == tid)
        if status:
            query = query.where(TournamentPairing.status == status)
        return list(await s.scalars(query.order_by(TournamentPairing.id)))


async def swiss_with_players(p: Process, n: int, rounds: int = 2) -> tuple[str, list]:
    users = [
        await p.service.accounts.register(f"u{i}_{id(p) % 10000}", "correct horse battery") for i in range(n)
    ]
    terms = TournamentTerms(
        "Lease test", "swiss", "russian-giveaway", 60, 0, starts_at=p.clock.now, rounds=rounds
    )
    t = await p.service.create(users[0], terms)
    for u in users:
        await p.service.join(u, t["id"])
    return t["id"], users


async def end_games(p: Process, tid: str) -> None:
    """White resigns every game in play; wait until their results are recorded."""
    for pairing in await pairings(p.db, tid, "started"):
        await p.games.resign(pairing.white_id, pairing.game_id)
    for _ in range(100):
        if not await pairings(p.db, tid, "started"):
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the results were not recorded")


def test_one_lease_holder_at_a_time_and_a_lapsed_lease_is_taken_over(tmp_path):
    async def run() -> None:
        db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
        clock = Clock()
        first, second = Lease(db, seconds=10, clock=clock), Lease(db, seconds=10, clock=clock)
        assert await first.hold("T1") and not await second.hold("T1")
        clock.advance(9)
        assert await first.hold("T1")  # renewed: 10 s more from now
        clock.advance(9)
        assert not await second.hold("T1")
        clock.advance(2)  # the holder stopped renewing 11 s ago
        assert await second.hold("T1") and not await first.hold("T1")
        await second.release("T1")
        assert await first.hold("T1")
        await db.close()

    asyncio.run(run())


def test_two_directors_on_one_database_only_the_lease_holder_pairs_and_the_other_takes_over(tmp_path):
    async def run() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
        a, b = await process(url), await process(url)
        tid, _ = await swiss_with_players(a, 4)
        a.clock.advance(1)
        b.clock.advance(1)
        await a.director.run_once()
        await b.director.run_once()
        await a.director.run_once()
        await b.director.run_once()
        first = await pairings(a.db, tid)
        assert len(first) == 2 and {p.round for p in first} == {1}
        # The holder (a) dies: its lease runs out; b takes over and pairs round 2 once the games end.
        await end_games(b, tid)
        await b.director.run_once()
        assert len(await pairings(b.db, tid)) == 2  # a's lease still runs: b waits
        b.clock.advance(11)
        await b.director.run_once()
        await b.director.run_once()
        rounds = [p.round for p in await pairings(b.db, tid)]
        assert sorted(rounds) == [1, 1, 2, 2]
        second = [p for p in await pairings(b.db, tid) if p.round == 2]
        met = {frozenset((p.white_id, p.black_id)) for p in first}
        assert all(frozenset((p.white_id, p.black_id)) not in met for p in second)  # no repeat
        await a.close()
        await b.close()

    asyncio.run(run())


def test_a_round_stored_without_its_games_gets_them_once_after_a_restart(tmp_path):
    async def run() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
        a = await process(url)
        tid, _ = await swiss_with_players(a, 4)

        async def dies_before_creating(snap, pairing) -> None:
            return None

        a.director._round_game = dies_before_creating  # type: ignore[method-assign]
        a.clock.advance(1)
        await a.director.run_once()
        stored = await pairings(a.db, tid)
        assert [p.status for p in stored] == ["pending", "pending"] and all(p.game_id is None for p in stored)
        await a.close()
        # Restarted ("process" b on the same file), past a's lease: the stored round's games are created.
        b = await process(url)
        b.clock.advance(12)
        for _ in range(3):
            await b.director.run_once()
        after = await pairings(b.db, tid)
        assert [(p.id, p.white_id, p.black_id) for p in after] == [
            (p.id, p.white_id, p.black_id) for p in stored
        ]
        assert all(p.status == "started" and p.game_id for p in after)
        async with b.db.session() as s:
            games = await s.scalar(
                select(func.count())
                .select_from(TournamentPairing)
                .where(TournamentPairing.game_id.is_not(None))
            )
        assert games == 2
        await b.close()

    asyncio.run(run())


def test_a_scheduled_slot_is_created_once_whatever_the_processes_and_restarts(tmp_path):
    from shashki.server.tournaments.schedule import Schedule

    async def run() -> None:
        url = f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}"
        a, b = await process(url), await process(url)
        spec = "hourly :00 arena poddavki 3+2 45min; daily 18:00 swiss russian 5+3 7rounds casual"
        for p in (a, b):
            p.clock.now = datetime(2026, 12, 1, 12, 30, tzinfo=UTC)
            p.director.schedule = Schedule.from_setting(spec)
        await a.director.run_once()
        await b.director.run_once()
        b.director.schedule = Schedule.from_setting(spec)  # a restart forgets what it had seen
        await b.director.run_once()
        listed = await a.service.list()
        made = sorted((t["system"], t["starts_at"], t["rated"], t["scheduled"]) for t in listed["created"])
        assert made == [
            ("arena", "2026-12-01T13:00:00Z", True, True),
            ("swiss", "2026-12-01T18:00:00Z", False, True),
        ]
        await a.close()
        await b.close()

    asyncio.run(run())


def test_a_player_who_joins_while_a_round_is_being_paired_is_in_that_round(tmp_path, monkeypatch):
    """The director pairs round 1 from a snapshot; a player joins before the round is stored. The round
    is not stored without them (the players are no longer the snapshot's): the next tick pairs them."""
    import shashki.server.tournaments.director as director_module

    async def run() -> None:
        p = await process(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
        tid, _ = await swiss_with_players(p, 4, rounds=3)
        late = await p.service.accounts.register("latecomer", "correct horse battery")
        real_store = director_module.store_round

        async def join_first(*args, **kwargs):
            if not (await p.service.snapshot(tid)).player(late.id):
                await p.service.join(late, tid)  # between the director's snapshot and its write
            return await real_store(*args, **kwargs)

        monkeypatch.setattr(director_module, "store_round", join_first)
        p.clock.advance(1)
        for _ in range(3):
            await p.director.run_once()
        round_one = [x for x in await pairings(p.db, tid) if x.round == 1]
        seated = {u for x in round_one for u in (x.white_id, x.black_id) if u is not None}
        assert late.id in seated and len(seated) == 5  # four in games, one with the bye
        await p.close()

    asyncio.run(run())
