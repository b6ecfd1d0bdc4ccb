"""A PDN game's whole tree played through the rules: every move of the main line and of every variation
becomes a position, so that a board can show any of them (the analysis board's PDN import).

Each variation is played by the same `Game.play` as the main line (the one notation parser, the draw
rules), from a copy of the game as it stood before the move the variation replaces. The first illegal
move, in the main line or in any variation, is an `IllegalPdnMove` naming the game, the move (number and
text) and the line of the PDN text it is on.

>>> from shashki.rules.pdn import read_games
>>> (game,) = read_games('[GameType "25"]\\n1. c3-d4 {centre} f6-e5 (1... f6-g5 2. g3-h4) 2. d4:f6 *')
>>> root = play_tree(game)
>>> [child.notation for child in root.children], root.children[0].comment
(['c3-d4'], 'centre')
>>> [child.notation for child in root.children[0].children]
['f6-e5', 'f6-g5']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from shashki.rules.errors import IllegalMove
from shashki.rules.game import Game, Outcome
from shashki.rules.pdn import IllegalPdnMove, PdnGame, PdnMove
from shashki.rules.position import Move, Position


@dataclass
class PdnNode:
    """A position of the tree: the position, the move that led to it (None at the root) with its
    comments and marks, the game's outcome there if it ended, and the moves played from it — the main
    continuation first."""

    position: Position
    ply: int
    move: Move | None = None
    notation: str | None = None
    comment: str = ""
    before: str = ""
    marks: list[str] = field(default_factory=list)
    outcome: Outcome | None = None
    children: list[PdnNode] = field(default_factory=list)


def play_tree(pdn: PdnGame) -> PdnNode:
    """The game's tree from its start position; PdnError for a bad set-up, IllegalPdnMove for a move."""
    game = pdn.setup()
    root = PdnNode(game.position, 0, outcome=game.outcome)
    _play_line(pdn, root, game, pdn.mainline)
    return root


def _play_line(pdn: PdnGame, node: PdnNode, game: Game, line: list[PdnMove]) -> None:
    """Play `line` on `game` (which it changes) from `node`, and each move's variations on copies."""
    for written in line:
        before = node
        branch = _copy(game) if written.variations else None
        node = _play(pdn, node, game, written)
        for variation in written.variations:
            assert branch is not None
            _play_line(pdn, before, _copy(branch), variation)


def _play(pdn: PdnGame, parent: PdnNode, game: Game, written: PdnMove) -> PdnNode:
    variant = game.variant
    try:
        move = game.play(written.text)
    except IllegalMove as exc:
        # Move numbers count from the variant's first player (White, or Black in English and Pool).
        offset = 0 if game.start.side_to_move is variant.first_player else 1
        at = game.ply + offset
        raise IllegalPdnMove(pdn.index, at // 2 + 1, game.ply + 1, written.text, exc,
                             black_to_move=at % 2 == 1, line=written.line) from None
    child = PdnNode(game.position, game.ply, move, move.notation(variant), shown(written.comment),
                    shown(written.before), list(written.marks), game.outcome)
    parent.children.append(child)
    return child


# A comment's embedded commands, `[%clk 0:02:58]`, `[%eval 0.35]` (the PGN supplement's form, in the
# PDN this server exports and lichess's, lidraughts'): data for programs, not words for a reader.
COMMAND = re.compile(r"\[%[^\]]*\]")


def shown(comment: str) -> str:
    """A comment as a reader sees it: without its embedded commands (found by an audit: the analysis
    board showed `[%clk 0:03:00]` after every move of a game exported here).

    >>> shown("[%clk 0:02:58] a fine move [%eval 0.3]"), shown("[%clk 1:00:00]")
    ('a fine move', '')
    """
    return " ".join(COMMAND.sub(" ", comment).split())


def _copy(game: Game) -> Game:
    """The same game, to be continued on its own (a variation branches off here)."""
    return Game.replay(game.moves, game.variant, game.start)
