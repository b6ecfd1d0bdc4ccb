"""The search: iterative deepening principal variation search (alpha-beta with null windows).

This module drives the search (the iterations and their limits, the node search set up for the position's
variant, endgame tables and draw counts); each iteration's root, with its aspiration window, and the
principal variation are `shashki.engine.root`; what runs at every node below is `shashki.engine.alphabeta`,
compiled with mypyc.

- A transposition table keyed by the position's Zobrist hash (`Position.hash`) keeps, per position, the
  depth searched, the score and whether it is exact or a bound, and the best move found; in buckets of
  four, replaced by depth and age, kept from move to move of a game (`transposition.TranspositionTable`).
- Aspiration windows: from depth 4 each iteration first searches a narrow window around the last
  iteration's score (measured with benchmarks/engine_ab.py: not weaker at equal nodes).
- Late-move reductions: quiet moves after the first three, at depth 3 or more, are searched a ply
  shallower first, and again at full depth if they beat alpha. In the ordinary variants the search is
  more selective (`late_reductions`, `probcut`: deeper reductions off the principal variation, and
  ProbCut, measured stronger at equal time); giveaway keeps the full-width search, where they lost.
- Move ordering: the hash move, then captures (most pieces taken first), then the two killer moves of the
  ply, then quiet moves by their history score.
- Capture extension: a position where the side to move must capture is never scored statically, at any
  depth (draughts' quiescence: capture is compulsory, so the captures are the only moves); a position
  with a single legal move is searched one ply deeper for free.
- Results come from the variant (RULES.md §3): no legal move loses, or wins in the giveaway forms.
  A position repeated along the search path (or from the game before it) scores as a draw.
- Limits: depth, nodes, time, and a `stop` event another thread may set (cleared as a search is set up,
  `Searcher.iterate`, never once it is under way).

Scores are in hundredths of a man, from the side to move's point of view; a win in n plies scores
`WIN - n` (`mate_distance` turns it back into plies).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from shashki.engine.alphabeta import (
    CHECK_EVERY,
    DRAW,
    INFINITE,
    MAX_PLY,
    WIN,
    WIN_BOUND,
    Core,
    SearchStopped,
)
from shashki.engine.counts import Counts, long_diagonal
from shashki.engine.evaluation import Evaluator, Weights
from shashki.engine.root import aspire, principal_variation
from shashki.engine.tablebase import Tablebase, default_tablebase, has_tables
from shashki.engine.timeman import PonderClock, time_for_move
from shashki.engine.transposition import TranspositionTable
from shashki.rules.position import Move, Position
from shashki.rules.variant import DrawRule, Variant

# A game's draw counts (`Game.count_states`): per rule counting now, (count, limit) in plies.
CountStates = dict[DrawRule, tuple[int, int]]

# Russian: from this many pieces down, each search starts with an empty transposition table (the counts
# change from move to move, and the table's scores do not know them).
COUNTED_ENDING = 8

__all__ = ["DRAW", "INFINITE", "MAX_PLY", "WIN", "WIN_BOUND", "CountStates", "Limit", "Line", "SearchStopped",
           "Searcher"]


@dataclass(frozen=True)
class Limit:
    """When to stop searching. None = no limit of that kind; the first iteration (depth 1) always
    completes, so there is always a move to play.

    `time` is seconds for this move; `remaining`/`increment` describe a game clock and are turned into a
    time for this move by `shashki.engine.timeman.time_for_move` when `time` is not given. `sent_at` is
    when (`time.time()`) the clock was read for this move: what a move waits before its search starts (a
    queue of other games' moves, another process) comes off its `time` (`Engine.play`), since the clock
    runs meanwhile.
    """

    depth: int | None = None
    nodes: int | None = None
    time: float | None = None
    remaining: float | None = None
    increment: float = 0.0
    moves_to_go: int | None = None
    sent_at: float | None = None

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


@dataclass
class Searcher:
    """One search at a time; keeps its transposition table and history between searches of a game.

    The work at every node is `shashki.engine.alphabeta.Core` (compiled); this class drives it.
    """

    # The evaluation: a function of a position, or else the variant's evaluator with `weights`
    # (a DraughtsWeights/GiveawayWeights; None = the shipped ones).
    evaluate: Callable[[Position], int] | None = None
    weights: Weights | None = None
    table: TranspositionTable = field(default_factory=TranspositionTable)
    stop_event: threading.Event = field(default_factory=threading.Event)
    # Endgame tables (shashki.engine.tablebase) probed in Russian giveaway and Russian; None = the shipped
    # ones (given, they must be the variant's).
    tablebase: Tablebase | None = None
    use_tablebase: bool = True
    # Aspiration windows: from depth root.ASPIRATION_DEPTH on, each iteration first searches a window of
    # ±root.ASPIRATION_WINDOW around the last score, widening it only when the score falls outside.
    aspiration: bool = True
    # Late-move reductions: quiet moves after the first three, at depth 3 or more, searched a ply
    # shallower first (and again at full depth if they beat alpha).
    reductions: bool = True
    # Selective search in the ordinary variants (issue 15), both measured by benchmarks/engine_ab.py at
    # equal time. Deeper late-move reductions: off the principal variation from the second quiet move by
    # a ply, from the fifth by two (on it, from the fourth by one); never a promotion. ProbCut: a node
    # off the principal variation whose search at 2/5 of the depth scores 10 a ply above beta is cut.
    # Giveaway keeps the full-width search: its play is sacrifices a quiet move deep, and both lost
    # there (docs/engine.md, "Kept on 2026-12-06").
    late_reductions: bool = True
    probcut: bool = True

    def __post_init__(self) -> None:
        self._core = Core(self.table)
        self._variant_key: str | None = None
        self._count_rules: Counts | None = None

    @property
    def nodes(self) -> int:
        """Positions entered by the last search (captures searched out included)."""
        return self._core.nodes

    @property
    def seldepth(self) -> int:
        """The deepest ply the last search reached."""
        return self._core.seldepth

    # -------------------------------------------------------------------------------------------
    # Public

    def iterate(
        self,
        position: Position,
        limit: Limit,
        history: Iterable[int] = (),
        moves: Iterable[Move] | None = None,
        counts: CountStates | None = None,
        ponder: PonderClock | None = None,
    ) -> Iterator[Line]:
        """Search deeper and deeper, yielding a Line after each completed iteration.

        `history`: hashes of the positions of the game before this one (for repetitions).
        `moves`: restrict the root to these moves (they must be legal moves of `position`).
        `counts`: the game's draw counts (`Game.count_states`); None = every count starts here.
        `ponder`: pondering; the limit's time counts from the clock's hit (depth and nodes as usual).

        The search is set up by this call and runs as its Lines are read. The stop (`stop_event`) is
        cleared here, by the caller's thread, not when the iterations start: a stop asked for from
        another thread once the search is set up ends it, even one that comes before the search has
        started to run (its first iteration still completes), and a stop left over from an earlier
        search never reaches this one.
        """
        self.stop_event.clear()
        return self._search(position, limit, history, moves, counts, ponder)

    def _search(
        self, position: Position, limit: Limit, history: Iterable[int], moves: Iterable[Move] | None,
        counts: CountStates | None, ponder: PonderClock | None,
    ) -> Iterator[Line]:
        """`iterate`'s search, run as its Lines are read: its limits set, then its iterations."""
        core = self._prepare(position, history, counts)
        start = time.perf_counter()
        core.nodes = 0
        core.node_limit = limit.nodes if limit.nodes is not None else 1 << 62
        seconds = limit.time
        if seconds is None and limit.remaining is not None:
            seconds = time_for_move(limit.remaining, limit.increment, limit.moves_to_go)
        core.deadline = start + seconds if seconds is not None else float("inf")
        if ponder is not None:  # no time is spent until the hit
            core.deadline = float("inf")
            budget = seconds

            def hit(when: float) -> None:
                if budget is not None:
                    core.deadline = when + budget

            hit_at = ponder.attach(hit)
            if hit_at is not None:
                hit(hit_at)
        try:
            yield from self._deepen(position, limit, moves, core, start, seconds, ponder)
        finally:
            if ponder is not None:
                ponder.attach(None)

    def _deepen(
        self, position: Position, limit: Limit, moves: Iterable[Move] | None, core: Core, start: float,
        seconds: float | None, ponder: PonderClock | None,
    ) -> Iterator[Line]:
        """`iterate`'s iterations, its limits set."""
        core.next_check = min(CHECK_EVERY, core.node_limit)
        root_moves = list(moves) if moves is not None else position.legal_moves()
        if not root_moves:
            return
        max_depth = min(limit.depth if limit.depth is not None else MAX_PLY, MAX_PLY)
        if len(root_moves) == 1 and limit.depth is None:
            # One legal move: no need to think (but still say what it leads to, shallowly).
            max_depth = min(max_depth, 4)
        score = 0
        for depth in range(1, max_depth + 1):
            core.seldepth = 0
            core.must_finish = depth == 1  # the first iteration always completes: a move to play
            core.next_check = min(core.nodes + CHECK_EVERY, core.node_limit)
            try:
                score = aspire(core, position, root_moves, depth, score, self.aspiration)
            except SearchStopped:
                return
            pv = principal_variation(core, position, depth)
            if not pv or pv[0] not in root_moves:
                pv = (root_moves[0],)
            yield Line(depth, score, pv, core.nodes, time.perf_counter() - start, core.seldepth)
            if score >= WIN_BOUND and WIN - score <= depth:
                return  # a forced win inside the horizon: deeper search cannot improve on it
            clock = start if ponder is None else ponder.hit_at  # pondering: no time spent until the hit
            if seconds is not None and clock is not None and time.perf_counter() - clock > seconds * 0.55:
                return  # the next iteration would not finish in time

    def score_moves(
        self, position: Position, depth: int, history: Iterable[int] = (), seconds: float | None = None,
        counts: CountStates | None = None,
    ) -> list[tuple[int, Move]]:
        """Every legal move with its score (full window; for the levels' randomness), searched 1, 2, ...
        `depth` plies deep as time allows: the scores of the deepest depth completed in `seconds`.
        Like `iterate`, it starts without a stop left over from an earlier search."""
        self.stop_event.clear()
        core = self._prepare(position, history, counts)
        start = time.perf_counter()
        core.deadline = start + seconds if seconds is not None else float("inf")
        core.node_limit = 1 << 62
        core.nodes = 0
        results: list[tuple[int, Move]] = []
        for d in range(1, depth + 1):
            core.must_finish = d == 1
            core.next_check = core.nodes + CHECK_EVERY
            scored = []
            core.path.append(position.hash)
            try:
                for move in position.legal_moves():
                    child = position.play(move)
                    scored.append((-core.search(child, d - 1, -INFINITE, INFINITE, 1), move))
            except SearchStopped:
                break
            finally:
                core.path.pop()
            results = scored
        return results

    # -------------------------------------------------------------------------------------------
    # Internals

    def warm(self, variant: Variant | None) -> None:
        """Load what a search of `variant` reads from disk (its endgame tables: some 0.8 s of decompression
        for Russian) now, not within the first search's time (the Hub's `init`)."""
        if variant is not None and self.tablebase is None and self.use_tablebase and has_tables(variant):
            default_tablebase(variant.key)

    def _prepare(self, position: Position, history: Iterable[int], counts: CountStates | None = None) -> Core:
        core = self._core
        core.table = self.table
        core.stop_event = self.stop_event
        variant = position.variant
        if variant.key != self._variant_key:
            self._variant_key = variant.key
            self.table.clear()
            core.set_variant(max(variant.board.rows) + 1)
            if self.evaluate is None:
                core.evaluator = Evaluator(variant, self.weights)
                core.custom_eval = None
            else:
                core.evaluator = None
                core.custom_eval = self.evaluate
        core.giveaway = variant.giveaway
        core.reductions = self.reductions
        core.late_reductions = self.late_reductions and not variant.giveaway
        core.probcut = self.probcut and not variant.giveaway
        core.tablebase = None
        core.probe = None
        core.tb_pieces = 0
        core.counts = None
        if self.use_tablebase and has_tables(variant):
            # (the double-diagonal draw is a convention the tables do not know: RULES.md §3)
            tb = self.tablebase if self.tablebase is not None else default_tablebase(variant.key)
            core.tablebase, core.probe, core.tb_pieces = tb, tb.prober, tb.pieces
            if DrawRule.KING_MOVES_15 in variant.active_draw_rules:  # Russian: FMJD-64's count rules
                core.counts = self._counts(position, counts)
                if (position.white | position.black).bit_count() <= COUNTED_ENDING:
                    # The scores stored by earlier searches were found under earlier counts: a win then
                    # may be too late now. (Within one search, a position's score may still come from
                    # another path with other counts, as with repetitions.)
                    self.table.clear()
        core.new_search(set(history))
        return core

    def _counts(self, position: Position, states: CountStates | None) -> Counts:
        """The count rules along the search path (shashki.engine.counts), with the root's counts."""
        if self._count_rules is None:
            self._count_rules = Counts(long_diagonal(position.variant.board.by_name), MAX_PLY + 2)
        tracker = self._count_rules
        given = states or {}

        def state(rule: DrawRule) -> tuple[int, int]:
            return given.get(rule, (-1, 0))

        quiet = state(DrawRule.KING_MOVES_15)[0]
        progress = state(DrawRule.NO_PROGRESS_30_60)[0]
        kings3, kings3_limit = state(DrawRule.KINGS_3_VS_1_15)
        long, long_limit = state(DrawRule.LONG_DIAGONAL_5)
        small, small_limit = state(DrawRule.SMALL_ENDING_5)
        tracker.root(position.white, position.black, position.kings, position.white_to_move, max(quiet, 0),
                     progress, kings3, kings3_limit, long, long_limit, small, small_limit, states is not None)
        return tracker
