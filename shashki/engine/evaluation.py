"""Static evaluation: what a quiet position is worth to the side to move, in hundredths of a man.

Two evaluations, because what matters differs (issue 3):

- ordinary draughts (`DraughtsWeights`): material, with kings worth more than men; men advanced towards
  promotion; the back row kept as a guard; the centre; mobility; pieces left hanging.
- giveaway (`GiveawayWeights`): material you still have to give away counts *against* you, kings most
  of all (a flying king is hard to lose); mobility and tempo (how far the men have advanced); pieces the
  opponent can be made to capture.

The weights (hand-set defaults, the files fitted ones ship in) are `shashki.engine.weights`; pattern
weights over board regions are `shashki.engine.patterns`, added when the weights have them. Some
features only fitted or match-set weights use (`EXTRA`: kings on the long diagonal, men about to crown,
men backed from behind, men unevenly spread over the wings, runaway men, men on the edge files); at weight
0 they are not computed.

Every feature is computed with a handful of shifts and popcounts on the position's bitboards (see
`shashki.rules.board`: one diagonal step is the same shift everywhere, off-board steps land on ghost
bits outside the board mask), so the same code serves 8×8 and 10×10 boards.

>>> from shashki.rules import Position, get_variant
>>> evaluate = evaluator(get_variant("russian"))
>>> evaluate(Position.start(get_variant("russian")))
0
"""

from __future__ import annotations

from collections.abc import Callable

from mypy_extensions import i64

from shashki.engine.patterns import Regions, pattern_size
from shashki.engine.weights import (
    EXTRA,
    FAMILIES,
    FEATURES,
    PARENT,
    DraughtsWeights,
    GiveawayWeights,
    Weights,
    family_file,
    family_of,
    shipped_weights,
)
from shashki.rules.moves import popcount, popcount64
from shashki.rules.position import Position
from shashki.rules.variant import Variant

# The weights live in shashki.engine.weights; these names are read from here too.
__all__ = [
    "EXTRA", "FAMILIES", "FEATURES", "PARENT", "DraughtsWeights", "Evaluator", "GiveawayWeights", "Weights",
    "evaluator", "family_file", "family_of", "popcount", "shipped_weights",
]


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
        # The long diagonal (a1 to the opposite corner), the row before each side's crowning row (White
        # crowns on row 0), and the left half of the board.
        diagonal = 0
        left = 0
        for bit, row in board.rows.items():
            if row + board.cols[bit] == size - 1:
                diagonal |= 1 << bit
            if board.cols[bit] < size // 2:
                left |= 1 << bit
        self.diagonal = diagonal
        self.left = left
        self.white_crown = board.row_masks[0]
        self.black_crown = board.row_masks[-1]
        self.white_near = board.row_masks[1]
        self.black_near = board.row_masks[-2]
        # Each square's cone for a man of each colour: every square it could step to on its way to the
        # crowning row (White's steps go to lower bits); and the squares past the middle of the board.
        self.white_cones = [0] * (max(board.rows) + 1)
        self.black_cones = [0] * (max(board.rows) + 1)
        self.white_far = 0
        self.black_far = 0
        self.edge = 0
        h = board.half
        for bit, row in board.rows.items():
            ahead, front = 0, 1 << bit
            while front:
                front = ((front >> h) | (front >> (h + 1))) & board.mask
                ahead |= front
            self.white_cones[bit] = ahead
            ahead, front = 0, 1 << bit
            while front:
                front = ((front << h) | (front << (h + 1))) & board.mask
                ahead |= front
            self.black_cones[bit] = ahead
            if board.cols[bit] in (0, size - 1):
                self.edge |= 1 << bit
            if row < size // 2:
                self.white_far |= 1 << bit
            else:
                self.black_far |= 1 << bit


def _down(bb: int, s: int, mask: int) -> int:
    return (bb << s) & mask


class Evaluator:
    """`evaluator(variant)(position)`: a position with no capture to play, scored for the side to move."""

    def __init__(self, variant: Variant, weights: Weights | None = None) -> None:
        self.variant = variant
        self.giveaway: bool = variant.giveaway
        if weights is None:
            weights = shipped_weights(variant)
        self.weights: Weights = weights
        self.m = _Masks(variant)
        w = weights
        king = w.king
        if isinstance(w, DraughtsWeights) and not variant.flying_kings:
            king = w.short_king
        # The weights as plain ints: the search calls `score` at every leaf.
        self._man: i64 = w.man
        self._king: i64 = king
        self._advance: i64 = w.advance
        self._back_row: i64 = w.back_row
        self._centre: i64 = w.centre
        self._mobility: i64 = w.mobility
        self._hanging: i64 = w.hanging
        self._main_diagonal: i64 = w.main_diagonal
        self._near_crown: i64 = w.near_crown
        self._backed: i64 = w.backed
        self._imbalance: i64 = w.imbalance
        self._runaway: i64 = w.runaway
        self._edge_weight: i64 = w.edge
        self._extra: bool = any(getattr(w, name) for name in EXTRA)
        # Patterns fitted on another board (a family's parent on 8x8 for a 10x10 variant) are not used.
        self._regions: Regions | None = None
        if w.patterns and len(w.patterns) == pattern_size(variant):
            self._regions = Regions(variant, list(w.patterns))
        # The masks as plain ints too, for `_side` (a board has at most 4 rank planes: 10x10 needs 4).
        m = self.m
        self._mask: i64 = m.mask
        self._half: i64 = m.half
        self._centre_mask: i64 = m.centre
        self._white_back: i64 = m.white_back
        self._black_back: i64 = m.black_back
        self._backward: bool = m.backward
        self._capture_kings: bool = m.capture_kings
        self._diagonal: i64 = m.diagonal
        self._left: i64 = m.left
        self._white_crown: i64 = m.white_crown
        self._black_crown: i64 = m.black_crown
        self._white_near: i64 = m.white_near
        self._black_near: i64 = m.black_near
        self._white_cones: list[i64] = list(m.white_cones)
        self._black_cones: list[i64] = list(m.black_cones)
        self._white_far: i64 = m.white_far
        self._black_far: i64 = m.black_far
        self._edge: i64 = m.edge
        assert len(m.white_planes) <= 4, "boards up to 16x16"
        wp = m.white_planes + [0] * (4 - len(m.white_planes))
        bp = m.black_planes + [0] * (4 - len(m.black_planes))
        self._wp0: i64 = wp[0]
        self._wp1: i64 = wp[1]
        self._wp2: i64 = wp[2]
        self._wp3: i64 = wp[3]
        self._bp0: i64 = bp[0]
        self._bp1: i64 = bp[1]
        self._bp2: i64 = bp[2]
        self._bp3: i64 = bp[3]

    def features(self, pos: Position, white: bool) -> tuple[int, ...]:
        """The features of one colour, in the order of `FEATURES` (and of the weights' fields)."""
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
        # A man one step from crowning, with a free square on the crowning row in front of it.
        if white:
            crown = m.white_crown & empty
            near = men & m.white_near & ((crown << h) | (crown << (h + 1)))
            behind = (own >> h) | (own >> (h + 1))
        else:
            crown = m.black_crown & empty
            near = men & m.black_near & ((crown >> h) | (crown >> (h + 1)))
            behind = _down(own, h, mask) | _down(own, h + 1, mask)
        cones = m.white_cones if white else m.black_cones
        far = men & (m.white_far if white else m.black_far)
        runaway = sum(1 for bit in range(len(cones)) if far >> bit & 1 and not cones[bit] & opp)
        extra = (
            popcount(own_kings & m.diagonal),
            popcount(near),
            popcount(men & behind),
            abs(2 * popcount(men & m.left) - popcount(men)),
            runaway,
            popcount(men & m.edge),
        )
        return (popcount(men), popcount(own_kings), advance, back, centre, steps, hanging, *extra)

    def score(self, pos: Position) -> int:
        """The position for the side to move (the search's leaf evaluation).

        The weighted sum of `features` of the side to move less that of the opponent (the same
        integers, summed per side: no tuple per call, the masks read as plain ints)."""
        kings = pos.kings
        total = self._side(pos.white, pos.black, kings, True) - self._side(pos.black, pos.white, kings, False)
        regions = self._regions
        if regions is not None:
            total += regions.score(pos.white & ~kings, pos.black & ~kings)
        white = int(total)
        return white if pos.white_to_move else -white

    def pattern_terms(self, pos: Position) -> list[tuple[int, int]]:
        """The pattern weights `score` adds for White, as (index, sign) (`Regions.terms`); none without
        patterns. A fit reads them (benchmarks/tune_patterns.py)."""
        if self._regions is None:
            return []
        return self._regions.terms(pos.white & ~pos.kings, pos.black & ~pos.kings)

    def _side(self, own: i64, opp: i64, kings: i64, white: bool) -> i64:
        """`features(pos, white)` weighted and summed (see `features`, which it must equal), in
        native 64-bit arithmetic when compiled (a left shift past bit 63 wraps, and every one is
        masked to the board at once)."""
        mask = self._mask
        empty = mask & ~(own | opp)
        men = own & ~kings
        own_kings = own & kings
        if white:
            advance = (
                popcount64(men & self._wp0)
                + (popcount64(men & self._wp1) << 1)
                + (popcount64(men & self._wp2) << 2)
                + (popcount64(men & self._wp3) << 3)
            )
            back = popcount64(men & self._white_back)
        else:
            advance = (
                popcount64(men & self._bp0)
                + (popcount64(men & self._bp1) << 1)
                + (popcount64(men & self._bp2) << 2)
                + (popcount64(men & self._bp3) << 3)
            )
            back = popcount64(men & self._black_back)
        centre = popcount64(men & self._centre_mask)
        h = self._half
        h1 = h + 1
        if white:
            steps = popcount64((men >> h) & empty) + popcount64((men >> h1) & empty)
        else:
            steps = popcount64((men << h) & mask & empty) + popcount64((men << h1) & mask & empty)
        if own_kings:
            steps += (
                popcount64((own_kings >> h) & empty)
                + popcount64((own_kings << h) & mask & empty)
                + popcount64((own_kings >> h1) & empty)
                + popcount64((own_kings << h1) & mask & empty)
            )
        opp_men = opp & ~kings
        targets = own if self._capture_kings else men
        hanging: i64 = 0
        backward = self._backward
        if white or backward:
            hanging += popcount64((((((opp_men << h) & mask) & targets) << h) & mask) & empty)
            hanging += popcount64((((((opp_men << h1) & mask) & targets) << h1) & mask) & empty)
        if (not white) or backward:
            hanging += popcount64((((opp_men >> h) & targets) >> h) & empty)
            hanging += popcount64((((opp_men >> h1) & targets) >> h1) & empty)
        total = (
            self._man * popcount64(men)
            + self._king * popcount64(own_kings)
            + self._advance * advance
            + self._back_row * back
            + self._centre * centre
            + self._mobility * steps
            + self._hanging * hanging
        )
        if not self._extra:
            return total
        if white:
            crown = self._white_crown & empty
            near = men & self._white_near & ((crown << h) | (crown << h1))
            behind = (own >> h) | (own >> h1)
        else:
            crown = self._black_crown & empty
            near = men & self._black_near & ((crown >> h) | (crown >> h1))
            behind = ((own << h) | (own << h1)) & mask
        spread = 2 * popcount64(men & self._left) - popcount64(men)
        total += (
            self._main_diagonal * popcount64(own_kings & self._diagonal)
            + self._near_crown * popcount64(near)
            + self._backed * popcount64(men & behind)
            + self._imbalance * (spread if spread >= 0 else -spread)
            + self._edge_weight * popcount64(men & self._edge)
        )
        if self._runaway:
            if white:
                far = men & self._white_far
                cones = self._white_cones
            else:
                far = men & self._black_far
                cones = self._black_cones
            runaway: i64 = 0
            while far:
                low = far & -far
                far ^= low
                if cones[popcount64(low - 1)] & opp == 0:
                    runaway += 1
            total += self._runaway * runaway
        return total

    def __call__(self, pos: Position) -> int:
        return self.score(pos)


def evaluator(variant: Variant, weights: Weights | None = None) -> Callable[[Position], int]:
    """The evaluation function of a variant (giveaway or ordinary), with the shipped weights by default."""
    return Evaluator(variant, weights)
