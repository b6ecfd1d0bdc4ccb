"""Positions written one letter per square, by square number, as engine protocols write them: the Hub
protocol (`w`/`b` men, `W`/`B` kings, `e` empty) and DXP (`w`/`z` men, `W`/`Z` kings, `e` empty). The two
front ends (`hub_notation.py`, `dxp_messages.py`) differ only in the letter of Black's pieces.

>>> from shashki.rules import Position, get_variant
>>> start = Position.start(get_variant("international"))
>>> text = square_letters(start, black="b")
>>> text[:20] == "b" * 20 and text[30:] == "w" * 20
True
>>> from_square_letters(text, start.variant, white_to_move=True, black="b") == start
True
"""

from __future__ import annotations

from shashki.rules import Color, Position, Variant


def square_letters(pos: Position, *, black: str) -> str:
    """One letter per square, square 1 first: `w`/`black` men, upper case kings, `e` empty."""
    board = pos.board
    letters = []
    for n in range(1, board.squares + 1):
        piece = pos.piece_at(board.bit_of_number(n))
        if piece is None:
            letters.append("e")
        else:
            color, king = piece
            letter = "w" if color is Color.WHITE else black
            letters.append(letter.upper() if king else letter)
    return "".join(letters)


def from_square_letters(text: str, variant: Variant, *, white_to_move: bool, black: str) -> Position:
    """The position the letters describe; ValueError naming the first letter that is not a piece."""
    board = variant.board
    if len(text) != board.squares:
        raise ValueError(f"a {variant.key} position has {board.squares} squares, not {len(text)}: {text!r}")
    white = black_bits = kings = 0
    for n, letter in enumerate(text, start=1):
        bit = 1 << board.bit_of_number(n)
        if letter in "wW":
            white |= bit
        elif letter in (black, black.upper()):
            black_bits |= bit
        elif letter != "e":
            raise ValueError(f"unknown square letter {letter!r} in {text!r}")
        if letter.isupper():
            kings |= bit
    return Position(variant, white, black_bits, kings, white_to_move)
