"""Russian draughts' count rules along the search path: when the endgame tables may be believed.

The Russian tables (`shashki.engine.tablebase`) give the theoretical result and distance of a position,
as if the game had no draw by count. FMJD-64 (RULES.md §4) draws a game that is not won in time:

- 7.2.4 three kings or more against a lone king, not captured by the stronger side's 15th move;
- 7.2.5 15 moves of each side with kings only moved, no man moved and no capture;
- 7.2.6 30 moves of each side with no capture and no promotion, 4-5 pieces, both sides with kings;
- 7.2.7 three pieces (one a king) against a lone king on the long diagonal a1-h8, 5 moves;
- 7.2.8 two pieces (one a king), or a king, against a lone king, 5 moves.

`Counts` keeps, for every node on the path that has few enough pieces to be in the tables, the count of
each rule exactly as `shashki.rules.draws` does (plies since its condition first held, reset by what
resets it; the limit fixed where it started), from its parent's counts and the root's (the game's own
counters, `Game.count_states`; a bare position starts every count at 0 there, as a game from that FEN
would). `node` returns -1 when a count has run out (the game is drawn there, unless the side to move has
no move: the win comes first) and otherwise the plies a table result may take and still be true:

    bound = min(the limit - the count of each rule counting now,  30 - the 7.2.5 count,  fresh)

A table win (or loss) in d plies is trusted when d <= bound; otherwise the search goes on below the
node as if there were no table there (a longer win may still be won under the counts, or may be a draw:
only the search can tell, and it sees the nodes nearer the end, whose distances are shorter). Why the
bound is enough along the whole winning line, where counts restart after captures and promotions:

- a rule counting now either goes on (its remaining plies shrink with the distance) or restarts;
- 7.2.5 and 7.2.6 restart with 30 and 60 plies, never less than the remaining bound (<= 30);
- 7.2.4 and 7.2.8 restart (after a capture or a promotion) in positions whose table distance never
  exceeds the new limit (three kings v a king: 25 plies; 7.2.8's endings: 9) — measured on the shipped
  tables by tests/engine/test_russian_tables.py;
- 7.2.7 restarts when the lone king steps onto the long diagonal (the stronger side then to move):
  with three kings the table's distance there is at most 9, within the 9 plies allowed; with a man
  among the three it reaches 45 and 75 plies, so in those endings (and the ones that become them: three
  pieces with a man against a single piece) `fresh` is 9 and longer table results are not trusted.

Draws in the tables are draws under the counts too (the counts only add draws). A win beyond the bound
is never claimed; at the horizon it scores `alphabeta.TABLE_HINT` minus its distance (more than any
material, far below a win), so that the search heads for the nearer wins it can believe.

The transposition table does not know the counts: within one search a score stored under one path's
counts may serve another path (as with repetitions); each Russian search from 8 pieces or fewer starts
with an empty table (`search.COUNTED_ENDING`), so nothing stored under an earlier move's counts is reused.
"""

from __future__ import annotations

from typing import Final

from shashki.engine.evaluation import popcount
from shashki.rules.draws import LONG_DIAGONAL
from shashki.rules.position import Position

KING_MOVES: Final = 30  # 7.2.5: 15 moves of each side
FRESH_LONG_DIAGONAL: Final = 9  # 7.2.7: the stronger side's 5 moves, from a position where it is to move
UNBOUNDED: Final = 1 << 20


class Counts:
    """The count rules' state at each ply of the search path (`node` writes it, `dead` marks a node
    with more pieces than the tables, whose children start their counts afresh after the capture)."""

    def __init__(self, long_diagonal: int, size: int) -> None:
        self.diagonal = long_diagonal  # the a1-h8 squares as a Position bitboard
        self.size = size
        self.live = [0] * size  # 1 where the ply's node wrote its counts
        self.men = [0] * size
        self.material = [0] * size  # white men | white kings << 4 | black men << 8 | black kings << 12
        self.quiet = [0] * size  # 7.2.5
        self.progress = [0] * size  # 7.2.6, -1 when not counting
        self.progress_limit = [0] * size
        self.kings3 = [0] * size  # 7.2.4
        self.kings3_limit = [0] * size
        self.long = [0] * size  # 7.2.7
        self.long_limit = [0] * size
        self.small = [0] * size  # 7.2.8
        self.small_limit = [0] * size

    def dead(self, ply: int) -> None:
        if ply < self.size:
            self.live[ply] = 0

    def root(self, white: int, black: int, kings: int, white_to_move: bool, quiet: int, progress: int,
             kings3: int, kings3_limit: int, long: int, long_limit: int, small: int, small_limit: int,
             known: bool) -> None:
        """The root's counts: the game's (`known`; -1 for a rule not counting) or fresh."""
        self.node(white, black, kings, white_to_move, 0)
        if not known:
            return
        self.quiet[0] = quiet
        if self.progress[0] >= 0 and progress >= 0:
            self.progress[0] = progress
        if self.kings3[0] >= 0 and kings3 >= 0:
            self.kings3[0], self.kings3_limit[0] = kings3, kings3_limit
        if self.long[0] >= 0 and long >= 0:
            self.long[0], self.long_limit[0] = long, long_limit
        if self.small[0] >= 0 and small >= 0:
            self.small[0], self.small_limit[0] = small, small_limit

    def node(self, white: int, black: int, kings: int, white_to_move: bool, ply: int) -> int:
        """Write the node's counts from its parent's; -1 if a count has run out here, else the bound."""
        if ply >= self.size:
            return 0
        wk = popcount(white & kings)
        wm = popcount(white) - wk
        bk = popcount(black & kings)
        bm = popcount(black) - bk
        material = wm | (wk << 4) | (bm << 8) | (bk << 12)
        men = (white | black) & ~kings
        parent = ply - 1
        live = ply > 0 and self.live[parent] == 1
        same = live and self.material[parent] == material  # no capture, no promotion since the parent
        drawn = False
        self.live[ply] = 1
        self.men[ply] = men
        self.material[ply] = material
        # 7.2.5: a king's quiet move goes on counting; a man's move or a capture starts again.
        quiet = self.quiet[parent] + 1 if same and self.men[parent] == men else 0
        self.quiet[ply] = quiet
        bound = KING_MOVES - quiet
        if bound <= 0:
            drawn = True
        # 7.2.6: both sides with kings, 4-5 (60 plies) or 6-7 pieces (120); a capture or promotion restarts.
        total = wm + wk + bm + bk
        progress = -1
        if wk > 0 and bk > 0 and 4 <= total <= 7:
            if same and self.progress[parent] >= 0:
                progress = self.progress[parent] + 1
                limit = self.progress_limit[parent]
            else:
                progress = 0
                limit = 60 if total <= 5 else 120
            self.progress_limit[ply] = limit
            if progress >= limit:
                drawn = True
            elif limit - progress < bound:
                bound = limit - progress
        self.progress[ply] = progress
        # The endings against a lone king (7.2.4, 7.2.7, 7.2.8): the key is the number of pieces of each
        # side; the stronger side's moves are counted (with a king against a king, the side to move's).
        stronger = 0  # 1: White against Black's lone king, 2: Black against White's
        if bm + bk == 1 and bk == 1:
            stronger = 1
        elif wm + wk == 1 and wk == 1:
            stronger = 2
        key_same = live and _pieces(self.material[parent]) == _pieces(material)
        kings3 = -1
        long = -1
        small = -1
        if stronger:
            n = wm + wk if stronger == 1 else bm + bk
            nk = wk if stronger == 1 else bk
            stronger_to_move = white_to_move == (stronger == 1)
            if nk >= 3 and n == nk:
                if key_same and self.kings3[parent] >= 0:
                    kings3 = self.kings3[parent] + 1
                    limit = self.kings3_limit[parent]
                else:
                    kings3 = 0
                    limit = 29 if stronger_to_move else 30
                self.kings3_limit[ply] = limit
                if kings3 >= limit:
                    drawn = True
                elif limit - kings3 < bound:
                    bound = limit - kings3
            lone = black if stronger == 1 else white
            if n == 3 and nk >= 1 and lone & self.diagonal:
                if key_same and self.long[parent] >= 0:
                    long = self.long[parent] + 1
                    limit = self.long_limit[parent]
                else:
                    long = 0
                    limit = 9 if stronger_to_move else 10
                self.long_limit[ply] = limit
                if long >= limit:
                    drawn = True
                elif limit - long < bound:
                    bound = limit - long
            if n <= 2 and nk >= 1:
                if key_same and self.small[parent] >= 0:
                    small = self.small[parent] + 1
                    limit = self.small_limit[parent]
                else:
                    small = 0
                    limit = 9 if stronger_to_move or n == 1 else 10
                self.small_limit[ply] = limit
                if small >= limit:
                    drawn = True
                elif limit - small < bound:
                    bound = limit - small
            # 7.2.7 may start afresh later with only 9 plies: trust no longer result where the table's
            # distances on the long diagonal exceed that (three pieces with a man against one).
            if total == 4 and n == 3 and nk < 3 and bound > FRESH_LONG_DIAGONAL:
                bound = FRESH_LONG_DIAGONAL
        elif (total == 4 and ((wm + wk == 3 and wm >= 1) or (bm + bk == 3 and bm >= 1))
              and bound > FRESH_LONG_DIAGONAL):
            # three pieces with a man against a single man: the man may be crowned into the ending above
            bound = FRESH_LONG_DIAGONAL
        self.kings3[ply] = kings3
        self.long[ply] = long
        self.small[ply] = small
        if drawn:
            return -1
        return bound


def long_diagonal(by_name: dict[str, int]) -> int:
    """The a1-h8 squares (7.2.7's long diagonal) as a bitboard of the board whose squares are `by_name`."""
    return sum(1 << by_name[name] for name in LONG_DIAGONAL)


def fresh_bound(position: Position) -> int:
    """The plies a table result of `position` may take and still hold under the count rules, every count
    starting there (as in a game set up from its FEN): what the search would believe at its root."""
    tracker = Counts(long_diagonal(position.variant.board.by_name), 1)
    return tracker.node(position.white, position.black, position.kings, position.white_to_move, 0)


def _pieces(material: int) -> int:
    """The endings' key: the number of pieces of each side (White's | Black's << 8)."""
    return (material & 0x0F0F) + ((material >> 4) & 0x0F0F)
