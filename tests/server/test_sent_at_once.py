"""A game socket's messages sent as they are published, without a task's turn (issue 11): the server's
WebSocket protocol sends a text at once when nothing stands in the way (`DeflateProtocol.send_text_now`),
a subscription hands an event to its listener as it is put when nothing is queued before it, and a
socket's own action is answered before what it published reaches that socket."""

from __future__ import annotations

import asyncio

import pytest
from starlette.websockets import WebSocketState

from shashki.server.events import Subscription
from shashki.server.http.deflate import SEND_NOW
from shashki.server.http.sender import Sender

# -- the subscription -------------------------------------------------------------------------------


def test_an_event_taken_as_it_is_put_is_not_queued():
    subscription = Subscription()
    taken: list[dict] = []
    subscription.deliver = lambda event: taken.append(event) or True
    subscription.put({"n": 1})
    assert taken == [{"n": 1}] and subscription.pending == 0


def test_an_event_refused_by_the_listener_is_queued_and_later_ones_wait_behind_it():
    subscription = Subscription()
    asked: list[dict] = []
    answers = iter([False, True, True])
    subscription.deliver = lambda event: asked.append(event) or next(answers)
    subscription.put({"n": 1})  # refused: queued
    subscription.put({"n": 2})  # not asked: something is queued before it
    assert asked == [{"n": 1}] and subscription.pending == 2

    async def drain():
        return [await subscription.get(), await subscription.get()]

    assert asyncio.run(drain()) == [{"n": 1}, {"n": 2}]
    subscription.put({"n": 3})  # nothing queued now: asked again
    assert asked == [{"n": 1}, {"n": 3}] and subscription.pending == 0


def test_a_listener_that_fails_leaves_the_event_queued():
    subscription = Subscription()

    def broken(event: dict) -> bool:
        raise RuntimeError("boom")

    subscription.deliver = broken
    subscription.put({"n": 1})
    assert subscription.pending == 1


# -- the sender -------------------------------------------------------------------------------------


class FakeSocket:
    """A WebSocket whose server offers (or not) a send without awaiting; both kinds of sends recorded in
    one list, in the order they reached the socket."""

    def __init__(self, offered: bool = True) -> None:
        self.sent: list[tuple[str, str]] = []
        self.application_state = WebSocketState.CONNECTED
        self.open_now = True  # whether the send without awaiting may send
        self.gate: asyncio.Event | None = None  # when set, an awaited send waits for it
        extensions = {SEND_NOW: {"text": self._now}} if offered else {}
        self.scope = {"type": "websocket", "extensions": extensions}

    def _now(self, text: str) -> bool:
        if not self.open_now:
            return False
        self.sent.append(("now", text))
        return True

    async def send_text(self, text: str) -> None:
        if self.gate is not None:
            await self.gate.wait()
        self.sent.append(("awaited", text))


def test_a_text_goes_out_at_once_when_the_server_offers_it():
    socket = FakeSocket()
    asyncio.run(Sender(socket).text("a"))  # type: ignore[arg-type]
    assert socket.sent == [("now", "a")]


def test_without_the_offer_or_when_the_socket_cannot_take_it_now_the_send_is_awaited():
    plain = FakeSocket(offered=False)
    asyncio.run(Sender(plain).text("a"))  # type: ignore[arg-type]
    assert plain.sent == [("awaited", "a")]
    paused = FakeSocket()
    paused.open_now = False  # e.g. the transport asked to stop writing
    asyncio.run(Sender(paused).text("b"))  # type: ignore[arg-type]
    assert paused.sent == [("awaited", "b")]
    closed = FakeSocket()
    closed.application_state = WebSocketState.DISCONNECTED
    sender = Sender(closed)  # type: ignore[arg-type]
    assert not sender.now("c") and closed.sent == []


def test_a_text_never_overtakes_one_waiting_to_be_sent():
    async def main() -> list[tuple[str, str]]:
        socket = FakeSocket()
        send = Sender(socket)  # type: ignore[arg-type]
        socket.open_now = False
        socket.gate = asyncio.Event()
        first = asyncio.create_task(send.text("first"))
        await asyncio.sleep(0)  # `first` waits on the socket
        socket.open_now = True
        second = asyncio.create_task(send.text("second"))
        await asyncio.sleep(0)
        assert not send.now("third")  # something is on its way: not now
        socket.gate.set()
        await asyncio.gather(first, second)
        await send.text("fourth")  # nothing waits any more: at once
        return socket.sent

    assert asyncio.run(main()) == [
        ("awaited", "first"),
        ("awaited", "second"),
        ("now", "fourth"),
    ]


def test_what_is_delivered_during_an_action_follows_its_answer_in_order():
    async def main() -> list[tuple[str, str]]:
        socket = FakeSocket()
        send = Sender(socket)  # type: ignore[arg-type]
        assert send.deliver("before")  # no action under way: sent now
        send.hold()
        assert send.deliver("patch 1") and send.deliver("patch 2")  # kept
        await send.text("ack")  # the action's answer goes out at once
        await send.release()
        assert send.deliver("after")  # sent now again
        return socket.sent

    assert [text for _, text in asyncio.run(main())] == ["before", "ack", "patch 1", "patch 2", "after"]


# -- the server's protocol --------------------------------------------------------------------------


def test_the_protocol_sends_at_once_only_on_an_open_socket():
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from shashki.server.http.deflate import DeflateProtocol

    async def app(scope, receive, send):  # pragma: no cover - never called here
        pass

    async def main() -> None:
        config = Config(app, ws=DeflateProtocol)
        config.load()
        protocol = DeflateProtocol(config=config, server_state=ServerState(), app_state={})
        assert not protocol.send_text_now("before the handshake")
        protocol.handshake_complete = True  # as after the app's accept
        protocol.pause_writing()
        assert not protocol.send_text_now("the transport asked to stop writing")
        protocol.resume_writing()
        protocol.close_sent = True
        assert not protocol.send_text_now("after the close")

    asyncio.run(main())


# -- a real server ----------------------------------------------------------------------------------


@pytest.mark.parametrize("spectating", [False, True])
def test_a_movers_ack_comes_before_the_state_it_made_and_every_socket_gets_every_change(
    server, players, spectating
):
    white, black = players(), players()
    game = white.challenge(black)
    mine, theirs = white.socket(game["id"]), black.socket(game["id"])
    watcher = players().socket(game["id"]) if spectating else None
    sockets = {"white": mine, "black": theirs}
    for ply in range(10):
        mover = sockets["white" if ply % 2 == 0 else "black"]
        other = sockets["black" if ply % 2 == 0 else "white"]
        mover.wait_state(lambda g, ply=ply: g["ply"] == ply)
        answer = mover.move(mover.state["legal_moves"][0]["move"], ply=ply)
        assert answer["type"] == "ack" and answer["ply"] == ply + 1, answer
        # The ack came first: the mover still holds the state before its move, the new one follows.
        assert mover.state["ply"] == ply, (mover.kinds, mover.state["ply"])
        changed = mover.wait(lambda m: m.get("type") == "state")
        assert changed["game"]["ply"] == ply + 1 and changed["seq"] == answer["seq"]
        other.wait_state(lambda g, ply=ply: g["ply"] == ply + 1)
        if watcher is not None:
            watcher.wait_state(lambda g, ply=ply: g["ply"] == ply + 1)
    # Each socket was sent every state in turn (the helper checks that each patch follows the state
    # held): after its first state, only patches.
    for socket in (mine, theirs, *([watcher] if watcher else [])):
        states = [kind for kind in socket.kinds if kind in ("state", "patch")]
        assert states[0] == "state" and set(states[1:]) == {"patch"}, socket.kinds
        socket.close()
