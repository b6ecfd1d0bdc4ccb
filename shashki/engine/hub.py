"""The Hub protocol (version 2, the text protocol of Scan 3.1 and the Hub GUI) on standard input/output.

The GUI (or a client library such as pydraughts' `HubEngine`) and the engine exchange lines of a command
word followed by `name=value` pairs (values with spaces in double quotes):

    GUI                                   engine
    hub                                   id name=Shashki version=... author=...
                                          param name=variant value=russian-giveaway type=enum values="..."
                                          wait
    set-param name=variant value=russian
    init                                  ready
    ping                                  pong
    new-game
    pos [start] [pos=<hub position>] [moves="<move> <move> ..."]
    level [depth=N] [nodes=N] [move-time=S] [time=S] [inc=S] [moves=N] [infinite]
    go [think|ponder|analyze]             info depth=.. mean-depth=.. score=.. nodes=.. time=.. pv="..."
                                          ... one info per iteration ...
                                          done move=<move> [ponder=<move>]
    stop                                  (the search ends at once with its `done`)
    ponder-hit, quit

A hub position is the side to move (`W` or `B`) followed by one letter per square in the order of the
variant's square numbers (1 .. 32 or 1 .. 50): `w`/`b` man, `W`/`B` king, `e` empty. A hub move is the
start and end squares joined by `-` (a quiet move) or `x` (a capture) followed, for a capture, by every
captured square (`x`-separated, in any order): `32-28`, `28x19x23`. Scores are in men
(`score=0.35`); a forced end of the game in n plies is `±(100 - n/100)`, as Scan's `99.xx`.

Variants: every key of `shashki.rules` (`russian-giveaway` by default), and Scan's names `normal`
(International) and `losing` (International giveaway). `time` is the clock *before* this move's increment
is added (as Scan and pydraughts count it).

Run it with `python -m shashki.engine.hub` (or the `shashki hub` command).
"""

from __future__ import annotations

import shlex
import sys
import threading
from collections.abc import Callable
from typing import TextIO

from shashki import __version__ as _version
from shashki.engine.engine import Engine
from shashki.engine.search import WIN, WIN_BOUND, Limit
from shashki.rules.position import Move, Position
from shashki.rules.variant import VARIANTS, Color, Variant, get_variant

NAME = "Shashki"
AUTHOR = "Shashki authors"
SCAN_NAMES = {"normal": "international", "losing": "international-giveaway"}


# ------------------------------------------------------------------------------------------------
# Positions and moves in hub notation


def hub_position(pos: Position) -> str:
    """The position in hub notation: side to move, then one letter per square by square number."""
    board = pos.variant.board
    letters = ["W" if pos.white_to_move else "B"]
    for n in range(1, board.squares + 1):
        piece = pos.piece_at(board.bit_of_number(n))
        if piece is None:
            letters.append("e")
        else:
            color, king = piece
            letter = "w" if color is Color.WHITE else "b"
            letters.append(letter.upper() if king else letter)
    return "".join(letters)


def parse_hub_position(text: str, variant: Variant) -> Position:
    board = variant.board
    if len(text) != board.squares + 1 or text[0] not in "WB":
        raise ValueError(f"a {variant.key} hub position is W or B and {board.squares} squares, not {text!r}")
    white = black = kings = 0
    for n, letter in enumerate(text[1:], start=1):
        bit = 1 << board.bit_of_number(n)
        if letter in "wW":
            white |= bit
        elif letter in "bB":
            black |= bit
        elif letter != "e":
            raise ValueError(f"unknown square letter {letter!r} in hub position {text!r}")
        if letter in "WB":
            kings |= bit
    return Position(variant, white, black, kings, text[0] == "W")


def hub_move(move: Move, variant: Variant) -> str:
    """`32-28`, or for a capture start x end x every captured square: `28x19x23`."""
    number = variant.board.number
    if not move.capture_mask:
        return f"{number(move.path[0])}-{number(move.path[-1])}"
    squares = [move.path[0], move.path[-1], *sorted(move.captured, key=number)]
    return "x".join(str(number(b)) for b in squares)


def parse_hub_move(pos: Position, text: str) -> Move:
    """The legal move a hub move names (ValueError if none or several)."""
    board = pos.variant.board
    try:
        numbers = [int(t) for t in text.replace("x", "-").split("-")]
        bits = [board.bit_of_number(n) for n in numbers]
    except (ValueError, IndexError):
        raise ValueError(f"malformed hub move {text!r}") from None
    if len(bits) < 2:
        raise ValueError(f"malformed hub move {text!r}")
    start, end, captured = bits[0], bits[1], set(bits[2:])
    found = [
        m for m in pos.legal_moves()
        if m.path[0] == start and m.path[-1] == end and (not captured or set(m.captured) == captured)
    ]
    if len(found) != 1:
        raise ValueError(f"{text!r} is {'ambiguous' if found else 'not a legal move'} here")
    return found[0]


def hub_score(score: int) -> str:
    if score >= WIN_BOUND:
        return f"{(10_000 - (WIN - score)) / 100:.2f}"
    if score <= -WIN_BOUND:
        return f"{-(10_000 - (WIN + score)) / 100:.2f}"
    return f"{score / 100:.2f}"


def _pairs(args: str) -> dict[str, str]:
    """`name=value` pairs (values may be double-quoted); a bare word maps to ''."""
    result: dict[str, str] = {}
    for token in shlex.split(args):
        name, _, value = token.partition("=")
        result[name] = value
    return result


# ------------------------------------------------------------------------------------------------
# The session


class HubSession:
    """One conversation with a GUI. `handle(line)` for each line received; output goes to `write`."""

    def __init__(self, write: Callable[[str], None], engine: Engine | None = None) -> None:
        self._write = write
        self._lock = threading.Lock()
        self.engine = engine or Engine()
        self.variant = get_variant(None)
        self.position = Position.start(self.variant)
        self.history: list[int] = []
        self.limit = Limit(time=1.0)
        self.infinite = False
        self._thread: threading.Thread | None = None

    def send(self, line: str) -> None:
        with self._lock:
            self._write(line)

    def handle(self, line: str) -> bool:
        """Handle one line; False when the session should end (`quit`)."""
        command, _, args = line.strip().partition(" ")
        if not command:
            return True
        handler = getattr(self, "cmd_" + command.replace("-", "_"), None)
        if handler is None:
            self.send(f'error message="unknown command {command}"')
            return True
        try:
            return handler(args.strip()) is not False
        except ValueError as exc:
            self.send(f"error message={_quote(str(exc))}")
            return True

    # Commands ---------------------------------------------------------------------------------

    def cmd_hub(self, args: str) -> None:
        self.send(f"id name={NAME} version={_version} author={_quote(AUTHOR)}")
        values = " ".join([*VARIANTS, *SCAN_NAMES])
        self.send(f'param name=variant value={self.variant.key} type=enum values="{values}"')
        self.send("wait")

    def cmd_set_param(self, args: str) -> None:
        pairs = _pairs(args)
        if pairs.get("name") == "variant":
            key = pairs.get("value", "")
            self.variant = get_variant(SCAN_NAMES.get(key, key))
            self.position = Position.start(self.variant)
            self.history = []
        else:
            self.send(f"error message={_quote('unknown parameter ' + pairs.get('name', ''))}")

    def cmd_init(self, args: str) -> None:
        self.send("ready")

    def cmd_ping(self, args: str) -> None:
        self.send("pong")

    def cmd_new_game(self, args: str) -> None:
        self.engine.searcher.table.clear()

    def cmd_pos(self, args: str) -> None:
        pairs = _pairs(args)
        pos = Position.start(self.variant)
        if "pos" in pairs:
            pos = parse_hub_position(pairs["pos"], self.variant)
        history = []
        for text in pairs.get("moves", "").split():
            move = parse_hub_move(pos, text)
            history.append(pos.hash)
            pos = pos.play(move)
        self.position, self.history = pos, history

    def cmd_level(self, args: str) -> None:
        pairs = _pairs(args)
        self.infinite = "infinite" in pairs

        def number(name: str) -> float | None:
            return float(pairs[name]) if name in pairs else None

        depth, nodes = number("depth"), number("nodes")
        move_time, clock, inc = number("move-time"), number("time"), number("inc") or 0.0
        moves = number("moves")
        if clock is not None:
            clock += inc  # the engine adds this move's increment itself
        self.limit = Limit(
            depth=int(depth) if depth else None,
            nodes=int(nodes) if nodes else None,
            time=move_time if move_time else None,
            remaining=clock,
            increment=inc,
            moves_to_go=int(moves) if moves else None,
        )

    def cmd_go(self, args: str) -> None:
        self.cmd_stop("")  # a search still running (pondering, analysing) ends first
        mode = args.split()[0] if args else "think"
        limit = Limit() if (self.infinite or mode == "analyze") else self.limit
        self.engine.searcher.stop_event.clear()
        self._thread = threading.Thread(target=self._think, args=(self.position, list(self.history), limit))
        self._thread.daemon = True
        self._thread.start()

    def cmd_stop(self, args: str) -> None:
        self.engine.stop()
        self.wait()

    def cmd_ponder_hit(self, args: str) -> None:
        pass  # pondering is searching the expected position; it simply goes on

    def cmd_quit(self, args: str) -> bool:
        self.engine.stop()
        self.wait()
        return False

    # Searching ----------------------------------------------------------------------------------

    def wait(self) -> None:
        if self._thread is not None:
            self._thread.join()
            self._thread = None

    def _think(self, position: Position, history: list[int], limit: Limit) -> None:
        variant = position.variant
        moves = position.legal_moves()
        if not moves:
            self.send('error message="no legal move"')
            self.send("done")
            return
        last = None
        for line in self.engine.analyse(position, limit, history):
            last = line
            pv = " ".join(hub_move(m, variant) for m in _legal_pv(position, line.pv))
            self.send(
                f"info depth={line.depth} mean-depth={line.seldepth:.2f} score={hub_score(line.score)} "
                f'nodes={line.nodes} time={line.seconds:.2f} nps={line.nps} pv="{pv}"'
            )
        best = last.pv if last is not None else (moves[0],)
        reply = f"done move={hub_move(best[0], variant)}"
        if len(best) > 1:
            reply += f" ponder={hub_move(best[1], variant)}"
        self.send(reply)


def _legal_pv(position: Position, pv: tuple[Move, ...]) -> list[Move]:
    out = []
    for move in pv:
        if move not in position.legal_moves():
            break
        out.append(move)
        position = position.play(move)
    return out


def _quote(text: str) -> str:
    return '"' + text.replace('"', "'") + '"'


def run(stdin: TextIO = sys.stdin, stdout: TextIO = sys.stdout) -> None:
    """Speak the Hub protocol on stdin/stdout until `quit` or the end of the input."""

    def write(line: str) -> None:
        stdout.write(line + "\n")
        stdout.flush()

    session = HubSession(write)
    for line in stdin:
        if not session.handle(line):
            break
    session.wait()


if __name__ == "__main__":
    run()
