"""The Bot API's event stream lists the pending challenges when it opens, subscribed first so that nothing is
missed: a challenge made while the list is read is both listed and heard, and is sent once (a bot that
saw it twice answered it twice, and the second answer was refused as settled: seen with the scripted
lidraughts-bot in tests/server/test_lidraughts_client.py). A challenge made afterwards still arrives."""

from __future__ import annotations

import asyncio
import contextlib
from types import SimpleNamespace

from shashki.server.events import InProcessBus
from shashki.server.lidraughts.streams import Streams


class Lobby:
    def __init__(self, bus: InProcessBus) -> None:
        self.bus = bus
        self.challenges = {7: SimpleNamespace(id=7), 8: SimpleNamespace(id=8)}

    async def pending_challenges(self, user_id: int, incoming_only: bool) -> list:
        # Challenge 7 is made while the list is read: it is published, and it is in the list.
        await self.bus.publish(f"user:{user_id}", {"type": "challenge", "challenge": {"id": 7}})
        return [self.challenges[7]]

    async def challenge_by_id(self, challenge_id: int):
        return self.challenges.get(challenge_id)


class Games:
    async def ongoing(self, user_id: int) -> list:
        return []


class Views:
    async def challenge_json(self, challenge) -> dict:
        return {"id": challenge.id}


def test_a_challenge_made_while_the_stream_lists_the_pending_ones_is_sent_once():
    async def scenario():
        bus = InProcessBus()
        streams = Streams(
            Lobby(bus), bus, Games(), None, Views(),  # type: ignore[arg-type]
            keepalive_seconds=0.05, event_streams=10, game_streams=10,
        )  # fmt: skip
        user = SimpleNamespace(id=1)
        sent = []
        async with contextlib.aclosing(streams.events(user)) as events:  # type: ignore[arg-type]
            sent.append(await anext(events))
            sent.append(await anext(events))  # the duplicate would come here; a keepalive comes instead
            await bus.publish("user:1", {"type": "challenge", "challenge": {"id": 8}})
            sent.append(await anext(events))
        return sent

    sent = asyncio.run(scenario())
    challenge = [{"type": "challenge", "challenge": {"id": i}} for i in (7, 8)]
    assert sent == [challenge[0], None, challenge[1]]
