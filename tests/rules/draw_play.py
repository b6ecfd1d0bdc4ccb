"""Playing games to a draw rule's boundary: the helpers of the draw-rule tests (test_draws*.py).

A draw rule is proved at its boundary: from the position where its condition first holds, quiet king
moves are played until the game is drawn, and `play_out` checks that it is drawn on exactly the ply the
rule's text gives and not one ply before. Long quiet stretches are found by `plan`, a depth-first
search for king moves such that nobody is ever forced to capture and no position repeats, so that only
the rule under test can end the game.

"N moves" of a rule named for both players ("15 moves each") is 2N plies whichever side is to move
where the count starts; "by his Nth move" of the side that must win is 2N - 1 plies when that side is
to move there and 2N when the defender is (RULES.md §4).
"""

from __future__ import annotations

import random

from shashki.rules import DrawRule, Move, Position, get_variant
from shashki.rules.game import Game


def plies_for(moves: int, counted_side_to_move: bool | None) -> int:
    """The ply on which a count of `moves` ends: each side (None), or one side that is (True) or is not
    (False) to move where the count starts."""
    return 2 * moves - 1 if counted_side_to_move else 2 * moves


def _key(pos: Position) -> tuple[int, int, int, bool]:
    return (pos.white, pos.black, pos.kings, pos.white_to_move)


def _safe(after: Position) -> bool:
    """The opponent has a move, and not a capture (so the material stays as it is)."""
    replies = after.legal_moves()
    return bool(replies) and not replies[0].is_capture


def plan(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True, goal=None) -> list[Move]:
    """`plies` quiet king moves from the game's position: never a capture for either side, never a
    position seen before in the game, `keep(position)` true after each (`goal(position)` instead after
    the last one, when given). A depth-first search with a fixed pseudo-random move order, so that the
    pieces spread over the board and a run is repeatable."""
    seen = {_key(p) for p in game.positions}
    order = random.Random(plies)
    moves: list[Move] = []

    def search(pos: Position, left: int) -> bool:
        if left == 0:
            return True
        candidates = [m for m in pos.legal_moves() if not m.is_capture and pos.kings >> m.path[0] & 1]
        order.shuffle(candidates)
        for move in candidates:
            after = pos.play(move)
            key = _key(after)
            wanted = goal if goal is not None and left == 1 else keep
            if key in seen or not wanted(after) or not _safe(after):
                continue
            seen.add(key)
            moves.append(move)
            if search(after, left - 1):
                return True
            moves.pop()
            seen.discard(key)
        return False

    if not search(game.position, plies):
        raise AssertionError(f"{rule.value} fixture: no {plies} quiet king moves from ply {game.ply}\n"
                             f"{game.position}")
    return moves


def wander(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True, goal=None) -> None:
    """Play `plies` quiet king moves (see `plan`); the game must go on after each of them."""
    for move in plan(game, plies, rule, keep, goal):
        game.play(move)
        assert_going_on(game, rule)


def assert_going_on(game: Game, rule: DrawRule) -> None:
    assert game.outcome is None, f"{rule.value}: the game ended too early, at ply {game.ply}: {game.outcome}"


def _man_moves(pos: Position, promote: bool) -> list[Move]:
    """Quiet man moves (promotions only if `promote`) that leave the opponent no capture."""
    moves = sorted(pos.legal_moves(), key=lambda m: m.path)
    return [
        m for m in moves
        if not (m.is_capture or pos.kings >> m.path[0] & 1) and m.promotes == promote and _safe(pos.play(m))
    ]


def can_advance(pos: Position) -> bool:
    return bool(_man_moves(pos, False))


def can_promote(pos: Position) -> bool:
    return bool(_man_moves(pos, True))


def advance_man(game: Game, rule: DrawRule, promote: bool = False) -> None:
    """Play one quiet man move (a promotion only if `promote`) that leaves the opponent no capture."""
    moves = _man_moves(game.position, promote)
    assert moves, f"{rule.value} fixture: no man move at ply {game.ply}\n{game.position}"
    game.play(moves[0])
    assert_going_on(game, rule)


def assert_drawn_by(game: Game, rule: DrawRule) -> None:
    assert game.outcome is not None, f"{rule.value}: not drawn at ply {game.ply} (counters {game.counters})"
    assert game.outcome.result == "1/2-1/2" and game.outcome.reason == rule.value, (
        f"{rule.value}: expected a draw by this rule at ply {game.ply}, got {game.outcome}"
    )



def capture(game: Game, rule: DrawRule) -> None:
    """Play the first capture (the side to move must have one) that leaves the opponent no capture."""
    for move in sorted(game.legal_moves(), key=lambda m: m.path):
        if move.is_capture and _safe(game.position.play(move)):
            game.play(move)
            assert_going_on(game, rule)
            return
    raise AssertionError(f"{rule.value} fixture: no quiet capture at ply {game.ply}\n{game.position}")


def play_out(game: Game, plies: int, rule: DrawRule, keep=lambda pos: True) -> None:
    """Quiet king moves: the game goes on for plies - 1 of them and is drawn by `rule` on the last."""
    start, counted = game.ply, game.counters[rule]
    *before, last = plan(game, plies, rule, keep)
    for move in before:
        game.play(move)
        assert_going_on(game, rule)
    assert game.counters[rule] == counted + plies - 1, f"{rule.value}: counted {game.counters[rule]} plies"
    game.play(last)
    assert_drawn_by(game, rule)
    assert game.ply == start + plies


def on(squares: tuple[str, ...], color: str = "black"):
    """keep(): the pieces of `color` stand on `squares` only."""
    mask = 0
    board = get_variant("russian").board
    for name in squares:
        mask |= 1 << board.by_name[name]

    def keep(pos: Position) -> bool:
        pieces = pos.black if color == "black" else pos.white
        return not pieces & ~mask

    return keep


LONG_DIAGONAL = ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")
OFF_LONG_DIAGONAL = tuple(n for n in get_variant("russian").board.by_name if n not in LONG_DIAGONAL)
