"""The JSON shapes of tournaments (TOURNAMENT-CONTRACT.md): T, Standing and Pairing. Built from a
`Snapshot` and the players' names; the service adds the positions of the games in play."""

from __future__ import annotations

from typing import Any

from shashki.server.accounts.models import User
from shashki.server.storage.base import utcnow
from shashki.server.tournaments.models import TournamentPairing, TournamentPlayer
from shashki.server.tournaments.state import (
    ARENA,
    DONE,
    FINISHED,
    PENDING,
    PLAYING,
    Snapshot,
    Standing,
    seconds_between,
)

PAGE = 20  # standings per page (the contract)
RECENT_ARENA_GAMES = 30  # finished arena games listed with the ones in play
T_ARENA_GAMES = 20  # in T: the 20 newest games in play, and the 20 latest finished


def iso(moment) -> str | None:
    return None if moment is None else moment.isoformat().replace("+00:00", "Z")


def standing_json(s: Standing, users: dict[int, User]) -> dict[str, Any]:
    user = users.get(s.user_id)
    return {
        "rank": s.rank,
        "user": user.username if user else str(s.user_id),
        "user_id": s.user_id,
        "bot": bool(user and user.is_bot),
        "rating": s.rating,
        "score": s.score,
        "games": s.games,
        "wins": s.wins,
        "draws": s.draws,
        "losses": s.losses,
        "sheet": s.sheet,
        "streak": s.streak,
        "performance": s.performance,
        "tiebreaks": s.tiebreaks,
        "paused": s.paused,
        "withdrawn": s.withdrawn,
    }


def pairing_json(p: TournamentPairing, users: dict[int, User], fens: dict[str, str]) -> dict[str, Any]:
    def name(user_id: int | None) -> str | None:
        if user_id is None:
            return None
        user = users.get(user_id)
        return user.username if user else str(user_id)

    return {
        "round": p.round,
        "white": name(p.white_id),
        "black": name(p.black_id),
        "game": p.game_id,
        "status": "finished" if p.status not in (PLAYING, PENDING) else "started",
        "result": p.result,
        "fen": fens.get(p.game_id or ""),
        "bye": p.bye is not None,
        "white_berserk": p.white_berserk,
        "black_berserk": p.black_berserk,
    }


def shown_pairings(
    snap: Snapshot, round_number: int | None = None, *, limit: int | None = None
) -> list[TournamentPairing]:
    """A round's pairings (Swiss, round robin: the current round by default); for an arena, the games in
    play (newest first) then the latest finished ones, at most `limit` of each (T carries a few: a large
    arena's live boards are paged through the pairings route)."""
    t = snap.tournament
    if t.system == ARENA:
        playing = [p for p in reversed(snap.pairings) if p.status == PLAYING][:limit]
        recent = [p for p in reversed(snap.pairings) if p.status == DONE][: limit or RECENT_ARENA_GAMES]
        return playing + recent
    return snap.round_pairings(round_number if round_number is not None else t.round)


def me_json(entry: TournamentPlayer | None, snap: Snapshot | None = None) -> dict[str, Any]:
    """The viewer's own place: joined, paused, withdrawn, and the game they play now — an arena keeps it
    on the entry; in a Swiss or round robin it is the viewer's running pairing of the round."""
    if entry is None:
        return {"joined": False, "paused": False, "withdrawn": False, "game": None}
    game = entry.game_id
    if game is None and snap is not None:
        game = next(
            (
                p.game_id
                for p in snap.running()
                if p.game_id is not None and entry.user_id in (p.white_id, p.black_id)
            ),
            None,
        )
    return {
        "joined": not entry.withdrawn,
        "paused": entry.paused,
        "withdrawn": entry.withdrawn,
        "game": game,
    }


def tournament_json(
    snap: Snapshot,
    users: dict[int, User],
    standings: list[Standing],
    fens: dict[str, str],
    *,
    full: bool = True,
) -> dict[str, Any]:
    """T. `full` adds the first page of the standings, the pairings and the podium."""
    t = snap.tournament
    now = utcnow()
    creator = users.get(t.created_by) if t.created_by is not None else None
    out: dict[str, Any] = {
        "id": t.id,
        "name": t.name,
        "system": t.system,
        "variant": t.variant,
        "clock": {"initial": t.clock_initial_ms / 1000, "increment": t.clock_increment_ms / 1000},
        "rated": t.rated,
        "status": t.status,
        "starts_at": iso(t.starts_at),
        "ends_at": iso(t.ends_at),
        "finished_at": iso(t.finished_at),
        "seconds_to_start": seconds_between(t.starts_at, now) if t.status == "created" else 0,
        "seconds_left": seconds_between(t.ends_at, now) if t.ends_at and t.status != FINISHED else None,
        "minutes": t.minutes,
        "round": t.round if t.system != ARENA else None,
        "rounds": t.rounds,
        "double": t.double,
        "created_by": creator.username if creator else None,
        "scheduled": t.schedule_key is not None,
        "private": t.password_hash is not None,
        "conditions": {"min_rating": t.min_rating, "min_games": t.min_games, "max_players": t.max_players},
        "players": sum(1 for p in snap.players if not p.withdrawn),
        "me": None,
    }
    if full:
        out["standings"] = [standing_json(s, users) for s in standings[:PAGE]]
        out["pairings"] = [pairing_json(p, users, fens) for p in shown_pairings(snap, limit=T_ARENA_GAMES)]
        out["podium"] = [standing_json(s, users) for s in standings[:3]] if t.status == FINISHED else []
    return out
