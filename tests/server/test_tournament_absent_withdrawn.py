"""A Swiss player who loses a game by forfeit (did not make their first move) is withdrawn with it, as
lichess's Swiss does ("the system will withdraw the player from the tournament, so they don't lose more
games"; found by an audit: they were paired every later round, even given the bye). A round robin keeps
its rule: the absent player stays in the table, and each game they do not start is lost by forfeit."""

from __future__ import annotations

import asyncio

from sqlalchemy import select

from shashki.server.tournaments.models import TournamentPlayer
from shashki.server.tournaments.terms import TournamentTerms

from .test_tournaments_director import pairings, process


async def _entries(p, tid: str) -> dict[int, TournamentPlayer]:
    async with p.db.session() as s:
        rows = await s.scalars(select(TournamentPlayer).where(TournamentPlayer.tournament_id == tid))
        return {e.user_id: e for e in rows}


async def _event(tmp_path, system: str, rounds: int | None):
    p = await process(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}")
    users = [await p.service.accounts.register(f"a{i}", "correct horse battery") for i in range(4)]
    terms = TournamentTerms("Absent", system, "russian-giveaway", 60, 0, starts_at=p.clock.now, rounds=rounds)
    tid = (await p.service.create(users[0], terms))["id"]
    for u in users:
        await p.service.join(u, tid)
    p.clock.advance(1)
    await p.director.run_once()
    return p, tid


async def _absent_in_round_1(p, tid: str) -> int:
    """White of round 1's first game does not start it (aborted, as the first-move timer does); the other
    game is played out. The absent player's id."""
    first, second = await pairings(p.db, tid, "started")
    await p.games.actions.abort_unstarted(first.game_id, 0)  # the first-move timer: White never moved
    await p.games.resign(second.white_id, second.game_id)
    for _ in range(100):
        if not await pairings(p.db, tid, "started"):
            return first.white_id
        await asyncio.sleep(0.02)
    raise AssertionError("the results were not recorded")


def test_a_swiss_player_who_forfeits_is_withdrawn_and_not_paired_again(tmp_path):
    async def run():
        p, tid = await _event(tmp_path, "swiss", 3)
        absent = await _absent_in_round_1(p, tid)
        entries = await _entries(p, tid)
        await p.director.run_once()  # round 2: three players, a game and the bye
        later = [x for x in await pairings(p.db, tid) if x.round == 2]
        standings = (await p.service.standings(tid))["players"]
        await p.close()
        return absent, entries, later, standings

    absent, entries, later, standings = asyncio.run(run())
    assert entries[absent].withdrawn and not entries[absent].paused
    assert sum(not e.withdrawn for e in entries.values()) == 3
    assert later and all(absent not in (x.white_id, x.black_id) for x in later), later
    assert sum(x.bye is not None for x in later) == 1
    row = next(r for r in standings if r["user_id"] == absent)
    assert row["withdrawn"] and row["score"] == 0  # the forfeit stays on their results


def test_a_round_robins_absent_player_stays_in_the_table(tmp_path):
    async def run():
        p, tid = await _event(tmp_path, "roundrobin", None)
        absent = await _absent_in_round_1(p, tid)
        entries = await _entries(p, tid)
        await p.director.run_once()
        later = [x for x in await pairings(p.db, tid) if x.round == 2]
        await p.close()
        return absent, entries, later

    absent, entries, later = asyncio.run(run())
    assert not entries[absent].withdrawn
    assert any(absent in (x.white_id, x.black_id) and x.status == "started" for x in later), later
