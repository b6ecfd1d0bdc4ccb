"""WebSocket compression for messages of at least THRESHOLD bytes only (shashki/server/http/deflate.py):
a client reads every message exactly as sent whatever mix of sizes and frames it gets, a small message
goes with RSV1 clear, a large one compressed; and `shashki serve` negotiates it with a real client."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st
from websockets.client import ClientProtocol
from websockets.extensions.permessage_deflate import ClientPerMessageDeflateFactory, PerMessageDeflate
from websockets.frames import Frame, Opcode
from websockets.server import ServerProtocol
from websockets.sync.client import connect
from websockets.uri import parse_uri

from shashki.server.http.deflate import THRESHOLD, ThresholdDeflate, ThresholdDeflateFactory


def _connected() -> tuple[ServerProtocol, ClientProtocol]:
    """A server and a client protocol in memory, handshake done, permessage-deflate agreed."""
    server = ServerProtocol(
        extensions=[ThresholdDeflateFactory(server_max_window_bits=12, client_max_window_bits=12)]
    )
    client = ClientProtocol(
        parse_uri("ws://example.test/ws"),
        extensions=[ClientPerMessageDeflateFactory(client_max_window_bits=True)],
    )
    client.send_request(client.connect())
    for data in client.data_to_send():
        server.receive_data(data)
    [request] = server.events_received()
    server.send_response(server.accept(request))
    for data in server.data_to_send():
        client.receive_data(data)
    client.events_received()
    assert [type(e) for e in server.extensions] == [ThresholdDeflate]
    return server, client


def _delivered(server: ServerProtocol, client: ClientProtocol) -> tuple[list[bool], list[Frame]]:
    """Whether each frame the server wrote had RSV1 set, and the frames the client read."""
    rsv1 = []
    for data in server.data_to_send():
        if data:
            rsv1.append(bool(data[0] & 0x40))
            client.receive_data(data)
    return rsv1, [e for e in client.events_received() if isinstance(e, Frame)]


def test_a_small_message_goes_uncompressed_and_a_large_one_compressed():
    server, client = _connected()
    small, large = "x" * (THRESHOLD - 1), json.dumps({"moves": ["c3-d4"] * 400})
    assert len(large) >= THRESHOLD
    server.send_text(small.encode())
    server.send_text(large.encode())
    rsv1, frames = _delivered(server, client)
    assert rsv1 == [False, True]
    assert [f.data.decode() for f in frames] == [small, large]


def test_control_frames_are_never_compressed():
    server, client = _connected()
    server.send_ping(b"x" * 100)
    rsv1, frames = _delivered(server, client)
    assert rsv1 == [False] and frames[0].opcode is Opcode.PING


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.text(max_size=3 * THRESHOLD), st.integers(min_value=1, max_value=3)),
        min_size=1,
        max_size=12,
    )
)
def test_the_client_reads_every_message_as_sent_whatever_the_sizes_and_frames(messages):
    """Compressed and uncompressed messages, whole or in several frames, interleaved on one context."""
    server, client = _connected()
    for text, parts in messages:
        data = text.encode()
        cuts = [len(data) * i // parts for i in range(parts + 1)]
        pieces = [data[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
        rsv1_expected = parts > 1 or len(data) >= THRESHOLD
        if parts == 1:
            server.send_text(data)
        else:
            server.send_text(pieces[0], fin=False)
            for i, piece in enumerate(pieces[1:], start=2):
                server.send_continuation(piece, fin=i == parts)
        rsv1, frames = _delivered(server, client)
        assert rsv1[0] is rsv1_expected
        assert not any(rsv1[1:])  # RFC 7692: only a message's first frame carries RSV1
        assert b"".join(f.data for f in frames).decode() == text


class _Recording(PerMessageDeflate):
    """The client's side, noting each data frame received: (compressed?, length of its text)."""

    seen: list[tuple[bool, int]]

    def decode(self, frame: Frame, *, max_size: int | None = None) -> Frame:
        decoded = super().decode(frame, max_size=max_size)
        if frame.opcode is Opcode.TEXT:
            self.seen.append((frame.rsv1, len(decoded.data)))
        return decoded


class _RecordingFactory(ClientPerMessageDeflateFactory):
    def __init__(self) -> None:
        super().__init__(client_max_window_bits=True)
        self.extension: _Recording | None = None

    def process_response_params(self, params, accepted_extensions):
        agreed = super().process_response_params(params, accepted_extensions)
        self.extension = _Recording(
            agreed.remote_no_context_takeover,
            agreed.local_no_context_takeover,
            agreed.remote_max_window_bits,
            agreed.local_max_window_bits,
            agreed.compress_settings,
        )
        self.extension.seen = []
        return self.extension


def test_the_server_compresses_a_game_socket_large_state_but_not_its_small_messages(server, players):
    white, black = players(), players()
    game = white.challenge(black)
    factory = _RecordingFactory()
    cookie = white.http.cookies.get("shashki_session")
    theirs = black.socket(game["id"])
    with connect(
        f"{server.ws_url}/ws/games/{game['id']}",
        additional_headers={"Cookie": f"shashki_session={cookie}"},
        extensions=[factory],
        open_timeout=5,
    ) as ws:

        def until(kind: str) -> dict:
            while (message := json.loads(ws.recv(timeout=5)))["type"] != kind:
                pass
            return message

        state = until("state")["game"]
        for ply in range(0, 8, 2):  # white's moves on the recorded socket, black's on a plain one
            move = state["legal_moves"][0]["move"]
            ws.send(json.dumps({"type": "move", "move": move, "ply": ply, "id": ply}))
            assert until("ack")["ply"] == ply + 1
            reply = theirs.wait_state(lambda g, ply=ply: g["ply"] == ply + 1)["legal_moves"][0]["move"]
            assert theirs.move(reply)["type"] == "ack"
            ws.send(json.dumps({"type": "resync"}))  # the whole state again, a little longer each time
            state = until("state")["game"]
    theirs.close()
    assert factory.extension is not None, "permessage-deflate was not agreed"
    seen = factory.extension.seen
    assert all(compressed is (size >= THRESHOLD) for compressed, size in seen), seen
    assert any(compressed for compressed, _ in seen), seen  # a whole state, by now over the threshold
    assert any(not compressed for compressed, _ in seen), seen  # acks and patches
