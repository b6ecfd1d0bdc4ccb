"""Rematch: once a game is over, either player may offer the other a new game on the same terms (variant,
options, clocks, rated or casual, start position) with the colours swapped.

An offer is recorded on the finished game (`rematch_offer`: the colour offering). The opponent accepts —
offering back is accepting — or declines; the one who offered may withdraw it. Accepting starts the new
game at once and records its id on the old one (`rematch_id`); a game has at most one rematch. Against
the computer the offer is accepted at once. Each change goes through the game service's compare-and-set
commit, so it is numbered like every other change of the game and published as its new state (a change
refused there because another process changed the game meanwhile is tried once more on the game read
afresh, `checked_again`: two players offering each other a rematch at once start it); the opponent is
also told on their own channel (`rematchOffer`, `rematchCancelled`), where the lobby socket
and the Bot API's event stream pick it up.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from shashki.rules import Color
from shashki.server.errors import Conflict, Forbidden
from shashki.server.events import EventBus
from shashki.server.games.actions import checked_again
from shashki.server.games.live import LiveGame
from shashki.server.games.models import GameStatus
from shashki.server.games.service import GameService
from shashki.server.games.statements import GAMES, Claim
from shashki.server.games.store import StaleCopy
from shashki.server.games.terms import GameTerms
from shashki.server.storage.direct import Update

# Asked just before a rematch starts its game, whether it is against the computer (the route's limits on
# new games: shashki/server/http/rematch.py); it raises to refuse the start, which then changes nothing.
BeforeStart = Callable[[bool], Awaitable[None]]


class RematchService:
    """Rematches, through the games store's public interface (`live`, `locked`, `commit`) and the game
    service's `create` and `abort`."""

    def __init__(self, games: GameService, bus: EventBus) -> None:
        self.games = games
        self.store = games.store
        self.bus = bus
        # Whether the first account blocks the second (shashki.server.social), set by the app: a rematch
        # is a challenge, and a blocked player's is refused as theirs would be in the lobby.
        self.blocks: Callable[[int, int], Awaitable[bool]] | None = None
        # Whether an account is closed (accounts/security.py), set by the app: a closed account plays no
        # more, and an offer it made before closing lapses with it.
        self.closed: Callable[[int], Awaitable[bool]] | None = None

    async def _finished(self, user_id: int, game_id: str) -> tuple[LiveGame, Color]:
        live = await self.store.live(game_id)
        color = live.seat(user_id)
        if color is None:
            raise Forbidden("not_your_game", "Only the players of a game may ask for its rematch.")
        return live, color

    @staticmethod
    def _check(live: LiveGame) -> None:
        r = live.record
        if r.status == GameStatus.STARTED:
            raise Conflict("game_in_progress", "A rematch is offered once the game is over.")
        if r.rematch_id:
            raise Conflict("rematch_exists", "This game has had its rematch.", game_id=r.rematch_id)
        if r.simul_id is not None:  # as on lichess: the host plays the exhibition's games once
            raise Conflict("simul_game", "A simultaneous exhibition's games have no rematch.")
        if live.tournament is not None:  # as on lichess: the tournament pairs its players again itself
            raise Conflict(
                "tournament_rematch", "A tournament's games have no rematch: the tournament pairs you again."
            )

    @checked_again
    async def offer(
        self, user_id: int, game_id: str, before_start: BeforeStart | None = None,
        before_offer: Callable[[], Awaitable[object]] | None = None,
    ) -> dict[str, Any]:
        """Offer a rematch, or accept the one the opponent offered: `{"game": state}` once it starts,
        else `{"rematch": {...}}` with the offer standing. `before_offer` is awaited before a new offer
        is made, not for an acceptance (the challenges' rate limit: an offer is a challenge).
        """
        live, color = await self._finished(user_id, game_id)
        async with self.store.locked(live):
            self._check(live)
            opponent = color.other
            if live.is_computer(opponent):
                return {"game": await self._start(live, user_id, before_start)}
            await self._refuse_across_a_block(live, user_id, color)
            if live.record.rematch_offer is opponent:
                return {"game": await self._start(live, user_id, before_start)}
            if live.record.rematch_offer is not color:
                if before_offer is not None:
                    await before_offer()
                await self.store.commit(live, {"rematch_offer": color})
                await self.bus.publish(
                    f"user:{live.record.player_id(opponent)}",
                    {"type": "rematchOffer", "game": game_id, "by": user_id},
                )
        return {"rematch": {"offer": color.value, "game_id": None}}

    @checked_again
    async def accept(
        self, user_id: int, game_id: str, before_start: BeforeStart | None = None
    ) -> dict[str, Any]:
        live, color = await self._finished(user_id, game_id)
        async with self.store.locked(live):
            self._check(live)
            if live.record.rematch_offer is not color.other:
                raise Conflict("no_rematch_offer", "Your opponent has not offered a rematch.")
            await self._refuse_across_a_block(live, user_id, color)
            return {"game": await self._start(live, user_id, before_start)}

    async def _refuse_across_a_block(self, live: LiveGame, user_id: int, color: Color) -> None:
        """A rematch is a challenge: none between two players when either blocks the other (as in the
        lobby), whoever offers and whoever accepts, and whenever the block was made; none with a closed
        account, whenever its offer was made."""
        opponent_id = live.record.player_id(color.other)
        if opponent_id is None:
            return
        if self.closed is not None and await self.closed(opponent_id):
            raise Conflict("account_closed", "Your opponent closed their account: they play no more.")
        if self.blocks is None:
            return
        if await self.blocks(user_id, opponent_id):
            raise Forbidden("challenge_refused", "You block your opponent: unblock them to play them again.")
        if await self.blocks(opponent_id, user_id):
            raise Forbidden("challenge_refused", "Your opponent does not accept challenges from you.")

    @checked_again
    async def decline(self, user_id: int, game_id: str, reason: str | None = None) -> dict[str, Any]:
        """Decline the opponent's offer (with the reason, one of the lobby's, that the Bot API tells the
        one who offered), or withdraw one's own."""
        live, color = await self._finished(user_id, game_id)
        async with self.store.locked(live):
            self._check(live)
            offer = live.record.rematch_offer
            if offer is None:
                raise Conflict("no_rematch_offer", "No rematch is on offer.")
            await self.store.commit(live, {"rematch_offer": None})
            told = live.record.player_id(color.other)
            if told is not None:
                await self.bus.publish(
                    f"user:{told}",
                    {
                        "type": "rematchCancelled",
                        "game": game_id,
                        "by": user_id,
                        "declined": offer is not color,
                        **({"reason": reason} if reason and offer is not color else {}),
                    },
                )
        return {"rematch": {"offer": None, "game_id": None}}

    async def _start(self, live: LiveGame, user_id: int, before_start: BeforeStart | None) -> dict[str, Any]:
        r = live.record
        if before_start is not None:
            await before_start(r.computer_level is not None)
        version = r.version

        def link(game_id: str) -> list[Claim]:
            # The old game names its rematch in the new game's own transaction, on the version read: of two
            # starts at once (two processes, a double click) one stores a game, the other none
            # (`StaleCopy`: tried again on the game read afresh, it finds the rematch made).
            changed = {"rematch_offer": None, "rematch_id": game_id, "version": version + 1}
            stale = StaleCopy("ply_already_played", "The game changed before this was applied.")
            return [Claim(Update(GAMES, changed, {"id": r.id, "version": version}), stale)]

        try:
            new = await self.games.create(
                white_id=r.black_id,
                black_id=r.white_id,
                terms=GameTerms.of(r),
                computer_level=r.computer_level,
                claims=link,
            )
        except StaleCopy:
            self.store.forget(live.id)
            raise
        linked = {"rematch_offer": None, "rematch_id": new.id, "version": version + 1}
        await self.store.committed(live, linked)
        return self.games.state(new)
