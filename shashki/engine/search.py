"""The search: iterative deepening principal variation search (alpha-beta with null windows).

- A transposition table keyed by the position's Zobrist hash (`Position.hash`) keeps, per position, the
  depth searched, the score and whether it is exact or a bound, and the best move found.
- Move ordering: the hash move, then captures (most pieces taken first), then the two killer moves of the
  ply, then quiet moves by their history score.
- Capture extension: a position where the side to move must capture is never scored statically, at any
  depth (draughts' quiescence: capture is compulsory, so the captures are the only moves); a position
  with a single legal move is searched one ply deeper for free.
- Results come from the variant (RULES.md §3): no legal move loses, or wins in the giveaway forms.
  A position repeated along the search path (or from the game before it) scores as a draw.
- Limits: depth, nodes, time, and a `stop` event another thread may set.

Scores are in hundredths of a man, from the side to move's point of view; a win in n plies scores
`WIN - n` (`mate_distance` turns it back into plies).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from shashki.engine.evaluation import Weights, evaluator
from shashki.engine.tablebase import Tablebase, default_tablebase
from shashki.rules.position import Move, Position

WIN = 30_000
WIN_BOUND = WIN - 1_000  # scores beyond this are wins/losses in a known number of plies
INFINITE = WIN + 1
MAX_PLY = 120
DRAW = 0

EXACT, LOWER, UPPER = 0, 1, 2
TT_MAX_ENTRIES = 2_000_000  # about 400 MB at worst; cleared when full
CHECK_EVERY = 512  # nodes between looks at the clock


class SearchStopped(Exception):
    """Raised inside the search when a limit is reached; the last complete iteration stands."""


@dataclass(frozen=True)
class Limit:
    """When to stop searching. None = no limit of that kind; the first iteration (depth 1) always
    completes, so there is always a move to play.

    `time` is seconds for this move; `remaining`/`increment` describe a game clock and are turned into a
    time for this move by `shashki.engine.timeman.time_for_move` when `time` is not given.
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    remaining: float | None = None
    increment: float = 0.0
    moves_to_go: int | None = None

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth < 1:
            raise ValueError("depth must be at least 1")
        if self.nodes is not None and self.nodes < 1:
            raise ValueError("nodes must be at least 1")
        if self.time is not None and self.time <= 0:
            raise ValueError("time must be positive")


@dataclass(frozen=True)
class Line:
    """One completed iteration: the best line at that depth."""

    depth: int
    score: int
    pv: tuple[Move, ...]
    nodes: int
    seconds: float
    seldepth: int = 0

    @property
    def nps(self) -> int:
        return int(self.nodes / self.seconds) if self.seconds > 0 else 0

    @property
    def move(self) -> Move | None:
        return self.pv[0] if self.pv else None

    @property
    def mate_distance(self) -> int | None:
        """Plies to the end of the game when the score is a forced win (+) or loss (-), else None."""
        if self.score >= WIN_BOUND:
            return WIN - self.score
        if self.score <= -WIN_BOUND:
            return -(WIN + self.score)
        return None


def _score_to_tt(score: int, ply: int) -> int:
    if score >= WIN_BOUND:
        return score + ply
    if score <= -WIN_BOUND:
        return score - ply
    return score


def _score_from_tt(score: int, ply: int) -> int:
    if score >= WIN_BOUND:
        return score - ply
    if score <= -WIN_BOUND:
        return score + ply
    return score


@dataclass
class Searcher:
    """One search at a time; keeps its transposition table and history between searches of a game."""

    # The evaluation: a function of a position, or else the variant's evaluator with `weights`
    # (a DraughtsWeights/GiveawayWeights; None = the shipped ones).
    evaluate: Callable[[Position], int] | None = None
    weights: Weights | None = None
    # hash -> (depth, EXACT/LOWER/UPPER, score, index of the best move in legal_moves() or -1)
    table: dict[int, tuple[int, int, int, int]] = field(default_factory=dict)
    stop_event: threading.Event = field(default_factory=threading.Event)
    # Endgame tables (shashki.engine.tablebase) probed in Russian giveaway; None = the shipped ones.
    tablebase: Tablebase | None = None
    use_tablebase: bool = True

    def __post_init__(self) -> None:
        self.nodes = 0
        self.seldepth = 0
        self._deadline = float("inf")
        self._node_limit = 1 << 62
        self._next_check = CHECK_EVERY
        self._history: dict[tuple[int, int, bool], int] = {}
        self._killers: list[list[tuple[int, int] | None]] = [[None, None] for _ in range(MAX_PLY + 2)]
        self._path: list[int] = []
        self._seen: set[int] = set()
        self._variant_key: str | None = None
        self._eval: Callable[[Position], int] = self.evaluate or (lambda pos: 0)
        self._giveaway = False
        self._tb: Tablebase | None = None
        self._tb_pieces = 0
        self._must_finish = False

    # -------------------------------------------------------------------------------------------
    # Public

    def iterate(
        self,
        position: Position,
        limit: Limit,
        history: Iterable[int] = (),
        moves: Iterable[Move] | None = None,
    ) -> Iterator[Line]:
        """Search deeper and deeper, yielding a Line after each completed iteration.

        `history`: hashes of the positions of the game before this one (for repetitions).
        `moves`: restrict the root to these moves (they must be legal moves of `position`).
        """
        self._prepare(position, history)
        start = time.perf_counter()
        self.nodes = 0
        self._node_limit = limit.nodes if limit.nodes is not None else 1 << 62
        seconds = limit.time
        if seconds is None and limit.remaining is not None:
            from shashki.engine.timeman import time_for_move

            seconds = time_for_move(limit.remaining, limit.increment, limit.moves_to_go)
        self._deadline = start + seconds if seconds is not None else float("inf")
        self._next_check = min(CHECK_EVERY, self._node_limit)
        self.stop_event.clear()
        root_moves = list(moves) if moves is not None else position.legal_moves()
        if not root_moves:
            return
        max_depth = min(limit.depth if limit.depth is not None else MAX_PLY, MAX_PLY)
        if len(root_moves) == 1 and limit.depth is None:
            # One legal move: no need to think (but still say what it leads to, shallowly).
            max_depth = min(max_depth, 4)
        score = 0
        for depth in range(1, max_depth + 1):
            self.seldepth = 0
            self._must_finish = depth == 1  # the first iteration always completes: a move to play
            self._next_check = min(self.nodes + CHECK_EVERY, self._node_limit)
            try:
                score = self._root(position, root_moves, depth, score)
            except SearchStopped:
                return
            pv = self._pv(position, depth)
            if not pv or pv[0] not in root_moves:
                pv = (root_moves[0],)
            yield Line(depth, score, pv, self.nodes, time.perf_counter() - start, self.seldepth)
            if score >= WIN_BOUND and WIN - score <= depth:
                return  # a forced win inside the horizon: deeper search cannot improve on it
            elapsed = time.perf_counter() - start
            if seconds is not None and elapsed > seconds * 0.55:
                return  # the next iteration would not finish in time

    def score_moves(
        self, position: Position, depth: int, history: Iterable[int] = (), seconds: float | None = None
    ) -> list[tuple[int, Move]]:
        """Every legal move with its score (full window; for the levels' randomness), searched 1, 2, ...
        `depth` plies deep as time allows: the scores of the deepest depth completed in `seconds`."""
        self._prepare(position, history)
        start = time.perf_counter()
        self._deadline = start + seconds if seconds is not None else float("inf")
        self._node_limit = 1 << 62
        self.nodes = 0
        results: list[tuple[int, Move]] = []
        for d in range(1, depth + 1):
            self._must_finish = d == 1
            self._next_check = self.nodes + CHECK_EVERY
            scored = []
            self._path.append(position.hash)
            try:
                for move in position.legal_moves():
                    child = position.play(move)
                    scored.append((-self._search(child, d - 1, -INFINITE, INFINITE, 1), move))
            except SearchStopped:
                break
            finally:
                self._path.pop()
            results = scored
        return results

    # -------------------------------------------------------------------------------------------
    # Internals

    def _prepare(self, position: Position, history: Iterable[int]) -> None:
        variant = position.variant
        if variant.key != self._variant_key:
            self._variant_key = variant.key
            self.table.clear()
            self._history.clear()
            self._eval = self.evaluate or evaluator(variant, self.weights)
        self._giveaway = variant.giveaway
        self._tb = None
        self._tb_pieces = 0
        if self.use_tablebase and variant.key == "russian-giveaway" and not variant.double_diagonal:
            # (the double-diagonal draw is a convention the tables do not know: RULES.md §3)
            tb = self.tablebase if self.tablebase is not None else default_tablebase()
            self._tb, self._tb_pieces = tb, tb.pieces
        self._seen = set(history)
        self._path = []
        for killers in self._killers:
            killers[0] = killers[1] = None
        if len(self.table) > TT_MAX_ENTRIES:
            self.table.clear()
        # Age the history scores so that the last search's order counts but does not dominate.
        self._history = {k: v >> 2 for k, v in self._history.items() if v >> 2}

    def _check(self) -> None:
        if self._must_finish:
            self._next_check = self.nodes + CHECK_EVERY
            return
        if self.nodes >= self._node_limit:
            raise SearchStopped
        if time.perf_counter() >= self._deadline or self.stop_event.is_set():
            raise SearchStopped
        self._next_check = min(self.nodes + CHECK_EVERY, self._node_limit)

    def _root(self, pos: Position, moves: list[Move], depth: int, previous: int) -> int:
        entry = self.table.get(pos.hash)
        legal = pos.legal_moves()
        if entry is not None and 0 <= entry[3] < len(legal) and legal[entry[3]] in moves:
            best_move = legal[entry[3]]
            ordered = [best_move] + [m for m in moves if m is not best_move]
        else:
            ordered = self._order(pos, moves, -1, 0)
        alpha, beta = -INFINITE, INFINITE
        best = -INFINITE
        best_move = ordered[0]
        self._path.append(pos.hash)
        try:
            for i, move in enumerate(ordered):
                child = pos.play(move)
                if i == 0:
                    score = -self._search(child, depth - 1, -beta, -alpha, 1)
                else:
                    score = -self._search(child, depth - 1, -alpha - 1, -alpha, 1)
                    if alpha < score < beta:
                        score = -self._search(child, depth - 1, -beta, -alpha, 1)
                if score > best:
                    best, best_move = score, move
                    if score > alpha:
                        alpha = score
        finally:
            self._path.pop()
        self.table[pos.hash] = (depth, EXACT, _score_to_tt(best, 0), _index(legal, best_move))
        return best

    def _search(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        self.nodes += 1
        if self.nodes >= self._next_check:
            self._check()
        if ply > self.seldepth:
            self.seldepth = ply
        key = pos.hash
        # A repetition along the path (same side to move: every second ply) or of the game: a draw.
        if key in self._seen or key in self._path[-2::-2]:
            return DRAW
        tb = self._tb
        if tb is not None and (pos.white | pos.black).bit_count() <= self._tb_pieces:
            code = tb.code(pos)
            if code == 1:
                return DRAW
            if code:
                plies, lost = divmod(code - 2, 2)
                return ply + plies - WIN if lost else WIN - ply - plies
        moves = pos.legal_moves()
        if not moves:
            # RULES.md §3: the side to move with no legal move loses, or wins in giveaway.
            return WIN - ply if self._giveaway else ply - WIN
        if ply >= MAX_PLY:
            return self._eval(pos)
        capture = moves[0].capture_mask != 0
        if len(moves) == 1:
            depth += 1  # a forced move costs nothing (capture sequences are often forced)
        if depth <= 0 and not capture:
            return self._eval(pos)
        depth = max(depth, 1) if capture else depth  # captures are never cut at the horizon
        # Mate-distance pruning: nothing here can beat a win already found nearer the root.
        alpha = max(alpha, ply - WIN)
        beta = min(beta, WIN - ply)
        if alpha >= beta:
            return alpha

        entry = self.table.get(key)
        hash_index = -1
        if entry is not None:
            e_depth, flag, e_score, hash_index = entry
            if e_depth >= depth:
                score = _score_from_tt(e_score, ply)
                if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                    return score

        ordered = self._order(pos, moves, hash_index, ply) if len(moves) > 1 else moves
        original_alpha = alpha
        best = -INFINITE
        best_move: Move = ordered[0]
        self._path.append(key)
        try:
            for i, move in enumerate(ordered):
                child = pos.play(move)
                if i == 0:
                    score = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
                else:
                    # Late quiet moves at depth >= 3 are searched one ply shallower first.
                    reduce = 1 if (depth >= 3 and i >= 3 and not capture) else 0
                    score = -self._search(child, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1)
                    if reduce and score > alpha:
                        score = -self._search(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self._search(child, depth - 1, -beta, -alpha, ply + 1)
                if score > best:
                    best, best_move = score, move
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not capture:
                                self._reward(move, depth, ply, pos.white_to_move)
                            break
        finally:
            self._path.pop()
        flag = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
        self.table[key] = (depth, flag, _score_to_tt(best, ply), _index(moves, best_move))
        return best

    def _reward(self, move: Move, depth: int, ply: int, white: bool) -> None:
        k = (move.path[0], move.path[-1])
        killers = self._killers[ply]
        if killers[0] != k:
            killers[1] = killers[0]
            killers[0] = k
        hk = (move.path[0], move.path[-1], white)
        self._history[hk] = self._history.get(hk, 0) + depth * depth

    def _order(self, pos: Position, moves: list[Move], hash_index: int, ply: int) -> list[Move]:
        hash_move = moves[hash_index] if 0 <= hash_index < len(moves) else None
        if moves[0].capture_mask:
            # Captures: most pieces taken first (kings counted double), the hash move before all.
            kings = pos.kings

            def capture_key(m: Move) -> int:
                return len(m.captured) + (m.capture_mask & kings).bit_count()

            ordered = sorted(moves, key=capture_key, reverse=True)
        else:
            killers = self._killers[ply] if ply < len(self._killers) else (None, None)
            history = self._history
            white = pos.white_to_move

            def quiet_key(m: Move) -> int:
                k = (m.path[0], m.path[-1])
                if k == killers[0]:
                    return 1 << 40
                if k == killers[1]:
                    return 1 << 39
                return history.get((k[0], k[1], white), 0)

            ordered = sorted(moves, key=quiet_key, reverse=True)
        if hash_move is not None:
            ordered.remove(hash_move)
            ordered.insert(0, hash_move)
        return ordered

    def _pv(self, pos: Position, depth: int) -> tuple[Move, ...]:
        """The principal variation, followed through the transposition table."""
        pv: list[Move] = []
        seen = set()
        for _ in range(max(depth, 1) + 8):
            entry = self.table.get(pos.hash)
            if pos.hash in seen:
                break
            seen.add(pos.hash)
            legal = pos.legal_moves()
            move: Move | None
            if entry is not None and 0 <= entry[3] < len(legal):
                move = legal[entry[3]]
            else:
                move = self._table_move(pos, legal)
                if move is None:
                    break
            pv.append(move)
            pos = pos.play(move)
        return tuple(pv)

    def _table_move(self, pos: Position, legal: list[Move]) -> Move | None:
        """The best move by the endgame tables (the nearest win, the farthest loss), if they cover pos."""
        tb = self._tb
        if not legal or tb is None or (pos.white | pos.black).bit_count() > self._tb_pieces:
            return None
        best, best_score = None, -INFINITE
        for move in legal:
            code = tb.code(pos.play(move))
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
