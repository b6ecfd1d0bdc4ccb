"""The messages of DXP, the DamExchange protocol (layer 2, mesander.nl/damexchange), for
`shashki.engine.dxp`: each is 1 to 127 ASCII characters, made here (`msg_*`) and read here
(`parse_message`).

    R01<name:32><follower colour W|Z><minutes:3><moves:3>A            GAMEREQ, start position
    R01<name:32><colour><minutes:3><moves:3>B<to move W|Z><board:50>   GAMEREQ from a position
    A<name:32><code>            GAMEACC: 0 accepted, 1 wrong version, 2 not this game, 3 no game at all
    M<seconds:4><from:2><to:2><n:2><captured:2 each>                  MOVE (captures in any order)
    E<reason><stop>             GAMEEND: reason 0 none, 1 I lose, 2 draw, 3 I win; stop 1 = no next game
    C<text>                     CHAT
    B<move number:3><to move W|Z>                                    BACKREQ: take back to that move
    K<code>                     BACKACC: 0 done, 1 not supported, 2 let us continue

A board is 50 letters, squares 1-50: `e` empty, `w`/`z` white/black man, `W`/`Z` king.
"""

from __future__ import annotations

from dataclasses import dataclass

from shashki.engine.letters import from_square_letters, square_letters
from shashki.rules.position import Move, Position
from shashki.rules.variant import Color, Variant

NAME = "Shashki"
VERSION = "01"
_COLOR = {"W": Color.WHITE, "Z": Color.BLACK}
_LETTER = {Color.WHITE: "W", Color.BLACK: "Z"}


class DxpError(ValueError):
    """A message that does not follow the protocol."""


def _name(name: str) -> str:
    return name.strip()[:32].ljust(32)


def msg_gamereq(follower: Color, minutes: int, moves: int, start: Position | None = None,
                name: str = NAME) -> str:
    head = f"R{VERSION}{_name(name)}{_LETTER[follower]}{minutes:03d}{moves:03d}"
    if start is None:
        return head + "A"
    return head + "B" + _LETTER[start.side_to_move] + dxp_board(start)


def msg_gameacc(code: int, name: str = NAME) -> str:
    return f"A{_name(name)}{code}"


def msg_move(move: Move, variant: Variant, seconds: float = 0.0) -> str:
    number = variant.board.number
    taken = sorted(number(b) for b in move.captured)
    squares = "".join(f"{n:02d}" for n in (number(move.path[0]), number(move.path[-1]), len(taken), *taken))
    return f"M{min(int(seconds), 9999):04d}{squares}"


def msg_gameend(reason: int, stop: int) -> str:
    return f"E{reason}{stop}"


def msg_backacc(code: int) -> str:
    return f"K{code}"


def msg_chat(text: str) -> str:
    return "C" + "".join(c if 32 <= ord(c) < 127 else "?" for c in text)[:126]


@dataclass(frozen=True)
class Message:
    """One received message: `kind` is its header letter; the other fields are those it carries."""

    kind: str
    name: str = ""
    version: str = ""
    color: Color | None = None  # GAMEREQ: the Follower's colour; BACKREQ: the side to move
    minutes: int = 0
    moves: int = 0
    board: str | None = None  # GAMEREQ "B": the side to move and 50 squares, `W` + board
    code: int = 0  # GAMEACC, BACKACC; GAMEEND's reason
    stop: int = 0
    squares: tuple[int, ...] = ()  # MOVE: from, to, then the captured squares
    count: int = 0  # MOVE: the number of captured squares it announces
    seconds: int = 0
    number: int = 0  # BACKREQ: the move number
    text: str = ""


def parse_message(text: str) -> Message:
    """A layer-2 message; DxpError names what is wrong with it."""
    try:
        return _parse(text)
    except (ValueError, KeyError, IndexError):
        raise DxpError(f"malformed DXP message {text!r}") from None


def _parse(text: str) -> Message:
    kind = text[:1]
    if kind == "R":
        board = None
        if text[42] == "B":
            board = text[43] + text[44:94]
            if len(board) != 51:
                raise ValueError(text)
        return Message("R", name=text[3:35].strip(), version=text[1:3], color=_COLOR[text[35]],
                       minutes=int(text[36:39]), moves=int(text[39:42]), board=board)
    if kind == "A":
        return Message("A", name=text[1:33].strip(), code=int(text[33]))
    if kind == "M":
        # Every square listed, whatever the count says: a count that does not match them (or a square
        # off the board) is the opponent's illegal move, refused by the player, not a malformed message.
        squares = [int(text[i : i + 2]) for i in range(5, len(text), 2)]
        if len(squares) < 3:
            raise ValueError(text)
        count = squares.pop(2)
        return Message("M", seconds=int(text[1:5]), squares=tuple(squares), count=count)
    if kind == "E":
        return Message("E", code=int(text[1]), stop=int(text[2]))
    if kind == "C":
        return Message("C", text=text[1:])
    if kind == "B":
        return Message("B", number=int(text[1:4]), color=_COLOR[text[4]])
    if kind == "K":
        return Message("K", code=int(text[1]))
    raise ValueError(text)


def dxp_board(pos: Position) -> str:
    """The 50 squares of a position: e, w/z men, W/Z kings."""
    return square_letters(pos, black="z")


def parse_dxp_board(board_text: str, variant: Variant) -> Position:
    """`W` or `Z` (the side to move) and the 50 squares of a GAMEREQ."""
    if not board_text or board_text[0] not in _COLOR:
        raise DxpError(f"bad DXP position {board_text!r}")
    try:
        return from_square_letters(board_text[1:], variant, white_to_move=board_text[0] == "W", black="z")
    except ValueError:
        raise DxpError(f"bad DXP position {board_text!r}") from None
