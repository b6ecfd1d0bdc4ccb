"""DXP, the DamExchange protocol: the engine plays International draughts against another program over
TCP, as the Initiator (it asks for a game) or as the Follower (it waits to be asked).

The protocol (DamExchange, layer 1 "SOCKET" and layer 2, mesander.nl/damexchange): each message is 1 to
127 ASCII characters followed by a NUL byte on a stream socket (port 27531 by default); the messages
(layer 2: GAMEREQ, GAMEACC, MOVE, GAMEEND, CHAT, BACKREQ, BACKACC) are made and read by
`shashki.engine.dxp_messages`, whose names are re-exported here. Moves alternate strictly; the side to
move sends GAMEEND instead of a MOVE when the game is over for it (`rules.Game` decides, RULES.md §3-4),
and the other side answers with one. The opponent's moves are resolved by `Position.move_by_path`
(start, end and the captured squares).

    shashki dxp                       # Follower on 127.0.0.1:27531
    shashki dxp --initiator --color black --minutes 10
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable

from shashki.engine.dxp_messages import (
    NAME,
    VERSION,
    DxpError,
    Message,
    dxp_board,
    msg_backacc,
    msg_chat,
    msg_gameacc,
    msg_gameend,
    msg_gamereq,
    msg_move,
    parse_dxp_board,
    parse_message,
)
from shashki.engine.engine import Engine
from shashki.engine.search import Limit
from shashki.rules.errors import RulesError
from shashki.rules.game import Game
from shashki.rules.position import Position
from shashki.rules.variant import Color, Variant, get_variant

__all__ = [  # the messages are re-exported: tests and peers import them from here
    "NAME",
    "PORT",
    "VERSION",
    "Connection",
    "DxpError",
    "DxpPlayer",
    "Message",
    "dxp_board",
    "follow",
    "initiate",
    "msg_backacc",
    "msg_chat",
    "msg_gameacc",
    "msg_gameend",
    "msg_gamereq",
    "msg_move",
    "parse_dxp_board",
    "parse_message",
]

PORT = 27531


# Layer 1: NUL-terminated messages on a stream socket -----------------------------------------------


class Connection:
    """Messages over a connected socket; `receive()` returns None once the peer has closed it (or reset
    it, or a `send()` found it gone)."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self._buffer = b""
        self._gone = False

    def send(self, message: str) -> None:
        try:
            self.sock.sendall(message.encode("ascii", "replace") + b"\0")
        except OSError:  # reset by the peer or a broken pipe: the connection ends as a close ends it
            self._gone = True

    def receive(self) -> str | None:
        if self._gone:
            return None
        while b"\0" not in self._buffer:
            try:
                chunk = self.sock.recv(4096)
            except OSError:  # reset by the peer: gone as surely as a closed connection
                return None
            if not chunk:
                return None
            self._buffer += chunk
        message, _, self._buffer = self._buffer.partition(b"\0")
        return message.decode("ascii", "replace")

    def close(self) -> None:
        self.sock.close()


# A match: one side played by the engine -------------------------------------------------------------


RESERVE_MOVES = 10  # moves' worth of time kept beyond a GAMEREQ's number of moves (`_move_limit`)


class DxpPlayer:
    """The engine's side of a DXP connection, as Initiator (`start_game`) or Follower (`run` answers a
    GAMEREQ). `limit`, when given, replaces the clock of the GAMEREQ for every move."""

    def __init__(self, connection: Connection, *, variant: Variant | None = None, limit: Limit | None = None,
                 engine: Engine | None = None, log: Callable[[str], None] | None = None) -> None:
        self.conn = connection
        self.variant = variant or get_variant("international")
        self.limit = limit
        self.engine = engine or Engine()
        self.log = log or (lambda text: None)
        self.game: Game | None = None
        self.color = Color.WHITE
        self.clock: float | None = None  # seconds left for the whole game (GAMEREQ), None = no clock
        self.moves_left: int | None = None
        self.opponent = ""
        self._ended_by_us = False
        self._one_game = False

    # Initiator ---------------------------------------------------------------------------------

    def start_game(self, color: Color, minutes: int, moves: int = 0, start: Position | None = None) -> bool:
        """Ask for a game with the engine playing `color`; True when the Follower accepts (then `run`)."""
        self.conn.send(msg_gamereq(color.other, minutes, moves, start))
        while True:
            text = self.conn.receive()
            if text is None:
                return False
            message = parse_message(text)
            if message.kind == "A":
                break
            if message.kind == "C":
                self.log(f"chat: {message.text}")
        self.opponent = message.name
        if message.code != 0:
            self.log(f"{message.name or 'the Follower'} refused the game (code {message.code})")
            return False
        self._new_game(color, minutes, moves, start)
        self._move_if_our_turn()
        return True

    # Both ----------------------------------------------------------------------------------------

    def run(self, *, one_game: bool = False) -> None:
        """Answer messages until the peer closes the connection or asks for no further game (or, with
        `one_game`, until the game ends)."""
        self._one_game = one_game
        while True:
            text = self.conn.receive()
            if text is None:
                return
            try:
                message = parse_message(text)
            except DxpError as exc:
                self.conn.send(msg_chat(str(exc)))
                continue
            if not self._handle(message):
                return

    def _handle(self, message: Message) -> bool:
        if message.kind == "R":
            self._game_request(message)
        elif message.kind == "M":
            self._their_move(message)
        elif message.kind == "E":
            if not self._ended_by_us and self.game is not None:
                self.conn.send(msg_gameend(0, message.stop))  # acknowledge; the game ends either way
            self.game = None
            self._ended_by_us = False
            return message.stop == 0 and not self._one_game
        elif message.kind == "B":
            self._take_back(message)
        elif message.kind == "C":
            self.log(f"chat: {message.text}")
        return True

    def _game_request(self, message: Message) -> None:
        if message.version != VERSION:
            self.conn.send(msg_gameacc(1))
            return
        try:
            start = parse_dxp_board(message.board, self.variant) if message.board else None
        except DxpError:
            self.conn.send(msg_gameacc(2))
            return
        if start is not None and not start.legal_moves():
            self.conn.send(msg_gameacc(2))  # no move to play: the specification's example of a refusal
            return
        assert message.color is not None
        self.opponent = message.name
        self.conn.send(msg_gameacc(0))
        self._new_game(message.color, message.minutes, message.moves, start)
        self._move_if_our_turn()

    def _new_game(self, color: Color, minutes: int, moves: int, start: Position | None) -> None:
        self.game = Game(self.variant, start)
        self.color = color
        self.clock = minutes * 60.0 if minutes else None
        self.moves_left = moves or None
        self._ended_by_us = False
        self.engine.searcher.table.clear()

    def _their_move(self, message: Message) -> None:
        game = self.game
        if game is None or game.position.side_to_move is self.color:
            self.conn.send(msg_chat("a move out of turn, ignored"))
            return
        board = self.variant.board
        listed = len(message.squares) - 2
        reason = None
        if message.count != listed:
            reason = f"{message.count} captures announced, {listed} listed"
        elif not all(1 <= n <= board.squares for n in message.squares):
            reason = "squares off the board"  # checked here: 0 and below would count from the board's end
        else:
            bits = [board.bit_of_number(n) for n in message.squares]
            try:
                move = game.position.move_by_path(bits[:2], bits[2:])
            except RulesError as exc:
                reason = exc.message
        if reason is not None:
            self.conn.send(msg_chat(f"illegal move {message.squares}: {reason}"))
            self._end(0)
            return
        game.play(move)
        self._move_if_our_turn()

    def _move_if_our_turn(self) -> None:
        game = self.game
        if game is None or game.position.side_to_move is not self.color:
            return
        if game.outcome is not None:
            outcome = game.outcome
            self._end(2 if outcome.winner is None else (3 if outcome.winner is self.color else 1))
            return
        started = time.monotonic()
        result = self.engine.play(game, self._move_limit())
        spent = time.monotonic() - started
        if self.clock is not None:
            self.clock = max(0.0, self.clock - spent)
        if self.moves_left is not None:
            self.moves_left = max(0, self.moves_left - 1)
        assert result.move is not None  # the game is not over, so there is a legal move
        game.play(result.move)
        self.conn.send(msg_move(result.move, self.variant, spent))

    def _move_limit(self) -> Limit:
        """The GAMEREQ's clock for this move. With a number of moves, the time is planned to last
        `RESERVE_MOVES` beyond it, and past it the game is played as sudden death: the protocol lets
        either side end the game there but a peer may play on (found by an audit: the whole clock was
        spent by the last move of the N, and the rest played with none)."""
        if self.limit is not None:
            return self.limit
        if self.clock is None:
            return Limit(time=1.0)
        to_go = self.moves_left + RESERVE_MOVES if self.moves_left else None
        return Limit(remaining=self.clock, moves_to_go=to_go)

    def _end(self, reason: int) -> None:
        self._ended_by_us = True
        self.conn.send(msg_gameend(reason, 0))

    def _take_back(self, message: Message) -> None:
        game = self.game
        if game is None:
            self.conn.send(msg_backacc(2))
            return
        first_black = game.start.side_to_move is Color.BLACK
        ply = (message.number - 1) * 2 + (message.color is Color.BLACK) - first_black
        if not 0 <= ply <= len(game.moves):
            self.conn.send(msg_backacc(2))
            return
        replayed = Game(self.variant, game.start)
        for move in game.moves[:ply]:
            replayed.play(move)
        self.game = replayed
        self.conn.send(msg_backacc(0))
        self._move_if_our_turn()


# Entry points ----------------------------------------------------------------------------------------


def follow(host: str = "127.0.0.1", port: int = PORT, *, once: bool = False,
           ready: Callable[[int], None] | None = None, **player_options) -> None:
    """Wait for Initiators on host:port and play them, one connection at a time (`once`: only one).
    `ready(port)` is called once listening (port 0 picks a free port)."""
    with socket.create_server((host, port)) as server:
        if ready is not None:
            ready(server.getsockname()[1])
        while True:
            sock, _ = server.accept()
            connection = Connection(sock)
            try:
                DxpPlayer(connection, **player_options).run()
            finally:
                connection.close()
            if once:
                return


def initiate(host: str = "127.0.0.1", port: int = PORT, *, color: Color = Color.WHITE, minutes: int = 10,
             moves: int = 0, start: Position | None = None, **player_options) -> None:
    """Connect to a Follower on host:port, ask for one game and play it."""
    connection = Connection(socket.create_connection((host, port), timeout=30))
    connection.sock.settimeout(None)
    try:
        player = DxpPlayer(connection, **player_options)
        if player.start_game(color, minutes, moves, start):
            player.run(one_game=True)
    finally:
        connection.close()
