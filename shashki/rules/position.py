"""Positions and moves: the hot path.

A `Position` is immutable: three bitboards (white pieces, black pieces, kings), the side to move, the
variant and a Zobrist hash kept up to date move by move. `legal_moves()` generates every legal move of
RULES.md §2 and §4 from the variant's parameters; `play(move)` returns the next position.

Squares in this module are bit indices of the board's layout (see `shashki.rules.board`); the
variant's `board` turns them into numbers and names.

Imports run one way: this module builds on `variant` (the rules' parameters), `notation` (reading
moves) and `fen` (reading and writing positions); those know a position only as a type.

>>> from shashki.rules import get_variant
>>> pos = Position.start(get_variant("russian"))
>>> len(pos.legal_moves())
7
>>> pos.play(pos.parse_move("c3-d4")).fen()
'B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
"""

from __future__ import annotations

import random
from types import FunctionType
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from shashki.rules import fen as _fen
from shashki.rules import notation as _notation
from shashki.rules.board import BoardGeometry, geometry
from shashki.rules.variant import Color, Precedence, PromotionInCapture, Variant, get_variant


def _probe() -> None:
    """Only looked at: mypyc turns the module's functions into builtins (see COMPILED)."""


# True when this module runs compiled (setup.py): `popcount` then counts with shifts and adds on
# machine integers, cheaper there than a call to int.bit_count, which mypyc does not compile inline.
COMPILED: Final = not isinstance(_probe, FunctionType)


def popcount(bb: int) -> int:
    """The number of pieces on a bitboard (any board: bitboards stay below 2**60)."""
    if not COMPILED:
        return bb.bit_count()
    if not bb:
        return 0  # often: the evaluation counts many sparse sets (hanging pieces, kings)
    return int(popcount64(bb))


def popcount64(x: i64) -> i64:
    """`popcount` in native 64-bit arithmetic (compiled, no tagged-int checks), for callers that
    hold their bitboards as i64 (shashki.engine.evaluation)."""
    if not COMPILED:
        return int(x).bit_count()
    if not x:
        return 0
    x -= (x >> 1) & 0x555555555555555
    x = (x & 0x333333333333333) + ((x >> 2) & 0x333333333333333)
    x = (x + (x >> 4)) & 0xF0F0F0F0F0F0F0F
    x += x >> 8
    x += x >> 16
    x += x >> 32
    return x & 0x7F


class Move:
    """One move: the squares landed on (start first) and the pieces captured, in capture order.

    Two capture routes with the same start, end, captured set and resulting piece are the same move
    (RULES.md §2.10); `key` identifies that move. Moves are values: never change one. A move also
    carries what `Position.play` needs to apply it without looking anything up (`change`, the
    start and end squares as a bitboard, and `zobrist`, the hash difference it makes), so a move
    belongs to the position, or at least the side to move, it was generated for.
    """

    __slots__ = (
        "path", "captured", "capture_mask", "promotes", "by_king", "change", "zobrist", "start", "end"
    )

    def __init__(
        self,
        path: tuple[int, ...],
        captured: tuple[int, ...],
        capture_mask: int,
        promotes: bool,
        by_king: bool = False,
        zobrist: int = 0,
    ) -> None:
        self.path = path
        self.captured = captured
        self.capture_mask = capture_mask
        self.promotes = promotes
        self.by_king = by_king
        self.start = path[0]  # the start and end squares as plain ints (the search's move order)
        self.end = path[-1]
        self.change = (1 << self.start) ^ (1 << self.end)
        self.zobrist = zobrist

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
        return (
            self.path == other.path
            and self.capture_mask == other.capture_mask
            and (self.promotes == other.promotes)
        )

    def __hash__(self) -> int:
        return hash((self.path, self.capture_mask, self.promotes))

    def __reduce__(self) -> tuple:
        return (
            Move,
            (self.path, self.captured, self.capture_mask, self.promotes, self.by_king, self.zobrist),
        )

    def __repr__(self) -> str:
        return f"<Move path={self.path} captured={self.captured}{' promotes' if self.promotes else ''}>"


class _Tables:
    """Per-board precomputed data: neighbours, rays and Zobrist keys."""

    def __init__(self, board: BoardGeometry) -> None:
        self.board = board
        h = board.half
        self.up_left = h + 1  # right shift of White's forward-left step
        self.up_right = h  # right shift of White's forward-right step
        rays = board.rays
        self.rays: dict[int, tuple[tuple[int, ...], ...]] = rays
        # jumps[bit][d] = (over, landing) when both exist in direction d, else None.
        self.jumps: dict[int, tuple[tuple[int, int] | None, ...]] = {
            bit: tuple((ray[0], ray[1]) if len(ray) >= 2 else None for ray in per_dir)
            for bit, per_dir in rays.items()
        }
        # 60-bit keys: small ints stay cheap (and native in the compiled build).
        rng = random.Random(0x5A5A + board.size)
        top = max(rays) + 1
        self.z_white_man = [rng.getrandbits(60) for _ in range(top)]
        self.z_white_king = [rng.getrandbits(60) for _ in range(top)]
        self.z_black_man = [rng.getrandbits(60) for _ in range(top)]
        self.z_black_king = [rng.getrandbits(60) for _ in range(top)]
        self.z_black_to_move = rng.getrandbits(60)


_TABLES: dict[int, _Tables] = {}


def _tables(size: int) -> _Tables:
    t = _TABLES.get(size)
    if t is None:
        t = _TABLES[size] = _Tables(geometry(size))
    return t


class MoveRules:
    """A variant's rules for one colour, precomputed for the move generator.

    Built once per variant and colour (`move_rules`): the quiet moves as ready-made Move
    objects, the bitboard test for captures, and what the capture search needs.
    """

    def __init__(self, variant: Variant, white: bool) -> None:
        t = _tables(variant.board_size)
        board = t.board
        self.white = white
        self.mask: int = board.mask
        self.h1: int = t.up_left
        self.h0: int = t.up_right
        self.zside: int = t.z_black_to_move
        self.z_man: list[int] = t.z_white_man if white else t.z_black_man
        self.z_king: list[int] = t.z_white_king if white else t.z_black_king
        self.zo_man: list[int] = t.z_black_man if white else t.z_white_man
        self.zo_king: list[int] = t.z_black_king if white else t.z_white_king
        promo = board.white_promotion_row if white else board.black_promotion_row
        self.promo: int = promo
        self.flying: bool = variant.flying_kings
        mode = variant.promotion_in_capture
        self.as_king: bool = mode is PromotionInCapture.CONTINUE_AS_KING
        self.stop: bool = mode is PromotionInCapture.STOP
        self.men_capture_kings: bool = variant.men_capture_kings
        self.captures_up: bool = white or variant.men_capture_backward
        self.captures_down: bool = (not white) or variant.men_capture_backward
        self.precedence: Precedence = variant.precedence
        self.free_choice: bool = variant.precedence is Precedence.FREE
        # The tables below are indexed by square (bit index; empty where there is no square): an
        # index costs less than a dict look-up in the move generator's loops.
        top = max(t.rays) + 1
        # The rays, packed (librt) for the capture search and `_king_moves`: the k-th square of
        # direction d from a square at ray_squares[(4 * square + d) * ray_stride + k], the ray's
        # length at ray_length[4 * square + d] (0 where there is none).
        stride = max((len(ray) for rays in t.rays.values() for ray in rays), default=1)
        squares: list[int] = [0] * (4 * top * stride)
        lengths: list[int] = [0] * (4 * top)
        for sq, rays in t.rays.items():
            for d, ray in enumerate(rays):
                lengths[4 * sq + d] = len(ray)
                at = (4 * sq + d) * stride
                squares[at : at + len(ray)] = list(ray)
        self.ray_stride: i64 = stride
        self.ray_squares: vec[i64] = vec[i64](squares)
        self.ray_length: vec[i64] = vec[i64](lengths)
        # Direction indices 0, 1 lead towards row 0 (White's forward), 2, 3 towards Black's forward.
        men_dirs = (0, 1, 2, 3) if variant.men_capture_backward else ((0, 1) if white else (2, 3))
        # men_jumps[4 * (4 * square + k)...]: over mask, landing mask, over, landing of the k-th
        # direction a man on the square may take in (men_jump_count[square] of them), packed (librt):
        # read unboxed by `_CaptureSearch.man`.
        flat: list[int] = [0] * (16 * top)
        counts: list[int] = [0] * top
        for sq in range(top):
            for d, j in enumerate(t.jumps.get(sq, ())):
                if j is not None and d in men_dirs:
                    at = 4 * (4 * sq + counts[sq])
                    flat[at : at + 4] = [1 << j[0], 1 << j[1], j[0], j[1]]
                    counts[sq] += 1
        self.men_jumps: vec[i64] = vec[i64](flat)
        self.men_jump_count: vec[i64] = vec[i64](counts)
        side = self.zside
        # Men step forward (RULES.md §2.1): White towards row 0 (right shifts), Black away from it.
        # steps: (shift, [Move by target square]) for the two forward directions (`none` where no
        # step lands).
        none = Move((0, 0), (), 0, False)
        steps: list[tuple[int, list[Move]]] = []
        for shift in (t.up_left, t.up_right):
            table: list[Move] = [none] * top
            d = (0 if shift == t.up_left else 1) if white else (3 if shift == t.up_left else 2)
            for frm in board.rows:
                ray = board.rays[frm][d]
                if not ray:
                    continue
                to = ray[0]
                promotes = bool(promo >> to & 1)
                z = self.z_man[frm] ^ (self.z_king[to] if promotes else self.z_man[to]) ^ side
                table[to] = Move((frm, to), (), 0, promotes, False, z)
            steps.append((shift, table))
        self.steps = steps
        # Kings (RULES.md §2.2; one square in English and Italian): per square, per direction,
        # (target mask, Move) nearest first.
        self.king_rays: list[list[list[tuple[int, Move]]]] = [[] for _ in range(top)]
        for frm, rays in board.rays.items():
            per_dir: list[list[tuple[int, Move]]] = []
            for ray in rays:
                reach = ray if variant.flying_kings else ray[:1]
                per_dir.append(
                    [
                        (
                            1 << to,
                            Move((frm, to), (), 0, False, True, self.z_king[frm] ^ self.z_king[to] ^ side),
                        )
                        for to in reach
                    ]
                )
            self.king_rays[frm] = per_dir


# (Black's, White's) MoveRules by variant key: a variant's key names its rules (as its pickling and
# Position equality say), and a str key hashes once and for all, where a Variant would hash per lookup.
_MOVE_RULES: dict[str, tuple[MoveRules, MoveRules]] = {}


def move_rules(variant: Variant) -> tuple[MoveRules, MoveRules]:
    """(Black's, White's) MoveRules of a variant, built on first use."""
    rules = _MOVE_RULES.get(variant.key)
    if rules is None:
        rules = _MOVE_RULES[variant.key] = (MoveRules(variant, False), MoveRules(variant, True))
    return rules


def zobrist(variant: Variant, white: int, black: int, kings: int, white_to_move: bool) -> int:
    """The Zobrist hash of a position computed from scratch (play() keeps it incrementally)."""
    t = _tables(variant.board_size)
    h = 0 if white_to_move else t.z_black_to_move
    for bb, men_keys, king_keys in (
        (white, t.z_white_man, t.z_white_king),
        (black, t.z_black_man, t.z_black_king),
    ):
        while bb:
            low = bb & -bb
            b = low.bit_length() - 1
            h ^= king_keys[b] if kings & low else men_keys[b]
            bb ^= low
    return h


class Position:
    """An immutable position of a variant."""

    __slots__ = ("variant", "white", "black", "kings", "white_to_move", "hash", "_moves", "_rules")

    def __init__(
        self,
        variant: Variant,
        white: int,
        black: int,
        kings: int,
        white_to_move: bool,
        hash: int | None = None,
    ):
        self.variant = variant
        self.white = white
        self.black = black
        self.kings = kings
        self.white_to_move = white_to_move
        self.hash = zobrist(variant, white, black, kings, white_to_move) if hash is None else hash
        self._moves: list[Move] | None = None
        # The variant's MoveRules (move_rules), handed on from position to position by `play`.
        self._rules: tuple[MoveRules, MoveRules] | None = None

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
        """The position a FEN describes (`shashki.rules.fen.read_fen`); FenError says what is wrong."""
        v = variant if isinstance(variant, Variant) else get_variant(variant)
        white, black, kings, white_to_move = _fen.read_fen(fen, v)
        return cls(v, white, black, kings, white_to_move)

    def fen(self, algebraic: bool = False) -> str:
        return _fen.write_fen(self, algebraic=algebraic)

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

    def __reduce__(self) -> tuple:
        return (Position, (self.variant, self.white, self.black, self.kings, self.white_to_move, self.hash))

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
        white = self.white_to_move
        # The variant's rules for the side to move, precomputed once per variant (MoveRules).
        S: MoveRules = self.move_rules()[white]
        kings = self.kings
        if white:
            own, opp = self.white, self.black
        else:
            own, opp = self.black, self.white
        occupied = own | opp
        empty = S.mask ^ occupied
        men = own & ~kings
        own_kings = own & kings

        # Capture is compulsory (RULES.md §2.3): look for captures first. Which men can start one
        # is a bitboard test per direction; kings are searched square by square.
        starters = 0
        if men:
            capturable = opp if S.men_capture_kings else opp & ~kings
            h1 = S.h1
            h0 = S.h0
            if S.captures_up:
                starters = ((((empty << h1) & capturable) << h1) | (((empty << h0) & capturable) << h0)) & men
            if S.captures_down:
                starters |= (
                    (((empty >> h1) & capturable) >> h1) | (((empty >> h0) & capturable) >> h0)
                ) & men
        # Kings: a look along their rays first tells whether one can capture at all.
        if starters or (own_kings and _king_moves(S, own_kings, opp, occupied) < 0):
            captures = _capture_moves(S, opp, kings, starters, own_kings, occupied)
            if captures:
                if precedence and not S.free_choice:
                    captures = _apply_precedence(captures, S.precedence, kings, own_kings)
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
        if men:
            # Men step forward (RULES.md §2.1): White towards row 0, Black away from it.
            for shift, table in S.steps:
                targets = ((men >> shift) if white else (men << shift)) & empty
                while targets:
                    low = targets & -targets
                    append(table[low.bit_length() - 1])
                    targets ^= low
        if own_kings:
            king_rays = S.king_rays
            bb = own_kings
            while bb:
                low = bb & -bb
                bb ^= low
                for ray in king_rays[low.bit_length() - 1]:
                    for target, move in ray:
                        if occupied & target:
                            break
                        append(move)
        return moves

    def move_rules(self) -> tuple[MoveRules, MoveRules]:
        """(Black's, White's) MoveRules of the variant (`move_rules`), kept with the position."""
        rules = self._rules
        if rules is None:
            rules = self._rules = move_rules(self.variant)
        return rules

    def quiet_move_count(self) -> int:
        """How many legal moves there are when the side to move has no capture to make, without
        generating them (a man's step forward, RULES.md §2.1, a king's move, §2.2); -1 when there is a
        capture to make (count `legal_moves()` then).

        The search asks this at its horizon, where it needs only to know whether there is no move, one
        move, or a choice (shashki.engine.alphabeta)."""
        white = self.white_to_move
        S: MoveRules = self.move_rules()[white]
        kings = self.kings
        if white:
            own, opp = self.white, self.black
        else:
            own, opp = self.black, self.white
        occupied = own | opp
        empty = S.mask ^ occupied
        men = own & ~kings
        count = 0
        if men:
            # The same bitboard test as `generate`'s for men that can start a capture.
            capturable = opp if S.men_capture_kings else opp & ~kings
            h1 = S.h1
            h0 = S.h0
            if S.captures_up and (
                ((((empty << h1) & capturable) << h1) | (((empty << h0) & capturable) << h0)) & men
            ):
                return -1
            if S.captures_down and (
                ((((empty >> h1) & capturable) >> h1) | (((empty >> h0) & capturable) >> h0)) & men
            ):
                return -1
            if white:
                count = popcount((men >> h1) & empty) + popcount((men >> h0) & empty)
            else:
                count = popcount((men << h1) & empty) + popcount((men << h0) & empty)
        own_kings = own & kings
        if own_kings:
            kings_count = _king_moves(S, own_kings, opp, occupied)
            if kings_count < 0:
                return -1
            count += kings_count
        return count

    def play(self, move: Move) -> Position:
        """The position after `move`, which must be a legal move of this position."""
        change = move.change
        kings = self.kings
        if move.by_king:
            kings ^= change
        elif move.promotes:
            kings |= 1 << move.path[-1]
        captured = move.capture_mask
        kings &= ~captured
        if self.white_to_move:
            child = Position(
                self.variant,
                self.white ^ change,
                self.black & ~captured,
                kings,
                False,
                self.hash ^ move.zobrist,
            )
        else:
            child = Position(
                self.variant,
                self.white & ~captured,
                self.black ^ change,
                kings,
                True,
                self.hash ^ move.zobrist,
            )
        child._rules = self._rules
        return child

    # ----------------------------------------------------------------------------------------
    # Text

    def parse_move(self, text: str) -> Move:
        """The legal move named by `text` (liberal input, RULES.md §5); raises IllegalMove."""
        return _notation.parse_move(self, text)

    def move_by_path(self, squares: list[int], captured: list[int] | None = None) -> Move:
        """The legal move whose route the squares (bits, as in `Move.path`) name, taking the pieces on
        `captured` when that is given; raises IllegalMove.

        The one resolver of moves given as squares (the Bot API's numbers, the Hub protocol and DXP):
        `shashki.rules.notation.move_by_path`.
        """
        return _notation.move_by_path(self, squares, captured=captured)

    def notation(self, move: Move) -> str:
        return move.notation(self.variant)


def _king_moves(S: MoveRules, own_kings: int, opp: int, occupied: int) -> int:
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


def _capture_moves(
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


def _apply_precedence(captures: list[Move], precedence: Precedence, kings: int, own_kings: int) -> list[Move]:
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
