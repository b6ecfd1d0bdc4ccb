"""Checking a player's line against a puzzle's solution, through the rules.

The trainer sends the whole line played so far from the puzzle's start, ending with the solver's
newest move. Every move is resolved by the rules (`Position.parse_move`: the same move written by its
start and end, by every landing square, or with `x`/`:` is the same move), then compared with the
solution's move by what it does (`Move.key`: start, end, pieces taken, promotion; RULES.md §2.10),
never by its text.

- The earlier moves must be the solution's: a reply that is not the one the server gave refuses the line
  (`bad_line`); a solver's move that is not the solution's is judged wrong there, as if it were the
  newest (the line after it is not read), so that no line tells the solution without a wrong move counted.
- The newest move is right when it is the solution's move. Only that move is accepted: every solver
  move of a puzzle is the only winning move by the verification (`verify.Judgement.unique`, the tables
  where they apply), the last included, so there is no equally winning alternative to accept.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from shashki.rules import Position, RulesError
from shashki.rules.position import Move
from shashki.server.errors import Invalid

CORRECT, WRONG, SOLVED = "correct", "wrong", "solved"


@dataclass(frozen=True)
class Step:
    """What the newest move of a line makes of the attempt."""

    result: str  # correct, wrong or solved
    position: Position  # after the reply (correct), or after the solver's move (wrong, solved)
    ply: int  # plies from the puzzle's start to `position`
    reply: str | None = None  # the opponent's answer (correct)
    expected: str | None = None  # the solution's move (wrong)

    @property
    def finished(self) -> bool:
        return self.result != CORRECT


def _resolve(position: Position, text: object, index: int, last: bool) -> Move:
    if not isinstance(text, str):
        raise Invalid("bad_line", f"Move {index + 1} of the line is not text.")
    try:
        return position.parse_move(text)
    except RulesError as exc:  # IllegalMove, or text that names no squares of this board
        if last:
            raise Invalid("illegal_move", f"{text} is not legal here: {exc.message}",
                          legal=getattr(exc, "legal", [])) from None
        raise Invalid("bad_line",
                      f"Move {index + 1} of the line ({text}) is not legal: {exc.message}") from None


def step(start: Position, solution: Sequence[str], line: Sequence[object]) -> Step:
    """Judge the newest move of `line` (see the module); Invalid `bad_line` for a line that does not
    follow the solution, `illegal_move` when its newest move is not legal."""
    if not line or len(line) % 2 == 0 or len(line) > len(solution):
        raise Invalid("bad_line", "The line must hold the moves played from the puzzle's start, ending with "
                      "yours: an odd number of moves, no more than the puzzle has.")
    variant = start.variant
    position = start
    last = len(line) - 1
    for index, text in enumerate(line):
        move = _resolve(position, text, index, index == last)
        expected = position.parse_move(solution[index])
        if index < last:
            if move.key != expected.key and index % 2 == 0:
                # The solver's own move, wrong: the attempt ends there, whatever follows it in the line (a
                # refusal would tell the solution without a wrong move being counted).
                return Step(WRONG, position.play(move), index + 1, expected=expected.notation(variant))
            if move.key != expected.key:
                raise Invalid("bad_line", f"Move {index + 1} of the line ({text}) is not the puzzle's reply.")
            position = position.play(expected)
            continue
        after = position.play(move)
        if move.key != expected.key:
            return Step(WRONG, after, index + 1, expected=expected.notation(variant))
        if index + 1 == len(solution):
            return Step(SOLVED, after, index + 1)
        reply = after.parse_move(solution[index + 1])
        return Step(CORRECT, after.play(reply), index + 2, reply=reply.notation(variant))
    raise AssertionError("unreachable: the line is not empty")
