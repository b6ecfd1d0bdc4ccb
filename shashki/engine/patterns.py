"""Pattern weights over board regions (issue 15 point 3): the approach that made Scan strong, in its
simplest form.

A region is a window of neighbouring squares in a band of two neighbouring rows: the same `WINDOW`
dark squares of each of the two rows (the n-th to the n+WINDOW-1-th of the row, in bit order). On 8x8 a
window is the whole row (4 squares: a region is a band, 8 squares, rows 1-2, 2-3, ... 7-8: 7 regions
that overlap); on 10x10 a window is 4 of a row's 5 squares, so each band has two regions, left and right,
overlapping on three squares a row (18 regions of 8 squares: a whole band would have 3^10 configurations,
too many to fit from the games there are). Each configuration of men in a region (every square empty, a
white man or a black man: 3^8 = 6,561) has a weight, fitted to game results by
`benchmarks/tune_patterns.py` with the other features' weights.

The weights are read from White's side of the board: `values[region * size + index]`, where the index
counts White's men as 1 and Black's as 2 in base 3 over the region's squares in bit order. Black's side
is the same table seen from the other end of the board: the position turned by 180 degrees, colours
swapped, puts Black's men of a region on White's squares of its `partner` region (the region turned
round), each square on its turned square's digit. So a position scores its White patterns less its
Black ones, and turning the board and swapping the colours negates the score exactly, as the rest of the
evaluation does.

The board's bit layout (`shashki.rules.board`) keeps two rows' squares in consecutive bits, with one ghost
bit after every two rows: a region lies in a window of at most `2 * half + 1` consecutive bits, so its
index is two shifts, two masks and two table reads per colour (`_window_digits`: a window of bits to its
base-3 value, for the region's squares in White's order and in Black's).

Kings are not in the patterns (the material weights price them). Compiled with mypyc with the evaluation.
"""

from __future__ import annotations

from librt.vecs import vec
from mypy_extensions import i64

from shashki.rules.variant import Variant

# Dark squares of a row in a region's window, by the row's length (half the board's width): the whole
# row on 8x8 (the bands the giveaway weights were fitted on), four of five on 10x10.
WINDOW = {4: 4, 5: 4}


def window(variant: Variant) -> int:
    half = variant.board.half
    return WINDOW.get(half, half)


def band_count(variant: Variant) -> int:
    return max(variant.board.rows.values()) if variant.board.rows else 0  # rows - 1 bands


def region_count(variant: Variant) -> int:
    """Bands times the windows of a row (`half - WINDOW + 1` in each)."""
    return band_count(variant) * (variant.board.half - window(variant) + 1)


def table_size(variant: Variant) -> int:
    """Configurations of one region: 3 ** (2 * WINDOW)."""
    return int(3 ** (2 * window(variant)))


def pattern_size(variant: Variant) -> int:
    """How many weights the patterns of a variant's board have (every region's table, end to end)."""
    return region_count(variant) * table_size(variant)


def regions(variant: Variant) -> list[list[int]]:
    """The squares (bits, in bit order) of each region: band by band from the top, windows by their
    first square in the row."""
    board = variant.board
    rows = [[b for b in range(board.row_masks[r].bit_length()) if board.row_masks[r] >> b & 1]
            for r in range(len(board.row_masks))]
    width = window(variant)
    result: list[list[int]] = []
    for band in range(band_count(variant)):
        for first in range(board.half - width + 1):
            squares = rows[band][first:first + width] + rows[band + 1][first:first + width]
            result.append(sorted(squares))
    return result


def _window_digits(positions: list[int], digits: list[int], width: int) -> list[int]:
    """For every value of a `width`-bit window: the base-3 value of its set bits at the square
    `positions` (other bits left out), the k-th position's bit counting 3 ** digits[k]."""
    result = [0] * (1 << width)
    for value in range(1 << width):
        total = 0
        for k in range(len(positions)):
            if value >> positions[k] & 1:
                total += 3 ** digits[k]
        result[value] = total
    return result


class Regions:
    """The patterns of one board with their weights: `score(white_men, black_men)` from White's side."""

    def __init__(self, variant: Variant, values: list[int]) -> None:
        board = variant.board
        squares = regions(variant)
        self.regions: int = len(squares)
        self.size: int = table_size(variant)
        if len(values) != self.regions * self.size:
            raise ValueError(
                f"{variant.key}: patterns need {self.regions * self.size} weights, not {len(values)}"
            )
        # Packed vectors (librt): compiled code reads them unboxed, one cache line a weight at most.
        self.values: vec[i64] = vec[i64](values)
        turned = {b: board.bit_of_number(board.squares + 1 - board.number(b)) for b in board.rows}
        index = {tuple(region): i for i, region in enumerate(squares)}
        starts: list[int] = []
        masks: list[int] = []
        # Where the weights of the region Black's men of a region are read in start (White's start at
        # region * size).
        partner_bases: list[int] = []
        # Per region: where its digits tables start, at the same index in `forward` (White's order) and
        # `backward` (Black's).
        offsets: list[int] = []
        forward: list[int] = []
        backward: list[int] = []
        tables: dict[tuple, int] = {}
        for region in squares:
            low = region[0]
            width = region[-1] - low + 1
            partner = sorted(turned[b] for b in region)
            order = {b: k for k, b in enumerate(partner)}
            positions = [b - low for b in region]
            back = [order[turned[b]] for b in region]
            key = (width, tuple(positions), tuple(back))
            if key not in tables:  # a region's two tables side by side: one offset reads both
                tables[key] = len(forward)
                forward += _window_digits(positions, list(range(len(region))), width)
                backward += _window_digits(positions, back, width)
            offsets.append(tables[key])
            starts.append(low)
            masks.append((1 << width) - 1)
            partner_bases.append(index[tuple(partner)] * self.size)
        self.starts: vec[i64] = vec[i64](starts)
        self.masks: vec[i64] = vec[i64](masks)
        self.partner_bases: vec[i64] = vec[i64](partner_bases)
        self.offsets: vec[i64] = vec[i64](offsets)
        self.forward: vec[i64] = vec[i64](forward)
        self.backward: vec[i64] = vec[i64](backward)

    def score(self, white_men: i64, black_men: i64) -> i64:
        """White's patterns less Black's (Black's read from its side of the board)."""
        values = self.values
        forward = self.forward
        backward = self.backward
        starts = self.starts
        masks = self.masks
        offsets = self.offsets
        partner_bases = self.partner_bases
        size: i64 = self.size
        total: i64 = 0
        r: i64 = 0
        for r in range(self.regions):
            start = starts[r]
            mask = masks[r]
            w = (white_men >> start) & mask
            b = (black_men >> start) & mask
            offset = offsets[r]
            total += values[r * size + forward[offset + w] + 2 * forward[offset + b]]
            total -= values[partner_bases[r] + backward[offset + b] + 2 * backward[offset + w]]
        return total

    def terms(self, white_men: int, black_men: int) -> list[tuple[int, int]]:
        """The weights `score` adds, as (index into the weights, +1 or -1): what a fit of the weights
        reads (`score` is the sum of `values[i] * sign` over them)."""
        result: list[tuple[int, int]] = []
        for r in range(self.regions):
            w = (white_men >> self.starts[r]) & self.masks[r]
            b = (black_men >> self.starts[r]) & self.masks[r]
            offset = self.offsets[r]
            forward, backward = self.forward, self.backward
            result.append((int(r * self.size + forward[offset + w] + 2 * forward[offset + b]), 1))
            result.append((int(self.partner_bases[r] + backward[offset + b] + 2 * backward[offset + w]), -1))
        return result
