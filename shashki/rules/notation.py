"""Move notation: the one parser of squares and moves typed by people and programs (RULES.md §5).

Input is accepted liberally: `c3-d4`, `c3d4`, `c3xe5`, `c3:e5:g3`, `c3:g3` (start and end only, when
that names one move), and square numbers on any 8×8 variant (`22-18`, `2218`, lidraughts' `3227`).
Whatever is refused is refused with a reason (`IllegalMove.code`) and the legal moves that bear on it.

This module sits below `shashki.rules.position`: it knows a position only as a type and asks it for its
moves, and `Position.parse_move` / `Position.move_by_path` call it.

>>> from shashki.rules import Position, get_variant
>>> pos = Position.start(get_variant("russian"))
>>> pos.parse_move("c3d4").notation(pos.variant)
'c3-d4'
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import TYPE_CHECKING

from shashki.rules.errors import IllegalMove
from shashki.rules.variant import PromotionInCapture

if TYPE_CHECKING:
    from shashki.rules.position import Move, Position
    from shashki.rules.variant import Variant

_ALGEBRAIC = re.compile(r"([a-j])(10|[1-9])")
_SEPARATORS = re.compile(r"\s*[-x:×]\s*")
_ANNOTATIONS = re.compile(r"[!?+#*]+$")


def parse_square(variant: Variant, token: str) -> int | None:
    """The bit of a square written as a number (any board) or a name (8×8); None if it is no square."""
    token = token.strip().lower()
    board = variant.board
    # ASCII digits only: str.isdigit() is also true of "²", which int() refuses.
    if token.isascii() and token.isdigit():
        n = int(token)
        if 1 <= n <= board.squares:
            return board.bit_of_number(n)
        return None
    return board.by_name.get(token)


def is_light_square_name(variant: Variant, token: str) -> bool:
    """True for a well-formed coordinate of the board that is a light square (`a2`)."""
    m = _ALGEBRAIC.fullmatch(token.strip().lower())
    if not m:
        return False
    size = variant.board.size
    col = "abcdefghij".index(m.group(1))
    row = int(m.group(2))
    return col < size and 1 <= row <= size and token.strip().lower() not in variant.board.by_name


def square_label(variant: Variant, bit: int) -> str:
    board = variant.board
    return board.square_name(bit) if variant.algebraic else str(board.number(bit))


def split_squares(variant: Variant, text: str) -> list[int]:
    """The squares named in a move text, in order; IllegalMove("malformed") when it names none."""
    raw = text.strip()
    cleaned = _ANNOTATIONS.sub("", raw.lower()).strip()
    if not cleaned:
        raise IllegalMove("malformed", "Type a move such as c3-d4 or 22-18.")
    if len(cleaned) > 200:
        raise IllegalMove("malformed", "That move is far too long to be a move.")
    tokens = [t for t in _SEPARATORS.split(cleaned) if t]
    if len(tokens) == 1:
        only = tokens[0]
        if only.isascii() and only.isdigit():
            # Concatenated two-digit squares, as in lidraughts' move strings: "3227", "0110".
            if len(only) < 4 or len(only) % 2:
                raise IllegalMove("malformed", f"{raw!r} is not a move: write it as from-to, e.g. 22-18.")
            tokens = [only[i : i + 2] for i in range(0, len(only), 2)]
        else:
            found = _ALGEBRAIC.findall(only)
            if not found or "".join(a + b for a, b in found) != only:
                raise IllegalMove("malformed", f"{raw!r} is not a move: write it as from-to, e.g. c3-d4.")
            tokens = [a + b for a, b in found]
    squares = []
    for token in tokens:
        bit = parse_square(variant, token)
        if bit is None:
            if is_light_square_name(variant, token):
                raise IllegalMove(
                    "malformed", f"{token} is a light square; play is on the dark squares only."
                )
            raise IllegalMove("malformed", f"{token!r} is not a square of this board.")
        squares.append(bit)
    if len(squares) < 2:
        raise IllegalMove("malformed", f"{raw!r} names one square; a move needs where from and where to.")
    return squares


def _is_subsequence(short: list[int], long: tuple[int, ...]) -> bool:
    it = iter(long)
    return all(any(x == y for y in it) for x in short)


def parse_move(pos: Position, text: str) -> Move:
    """The legal move of `pos` that `text` names; IllegalMove with the reason when there is none."""
    if not isinstance(text, str):
        raise IllegalMove("malformed", "A move must be text such as c3-d4.")
    return move_by_path(pos, split_squares(pos.variant, text), text.strip())


def move_by_path(
    pos: Position, squares: list[int], text: str | None = None, captured: Iterable[int] | None = None
) -> Move:
    """The legal move of `pos` whose route the squares (bits, as in `Move.path`) name: the whole route,
    or else its start and end when that names one move, or its start, end and some landing squares in
    order.
    `captured`, when given, is the set of squares whose pieces the move takes: the Hub protocol and DXP
    name a capture by its start, its end and what it takes, not by its route.

    The one move resolver: typed notation (`parse_move`), the Bot API's square numbers, the Hub protocol
    and DXP all come here. IllegalMove with the reason (and `text`, or the squares in the variant's
    notation, in the message) when the squares name no legal move or several.

    >>> from shashki.rules import Position, get_variant
    >>> pos = Position.start(get_variant("russian"))
    >>> board = pos.board
    >>> pos.move_by_path([board.by_name["c3"], board.by_name["d4"]]).notation(pos.variant)
    'c3-d4'
    """
    variant = pos.variant
    squares = list(squares)
    if len(squares) < 2:
        raise IllegalMove("malformed", "A move needs at least two squares: where from and where to.")
    if text is None:
        text = "-".join(square_label(variant, b) for b in squares)
    legal = pos.legal_moves()
    start, end = squares[0], squares[-1]
    label = lambda b: square_label(variant, b)  # noqa: E731
    fmt = lambda ms: [m.notation(variant) for m in ms]  # noqa: E731

    # Every route of every legal move, so that any route the player types is recognised.
    distinct = {m.key: m for m in legal}
    routes = pos.capture_routes() if legal and legal[0].capture_mask else legal
    # A whole route names its move, even when it is also the start and end of a longer route (a king's
    # `f4:h2` taking one piece, beside `f4:h6:f8:d6:h2` taking four: its notation must read back).
    matches = [m for m in routes if m.path == tuple(squares)]
    if captured is not None:
        # ...but not one that takes other pieces than those named: the Hub's `21x3x7x15x23x25` (from 21
        # to 3, taking four) also starts and ends where the one-piece capture `21x3` runs (found by an
        # audit: the longer capture, which free choice allows, was refused).
        matches = [m for m in matches if set(m.captured) == set(captured)]
    if not matches:
        matches = [
            m for m in routes if m.path[0] == start and m.path[-1] == end and _is_subsequence(squares, m.path)
        ]
    if captured is not None:
        taken = set(captured)
        by_route = _unique(matches)
        matches = [m for m in matches if set(m.captured) == taken]
        if by_route and not matches:
            raise IllegalMove(
                "illegal_destination",
                f"{text} takes other pieces than the move from {label(start)} to {label(end)} does: "
                f"{', '.join(fmt(by_route))}.",
                fmt(by_route),
            )
    keys = {m.key for m in matches}
    if len(keys) == 1:
        return distinct[next(iter(keys))]
    if len(keys) > 1:
        options = [distinct[k] for k in keys]
        options.sort(key=lambda m: m.notation(variant))
        raise IllegalMove(
            "ambiguous",
            f"{text} could mean several moves: {', '.join(fmt(options))}. Give every landing square.",
            fmt(options),
        )
    raise _explain(pos, squares, text, legal, label, fmt)


def _explain(pos: Position, squares: list[int], text: str, legal: list[Move], label, fmt) -> IllegalMove:
    """Why the squares typed name no legal move."""
    variant = pos.variant
    start, end = squares[0], squares[-1]
    if not legal:
        return IllegalMove("game_over", "There is no legal move in this position: the game is over.")
    piece = pos.piece_at(start)
    if piece is None:
        return IllegalMove("no_piece", f"There is no piece on {label(start)}.")
    color, is_king = piece
    if color is not pos.side_to_move:
        return IllegalMove(
            "not_your_piece",
            f"The piece on {label(start)} is not yours: it is {pos.side_to_move.value} to move.",
        )
    from_here = [m for m in legal if m.path[0] == start]
    captures = legal[0].capture_mask != 0
    if not variant.men_capture_kings and not is_king and _jumps_a_king(pos, squares):
        return IllegalMove(  # Italian (RULES.md §4)
            "man_takes_king",
            f"Men cannot capture kings in this variant: {', '.join(fmt(legal))}.",
            fmt(legal),
        )
    if captures:
        routes = pos.capture_routes()
        # Typed the beginning of a longer capture: it must be completed (RULES.md §2.6).
        longer = [m for m in routes if len(m.path) > len(squares) and list(m.path[: len(squares)]) == squares]
        if longer:
            return IllegalMove(
                "capture_incomplete",
                f"The capture is not complete: it must go on ({', '.join(fmt(_unique(longer)))}).",
                fmt(_unique(longer)),
            )
        # A capture that precedence rules out (most pieces, Italian order).
        unfiltered = pos.generate(distinct=False, precedence=False)
        if len(unfiltered) != len(routes):
            ruled_out = [
                m
                for m in unfiltered
                if m.path[0] == start
                and m.path[-1] == end
                and (len(squares) == 2 or _is_subsequence(squares, m.path))
            ]
            if ruled_out:
                what = (
                    "the most pieces"
                    if variant.precedence.value == "quantity"
                    else "by the Italian order of precedence"
                )
                return IllegalMove(
                    "capture_precedence",
                    f"You must capture {what}: {', '.join(fmt(legal))}.",
                    fmt(legal),
                )
        # A man that went on past the last row as only a king could (Brazilian, International, Pool:
        # it stays a man; English, Italian: its move ends there), and a piece taken twice (§2.8).
        refused = _crowning_refused(pos, squares, is_king, legal, fmt)
        refused = refused or _taken_twice(pos, squares, legal, fmt)
        if refused is not None:
            return refused
        # A king capture that lands where it cannot go on, when another landing square can (§2.5):
        # the typed path follows a legal route up to a jump, then lands elsewhere beyond the same piece.
        if variant.flying_kings:
            good = _wrong_king_landing(pos, squares, routes)
            if good:
                return IllegalMove(
                    "king_landing",
                    f"A king must land where it can go on capturing: {', '.join(fmt(good))}.",
                    fmt(good),
                )
        return IllegalMove(
            "capture_required",
            f"Capture is compulsory: {', '.join(fmt(legal))}.",
            fmt(legal),
        )
    if not is_king and _is_backward_step(pos, start, end):
        return IllegalMove(
            "man_backward", f"Men do not move backward: the man on {label(start)} can only move forward."
        )
    if not from_here:
        return IllegalMove("illegal_destination", f"The piece on {label(start)} cannot move.", [])
    return IllegalMove(
        "illegal_destination",
        f"The piece on {label(start)} cannot go to {label(end)}; it can play {', '.join(fmt(from_here))}.",
        fmt(from_here),
    )


def _crowning_refused(
    pos: Position, squares: list[int], is_king: bool, legal: list[Move], fmt
) -> IllegalMove | None:
    """A man's typed capture that reaches its last row and goes on, where the variant crowns it only at
    the end of the move (RULES.md §4: it goes on as a man) or ends the move there."""
    rule = pos.variant.promotion_in_capture
    if is_king or rule is PromotionInCapture.CONTINUE_AS_KING:
        return None
    last_row = 0 if pos.white_to_move else pos.board.size - 1
    if not any(pos.board.rows.get(sq) == last_row for sq in squares[1:-1]):
        return None
    if rule is PromotionInCapture.STOP:
        return IllegalMove(
            "crowned_move_ends",
            f"A man that reaches the last row in a capture is crowned and its move ends there: "
            f"{', '.join(fmt(legal))}.",
            fmt(legal),
        )
    return IllegalMove(
        "man_stays_man",
        f"A man that passes the last row in a capture stays a man (crowned only if the move ends "
        f"there): {', '.join(fmt(legal))}.",
        fmt(legal),
    )


def _jumped(pos: Position, squares: list[int]) -> list[int] | None:
    """The squares the typed path jumps over, one per leg (None when a leg is not a diagonal line)."""
    board = pos.board
    over: list[int] = []
    for frm, to in zip(squares, squares[1:], strict=False):
        ray = next((r for r in board.rays[frm] if to in r), None)
        if ray is None:
            return None
        between = [sq for sq in ray[: ray.index(to)] if pos.piece_at(sq) is not None]
        if len(between) != 1:
            return None
        over.append(between[0])
    return over


def _taken_twice(pos: Position, squares: list[int], legal: list[Move], fmt) -> IllegalMove | None:
    """A typed capture that jumps the same piece twice, or lands where a piece it took still stands: a
    piece is taken once and lifted only when the move ends (RULES.md §2.8)."""
    over = _jumped(pos, squares)
    if over is None:
        return None
    lands_on_a_piece = any(pos.piece_at(sq) is not None for sq in squares[1:] if sq != squares[0])
    if len(set(over)) == len(over) and not lands_on_a_piece:
        return None
    return IllegalMove(
        "captured_once",
        f"A piece is captured only once, and stays on the board until the move ends: "
        f"{', '.join(fmt(legal))}.",
        fmt(legal),
    )


def _jumps_a_king(pos: Position, squares: list[int]) -> bool:
    over = _jumped(pos, squares[:2])
    return over is not None and len(over) == 1 and bool(pos.kings >> over[0] & 1)


def _unique(moves: list[Move]) -> list[Move]:
    seen = set()
    out = []
    for m in moves:
        if m.key not in seen:
            seen.add(m.key)
            out.append(m)
    return out


def _is_backward_step(pos: Position, start: int, end: int) -> bool:
    board = pos.board
    rows = board.rows
    if end not in rows or start not in rows:
        return False
    forward = -1 if pos.white_to_move else 1
    return (rows[end] - rows[start]) * forward < 0 and abs(board.cols[end] - board.cols[start]) == abs(
        rows[end] - rows[start]
    )


def _wrong_king_landing(pos: Position, squares: list[int], routes: list[Move]) -> list[Move]:
    """The legal routes the typed squares leave at a king's jump by landing elsewhere beyond the same
    captured piece (the landing rule, RULES.md §2.5); empty when that is not what went wrong."""
    board = pos.board
    # How far the typed squares follow some legal route; they leave every route at squares[typed].
    typed = 0
    for m in routes:
        k = 0
        while k < len(squares) and k < len(m.path) and squares[k] == m.path[k]:
            k += 1
        typed = max(typed, k)
    if typed == 0 or typed >= len(squares):
        return []
    found: list[Move] = []
    for m in routes:
        if len(m.path) <= typed or list(m.path[:typed]) != squares[:typed]:
            continue
        rows = (0, board.size - 1)
        king_here = m.by_king or (m.promotes and any(board.rows[b] in rows for b in m.path[1:typed]))
        if not king_here:
            continue
        frm, over, landing = m.path[typed - 1], m.captured[typed - 1], squares[typed]
        for ray in board.rays[frm]:
            if over in ray and landing in ray and ray.index(landing) > ray.index(over):
                found.append(m)
    return _unique(found)
