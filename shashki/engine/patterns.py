"""Pattern weights over board regions (issue 15 point 3): the approach that made Scan strong, in its
simplest form.

A region is a band of two neighbouring rows (on 8x8: 8 dark squares, rows 1-2, 2-3, ... 7-8: 7 bands that
overlap). Each configuration of men in a band (every square empty, a white man or a black man: 3^8 = 6,561)
has a weight, fitted to game results by `benchmarks/tune_patterns.py` with the other features' weights.

The weights are read from White's side of the board: `values[band * size + index]`, where the index
counts White's men as 1 and Black's as 2 in base 3 over the band's squares in bit order. Black's side is
the same table seen from the other end of the board: the position turned by 180 degrees, colours swapped,
puts Black's band `c` at White's band `bands - 1 - c` with its squares in the reverse order. So a
position scores its White patterns less its Black ones, and turning the board and swapping the colours
negates the score exactly, as the rest of the evaluation does.

The board's bit layout (`shashki.rules.board`) keeps two rows' squares in consecutive bits, with one ghost
bit after every two rows: a band of rows 2k and 2k+1 is `2 * half` consecutive bits, a band of rows 2k+1
and 2k+2 is `2 * half + 1` with the ghost in its middle. A band's index is then two shifts, two masks and
two table reads per colour (`_window_digits`: a window of bits to its base-3 value, per band parity and
order).

Kings are not in the patterns (the material weights price them). Compiled with mypyc with the evaluation.
"""

from __future__ import annotations

from shashki.rules.variant import Variant


def band_count(variant: Variant) -> int:
    return max(variant.board.rows.values()) if variant.board.rows else 0  # rows - 1 bands


def table_size(variant: Variant) -> int:
    """Configurations of one band: 3 ** (2 * half)."""
    return int(3 ** (2 * variant.board.half))


def pattern_size(variant: Variant) -> int:
    """How many weights the patterns of a variant's board have (every band's table, end to end)."""
    return band_count(variant) * table_size(variant)


def _window_digits(positions: list[int], reverse: bool, width: int) -> list[int]:
    """For every value of a `width`-bit window: the base-3 value of its set bits (digit 1 each) at the
    square `positions` (the ghost bit left out), in bit order or reversed."""
    count = len(positions)
    result = [0] * (1 << width)
    for value in range(1 << width):
        total = 0
        for k in range(count):
            if value >> positions[k] & 1:
                total += 3 ** (count - 1 - k if reverse else k)
        result[value] = total
    return result


class Bands:
    """The patterns of one board with their weights: `score(white_men, black_men)` from White's side."""

    def __init__(self, variant: Variant, values: list[int]) -> None:
        board = variant.board
        self.bands: int = band_count(variant)
        self.size: int = table_size(variant)
        if len(values) != self.bands * self.size:
            raise ValueError(
                f"{variant.key}: patterns need {self.bands * self.size} weights, not {len(values)}"
            )
        self.values: list[int] = list(values)
        self.starts: list[int] = []
        self.masks: list[int] = []
        # Per band: where its digits tables start in `forward` and `backward` (one pair per parity).
        self.offsets: list[int] = []
        self.forward: list[int] = []
        self.backward: list[int] = []
        parity_offset: dict[int, int] = {}
        for band in range(self.bands):
            squares = board.row_masks[band] | board.row_masks[band + 1]
            low = (squares & -squares).bit_length() - 1
            width = squares.bit_length() - low
            parity = band % 2
            if parity not in parity_offset:
                positions = [b - low for b in range(low, low + width) if squares >> b & 1]
                parity_offset[parity] = len(self.forward)
                self.forward += _window_digits(positions, False, width)
                self.backward += _window_digits(positions, True, width)
            self.starts.append(low)
            self.masks.append((1 << width) - 1)
            self.offsets.append(parity_offset[parity])

    def score(self, white_men: int, black_men: int) -> int:
        """White's patterns less Black's (Black's read from its side of the board)."""
        values = self.values
        forward = self.forward
        backward = self.backward
        size = self.size
        last = self.bands - 1
        total = 0
        for band in range(self.bands):
            start = self.starts[band]
            mask = self.masks[band]
            offset = self.offsets[band]
            w = (white_men >> start) & mask
            b = (black_men >> start) & mask
            total += values[band * size + forward[offset + w] + 2 * forward[offset + b]]
            total -= values[(last - band) * size + backward[offset + b] + 2 * backward[offset + w]]
        return total

    def terms(self, white_men: int, black_men: int) -> list[tuple[int, int]]:
        """The weights `score` adds, as (index into the weights, +1 or -1): what a fit of the weights
        reads (`score` is the sum of `values[i] * sign` over them)."""
        result: list[tuple[int, int]] = []
        last = self.bands - 1
        for band in range(self.bands):
            offset = self.offsets[band]
            w = (white_men >> self.starts[band]) & self.masks[band]
            b = (black_men >> self.starts[band]) & self.masks[band]
            result.append((band * self.size + self.forward[offset + w] + 2 * self.forward[offset + b], 1))
            result.append(((last - band) * self.size + self.backward[offset + b]
                           + 2 * self.backward[offset + w], -1))
        return result
