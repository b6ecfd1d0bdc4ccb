"""What clients read of a seek and of a challenge (the lobby's lists, its socket, the Bot API)."""

from __future__ import annotations

from shashki.server.accounts.models import User
from shashki.server.lobby.links import player_json
from shashki.server.lobby.models import Challenge, Seek
from shashki.server.lobby.offers import TimeControl


def seek_json(seek: Seek, user: User, rating: dict | None = None) -> dict:
    """A seek as listed; `rating`: its player's in the seek's variant and speed (none: anonymous)."""
    shown = None if rating is None else {"rating": rating["rating"], "provisional": rating["provisional"]}
    return {
        "id": seek.id,
        "user": player_json(user),
        "rating": shown,
        "variant": seek.variant,
        "double_diagonal": seek.double_diagonal,
        "time_control": TimeControl.from_ms(seek.clock_initial_ms, seek.clock_increment_ms).json(),
        "days": seek.days_per_move,
        "rated": seek.rated,
        "color": seek.color,
    }


def challenge_json(c: Challenge, challenger: User, dest: User) -> dict:
    return {
        "id": c.id,
        "status": c.status,
        "variant": c.variant,
        "double_diagonal": c.double_diagonal,
        "time_control": TimeControl.from_ms(c.clock_initial_ms, c.clock_increment_ms).json(),
        "days": c.days_per_move,
        "rated": c.rated,
        "color": c.color,
        "initial_fen": c.initial_fen,
        "challenger": {"id": challenger.id, "username": challenger.username, "bot": challenger.is_bot},
        "dest": {"id": dest.id, "username": dest.username, "bot": dest.is_bot},
    }
