"""A publish that fails after a commit never turns the committed change into an error (events.AfterCommit):
it is retried in the background, a bounded number of times, and the listeners are told all the same."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

import pytest

import shashki.server.events as events_module
from shashki.server.accounts.models import User
from shashki.server.events import InProcessBus
from shashki.server.games.computer import RandomOpponent
from shashki.server.games.service import GameService
from shashki.server.storage import Database

NOW = datetime(2026, 1, 1, tzinfo=UTC)


class FlakyBus(InProcessBus):
    """An in-process bus whose publishes on `game:` channels fail while `failures` lasts."""

    def __init__(self) -> None:
        super().__init__()
        self.failures = 0
        self.attempts = 0

    async def publish(self, channel: str, event: dict) -> None:
        if channel.startswith("game:"):
            self.attempts += 1
            if self.failures:
                self.failures -= 1
                raise ConnectionError("Redis went away")
        await super().publish(channel, event)


@pytest.fixture(autouse=True)
def quick_retries(monkeypatch):
    monkeypatch.setattr(events_module, "PUBLISH_RETRIES", (0.01, 0.02, 0.03))


async def _service(tmp_path, bus: FlakyBus) -> tuple[Database, GameService]:
    db = await Database(f"sqlite+aiosqlite:///{tmp_path / 'db.sqlite3'}").open()
    async with db.session() as s:
        for user_id, name in ((1, "Anna"), (2, "Boris")):
            key = name.lower()
            s.add(User(id=user_id, username=name, username_key=key, password_hash="-", created_at=NOW))
        await s.commit()
    return db, GameService(db, bus, engine=RandomOpponent(seed=1), computer_delay_seconds=0)


def test_a_move_whose_publish_fails_once_is_acknowledged_and_its_state_delivered_by_the_retry(tmp_path):
    heard: list[int] = []

    async def scenario():
        bus = FlakyBus()
        db, games = await _service(tmp_path, bus)
        live = await games.create(white_id=1, black_id=2)
        games.store.add_listener(lambda g: heard.append(g.record.version))
        async with bus.subscribe(f"game:{live.id}") as events:
            bus.failures = 1
            state = await games.move(1, live.id, live.rules.position.parse_move("c3-d4"), ply=0)
            delivered = await asyncio.wait_for(events.get(), 2)
        stored = await games.record(live.id)
        await games.close()
        await db.close()
        return state, delivered, stored, bus.attempts

    state, delivered, stored, attempts = asyncio.run(scenario())
    assert state["moves"] == ["c3-d4"] and state["seq"] == 2  # the mover's answer: the move stands
    assert stored.ply == 1 and stored.version == 2  # committed
    assert heard == [2]  # the listeners (flag timer, computer) were told despite the failure
    assert delivered["type"] == "state" and delivered["seq"] == 2 and delivered["game"]["moves"] == ["c3-d4"]
    assert attempts == 2


def test_a_publish_that_keeps_failing_is_given_up_after_the_bounded_retries(tmp_path):
    async def scenario():
        bus = FlakyBus()
        db, games = await _service(tmp_path, bus)
        live = await games.create(white_id=1, black_id=2)
        bus.failures = 100
        state = await games.move(1, live.id, live.rules.position.parse_move("c3-d4"), ply=0)
        await asyncio.sleep(0.3)
        attempts, pending = bus.attempts, len(games.store.published.retries)
        bus.failures = 0
        second = await games.move(2, live.id, live.rules.position.parse_move("f6-g5"), ply=1)
        await games.close()
        await db.close()
        return state, attempts, pending, second

    state, attempts, pending, second = asyncio.run(scenario())
    assert state["seq"] == 2
    assert attempts == 1 + len(events_module.PUBLISH_RETRIES)
    assert pending == 0
    assert second["seq"] == 3 and second["moves"] == ["c3-d4", "f6-g5"]  # the game goes on
