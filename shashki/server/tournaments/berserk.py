"""Arena berserk (lila `Berserk`), the tournament service's part that halves a player's clock for a point
more (`TournamentService` is one with it).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import update

from shashki.rules import Color
from shashki.server.accounts.models import User
from shashki.server.errors import Forbidden, Invalid
from shashki.server.games.service import GameService
from shashki.server.storage import Database, rows_changed
from shashki.server.tournaments.live import TournamentFeed
from shashki.server.tournaments.models import TournamentPairing, TournamentPlayer
from shashki.server.tournaments.state import ARENA, PLAYING, Snapshot


class Berserk:
    """Berserk, on the tournament service's database, games, feed and snapshots."""

    db: Database
    games: GameService
    feed: TournamentFeed

    async def snapshot(self, tournament_id: str) -> Snapshot:  # the service's
        raise NotImplementedError

    async def berserk(self, user: User, tournament_id: str, game_id: str) -> dict[str, Any]:
        """Arena berserk (lila `Berserk`): halve your own clock before your first move, for one more point
        if you win a game of at least 14 plies (`state.RULES`). The increment stays: a game has one
        increment for both sides here."""
        snap = await self.snapshot(tournament_id)
        if snap.tournament.system != ARENA:
            raise Invalid("arena_only", "Berserk belongs to arenas.")
        pairing = next((p for p in snap.pairings if p.game_id == game_id), None)
        if (
            pairing is None
            or pairing.status != PLAYING
            or user.id not in (pairing.white_id, pairing.black_id)
        ):
            raise Forbidden(
                "not_your_game", "Berserk is for your own game of this arena, while it is played."
            )
        color = Color.WHITE if user.id == pairing.white_id else Color.BLACK
        if pairing.white_berserk if color is Color.WHITE else pairing.black_berserk:
            return {"ok": True}
        # Halved once however often it is asked (refused once the player has moved); the pairing's flag
        # and the player's count are set by the one request that finds the flag still unset, so
        # requests sent at the same time (in any process) count one berserk.
        await self.games.halve_clock(game_id, color)
        flag = TournamentPairing.white_berserk if color is Color.WHITE else TournamentPairing.black_berserk
        async with self.db.session() as s:
            claimed = await s.execute(
                update(TournamentPairing)
                .where(TournamentPairing.id == pairing.id, flag.is_(False))
                .values({flag.key: True})
            )
            if rows_changed(claimed) == 1:
                await s.execute(
                    update(TournamentPlayer)
                    .where(
                        TournamentPlayer.tournament_id == tournament_id, TournamentPlayer.user_id == user.id
                    )
                    .values(berserks=TournamentPlayer.berserks + 1)
                )
            await s.commit()
        self.feed.changed(tournament_id)
        return {"ok": True}
