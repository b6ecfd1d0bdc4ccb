"""FEN: `W:W21,22,K5:B1,2` (PDN 3.0), with algebraic squares and ranges accepted (RULES.md §5).

This module reads a FEN into bitboards and writes one from a position's bitboards; it sits below
`shashki.rules.position`, whose `Position.from_fen` and `Position.fen` are the way in.

>>> from shashki.rules import Position, get_variant
>>> v = get_variant("russian")
>>> pieces = read_fen("W:WKa1,c3:Bb8", v)
>>> [v.board.square_name(bit) for bit in v.board.iter_bits(pieces.white)], pieces.white_to_move
(['c3', 'a1'], True)
>>> pos = Position.from_fen("W:WKa1,c3:Bb8", v)
>>> write_fen(pos), write_fen(pos, algebraic=True)
('W:W22,K29:B1', 'W:Wc3,Ka1:Bb8')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, NamedTuple

from shashki.rules.errors import FenError
from shashki.rules.notation import parse_square
from shashki.rules.variant import Variant

if TYPE_CHECKING:
    from shashki.rules.board import BoardGeometry
    from shashki.rules.position import Position

_RANGE = re.compile(r"^([0-9]+)-([0-9]+)$")


class FenPieces(NamedTuple):
    """What a FEN says: the bitboards of White's pieces, Black's pieces and the kings, and whose move."""

    white: int
    black: int
    kings: int
    white_to_move: bool


def read_fen(text: str, variant: Variant) -> FenPieces:
    """Read a FEN; FenError names what is wrong with it."""
    if not isinstance(text, str):
        raise FenError("the FEN must be text")
    fen = text.strip().strip('"').strip()
    if fen.endswith("."):
        fen = fen[:-1]
    fields = [f.strip() for f in fen.split(":")]
    if not fields or fields[0].upper() not in ("W", "B"):
        raise FenError(f"FEN {text.strip()!r} must start with the side to move, W or B")
    white_to_move = fields[0].upper() == "W"
    board = variant.board
    lists: dict[str, str] = {}
    for field in fields[1:]:
        if not field:
            continue
        head = field[0].upper()
        if head in ("W", "B"):
            if head in lists:
                raise FenError(f"FEN lists the {'white' if head == 'W' else 'black'} pieces twice")
            lists[head] = field[1:]
        elif head in ("H", "F") and field[1:].isdigit():
            continue  # half-move clock and move number (lidraughts' extension): not part of the position
        else:
            raise FenError(f"FEN field {field!r} is neither a W nor a B piece list")
    if not lists:
        raise FenError(f"FEN {text.strip()!r} lists no pieces: write it as W:W21,22:B1,2")
    pieces: dict[int, tuple[str, bool]] = {}
    for side in ("W", "B"):
        for item in lists.get(side, "").split(","):
            item = item.strip()
            if not item:
                continue
            king = item[0] in "Kk"
            body = item[1:].strip() if king else item
            if not body:
                raise FenError(f"FEN has a K with no square after it in {item!r}")
            m = _RANGE.match(body)
            if m:
                lo, hi = int(m.group(1)), int(m.group(2))
                if lo > hi:
                    raise FenError(f"FEN range {body!r} runs backwards")
                squares = [_square(variant, str(n)) for n in range(lo, hi + 1)]
            else:
                squares = [_square(variant, body)]
            for bit in squares:
                if bit in pieces:
                    raise FenError(f"FEN puts two pieces on square {_label(variant, bit)}")
                pieces[bit] = (side, king)
    white = black = kings = 0
    for bit, (side, king) in pieces.items():
        b = 1 << bit
        if side == "W":
            white |= b
        else:
            black |= b
        if king:
            kings |= b
    men_white = white & ~kings & board.white_promotion_row
    if men_white:
        raise FenError(
            f"a white man cannot stand on White's promotion row ({_label(variant, _first(men_white))})"
        )
    men_black = black & ~kings & board.black_promotion_row
    if men_black:
        raise FenError(
            f"a black man cannot stand on Black's promotion row ({_label(variant, _first(men_black))})"
        )
    most = variant.men_per_side
    for name, bb in (("White", white), ("Black", black)):
        if bb.bit_count() > most:
            raise FenError(f"{name} has {bb.bit_count()} pieces; {variant.name} has {most} per side")
    return FenPieces(white, black, kings, white_to_move)


def write_fen(pos: Position, algebraic: bool = False) -> str:
    """The position as a FEN, pieces in square-number order, kings marked K."""
    squares = _fen_squares(pos.board, algebraic)
    kings = pos.kings
    out = ["W" if pos.white_to_move else "B"]
    for side, bb in (("W", pos.white), ("B", pos.black)):
        items = [("K" + label if kings & mask else label) for mask, label in squares if bb & mask]
        out.append(side + ",".join(items))
    return ":".join(out)


_FEN_SQUARES: dict[tuple[int, bool, bool], tuple[tuple[int, str], ...]] = {}


def _fen_squares(board: BoardGeometry, algebraic: bool) -> tuple[tuple[int, str], ...]:
    """Every square of the board in number order, as its bit's mask and its FEN label: made once per
    board (a FEN is written for every state the server sends)."""
    key = (board.size, board.mirrored, algebraic)  # what makes a board (rules/board.py)
    found = _FEN_SQUARES.get(key)
    if found is None:
        found = _FEN_SQUARES[key] = tuple(  # `bits`: square 1's bit first
            (1 << bit, board.square_name(bit) if algebraic else str(board.number(bit))) for bit in board.bits
        )
    return found


def _square(variant: Variant, token: str) -> int:
    bit = parse_square(variant, token)
    if bit is None:
        board = variant.board
        if token.isdigit():
            raise FenError(f"FEN square {token} is not on the board (1-{board.squares})")
        raise FenError(f"FEN square {token!r} is not a dark square of the {board.size}x{board.size} board")
    return bit


def _first(bb: int) -> int:
    return (bb & -bb).bit_length() - 1


def _label(variant: Variant, bit: int) -> str:
    board = variant.board
    return board.square_name(bit) if variant.algebraic else str(board.number(bit))
