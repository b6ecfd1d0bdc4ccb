"""Board geometry: squares, bitboards, directions and rays.

Squares are numbered the PDN way, 1 .. 32 (8×8) or 1 .. 50 (10×10), row by row from Black's side
(RULES.md §1). Bitboards are Python ints laid out with one unused "ghost" bit after every two rows,
so that every diagonal step is the same shift everywhere on the board:

    bit = (number - 1) + row // 2          # row 0 is Black's back row

On 8×8 the four directions are -5, -4 (towards Black's side, White's forward) and +4, +5; on 10×10
-6, -5, +5, +6. A step off the board lands on a ghost bit or outside the board mask.

The Italian board is mirrored (a1 is light, FID 2.3). Since the rules are symmetric, Italian is played
on the same internal geometry and only its square numbers and names are mirrored.

>>> g = geometry(8)
>>> g.square_name(g.bit_of_number(29)), g.square_name(g.bit_of_number(1))
('a1', 'b8')
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class BoardGeometry:
    size: int  # 8 or 10
    mirrored: bool  # Italian: the square numbers run from a8 (see module docstring)
    squares: int  # 32 or 50
    half: int  # dark squares per row
    mask: int  # every real square
    bits: tuple[int, ...]  # bit index of square number n at bits[n - 1]
    numbers: dict[int, int]  # bit index -> square number
    directions: tuple[int, int, int, int]  # (up-left, up-right, down-left, down-right) shifts
    rows: dict[int, int]  # bit index -> row, 0 = Black's back row (top)
    cols: dict[int, int]  # bit index -> column, 0 = file a
    row_masks: tuple[int, ...]  # squares of each row, top to bottom
    # rays[bit][d]: the bits met walking from `bit` in direction index d (0..3), nearest first
    rays: dict[int, tuple[tuple[int, ...], ...]]
    names: dict[int, str]  # bit -> algebraic name ("a1")
    by_name: dict[str, int]  # algebraic name -> bit

    @property
    def white_promotion_row(self) -> int:
        return self.row_masks[0]

    @property
    def black_promotion_row(self) -> int:
        return self.row_masks[-1]

    def bit_of_number(self, number: int) -> int:
        """The bit of a square given by its number in this board's numbering (1-based)."""
        return self.bits[number - 1]

    def number(self, bit: int) -> int:
        return self.numbers[bit]

    def square_name(self, bit: int) -> str:
        return self.names[bit]

    def iter_bits(self, bb: int):
        """The bit indices set in bitboard bb, lowest first."""
        while bb:
            low = bb & -bb
            yield low.bit_length() - 1
            bb ^= low


@cache
def geometry(size: int, mirrored: bool = False) -> BoardGeometry:
    if size not in (8, 10):
        raise ValueError(f"unsupported board size {size}")
    half = size // 2
    squares = size * half
    bits: list[int] = []
    rows: dict[int, int] = {}
    cols: dict[int, int] = {}
    row_masks = [0] * size
    for index in range(squares):
        row, j = divmod(index, half)
        bit = index + row // 2
        # Standard board: rows 0, 2, … (counted from the top) have their dark squares on the odd
        # columns b, d, …; the others on the even columns a, c, … (a1 dark, RULES.md §1).
        col = 2 * j + 1 if row % 2 == 0 else 2 * j
        bits.append(bit)
        rows[bit] = row
        cols[bit] = col
        row_masks[row] |= 1 << bit
    mask = 0
    for bit in bits:
        mask |= 1 << bit
    if mirrored:
        # Italian numbering: 1 = a8 … 4 = g8 (top left first as White sees the mirrored board).
        # The internal square in row r, position j is the mirror image of Italian (r, half-1-j).
        numbering: list[int] = []
        for index in range(squares):
            row, j = divmod(index, half)
            numbering.append(bits[row * half + (half - 1 - j)])
        bits[:] = numbering
    numbers = {bit: n + 1 for n, bit in enumerate(bits)}
    directions = (-(half + 1), -half, half, half + 1)
    # Rays: walk by adjacent steps checking real geometry (row changes by one, column by one).
    rays: dict[int, tuple[tuple[int, ...], ...]] = {}
    pos = {(rows[b], cols[b]): b for b in rows}
    deltas = ((-1, -1), (-1, 1), (1, -1), (1, 1))
    for bit in rows:
        per_dir = []
        for dr, dc in deltas:
            walk: list[int] = []
            r, c = rows[bit] + dr, cols[bit] + dc
            while (r, c) in pos:
                walk.append(pos[(r, c)])
                r, c = r + dr, c + dc
            per_dir.append(tuple(walk))
        rays[bit] = tuple(per_dir)
    # Sanity: the shift directions agree with the geometric rays (checked once per board).
    for bit in rows:
        for d, ray in enumerate(rays[bit]):
            if ray:
                assert ray[0] == bit + directions[d], (bit, d)
            else:
                assert bit + directions[d] < 0 or not (mask >> (bit + directions[d])) & 1, (bit, d)
    names: dict[int, str] = {}
    for bit in rows:
        col = cols[bit]
        if mirrored:
            col = size - 1 - col
        names[bit] = f"{'abcdefghij'[col]}{size - rows[bit]}"
    return BoardGeometry(
        size=size,
        mirrored=mirrored,
        squares=squares,
        half=half,
        mask=mask,
        bits=tuple(bits),
        numbers=numbers,
        directions=directions,
        rows=rows,
        cols=cols,
        row_masks=tuple(row_masks),
        rays=rays,
        names=names,
        by_name={name: bit for bit, name in names.items()},
    )
