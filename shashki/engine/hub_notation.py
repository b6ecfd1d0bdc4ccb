"""Positions and moves in hub notation (the Hub protocol, version 2), for `shashki.engine.hub`.

A hub position is the side to move (`W` or `B`) followed by one letter per square in the order of the
variant's square numbers (1 .. 32 or 1 .. 50): `w`/`b` man, `W`/`B` king, `e` empty. A hub move is the
start and end squares joined by `-` (a quiet move) or `x` (a capture) followed, for a capture, by every
captured square (`x`-separated, in any order): `32-28`, `28x19x23`. Scores are in men (`score=0.35`); a
forced end of the game in n plies is `±(100 - n/100)`, as Scan's `99.xx`. Square numbering: see
`shashki.engine.hub`.
"""

from __future__ import annotations

import re

from shashki.engine.letters import from_square_letters, square_letters
from shashki.engine.search import WIN, WIN_BOUND
from shashki.rules.position import Move, Position
from shashki.rules.variant import Variant


def hub_position(pos: Position) -> str:
    """The position in hub notation: side to move, then one letter per square by square number."""
    return ("W" if pos.white_to_move else "B") + square_letters(pos, black="b")


def parse_hub_position(text: str, variant: Variant) -> Position:
    if not text or text[0] not in "WB":
        squares = variant.board.squares
        raise ValueError(f"a {variant.key} hub position is W or B and {squares} squares, not {text!r}")
    return from_square_letters(text[1:], variant, white_to_move=text[0] == "W", black="b")


def _client_numbers(variant: Variant, numbering: str) -> dict[int, int]:
    """Square number in the client's moves -> square number of the position (RULES.md §1)."""
    board = variant.board
    base = variant.key.removesuffix("-giveaway")
    if numbering == "pydraughts" and base in ("russian", "brazilian"):
        # The Russian numeric notation: rank by rank from White's side, files a to h (1 = a1, 32 = h8).
        order = sorted(board.rows, key=lambda bit: (-board.rows[bit], board.cols[bit]))
        return {k: board.number(bit) for k, bit in enumerate(order, start=1)}
    if numbering == "pydraughts" and base == "english":
        return {k: board.squares + 1 - k for k in range(1, board.squares + 1)}
    return {n: n for n in range(1, board.squares + 1)}


def hub_move(move: Move, variant: Variant, numbering: str = "hub") -> str:
    """`32-28`, or for a capture start x end x every captured square: `28x19x23`."""
    to_client = {n: k for k, n in _client_numbers(variant, numbering).items()}

    def number(bit: int) -> int:
        return to_client[variant.board.number(bit)]

    if not move.capture_mask:
        return f"{number(move.path[0])}-{number(move.path[-1])}"
    captured = sorted(number(b) for b in move.captured)
    return "x".join(str(n) for n in (number(move.path[0]), number(move.path[-1]), *captured))


def parse_hub_move(pos: Position, text: str, numbering: str = "hub") -> Move:
    """The legal move a hub move names (`shashki.rules.notation.move_by_path`); IllegalMove if none."""
    board = pos.variant.board
    to_position = _client_numbers(pos.variant, numbering)
    try:
        numbers = [int(t) for t in re.split(r"[-x]", text.strip())]
        bits = [board.bit_of_number(to_position[n]) for n in numbers]
    except (ValueError, KeyError):
        raise ValueError(f"malformed hub move {text!r}") from None
    if len(bits) < 2:
        raise ValueError(f"malformed hub move {text!r}")
    captured = bits[2:] if "x" in text else None
    return pos.move_by_path(bits[:2], captured)


def hub_score(score: int) -> str:
    if score >= WIN_BOUND:
        return f"{(10_000 - (WIN - score)) / 100:.2f}"
    if score <= -WIN_BOUND:
        return f"{-(10_000 - (WIN + score)) / 100:.2f}"
    return f"{score / 100:.2f}"
