"""What makes a move the one winning move, judged by the engine and, where they apply, the endgame tables.

A puzzle position is one where the side to move (the solver) has exactly ONE winning continuation
(issue 14, point 3). Every legal move is searched to the same depth with a full window
(`Searcher.score_moves`: exact scores, not bounds), and the scores are judged:

- a score is **decisive** when it is a forced win the search has seen to its end (`score >= WIN_BOUND`:
  the opponent is left without a move, or, in giveaway, the solver is; RULES.md §3), or, in the ordinary
  variants only, when the solver is ahead by `DECISIVE` (two men) or more after the best defence: a
  large material margin decides a game of ordinary draughts. In giveaway material is no measure of
  winning (a man more is a man more to give away), so only a forced win counts there.
- a score is **clearly not winning** when it is no forced win and at most `NOT_WINNING` (half a man
  ahead): roughly level, or worse.
- the move is **unique** when the best move's score is decisive and every other legal move's score is
  clearly not winning. A move between the two (say one man and a half ahead) makes the position
  ambiguous: it is no puzzle.

The endgame tables (Russian giveaway, as many pieces as are installed: 4 ship with the package) answer
the same question exactly: the move leads to a position lost for the opponent, and every other move to
one that is not (`table_unique`).

Searches start from the bare position: a puzzle is played from its FEN, without the game's history, so
repetitions of the game it came from do not count. They judge with a fixed yardstick (`judging_weights`):
in the ordinary variants the hand-set evaluation, in which a man is 100 and a king 300 (the scale of
`DECISIVE` and `NOT_WINNING`, and the one the starter set was verified with), whatever weights the
engine plays with; in giveaway, where only forced wins count, the engine's own.
"""

from __future__ import annotations

from dataclasses import dataclass

from shashki.engine.evaluation import DraughtsWeights
from shashki.engine.search import WIN_BOUND, Searcher
from shashki.engine.tablebase import LOSS_RESULT, Tablebase, default_tablebase
from shashki.rules.position import Move, Position
from shashki.rules.variant import Variant

DECISIVE = 200  # hundredths of a man: two men ahead after the best defence (ordinary variants)
NOT_WINNING = 50  # at most half a man ahead: the other moves win nothing


def judging_weights(variant: Variant) -> DraughtsWeights | None:
    """The evaluation puzzles of `variant` are judged with (see the module's last paragraph): the
    hand-set weights in the ordinary variants, None (the engine's own) in giveaway."""
    return None if variant.giveaway else DraughtsWeights()


def judging_searcher(variant: Variant) -> Searcher:
    """A search that judges puzzles of `variant`: full width (no selective pruning), so that a puzzle's
    one winning move is one that a search of every move at the depth finds."""
    return Searcher(weights=judging_weights(variant), late_reductions=False, probcut=False)


def decisive(variant: Variant, score: int) -> bool:
    """A forced win, or (ordinary variants) a margin of two men or more."""
    return score >= WIN_BOUND or (not variant.giveaway and score >= DECISIVE)


def clearly_not_winning(score: int) -> bool:
    """No forced win and at most half a man ahead."""
    return score < WIN_BOUND and score <= NOT_WINNING


@dataclass(frozen=True)
class Judgement:
    """Every legal move of a position with its score at `depth` (best first), and what they make of it."""

    position: Position
    depth: int
    scored: tuple[tuple[int, Move], ...]

    @property
    def best(self) -> tuple[int, Move]:
        return self.scored[0]

    @property
    def winning(self) -> list[Move]:
        variant = self.position.variant
        return [move for score, move in self.scored if decisive(variant, score)]

    @property
    def unique(self) -> Move | None:
        """The one winning move, or None (no winning move, several, or one too close to call)."""
        score, move = self.scored[0]
        if not decisive(self.position.variant, score):
            return None
        if all(clearly_not_winning(other) for other, _ in self.scored[1:]):
            return move
        return None


def judge(searcher: Searcher, position: Position, depth: int) -> Judgement:
    """Score every legal move of `position` `depth` plies deep (exact scores, from the mover's side)."""
    scored = searcher.score_moves(position, depth)
    legal = position.legal_moves()
    order = {id(m): i for i, m in enumerate(legal)}
    # Best first; among equal scores the generator's order (deterministic: a seed gives the same puzzles).
    scored.sort(key=lambda sm: (-sm[0], order.get(id(sm[1]), 0)))
    return Judgement(position, depth, tuple(scored))


def best_defence(searcher: Searcher, position: Position, depth: int) -> Move:
    """The opponent's reply: the move with the best score for them (the longest resistance to a forced
    win, since a loss further away scores higher)."""
    return judge(searcher, position, depth).best[1]


def table_of(variant: Variant) -> Tablebase | None:
    """The endgame tables when they apply to `variant` (plain Russian giveaway: RULES.md §3), else None."""
    if variant.key != "russian-giveaway" or variant.double_diagonal:
        return None
    return default_tablebase()


def table_unique(table: Tablebase, position: Position, move: Move) -> bool | None:
    """Whether the tables prove `move` the only winning move of `position`; None when they do not cover
    the position or one of its children. A child is lost for the opponent (who is then to move) exactly
    when the move wins."""
    verdicts = []
    for candidate in position.legal_moves():
        probe = table.probe(position.play(candidate))
        if probe is None:
            return None
        verdicts.append((candidate == move, probe[0] == LOSS_RESULT))
    return all(wins == is_move for is_move, wins in verdicts)


def table_lost(table: Tablebase | None, position: Position) -> bool:
    """The tables say the side to move in `position` has lost."""
    if table is None:
        return False
    probe = table.probe(position)
    return probe is not None and probe[0] == LOSS_RESULT
