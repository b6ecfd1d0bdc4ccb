"""DXP (DamExchange): the engine as Follower and as Initiator against a scripted peer on loopback, the
messages laid out as the protocol says, the opponent's moves checked by the rules, and (slow) a game
against pydraughts' DXP client."""

from __future__ import annotations

import socket
import struct
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from shashki.engine.dxp import (
    Connection,
    DxpPlayer,
    dxp_board,
    follow,
    initiate,
    msg_gamereq,
    msg_move,
    parse_dxp_board,
    parse_message,
)
from shashki.engine.engine import Engine
from shashki.engine.search import Limit
from shashki.rules import Color, Game, Position, get_variant

INTERNATIONAL = get_variant("international")
FAST = Limit(depth=2)


def test_messages_have_the_layout_of_the_protocol():
    req = msg_gamereq(Color.WHITE, 10, 75)
    assert req == "R01" + "Shashki".ljust(32) + "W010075A"
    parsed = parse_message(req)
    assert (parsed.kind, parsed.version, parsed.color, parsed.minutes, parsed.moves) == (
        "R", "01", Color.WHITE, 10, 75
    )
    # The protocol's own example: 5 x 25 taking 22, 12, 23 and 20, after 12 seconds.
    move = parse_message("M001205250422122320")
    assert move.kind == "M" and move.seconds == 12 and move.squares == (5, 25, 22, 12, 23, 20)
    assert parse_message("ATornado voor Windows 4.0        0").name == "Tornado voor Windows 4.0"
    assert parse_message("E00").kind == "E" and parse_message("B005Z").color is Color.BLACK


def test_a_capture_move_lists_its_captured_squares():
    pos = Position.from_fen("W:W28:B22,23,12,13", INTERNATIONAL)
    move = pos.legal_moves()[0]
    text = msg_move(move, INTERNATIONAL, 3.7)
    assert text.startswith("M0003")
    parsed = parse_message(text)
    bits = [INTERNATIONAL.board.bit_of_number(n) for n in parsed.squares]
    assert pos.move_by_path(bits[:2], bits[2:]) is move


def test_a_position_round_trips_through_gamereq():
    pos = Position.from_fen("B:W31-33,K48:BK1-3,20", INTERNATIONAL)
    req = parse_message(msg_gamereq(Color.BLACK, 5, 0, pos))
    assert req.board is not None and req.board.startswith("Z")
    assert parse_dxp_board(req.board, INTERNATIONAL) == pos
    assert len(dxp_board(pos)) == 50


class Peer:
    """The test's side of a DXP connection: sends and receives raw messages."""

    def __init__(self, sock: socket.socket) -> None:
        self.conn = Connection(sock)
        sock.settimeout(20)

    def send(self, text: str) -> None:
        self.conn.send(text)

    def receive(self) -> str:
        text = self.conn.receive()
        assert text is not None, "the engine closed the connection"
        return text

    def expect(self, kind: str) -> str:
        while True:
            text = self.receive()
            if text[0] != "C":
                assert text[0] == kind, text
                return text


def engine_move(game: Game, text: str) -> None:
    """Play on `game` the move a MOVE message names; fails if it is not legal."""
    message = parse_message(text)
    board = game.variant.board
    bits = [board.bit_of_number(n) for n in message.squares]
    game.play(game.position.move_by_path(bits[:2], bits[2:]))


def our_move(game: Game) -> str:
    """The peer's move: a capture when there is one (the rules make it compulsory), else the first."""
    move = game.legal_moves()[0]
    game.play(move)
    return msg_move(move, game.variant)


@pytest.fixture
def follower():
    """The engine as Follower on a free loopback port, in a thread; yields a connected Peer."""
    ports: list[int] = []
    ready = threading.Event()

    def on_ready(port: int) -> None:
        ports.append(port)
        ready.set()

    thread = threading.Thread(
        target=follow, kwargs={"port": 0, "once": True, "ready": on_ready, "limit": FAST},
        daemon=True,
    )
    thread.start()
    assert ready.wait(10)
    sock = socket.create_connection(("127.0.0.1", ports[0]), timeout=10)
    yield Peer(sock)
    sock.close()
    thread.join(10)
    assert not thread.is_alive()


def test_follower_accepts_a_game_and_plays_legal_moves_until_gameend(follower):
    follower.send(msg_gamereq(Color.WHITE, 10, 0, name="Scripted peer"))  # the engine is White
    accept = parse_message(follower.expect("A"))
    assert accept.code == 0 and accept.name == "Shashki"
    game = Game(INTERNATIONAL)
    for ply in range(12):
        engine_move(game, follower.expect("M"))
        if game.is_over or ply == 11:
            break
        follower.send(our_move(game))
    assert game.ply >= 12 or game.is_over
    follower.send("E00")  # on our turn, instead of a move
    assert follower.expect("E") == "E00"
    follower.send("E01")  # no next game: the Follower hangs up (stop code 1)


def test_follower_answers_a_wrong_version_and_an_impossible_position():
    ports: list[int] = []
    ready = threading.Event()
    thread = threading.Thread(
        target=follow,
        kwargs={"port": 0, "once": True, "ready": lambda p: (ports.append(p), ready.set()), "limit": FAST},
        daemon=True,
    )
    thread.start()
    assert ready.wait(10)
    with socket.create_connection(("127.0.0.1", ports[0]), timeout=10) as sock:
        peer = Peer(sock)
        peer.send("R02" + msg_gamereq(Color.WHITE, 10, 0)[3:])
        assert parse_message(peer.expect("A")).code == 1
        blocked = Position.from_fen("W:W:B1", INTERNATIONAL)  # White to move with no piece
        peer.send(msg_gamereq(Color.BLACK, 10, 0, blocked))
        assert parse_message(peer.expect("A")).code == 2
    thread.join(10)


def test_follower_refuses_an_illegal_move_with_a_reason_and_ends_the_game(follower):
    follower.send(msg_gamereq(Color.BLACK, 10, 0))  # the engine is Black: we move first
    follower.expect("A")
    follower.send("M00003126" + "00")  # 31-26 is legal; then 31-27 again is not
    game = Game(INTERNATIONAL)
    game.play("31-26")
    engine_move(game, follower.expect("M"))
    follower.send("M0000312700")
    chat = follower.receive()
    assert chat.startswith("C") and "31" in chat
    assert follower.expect("E") == "E00"
    follower.send("E00")
    follower.send("E01")


@pytest.mark.parametrize(
    "move",
    [
        "M0001440000",  # square 0, which would be read as 50 (44-50 is a king's move here)
        "M000139-700",  # square -7, which would be read as 43
        "M00014450-1",  # a capture count below 0 on the quiet move 44-50
        "M0001445001",  # one capture announced, none listed
    ],
)
def test_follower_refuses_squares_off_the_board_and_a_wrong_capture_count_as_illegal_moves(follower, move):
    start = Position.from_fen("W:WK44,K39:B1", INTERNATIONAL)  # 44-50 and 39-43 are legal
    follower.send(msg_gamereq(Color.BLACK, 10, 0, start))  # the peer is White, to move
    follower.expect("A")
    follower.send(move)
    chat = follower.receive()
    assert chat.startswith("C") and "illegal move" in chat, chat
    assert follower.expect("E") == "E00"
    follower.send("E00")
    follower.send("E01")


def test_follower_takes_back_moves_on_backreq(follower):
    follower.send(msg_gamereq(Color.BLACK, 10, 0))
    follower.expect("A")
    game = Game(INTERNATIONAL)
    follower.send(our_move(game))
    engine_move(game, follower.expect("M"))
    follower.send("B001W")  # back to move 1, White to move: the start
    assert follower.expect("K") == "K0"
    game = Game(INTERNATIONAL)
    follower.send(msg_move(game.position.parse_move("32-28"), INTERNATIONAL))
    game.play("32-28")
    engine_move(game, follower.expect("M"))  # a legal answer in the position after 32-28
    follower.send("E00")
    follower.expect("E")
    follower.send("E01")


def test_follower_serves_the_next_connection_after_a_peer_resets_one_while_the_engine_thinks():
    # A reset is the end of that connection, as a close is: the MOVE the engine then sends fails, and
    # the Follower goes on to wait for the next Initiator.
    thinking, reset = threading.Event(), threading.Event()

    class SlowEngine(Engine):
        def play(self, *args, **kwargs):
            thinking.set()
            assert reset.wait(10)
            return super().play(*args, **kwargs)

    ports: list[int] = []
    ready = threading.Event()
    failures: list[BaseException] = []

    def serve() -> None:
        try:
            follow(port=0, ready=lambda p: (ports.append(p), ready.set()), limit=FAST, engine=SlowEngine())
        except BaseException as exc:
            failures.append(exc)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    assert ready.wait(10)
    sock = socket.create_connection(("127.0.0.1", ports[0]), timeout=10)
    peer = Peer(sock)
    peer.send(msg_gamereq(Color.WHITE, 10, 0))  # the engine is White: it thinks at once
    peer.expect("A")
    assert thinking.wait(10)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    sock.close()  # with no linger: a reset, not a close
    time.sleep(0.1)  # the reset has reached the engine's socket before it sends its move
    reset.set()
    with socket.create_connection(("127.0.0.1", ports[0]), timeout=10) as sock:
        peer = Peer(sock)
        peer.send(msg_gamereq(Color.WHITE, 10, 0))
        assert parse_message(peer.expect("A")).code == 0
        engine_move(Game(INTERNATIONAL), peer.expect("M"))
        peer.send("E01")
        assert peer.expect("E") == "E01"
    assert failures == [] and thread.is_alive()  # serving on (the daemon thread ends with the tests)


def test_initiator_asks_for_a_game_and_plays_it():
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]
        thread = threading.Thread(
            target=initiate,
            kwargs={"port": port, "color": Color.BLACK, "minutes": 5, "moves": 50, "limit": FAST},
            daemon=True,
        )
        thread.start()
        sock, _ = server.accept()
        with sock:
            peer = Peer(sock)
            request = parse_message(peer.expect("R"))
            assert request.color is Color.WHITE  # the Follower's colour: the engine plays Black
            assert (request.minutes, request.moves, request.board) == (5, 50, None)
            peer.send("A" + "Scripted follower".ljust(32) + "0")
            game = Game(INTERNATIONAL)
            for _ in range(6):
                peer.send(our_move(game))
                engine_move(game, peer.expect("M"))
            peer.send("E00")
            assert peer.expect("E") == "E00"
        thread.join(10)
        assert not thread.is_alive()


def test_the_engine_ends_a_game_it_has_lost_with_gameend():
    # White (the peer) captures the engine's last piece; the engine, to move with nothing, gives up.
    start = Position.from_fen("W:W28:B23", INTERNATIONAL)
    with socket.create_server(("127.0.0.1", 0)) as server:
        port = server.getsockname()[1]

        def run() -> None:
            conn = Connection(socket.create_connection(("127.0.0.1", port)))
            player = DxpPlayer(conn, limit=FAST)
            if player.start_game(Color.BLACK, 1, 0, start):
                player.run(one_game=True)
            conn.close()

        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        sock, _ = server.accept()
        with sock:
            peer = Peer(sock)
            peer.expect("R")
            peer.send("A" + "Scripted follower".ljust(32) + "0")
            peer.send("M000028190123")  # 28x19, taking 23
            assert peer.expect("E") == "E10"  # reason 1: I give up
            peer.send("E00")
        thread.join(10)
        assert not thread.is_alive()


@pytest.mark.slow
def test_pydraughts_dxp_client_plays_the_engine(tmp_path):
    draughts = pytest.importorskip("draughts")
    from draughts.engine import DXPEngine

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    root = Path(__file__).resolve().parents[2]
    follower = subprocess.Popen(
        [sys.executable, "-m", "shashki", "dxp", "--port", str(port), "--once", "--time", "0.05"],
        cwd=root, stderr=subprocess.PIPE, text=True,
    )
    try:
        assert "listening" in follower.stderr.readline()
        options = {"engine-opened": True, "ip": "127.0.0.1", "port": port, "initial-time": 600}
        engine = DXPEngine(options=options)
        board = draughts.Board(variant="standard")
        game = Game(INTERNATIONAL)
        for _ in range(8):
            result = engine.play(board)  # the engine's move, checked by pydraughts against its rules
            assert result.move is not None
            board.push(result.move)
            game.play(game.position.parse_move(result.move.pdn_move))
            reply = board.legal_moves()[0]
            board.push(reply)
            game.play(game.position.parse_move(reply.pdn_move))
        engine.quit()
        assert follower.wait(timeout=30) == 0
    finally:
        if follower.poll() is None:
            follower.kill()


def test_a_clock_for_a_number_of_moves_keeps_time_for_a_game_that_goes_on_past_them():
    """DXP's GAMEREQ may give the clock for N moves; the protocol lets either side end the game there, but
    a peer may play on (found by an audit: the whole clock went by move N, then 27 moves with none)."""
    from shashki.engine.timeman import time_for_move

    player = DxpPlayer(Connection.__new__(Connection))
    player._new_game(Color.WHITE, 1, 10, None)
    spent = []
    for _ in range(40):  # each move takes what the plan allows, as a searching engine would
        limit = player._move_limit()
        think = time_for_move(limit.remaining, 0.0, limit.moves_to_go)
        spent.append(think)
        player.clock -= think
        player.moves_left = max(0, player.moves_left - 1)
    assert sum(spent[:10]) < 0.6 * 60  # more than 40% of the minute kept past move 10
    assert min(spent[10:20]) > 0.5  # the ten moves after it still have half a second or more each
    assert player.clock > 0
