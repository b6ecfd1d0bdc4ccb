"""The material endings a draw rule gives a number of moves to win: one function each, with its citation.

Each function looks at a position and what stands on it (`Material`, computed once per move for every
counter) and says whether its ending stands and, if so, in which configuration (`Configuration`): the
key whose change starts the count again, how many moves the rule allows, and whose moves count.
Counting those moves is `shashki.rules.draws.Ending`'s job, and which rule uses which ending with which
numbers is `shashki.rules.draws.draw_counters`'. They are module-level functions, bound to a rule's
numbers with `functools.partial`, so that a `Game` pickles.

>>> from shashki.rules.position import Position
>>> position = Position.from_fen("W:WKa1,Kb8,Kh8:BKe1", "russian")
>>> kings_against_lone_king(position, Material.of(position), moves=15)  # FMJD-64 7.2.4, White's moves
((3, 1), 15, True)
>>> position = Position.from_fen("B:WKa1,c3:BKe1", "russian")
>>> small_ending(position, Material.of(position), each_side=True)  # FMJD 6.4: 5 moves of each side
((2, 1), 5, None)
"""

from __future__ import annotations

from typing import NamedTuple

from shashki.rules.position import Position


class Material(NamedTuple):
    """What stands on the board, by colour and kind (computed once per move for every counter)."""

    white_men: int
    white_kings: int
    black_men: int
    black_kings: int

    @classmethod
    def of(cls, position: Position) -> Material:
        return cls(*position.counts())

    @property
    def white(self) -> int:
        return self.white_men + self.white_kings

    @property
    def black(self) -> int:
        return self.black_men + self.black_kings

    @property
    def total(self) -> int:
        return self.white + self.black

    def against_lone_king(self) -> tuple[bool, int, int] | None:
        """(stronger side is White, its pieces, its kings) when the other side has one piece, a king.

        King against king counts as White against Black's lone king (`small_ending` then decides
        whose moves count).
        """
        if self.black == 1 and self.black_kings == 1:
            return True, self.white, self.white_kings
        if self.white == 1 and self.white_kings == 1:
            return False, self.black, self.black_kings
        return None


# A configuration: None while the rule's condition does not hold, else (key, moves, counted side): the
# count restarts when the key changes; the counted side is True (White) or False (Black) for a rule
# that counts the moves of one side, None for one that counts N moves of each side.
Configuration = tuple[object, int, bool | None] | None


# --- the endings, one function each ---------------------------------------------------------------
# Their key is the number of pieces of each side: a capture starts the count again, a promotion does
# not (the ending stays the same ending; FMJD 6.3/6.4 count "from the moment the ending arises").


def kings_against_lone_king(position: Position, material: Material, *, moves: int, exactly_three: bool = False
                            ) -> Configuration:
    """FMJD-64 7.2.4: three kings or more, and nothing else, against a lone king, not captured by the
    stronger side's 15th move; APCA (Pool, RULES.md §4, `exactly_three`): three kings against one king,
    13 moves ("3 kings v 1 king", where RULES.md says "three or more" for Russian; the APCA's rule is
    "3-kings-against-1": four kings against one play on, and the count starts when one of them is lost).

    The side with the kings must win, so its moves are counted. The rule names kings only, where the
    neighbouring articles list men whenever they count them (7.2.7: "three pieces (two kings and a
    man, a king and two men, three kings)"). The rule as published in Ukrainian (shashky.in.ua,
    "Різноманітні види нічиєї", item 4) reads: "гравець, маючи три дамки проти однієї дамки суперника
    своїм 15 ходом (вважаючи з моменту встановлення співвідношення сил) не візьме дамку суперника"
    (a player having three kings against one king, by his 15th move counting from the moment the
    balance of forces is established, does not capture it). So three kings and a man against a lone
    king is not this ending (7.2.6 counts it, both sides having kings); when the man is crowned, the
    balance of forces is established and the 15 moves start.
    """
    lone = material.against_lone_king()
    if lone is None or lone[2] < 3 or lone[1] != lone[2] or (exactly_three and lone[2] != 3):
        return None
    return (material.white, material.black), moves, lone[0]


def no_progress(position: Position, material: Material) -> Configuration:
    # FMJD-64 7.2.6: while both sides have kings, no capture and no promotion for 30 moves (of each
    # side) with 4-5 pieces on the board, 60 moves with 6-7. The key is the full material by kind, so
    # a capture or a promotion starts the count again; a man's quiet move does not.
    if not (material.white_kings and material.black_kings):
        return None
    total = material.total
    if 4 <= total <= 5:
        return material, 30, None
    if 6 <= total <= 7:
        return material, 60, None
    return None


def three_against_lone_king(
    position: Position,
    material: Material,
    *,
    moves: int,
    each_side: bool,
    lone_king_squares: int | None = None,
) -> Configuration:
    """Three pieces, at least one a king, against a lone king.

    FMJD-64 7.2.7 (`lone_king_squares` = the long diagonal a1-h8, 5 moves of the stronger side), as
    RULES.md §4 gives it: "three pieces (incl. a king) against a lone king on the long diagonal a1-h8
    not won in 5 moves" (the federation's text lists the three pieces: two kings and a man, a king and
    two men, three kings). The rule places the lone king and nothing else, so the stronger side's
    pieces may stand on the diagonal too: the count goes on when one of them steps onto it (and is not
    started again by stepping off and on, which would let the side that must win stretch its five
    moves at will; pydraughts reads it the other way). When the lone king leaves the diagonal the rule
    stops applying; when it comes back, the count starts again.
    FMJD 6.3 (16 moves, `each_side`) counts the moves of both players; its Dutch text (KNDB): "beide
    spelers zestien zetten hebben gespeeld nadat een stand is ontstaan van één dam tegen drie stukken
    waaronder een dam". (The Russian Ministry of Sport's text for 100 squares says "своим 16-м ходом",
    by the stronger side's 16th move; for FMJD's own game we follow FMJD.)
    """
    lone = material.against_lone_king()
    if lone is None or lone[1] != 3 or lone[2] < 1:
        return None
    if lone_king_squares is not None:
        lone_king = position.black if lone[0] else position.white
        if not lone_king & lone_king_squares:
            return None
    return (material.white, material.black), moves, None if each_side else lone[0]


def small_ending(position: Position, material: Material, *, each_side: bool) -> Configuration:
    """Two kings, a king and a man, or one king against a lone king, not won in 5 moves.

    FMJD-64 7.2.8 counts the moves of the side with the two pieces (or the king). With a king against
    a king, both sides are that side: the first of them to make its 5th move ends the game, which is
    the side to move where the ending arose. FMJD 6.4 (`each_side`): 5 moves of each player.
    """
    lone = material.against_lone_king()
    if lone is None or lone[1] > 2 or lone[2] < 1:
        return None
    if each_side:
        side = None
    elif material.white == material.black:  # a king against a king
        side = position.white_to_move
    else:
        side = lone[0]
    return (material.white, material.black), 5, side
