"""Takebacks, as on lichess and lidraughts: a player asks to take their last move back, and the game goes
back to the position before it once the opponent agrees (the computer agrees at once). Only in casual
games between people, or against the computer: never in a rated game, a tournament's or a bot's.

Asked on the opponent's turn (the player has just moved), one move is taken back; asked on the player's
own turn (the opponent has answered), two: the opponent's answer and the player's move before it, so that
it is the asker's turn again either way. The request lapses with the next move, whoever makes it, and
with the end of the game; one the opponent declined is not made again before the next move. The clocks
are not given back: each keeps the time it has when the takeback is made, and the side to move's turn
starts then (a correspondence game's days start again).

A takeback deletes the moves taken back and writes the game's record compare-and-set on its `version`,
in one transaction; the record counts the plies taken back (`takebacks`), so that a copy of the game in
another process that missed it is loaded afresh rather than caught up move by move (`GameLoader.catch_up`,
`follow.apply_heard`), and `ply + takebacks`, every ply ever made, numbers each turn apart from the same
ply before a takeback (a correspondence game's "your turn" notification). Everything else reads the
moves as stored: a finished game's PDN, its analysis and the explorer see only the line played to the end.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from sqlalchemy import delete, update

from shashki.rules import Color
from shashki.server.errors import Conflict
from shashki.server.games.actions import GameActions, checked_again
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameRecord, MoveRecord
from shashki.server.games.replay import replay
from shashki.server.games.store import GameStore, StaleCopy
from shashki.server.games.view import GameView
from shashki.server.storage import rows_changed
from shashki.server.storage.base import utcnow


def plies_back(live: LiveGame, asker: Color) -> int:
    """How many plies a takeback asked by `asker` undoes: its last move, and the opponent's answer to it
    when the opponent has answered (then it is `asker`'s turn again)."""
    return 2 if live.to_move is asker else 1


class Takebacks:
    def __init__(self, actions: GameActions, store: GameStore) -> None:
        self.actions = actions
        self.store = store

    @staticmethod
    def _game_allows(live: LiveGame) -> None:
        """Refuse a takeback in a game that has none."""
        if live.record.rated:
            raise Conflict("takeback_not_allowed", "Takebacks are allowed in casual games only.")
        if live.tournament is not None:
            raise Conflict("takeback_not_allowed", "A tournament's games have no takebacks.")
        if any(player.bot for player in live.players.values()):
            raise Conflict("takeback_not_allowed", "A game with a bot has no takebacks.")

    def _allowed(self, live: LiveGame, asker: Color) -> None:
        """Refuse a takeback this game does not allow, or one with no move of `asker` to take back."""
        self._game_allows(live)
        if live.record.ply < plies_back(live, asker):
            raise Conflict("no_move_to_take_back", "You have not made a move to take back yet.")

    @checked_again
    async def offer(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Ask to take the last move back; asking when the opponent already asked is agreeing to theirs
        (whether or not the one agreeing has a move to take back). Against the computer the move is taken
        back at once. A request the opponent declined is not made again before the next move."""
        async with self.actions.seated(user_id, game_id) as (live, color):
            self._game_allows(live)
            r = live.record
            if r.takeback_offer is color.other:
                view = await self._take_back(live, color.other)
            else:
                self._allowed(live, color)
                if live.is_computer(color.other):
                    view = await self._take_back(live, color)
                elif r.takeback_offer is color:
                    view = self.store.view(live)  # asked already
                elif r.takeback_declined is color:
                    raise Conflict(
                        "takeback_declined", "Your opponent declined your takeback: ask again after a move."
                    )
                else:
                    view = await self.store.commit(live, {"takeback_offer": color})
        return view.to_json()

    @checked_again
    async def accept(self, user_id: int, game_id: str) -> dict[str, Any]:
        async with self.actions.seated(user_id, game_id) as (live, color):
            if live.record.takeback_offer is not color.other:
                raise Conflict("no_takeback_offer", "Your opponent has not asked for a takeback.")
            view = await self._take_back(live, color.other)
        return view.to_json()

    @checked_again
    async def decline(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Decline the opponent's request (which its asker may not make again before the next move, as
        lichess makes a declined asker wait: no flashing of requests at the opponent), or withdraw one's
        own."""
        async with self.actions.seated(user_id, game_id, flag=False) as (live, color):
            offer = live.record.takeback_offer
            if offer is None:
                raise Conflict("no_takeback_offer", "Nobody has asked for a takeback.")
            changes: dict[str, Any] = {"takeback_offer": None}
            if offer is color.other:
                changes["takeback_declined"] = offer
            view = await self.store.commit(live, changes)
        return view.to_json()

    async def _take_back(self, live: LiveGame, asker: Color) -> GameView:
        """Go back to the position before `asker`'s last move (under the game's lock), in one
        transaction: the record compare-and-set, the moves taken back deleted."""
        self._allowed(live, asker)
        r = live.record
        ply = r.ply - plies_back(live, asker)
        now = utcnow()
        changes: dict[str, Any] = {
            "ply": ply,
            "version": r.version + 1,
            "takebacks": r.takebacks + (r.ply - ply),
            "takeback_offer": None,
            "takeback_declined": None,
            "draw_offer": None,
            "turn_started_at": now,
        }
        clock = live.clock()
        if clock is not None:
            changes["white_ms"], changes["black_ms"] = clock.at(now)  # no time given back
        if r.days_per_move is not None:
            changes["move_deadline_at"] = now + timedelta(days=r.days_per_move)
        async with self.store.db.session() as s:
            guarded = update(GameRecord).where(GameRecord.id == r.id, GameRecord.version == r.version)
            done = await s.execute(guarded.values(changes))
            if rows_changed(done) != 1:
                await s.rollback()
                self.store.forget(r.id)
                raise StaleCopy(
                    "ply_already_played", "The game changed before this was applied; ask for its state."
                )
            await s.execute(delete(MoveRecord).where(MoveRecord.game_id == r.id, MoveRecord.ply >= ply))
            await s.commit()
        live.notations = live.notations[:ply]
        live.rules = replay(r, live.notations)
        return await self.store.committed(live, changes)
