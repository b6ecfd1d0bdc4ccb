"""Independent checks of a puzzle, shared by the fast tests (a sample of the starter set) and the slow
ones (all of it): the rules replay the solution, the engine's multi-PV search (`Engine.lines`, not the
generator's own judging) finds the solver's move the only winning one, and the endgame tables agree
where the puzzle says they verified it."""

from __future__ import annotations

from shashki.engine.engine import Engine
from shashki.engine.search import WIN_BOUND, Limit
from shashki.engine.tablebase import LOSS_RESULT, default_tablebase
from shashki.rules import Game
from shashki.server.puzzles.verify import DECISIVE


def winning(variant, score: int) -> bool:
    return score >= WIN_BOUND or (not variant.giveaway and score >= DECISIVE)


def check_puzzle(puzzle: dict, every_move: bool = False) -> None:
    """Raise AssertionError naming the puzzle when it is wrong."""
    name = f"puzzle {puzzle['id']} ({puzzle['variant']} {puzzle['fen']} {puzzle['solution']})"
    game = Game(puzzle["variant"], puzzle["fen"])
    assert len(game.legal_moves()) >= 2, f"{name}: the first move is forced"
    variant = game.variant
    for ply, text in enumerate(puzzle["solution"]):
        position = game.position
        move = game.play(text)  # IllegalMove if the rules refuse it
        if ply % 2 or (ply and not every_move):
            continue
        if len(position.legal_moves()) > 1:
            lines = Engine().lines(position, Limit(depth=puzzle["depth"]), count=2)
            best, second = lines[0], lines[1]
            assert best.move == move, f"{name}: at ply {ply} the search prefers {best.move}"
            assert winning(variant, best.score), f"{name}: {text} does not win ({best.score})"
            assert not winning(variant, second.score), f"{name}: {second.move} wins too ({second.score})"
        if puzzle["verified"] == "tablebase":
            table = default_tablebase()
            for other in position.legal_moves():
                probe = table.probe(position.play(other))
                assert probe is not None, f"{name}: the tables do not cover ply {ply}"
                assert (probe[0] == LOSS_RESULT) == (other == move), f"{name}: the tables disagree at {ply}"
