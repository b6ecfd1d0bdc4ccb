"""The engine's opening book for the explorer: the book's moves for a position (issue 14, point 4;
issue 15, point 4), read from the book shipped with the engine (`shashki.engine.book`).

Each move with its weight (how often the engine's self-play chose it), its share of the position's
weights in percent, and the engine's score as a player reads it (as the analysis board's lines:
`analysis.lines.score_json`, from White's point of view).
"""

from __future__ import annotations

import asyncio
from typing import Any

from shashki.engine.book import book_for
from shashki.engine.search import WIN, WIN_BOUND
from shashki.rules import Color, Position
from shashki.rules.notation import square_label


def score_json(score: int, mover: Color) -> dict[str, Any]:
    """A book score (hundredths of a man, for the side to move) from White's point of view: a forced
    result as `{"kind": "win", "winner", "plies", "moves"}`, else `{"kind": "pieces", "value"}`."""
    if abs(score) >= WIN_BOUND:
        plies = WIN - abs(score)
        winner = mover if score > 0 else mover.other
        return {"kind": "win", "winner": winner.value, "plies": plies, "moves": (plies + 1) // 2}
    value = score if mover is Color.WHITE else -score
    return {"kind": "pieces", "value": round(value / 100, 2)}


def book_moves(position: Position) -> dict[str, Any]:
    """The book's moves for `position`, best-scored first; `"book": false` when the variant has none."""
    variant = position.variant
    book = book_for(variant)
    moves = book.moves(position) if book is not None else []
    total = sum(m.weight for m in moves)
    return {
        "variant": variant.key,
        "fen": position.fen(),
        "book": book is not None,
        "moves": [
            {
                "move": m.notation,
                "path": [square_label(variant, bit) for bit in m.move.path],
                "weight": m.weight,
                "share": round(100 * m.weight / total) if total else 0,
                "score": score_json(m.score, position.side_to_move),
            }
            for m in moves
        ],
    }


async def book_moves_async(position: Position) -> dict[str, Any]:
    """`book_moves` off the event loop: the first question about a variant loads its book."""
    return await asyncio.to_thread(book_moves, position)
