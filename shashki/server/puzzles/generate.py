"""Puzzles from games: positions where the side to move has exactly one winning continuation.

The source is games analysed by the engine: self-play games at weak levels (the levels' noise and
blunders, drawn from the seed, make the mistakes that leave a win on the board), and finished games of
the server's players when a database is given (`shashki puzzles generate --database`). Each position of
a game is a candidate, and in the ordinary variants so is each position one mistake away from it
(`puzzles_in_game`):

1. **Screening** (cheap): the side to move must have a real choice (two legal moves or more: a forced
   capture is no puzzle start), and at `Budget.screen` plies exactly one winning move
   (`verify.Judgement.unique`: a forced win, or two men ahead in the ordinary variants, while every other
   move wins nothing).
2. **The solution** (deeper, `Budget.verify` plies: the verification): the line is built move by move —
   the solver's move must be the unique winning move again at the deeper depth, the opponent answers
   with its best defence (the longest resistance), and so on until the win is clear:
   - the game is over (no move for the opponent; in giveaway, every reply leaves the solver without a
     move: the solver wins, RULES.md §3), or
   - the endgame tables say the opponent, to move, has lost (Russian giveaway with few pieces), or
   - (ordinary variants) the solver has gained two men's worth of material (a king counts three men)
     and the opponent has no capture to take it back at once, or
   - at the solver's next turn several moves win (the win is proven by the search; the rest is
     technique with more than one road, so the puzzle stops before it).
   A solver move that is no longer the only winning one (and no other move wins either) rejects the
   candidate, and so does a line longer than `MAX_SOLVER_MOVES`. A line the tables do not prove is
   confirmed once more at its start, `CONFIRM_PLIES` deeper: the first move must still be the only one
   that wins (an audit found 45 starter puzzles with a second winning first move that a search four
   plies deeper than theirs saw).
3. **The tables** (Russian giveaway): every solver position of the line the tables cover must agree
   (the move wins, no other does); a line whose every solver position they cover is marked
   `verified="tablebase"`, others `"search"`. A disagreement rejects the candidate.

Self-play games: a few random opening moves, then two engines at weak levels (2 to 5 in giveaway, 4 to 5
in the ordinary variants, whose weakest levels hand over so much that every move wins).

Reproducible: game `index` of a run depends only on (variant, seed, index), and every search is by
depth (never by time) with fresh tables, so the same seed gives the same puzzles on any machine; worker
processes may share the games out, the results are taken in game order.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from shashki.engine.engine import Engine
from shashki.engine.search import Limit, Searcher
from shashki.rules.game import Game
from shashki.rules.position import Move, Position
from shashki.rules.variant import get_variant
from shashki.server.puzzles import themes as themes_of
from shashki.server.puzzles.verify import (
    DECISIVE,
    Judgement,
    best_defence,
    judge,
    judging_searcher,
    table_lost,
    table_of,
    table_unique,
)

MAX_SOLVER_MOVES = 8
MAX_GAME_PLIES = 200
FIRST_CANDIDATE_PLY = 6  # the opening's first moves are book, not puzzles
MIN_PIECES = 3  # two pieces on the board are an exercise, not a puzzle
KING_WORTH = 3  # men: the material count of the end test (ordinary variants)
CONFIRM_PLIES = 4  # how much deeper than the solution's depth its first move is confirmed the only win
MISTAKES_PER_POSITION = 3  # ordinary variants: the positions after a game position's mistakes searched


@dataclass(frozen=True)
class Budget:
    """Search depths in plies: `screen` for every candidate, `verify` for the solution."""

    screen: int = 5
    verify: int = 9


def default_budget(variant_key: str) -> Budget:
    """Deeper on 8×8 boards, where each search is cheaper (measured: benchmarks/puzzle_generation.py);
    the ordinary variants screen more positions (after mistakes too), each a ply shallower."""
    variant = get_variant(variant_key)
    if variant.board.squares > 32:
        return Budget(screen=3, verify=6)
    return Budget() if variant.giveaway else Budget(screen=4, verify=8)


def puzzle_id(variant: str, fen: str) -> str:
    """A puzzle's id: from its variant and position, so the same position is the same puzzle anywhere."""
    digest = hashlib.sha256(f"{variant} {fen}".encode()).hexdigest()
    return digest[:10]


@dataclass(frozen=True)
class Puzzle:
    """A verified puzzle: the start position (the solver to move), the solution in the variant's notation
    (solver first, the opponent's replies between, ending with the solver's last move), its themes."""

    variant: str
    fen: str
    solution: tuple[str, ...]
    themes: tuple[str, ...]
    verified: str  # "tablebase" or "search"
    depth: int  # the verification depth
    game: str | None = None  # the server game it came from (None: self-play)
    ply: int | None = None  # its ply in that game
    origin: str = ""  # where it came from, for people ("self-play seed 1 game 17")

    @property
    def id(self) -> str:
        return puzzle_id(self.variant, self.fen)

    @property
    def length(self) -> int:
        """The solver's moves."""
        return (len(self.solution) + 1) // 2

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "variant": self.variant, "fen": self.fen, "solution": list(self.solution),
                "themes": list(self.themes), "verified": self.verified, "depth": self.depth,
                "game": self.game, "ply": self.ply, "origin": self.origin}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Puzzle:
        return cls(data["variant"], data["fen"], tuple(data["solution"]), tuple(data["themes"]),
                   data["verified"], int(data["depth"]), data.get("game"), data.get("ply"),
                   data.get("origin", ""))


def _material(position: Position, white: bool) -> int:
    wm, wk, bm, bk = position.counts()
    balance = (wm + KING_WORTH * wk) - (bm + KING_WORTH * bk)
    return balance if white else -balance


def _clear(start: Position, after: Position, solver_white: bool, table) -> bool:
    """The win is clear once the solver has moved into `after` (the opponent to move)."""
    variant = after.variant
    replies = after.legal_moves()
    if not replies:
        return not variant.giveaway  # no move: the opponent has lost (in giveaway it would have won)
    if variant.giveaway:
        if all(not after.play(r).legal_moves() for r in replies):
            return True  # every reply leaves the solver without a move: the solver wins
        return table_lost(table, after)
    gained = _material(after, solver_white) - _material(start, solver_white)
    return gained * 100 >= DECISIVE and not replies[0].capture_mask


def solve(position: Position, depth: int, searcher: Searcher | None = None) -> tuple[list[Move], str] | None:
    """The solution from `position` at `depth` (see the module's step 2 and 3) and how it was verified,
    or None when the position is no puzzle."""
    searcher = searcher or judging_searcher(position.variant)
    table = table_of(position.variant)
    solver_white = position.white_to_move
    if len(position.legal_moves()) < 2 or (position.white | position.black).bit_count() < MIN_PIECES:
        return None
    moves: list[Move] = []
    covered = table is not None
    pos = position
    for _ in range(MAX_SOLVER_MOVES):
        judgement = judge(searcher, pos, depth)
        move = judgement.unique
        if move is None:
            if moves and len(judgement.winning) > 1:
                moves.pop()  # several roads to a proven win: the puzzle ends with the solver's last move
                break
            return None
        if table is not None:
            agrees = table_unique(table, pos, move)
            if agrees is False:
                return None
            covered = covered and agrees is True
        moves.append(move)
        after = pos.play(move)
        if _clear(position, after, solver_white, table):
            break
        reply = best_defence(searcher, after, depth)
        pos = after.play(reply)
        if not pos.legal_moves():
            break  # the reply ended the game (in the solver's favour: the search found a win)
        moves.append(reply)
    else:
        return None
    if not covered and judge(searcher, position, depth + CONFIRM_PLIES).unique != moves[0]:
        return None  # deeper, a second first move wins too (or this one no longer does)
    return moves, ("tablebase" if covered else "search")


def make_puzzle(position: Position, depth: int, *, game: str | None = None, ply: int | None = None,
                origin: str = "") -> Puzzle | None:
    """The verified puzzle starting at `position`, or None."""
    found = solve(position, depth)
    if found is None:
        return None
    moves, verified = found
    variant = position.variant
    notations: list[str] = []
    pos = position
    for move in moves:
        notations.append(move.notation(variant))
        pos = pos.play(move)
    return Puzzle(variant.key, position.fen(), tuple(notations),
                  tuple(themes_of.detect(position, moves)), verified, depth, game, ply, origin)


@dataclass
class GameSource:
    """One self-play game of a run: reproducible from (variant, seed, index)."""

    variant: str
    seed: int
    index: int
    levels: tuple[int, int] = field(default=(0, 0))

    def play(self) -> Game:
        """Random opening moves (2 to 8 plies), then two engines at weak levels (2 to 5) to the end."""
        rng = random.Random(f"puzzles {self.variant} {self.seed} {self.index}")
        game = Game(self.variant)
        for _ in range(rng.randint(2, 8)):
            if game.is_over:
                break
            game.play(rng.choice(game.legal_moves()))
        low = 2 if get_variant(self.variant).giveaway else 4
        self.levels = (rng.randint(low, 5), rng.randint(low, 5))
        engines = [Engine(level=level, seed=rng.randrange(1 << 30)) for level in self.levels]
        while not game.is_over and game.ply < MAX_GAME_PLIES:
            engine = engines[0 if game.position.white_to_move else 1]
            result = engine.play(game, Limit(depth=engine.level.depth if engine.level else 4))
            if result.move is None:
                break
            game.play(result.move)
        return game


def puzzles_in_game(positions: list[Position], budget: Budget, *, game: str | None = None,
                    origin: str = "") -> Iterator[Puzzle]:
    """The puzzles found along a game's positions (screened, then verified); after a puzzle, the
    positions its solution covers are skipped.

    In the ordinary variants, where one side soon leads by so much that every move wins, a game holds
    few positions with a single winning move; so there the positions one mistake away are candidates
    too: the screening of a game position scores every move, and after each of the first
    `MISTAKES_PER_POSITION` moves that lose two men or more (the mildest first) the opponent may have
    exactly one way to punish it. Mistakes next to each other often leave the same shot: a solution
    already found after another mistake of the game is not offered again."""
    if not positions:
        return
    screener = judging_searcher(positions[0].variant)
    skip_to = FIRST_CANDIDATE_PLY
    shots: set[tuple[str, ...]] = set()
    for ply, position in enumerate(positions):
        if ply < skip_to or len(position.legal_moves()) < 2:
            continue
        judgement = judge(screener, position, budget.screen)
        if judgement.unique is None:
            if not position.variant.giveaway:
                for shot in _after_mistakes(screener, judgement, budget, ply, origin):
                    if shot.solution not in shots:
                        shots.add(shot.solution)
                        yield shot
            continue
        puzzle = make_puzzle(position, budget.verify, game=game, ply=ply, origin=origin)
        if puzzle is not None:
            skip_to = ply + len(puzzle.solution) + 1
            yield puzzle


def _after_mistakes(screener: Searcher, judgement: Judgement, budget: Budget, ply: int,
                    origin: str) -> Iterator[Puzzle]:
    variant = judgement.position.variant
    mistakes = [m for score, m in judgement.scored if score <= -DECISIVE][:MISTAKES_PER_POSITION]
    for mistake in mistakes:
        child = judgement.position.play(mistake)
        if len(child.legal_moves()) < 2 or judge(screener, child, budget.screen).unique is None:
            continue
        puzzle = make_puzzle(child, budget.verify, ply=ply + 1,
                             origin=f"{origin}, ply {ply + 1} after {mistake.notation(variant)}")
        if puzzle is not None:
            yield puzzle


def self_play_puzzles(variant: str, seed: int, index: int, budget: Budget | None = None) -> list[Puzzle]:
    """Game `index` of a run with `seed`: played, then searched for puzzles (a worker's unit of work)."""
    budget = budget or default_budget(variant)
    source = GameSource(variant, seed, index)
    game = source.play()
    return list(puzzles_in_game(game.positions[:-1], budget, origin=f"self-play seed {seed} game {index}"))



def _work(args: tuple[str, int, int, Budget]) -> tuple[int, list[Puzzle]]:
    return args[2], self_play_puzzles(*args)


def generate_puzzles(variant: str, seed: int, *, budget: Budget | None = None, workers: int = 1,
                     start: int = 0) -> Iterator[tuple[int, Puzzle | None]]:
    """Self-play games `start`, `start + 1`, ... of a run, each searched for puzzles: yields (game index,
    puzzle) for every new puzzle (a position already found in this run is dropped) and (game index,
    None) after each game, in game order whatever the number of worker processes. Endless: the caller
    stops when it has enough."""
    import itertools

    variant = get_variant(variant).key
    budget = budget or default_budget(variant)
    seen: set[str] = set()
    jobs = ((variant, seed, index, budget) for index in itertools.count(start))
    if workers > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            while True:  # in batches: a pool reads its whole list of jobs at once
                batch = list(itertools.islice(jobs, 8 * workers))
                for index, found in pool.imap(_work, batch):
                    yield from _fresh(index, found, seen)
    else:
        for job in jobs:
            yield from _fresh(*_work(job), seen)


def _fresh(index: int, found: list[Puzzle], seen: set[str]) -> Iterator[tuple[int, Puzzle | None]]:
    for puzzle in found:
        if puzzle.id not in seen:
            seen.add(puzzle.id)
            yield index, puzzle
    yield index, None


def game_puzzles(variant: str, game_id: str, fen: str | None, moves: list[str],
                 budget: Budget | None = None) -> list[Puzzle]:
    """A finished game of the server's players searched for puzzles (its moves replayed by the rules;
    a game whose record the rules refuse is skipped)."""
    from shashki.rules import RulesError

    budget = budget or default_budget(variant)
    try:
        game = Game.replay(moves, variant, fen)
    except (RulesError, ValueError):
        return []
    return list(puzzles_in_game(game.positions, budget, game=game_id, origin=f"game {game_id}"))
