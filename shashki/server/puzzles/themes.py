"""A puzzle's themes, read off its solution: the start position and the moves, the solver's first.

The exact criteria (`detect`):

- **endgame** (every variant): at most `ENDGAME_PIECES` pieces on the board at the start (6 on 8×8
  boards, 8 on 10×10 and 12×12 boards).
- Giveaway variants (the side left without a move wins, RULES.md §3):
  - **giveaway-combination**: the solver makes the opponent take material: the opponent's replies in
    the solution capture two or more of the solver's pieces in all.
  - **blocking**: the solution ends with the solver left without a move while still having pieces (the
    win by being blocked), or with the opponent to move and every reply leaving the solver so.
  - **king-race**: a man of either side becomes a king during the solution (in giveaway a king is a
    burden: who promotes, and when, decides).
- Ordinary variants (the side left without a move loses):
  - **combination**: a shot: the solver gives material (an opponent reply captures) and a later
    solver move captures two or more pieces.
  - **promotion**: a solver move makes a king.

Every puzzle has at least one theme: one without any of these is **middlegame**.
"""

from __future__ import annotations

from collections.abc import Sequence

from shashki.rules.position import Move, Position

ENDGAME = "endgame"
GIVEAWAY_COMBINATION = "giveaway-combination"
BLOCKING = "blocking"
KING_RACE = "king-race"
COMBINATION = "combination"
PROMOTION = "promotion"
MIDDLEGAME = "middlegame"

GIVEAWAY_THEMES = (GIVEAWAY_COMBINATION, BLOCKING, KING_RACE, ENDGAME, MIDDLEGAME)
ORDINARY_THEMES = (COMBINATION, PROMOTION, ENDGAME, MIDDLEGAME)
ALL_THEMES = (GIVEAWAY_COMBINATION, BLOCKING, KING_RACE, COMBINATION, PROMOTION, ENDGAME, MIDDLEGAME)


def endgame_pieces(position: Position) -> int:
    """The most pieces an endgame has on this board: 6 on 8×8, 8 on larger boards."""
    return 6 if position.board.squares <= 32 else 8


def _blocked(position: Position) -> bool:
    """The side to move has pieces but no move."""
    mine = position.white if position.white_to_move else position.black
    return bool(mine) and not position.legal_moves()


def detect(start: Position, moves: Sequence[Move]) -> list[str]:
    """The themes of the solution `moves` (solver first, replies between) from `start`, sorted."""
    variant = start.variant
    themes: set[str] = set()
    if (start.white | start.black).bit_count() <= endgame_pieces(start):
        themes.add(ENDGAME)
    positions = [start]
    for move in moves:
        positions.append(positions[-1].play(move))
    solver_moves = moves[0::2]
    replies = moves[1::2]
    if variant.giveaway:
        if sum(len(m.captured) for m in replies) >= 2:
            themes.add(GIVEAWAY_COMBINATION)
        if any(m.promotes for m in moves):
            themes.add(KING_RACE)
        end = positions[-1]
        if len(moves) % 2 == 0:
            blocked = _blocked(end)  # the solver to move
        else:  # the opponent to move: every reply leaves the solver blocked
            replies_left = end.legal_moves()
            blocked = bool(replies_left) and all(_blocked(end.play(r)) for r in replies_left)
        if blocked:
            themes.add(BLOCKING)
    else:
        for i, reply in enumerate(replies):
            if reply.captured and any(len(m.captured) >= 2 for m in solver_moves[i + 1:]):
                themes.add(COMBINATION)
                break
        if any(m.promotes for m in solver_moves):
            themes.add(PROMOTION)
    if not themes:
        themes.add(MIDDLEGAME)
    return sorted(themes)
