"""The computer player's Python interface: `play` a move, `analyse` a position.

>>> from shashki.rules import Game
>>> game = Game("russian-giveaway", "W:WKg1:BKe5")
>>> result = play(game, Limit(depth=3))
>>> result.move.notation(game.variant), result.score > 0
('g1-d4', True)
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace

from shashki.engine.levels import level_setting
from shashki.engine.search import CountStates, Limit, Line, Searcher
from shashki.engine.timeman import MIN_TIME, PonderClock
from shashki.rules.game import Game
from shashki.rules.position import Move, Position


@dataclass(frozen=True)
class PlayResult:
    """The move chosen and what the search knew about it (score for the side that moved)."""

    move: Move | None
    score: int
    depth: int
    pv: tuple[Move, ...]
    nodes: int
    seconds: float = 0.0
    level: int | None = None
    book: bool = False  # the move came from the opening book, not a search

    def notation(self, variant) -> str | None:
        return self.move.notation(variant) if self.move is not None else None


def game_counts(position_or_game: Position | Game, given: CountStates | None = None) -> CountStates | None:
    """The draw counts the search starts from: `given`, else a Game's own (`Game.count_states`), else None
    (a bare position: every count starts there)."""
    if given is not None:
        return given
    if isinstance(position_or_game, Game):
        return position_or_game.count_states
    return None


def split_game(position_or_game: Position | Game) -> tuple[Position, list[int]]:
    """The position to search and the hashes of the game's earlier positions (for repetitions)."""
    if isinstance(position_or_game, Game):
        positions = position_or_game.positions
        return positions[-1], [p.hash for p in positions[:-1]]
    if isinstance(position_or_game, Position):
        return position_or_game, []
    raise TypeError(f"expected a Position or a Game, not {type(position_or_game).__name__}")


class Engine:
    """A search with its own transposition table, to be reused move after move of a game.

    `level` (1-8, see `shashki.engine.levels`) weakens the play for people; None is full strength.
    `seed` makes a weakened level's choices reproducible. `weights`: the evaluation's weights
    (`shashki.engine.evaluation`; default the shipped ones). Without a limit, `play` searches 6 plies
    (a level without a limit of its own: 1 second).

    `book`: play the opening from the variant's book (`shashki.engine.book`) in the level's way
    ("weighted" or "best", `levels.Level.book`); None (the default) follows the level, and an engine
    without a level (analysis, the Hub protocol, tests) searches every move; "off" never uses it.
    """

    def __init__(self, level: int | None = None, seed: int | None = None, weights=None,
                 book: str | None = None) -> None:
        self.level = level_setting(level) if level is not None else None
        self.random = random.Random(seed)
        self.searcher = Searcher(weights=weights)
        self.book_mode = book if book is not None else (self.level.book if self.level else None)
        if self.book_mode == "off":
            self.book_mode = None

    def analyse(
        self, position_or_game: Position | Game, limit: Limit, history: Iterable[int] = (),
        counts: CountStates | None = None, ponder: PonderClock | None = None,
    ) -> Iterator[Line]:
        """One Line (depth, score, pv, nodes, seconds) per completed iteration.

        `history`: hashes of earlier positions of the game, when a bare Position is given; `counts`: its
        draw counts (`Game.count_states`, read from a Game when one is given); `ponder`: searching on
        the opponent's time, the limit's time counting from the clock's hit (`timeman.PonderClock`).

        The search is set up by the call (`Searcher.iterate`): a `stop()` from then on ends it, even
        before the Lines are read."""
        position, earlier = split_game(position_or_game)
        history = earlier + list(history)
        counts = game_counts(position_or_game, counts)
        return self.searcher.iterate(position, limit, history, counts=counts, ponder=ponder)

    def lines(
        self, position_or_game: Position | Game, limit: Limit, count: int, history: Iterable[int] = (),
        counts: CountStates | None = None,
    ) -> list[Line]:
        """The best `count` moves, each with its own line (multi-PV), best first.

        The simple multi-PV: the root is searched once, then again without the moves already chosen, and
        so on. The first search has the whole `limit`; each later one goes no deeper than the first
        went (unless it found a forced result), so that the lines compare at one depth, and also has
        the whole limit, which it seldom needs (the transposition table holds the first search's tree):
        a later line ends shallower only when that limit runs out first. A move that never completed
        an iteration is left out.
        """
        if count < 1:
            raise ValueError("count must be at least 1")
        position, earlier = split_game(position_or_game)
        history = earlier + list(history)
        counts = game_counts(position_or_game, counts)
        remaining = position.legal_moves()
        found: list[Line] = []
        search = limit
        while remaining and len(found) < count:
            last: Line | None = None
            for line in self.searcher.iterate(position, search, history, moves=remaining, counts=counts):
                last = line
            if last is None or last.move is None:
                break
            if not found and last.mate_distance is None:
                search = replace(limit, depth=last.depth)
            found.append(last)
            remaining = [m for m in remaining if m != last.move]
        # A later search may see deeper than an earlier one: order by score, deeper first on ties.
        return sorted(found, key=lambda line: (-line.score, -line.depth))

    def play(
        self, position_or_game: Position | Game, limit: Limit | None = None, history: Iterable[int] = (),
        counts: CountStates | None = None,
    ) -> PlayResult:
        """The move to play (None when there is no legal move), at the engine's level (`counts`: see
        `analyse`)."""
        position, earlier = split_game(position_or_game)
        history = earlier + list(history)
        counts = game_counts(position_or_game, counts)
        moves = position.legal_moves()
        if not moves:
            return PlayResult(None, 0, 0, (), 0)
        limit = after_waiting(limit)
        lvl = self.level
        if self.book_mode is not None and len(moves) > 1:
            from shashki.engine.book import book_for

            book = book_for(position.variant)
            chosen = book.choose(position, self.book_mode, self.random) if book is not None else None
            if chosen is not None:
                return PlayResult(chosen.move, chosen.score, 0, (chosen.move,), 0,
                                  level=lvl.level if lvl else None, book=True)
        if lvl is not None:
            limit = _level_limit(lvl, limit)
            if lvl.blunder and self.random.random() < lvl.blunder:
                move = self.random.choice(moves)
                return PlayResult(move, 0, 0, (move,), 0, level=lvl.level)
            if lvl.noise and len(moves) > 1:
                scored = self.searcher.score_moves(position, lvl.depth or 1, history, limit.time, counts)
                noise = lvl.noise
                noisy = [(s + self.random.randint(-noise, noise), i) for i, (s, _) in enumerate(scored)]
                _, best = max(noisy)
                score, move = scored[best]
                return PlayResult(move, score, lvl.depth or 1, (move,), self.searcher.nodes, level=lvl.level)
        if limit is None:
            limit = Limit(depth=6)
        last: Line | None = None
        for line in self.searcher.iterate(position, limit, history, counts=counts):
            last = line
        if last is None:  # stopped before the first iteration ended (cannot happen: depth 1 always ends)
            return PlayResult(moves[0], 0, 0, (moves[0],), self.searcher.nodes)
        return PlayResult(last.move, last.score, last.depth, last.pv, last.nodes, last.seconds,
                          lvl.level if lvl else None)

    def stop(self) -> None:
        """Ask the search set up last (running in another thread, or about to) to return its best move
        now; the next search set up starts unstopped."""
        self.searcher.stop_event.set()


def _level_limit(lvl, limit: Limit | None) -> Limit:
    given = limit or Limit()
    depth = lvl.depth if given.depth is None else min(lvl.depth or given.depth, given.depth)
    seconds = given.time
    if seconds is None and given.remaining is not None:
        from shashki.engine.timeman import time_for_move

        seconds = time_for_move(given.remaining, given.increment, given.moves_to_go)
    if lvl.time is not None:
        seconds = lvl.time if seconds is None else min(seconds, lvl.time)
    if depth is None and seconds is None and given.nodes is None:
        seconds = 1.0  # level 8 with no limit given: one second a move
    return Limit(depth=depth, nodes=given.nodes, time=seconds)


def after_waiting(limit: Limit | None, now: float | None = None) -> Limit | None:
    """`limit` with the time waited since it was sent (`Limit.sent_at`) taken off its time, which keeps at
    least the time manager's minimum: the clock ran while the move waited for its search."""
    if limit is None or limit.sent_at is None or limit.time is None:
        return limit
    waited = max(0.0, (time.time() if now is None else now) - limit.sent_at)
    return replace(limit, time=max(MIN_TIME, limit.time - waited), sent_at=None)


def play(position_or_game: Position | Game, limit: Limit | None = None, *, level: int | None = None,
         seed: int | None = None) -> PlayResult:
    """Choose a move with a fresh engine (see `Engine.play`)."""
    return Engine(level=level, seed=seed).play(position_or_game, limit)


def analyse(position_or_game: Position | Game, limit: Limit) -> Iterator[Line]:
    """Analyse with a fresh engine: one Line per completed iteration (see `Engine.analyse`)."""
    return Engine().analyse(position_or_game, limit)
