"""The simuls as they are read: the list (waiting, being played, the last finished) and one simul with its
players, each game's board and the host's score."""

from __future__ import annotations

from typing import Any

from sqlalchemy import desc, select

from shashki.server.accounts import AccountService
from shashki.server.errors import NotFound
from shashki.server.games.live import LiveGame
from shashki.server.games.service import GameService
from shashki.server.simuls.models import Simul, SimulPlayer
from shashki.server.simuls.terms import CREATED, FINISHED, STARTED
from shashki.server.storage import Database
from shashki.server.storage.base import utcnow

FINISHED_LISTED = 20
HOST_SIDE = {"won": "lost", "lost": "won", "drawn": "drawn"}  # a player's outcome, for the host


class SimulReads:
    def __init__(self, db: Database, games: GameService, accounts: AccountService) -> None:
        self.db = db
        self.games = games
        self.accounts = accounts

    async def simul(self, simul_id: str) -> Simul:
        async with self.db.reading() as s:
            simul = await s.get(Simul, simul_id)
        if simul is None:
            raise NotFound("no_such_simul", f"There is no simul {simul_id!r}.")
        return simul

    async def list(self) -> dict[str, list[dict[str, Any]]]:
        """The simuls waiting for players, those being played, and the last finished."""
        async with self.db.reading() as s:
            open_ = list(await s.scalars(
                select(Simul).where(Simul.status.in_((CREATED, STARTED))).order_by(desc(Simul.created_at))
            ))  # fmt: skip
            finished = list(await s.scalars(
                select(Simul).where(Simul.status == FINISHED)
                .order_by(desc(Simul.created_at)).limit(FINISHED_LISTED)
            ))  # fmt: skip
            shown = [*open_, *finished]
            counts: dict[str, int] = {}
            if shown:
                entries = await s.scalars(
                    select(SimulPlayer.simul_id).where(SimulPlayer.simul_id.in_([x.id for x in shown]))
                )
                for simul_id in entries:
                    counts[simul_id] = counts.get(simul_id, 0) + 1
        hosts = await self.accounts.users_by_id({x.host_id for x in shown})

        def row(x: Simul) -> dict[str, Any]:
            return summary(x, hosts.get(x.host_id), counts.get(x.id, 0))

        return {
            "created": [row(x) for x in open_ if x.status == CREATED],
            "started": [row(x) for x in open_ if x.status == STARTED],
            "finished": [row(x) for x in finished],
        }

    async def get(self, simul_id: str) -> dict[str, Any]:
        """One simul: its terms, its host, its players (waiting for the host's answer, accepted, playing:
        each game's board), and the host's score."""
        async with self.db.reading() as s:
            simul = await s.get(Simul, simul_id)
            if simul is None:
                raise NotFound("no_such_simul", f"There is no simul {simul_id!r}.")
            players = list(await s.scalars(
                select(SimulPlayer).where(SimulPlayer.simul_id == simul_id)
                .order_by(SimulPlayer.joined_at, SimulPlayer.user_id)
            ))  # fmt: skip
        users = await self.accounts.users_by_id({simul.host_id, *(p.user_id for p in players)})
        game_ids = [p.game_id for p in players if p.game_id is not None]
        games = {g.record.id: g for g in await self.games.store.live_many(game_ids)}
        score = {"won": 0, "drawn": 0, "lost": 0, "playing": 0}
        shown = []
        for p in players:
            live = games.get(p.game_id) if p.game_id else None
            host_outcome = HOST_SIDE.get(p.outcome or "")
            if host_outcome is not None:
                score[host_outcome] += 1
            elif live is not None and p.outcome is None:
                score["playing"] += 1
            shown.append({
                "username": name(users.get(p.user_id)),
                "accepted": p.accepted,
                "game": p.game_id,
                "color": p.color,
                "outcome": p.outcome,
                "board": None if live is None else board(live),
            })  # fmt: skip
        return summary(simul, users.get(simul.host_id), len(players)) | {
            "text": simul.text,
            "players": shown,
            "score": score,
        }


def name(user: Any) -> str | None:
    return None if user is None else user.username


def summary(simul: Simul, host: Any, players: int) -> dict[str, Any]:
    return {
        "id": simul.id,
        "name": simul.name,
        "host": {"username": name(host)},
        "variant": simul.variant,
        "clock": {"initial": simul.clock_initial_ms / 1000, "increment": simul.clock_increment_ms / 1000},
        "host_extra_minutes": simul.host_extra_ms / 60_000,
        "host_color": simul.host_color,
        "status": simul.status,
        "players_count": players,
        "created_at": simul.created_at.isoformat(),
        "started_at": None if simul.started_at is None else simul.started_at.isoformat(),
        "finished_at": None if simul.finished_at is None else simul.finished_at.isoformat(),
    }


def board(live: LiveGame) -> dict[str, Any]:
    """What a simul's page shows of one game: the position, the last move, whose turn, the clocks."""
    r = live.record
    clock = live.clock()
    white_ms, black_ms = clock.at(utcnow()) if clock is not None else (None, None)
    return {
        "game": r.id,
        "fen": live.rules.position.fen(),
        "ply": r.ply,
        "last_move": live.notations[-1] if live.notations else None,
        "side_to_move": live.rules.position.side_to_move.value,
        "status": r.status.value,
        "winner": None if r.winner is None else r.winner.value,
        "clocks": (
            None if clock is None else {"white_ms": white_ms, "black_ms": black_ms, "running": clock.running}
        ),
    }
