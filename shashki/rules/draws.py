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

Which material endings those conditions are, one function each with its citation, is
`shashki.rules.endings`; the counting, and which rule of a variant uses which ending, is here.

>>> from shashki.rules import get_variant
>>> [c.rule.value for c in draw_counters(get_variant("russian-giveaway", double_diagonal=True))]
['threefold-repetition', 'double-diagonal-kings']
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from functools import partial

from shashki.rules.endings import (
    Configuration,
    Material,
    kings_against_lone_king,
    no_progress,
    small_ending,
    three_against_lone_king,
)
from shashki.rules.position import Move, Position
from shashki.rules.variant import DrawRule, Variant


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

    def copy(self) -> DrawCounter:
        """A counter in the same state that counts on by itself (`Game.copy`)."""
        return copy.copy(self)

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

    def copy(self) -> Repetition:
        other = copy.copy(self)
        other.seen = dict(self.seen)
        return other


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


class Ending(DrawCounter):
    """A material ending that must be won within a number of moves.

    `configuration(position, material)` says whether the rule applies and, if so, which configuration
    (the key) it is, how many moves it allows and whose moves count. The count runs while the key
    stays the same; its limit in plies is fixed in the position where the key first holds (see the
    module docstring). (One of `shashki.rules.endings`' functions or a partial of one, so that a Game
    pickles.)
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
            return Ending(rule, partial(kings_against_lone_king, moves=15))
        case DrawRule.KING_MOVES_15:  # FMJD-64 7.2.5: 15 moves each of king moves only
            return QuietKingMoves(rule, 15)
        case DrawRule.NO_PROGRESS_30_60:  # FMJD-64 7.2.6: no capture, no promotion: 30 / 60 moves each
            return Ending(rule, no_progress)
        case DrawRule.LONG_DIAGONAL_5:  # FMJD-64 7.2.7: 3 pieces v a lone king on a1-h8, 5 moves
            long_diagonal = _mask(variant.board.by_name, LONG_DIAGONAL)
            return Ending(
                rule,
                partial(three_against_lone_king, moves=5, each_side=False, lone_king_squares=long_diagonal),
            )
        case DrawRule.SMALL_ENDING_5:  # FMJD-64 7.2.8: 2 pieces or a king v a lone king, 5 moves
            return Ending(rule, partial(small_ending, each_side=False))
        case DrawRule.KING_MOVES_20:  # CBD item 16: 20 moves each of king moves only
            return QuietKingMoves(rule, 20)
        case DrawRule.KING_MOVES_25:  # FMJD 6.2: 25 moves each of king moves only
            return QuietKingMoves(rule, 25)
        case DrawRule.ENDING_16:  # FMJD 6.3: 3 pieces (with a king) v a lone king, 16 moves each
            return Ending(rule, partial(three_against_lone_king, moves=16, each_side=True))
        case DrawRule.ENDING_5:  # FMJD 6.4: 2 pieces (with a king) or a king v a lone king, 5 moves each
            return Ending(rule, partial(small_ending, each_side=True))
        case DrawRule.FORTY_MOVES:  # WCDF / RULES.md §4: 40 moves each, no man move, no capture
            return QuietKingMoves(rule, 40)
        case DrawRule.KINGS_3_VS_1_13:  # APCA / RULES.md §4: 3 kings v 1 king, 13 moves of the kings
            return Ending(rule, partial(kings_against_lone_king, moves=13, exactly_three=True))
        case DrawRule.DOUBLE_DIAGONAL:  # RULES.md §3, option of russian-giveaway
            return DoubleDiagonal(variant)
    raise ValueError(f"no counter for draw rule {rule!r}")
