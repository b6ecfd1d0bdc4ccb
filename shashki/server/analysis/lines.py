"""The engine's lines for a position, deeper and deeper within a time budget (the analysis board).

The search runs in the engine's process pool (`shashki.engine.AsyncEngine`), or as jobs on the
`shashki worker` queue when Redis is configured (`shashki.server.jobs.QueuedEngine.lines`, below a game's
move), never on the event loop. To report progressively, the budget is spent in steps: depth 1, then
2, ... each step asking for the best `count` moves with their lines at that depth (`Engine.lines`, the
simple multi-PV), within a short time (`STEP_SECONDS`). A process keeps its engine, and so its
transposition table, between steps, so a step that lands where the last one ran costs little more than
its last iteration (on the queue, steps may land on different workers: each then searches afresh).

Scores are turned into what a player reads: material in pieces from White's point of view, or "win in n"
(moves of the winner) when the search proves the end of the game within its horizon.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any

from shashki.rules import Color, Game
from shashki.rules.notation import square_label

if TYPE_CHECKING:
    from shashki.engine import AsyncEngine, Line
    from shashki.server.jobs import QueuedEngine

MAX_DEPTH = 40  # plies; far beyond what a few seconds reach, a guard for tiny endgames
STEP_SECONDS = 1.0  # the longest one request keeps a worker before the next report or a stop


def score_json(line: Line, mover: Color) -> dict[str, Any]:
    """The line's score as a player reads it, from White's point of view.

    A proven result is `{"kind": "win", "winner": "white", "moves": n, "plies": p}` (in the giveaway
    forms too: the winner is who reaches the end of the game first, RULES.md §3); otherwise
    `{"kind": "pieces", "value": 1.25}`, the search's evaluation in men (hundredths / 100).
    """
    distance = line.mate_distance
    if distance is not None:
        winner = mover if distance > 0 else mover.other
        plies = abs(distance)
        return {"kind": "win", "winner": winner.value, "plies": plies, "moves": (plies + 1) // 2}
    value = line.score if mover is Color.WHITE else -line.score
    return {"kind": "pieces", "value": round(value / 100, 2)}


def line_json(line: Line, game: Game) -> dict[str, Any]:
    """One line from the game as it stands: its first move with its squares (for the arrow), the
    principal variation in the game's notation, depth, score and nodes. The variation stops where the
    game would end (a draw rule's count run out, say: the search may look on past it)."""
    position = game.position
    variant = position.variant
    notations = []
    follow = game.copy()
    for move in line.pv:
        if follow.is_over:
            break
        notations.append(follow.play(move).notation(variant))
    return {
        "move": notations[0],
        "path": [square_label(variant, bit) for bit in line.pv[0].path],
        "pv": notations,
        "depth": line.depth,
        "score": score_json(line, position.side_to_move),
        "nodes": line.nodes,
    }


async def stream_lines(
    engine: AsyncEngine | QueuedEngine, game: Game, count: int, seconds: float
) -> AsyncIterator[dict]:
    """One report per completed depth: `{"depth", "lines": [...], "seconds", "done"}`, best line first,
    until the budget is spent, the result is proven, or the depth guard is reached.

    Each step asks the pool for at most `STEP_SECONDS` of search (shared by the `count` root searches),
    so that a caller who stops listening (a new position on the board) frees the worker within about a
    step. A step that runs out of time before completing its depth is tried again: the worker's table
    keeps what it found, so the next try gets further.
    """
    from shashki.engine import Limit

    position = game.position
    if game.outcome is not None or not position.legal_moves():
        yield {"depth": 0, "lines": [], "seconds": 0.0, "done": True}
        return
    single = len(position.legal_moves()) == 1
    start = time.monotonic()
    depth = 1
    best: list[Line] = []
    while True:
        left = seconds - (time.monotonic() - start)
        step = max(min(left, STEP_SECONDS) / count, 0.01)
        lines = await engine.lines(game, Limit(depth=depth, time=step), count)
        reached = min((line.depth for line in lines), default=0)
        elapsed = time.monotonic() - start
        out_of_time = elapsed >= seconds * 0.9
        if reached >= depth or not best:
            best = lines
            proven = bool(lines) and all(line.mate_distance is not None for line in lines)
            done = proven or reached >= MAX_DEPTH or out_of_time or single and reached >= 4
        elif out_of_time:
            done = True  # the last try did not complete its depth: the last complete lines stand
        else:
            continue  # the same depth again, helped by the table
        yield {
            "depth": min((line.depth for line in best), default=0),
            "lines": [line_json(line, game) for line in best],
            "seconds": round(elapsed, 3),
            "done": done,
        }
        if done:
            return
        depth = reached + 1
