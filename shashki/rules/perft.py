"""Perft: count the leaves of the move tree, playing every move (RULES.md §6)."""

from __future__ import annotations

from shashki.rules.position import Position


def perft(pos: Position, depth: int, *, all_paths: bool = False, bulk: bool = False) -> int:
    """Leaves at `depth` plies. Capture routes to the same position count once unless all_paths.

    Every move is played down to the leaves; with `bulk` the last ply is counted, not played.

    >>> from shashki.rules import get_variant
    >>> perft(Position.start(get_variant("russian")), 3)
    302
    """
    if depth <= 0:
        return 1
    return _perft(pos, depth, not all_paths, bulk)


def _perft(pos: Position, depth: int, distinct: bool, bulk: bool) -> int:
    moves = pos.generate(distinct)
    if depth == 1:
        if not bulk:
            play = pos.play
            for move in moves:
                play(move)
        return len(moves)
    total = 0
    depth -= 1
    for move in moves:
        total += _perft(pos.play(move), depth, distinct, bulk)
    return total


def divide(
    pos: Position, depth: int, *, all_paths: bool = False, bulk: bool = False
) -> list[tuple[str, int]]:
    """Each root move with its count at `depth`."""
    out = []
    for move in pos.generate(not all_paths):
        out.append(
            (move.notation(pos.variant), perft(pos.play(move), depth - 1, all_paths=all_paths, bulk=bulk))
        )
    return out
