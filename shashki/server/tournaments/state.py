"""A tournament as stored, read in one go (`Snapshot`), and what the pure rules make of it: the arena's
sheets and standings (`arena.py`), the Swiss and round-robin standings with their tie-breaks
(`standings.py`), the inputs of the pairings (`arena_pairing.py`, `swiss.py`).

Everything here is derived from the stored pairings, never kept only in memory: a restarted server, or
another process, computes the same standings from the same rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from sqlalchemy import select
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.rules import Color
from shashki.server.tournaments.arena import (
    ArenaGame,
    ArenaPlayer,
    ArenaRules,
    ArenaStanding,
    Sheet,
    arena_sheet,
)
from shashki.server.tournaments.arena import arena_standings as pure_arena_standings
from shashki.server.tournaments.models import Tournament, TournamentPairing, TournamentPlayer
from shashki.server.tournaments.standings import round_robin_standings, swiss_standings
from shashki.server.tournaments.swiss import Bye, ByeKind, SwissGame, SwissPlayer

ARENA, SWISS, ROUNDROBIN = "arena", "swiss", "roundrobin"
SYSTEMS = (ARENA, SWISS, ROUNDROBIN)
CREATED, STARTED, FINISHED = "created", "started", "finished"
# The tournaments not over, read by the index on the status (`status IN`): `status != finished` reads
# every tournament ever held, which grows with the history (the director asks at every tick).
UNFINISHED = (CREATED, STARTED)
# Pairing statuses: stored but its game not yet created (a Swiss round is stored whole first), in play,
# over; an aborted arena game counts for nobody.
PENDING, PLAYING, DONE, ABORTED = "pending", "started", "finished", "aborted"
# The result of a game lost by not starting it (results.py): a forfeit, scored as a loss but not played over
# the board ("+-": White wins by forfeit; the tie-break of wins leaves it out).
FORFEITS = {"white": "+-", "black": "-+"}
# A round robin's game between two players who have both withdrawn (pairings.store_round): stored with no
# winner, but no draw: a forfeit lost by both (FIDE), 0 points each and no game over the board; a "0" on
# both sheets, a loss in both counts.
DOUBLE_FORFEIT = "0-0"
# lila `Pairing.notSoQuickFinish`: a berserk win scores its extra point from 14 plies (7 moves) on; a
# draughts move is a ply as a chess move is, so the same figure is kept (ArenaRules.berserk_min_plies).
RULES = ArenaRules()


def winner_of(p: TournamentPairing) -> Color | None:
    return None if p.winner is None else Color(p.winner)


def is_double_forfeit(p: TournamentPairing) -> bool:
    return p.winner is None and p.result == DOUBLE_FORFEIT


def points_of(p: TournamentPairing, user_id: int) -> int:
    """The half points a finished game gave `user_id` (a win 2, a draw 1, a loss or a double forfeit 0)."""
    if is_double_forfeit(p):
        return 0
    if p.winner is None:
        return 1
    return 2 if (p.winner == Color.WHITE.value) == (p.white_id == user_id) else 0


def completed_rounds(pairings: list[TournamentPairing], current: int) -> int:
    """How many rounds are complete: the current one once none of its games is pending or in play."""
    running = any(p.round == current and p.status in (PENDING, PLAYING) for p in pairings)
    return current - 1 if running else current


@dataclass
class Standing:
    """One row of the standings, whatever the system (the contract's Standing)."""

    rank: int
    user_id: int
    rating: int
    score: float  # arena points; Swiss and round-robin points (a win 1)
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    sheet: str = ""
    streak: bool = False
    performance: int | None = None
    tiebreaks: dict[str, float | None] | None = None
    paused: bool = False
    withdrawn: bool = False


@dataclass
class Snapshot:
    tournament: Tournament
    players: list[TournamentPlayer]
    pairings: list[TournamentPairing]  # in the order they were made
    ratings: dict[int, int] = field(default_factory=dict)  # current ratings (arena standings)

    @property
    def id(self) -> str:
        return self.tournament.id

    def player(self, user_id: int) -> TournamentPlayer | None:
        return next((p for p in self.players if p.user_id == user_id), None)

    def games(self) -> list[TournamentPairing]:
        return [p for p in self.pairings if p.bye is None and p.black_id is not None]

    def finished_games(self) -> list[TournamentPairing]:
        done = [p for p in self.games() if p.status == DONE]
        return sorted(done, key=lambda p: (p.finished_at or p.created_at, p.id))

    def running(self) -> list[TournamentPairing]:
        return [p for p in self.pairings if p.status in (PLAYING, PENDING)]

    def round_pairings(self, number: int) -> list[TournamentPairing]:
        return [p for p in self.pairings if p.round == number]

    def active(self) -> list[TournamentPlayer]:
        return [p for p in self.players if not p.withdrawn and not p.paused]

    # -- the arena -----------------------------------------------------------------------------------

    def arena_games(self, *, finished_only: bool = True) -> list[ArenaGame]:
        rows = self.finished_games() if finished_only else [p for p in self.games() if p.status != ABORTED]
        return [
            ArenaGame(
                p.white_id,
                p.black_id or 0,
                winner_of(p),
                p.plies,
                p.white_berserk,
                p.black_berserk,
                p.white_rating,
                p.black_rating,
            )
            for p in rows
        ]

    def arena_players(self) -> list[ArenaPlayer]:
        return [
            ArenaPlayer(p.user_id, self.ratings.get(p.user_id, p.rating), p.withdrawn or p.paused)
            for p in self.players
        ]

    def sheet_of(self, user_id: int) -> Sheet:
        return arena_sheet(user_id, self.arena_games(), RULES)

    # -- Swiss and round robins ---------------------------------------------------------------------------

    def swiss_players(self) -> list[SwissPlayer]:
        return [SwissPlayer(p.user_id, p.rating, p.withdrawn) for p in self.players]

    def swiss_games(self) -> list[SwissGame]:
        return [
            SwissGame(
                p.round,
                p.white_id,
                p.black_id or 0,
                winner_of(p),
                played=p.game_id is not None and p.result not in FORFEITS.values(),
                double_forfeit=is_double_forfeit(p),
            )
            for p in self.finished_games()
        ]

    def byes(self) -> list[Bye]:
        return [
            Bye(p.round, p.white_id, ByeKind(p.bye))
            for p in self.pairings
            if p.bye in (ByeKind.PAIRING.value, ByeKind.LATE_JOIN.value)
        ]

    # -- the standings --------------------------------------------------------------------------------

    def standings(self) -> list[Standing]:
        system = self.tournament.system
        if system == ARENA:
            return self._arena_standings()
        return self._points_standings(system)

    def arena_ranking(self) -> list[ArenaStanding]:
        """The pure rules' arena standings (`arena.arena_standings`), as the pairing wave needs them."""
        return pure_arena_standings(self.arena_players(), self.arena_games(), RULES)

    def _arena_standings(self) -> list[Standing]:
        entries = {p.user_id: p for p in self.players}
        counts: dict[int, list[int]] = {}  # wins, draws, losses
        for g in self.arena_games():
            for me in (g.white, g.black):
                c = counts.setdefault(me, [0, 0, 0])
                c[
                    0 if g.winner is not None and g.color_of(me) is g.winner else 1 if g.winner is None else 2
                ] += 1
        out = []
        for s in self.arena_ranking():
            p = entries[s.player]
            wins, draws, losses = counts.get(s.player, [0, 0, 0])
            out.append(
                Standing(
                    s.rank,
                    s.player,
                    s.rating,
                    s.score,
                    wins + draws + losses,
                    wins,
                    draws,
                    losses,
                    " ".join(str(e.points) for e in s.sheet.entries),
                    s.on_fire,
                    s.performance,
                    None,
                    p.paused,
                    p.withdrawn,
                )
            )
        return out

    def _points_standings(self, system: str) -> list[Standing]:
        entries = {p.user_id: p for p in self.players}
        t = self.tournament
        if system == SWISS:
            rows = swiss_standings(
                self.swiss_players(),
                self.swiss_games(),
                self.byes(),
                t.round,
                completed_rounds(self.pairings, t.round),
            )
        else:
            rows = round_robin_standings([p.user_id for p in self.players], self.swiss_games())
        results = self._sheets()
        out = []
        for s in rows:
            p = entries[s.player]
            sheet, wins, draws, losses = results.get(s.player, ([], 0, 0, 0))
            tiebreaks = {
                "buchholz": s.buchholz,
                "buchholz_cut1": s.buchholz_cut1,
                "sonneborn_berger": s.sonneborn_berger,
                "wins": s.wins,
                "direct": s.direct_encounter,
            }
            out.append(
                Standing(
                    s.rank,
                    s.player,
                    self.ratings.get(s.player, p.rating),
                    s.points,
                    wins + draws + losses,
                    wins,
                    draws,
                    losses,
                    " ".join(sheet),
                    False,
                    None,
                    tiebreaks,
                    p.paused,
                    p.withdrawn,
                )
            )
        return out

    def _sheets(self) -> dict[int, tuple[list[str], int, int, int]]:
        """Each player's results by round: 1, ½, 0 (a double forfeit too), + (a pairing bye), ½ (a late-join
        bye), * (in play),
        - (no game: the round robin's free round, which scores nothing, or a round not played)."""
        marks: dict[int, dict[int, str]] = {}
        counts: dict[int, list[int]] = {}
        for p in self.pairings:
            if p.bye is not None:
                mark = {ByeKind.PAIRING.value: "+", ByeKind.LATE_JOIN.value: "½"}.get(p.bye, "-")
                marks.setdefault(p.white_id, {})[p.round] = mark
                continue
            for me, color in ((p.white_id, Color.WHITE), (p.black_id, Color.BLACK)):
                if me is None:
                    continue
                c = counts.setdefault(me, [0, 0, 0])
                if p.status != DONE:
                    marks.setdefault(me, {})[p.round] = "*"
                elif is_double_forfeit(p):  # lost by forfeit, by both
                    marks.setdefault(me, {})[p.round] = "0"
                    c[2] += 1
                elif p.winner is None:
                    marks.setdefault(me, {})[p.round] = "½"
                    c[1] += 1
                elif Color(p.winner) is color:
                    marks.setdefault(me, {})[p.round] = "1"
                    c[0] += 1
                else:
                    marks.setdefault(me, {})[p.round] = "0"
                    c[2] += 1
        out = {}
        for user, by_round in marks.items():
            w, d, lost = counts.get(user, [0, 0, 0])
            out[user] = ([by_round.get(r, "-") for r in range(1, max(by_round) + 1)], w, d, lost)
        return out


async def load(s: AsyncSession, tournament_id: str) -> Snapshot | None:
    t = await s.get(Tournament, tournament_id)
    if t is None:
        return None
    players = list(
        await s.scalars(
            select(TournamentPlayer)
            .where(TournamentPlayer.tournament_id == tournament_id)
            .order_by(TournamentPlayer.id)
        )
    )
    pairings = list(
        await s.scalars(
            select(TournamentPairing)
            .where(TournamentPairing.tournament_id == tournament_id)
            .order_by(TournamentPairing.id)
        )
    )
    return Snapshot(t, players, pairings)


def seconds_between(later: datetime | None, earlier: datetime) -> int | None:
    return None if later is None else max(0, round((later - earlier).total_seconds()))
