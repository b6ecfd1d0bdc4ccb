"""The one way the server rebuilds a game from what it stored: the rules replay its moves (and so decide
any end the board decides), then an end decided off the board (resignation, time, agreement,
abandonment, abort) is recorded from the record's columns.

Every reader of stored games goes through `replay`: the games store loading a game, the PDN and JSON
exports, the positions the browser steps through, and the Bot API's move strings; a process whose cached
game another process has moved on goes through `catch_up` (the moves since, not the whole game again).
"""

from __future__ import annotations

from collections.abc import Iterable

from shashki.rules import Game, Move
from shashki.server.games.models import GameRecord, stored_outcome


def new_game(variant: str, double_diagonal: bool, fen: str | None = None) -> Game:
    """A rules game on these terms, before any move."""
    return Game(variant, fen, double_diagonal=double_diagonal)


def replay(record: GameRecord, moves: Iterable[str | Move] = ()) -> Game:
    """The rules game of `record` with `moves` (its stored notations) played, its end recorded."""
    game = Game.replay(moves, record.variant, record.initial_fen, double_diagonal=record.double_diagonal)
    return catch_up(game, record)


def catch_up(game: Game, record: GameRecord, later: Iterable[str | Move] = ()) -> Game:
    """`game` brought to `record`: the moves played since (`later`, stored in order after the game's
    last), then the end the record gives if the board has not decided one."""
    for move in later:
        game.play(move)
    if game.outcome is None:
        outcome = stored_outcome(record)
        if outcome is not None:
            game.finish(outcome)
    return game
