"""The transposition table: what the search learned about each position, kept from move to move.

Written for mypyc like `shashki.engine.alphabeta`, which probes it at every node (setup.py compiles
both): the entries are packed 64-bit ints in one flat `vec[i64]` (librt, mypyc's runtime library: a
C array that compiled code reads without boxing), so a probe allocates nothing and touches one cache
line, where a list of ints reads a pointer and then the int object it points to.
"""

from __future__ import annotations

from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

EXACT: Final = 0
LOWER: Final = 1
UPPER: Final = 2

# The transposition table starts small and grows (x4) when half full, up to TT_MAX_ENTRIES: 32 MB when
# full (two 64-bit slots an entry).
TT_MIN_ENTRIES: Final = 1 << 16
TT_MAX_ENTRIES: Final = 1 << 21
BUCKET: Final = 4  # entries a position may go to: a new one replaces the least useful of them

# A table entry packed into one int: flag (2 bits), move index + 1 (11 bits), depth (8 bits), the
# search it was stored in (8 bits), whether the position has a single legal move and whether it must
# capture (1 bit each), then the score shifted to be positive. Draughts positions have far fewer than
# 2,047 legal moves; a search's depth is at most alphabeta.MAX_PLY.
_MOVE_SHIFT: Final = 2
_DEPTH_SHIFT: Final = 13
_AGE_SHIFT: Final = 21
_FORCED_BIT: Final = 29
_CAPTURE_BIT: Final = 30
_SCORE_SHIFT: Final = 31
_SCORE_OFFSET: Final = 1 << 16
_AGE_WEIGHT: Final = 8  # a search ago counts as much as 8 plies of depth when choosing what to replace


class TranspositionTable:
    """Position hash -> (depth searched, EXACT/LOWER/UPPER, score, index of the best move in
    `legal_moves()`), kept from search to search of a game: `clear()` forgets everything.

    A position goes to one bucket of BUCKET entries chosen by its hash. The entries live in one flat
    vector, hash and packed entry side by side (no object per entry, no dict to resize). When a bucket
    is full, a new position replaces the entry with the least depth, entries of earlier searches
    counting as shallower (aging): so the table needs no clearing between moves, and what the last
    searches found stays while it is still worth something. The table starts small and grows as it
    fills, up to `max_entries`.
    """

    def __init__(self, max_entries: int = TT_MAX_ENTRIES) -> None:
        self.max_entries = 1 << (max(max_entries, BUCKET).bit_length() - 1)  # a power of two
        self.generation = 0
        self.filled = 0
        self.capacity = 0
        self.mask = 0
        self.slots: vec[i64] = vec[i64]()
        self._allocate(min(TT_MIN_ENTRIES, self.max_entries))

    def _allocate(self, entries: int) -> None:
        self.capacity = entries
        self.mask = entries - BUCKET  # hash & mask: the first entry of a bucket
        self.slots = _zeros(2 * entries)
        self.filled = 0

    def __len__(self) -> int:
        return self.filled

    def clear(self) -> None:
        # Emptied at the size reached (a new vector of the same length): a search running in another
        # thread (the Hub protocol's `new-game` may come during one) never sees the slots and the mask
        # disagree.
        self.slots = _zeros(len(self.slots))
        self.filled = 0

    def new_search(self) -> None:
        """Called before each search: what is stored from now on is newer than what is there."""
        self.generation = (self.generation + 1) & 0xFF

    def probe(self, key: int) -> int:
        """The packed entry of a position, or -1 (see `entry_depth`, `entry_score`, ...)."""
        slots = self.slots
        i = 2 * (key & self.mask)
        end = i + 2 * BUCKET
        while i < end:
            if slots[i] == key:
                data = slots[i + 1]
                if data:
                    return data
            i += 2
        return -1

    def move_index(self, key: int) -> int:
        """The index of the best move found for a position in its `legal_moves()`, or -1."""
        entry = self.probe(key)
        return -1 if entry < 0 else entry_move_index(entry)

    def store(
        self, key: int, depth: int, flag: int, score: int, move_index: int, capture: bool, forced: bool
    ) -> None:
        """Keep what a search found: `capture` and `forced` say whether the position must capture and
        whether it has a single legal move (so that a later visit can use the entry unmoved)."""
        data = (
            ((score + _SCORE_OFFSET) << _SCORE_SHIFT)
            | ((1 if capture else 0) << _CAPTURE_BIT)
            | ((1 if forced else 0) << _FORCED_BIT)
            | (self.generation << _AGE_SHIFT)
            | (depth << _DEPTH_SHIFT)
            | ((move_index + 1) << _MOVE_SHIFT)
            | flag
        )
        self._put(key, data)
        if self.filled * 2 > self.capacity and self.capacity < self.max_entries:
            self._grow()

    def _put(self, key: int, data: int) -> None:
        slots = self.slots
        base = 2 * (key & self.mask)
        generation = self.generation
        victim = base
        least = 1 << 30
        for i in range(base, base + 2 * BUCKET, 2):
            old = slots[i + 1]
            if old == 0:
                # Buckets fill from the front and entries are never removed one by one: the rest
                # of the bucket is empty too.
                self.filled += 1
                victim = i
                break
            if slots[i] == key:
                victim = i
                break
            age = (generation - ((old >> _AGE_SHIFT) & 0xFF)) & 0xFF
            worth = ((old >> _DEPTH_SHIFT) & 0xFF) - _AGE_WEIGHT * age
            if worth < least:
                least = worth
                victim = i
        slots[victim] = key
        slots[victim + 1] = data

    def _grow(self) -> None:
        old = self.slots
        self._allocate(min(self.capacity * 4, self.max_entries))
        for i in range(0, len(old), 2):
            data = old[i + 1]
            if data:
                self._put(old[i], data)


def _zeros(n: int) -> vec[i64]:
    return vec[i64]([0] * n)


def entry_move_index(entry: int) -> int:
    return ((entry >> _MOVE_SHIFT) & 0x7FF) - 1


def entry_depth(entry: int) -> int:
    return (entry >> _DEPTH_SHIFT) & 0xFF


def entry_score(entry: int) -> int:
    return (entry >> _SCORE_SHIFT) - _SCORE_OFFSET


def entry_flag(entry: int) -> int:
    """EXACT, LOWER (the score is at least this) or UPPER (at most this)."""
    return entry & 3


def entry_capture(entry: int) -> bool:
    """Whether the position must capture."""
    return (entry >> _CAPTURE_BIT) & 1 != 0


def entry_forced(entry: int) -> bool:
    """Whether the position has a single legal move."""
    return (entry >> _FORCED_BIT) & 1 != 0
