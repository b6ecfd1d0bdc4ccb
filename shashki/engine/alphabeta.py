"""The search's inner loop: principal variation search below the root.

`shashki.engine.search` drives it (iterative deepening, the root, limits, the principal variation); this
module is what runs at every node, so it is written for mypyc (setup.py compiles it, with the move
generator, the evaluation, the move order and the transposition table, into one extension; the same
source runs uncompiled when it cannot be):

- every hot value is a plain int: moves are taken by their index in `Position.legal_moves()`, table
  entries are packed into one int, the move order's killers and history are indexed by (from, to)
  squares (`shashki.engine.moveorder`);
- nothing is allocated per node beyond what the move generator makes (the child position and, for
  captures, its moves): the move order's keys are written and sorted in one packed vector, a region
  per ply;
- at the horizon, a quiet position with a choice of moves is scored without generating its moves
  (`Position.quiet_move_count`), and the move order is sorted only when the first move does not
  refute the position.

These are speed changes only: at a fixed depth the search visits the same nodes and finds the same
moves, scores and lines as before them (tests/engine/test_search_identity.py keeps the record).

Scores are in hundredths of a man, from the side to move's point of view; a win in n plies scores
`WIN - n`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Final

from mypy_extensions import i64

from shashki.engine.counts import Counts
from shashki.engine.evaluation import Evaluator, popcount
from shashki.engine.moveorder import ORDER_MASK, ORDER_SLOTS, MoveOrder, sort_rest
from shashki.engine.tbprobe import Probe
from shashki.engine.transposition import (
    EXACT,
    LOWER,
    UPPER,
    TranspositionTable,
    entry_capture,
    entry_depth,
    entry_flag,
    entry_forced,
    entry_move_index,
    entry_score,
)
from shashki.rules.position import Move, Position

WIN: Final = 30_000
WIN_BOUND: Final = WIN - 1_000  # scores beyond this are wins/losses in a known number of plies
INFINITE: Final = WIN + 1
MAX_PLY: Final = 120
DRAW: Final = 0
# The horizon's score of a table win the counts do not let the search believe (Russian): more than any
# material, far below WIN_BOUND; minus the table's distance, so that the search makes progress.
TABLE_HINT: Final = 2_000

PROBCUT_DEPTH: Final = 3  # ProbCut from this depth: a search of 2/5 the depth at beta + margin
PROBCUT_MARGIN: Final = 10  # the margin a ply of depth (hundredths of a man)

CHECK_EVERY: Final = 512  # nodes between looks at the clock


class SearchStopped(Exception):
    """Raised inside the search when a limit is reached; the last complete iteration stands."""


def score_to_tt(score: int, ply: int) -> int:
    """A win or loss is stored as its distance from the stored position, not from the root."""
    if score >= WIN_BOUND:
        return score + ply
    if score <= -WIN_BOUND:
        return score - ply
    return score


def score_from_tt(score: int, ply: int) -> int:
    if score >= WIN_BOUND:
        return score - ply
    if score <= -WIN_BOUND:
        return score + ply
    return score


class Core:
    """The state of one search: counters and limits, the evaluation, the tables the search learns."""

    def __init__(self, table: TranspositionTable) -> None:
        self.table = table
        self.nodes = 0
        self.seldepth = 0
        self.deadline = float("inf")
        self.node_limit = 1 << 62
        self.next_check = CHECK_EVERY
        self.must_finish = False
        self.stop_event: Any = None  # a threading.Event another thread may set
        self.evaluator: Evaluator | None = None
        self.custom_eval: Callable[[Position], int] | None = None
        self.giveaway = False
        self.reductions = True  # late-move reductions (Searcher.reductions)
        self.late_reductions = False  # deeper ones off the principal variation (Searcher.late_reductions)
        self.probcut = False  # the shallow search that cuts a node far above beta (Searcher.probcut)
        self.tablebase: Any = None  # shashki.engine.tablebase.Tablebase
        self.probe: Probe | None = None  # its compiled look-up (Tablebase.prober)
        self.tb_pieces = 0
        # Russian's count rules (FMJD-64 7.2.4-7.2.8) along the path: a table result is believed only
        # within what they still allow (shashki.engine.counts); None where the variant has no such rules.
        self.counts: Counts | None = None
        self.ordering = MoveOrder(MAX_PLY)  # killers, history and the move order's keys
        self.path: list[int] = []  # hashes of the positions from the root to the current node
        self.floor = 0  # the first index of `path` the current node may repeat (0: and the game's)
        self.seen: set[int] = set()  # hashes of the game's positions before the root

    # -------------------------------------------------------------------------------------------
    # Set-up between searches

    def set_variant(self, span: int) -> None:
        """A new variant: forget the move order learned (the table is cleared by the caller)."""
        self.ordering.set_variant(span)

    def new_search(self, history: set[int]) -> None:
        self.seen = history
        self.path = []
        self.floor = 0
        self.ordering.new_search()
        self.table.new_search()

    def check(self) -> None:
        if self.must_finish:
            self.next_check = self.nodes + CHECK_EVERY
            return
        if self.nodes >= self.node_limit:
            raise SearchStopped
        if time.perf_counter() >= self.deadline or self.stop_event.is_set():
            raise SearchStopped
        self.next_check = min(self.nodes + CHECK_EVERY, self.node_limit)

    def evaluate(self, pos: Position) -> int:
        ev = self.evaluator
        if ev is not None:
            return ev.score(pos)
        custom = self.custom_eval
        assert custom is not None
        return custom(pos)

    # -------------------------------------------------------------------------------------------
    # The search

    def search(self, pos: Position, depth: int, alpha: int, beta: int, ply: int) -> int:
        """The score of `pos` searched `depth` plies deep within (alpha, beta), `ply` from the root.

        - Capture is compulsory, so a position with a capture to make is never scored statically
          (draughts' quiescence); a position with a single legal move is searched one ply deeper.
        - No legal move loses, or wins in giveaway (RULES.md §3); a repetition is a draw.
        """
        self.nodes += 1
        if self.nodes >= self.next_check:
            self.check()
        if ply > self.seldepth:
            self.seldepth = ply
        key = pos.hash
        # A repetition along the path (same side to move: every second ply) or of the game: a draw.
        # Only positions since the last man move or capture can come back (`floor`).
        floor = self.floor
        if floor == 0 and key in self.seen:
            return DRAW
        path = self.path
        i = len(path) - 2
        while i >= floor:
            if path[i] == key:
                return DRAW
            i -= 2
        probe = self.probe
        if probe is not None:
            if popcount(pos.white | pos.black) <= self.tb_pieces:
                code = probe.code(pos.white, pos.black, pos.kings, pos.white_to_move)
                if code > 0:
                    if code == 1:
                        return DRAW
                    plies = (code - 2) >> 1
                    counts = self.counts
                    if counts is None:
                        if (code - 2) & 1:
                            return ply + plies - WIN
                        return WIN - ply - plies
                    bound = counts.node(pos.white, pos.black, pos.kings, pos.white_to_move, ply)
                    if bound < 0:  # a count ran out (FMJD-64 7.2.4-7.2.8): drawn here, unless the
                        if plies == 0 and (code - 2) & 1:  # side to move has no move (the win first)
                            return ply - WIN
                        return DRAW
                    if plies <= bound:
                        if (code - 2) & 1:
                            return ply + plies - WIN
                        return WIN - ply - plies
                    # Longer than the counts allow: searched on, no win or loss claimed; at the
                    # horizon the table's distance is the evaluation (nearer is better, never a win).
                    if depth <= 0:
                        return plies - TABLE_HINT if (code - 2) & 1 else TABLE_HINT - plies
            elif self.counts is not None:
                self.counts.dead(ply)
        # A position the table knows is not over and says whether it must capture and whether it
        # has a single move: its moves are generated only if the entry does not settle it.
        if depth <= 0:
            # At the horizon, a quiet position with a choice of moves is scored as it is: count the
            # moves without generating them (no capture to make), before the table is read (an
            # entry would only say what the count does: leaves are never stored).
            count = pos.quiet_move_count()
            if count >= 2:
                return self.evaluate(pos)
            if count == 0:
                return WIN - ply if self.giveaway else ply - WIN
        entry = self.table.probe(key) if ply < MAX_PLY else -1
        moves: list[Move] | None = None
        if entry >= 0:
            capture = entry_capture(entry)
            forced = entry_forced(entry)
        else:
            moves = pos.legal_moves()
            if not moves:
                # RULES.md §3: the side to move with no legal move loses, or wins in giveaway.
                return WIN - ply if self.giveaway else ply - WIN
            if ply >= MAX_PLY:
                return self.evaluate(pos)
            capture = moves[0].capture_mask != 0
            forced = len(moves) == 1
        if forced:
            depth += 1  # a forced move costs nothing (capture sequences are often forced)
        if depth <= 0 and not capture:
            return self.evaluate(pos)
        if capture and depth < 1:
            depth = 1  # captures are never cut at the horizon
        # Mate-distance pruning: nothing here can beat a win already found nearer the root.
        if alpha < ply - WIN:
            alpha = ply - WIN
        if beta > WIN - ply:
            beta = WIN - ply
        if alpha >= beta:
            return alpha

        hash_index = -1
        if entry >= 0:
            hash_index = entry_move_index(entry)
            if entry_depth(entry) >= depth:
                score = score_from_tt(entry_score(entry), ply)
                flag = entry_flag(entry)
                if flag == EXACT or (flag == LOWER and score >= beta) or (flag == UPPER and score <= alpha):
                    return score

        pv_node = beta - alpha > 1
        if (
            self.probcut
            and not pv_node
            and not capture
            and depth >= PROBCUT_DEPTH
            and -WIN_BOUND < beta < WIN_BOUND - PROBCUT_MARGIN * depth
        ):
            # ProbCut: a position whose shallow search scores well above beta is cut without the
            # full one (never where a capture is due, nor on the principal variation).
            margin = PROBCUT_MARGIN * depth
            cut = beta + margin
            score = self.search(pos, depth * 2 // 5, cut - 1, cut, ply)
            if score >= cut:
                return score - margin

        if moves is None:
            moves = pos.legal_moves()
        # The move order (`MoveOrder.order`) in two stages: the first move (the hash move, else the
        # best by its key), and only when it does not refute the position, the rest sorted. The keys
        # are taken now: the history they read changes while the first move is searched.
        n = len(moves)
        first = 0
        ordering = self.ordering
        keys = ordering.keys
        base: i64 = ply * ORDER_SLOTS
        if n > 1:
            ordering.fill_keys(pos, moves, ply, base)
            if 0 <= hash_index < n:
                first = hash_index
            else:
                top = keys[base]
                for i in range(1, n):
                    if keys[base + i] > top:
                        top = keys[base + i]
                first = int(ORDER_MASK - (top & ORDER_MASK))
        original_alpha = alpha
        best = -INFINITE
        best_index = first
        path.append(key)
        try:
            for i in range(n):
                if i == 0:
                    index = first
                else:
                    if i == 1:
                        sort_rest(keys, base, n, first)
                    index = int(keys[base + i - 1])
                move = moves[index]
                child = pos.play(move)
                if move.capture_mask or not move.by_king:
                    self.floor = len(path)  # irreversible: nothing before the child comes back
                else:
                    self.floor = floor
                if i == 0:
                    score = -self.search(child, depth - 1, -beta, -alpha, ply + 1)
                else:
                    # Late quiet moves are searched shallower first: at depth >= 3 from the fourth by a
                    # ply; with `late_reductions`, off the principal variation from the second move (by
                    # two from the fifth), never a man's promotion.
                    reduce = 0
                    if self.reductions and not capture:
                        if self.late_reductions:
                            if depth >= 2 and not move.promotes and i >= (3 if pv_node else 1):
                                reduce = 2 if (not pv_node and i >= 4 and depth >= 3) else 1
                        elif depth >= 3 and i >= 3:
                            reduce = 1
                    score = -self.search(child, depth - 1 - reduce, -alpha - 1, -alpha, ply + 1)
                    if reduce and score > alpha:
                        score = -self.search(child, depth - 1, -alpha - 1, -alpha, ply + 1)
                    if alpha < score < beta:
                        score = -self.search(child, depth - 1, -beta, -alpha, ply + 1)
                if score > best:
                    best = score
                    best_index = index
                    if score > alpha:
                        alpha = score
                        if alpha >= beta:
                            if not capture:
                                ordering.reward(move, depth, ply, pos.white_to_move)
                            break
        finally:
            path.pop()
            self.floor = floor
        flag = UPPER if best <= original_alpha else (LOWER if best >= beta else EXACT)
        self.table.store(key, depth, flag, score_to_tt(best, ply), best_index, capture, forced)
        return best
