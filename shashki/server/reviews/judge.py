"""Judging the moves of an analysed game: evaluation curve, marks, accuracy (pure functions).

The engine's scores are in hundredths of a man from the side to move's point of view; a forced win
scores near `WIN`. Each is turned into White's point of view and into a **winning chance** (0-100) with
the logistic curve lichess uses for its centipawns (a man here weighing as a pawn there), so that a
hundredth of a man matters less when one side is far ahead:

    chance(cp) = 50 + 50 * (2 / (1 + exp(-0.00368208 * cp)) - 1)

A move's **loss** is how much it lowered its player's chance: the chance before it (the best line from
that position) minus the chance after it. The marks follow lichess's thresholds on that loss: an
**inaccuracy** from 10 points, a **mistake** from 20, a **blunder** from 30. A move's **accuracy** is
lichess's `103.1668 * exp(-0.04354 * loss) - 3.1669`, kept within 0-100; a player's accuracy is the mean
over their moves.

A **forced** move, the only legal move in its position (a compulsory single capture, say), is not judged:
with no other move it cannot lose anything, whatever the two searches before and after it say (they differ
by the noise of two separate searches), so its loss is 0, it has no mark, and it counts in its player's
accuracy as a perfect move. Its evaluation stays as searched.
"""

from __future__ import annotations

import math
from collections.abc import Collection
from dataclasses import dataclass

from shashki.engine.search import WIN_BOUND

CAP = 2000  # hundredths of a man: scores beyond it (and proven wins) count as this much
MARKS = ((30.0, "blunder"), (20.0, "mistake"), (10.0, "inaccuracy"))


def chance(cp: int) -> float:
    """White's winning chance (0-100) for a score from White's point of view."""
    cp = max(-CAP, min(CAP, cp))
    return 50 + 50 * (2 / (1 + math.exp(-0.00368208 * cp)) - 1)


def white_score(score: int, white_to_move: bool) -> int:
    """A side-to-move score as White's; proven wins capped at `CAP`."""
    if abs(score) >= WIN_BOUND:
        score = CAP if score > 0 else -CAP
    return score if white_to_move else -score


def move_accuracy(loss: float) -> float:
    return max(0.0, min(100.0, 103.1668 * math.exp(-0.04354 * max(0.0, loss)) - 3.1669))


@dataclass(frozen=True)
class Judged:
    ply: int
    move: str
    white_moved: bool
    eval: int  # White's score after the move (hundredths of a man, capped)
    loss: float  # winning chance the mover lost (points of 0-100)
    mark: str | None
    best: str | None  # the engine's move in the position before, when it differs


def judge(
    moves: list[str],
    evals: list[int],
    best: list[str | None],
    white_first: bool,
    forced: Collection[int] = (),
) -> tuple[list[Judged], dict[str, float | None]]:
    """`evals[i]`: White's score of the position before move i (and `evals[-1]` after the last move);
    `best[i]`: the engine's move there; `forced`: the plies whose move was the only legal one. Returns
    each move judged and each player's accuracy."""
    judged: list[Judged] = []
    accuracy: dict[str, list[float]] = {"white": [], "black": []}
    for i, move in enumerate(moves):
        white_moved = (i % 2 == 0) == white_first
        before, after = chance(evals[i]), chance(evals[i + 1])
        if i in forced or best[i] == move:
            # No other move, or the engine's own choice: the two searches around it differ by noise only
            # (a repetition scored a draw in one search and not in the next), never a mistake of the move.
            loss = 0.0
        else:
            loss = max(0.0, (before - after) if white_moved else (after - before))
        mark = next((name for threshold, name in MARKS if loss >= threshold), None)
        accuracy["white" if white_moved else "black"].append(move_accuracy(loss))
        better = best[i] if best[i] != move else None
        judged.append(Judged(i, move, white_moved, evals[i + 1], round(loss, 1), mark, better))
    means = {side: (round(sum(v) / len(v), 1) if v else None) for side, v in accuracy.items()}
    return judged, means
