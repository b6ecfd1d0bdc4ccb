"""Probing the endgame tables at a search node: the index of a position, compiled with mypyc.

The search looks every position with few pieces up in the tables (`alphabeta.Core.search`); computing
the index in uncompiled Python cost about 7 µs a probe, twenty times a node's move generation. This is
the same index as `tablebase._Indexer.index` (combinatorial rank of the occupied squares, the kind of
piece on each, the side to move), over the move generator's bitboards, with no allocation.
"""

from __future__ import annotations

from math import comb
from typing import Any, Final

KINDS: Final = 4


class Probe:
    """`code(white, black, kings, white_to_move)`: the table byte of a position, or -1 if no table
    covers its number of pieces."""

    def __init__(self, tables: list[Any], squares: list[int]) -> None:
        self.tables = tables  # tables[k]: bytes, bytearray or mmap of the k-piece table
        self.pieces = len(tables) - 1
        self.square: list[int] = [-1] * 37  # [bit % 37]: the square index (number - 1) of that bit
        for bit, square in enumerate(squares):  # squares[bit]: the square index of a bitboard bit, or -1
            if square >= 0:
                self.square[(1 << bit) % 37] = square  # powers of two below 2**36 differ modulo 37
        self.comb: list[int] = [comb(s, i) for s in range(33) for i in range(8)]  # [s * 8 + i]
        self.pow4: list[int] = [KINDS**i for i in range(9)]

    def code(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        occ = white | black
        rank = 0
        kinds = 0
        i = 0
        while occ:
            low = occ & -occ
            occ ^= low
            i += 1
            if i > self.pieces:
                return -1
            rank += self.comb[self.square[low % 37] * 8 + i]
            kind = (0 if white & low else 2) + (1 if kings & low else 0)
            kinds = kinds * KINDS + kind
        if i == 0:
            return -1
        index = ((rank * self.pow4[i] + kinds) << 1) + (0 if white_to_move else 1)
        value: int = self.tables[i][index]
        return value
