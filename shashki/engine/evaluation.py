"""Static evaluation: what a quiet position is worth to the side to move, in hundredths of a man.

Two evaluations, because what matters differs (issue 3):

- ordinary draughts (`DraughtsWeights`): material, with kings worth more than men; men advanced towards
  promotion; the back row kept as a guard; the centre; mobility; pieces left hanging.
- giveaway (`GiveawayWeights`): material you still have to give away counts *against* you, kings most
  of all (a flying king is hard to lose); mobility and tempo (how far the men have advanced); pieces the
  opponent can be made to capture.

Every weight is a named field of one frozen dataclass. The giveaway weights shipped in the package
(`giveaway_weights.json`, next to this module) come from `benchmarks/tune_giveaway.py`; the dataclass
defaults are the hand-set starting point of that tuning.

Every feature is computed with a handful of shifts and popcounts on the position's bitboards (see
`shashki.rules.board`: one diagonal step is the same shift everywhere, off-board steps land on ghost
bits outside the board mask), so the same code serves 8×8 and 10×10 boards.

>>> from shashki.rules import Position, get_variant
>>> evaluate = evaluator(get_variant("russian"))
>>> evaluate(Position.start(get_variant("russian")))
0
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, fields
from functools import cache
from pathlib import Path
from types import FunctionType
from typing import Final

from shashki.rules.position import Position
from shashki.rules.variant import Variant

WEIGHTS_FILE = Path(__file__).with_name("giveaway_weights.json")


@dataclass(frozen=True)
class DraughtsWeights:
    """Ordinary draughts (no legal move loses). Positive = good for the side that has it."""

    man: int = 100
    king: int = 300  # a flying king; one-square kings are worth less (see `short_king`)
    short_king: int = 160  # English and Italian kings move one square
    advance: int = 3  # per row a man has advanced
    back_row: int = 6  # per man still guarding the own back row (stops the opponent's promotion)
    centre: int = 4  # per man in the central squares
    mobility: int = 2  # per quiet step available to men, and per free square next to a king
    hanging: int = -12  # per capture the opponent could make if it were to move


@dataclass(frozen=True)
class GiveawayWeights:
    """Giveaway (no legal move wins). Each weight is the worth of one unit of the feature to the side
    that has it, in hundredths of a man: a negative `man` means every man still to give away is a cost."""

    man: int = -100
    king: int = -250  # kings are hard to lose: the opponent can keep away from a flying king
    advance: int = 2  # tempo: per row a man has advanced
    back_row: int = 0
    centre: int = 0
    mobility: int = -3  # fewer moves is nearer to having none (a win)
    hanging: int = 15  # per capture the opponent could be forced to make (our pieces it can take)

    @classmethod
    def shipped(cls) -> GiveawayWeights:
        """The tuned weights shipped in the package, or the defaults if the file is missing."""
        return _shipped_giveaway()

    @classmethod
    def from_dict(cls, data: dict) -> GiveawayWeights:
        names = {f.name for f in fields(cls)}
        return cls(**{k: int(v) for k, v in data.items() if k in names})


@cache
def _shipped_giveaway() -> GiveawayWeights:
    try:
        data = json.loads(WEIGHTS_FILE.read_text())
    except (OSError, ValueError):
        return GiveawayWeights()
    return GiveawayWeights.from_dict(data.get("weights", data))


Weights = DraughtsWeights | GiveawayWeights


def _probe() -> None:
    """Only looked at: mypyc turns the module's functions into builtins (see COMPILED)."""


# True when this module runs compiled (setup.py): `popcount` then counts with shifts and adds on
# machine integers, cheaper there than a call to int.bit_count, which mypyc does not compile inline.
COMPILED: Final = not isinstance(_probe, FunctionType)


def popcount(bb: int) -> int:
    """The number of pieces on a bitboard (any board: bitboards stay below 2**60)."""
    if not COMPILED:
        return bb.bit_count()
    bb -= (bb >> 1) & 0x555555555555555
    bb = (bb & 0x333333333333333) + ((bb >> 2) & 0x333333333333333)
    bb = (bb + (bb >> 4)) & 0xF0F0F0F0F0F0F0F
    bb += bb >> 8
    bb += bb >> 16
    bb += bb >> 32
    return bb & 0x7F


class _Masks:
    """Per board and colour: the squares each feature looks at, as bitboards."""

    def __init__(self, variant: Variant) -> None:
        board = variant.board
        size = board.size
        self.mask = board.mask
        self.half = board.half
        # White's men advance towards row 0; the rank of a square for White is size-1-row.
        # Advancement is a sum of popcounts over bit planes of the rank (rank = sum of 2^k planes).
        planes = max(1, (size - 1).bit_length())
        self.white_planes = [0] * planes
        self.black_planes = [0] * planes
        for bit, row in board.rows.items():
            white_rank, black_rank = size - 1 - row, row
            for k in range(planes):
                if white_rank >> k & 1:
                    self.white_planes[k] |= 1 << bit
                if black_rank >> k & 1:
                    self.black_planes[k] |= 1 << bit
        self.white_back = board.row_masks[-1]
        self.black_back = board.row_masks[0]
        centre = 0
        lo, hi = size // 2 - 2, size // 2 + 1  # the four central rows and columns (3..6 of 1..8)
        for bit, row in board.rows.items():
            if lo <= row <= hi and lo <= board.cols[bit] <= hi:
                centre |= 1 << bit
        self.centre = centre
        self.backward = variant.men_capture_backward
        self.capture_kings = variant.men_capture_kings


def _down(bb: int, s: int, mask: int) -> int:
    return (bb << s) & mask


class Evaluator:
    """`evaluator(variant)(position)`: a position with no capture to play, scored for the side to move."""

    def __init__(self, variant: Variant, weights: Weights | None = None) -> None:
        self.variant = variant
        self.giveaway: bool = variant.giveaway
        if weights is None:
            weights = GiveawayWeights.shipped() if self.giveaway else DraughtsWeights()
        self.weights: Weights = weights
        self.m = _Masks(variant)
        w = weights
        king = w.king
        if isinstance(w, DraughtsWeights) and not variant.flying_kings:
            king = w.short_king
        # The weights as plain ints: the search calls `score` at every leaf.
        self._man: int = w.man
        self._king: int = king
        self._advance: int = w.advance
        self._back_row: int = w.back_row
        self._centre: int = w.centre
        self._mobility: int = w.mobility
        self._hanging: int = w.hanging

    def features(self, pos: Position, white: bool) -> tuple[int, int, int, int, int, int, int]:
        """(men, kings, advance, back row, centre, mobility, hanging) of one colour."""
        m = self.m
        kings = pos.kings
        own, opp = (pos.white, pos.black) if white else (pos.black, pos.white)
        empty = m.mask & ~(own | opp)
        men = own & ~kings
        own_kings = own & kings
        planes = m.white_planes if white else m.black_planes
        advance = 0
        for k in range(len(planes)):
            advance += popcount(men & planes[k]) << k
        back = popcount(men & (m.white_back if white else m.black_back))
        centre = popcount(men & m.centre)
        h = m.half
        mask = m.mask
        # Quiet steps of men (forward only), and free squares next to kings.
        if white:
            steps = popcount((men >> h) & empty) + popcount((men >> (h + 1)) & empty)
        else:
            steps = popcount(_down(men, h, mask) & empty) + popcount(_down(men, h + 1, mask) & empty)
        if own_kings:
            for s in range(h, h + 2):
                steps += popcount((own_kings >> s) & empty)
                steps += popcount(_down(own_kings, s, mask) & empty)
        # Hanging: captures the opponent's men could make against our pieces, one per (piece, direction).
        opp_men = opp & ~kings
        targets = own if m.capture_kings else men
        hanging = 0
        # The opponent's forward is our backward: White's men go up (right shifts), Black's go down.
        for s in range(h, h + 2):
            if white or m.backward:  # Black men capturing downwards (their forward), or any backward
                hanging += popcount(_down(_down(opp_men, s, mask) & targets, s, mask) & empty)
            if (not white) or m.backward:
                hanging += popcount((((opp_men >> s) & targets) >> s) & empty)
        return popcount(men), popcount(own_kings), advance, back, centre, steps, hanging

    def score(self, pos: Position) -> int:
        """The position for the side to move (the search's leaf evaluation)."""
        a = self.features(pos, pos.white_to_move)
        b = self.features(pos, not pos.white_to_move)
        return (
            self._man * (a[0] - b[0])
            + self._king * (a[1] - b[1])
            + self._advance * (a[2] - b[2])
            + self._back_row * (a[3] - b[3])
            + self._centre * (a[4] - b[4])
            + self._mobility * (a[5] - b[5])
            + self._hanging * (a[6] - b[6])
        )

    def __call__(self, pos: Position) -> int:
        return self.score(pos)


def evaluator(variant: Variant, weights: Weights | None = None) -> Callable[[Position], int]:
    """The evaluation function of a variant (giveaway or ordinary), with the shipped weights by default."""
    return Evaluator(variant, weights)
