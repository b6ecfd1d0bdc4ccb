"""A socket's writes of one turn of the event loop go out in one system call
(shashki/server/http/coalesce.py), in the order they were made, before anything else done to the
transport; and `shashki serve`'s sockets use it."""

from __future__ import annotations

import asyncio

from hypothesis import given
from hypothesis import strategies as st

from shashki.server.http.coalesce import CoalescedWrites


class Recorder(asyncio.Transport):
    """A transport that records what is done to it."""

    def __init__(self) -> None:
        super().__init__()
        self.done: list[tuple[str, bytes | None]] = []
        self.closing = False

    def write(self, data) -> None:
        self.done.append(("write", bytes(data)))

    def is_closing(self) -> bool:
        return self.closing

    def close(self) -> None:
        self.closing = True
        self.done.append(("close", None))

    def abort(self) -> None:
        self.closing = True
        self.done.append(("abort", None))

    def pause_reading(self) -> None:
        self.done.append(("pause_reading", None))


def _turns(script):
    """Run `script(transport, coalesced)` in a loop; what reached the transport."""

    async def main():
        recorder = Recorder()
        await script(recorder, CoalescedWrites(recorder, asyncio.get_running_loop()))
        return recorder.done

    return asyncio.run(main())


def test_the_writes_of_one_turn_go_out_in_one_call_in_their_order():
    async def script(recorder, writes):
        writes.write(b"ack")
        writes.write(b"")  # nothing to send: no call for it
        writes.write(b"patch")
        assert recorder.done == []  # kept until the turn's callbacks have run
        await asyncio.sleep(0)
        writes.write(b"next turn")
        await asyncio.sleep(0)

    assert _turns(script) == [("write", b"ackpatch"), ("write", b"next turn")]


def test_a_write_made_by_a_task_woken_in_the_same_turn_joins_it():
    """The forwarding task woken by a publication writes in the turn after it; the ack, written right
    after the publication, waits for it there (the flush was scheduled after the task's wake-up)."""

    async def script(recorder, writes):
        woken = asyncio.Event()

        async def forward():
            await woken.wait()
            writes.write(b"patch")

        task = asyncio.create_task(forward())
        await asyncio.sleep(0)  # the task waits
        woken.set()  # the publication: the task's step is now due
        writes.write(b"ack")  # then the ack, in the same turn
        await task

    assert _turns(script) == [("write", b"ackpatch")]


def test_anything_else_done_to_the_transport_comes_after_the_writes_before_it():
    async def script(recorder, writes):
        writes.write(b"frame")
        writes.pause_reading()
        writes.write(b"close frame")
        writes.close()
        writes.write(b"too late")
        await asyncio.sleep(0)

    assert _turns(script) == [
        ("write", b"frame"),
        ("pause_reading", None),
        ("write", b"close frame"),
        ("close", None),
    ]


def test_an_aborted_connection_sends_nothing_more():
    async def script(recorder, writes):
        writes.write(b"frame")
        writes.abort()
        await asyncio.sleep(0)
        assert writes.is_closing()

    assert _turns(script) == [("abort", None)]


@given(st.lists(st.lists(st.binary(min_size=1, max_size=20), max_size=5), max_size=6))
def test_the_bytes_sent_are_the_bytes_written_in_order_one_call_a_turn(turns):
    async def script(recorder, writes):
        for turn in turns:
            for data in turn:
                writes.write(data)
            await asyncio.sleep(0)

    done = _turns(script)
    assert [data for _, data in done] == [b"".join(turn) for turn in turns if turn]


def test_the_servers_websocket_protocol_writes_through_it():
    from uvicorn.config import Config
    from uvicorn.server import ServerState

    from shashki.server.http.deflate import DeflateProtocol

    async def app(scope, receive, send):  # pragma: no cover - never called here
        pass

    async def script(recorder, writes):
        config = Config(app, ws=DeflateProtocol)
        config.load()
        protocol = DeflateProtocol(config=config, server_state=ServerState(), app_state={})
        protocol.connection_made(recorder)
        assert isinstance(protocol.transport, CoalescedWrites)
        protocol.transport.write(b"a frame")
        protocol.transport.write(b"another")
        await asyncio.sleep(0)
        protocol.connection_lost(None)

    assert _turns(script)[:1] == [("write", b"a frameanother")]
