"""Positions and moves: the hot path.

A `Position` is immutable: three bitboards (white pieces, black pieces, kings), the side to move, the
variant and a Zobrist hash kept up to date move by move. `legal_moves()` generates every legal move of
RULES.md §2 and §4 from the variant's parameters; `play(move)` returns the next position.

Squares in this module are bit indices of the board's layout (see `shashki.rules.board`); the
variant's `board` turns them into numbers and names.

Imports run one way: this module builds on `variant` (the rules' parameters), `moves` (`Move` and the
generator's tables, re-exported here), `captures` (the capture search), `notation` (reading moves) and
`fen` (reading and writing positions); those know a position only as a type.

>>> from shashki.rules import get_variant
>>> pos = Position.start(get_variant("russian"))
>>> len(pos.legal_moves())
7
>>> pos.play(pos.parse_move("c3-d4")).fen()
'B:W18,21,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12'
"""

from __future__ import annotations

from shashki.rules import fen as _fen
from shashki.rules import notation as _notation
from shashki.rules.board import BoardGeometry
from shashki.rules.captures import apply_precedence, capture_moves, king_moves
from shashki.rules.moves import Move, MoveRules, move_rules, popcount, popcount64, zobrist
from shashki.rules.variant import Color, Variant, get_variant

__all__ = ["Move", "MoveRules", "Position", "move_rules", "popcount", "popcount64", "zobrist"]


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
        if starters or (own_kings and king_moves(S, own_kings, opp, occupied) < 0):
            captures = capture_moves(S, opp, kings, starters, own_kings, occupied)
            if captures:
                if precedence and not S.free_choice:
                    captures = apply_precedence(captures, S.precedence, kings, own_kings)
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
            kings_count = king_moves(S, own_kings, opp, occupied)
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
