"""With several server processes, each applies the changes the others publish to the games it caches, as
they are heard (games/follow.py, issue 11): the players of a game on two processes play it through without
either process reading the game again — its version once, to know the copy current, then nothing — and an
end decided on the other process takes the game out of the cache. A change that is not the next one, or
comes while this process is changing the game, or events lost, void that: the version is read before the
next action and what was missed caught up from the database. A change made elsewhere and not heard yet
is refused by the compare-and-set, never written over. The servers' part of an event crosses Redis beside
the text the clients get."""

from __future__ import annotations

import asyncio
import os
import random
import uuid
from datetime import UTC, datetime

import pytest
from sqlalchemy import event

from shashki.server.events import Encoded, InProcessBus
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.follow import apply_heard, change_for_servers
from shashki.server.games.models import GameStatus
from shashki.server.games.service import GameService
from shashki.server.games.terms import GameTerms
from shashki.server.redisbus import RedisBus, _event, _payload

from .test_game_parts import _service

REDIS_URL = os.environ.get("SHASHKI_TEST_REDIS_URL")
COLUMNS = ("version", "ply", "white_ms", "black_ms", "turn_started_at", "status", "draw_offer", "winner")


def _columns(games: GameService, game_id: str) -> tuple:
    live = games.store.cache.get(game_id)
    return tuple(getattr(live.record, name) for name in COLUMNS) + (live.rules.position,)


async def _two_processes(tmp_path, bus_of=None):
    """Two game services on one database, standing for two processes whose events are shared."""
    db, one = await _service(tmp_path)
    await one.close()
    buses = bus_of() if bus_of else (InProcessBus(),) * 2
    services = []
    for bus in buses:
        games = GameService(db, bus, engine=RandomOpponent(seed=1), computer_delay_seconds=0)
        games.store.bus.shared = True  # type: ignore[misc]
        services.append(games)
    return db, services


async def _held_by_both(tmp_path, **terms):
    """Two processes, a game made on the first, and the second process's copy of it, both listening."""
    db, (one, other) = await _two_processes(tmp_path)
    live = await one.create(white_id=1, black_id=2, terms=GameTerms(**terms))
    copy = await other.store.live(live.id)
    await asyncio.sleep(0)
    return db, one, other, live, copy


async def _close(db, *services) -> None:
    for games in services:
        await games.close()
    await db.close()


async def _play(services, live_id, state, plies, rng, after_each=None):
    states = []
    for ply in range(plies):
        if state["status"] != "started":
            break
        mover = services[ply % 2]  # each player's socket is on its own process
        user = 1 if state["side_to_move"] == "white" else 2
        move = rng.choice(state["legal_moves"])["move"]
        state = await mover.move(user, live_id, move, ply=state["ply"])
        states.append(state)
        await asyncio.sleep(0)  # the listeners take what was published, before the next player answers
        if after_each:
            await after_each()
    return states


def test_two_processes_play_a_game_through_on_the_changes_they_hear_without_reading_it_again(tmp_path):
    rng = random.Random(5)

    async def scenario():
        db, one, other, live, _ = await _held_by_both(tmp_path, clock_initial_ms=300_000)
        seen: list[str] = []  # what goes through SQLAlchemy: loading and catching up
        event.listen(db.engine.sync_engine, "before_cursor_execute", lambda *a: seen.append(a[2]))
        versions = []  # the version checks, on the direct path
        scalar = db.direct.scalar

        async def counted(read):
            versions.append(read.column)
            return await scalar(read)

        db.direct.scalar = counted  # type: ignore[method-assign]
        agree = []

        async def compare():
            await asyncio.sleep(0)  # the followers run
            agree.append(_columns(one, live.id) == _columns(other, live.id))

        states = await _play((one, other), live.id, one.state(live), 30, rng, compare)
        offered = await other.offer_draw(2, live.id)  # a change without a move, heard by the first
        await asyncio.sleep(0)
        heard_offer = one.store.cache.get(live.id).record.draw_offer
        ended = await one.resign(1, live.id)
        await asyncio.sleep(0)
        cached = (one.store.cached, other.store.cached, len(one.store.cache.followers),
                  len(other.store.cache.followers))
        applied = one.store.cache.followers.applied + other.store.cache.followers.applied
        reads = [" ".join(s.split()) for s in seen if s.lstrip().upper().startswith("SELECT")]
        await _close(db, one, other)
        return states, agree, offered, heard_offer, ended, cached, applied, reads, versions

    states, agree, offered, heard_offer, ended, cached, applied, reads, versions = asyncio.run(scenario())
    assert len(states) >= 10 and all(agree)
    assert offered["draw_offer"] == "black" and heard_offer is not None and heard_offer.value == "black"
    assert ended["status"] == "finished" and ended["winner"] == "black"
    assert cached == (0, 0, 0, 0)  # the end heard took the game out of the other process's cache too
    assert applied == len(states) + 2  # every change was applied where it was heard
    # Each process read the game's version once, before its first action, to know its copy current; from
    # then on it acted on what it heard: the game's record and moves were never read.
    assert versions == ["version"] * 2 and reads == []


def test_a_change_that_is_not_the_next_one_is_left_to_the_version_check_and_caught_up(tmp_path):
    rng = random.Random(7)

    async def scenario():
        db, one, other, live, copy = await _held_by_both(tmp_path)
        other.store.cache.followers.stop(live.id)  # the second process hears nothing now (a lost connection)
        await _play((one, one), live.id, one.state(live), 3, rng)  # three changes it did not hear
        missed = copy.record.version
        late = Encoded({"type": "state", "seq": 99}, servers=change_for_servers({"version": 99}, None))
        not_next = apply_heard(copy, late)
        async with copy.lock:  # this process is itself changing the game: nothing is applied under it
            locked = apply_heard(copy, late)
        state = await other.get_state(live.id)  # the version check catches up from the database
        caught = _columns(other, live.id) == _columns(one, live.id)
        await _close(db, one, other)
        return missed, not_next, locked, state, caught

    missed, not_next, locked, state, caught = asyncio.run(scenario())
    assert missed == 1 and not not_next and not locked
    assert state["ply"] == 3 and caught


def test_a_copy_is_in_doubt_after_a_change_it_missed_lost_events_or_one_not_yet_taken(tmp_path):
    rng = random.Random(9)

    async def scenario():
        db, one, other, live, copy = await _held_by_both(tmp_path)
        states = await _play((one, other), live.id, one.state(live), 2, rng)
        await asyncio.sleep(0)  # the process's own change, heard back, is taken
        following = other.store.cache.followers
        steps = {"current after a read": following.current(copy)}
        # A change heard while this process holds the game's lock is not applied: the copy is in doubt.
        async with copy.lock:
            await _play((one,), live.id, states[-1], 1, rng)
            await asyncio.sleep(0)
        steps["current after a missed change"] = following.current(copy)
        await other.get_state(live.id)  # read, caught up, confirmed
        stored = one.store.cache.get(live.id).record
        steps["caught up"] = (copy.record.version, copy.record.ply) == (stored.version, 3)
        steps["current again"] = following.current(copy)
        events = following._games[live.id].events
        assert events is not None
        events.put({"type": "state", "seq": stored.version + 1})  # heard, not taken by the follower yet
        steps["current with an event waiting"] = following.current(copy)
        await asyncio.sleep(0)
        await other.get_state(live.id)
        steps["current once it is taken and read"] = following.current(copy)
        events.dropped += 1  # events lost (a reconnection of the bus)
        steps["current with events lost"] = following.current(copy)
        await _close(db, one, other)
        return steps

    steps = asyncio.run(scenario())
    assert steps == {
        "current after a read": True,
        "current after a missed change": False,
        "caught up": True,
        "current again": True,
        "current with an event waiting": False,
        "current once it is taken and read": True,
        "current with events lost": False,
    }


def test_a_change_not_heard_yet_never_turns_a_legal_action_into_a_refusal(tmp_path):
    """The other process misses a move entirely (its listener hears nothing): a move sent to it without a
    ply (the Bot API's) is refused on its copy, then checked against the stored game and played; one that
    names a later ply than its copy (the game socket's) reads the stored game first; and a resync always
    does."""
    rng = random.Random(13)

    async def scenario():
        db, one, other, live, copy = await _held_by_both(tmp_path)
        state = (await _play((one, other), live.id, one.state(live), 2, rng))[-1]
        await asyncio.sleep(0)
        following = other.store.cache.followers
        bus = other.store.bus

        def deafen():
            # The listener of the second process stays, but hears no more (as if a publish were lost).
            bus._listeners[f"game:{live.id}"].discard(following._games[live.id].events)

        deafen()
        state = (await _play((one,), live.id, state, 1, rng))[-1]  # white's move, on the first process
        trusted_before = following.current(copy) and copy.record.ply == 2
        def mover(state: dict) -> int:
            return 1 if state["side_to_move"] == "white" else 2

        no_ply = await other.move(mover(state), live.id, rng.choice(state["legal_moves"])["move"])
        await asyncio.sleep(0)
        deafen()
        state = (await _play((one,), live.id, no_ply, 1, rng))[-1]
        move = rng.choice(state["legal_moves"])["move"]
        with_ply = await other.move(mover(state), live.id, move, ply=state["ply"])
        await asyncio.sleep(0)
        deafen()
        state = (await _play((one,), live.id, with_ply, 1, rng))[-1]
        resync = await other.get_state(live.id)
        await _close(db, one, other)
        return trusted_before, no_ply, with_ply, state, resync

    trusted_before, no_ply, with_ply, state, resync = asyncio.run(scenario())
    assert trusted_before  # the copy was trusted, and a ply behind
    assert no_ply["ply"] == 4 and with_ply["ply"] == 6
    assert resync["ply"] == state["ply"] == 7 and resync["moves"] == state["moves"]


def test_the_servers_part_of_an_event_crosses_redis_beside_the_text_the_clients_get():
    at = datetime(2026, 12, 3, 10, 30, tzinfo=UTC)
    part = change_for_servers({"version": 4, "turn_started_at": at, "status": GameStatus.FINISHED}, "c3-d4")
    sent = Encoded({"type": "state", "seq": 4, "game": {"chat": "two\nlines"}}, servers=part)
    received = _event(_payload(sent).encode())
    assert received == sent and received.text == sent.text  # what the sockets send on, unchanged
    assert "servers" not in received.text and received.servers == part
    assert part["changes"]["turn_started_at"] == at.isoformat() and part["changes"]["status"] == "finished"
    plain = _event(_payload({"type": "lobby"}).encode())
    assert plain == {"type": "lobby"} and plain.servers is None


@pytest.mark.skipif(not REDIS_URL, reason="needs SHASHKI_TEST_REDIS_URL (test-services.sh)")
def test_two_processes_on_redis_apply_each_others_changes(tmp_path):
    rng = random.Random(11)
    prefix = f"follow-{uuid.uuid4().hex[:8]}:"

    async def scenario():
        db, services = await _two_processes(
            tmp_path, lambda: tuple(RedisBus(REDIS_URL, prefix=prefix) for _ in range(2))
        )
        one, other = services
        live = await one.create(white_id=1, black_id=2)
        await other.store.live(live.id)
        await asyncio.sleep(0.2)  # both subscribed

        async def heard():
            for _ in range(100):  # Redis delivers in a moment
                if _columns(one, live.id)[0] == _columns(other, live.id)[0]:
                    return
                await asyncio.sleep(0.01)

        states = await _play((one, other), live.id, one.state(live), 12, rng, heard)
        applied = (one.store.cache.followers.applied, other.store.cache.followers.applied)
        agree = _columns(one, live.id) == _columns(other, live.id)
        await _close(db, one, other)
        return states, applied, agree

    states, applied, agree = asyncio.run(scenario())
    assert len(states) == 12 and agree
    assert applied == (6, 6)  # each process applied the other's moves as heard
