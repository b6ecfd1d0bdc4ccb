"""A game: the history of moves and positions, and the one place that decides how a game ends.

After every move the game first checks for a win: the side to move with no legal move loses, or wins
in giveaway (RULES.md §3; FMJD-64 7.1, FMJD 5.1). A win always comes before a draw. Then the variant's
automatic draw rules are checked in their order (`shashki.rules.draws`). Ends decided off the board
(resignation, time, agreement, abandonment, an aborted game) are recorded with `finish`.

>>> game = Game("russian-giveaway", "W:WKg1:BKe5")
>>> game.play("g1-d4").notation(game.variant)
'g1-d4'
>>> game.play("e5:c3").is_capture, str(game.outcome)
(True, '1-0 (no-legal-move)')
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from shashki.rules.draws import DrawCounter, Material, draw_counters
from shashki.rules.errors import IllegalMove, RulesError
from shashki.rules.position import Move, Position
from shashki.rules.variant import Color, DrawRule, Variant, get_variant

# Reasons of an outcome: the rules' own, then DrawRule values, then the events decided off the board.
NO_LEGAL_MOVE = "no-legal-move"
RESIGNATION = "resignation"
TIME = "time"
AGREEMENT = "agreement"
ABANDONMENT = "abandonment"
ABANDONMENT_DRAW = "abandonment-draw"  # the player left behind called it a draw instead of a win
ABORTED = "aborted"

WHITE_WINS = "1-0"
BLACK_WINS = "0-1"
DRAW = "1/2-1/2"
NO_RESULT = "*"  # PDN's "no result": an aborted game


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended: `result` ("1-0" = White won, "0-1", "1/2-1/2"; "*" for an aborted game), the
    `winner` (None for a draw) and the `reason` ("no-legal-move", a DrawRule value, "resignation", ...).

    >>> Outcome.win(Color.BLACK, "time").result
    '0-1'
    """

    result: str
    winner: Color | None
    reason: str

    def __post_init__(self) -> None:
        expected = {Color.WHITE: WHITE_WINS, Color.BLACK: BLACK_WINS}.get(self.winner)  # type: ignore[arg-type]
        if expected is None and self.winner is not None:
            raise ValueError(f"the winner must be a Color or None, not {self.winner!r}")
        if self.winner is not None and self.result != expected:
            raise ValueError(f"result {self.result!r} does not say that {self.winner.value} won")
        if expected is None and self.result in (WHITE_WINS, BLACK_WINS):
            raise ValueError(f"result {self.result!r} needs a winner")
        if expected is None and self.result not in (DRAW, NO_RESULT):
            raise ValueError(f"unknown result {self.result!r}")
        if not self.reason:
            raise ValueError("an outcome needs a reason")

    @classmethod
    def win(cls, winner: Color, reason: str) -> Outcome:
        return cls(WHITE_WINS if winner is Color.WHITE else BLACK_WINS, winner, reason)

    @classmethod
    def draw(cls, reason: str) -> Outcome:
        return cls(DRAW, None, reason)

    @classmethod
    def aborted(cls) -> Outcome:
        """A game called off before it counted: no result at all."""
        return cls(NO_RESULT, None, ABORTED)

    @property
    def is_draw(self) -> bool:
        return self.result == DRAW

    def __str__(self) -> str:
        return f"{self.result} ({self.reason})"


class Game:
    """A game of one variant from its start position or a FEN.

    `positions` holds every position, the start first; `moves` every move played; `outcome` is None
    while the game goes on. A game whose start position leaves the side to move without a move is over
    at once.

    >>> game = Game.replay(["c3-d4", "f6g5"], "russian")
    >>> game.notations(), game.ply, game.is_over
    (['c3-d4', 'f6-g5'], 2, False)
    """

    def __init__(
        self,
        variant: str | Variant | None = None,
        fen: str | Position | None = None,
        *,
        double_diagonal: bool = False,
    ) -> None:
        self.variant: Variant = get_variant(variant, double_diagonal=double_diagonal)
        if fen is None:
            start = Position.start(self.variant)
        elif isinstance(fen, Position):
            if fen.variant.key != self.variant.key:
                raise ValueError(f"a {fen.variant.key} position cannot start a {self.variant.key} game")
            start = Position(self.variant, fen.white, fen.black, fen.kings, fen.white_to_move)
        else:
            start = Position.from_fen(fen, self.variant)
        self.start: Position = start
        self.positions: list[Position] = [start]
        self.moves: list[Move] = []
        self._draws: list[DrawCounter] = draw_counters(self.variant)
        material = Material.of(start)
        for counter in self._draws:
            counter.start(start, material)
        self.outcome: Outcome | None = self._decide(start)

    @classmethod
    def replay(
        cls,
        moves: Iterable[str | Move],
        variant: str | Variant | None = None,
        fen: str | Position | None = None,
        *,
        double_diagonal: bool = False,
    ) -> Game:
        """A game with `moves` played from the start (or `fen`); IllegalMove on the first bad one."""
        game = cls(variant, fen, double_diagonal=double_diagonal)
        for move in moves:
            game.play(move)
        return game

    def copy(self) -> Game:
        """The game as it stands, to play on without changing this one (a line explored from here):
        its positions, moves, outcome and draw counts, each its own."""
        other = Game.__new__(Game)
        other.variant, other.start, other.outcome = self.variant, self.start, self.outcome
        other.positions, other.moves = list(self.positions), list(self.moves)
        other._draws = [counter.copy() for counter in self._draws]
        return other

    # ----------------------------------------------------------------------------------------------
    # State

    @property
    def position(self) -> Position:
        return self.positions[-1]

    @property
    def ply(self) -> int:
        """Moves played so far (by both sides)."""
        return len(self.moves)

    @property
    def is_over(self) -> bool:
        return self.outcome is not None

    @property
    def counters(self) -> dict[DrawRule, int]:
        """Each active draw rule's count: plies since its condition first held (shashki.rules.draws
        says on which ply each rule ends the game), or for threefold the current position's
        occurrences."""
        return {counter.rule: counter.count for counter in self._draws}

    @property
    def count_states(self) -> dict[DrawRule, tuple[int, int]]:
        """The draw rules counting towards a draw now, each with (count, limit), both in plies: the rule
        ends the game once count reaches limit (see shashki.rules.draws)."""
        states = {}
        for counter in self._draws:
            state = counter.state
            if state is not None:
                states[counter.rule] = state
        return states

    def legal_moves(self) -> list[Move]:
        """The moves the side to move may play; none once the game is over."""
        if self.outcome is not None:
            return []
        return list(self.position.legal_moves())

    def notations(self) -> list[str]:
        """The moves played, in the variant's notation."""
        variant = self.variant
        return [move.notation(variant) for move in self.moves]

    # ----------------------------------------------------------------------------------------------
    # Play

    def play(self, move: str | Move) -> Move:
        """Play a legal move, given as text (liberal notation, RULES.md §5) or as a Move; returns the
        move played. IllegalMove says why a move is refused ("game_over" once the game has ended)."""
        if self.outcome is not None:
            raise IllegalMove("game_over", f"The game is over: {self.outcome}.")
        position = self.position
        if isinstance(move, str):
            played = position.parse_move(move)
        elif isinstance(move, Move):
            played = self._legal(position, move)
        else:
            kind = type(move).__name__
            raise IllegalMove("malformed", f"A move must be text such as c3-d4 or a Move, not {kind}.")
        king_move = bool(position.kings >> played.path[0] & 1)
        after = position.play(played)
        material = Material.of(after)
        for counter in self._draws:
            counter.update(after, played, king_move, material)
        self.moves.append(played)
        self.positions.append(after)
        self.outcome = self._decide(after)
        return played

    def finish(self, outcome: Outcome) -> None:
        """Record an end decided off the board: resignation, time, agreement, abandonment, abort."""
        if not isinstance(outcome, Outcome):
            raise TypeError(f"finish() takes an Outcome, not {type(outcome).__name__}")
        if self.outcome is not None:
            raise RulesError("game_over", f"The game is already over: {self.outcome}.")
        self.outcome = outcome

    def _legal(self, position: Position, move: Move) -> Move:
        # A Move is the same move as a legal one when it makes the same change (RULES.md §2.10). The
        # position's own instance is played: a move belongs to the position it was generated for.
        key = move.key
        for legal in position.legal_moves():
            if legal.key == key:
                return legal
        try:
            text = move.notation(self.variant)
        except (KeyError, IndexError):
            text = repr(move)  # squares that are not on this board
        else:
            # The notation parser explains a refusal (capture is compulsory, a man cannot go back, ...).
            position.parse_move(text)
        legal_text = [m.notation(self.variant) for m in position.legal_moves()]
        raise IllegalMove("illegal_destination", f"{text} is not a legal move here.", legal_text)

    def _decide(self, position: Position) -> Outcome | None:
        # The win first (RULES.md §3): no legal move loses, or wins in giveaway.
        if not position.legal_moves():
            mover = position.side_to_move
            return Outcome.win(mover if self.variant.giveaway else mover.other, NO_LEGAL_MOVE)
        for counter in self._draws:
            if counter.drawn:
                return Outcome.draw(counter.rule.value)
        return None

    def __repr__(self) -> str:
        if self.outcome is not None:
            state = str(self.outcome)
        else:
            state = f"{self.position.side_to_move.value} to move"
        return f"<Game {self.variant.key} ply {self.ply}, {state}>"
