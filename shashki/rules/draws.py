"""Automatic draw rules: each one a small counter with the condition it counts and what resets it.

`shashki.rules.game.Game` builds one counter per rule of `variant.active_draw_rules` (`draw_counters`),
tells each of them about the start position (`start`) and then about every move (`update`), and asks
`drawn` after the win check. Counters are incremental: a move costs each of them a few integer
operations, never a walk over the game's history.

How moves are counted (RULES.md §4: "Every count is in moves of the side named by the rule ..., starting
when its condition first holds, checked after each of that side's moves; a count never ends a game one
move early or late"). Every counter counts plies (`count`) from 0 in the position where its condition
first holds (the start position included), and the rule names whose moves it counts:

- "each side" rules (FMJD-64 7.2.5 and 7.2.6, FMJD 6.2-6.4, CBD item 16, ACF 40 moves) end the game
  after N moves of *both* players: 2N plies, whichever side was to move when the count began;
- "the stronger side" rules (FMJD-64 7.2.4, 7.2.7, 7.2.8 and APCA's 13 moves: "by his 15th move")
  end it after the Nth move of the side that must win: 2N - 1 plies when that side was to move where
  the condition arose (the defender made the ending, for instance by a capture), 2N when the defender
  was. The limit is fixed when the count starts, so a move still costs a few integer operations.

The count starts again from 0 whenever the rule's configuration changes (a capture, and for FMJD-64
7.2.6 also a promotion) and stops when the condition no longer holds.

>>> from shashki.rules import get_variant
>>> [c.rule.value for c in draw_counters(get_variant("russian-giveaway", double_diagonal=True))]
['threefold-repetition', 'double-diagonal-kings']
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import NamedTuple

from shashki.rules.position import Move, Position
from shashki.rules.variant import DrawRule, Variant


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

        King against king counts as White against Black's lone king (`_small_ending` then decides
        whose moves count).
        """
        if self.black == 1 and self.black_kings == 1:
            return True, self.white, self.white_kings
        if self.white == 1 and self.white_kings == 1:
            return False, self.black, self.black_kings
        return None


class DrawCounter:
    """One automatic draw rule: `count` for display, `drawn` once the rule ends the game."""

    rule: DrawRule
    count: int = 0

    def start(self, position: Position, material: Material) -> None:
        """The game's first position (a FEN start counts like any other position)."""

    def update(self, position: Position, move: Move, king_move: bool, material: Material) -> None:
        """`move` (by a king if `king_move`) has just been played and led to `position`."""
        raise NotImplementedError

    @property
    def drawn(self) -> bool:
        raise NotImplementedError

    @property
    def state(self) -> tuple[int, int] | None:
        """(count, limit in plies) while the rule counts towards a draw, else None (the engine's search
        goes on counting from here: shashki.engine.counts)."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.rule.value} {self.count}>"


class Repetition(DrawCounter):
    """Threefold repetition (FMJD-64 7.2.3, FMJD 6.1, WCDF, FID, APCA; RULES.md §3).

    The third occurrence of the same position (the same pieces of the same kinds on the same squares,
    the same side to move), counted over the whole game including its start position. Positions are
    keyed by their bitboards and side to move, not by the hash alone, so a hash collision cannot
    draw a game. A man move or a capture can never be undone (men do not step backward, pieces do not
    come back), so no earlier position can occur again after one: the table is emptied then, which
    keeps it as small as the current run of reversible moves. `count` is how often the current
    position has occurred.
    """

    rule = DrawRule.THREEFOLD
    times = 3

    def __init__(self) -> None:
        self.seen: dict[tuple[int, int, int, bool], int] = {}
        self.count = 0

    def _occur(self, position: Position) -> None:
        key = (position.white, position.black, position.kings, position.white_to_move)
        self.count = self.seen[key] = self.seen.get(key, 0) + 1

    def start(self, position: Position, material: Material) -> None:
        self.seen.clear()
        self._occur(position)

    def update(self, position: Position, move: Move, king_move: bool, material: Material) -> None:
        if move.capture_mask or not king_move:
            self.seen.clear()
        self._occur(position)

    @property
    def drawn(self) -> bool:
        return self.count >= self.times


class QuietKingMoves(DrawCounter):
    """Only kings moved, nobody captured, for `moves` moves by each side.

    FMJD-64 7.2.5: 15 moves (KING_MOVES_15); FMJD 6.2: 25 moves (KING_MOVES_25); the Brazilian
    confederation (CBD, Regras Oficiais, item 16): "Após 20 (vinte) lances sucessivos de Damas, sem
    captura ou deslocamento de pedra, a partida é declarada empatada" (KING_MOVES_20, 20 moves of
    each side as RULES.md §4 says, like FMJD 6.2 whose 25 moves the same item gives for 100 squares);
    WCDF / RULES.md §4: 40 moves with no man move and no capture (FORTY_MOVES), the same condition.
    All count the moves of both players: drawn after 2N plies. Any man move (a promotion included)
    or any capture resets the count.
    """

    def __init__(self, rule: DrawRule, moves: int) -> None:
        self.rule = rule
        self.limit = 2 * moves
        self.count = 0

    def update(self, position: Position, move: Move, king_move: bool, material: Material) -> None:
        self.count = self.count + 1 if king_move and not move.capture_mask else 0

    @property
    def drawn(self) -> bool:
        return self.count >= self.limit

    @property
    def state(self) -> tuple[int, int] | None:
        return self.count, self.limit


# A configuration: None while the rule's condition does not hold, else (key, moves, counted side): the
# count restarts when the key changes; the counted side is True (White) or False (Black) for a rule
# that counts the moves of one side, None for one that counts N moves of each side.
Configuration = tuple[object, int, bool | None] | None


class Ending(DrawCounter):
    """A material ending that must be won within a number of moves.

    `configuration(position, material)` says whether the rule applies and, if so, which configuration
    (the key) it is, how many moves it allows and whose moves count. The count runs while the key
    stays the same; its limit in plies is fixed in the position where the key first holds (see the
    module docstring). (A module-level function or a partial of one, so that a Game pickles.)
    """

    def __init__(self, rule: DrawRule, configuration: Callable[[Position, Material], Configuration]) -> None:
        self.rule = rule
        self.configuration = configuration
        self.key: object = None
        self.limit = 0
        self.count = 0

    def _observe(self, position: Position, material: Material, fresh: bool) -> None:
        found = self.configuration(position, material)
        if found is None:
            self.key, self.limit, self.count = None, 0, 0
        elif fresh or found[0] != self.key:
            self.key, moves, side = found
            self.limit = _plies(moves, side, position.white_to_move)
            self.count = 0
        else:
            self.count += 1

    def start(self, position: Position, material: Material) -> None:
        self._observe(position, material, fresh=True)

    def update(self, position: Position, move: Move, king_move: bool, material: Material) -> None:
        self._observe(position, material, fresh=False)

    @property
    def drawn(self) -> bool:
        return self.key is not None and self.count >= self.limit

    @property
    def state(self) -> tuple[int, int] | None:
        return None if self.key is None else (self.count, self.limit)


def _plies(moves: int, side: bool | None, white_to_move: bool) -> int:
    """Plies from the position where a count starts to the last move it allows: N moves of each side
    (`side` None) take 2N; N moves of one side take 2N - 1 if that side is to move there, else 2N.

    >>> _plies(15, True, white_to_move=True), _plies(15, True, white_to_move=False), _plies(15, None, True)
    (29, 30, 30)
    """
    if side is None or side != white_to_move:
        return 2 * moves
    return 2 * moves - 1


# --- the endings, one function each ---------------------------------------------------------------
# Their key is the number of pieces of each side: a capture starts the count again, a promotion does
# not (the ending stays the same ending; FMJD 6.3/6.4 count "from the moment the ending arises").


def _kings_against_lone_king(position: Position, material: Material, *, moves: int) -> Configuration:
    """FMJD-64 7.2.4: three kings or more, and nothing else, against a lone king, not captured by the
    stronger side's 15th move; APCA (Pool, RULES.md §4): three kings against one king, 13 moves.

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
    if lone is None or lone[2] < 3 or lone[1] != lone[2]:
        return None
    return (material.white, material.black), moves, lone[0]


def _no_progress(position: Position, material: Material) -> Configuration:
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


def _three_against_lone_king(
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


def _small_ending(position: Position, material: Material, *, each_side: bool) -> Configuration:
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


class DoubleDiagonal(DrawCounter):
    """RULES.md §3, the russian-giveaway option: drawn as soon as the only pieces are a white king and a
    black king, one on the double diagonal g1-a7 and the other on h2-b8 (`count` is 1 while so)."""

    rule = DrawRule.DOUBLE_DIAGONAL

    def __init__(self, variant: Variant) -> None:
        by_name = variant.board.by_name
        self.first = _mask(by_name, ("g1", "f2", "e3", "d4", "c5", "b6", "a7"))
        self.second = _mask(by_name, ("h2", "g3", "f4", "e5", "d6", "c7", "b8"))
        self.count = 0

    def _observe(self, position: Position, material: Material) -> None:
        white, black = position.white, position.black
        self.count = int(
            material.white_kings == 1
            and material.black_kings == 1
            and material.white_men == 0
            and material.black_men == 0
            and (
                (bool(white & self.first) and bool(black & self.second))
                or (bool(white & self.second) and bool(black & self.first))
            )
        )

    def start(self, position: Position, material: Material) -> None:
        self._observe(position, material)

    def update(self, position: Position, move: Move, king_move: bool, material: Material) -> None:
        self._observe(position, material)

    @property
    def drawn(self) -> bool:
        return bool(self.count)


# The long diagonal ("большак", the main road) of the 8×8 board.
LONG_DIAGONAL = ("a1", "b2", "c3", "d4", "e5", "f6", "g7", "h8")


def _mask(by_name: dict[str, int], names: tuple[str, ...]) -> int:
    mask = 0
    for name in names:
        mask |= 1 << by_name[name]
    return mask


def draw_counters(variant: Variant) -> list[DrawCounter]:
    """Fresh counters for the variant's active draw rules, in the order they are checked."""
    return [_counter(rule, variant) for rule in variant.active_draw_rules]


def _counter(rule: DrawRule, variant: Variant) -> DrawCounter:
    match rule:
        case DrawRule.THREEFOLD:
            return Repetition()
        case DrawRule.KINGS_3_VS_1_15:  # FMJD-64 7.2.4: 3+ kings v a lone king, 15 moves of the kings
            return Ending(rule, partial(_kings_against_lone_king, moves=15))
        case DrawRule.KING_MOVES_15:  # FMJD-64 7.2.5: 15 moves each of king moves only
            return QuietKingMoves(rule, 15)
        case DrawRule.NO_PROGRESS_30_60:  # FMJD-64 7.2.6: no capture, no promotion: 30 / 60 moves each
            return Ending(rule, _no_progress)
        case DrawRule.LONG_DIAGONAL_5:  # FMJD-64 7.2.7: 3 pieces v a lone king on a1-h8, 5 moves
            long_diagonal = _mask(variant.board.by_name, LONG_DIAGONAL)
            return Ending(
                rule,
                partial(_three_against_lone_king, moves=5, each_side=False, lone_king_squares=long_diagonal),
            )
        case DrawRule.SMALL_ENDING_5:  # FMJD-64 7.2.8: 2 pieces or a king v a lone king, 5 moves
            return Ending(rule, partial(_small_ending, each_side=False))
        case DrawRule.KING_MOVES_20:  # CBD item 16: 20 moves each of king moves only
            return QuietKingMoves(rule, 20)
        case DrawRule.KING_MOVES_25:  # FMJD 6.2: 25 moves each of king moves only
            return QuietKingMoves(rule, 25)
        case DrawRule.ENDING_16:  # FMJD 6.3: 3 pieces (with a king) v a lone king, 16 moves each
            return Ending(rule, partial(_three_against_lone_king, moves=16, each_side=True))
        case DrawRule.ENDING_5:  # FMJD 6.4: 2 pieces (with a king) or a king v a lone king, 5 moves each
            return Ending(rule, partial(_small_ending, each_side=True))
        case DrawRule.FORTY_MOVES:  # WCDF / RULES.md §4: 40 moves each, no man move, no capture
            return QuietKingMoves(rule, 40)
        case DrawRule.KINGS_3_VS_1_13:  # APCA / RULES.md §4: 3 kings v 1 king, 13 moves of the kings
            return Ending(rule, partial(_kings_against_lone_king, moves=13))
        case DrawRule.DOUBLE_DIAGONAL:  # RULES.md §3, option of russian-giveaway
            return DoubleDiagonal(variant)
    raise ValueError(f"no counter for draw rule {rule!r}")
