"""Independent checks of a puzzle, shared by the fast tests (a sample of the starter set) and the slow
ones (all of it): the rules replay the solution, the engine's multi-PV search (`Engine.lines`, not the
generator's own judging) finds the solver's move the only winning one, and the endgame tables agree
wherever they cover every move (and must cover them where the puzzle says they verified it)."""

from __future__ import annotations

from shashki.engine.engine import Engine
from shashki.engine.search import WIN_BOUND, Limit
from shashki.engine.tablebase import LOSS_RESULT, default_tablebase
from shashki.rules import Game
from shashki.server.puzzles.verify import DECISIVE, judging_searcher


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
            engine = Engine()
            engine.searcher = judging_searcher(variant)  # full width, as the generator judges
            lines = engine.lines(position, Limit(depth=puzzle["depth"]), count=2)
            best, second = lines[0], lines[1]
            assert best.move == move, f"{name}: at ply {ply} the search prefers {best.move}"
            assert winning(variant, best.score), f"{name}: {text} does not win ({best.score})"
            assert not winning(variant, second.score), f"{name}: {second.move} wins too ({second.score})"
        if variant.key == "russian-giveaway" and not variant.double_diagonal:
            # The tables judge every move they cover, whatever verified the puzzle when it was made (a
            # puzzle found by search before a bigger table shipped must agree with it too).
            table = default_tablebase()
            probes = [(other, table.probe(position.play(other))) for other in position.legal_moves()]
            if puzzle["verified"] == "tablebase":
                assert all(p is not None for _, p in probes), f"{name}: the tables do not cover ply {ply}"
            if all(p is not None for _, p in probes):
                for other, probe in probes:
                    assert probe is not None
                    wins = probe[0] == LOSS_RESULT
                    assert wins == (other == move), f"{name}: the tables disagree at {ply}"
