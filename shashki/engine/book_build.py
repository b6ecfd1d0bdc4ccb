"""Building an opening book from the engine's self-play (`shashki engine book build`).

The engine plays `games` games against itself for their first `plies` plies. In each position it meets,
every legal move is scored by full-window searches `depth - 1` and `depth` plies deep
(`Searcher.score_moves`; the mean of the two, `smoothed_scores`; once per position: the scores are kept
for the next game that passes there); the moves within `margin` of the
best are its candidates, and the self-play picks one of them at random, the better-scored more often
(weight `exp((score - best) / temperature)`). A book position records each candidate the games chose,
with the number of times it was chosen (its weight) and its score.

Everything random comes from one `random.Random(seed)`, and the search is deterministic at a fixed
depth, so the same command writes the same file, byte for byte (the gzip header carries no time).
The search is the engine's as it is when the book is built: a stronger engine later may prefer other
moves, and the book is then rebuilt with the same command.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable

from shashki.engine.book import Book
from shashki.engine.search import WIN_BOUND, Searcher
from shashki.rules.position import Position
from shashki.rules.variant import Variant

Progress = Callable[[int, int, int], None]  # (games done, games, positions in the book)


def candidates(scored: list[tuple[int, str]], margin: int, most: int) -> list[tuple[int, str]]:
    """The moves worth a book entry: within `margin` of the best score, at most `most`, best first.

    A proven result is kept apart from the material scale: when the best move wins by force only the
    moves that also win are candidates, and a move that loses by force never is (unless all do)."""
    ordered = sorted(scored, key=lambda sm: (-sm[0], sm[1]))
    best = ordered[0][0]
    if best >= WIN_BOUND:
        chosen = [sm for sm in ordered if sm[0] >= WIN_BOUND]
    elif best <= -WIN_BOUND:
        chosen = ordered[:1]
    else:
        chosen = [sm for sm in ordered if sm[0] > -WIN_BOUND and best - sm[0] <= margin]
    return chosen[:most]


def default_margin(variant: Variant) -> int:
    """How far below the best a book move may score, in the evaluation's hundredths of a man.

    The giveaway evaluation (evaluation.py, tuned weights) spreads the opening moves over hundreds
    (at depth 6 from the start of Russian giveaway: +318, +289, +119, -260, ...), the ordinary one over
    a few (Russian: +1, -3, -3, -8, ...): the same margin would keep one giveaway move or every
    ordinary one."""
    return 200 if variant.giveaway else 12


def smoothed_scores(searcher: Searcher, position: Position, depth: int) -> list[tuple[int, str]]:
    """Every legal move's score: the mean of its scores at `depth` and `depth - 1` plies.

    The evaluation swings between odd and even depths (the side that moved last looks better; in
    giveaway by hundreds: from its start c3-d4 scores +119 at depth 8 and -238 at depth 9), so one
    depth alone would fill the book with whichever side the parity favours. A proven result (a forced
    win or loss, past `WIN_BOUND`) is taken from the deeper search as it is."""
    variant = position.variant
    shallow = {m: s for s, m in searcher.score_moves(position, max(depth - 1, 1))} if depth > 1 else {}
    out = []
    for score, move in searcher.score_moves(position, depth):
        before = shallow.get(move, score)
        if abs(score) < WIN_BOUND and abs(before) < WIN_BOUND:
            score = (score + before) // 2
        out.append((score, move.notation(variant)))
    return out


def build(
    variant: Variant,
    *,
    seed: int = 1,
    plies: int = 10,
    games: int = 200,
    depth: int = 5,
    margin: int | None = None,
    most: int = 4,
    temperature: float | None = None,
    progress: Progress | None = None,
) -> Book:
    """The book of `games` self-play openings of `plies` plies (see the module's docstring).

    `margin` and `temperature` default to the variant's scale (`default_margin`)."""
    margin = default_margin(variant) if margin is None else margin
    temperature = margin / 2 if temperature is None else temperature
    rng = random.Random(seed)
    searcher = Searcher()
    scores: dict[str, list[tuple[int, str]]] = {}  # FEN -> candidates (score, notation)
    chosen: dict[str, Counter[str]] = {}
    start = Position.start(variant)
    for game in range(games):
        position = start
        for _ in range(plies):
            moves = position.legal_moves()
            if not moves:
                break
            fen = position.fen()
            if fen not in scores:
                scores[fen] = candidates(smoothed_scores(searcher, position, depth), margin, most)
            options = scores[fen]
            best = options[0][0]
            weights = [math.exp(max(s - best, -50 * temperature) / temperature) for s, _ in options]
            _, notation = rng.choices(options, weights=weights)[0]
            chosen.setdefault(fen, Counter())[notation] += 1
            position = position.play(position.parse_move(notation))
        if progress is not None:
            progress(game + 1, games, len(chosen))
    positions = {
        fen: [[n, chosen[fen][n], s] for s, n in scores[fen] if chosen[fen][n]] for fen in chosen
    }
    meta = {"seed": seed, "plies": plies, "games": games, "depth": depth, "margin": margin, "most": most,
            "temperature": temperature}
    return Book(variant, positions, meta)
