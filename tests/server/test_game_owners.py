"""One owner per live game when several processes share Redis (games/owners.py): the process holding the
game's lease, and it alone, holds the game's timers — the flag, the first move, the computer's turn —
whichever process commits the changes. A process that commits a change of a game another one holds arms
nothing; the owner, hearing the change, arms its timers; a lease lost drops them, a lease taken over
arms them; a process that stops hands its games over at once, each to exactly one other. (The same with
real processes, one of them killed or stopped: tests/server/test_scaled_out.py.)"""

from __future__ import annotations

import asyncio
import os
import uuid

import pytest

from shashki.server.games.computer import RandomOpponent
from shashki.server.games.owners import GameOwners
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import RedisBus

from .test_game_parts import _service

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")

pytestmark = pytest.mark.skipif(not REDIS_URL, reason="needs SHASHKI_TEST_REDIS_URL (test-services.sh)")

MOVES = ["c3-d4", "f6-g5", "d4-c5", "b6:d4", "e3:c5"]  # Russian draughts, each legal after the ones before


class CountedOpponent(RandomOpponent):
    """A random mover that counts the moves it was asked for."""

    def __init__(self) -> None:
        super().__init__(seed=1)
        self.asked = 0

    async def choose(self, game, level, remaining_ms=None, increment_ms=0):
        self.asked += 1
        return await super().choose(game, level, remaining_ms, increment_ms)


async def _two_processes(tmp_path, *, lease_seconds: float = 10.0, count: int = 2):
    """Two (or `count`) game services on one database and one Redis, standing for as many processes."""
    db, one = await _service(tmp_path)
    await one.close()
    prefix = f"owners-{uuid.uuid4().hex[:8]}:"
    services = [
        GameService(
            db,
            RedisBus(REDIS_URL or "", prefix=prefix),
            engine=CountedOpponent(),
            computer_delay_seconds=0,
            game_lease_seconds=lease_seconds,
        )
        for _ in range(count)
    ]
    return db, services


async def _close(db, *services: GameService) -> None:
    for games in services:
        await games.close()
        await games.bus.close()
    await db.close()


async def _until(condition, seconds: float = 5.0) -> bool:
    for _ in range(int(seconds / 0.01)):
        if condition():
            return True
        await asyncio.sleep(0.01)
    return condition()


async def _lease(games: GameService, game_id: str) -> str | None:
    """The process named by the game's lease in Redis."""
    assert isinstance(games.bus, RedisBus) and isinstance(games.owners, GameOwners)
    owner = await games.bus.client.get(games.owners._key(game_id))
    return owner.decode() if owner is not None else None


def _ply(games: GameService, game_id: str) -> int:
    return games.store.cache.get(game_id).record.ply


def test_the_lease_holder_alone_holds_the_timers_whichever_process_commits(tmp_path):
    async def scenario():
        db, (one, other) = await _two_processes(tmp_path)
        live = await one.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        await other.store.live(live.id)
        await asyncio.sleep(0.2)  # both subscribed; the game's lease taken by the process that made it
        seen = []
        for ply, move in enumerate(MOVES):
            mover = (one, other)[ply % 2]  # White's socket is on one process, Black's on the other
            await mover.move(1 if ply % 2 == 0 else 2, live.id, move, ply=ply)
            heard = await _until(lambda n=ply + 1: _ply(one, live.id) == _ply(other, live.id) == n)
            await asyncio.sleep(0.05)  # a claim, had a process made one, would be answered by now
            lease = await _lease(one, live.id)
            seen.append(
                (
                    heard,
                    lease == one.owners.me,
                    (live.id in one.flags._timers) == (ply + 1 >= 2),  # the clocks run from the second move
                    live.id not in other.flags._timers,
                    not other.first_moves._timers,
                )
            )
        others = set(other.owners.others)
        await _close(db, one, other)
        return live.id, seen, others

    game_id, seen, others = asyncio.run(scenario())
    assert seen == [(True, True, True, True, True)] * len(MOVES), seen
    assert others == {game_id}  # the other process knows the game is held, and asks Redis nothing


def test_a_lease_taken_over_arms_the_timers_there_and_the_process_that_lost_it_drops_them(tmp_path):
    async def scenario():
        db, (one, other) = await _two_processes(tmp_path, lease_seconds=0.6)
        for games in (one, other):
            await games.owners.start()
        live = await one.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        await other.store.live(live.id)
        await asyncio.sleep(0.2)
        for ply, move in enumerate(MOVES[:3]):
            await (one, other)[ply % 2].move(1 if ply % 2 == 0 else 2, live.id, move, ply=ply)
        await _until(lambda: _ply(other, live.id) == _ply(one, live.id) == 3)
        held_before = (live.id in one.flags._timers, live.id in other.flags._timers)
        # The first process stalls (no renewal): its lease lapses, and the other's sweep takes the game.
        for task in one.owners._loops:
            task.cancel()
        taken = await _until(lambda: other.owners.taken_over == 1, 5)
        after_take = (live.id in other.flags._timers, await _lease(other, live.id) == other.owners.me)
        # The first process wakes: its next renewal finds the lease gone to another, and drops its timers.
        await one.owners.start()
        dropped = await _until(lambda: live.id not in one.flags._timers, 3)
        # A move committed on the process that lost the game is armed for by the new owner alone.
        deadline_before = other.flags._timers[live.id].when()
        await one.move(2, live.id, MOVES[3], ply=3)
        rearmed = await _until(lambda: other.flags._timers[live.id].when() != deadline_before)
        after_move = (live.id in one.flags._timers, live.id in other.flags._timers)
        await _close(db, one, other)
        return held_before, taken, after_take, dropped, rearmed, after_move

    held_before, taken, after_take, dropped, rearmed, after_move = asyncio.run(scenario())
    assert held_before == (True, False)
    assert taken and after_take == (True, True)
    assert dropped, "the process whose lease was taken over still holds the flag timer"
    assert rearmed and after_move == (False, True)


def test_the_computer_moves_on_the_process_that_owns_the_game_when_the_person_plays_on_another(tmp_path):
    async def scenario():
        db, (one, other) = await _two_processes(tmp_path)
        live = await one.create(white_id=1, black_id=None, computer_level=1)
        await other.store.live(live.id)
        await asyncio.sleep(0.2)
        await other.move(1, live.id, MOVES[0], ply=0)  # the person's socket is on the other process
        answered = await _until(lambda: _ply(one, live.id) == _ply(other, live.id) == 2)
        await asyncio.sleep(0.1)
        asked = (one.engine.asked, other.engine.asked)  # type: ignore[attr-defined]
        await _close(db, one, other)
        return answered, asked

    answered, asked = asyncio.run(scenario())
    assert answered
    assert asked == (1, 0)  # the owner's engine alone was asked, once


def test_a_process_that_stops_hands_each_of_its_games_to_exactly_one_other_at_once(tmp_path):
    """The stopping process releases its leases and names the games on the bus; the two others both hear
    it and race for each game (SET NX): one wins it, reads it and arms its flag — long before a sweep
    (every 10 s with a 30 s lease) would have found the lease free."""

    async def scenario():
        db, (one, *others) = await _two_processes(tmp_path, lease_seconds=30, count=3)
        for games in (one, *others):
            await games.owners.start()
        ids = []
        for _ in range(6):
            live = await one.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
            for ply, move in enumerate(MOVES[:2]):  # the clocks run from the second move: a flag is armed
                await one.move(1 if ply % 2 == 0 else 2, live.id, move, ply=ply)
            ids.append(live.id)
        armed_before = all(one.flags.holds(i) for i in ids) and not any(
            games.flags.holds(i) for games in others for i in ids
        )
        started = asyncio.get_running_loop().time()
        await one.owners.close()  # a clean stop's hand-over (GameService.hand_over)

        def each_taken_once() -> bool:
            return all(sum(games.flags.holds(i) for games in others) == 1 for i in ids)

        taken = await _until(each_taken_once, 5)
        took = asyncio.get_running_loop().time() - started
        await asyncio.sleep(0.2)  # a second claimant, were there one, would have armed by now
        holders = {}
        for i in ids:
            lease = await _lease(one, i)
            holders[i] = [
                (games.owners.me == lease, i in games.owners.owned, games.flags.holds(i)) for games in others
            ]
        counts = (one.owners.handed_over, sum(games.owners.taken_over for games in others))
        left_on_one = [i for i in ids if one.flags.holds(i) or i in one.owners.owned]
        await _close(db, one, *others)
        return armed_before, taken, took, holders, counts, left_on_one

    armed_before, taken, took, holders, counts, left_on_one = asyncio.run(scenario())
    assert armed_before
    assert taken, holders
    assert took < 2.0, took  # heard at once; the sweep would have taken up to 10 s
    for game_id, seen in holders.items():
        # Exactly one of the two others: named by the lease, holding the game and its flag timer.
        assert sorted(seen) == [(False, False, False), (True, True, True)], (game_id, seen)
    assert counts == (6, 6)
    assert left_on_one == []


def test_a_hand_over_heard_is_claimed_by_one_claimant_and_refused_to_the_other(tmp_path):
    """The claim itself: a released lease is taken by exactly one of two processes racing for it, and the
    one that lost knows the game is held (asks Redis nothing more for it)."""

    async def scenario():
        db, (one, other, third) = await _two_processes(tmp_path, lease_seconds=30, count=3)
        live = await one.create(white_id=1, black_id=2, terms=GameTerms(clock_initial_ms=60_000))
        assert await _until(lambda: live.id in one.owners.owned)  # its maker's claim answered
        await one.owners._let_go(live.id)  # released, as a stopping process does
        one.owners.owned.discard(live.id)
        results = await asyncio.gather(
            *(games.owners._take_handed_over([live.id], one.owners.me) for games in (other, third))
        )
        lease = await _lease(one, live.id)
        winner = other if other.owners.me == lease else third
        loser = third if winner is other else other
        seen = (
            sorted(results),
            live.id in winner.owners.owned,
            live.id in loser.owners.others,
            live.id not in loser.owners.owned,
        )
        await _close(db, one, other, third)
        return seen

    assert asyncio.run(scenario()) == ([0, 1], True, True, True)
