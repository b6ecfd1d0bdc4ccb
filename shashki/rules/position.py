"""Positions and moves: the hot path.

A `Position` is immutable: three bitboards (white pieces, black pieces, kings), the side to move, the
variant and a Zobrist hash kept up to date move by move. `legal_moves()` generates every legal move of
RULES.md §2 and §4 from the variant's parameters; `play(move)` returns the next position.

Squares in this module are bit indices of the board's layout (see `shashki.rules.board`); the
variant's `board` turns them into numbers and names.

>>> from shashki.rules import get_variant
>>> pos = get_variant("russian").start_position()
>>> len(pos.legal_moves())
7
>>> pos.play(pos.parse_move("c3-d4")).fen()
'B:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from functools import cache

from shashki.rules.board import BoardGeometry
from shashki.rules.variant import Color, Precedence, PromotionInCapture, Variant


class Move:
    """One move: the squares landed on (start first) and the pieces captured, in capture order.

    Two capture routes with the same start, end, captured set and resulting piece are the same move
    (RULES.md §2.10); `key` identifies that move.
    """

    __slots__ = ("path", "captured", "capture_mask", "promotes")

    def __init__(self, path: tuple[int, ...], captured: tuple[int, ...], capture_mask: int, promotes: bool):
        self.path = path
        self.captured = captured
        self.capture_mask = capture_mask
        self.promotes = promotes

    @property
    def start(self) -> int:
        return self.path[0]

    @property
    def end(self) -> int:
        return self.path[-1]

    @property
    def is_capture(self) -> bool:
        return bool(self.capture_mask)

    @property
    def key(self) -> tuple[int, int, int, bool]:
        """Identity of the move as a change of position (RULES.md §2.10)."""
        return (self.path[0], self.path[-1], self.capture_mask, self.promotes)

    def notation(self, variant: Variant) -> str:
        """The move in the variant's notation: `c3-d4`, `c3:e5:g3`, `32-28`, `27x18x9`."""
        board = variant.board
        name = board.square_name if variant.algebraic else (lambda b: str(board.number(b)))
        sep = variant.capture_separator if self.capture_mask else "-"
        return sep.join(name(b) for b in self.path)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self.path == other.path and self.capture_mask == other.capture_mask and (
            self.promotes == other.promotes
        )

    def __hash__(self) -> int:
        return hash((self.path, self.capture_mask, self.promotes))

    def __repr__(self) -> str:
        return f"<Move path={self.path} captured={self.captured}{' promotes' if self.promotes else ''}>"


class _Tables:
    """Per-board precomputed data for move generation."""

    def __init__(self, board: BoardGeometry) -> None:
        self.board = board
        h = board.half
        self.up_left, self.up_right = h + 1, h  # right shifts for White's forward moves
        rays = board.rays
        # jumps[bit][d] = (over bit, landing bit) when both exist on the board.
        self.jumps: dict[int, tuple[tuple[int, int] | None, ...]] = {}
        for bit, per_dir in rays.items():
            self.jumps[bit] = tuple((ray[0], ray[1]) if len(ray) >= 2 else None for ray in per_dir)
        self.rays = rays
        rng = random.Random(0x5A5A + board.size)
        top = max(rays) + 1
        self.z_white_man = [rng.getrandbits(64) for _ in range(top)]
        self.z_white_king = [rng.getrandbits(64) for _ in range(top)]
        self.z_black_man = [rng.getrandbits(64) for _ in range(top)]
        self.z_black_king = [rng.getrandbits(64) for _ in range(top)]
        self.z_black_to_move = rng.getrandbits(64)


@cache
def _tables(size: int) -> _Tables:
    from shashki.rules.board import geometry

    return _Tables(geometry(size))


def zobrist(variant: Variant, white: int, black: int, kings: int, white_to_move: bool) -> int:
    """The Zobrist hash of a position computed from scratch (play() keeps it incrementally)."""
    t = _tables(variant.board_size)
    h = 0 if white_to_move else t.z_black_to_move
    for bb, men_keys, king_keys in ((white, t.z_white_man, t.z_white_king), (black, t.z_black_man, t.z_black_king)):
        while bb:
            low = bb & -bb
            b = low.bit_length() - 1
            h ^= king_keys[b] if kings & low else men_keys[b]
            bb ^= low
    return h


class Position:
    """An immutable position of a variant."""

    __slots__ = ("variant", "white", "black", "kings", "white_to_move", "hash", "_moves")

    def __init__(self, variant: Variant, white: int, black: int, kings: int, white_to_move: bool, hash: int | None = None):
        self.variant = variant
        self.white = white
        self.black = black
        self.kings = kings
        self.white_to_move = white_to_move
        self.hash = zobrist(variant, white, black, kings, white_to_move) if hash is None else hash
        self._moves: list[Move] | None = None

    # ----------------------------------------------------------------------------------------
    # Construction and inspection

    @classmethod
    def start(cls, variant: Variant) -> Position:
        board = variant.board
        rows = 4 if board.size == 10 else 3
        black = 0
        white = 0
        for r in range(rows):
            black |= board.row_masks[r]
            white |= board.row_masks[board.size - 1 - r]
        return cls(variant, white, black, 0, variant.first_player is Color.WHITE)

    @classmethod
    def from_fen(cls, fen: str, variant: Variant | str | None = None) -> Position:
        from shashki.rules.fen import parse_fen
        from shashki.rules.variant import get_variant

        return parse_fen(fen, get_variant(variant) if not isinstance(variant, Variant) else variant)

    def fen(self, algebraic: bool = False) -> str:
        from shashki.rules.fen import write_fen

        return write_fen(self, algebraic=algebraic)

    @property
    def side_to_move(self) -> Color:
        return Color.WHITE if self.white_to_move else Color.BLACK

    @property
    def board(self) -> BoardGeometry:
        return self.variant.board

    def pieces(self, color: Color) -> int:
        return self.white if color is Color.WHITE else self.black

    def piece_at(self, bit: int) -> tuple[Color, bool] | None:
        """(colour, is_king) of the piece on a square, or None when it is empty."""
        b = 1 << bit
        if self.white & b:
            return Color.WHITE, bool(self.kings & b)
        if self.black & b:
            return Color.BLACK, bool(self.kings & b)
        return None

    def counts(self) -> tuple[int, int, int, int]:
        """(white men, white kings, black men, black kings)."""
        k = self.kings
        return (
            (self.white & ~k).bit_count(),
            (self.white & k).bit_count(),
            (self.black & ~k).bit_count(),
            (self.black & k).bit_count(),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Position):
            return NotImplemented
        return (
            self.white == other.white
            and self.black == other.black
            and self.kings == other.kings
            and self.white_to_move == other.white_to_move
            and self.variant.key == other.variant.key
        )

    def __hash__(self) -> int:
        return self.hash

    def __repr__(self) -> str:
        return f"<Position {self.variant.key} {self.fen()}>"

    def __str__(self) -> str:
        """The board as text, White at the bottom: w/b men, W/B kings, . empty dark square."""
        board = self.board
        size = board.size
        grid = [[" "] * size for _ in range(size)]
        for bit in board.rows:
            piece = self.piece_at(bit)
            ch = "."
            if piece is not None:
                color, king = piece
                ch = "w" if color is Color.WHITE else "b"
                ch = ch.upper() if king else ch
            col = board.cols[bit]
            if board.mirrored:
                col = size - 1 - col
            grid[board.rows[bit]][col] = ch
        return "\n".join(" ".join(row) for row in grid)

    # ----------------------------------------------------------------------------------------
    # Moves

    def legal_moves(self) -> list[Move]:
        """Every legal move, capture routes that give the same position merged (RULES.md §2.10)."""
        moves = self._moves
        if moves is None:
            moves = self._moves = self.generate(distinct=True)
        return moves

    def capture_routes(self) -> list[Move]:
        """Every legal move with every capture route counted separately ("all paths")."""
        return self.generate(distinct=False)

    def has_legal_move(self) -> bool:
        return bool(self.legal_moves())

    def is_capture_required(self) -> bool:
        moves = self.legal_moves()
        return bool(moves) and moves[0].capture_mask != 0

    def generate(self, distinct: bool = True, precedence: bool = True) -> list[Move]:
        """Legal moves; `distinct=False` keeps every capture route, `precedence=False` skips the
        quantity/Italian choice rules (to explain a refusal)."""
        v = self.variant
        t = _tables(v.board_size)
        mask = t.board.mask
        kings = self.kings
        if self.white_to_move:
            own, opp = self.white, self.black
            promo = t.board.white_promotion_row
        else:
            own, opp = self.black, self.white
            promo = t.board.black_promotion_row
        occupied = own | opp
        empty = mask & ~occupied
        men = own & ~kings
        own_kings = own & kings

        captures = self._captures(v, t, own, opp, men, own_kings, empty, promo)
        if captures:
            if precedence and v.precedence is not Precedence.FREE:
                captures = _apply_precedence(captures, v.precedence, kings, own_kings)
            if distinct and len(captures) > 1:
                seen: set[tuple[int, int, int, bool]] = set()
                unique = []
                for m in captures:
                    k = (m.path[0], m.path[-1], m.capture_mask, m.promotes)
                    if k not in seen:
                        seen.add(k)
                        unique.append(m)
                captures = unique
            return captures

        moves: list[Move] = []
        append = moves.append
        # Men: one step diagonally forward (RULES.md §2.1).
        if men:
            # White moves towards row 0 (right shifts), Black towards the last row (left shifts).
            white = self.white_to_move
            for shift in (t.up_left, t.up_right):
                targets = ((men >> shift) if white else (men << shift)) & empty
                while targets:
                    low = targets & -targets
                    to = low.bit_length() - 1
                    append(Move((to + shift if white else to - shift, to), (), 0, bool(low & promo)))
                    targets ^= low
        # Kings: any distance along a free diagonal, or one square (RULES.md §2.2, §4).
        if own_kings:
            rays = t.rays
            flying = v.flying_kings
            bb = own_kings
            while bb:
                low = bb & -bb
                frm = low.bit_length() - 1
                bb ^= low
                for ray in rays[frm]:
                    for to in ray:
                        if occupied >> to & 1:
                            break
                        append(Move((frm, to), (), 0, False))
                        if not flying:
                            break
        return moves

    def _captures(self, v: Variant, t: _Tables, own: int, opp: int, men: int, own_kings: int, empty: int, promo: int) -> list[Move]:
        """Every complete capture sequence of every piece (RULES.md §2.3–2.9, §4)."""
        kings = self.kings
        capturable_by_men = opp if v.men_capture_kings else opp & ~kings
        white = self.white_to_move
        # Which men can start a capture: bitboard test per direction before any search.
        starters = 0
        if men:
            h1, h0 = t.up_left, t.up_right
            if white or v.men_capture_backward:
                starters |= (((empty << h1) & capturable_by_men) << h1) & men
                starters |= (((empty << h0) & capturable_by_men) << h0) & men
            if not white or v.men_capture_backward:
                starters |= (((empty >> h1) & capturable_by_men) >> h1) & men
                starters |= (((empty >> h0) & capturable_by_men) >> h0) & men
        if not starters and not own_kings:
            return []
        results: list[Move] = []
        gen = _CaptureSearch(v, t, opp, kings, own | opp, promo, white, results)
        bb = starters
        while bb:
            low = bb & -bb
            frm = low.bit_length() - 1
            bb ^= low
            gen.run(frm, False)
        bb = own_kings
        while bb:
            low = bb & -bb
            frm = low.bit_length() - 1
            bb ^= low
            gen.run(frm, True)
        return results

    def play(self, move: Move) -> Position:
        """The position after `move` (which must be one of this position's legal moves)."""
        t = _tables(self.variant.board_size)
        path = move.path
        frm = path[0]
        to = path[-1]
        fb = 1 << frm
        tb = 1 << to
        kings = self.kings
        h = self.hash ^ t.z_black_to_move
        if self.white_to_move:
            own, opp = self.white, self.black
            z_man, z_king, zo_man, zo_king = t.z_white_man, t.z_white_king, t.z_black_man, t.z_black_king
        else:
            own, opp = self.black, self.white
            z_man, z_king, zo_man, zo_king = t.z_black_man, t.z_black_king, t.z_white_man, t.z_white_king
        own = (own & ~fb) | tb
        if kings & fb:
            kings = (kings & ~fb) | tb
            h ^= z_king[frm] ^ z_king[to]
        elif move.promotes:
            kings |= tb
            h ^= z_man[frm] ^ z_king[to]
        else:
            h ^= z_man[frm] ^ z_man[to]
        cm = move.capture_mask
        if cm:
            for c in move.captured:
                h ^= zo_king[c] if kings >> c & 1 else zo_man[c]
            opp &= ~cm
            kings &= ~cm
        if self.white_to_move:
            return Position(self.variant, own, opp, kings, False, h)
        return Position(self.variant, opp, own, kings, True, h)

    # ----------------------------------------------------------------------------------------
    # Text

    def parse_move(self, text: str) -> Move:
        """The legal move named by `text` (liberal input, RULES.md §5); raises IllegalMove."""
        from shashki.rules.notation import parse_move

        return parse_move(self, text)

    def notation(self, move: Move) -> str:
        return move.notation(self.variant)

    def iter_squares(self, bb: int) -> Iterator[int]:
        return self.board.iter_bits(bb)


class _CaptureSearch:
    """Depth-first search of capture sequences from one piece, Turkish strike and all.

    Captured pieces stay on the board until the move ends: they block, and may not be jumped twice
    (RULES.md §2.8). The moving piece's start square counts as empty during its move.
    """

    __slots__ = ("v", "t", "opp", "kings", "occupied", "promo", "white", "results", "path", "caps",
                 "men_dirs", "capturable_men", "start_king", "flying", "continue_as_king", "stop_on_promo")

    def __init__(self, v: Variant, t: _Tables, opp: int, kings: int, occupied: int, promo: int, white: bool,
                 results: list[Move]) -> None:
        self.v = v
        self.t = t
        self.opp = opp
        self.kings = kings
        self.occupied = occupied
        self.promo = promo
        self.white = white
        self.results = results
        self.path: list[int] = []
        self.caps: list[int] = []
        # Direction indices 0, 1 are towards row 0 (White's forward), 2, 3 towards Black's forward.
        if v.men_capture_backward:
            self.men_dirs = (0, 1, 2, 3)
        else:
            self.men_dirs = (0, 1) if white else (2, 3)
        self.capturable_men = opp if v.men_capture_kings else opp & ~kings
        self.flying = v.flying_kings
        self.continue_as_king = v.promotion_in_capture is PromotionInCapture.CONTINUE_AS_KING
        self.stop_on_promo = v.promotion_in_capture is PromotionInCapture.STOP

    def run(self, frm: int, is_king: bool) -> None:
        saved = self.occupied
        self.occupied = saved & ~(1 << frm)  # the mover's own square is empty during its move
        self.path = [frm]
        self.caps = []
        self.start_king = is_king
        if is_king:
            self._king(frm, 0)
        else:
            self._man(frm, 0)
        self.occupied = saved

    def _record(self, captured: int, promotes: bool) -> None:
        self.results.append(Move(tuple(self.path), tuple(self.caps), captured, promotes))

    def _man(self, sq: int, captured: int) -> bool:
        found = False
        jumps = self.t.jumps[sq]
        occupied = self.occupied
        targets = self.capturable_men & ~captured
        for d in self.men_dirs:
            jump = jumps[d]
            if jump is None:
                continue
            over, land = jump
            if not (targets >> over & 1) or occupied >> land & 1:
                continue
            found = True
            now = captured | (1 << over)
            self.path.append(land)
            self.caps.append(over)
            if self.promo >> land & 1:
                if self.continue_as_king:
                    # RULES.md §2.9: crowned at once, the capture goes on as a king.
                    if not self._king(land, now):
                        self._record(now, True)
                elif self.stop_on_promo:
                    self._record(now, True)
                elif not self._man(land, now):
                    self._record(now, True)
            elif not self._man(land, now):
                self._record(now, False)
            self.path.pop()
            self.caps.pop()
        return found

    def _king(self, sq: int, captured: int) -> bool:
        found = False
        occupied = self.occupied
        targets = self.opp & ~captured
        promotes = not self.start_king
        for ray in self.t.rays[sq]:
            n = len(ray)
            i = 0
            if self.flying:
                while i < n and not (occupied >> ray[i] & 1):
                    i += 1
            if i >= n - 1:
                continue
            over = ray[i]
            if not (targets >> over & 1):
                continue  # own piece, a piece already captured, or nothing to take
            now = captured | (1 << over)
            landings = []
            j = i + 1
            while j < n and not (occupied >> ray[j] & 1):
                landings.append(ray[j])
                if not self.flying:
                    break
                j += 1
            if not landings:
                continue
            found = True
            self.caps.append(over)
            ends = []
            continued = False
            for land in landings:
                self.path.append(land)
                if self._king(land, now):
                    continued = True
                else:
                    ends.append(land)
                self.path.pop()
            # Landing rule (RULES.md §2.5): if the capture can go on from some landing squares, the
            # king must land on one of those; otherwise it may stop on any of them.
            if not continued:
                for land in ends:
                    self.path.append(land)
                    self._record(now, promotes)
                    self.path.pop()
            self.caps.pop()
        return found


def _apply_precedence(captures: list[Move], precedence: Precedence, kings: int, own_kings: int) -> list[Move]:
    """Keep the sequences the precedence rule allows (FMJD 4.13 quantity; FID Italian order)."""
    if precedence is Precedence.QUANTITY:
        best = max(len(m.captured) for m in captures)
        return [m for m in captures if len(m.captured) == best]

    # Italian (FID): most pieces; then capturing with a king; then most kings taken; then the
    # sequence that meets a king first (compared capture by capture).
    def key(m: Move) -> tuple:
        kinds = tuple(bool(kings >> c & 1) for c in m.captured)
        return (len(kinds), bool(own_kings >> m.path[0] & 1), sum(kinds), kinds)

    keyed = [(key(m), m) for m in captures]
    best = max(k for k, _ in keyed)
    return [m for k, m in keyed if k == best]
