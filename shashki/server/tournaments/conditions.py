"""Who may enter a tournament (issue 13): its size, how far it has gone, and its conditions on the
entrant's rating and rated games in the tournament's variant and speed; checked on a snapshot first
(`check_conditions`), then again in the entry's own transaction (`take_room`), where entries sent at the
same time and the director's rounds follow one another."""

from __future__ import annotations

from sqlalchemy import func, select, update
from sqlalchemy.ext.asyncio import AsyncSession

from shashki.server.accounts.models import User
from shashki.server.errors import Conflict, Forbidden
from shashki.server.ratings import RatingService
from shashki.server.ratings.speed import speed_of
from shashki.server.tournaments.models import Tournament, TournamentPlayer
from shashki.server.tournaments.state import FINISHED, ROUNDROBIN, STARTED, SWISS, Snapshot
from shashki.server.tournaments.swiss import can_late_join


async def check_conditions(snap: Snapshot, user: User, ratings: RatingService) -> None:
    """Refuse an entry the tournament's conditions do not allow: full, started (a round robin, or a Swiss
    past half its rounds), or a rating or a count of rated games below its minimum."""
    t = snap.tournament
    if t.max_players is not None and sum(1 for p in snap.players if not p.withdrawn) >= t.max_players:
        raise Conflict("tournament_full", f"This tournament is full ({t.max_players} players).")
    if t.status == STARTED and t.system == ROUNDROBIN:
        raise Conflict("already_started", "A round robin cannot be joined once it has started.")
    if t.status == STARTED and t.system == SWISS and not can_late_join(t.round, t.rounds or 0):
        raise Conflict("too_late", "More than half the rounds have started: it is too late to join.")
    if t.min_rating is not None or t.min_games is not None:
        speed = speed_of(t.clock_initial_ms, t.clock_increment_ms)
        mine = (await ratings.for_players([user.id], t.variant, speed))[user.id]
        if t.min_rating is not None and mine["rating"] < t.min_rating:
            raise Forbidden(
                "condition_rating",
                f"This tournament needs a {t.variant} {speed} rating of "
                f"at least {t.min_rating} (yours: {mine['rating']}).",
            )
        if t.min_games is not None and mine["games"] < t.min_games:
            raise Forbidden(
                "condition_games",
                f"This tournament needs {t.min_games} rated {t.variant} "
                f"{speed} games (you have played {mine['games']}).",
            )


async def take_room(s: AsyncSession, t: Tournament) -> tuple[str, int]:
    """In an entry's transaction (`TournamentService.join`): take the tournament's row (as the director
    does to store a round: `pairings.store_round`), so that entries and rounds follow one another, and
    read what holds now:
    its status and round (which decide a late joiner's bye), and a place left under `max_players`
    (else Conflict, nothing written: entries sent at the same time do not fill it past the limit)."""
    await s.execute(update(Tournament).where(Tournament.id == t.id).values(round=Tournament.round))
    status, round_now = (
        await s.execute(select(Tournament.status, Tournament.round).where(Tournament.id == t.id))
    ).one()
    if status == FINISHED:
        raise Conflict("tournament_finished", "This tournament is over.")
    if status == STARTED and t.system == ROUNDROBIN:
        raise Conflict("already_started", "A round robin cannot be joined once it has started.")
    if status == STARTED and t.system == SWISS and not can_late_join(round_now, t.rounds or 0):
        raise Conflict("too_late", "More than half the rounds have started: it is too late to join.")
    if t.max_players is not None:
        entered = await s.scalar(
            select(func.count())
            .select_from(TournamentPlayer)
            .where(TournamentPlayer.tournament_id == t.id, TournamentPlayer.withdrawn.is_(False))
        )
        if (entered or 0) >= t.max_players:
            raise Conflict("tournament_full", f"This tournament is full ({t.max_players} players).")
    return status, round_now
