"""Moves and the move generator's tables: the hot path's data.

A `Move` is a value that carries what `Position.play` needs to apply it (the squares changed, the
pieces captured, the Zobrist difference). `MoveRules` is a variant's rules for one colour, precomputed
once (`move_rules`) for the move generator (`shashki.rules.position`) and its capture search
(`shashki.rules.captures`): the quiet moves as ready-made `Move` objects, the rays, the men's jumps
and the Zobrist keys. Compiled with mypyc with the generator (setup.py).
"""

from __future__ import annotations

import random
from types import FunctionType
from typing import Final

from librt.vecs import vec
from mypy_extensions import i64

from shashki.rules.board import BoardGeometry, geometry
from shashki.rules.variant import Precedence, PromotionInCapture, Variant


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
