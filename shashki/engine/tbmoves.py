"""The endgame tables' builder, its positions and moves: written for mypyc (setup.py compiles it).

`shashki.engine.tbbuild.Builder` (the retrograde analysis) is a `Moves`: it works without any Position
object. Squares are numbered 0..31 (the square number - 1), a position is three 32-bit bitboards over
those numbers, its index in a k-piece table is `tablebase._Indexer.index`'s (`index_of`, `decode`), and the
Russian-family moves (RULES.md §2: men one step forward, flying kings, compulsory capture backwards too,
Turkish strike, promotion in the middle of a capture going on as a king, the king's landing rule) are
generated here from neighbour and ray tables: `captures` folds every capture's child, looked up in the
smaller tables, into the position's result; `quiet_moves` counts the others.
"""

from __future__ import annotations

from math import comb
from typing import Final

KINDS: Final = 4  # 0 white man, 1 white king, 2 black man, 3 black king
DRAW_CODE: Final = 1


class Geometry:
    """The 8×8 board in square numbers: by direction (0, 1 towards White's promotion row; 2, 3 towards
    Black's), `neighbours[square * 4 + d]` (the next square, or -1), `rays[(square * 4 + d) * 8 + j]`
    (the squares met walking from square, nearest first), `ray_lengths[square * 4 + d]`."""

    def __init__(self, neighbours: list[int], rays: list[int], ray_lengths: list[int], white_promo: int,
                 black_promo: int) -> None:
        self.neighbours = neighbours
        self.rays = rays
        self.ray_lengths = ray_lengths
        self.white_promo = white_promo
        self.black_promo = black_promo


class Moves:
    """Positions, indices and moves of the k-piece table of one variant of the Russian family (giveaway
    or not), the smaller tables known."""

    def __init__(self, geometry: Geometry, k: int, giveaway: bool, smaller: list[bytes]) -> None:
        self.geo = geometry
        self.nb = geometry.neighbours
        self.rays = geometry.rays
        self.ray_len = geometry.ray_lengths
        self.k = k
        self.giveaway = giveaway
        self.smaller = smaller  # smaller[j]: the j-piece table (smaller[0] unused)
        self.pow4: list[int] = [KINDS**i for i in range(k + 1)]
        self.comb: list[int] = [comb(s, i) for s in range(33) for i in range(8)]  # [s * 8 + i]
        self.lsb: list[int] = [0] * 65536
        self.bits: list[int] = [0] * 65536
        self.reverse: list[int] = [0] * 65536  # the 16 bits in reverse order
        for x in range(1, 65536):
            self.lsb[x] = (x & -x).bit_length() - 1
            self.bits[x] = self.bits[x >> 1] + (x & 1)
            self.reverse[x] = (self.reverse[x >> 1] >> 1) | ((x & 1) << 15)
        self.combos: list[int] = []  # [rank * k + i]: the i-th lowest square of the rank-th combination
        squares = list(range(k))
        for _ in range(comb(32, k)):
            self.combos.extend(squares)
            i = 0
            while i < k - 1 and squares[i] + 1 == squares[i + 1]:
                i += 1
            squares[i] += 1
            for j in range(i):
                squares[j] = j
        self.size = comb(32, k) * KINDS**k * 2
        # The position being looked at (decode) and the capture being generated.
        self.white = 0
        self.black = 0
        self.kings = 0
        self.white_to_move = True
        self.c_occ = 0
        self.c_opp = 0
        self.c_me = 0
        self.c_origin = 0
        self.c_promo = 0
        self.c_white = True
        self.best_win = -1  # the nearest win among the captures (plies), or -1
        self.any_draw = False
        self.worst_loss = -1


    # Positions and indices ------------------------------------------------------------------------

    def popcount(self, x: int) -> int:
        return self.bits[x & 0xFFFF] + self.bits[x >> 16]

    def index_of(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        """The position's index in the table of its number of pieces (tablebase._Indexer.index)."""
        occ = white | black
        rank = 0
        kinds = 0
        i = 0
        while occ:
            low = occ & 0xFFFF
            sq = self.lsb[low] if low else 16 + self.lsb[occ >> 16]
            occ &= occ - 1
            i += 1
            rank += self.comb[sq * 8 + i]
            kind = (0 if (white >> sq) & 1 else 2) + ((kings >> sq) & 1)
            kinds = kinds * KINDS + kind
        return ((rank * self.pow4[i] + kinds) << 1) + (0 if white_to_move else 1)

    def rotate(self, x: int) -> int:
        """The bitboard turned half round: square s to square 31 - s."""
        return (self.reverse[x & 0xFFFF] << 16) | self.reverse[x >> 16]

    def half_index(self, white: int, black: int, kings: int, white_to_move: bool) -> int:
        """The index in the build's half table (White to move only) of a position or of its mirror image:
        colours exchanged and the board turned half round (the rules are symmetric: same result)."""
        if white_to_move:
            return self.index_of(white, black, kings, True) >> 1
        return self.index_of(self.rotate(black), self.rotate(white), self.rotate(kings), True) >> 1

    def decode(self, index: int) -> bool:
        """Set white/black/kings/white_to_move from an index; False for an impossible position (a man on
        its promotion row)."""
        k = self.k
        self.white_to_move = (index & 1) == 0
        index >>= 1
        rank = index // self.pow4[k]
        kinds = index - rank * self.pow4[k]
        white = 0
        black = 0
        kings = 0
        base = rank * k
        for i in range(k - 1, -1, -1):
            kind = kinds & 3
            kinds >>= 2
            bit = 1 << self.combos[base + i]
            if kind < 2:
                if kind == 0 and bit & self.geo.white_promo:
                    return False
                white |= bit
            else:
                if kind == 2 and bit & self.geo.black_promo:
                    return False
                black |= bit
            if kind & 1:
                kings |= bit
        self.white = white
        self.black = black
        self.kings = kings
        return True

    # Captures ------------------------------------------------------------------------------------

    def captures(self, me: int, opp: int, white: bool) -> bool:
        """Generate every capture of the side `me` (white or not) in the decoded position, folding each
        child's result into best_win / any_draw / worst_loss; False if there is none."""
        self.best_win = -1
        self.any_draw = False
        self.worst_loss = -1
        self.c_opp = opp
        self.c_me = me
        self.c_white = white
        self.c_promo = self.geo.white_promo if white else self.geo.black_promo
        found = False
        pieces = me
        while pieces:
            low = pieces & 0xFFFF
            sq = self.lsb[low] if low else 16 + self.lsb[pieces >> 16]
            pieces &= pieces - 1
            self.c_origin = sq
            self.c_occ = (me | opp) & ~(1 << sq)  # the mover's own square is empty during its move
            if self.extend(sq, (self.kings >> sq) & 1 == 1, 0):
                found = True
        return found

    def extend(self, s: int, king: bool, captured: int) -> bool:
        """Continue a capture from square s (Turkish strike: `captured` stay on the board, unjumpable);
        record each complete sequence; whether any jump was possible."""
        occ = self.c_occ
        opp = self.c_opp
        nb = self.nb
        found = False
        for d in range(4):
            if king:
                base = (s * 4 + d) * 8
                n = self.ray_len[s * 4 + d]
                j = 0
                while j < n and not (occ >> self.rays[base + j]) & 1:
                    j += 1
                if j >= n - 1:
                    continue
                x = self.rays[base + j]
                if not (opp >> x) & 1 or (captured >> x) & 1:
                    continue
                first = j + 1
                last = first
                while last < n and not (occ >> self.rays[base + last]) & 1:
                    last += 1
                if last == first:
                    continue
                found = True
                taken = captured | (1 << x)
                # The landing rule (RULES.md §2.5): where the capture can go on, it must.
                going_on = False
                for m in range(first, last):
                    if self.extend(self.rays[base + m], True, taken):
                        going_on = True
                if not going_on:
                    for m in range(first, last):
                        self.finish(self.rays[base + m], True, taken)
            else:
                n1 = nb[s * 4 + d]
                if n1 < 0 or not (opp >> n1) & 1 or (captured >> n1) & 1:
                    continue
                n2 = nb[n1 * 4 + d]
                if n2 < 0 or (occ >> n2) & 1:
                    continue
                found = True
                taken = captured | (1 << n1)
                crowned = (self.c_promo >> n2) & 1 == 1  # crowned on the way: goes on as a king
                if not self.extend(n2, crowned, taken):
                    self.finish(n2, crowned, taken)
        return found

    def finish(self, end: int, king: bool, captured: int) -> None:
        """A complete capture: look its child up in the smaller table and fold in its result."""
        origin = 1 << self.c_origin
        me = (self.c_me & ~origin) | (1 << end)
        opp = self.c_opp & ~captured
        kings = (self.kings & ~origin & ~captured) | ((1 << end) if king else 0)
        white = self.c_white
        child = self.index_of(me if white else opp, opp if white else me, kings, not white)
        code = self.smaller[self.k - self.popcount(captured)][child]
        if code == DRAW_CODE:
            self.any_draw = True
            return
        plies = (code - 2) >> 1
        if (code - 2) & 1:  # lost for the opponent: won for us
            if self.best_win < 0 or plies < self.best_win:
                self.best_win = plies
        elif plies > self.worst_loss:
            self.worst_loss = plies

    # Quiet moves ---------------------------------------------------------------------------------

    def quiet_moves(self, me: int, white: bool) -> int:
        """The number of quiet moves of the side `me` in the decoded position."""
        occ = self.white | self.black
        count = 0
        pieces = me
        while pieces:
            low = pieces & 0xFFFF
            sq = self.lsb[low] if low else 16 + self.lsb[pieces >> 16]
            pieces &= pieces - 1
            if (self.kings >> sq) & 1:
                for d in range(4):
                    base = (sq * 4 + d) * 8
                    n = self.ray_len[sq * 4 + d]
                    j = 0
                    while j < n and not (occ >> self.rays[base + j]) & 1:
                        j += 1
                    count += j
            else:
                for d in range(0 if white else 2, 2 if white else 4):
                    to = self.nb[sq * 4 + d]
                    if to >= 0 and not (occ >> to) & 1:
                        count += 1
        return count
