"""The root of one iteration: the aspiration window, the root's moves, and the principal variation.

`shashki.engine.search.Searcher` deepens iteration by iteration; each iteration searches the root
here, and every node below it is `shashki.engine.alphabeta.Core` (compiled). The root differs from the
nodes below in three ways: it may be restricted to some of the legal moves (the multi-PV of
`Engine.lines`), it is searched first within a window around the previous iteration's score
(`aspire`: aspiration windows, widened only when the score falls outside), and what it finds is
stored in the transposition table, from which `principal_variation` reads the line back (through the
endgame tables where the table has no move). All of it runs once an iteration, not once a node, so it
stays plain Python.
"""

from __future__ import annotations

from shashki.engine.alphabeta import DRAW, INFINITE, WIN, WIN_BOUND, Core, score_to_tt
from shashki.engine.transposition import EXACT, LOWER
from shashki.rules.position import Move, Position

ASPIRATION_DEPTH = 4
ASPIRATION_WINDOW = 50  # hundredths of a man


def aspire(
    core: Core, pos: Position, moves: list[Move], depth: int, previous: int, aspiration: bool = True,
) -> int:
    """The root searched first within a window around the previous iteration's score: from depth
    ASPIRATION_DEPTH on (`aspiration`), ±ASPIRATION_WINDOW, widened fourfold on each miss and opened
    fully on the third."""
    if not aspiration or depth < ASPIRATION_DEPTH or abs(previous) >= WIN_BOUND:
        return search_root(core, pos, moves, depth, -INFINITE, INFINITE)
    delta = ASPIRATION_WINDOW
    alpha, beta = previous - delta, previous + delta
    while True:
        score = search_root(core, pos, moves, depth, alpha, beta)
        if score <= alpha and alpha > -INFINITE:
            alpha = max(score - delta, -INFINITE)
        elif score >= beta and beta < INFINITE:
            beta = min(score + delta, INFINITE)
        else:
            return score
        delta *= 4
        if delta > 16 * ASPIRATION_WINDOW:
            alpha, beta = -INFINITE, INFINITE  # the third miss: the full window


def search_root(core: Core, pos: Position, moves: list[Move], depth: int, alpha: int, beta: int) -> int:
    """The root's `moves` searched to `depth` within (alpha, beta): the table's move first, then the
    others with null windows; the best stored in the table unless no move reached the window."""
    table = core.table
    index = table.move_index(pos.hash)
    legal = pos.legal_moves()
    if 0 <= index < len(legal) and legal[index] in moves:
        best_move = legal[index]
        ordered = [best_move] + [m for m in moves if m is not best_move]
    else:
        ordered = [moves[i] for i in core.ordering.order(pos, moves, -1, 0)]
    original_alpha = alpha
    best = -INFINITE
    best_move = ordered[0]
    core.path.append(pos.hash)
    try:
        for i, move in enumerate(ordered):
            child = pos.play(move)
            if i == 0:
                score = -core.search(child, depth - 1, -beta, -alpha, 1)
            else:
                score = -core.search(child, depth - 1, -alpha - 1, -alpha, 1)
                if alpha < score < beta:
                    score = -core.search(child, depth - 1, -beta, -alpha, 1)
            if score > best:
                best, best_move = score, move
                if score > alpha:
                    alpha = score
                    if alpha >= beta:
                        break
    finally:
        core.path.pop()
    if best <= original_alpha:
        return best  # no move reached the window: the table keeps what the last iteration found
    flag = LOWER if best >= beta else EXACT
    table.store(pos.hash, depth, flag, score_to_tt(best, 0), _index(legal, best_move),
                legal[0].capture_mask != 0, len(legal) == 1)
    return best


def principal_variation(core: Core, pos: Position, depth: int) -> tuple[Move, ...]:
    """The principal variation, followed through the transposition table."""
    pv: list[Move] = []
    seen = set()
    for _ in range(max(depth, 1) + 8):
        index = core.table.move_index(pos.hash)
        if pos.hash in seen:
            break
        seen.add(pos.hash)
        legal = pos.legal_moves()
        move: Move | None = legal[index] if 0 <= index < len(legal) else table_move(core, pos, legal)
        if move is None:
            break
        pv.append(move)
        pos = pos.play(move)
    return tuple(pv)


def table_move(core: Core, pos: Position, legal: list[Move]) -> Move | None:
    """The best move by the endgame tables (the nearest win, the farthest loss), if they cover pos."""
    if not legal or not core.tb_pieces or (pos.white | pos.black).bit_count() > core.tb_pieces:
        return None
    best, best_score = None, -INFINITE
    for move in legal:
        code = core.tablebase.code(pos.play(move))
        if not code:
            return None
        plies, lost = divmod(code - 2, 2)
        # The child's result is the opponent's: its loss in n plies is our win in n + 1.
        score = DRAW if code == 1 else (WIN - plies if lost else plies - WIN)
        if score > best_score:
            best, best_score = move, score
    return best


def _index(moves: list[Move], move: Move) -> int:
    for i, m in enumerate(moves):
        if m is move:
            return i
    return -1
