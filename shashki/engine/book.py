"""Opening books: for the positions of a variant's first plies, the moves the engine's own self-play chose
there, each with how often it was chosen (its weight) and the engine's score for it.

A book is one gzipped JSON file per variant, `shashki/engine/books/<variant key>.json.gz`, written by
`shashki engine book build` (`shashki.engine.book_build`: reproducible from its seed). Its positions are
keyed by FEN (the rules' own text of a position, stable across versions of the search and its hashes);
at load they are indexed by the position's Zobrist hash for the lookup, and the FEN is compared on a hit.
Moves are stored in the variant's notation and resolved through the rules at lookup, so a book never
makes the engine play a move the rules refuse (tests/engine/test_book.py replays every entry).

    {"format": 1, "variant": "russian", "seed": 1, "plies": 10, "games": 300, "depth": 6,
     "positions": {"W:W21,...:B1,...": [["c3-d4", 41, 12], ["g3-h4", 7, -3]], ...}}

Each move: notation, weight (the times self-play chose it), score (hundredths of a man for the side to
move, the search's scale: `shashki.engine.search`).

How the engine uses it (`Engine.play`, per `levels.Level.book`): "weighted" picks among the moves at
random in proportion to their weights (variety for people), "best" takes the best-scored move (the top
level); a position not in the book, or a variant without one, is searched as always.

>>> from shashki.rules import Position, get_variant
>>> start = Position.start(get_variant("russian-giveaway"))
>>> moves = book_for(start.variant).moves(start)
>>> bool(moves) and all(m.move in start.legal_moves() for m in moves)
True
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from shashki.rules.position import Move, Position
from shashki.rules.variant import Variant

BOOKS = Path(__file__).with_name("books")
FORMAT = 1


@dataclass(frozen=True)
class BookMove:
    """One of a book position's moves: the rules' move, its notation, weight and score (side to move)."""

    move: Move
    notation: str
    weight: int
    score: int


class Book:
    """A variant's book: FEN -> [(notation, weight, score), ...], looked up by the position's hash."""

    def __init__(self, variant: Variant, positions: dict[str, list[list[Any]]],
                 meta: dict[str, Any] | None = None) -> None:
        self.variant = variant
        self.meta = meta or {}
        self.entries: dict[str, list[tuple[str, int, int]]] = {
            fen: [(str(n), int(w), int(s)) for n, w, s in moves] for fen, moves in positions.items()
        }
        self._by_hash: dict[int, str] = {}
        for fen in self.entries:
            self._by_hash[Position.from_fen(fen, variant).hash] = fen

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, position: Position) -> bool:
        return self._fen_of(position) is not None

    def _fen_of(self, position: Position) -> str | None:
        if position.variant != self.variant:
            return None
        fen = self._by_hash.get(position.hash)
        if fen is None or fen != position.fen():  # a hash collision is not a hit
            return None
        return fen

    def moves(self, position: Position) -> list[BookMove]:
        """The book's moves for `position`, best-scored first (ties: the more played); [] if not in it.

        Each notation is resolved against the position's legal moves: one that is not legal (a book
        written under other rules) is left out rather than played.
        """
        fen = self._fen_of(position)
        if fen is None:
            return []
        legal = {m.notation(self.variant): m for m in position.legal_moves()}
        found = [BookMove(legal[n], n, w, s) for n, w, s in self.entries[fen] if n in legal]
        return sorted(found, key=lambda m: (-m.score, -m.weight, m.notation))

    def choose(self, position: Position, mode: str, rng: random.Random) -> BookMove | None:
        """The book's move for the position: `mode` "best" (the best-scored) or "weighted" (at random,
        in proportion to the weights); None when the position is not in the book."""
        moves = self.moves(position)
        if not moves:
            return None
        if mode == "best":
            return moves[0]
        if mode != "weighted":
            raise ValueError(f"book mode is 'best' or 'weighted', not {mode!r}")
        weights = [max(m.weight, 0) for m in moves]
        if not any(weights):
            return moves[0]
        return rng.choices(moves, weights=weights)[0]

    # -- files ----------------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        positions = {fen: [list(m) for m in moves] for fen, moves in sorted(self.entries.items())}
        return {"format": FORMAT, "variant": self.variant.key, **self.meta, "positions": positions}

    def save(self, path: Path) -> int:
        """Write the book (gzipped JSON, reproducible bytes: no time stamp); returns the file's size."""
        data = json.dumps(self.to_json(), separators=(",", ":"), ensure_ascii=False).encode()
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as out:
            out.write(data)
        return path.stat().st_size

    @classmethod
    def load(cls, path: Path, variant: Variant) -> Book:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            data = json.load(f)
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: book format {data.get('format')!r}, expected {FORMAT}")
        if data.get("variant") != variant.key:
            raise ValueError(f"{path}: a book of {data.get('variant')!r}, not {variant.key!r}")
        meta = {k: v for k, v in data.items() if k not in ("format", "variant", "positions")}
        return cls(variant, data["positions"], meta)


def book_path(variant: Variant) -> Path:
    return BOOKS / f"{variant.key}.json.gz"


@cache
def book_for(variant: Variant) -> Book | None:
    """The shipped book of a variant (loaded once per process), or None: no book for it, or the
    double-diagonal option (its own start position; RULES.md §3), which the books do not cover."""
    if variant.double_diagonal:
        return None
    path = book_path(variant)
    if not path.exists():
        return None
    return Book.load(path, variant)


def shipped_variants() -> list[str]:
    """The variant keys that have a book in the package."""
    return sorted(p.name.removesuffix(".json.gz") for p in BOOKS.glob("*.json.gz"))
