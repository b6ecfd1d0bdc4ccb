"""Draw offers, and the claims on an opponent who left, as on lichess and lidraughts.

A draw is offered once each side has moved (before, the game is aborted instead); an offer stands until
the side it was made to moves or answers it, and offering when the opponent has offered is agreeing. A
side that offered a draw offers again only `DRAW_OFFER_EVERY` plies later (lichess's
`playerHasOfferedDrawRecently`: an offer declined is not pressed again at every move), which the game's
`white_draw_ply` / `black_draw_ply` keep. The computer declines every offer.

A player whose opponent has been gone for the claim delay on their own turn, in a game with a clock, may
end it: a win ("claim victory"), or a draw ("call it a draw"), lichess's two buttons.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from shashki.rules import Color, Outcome
from shashki.rules.game import ABANDONMENT, ABANDONMENT_DRAW, AGREEMENT
from shashki.server.errors import Conflict
from shashki.server.games.actions import GameActions, checked_again
from shashki.server.games.clock import CLOCK_STARTS_AT_PLY
from shashki.server.games.live import DRAW_OFFER_EVERY, LiveGame
from shashki.server.games.presence import Presence
from shashki.server.games.store import GameStore
from shashki.server.storage.base import utcnow


class Draws:
    def __init__(self, actions: GameActions, store: GameStore, presence: Presence) -> None:
        self.actions = actions
        self.store = store
        self.presence = presence

    @checked_again
    async def offer(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Offer a draw; offering when the opponent already offered is accepting. None before each side
        has moved, when the game is aborted instead (as on lichess and lidraughts): an agreement without
        a move would move ratings without a game."""
        async with self.actions.seated(user_id, game_id) as (live, color):
            r = live.record
            if r.ply < CLOCK_STARTS_AT_PLY:
                raise Conflict(
                    "too_early_for_a_draw",
                    "A draw is offered once each side has moved: abort the game instead.",
                )
            view = None
            if r.draw_offer is color.other:
                view = await self.actions.finish(live, Outcome.draw(AGREEMENT))
            elif r.draw_offer is None:
                again = live.draw_again_at(color)
                if again is not None:
                    raise Conflict(
                        "draw_offered_recently",
                        f"You offered a draw at ply {again - DRAW_OFFER_EVERY}: you may offer another from "
                        f"ply {again}.",
                    )
                view = await self.store.commit(live, {"draw_offer": color, f"{color.value}_draw_ply": r.ply})
                if live.is_computer(color.other):
                    # The computer declines every draw offer.
                    view = await self.store.commit(live, {"draw_offer": None})
            return (view or self.store.view(live)).to_json()

    @checked_again
    async def accept(self, user_id: int, game_id: str) -> dict[str, Any]:
        async with self.actions.seated(user_id, game_id) as (live, color):
            if live.record.draw_offer is not color.other:
                raise Conflict("no_draw_offer", "Your opponent has not offered a draw.")
            view = await self.actions.finish(live, Outcome.draw(AGREEMENT))
        return view.to_json()

    @checked_again
    async def decline(self, user_id: int, game_id: str) -> dict[str, Any]:
        async with self.actions.seated(user_id, game_id, flag=False) as (live, color):
            if live.record.draw_offer is not color.other:
                raise Conflict("no_draw_offer", "Your opponent has not offered a draw.")
            view = await self.store.commit(live, {"draw_offer": None})
        return view.to_json()

    # -- an opponent who left -------------------------------------------------------------------------

    @checked_again
    async def claim_victory(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Win a game with a clock whose opponent has been disconnected for the claim delay while it is
        their turn."""
        return await self._claim(user_id, game_id, lambda color: Outcome.win(color, ABANDONMENT))

    @checked_again
    async def claim_draw(self, user_id: int, game_id: str) -> dict[str, Any]:
        """Call it a draw when a win could be claimed (lichess's "force draw"): for a player who would not
        win a game by the opponent's absence."""
        return await self._claim(user_id, game_id, lambda color: Outcome.draw(ABANDONMENT_DRAW))

    async def _claim(
        self, user_id: int, game_id: str, ending: Callable[[Color], Outcome]
    ) -> dict[str, Any]:
        """End the game with `ending(claimant)` if its opponent has left: a game with a clock, once each side
        has moved, on the absent opponent's turn, gone for the claim delay. A game without a clock is played
        at leisure, as lidraughts has it (`hasClock`): its players, and the bots that play it as a
        correspondence game, are away between moves by design."""
        claim_after_ms = self.store.claim_after_ms
        async with self.actions.seated(user_id, game_id) as (live, color):
            self._claimable(live, color)
            gone = self.presence.gone_ms(live.id, color.other, live.record.created_at, utcnow())
            if gone < claim_after_ms:
                left = (claim_after_ms - gone + 999) // 1000 if gone else None
                message = (
                    f"Your opponent has been gone {gone / 1000:.1f} s; you can claim in {left} s."
                    if gone
                    else "Your opponent is connected."
                )
                raise Conflict("cannot_claim", message)
            view = await self.actions.finish(live, ending(color))
        return view.to_json()

    @staticmethod
    def _claimable(live: LiveGame, color: Color) -> None:
        """Refuse a claim in a game whose opponent's absence ends nothing."""
        if live.is_correspondence:
            # A correspondence player is away between moves by design: only their days end the game.
            raise Conflict("cannot_claim", "A correspondence game ends on time, not on absence.")
        if live.clock() is None:
            raise Conflict(
                "cannot_claim",
                "A game without a clock is not won by an absence: your opponent may come back any time.",
            )
        if live.record.ply < CLOCK_STARTS_AT_PLY:
            # Until each side has moved the game can be aborted, unrated, and aborts by itself when the
            # side to move does not start (`abort_unstarted`): there is nothing to claim yet.
            raise Conflict(
                "cannot_claim", "Your opponent has not made their first move: abort the game instead."
            )
        opponent = color.other
        if live.to_move is not opponent or live.is_computer(opponent):
            raise Conflict("cannot_claim", "You can claim only while your absent opponent is to move.")
