"""The capture search: every complete capture sequence of a position (RULES.md §2.3–2.9, §4).

`capture_moves` runs a depth-first search per piece that can start a capture, with captured pieces
left on the board until the move ends (Turkish strike); `apply_precedence` keeps the sequences the
variant's precedence rule allows; `king_moves` counts the kings' quiet moves or finds that one can
capture. `shashki.rules.position`'s move generator calls them; compiled with it (setup.py).
"""

from __future__ import annotations

from mypy_extensions import i64

from shashki.rules.moves import Move, MoveRules
from shashki.rules.variant import Precedence


def king_moves(S: MoveRules, own_kings: int, opp: int, occupied: int) -> int:
    """The number of quiet moves of the kings `own_kings`, or -1 when one of them can capture.

    Looks along each ray as `_CaptureSearch.king` does for a first capture (RULES.md §2.2: a flying
    king takes the first piece on its ray when the square behind it is free; a short king the
    adjacent one), and counts the free squares before the first piece (one at most for short kings)."""
    squares = S.ray_squares
    lengths = S.ray_length
    stride = S.ray_stride
    flying = S.flying
    occ: i64 = occupied
    their: i64 = opp
    count = 0
    bb = own_kings
    while bb:
        low = bb & -bb
        bb ^= low
        sq: i64 = low.bit_length() - 1
        for d in range(4):
            n = lengths[4 * sq + d]
            at = (4 * sq + d) * stride
            i: i64 = 0
            if flying:
                while i < n and not (occ >> squares[at + i] & 1):
                    i += 1
                count += i
            elif n and not (occ >> squares[at] & 1):
                count += 1
            if i < n - 1 and their >> squares[at + i] & 1 and not (occ >> squares[at + i + 1] & 1):
                return -1
    return count


def capture_moves(
    S: MoveRules, opp: int, kings: int, starters: int, own_kings: int, occupied: int
) -> list[Move]:
    """Every complete capture sequence of every piece (RULES.md §2.3–2.9, §4)."""
    search = _CaptureSearch(S, opp, kings)
    bb = starters
    while bb:
        low = bb & -bb
        bb ^= low
        search.start(low.bit_length() - 1, occupied ^ low, False)
    bb = own_kings
    while bb:
        low = bb & -bb
        bb ^= low
        search.start(low.bit_length() - 1, occupied ^ low, True)
    return search.results


class _CaptureSearch:
    """Depth-first search of capture sequences, Turkish strike and all.

    Captured pieces stay on the board until the move ends: they block, and may not be jumped twice
    (RULES.md §2.8). The moving piece's start square counts as empty during its move.
    """

    def __init__(self, rules: MoveRules, opp: int, kings: int) -> None:
        self.r = rules
        self.opp = opp
        self.kings = kings
        self.capturable_by_men = opp if rules.men_capture_kings else opp & ~kings
        self.results: list[Move] = []
        self.path: list[int] = []
        self.caps: list[int] = []
        self.occ = 0
        self.start_king = False

    def start(self, frm: int, occ: int, is_king: bool) -> None:
        self.occ = occ  # every piece but the mover
        path = self.path  # emptied again by the search when it returns (record copies it)
        path.clear()
        path.append(frm)
        self.start_king = is_king
        if is_king:
            self.king(frm, 0)
        else:
            self.man(frm, 0)

    def record(self, captured: int, promotes: bool) -> None:
        r = self.r
        path = self.path
        start = path[0]
        end = path[-1]
        if self.start_king:
            z = r.zside ^ r.z_king[start] ^ r.z_king[end]
        else:
            z = r.zside ^ r.z_man[start] ^ (r.z_king[end] if promotes else r.z_man[end])
        kings = self.kings
        zo_king = r.zo_king
        zo_man = r.zo_man
        caps = self.caps
        for c in caps:
            z ^= zo_king[c] if kings >> c & 1 else zo_man[c]
        self.results.append(Move(tuple(path), tuple(caps), captured, promotes, self.start_king, z))

    def man(self, sq: int, captured: int) -> bool:
        r = self.r
        found = False
        targets: i64 = self.capturable_by_men & ~captured
        occ: i64 = self.occ
        path = self.path
        caps = self.caps
        jumps = r.men_jumps
        at: i64 = 16 * sq
        end = at + 4 * r.men_jump_count[sq]
        while at < end:
            over_mask = jumps[at]
            land_mask = jumps[at + 1]
            over = int(jumps[at + 2])
            land = int(jumps[at + 3])
            at += 4
            if not targets & over_mask or occ & land_mask:
                continue
            found = True
            now = captured | over_mask
            path.append(land)
            caps.append(over)
            if r.promo & land_mask:
                if r.as_king:
                    # RULES.md §2.9: crowned at once, the capture goes on as a king.
                    if not self.king(land, now):
                        self.record(now, True)
                elif r.stop:
                    self.record(now, True)  # English, Italian: reaching the last row ends the move
                elif not self.man(land, now):
                    self.record(now, True)  # passing promotion: crowned only if the move ends here
            elif not self.man(land, now):
                self.record(now, False)
            path.pop()
            caps.pop()
        return found

    def king(self, sq: int, captured: int) -> bool:
        r = self.r
        found = False
        occ: i64 = self.occ
        targets: i64 = self.opp & ~captured
        promotes = not self.start_king
        flying = r.flying
        path = self.path
        caps = self.caps
        squares = r.ray_squares
        lengths = r.ray_length
        stride = r.ray_stride
        for d in range(4):
            n = lengths[4 * sq + d]
            at = (4 * sq + d) * stride
            i: i64 = 0
            if flying:
                while i < n and not (occ >> squares[at + i] & 1):
                    i += 1
            if i >= n - 1:
                continue
            over = int(squares[at + i])
            if not (targets >> over & 1):
                continue  # own piece, a piece already captured (§2.8), or nothing to take
            land = int(squares[at + i + 1])
            if occ >> land & 1:
                continue
            landings = [land]
            if flying:
                j = i + 2
                while j < n and not (occ >> squares[at + j] & 1):
                    landings.append(int(squares[at + j]))
                    j += 1
            found = True
            now = captured | (1 << over)
            caps.append(over)
            ends: list[int] = []
            continued = False
            for land in landings:
                path.append(land)
                if self.king(land, now):
                    continued = True
                elif not continued:
                    ends.append(land)
                path.pop()
            # Landing rule (RULES.md §2.5): if the capture can go on from some landing squares, the
            # king must land on one of those; otherwise it may stop on any of them.
            if not continued:
                for land in ends:
                    path.append(land)
                    self.record(now, promotes)
                    path.pop()
            caps.pop()
        return found


def apply_precedence(captures: list[Move], precedence: Precedence, kings: int, own_kings: int) -> list[Move]:
    """Keep the sequences the precedence rule allows (FMJD 4.13 quantity; FID Italian order)."""
    if precedence is Precedence.QUANTITY:
        # Most captures: often one sequence, or all of the same length (the list kept as it is).
        best = 0
        ties = 0
        for m in captures:
            taken = len(m.captured)
            if taken > best:
                best = taken
                ties = 1
            elif taken == best:
                ties += 1
        if ties == len(captures):
            return captures
        return [m for m in captures if len(m.captured) == best]

    # Italian (FID): most pieces; then capturing with a king; then most kings taken; then the
    # sequence that meets a king first (compared capture by capture).
    def key(m: Move) -> tuple:
        kinds = tuple(bool(kings >> c & 1) for c in m.captured)
        return (len(kinds), bool(own_kings >> m.path[0] & 1), sum(kinds), kinds)

    keyed = [(key(m), m) for m in captures]
    top = max(k for k, _ in keyed)
    return [m for k, m in keyed if k == top]
