"""TV: the best-rated game in progress of each variant, as lichess's TV channels choose it.

A game's rating is the mean of its players' ratings in the game's variant and speed (a player without a
rating there counts at the default; the computer has no rating and is left out, so a game against it is
as good as its human player). A channel keeps showing its game until that game ends, and only then
switches to the best one in play (`current`): lichess's TV does not jump from game to game mid-way,
however many other games move meanwhile (found by an audit: a game outside the latest `POOL` was
dropped mid-way).

The candidates are the games being played now as the history reads them (`HistoryService.now_playing`,
the same list the lobby's "now playing" is pushed from, http/now_playing.py), up to `POOL` of them, and
of those only the games someone is playing now, as lichess's channels keep them: a game with a clock
whose last move is no older than its speed allows (`FRESH_SECONDS`); never a game without a clock or
a correspondence game, played at leisure (found by an audit: an abandoned untimed game stayed on TV).
"""

from __future__ import annotations

import contextlib
from collections import defaultdict
from datetime import UTC, datetime

from shashki.server.errors import NotFound
from shashki.server.history.service import HistoryService
from shashki.server.lidraughts import variant_key
from shashki.server.ratings import RatingService

POOL = 100  # the games in play looked at (the latest moves first), each read from the games store
# How long a game of each speed may go without a move and stay on TV (lichess's `secondsSinceLastMove`).
FRESH_SECONDS = {"bullet": 35, "blitz": 120, "rapid": 180, "classical": 480}


def fresh(game: dict, now: datetime | None = None) -> bool:
    """Whether a game in play is being played now: a clock, and a move lately enough for its speed."""
    limit = FRESH_SECONDS.get(game["speed"])
    if limit is None or game["clocks"] is None:
        return False
    moved_at = datetime.fromisoformat(game["moved_at"])
    if moved_at.tzinfo is None:  # as SQLite gives it back: UTC
        moved_at = moved_at.replace(tzinfo=UTC)
    return ((now or datetime.now(UTC)) - moved_at).total_seconds() <= limit


def _human_ids(game: dict) -> list[int]:
    return [p["id"] for p in (game["white"], game["black"]) if p.get("id") is not None]


async def rated_games(
    history: HistoryService, ratings: RatingService, variant: str | None, current: str | None = None
) -> list[dict]:
    """The games played now (of one variant, if given), each with its players' ratings and its own; the
    game shown (`current`) among them while it is in play, fresh or not, in the pool or not."""
    # Only games with a clock are read: a hundred untimed games moving left none for TV (found by a
    # recheck). The freshest come first, so the pool holds the games most likely fresh.
    candidates = await history.now_playing(variant=variant, limit=POOL, clocked=True)
    games = [game for game in candidates if fresh(game)]
    if current is not None and all(game["id"] != current for game in games):
        shown = None
        if _game_id(current):
            with contextlib.suppress(NotFound):  # no such game: the best one is shown
                shown = await history.playing(current)
        if shown is not None and (variant is None or shown["variant"] == variant):
            games.append(shown)
    by_terms: dict[tuple[str, str], set[int]] = defaultdict(set)
    for game in games:
        by_terms[(game["variant"], game["speed"])].update(_human_ids(game))
    known = {terms: await ratings.for_players(list(ids), *terms) for terms, ids in by_terms.items() if ids}
    out = []
    for game in games:
        found = known.get((game["variant"], game["speed"]), {})
        players = {
            color: found[game[color]["id"]]["rating"]
            for color in ("white", "black")
            if game[color].get("id") in found
        }
        rating = round(sum(players.values()) / len(players)) if players else 0
        out.append(game | {"ratings": players, "rating": rating})
    return out


def _game_id(text: str) -> bool:
    return 0 < len(text) <= 12 and text.isalnum()


def best(games: list[dict], current: str | None = None) -> dict | None:
    """The game to show: `current` while it is still in play, else the best-rated (the most moves
    played breaks a tie: a game well under way is the better show; then the id, to be stable)."""
    for game in games:
        if game["id"] == current:
            return game
    return max(games, key=lambda g: (g["rating"], g["ply"], g["id"]), default=None)


async def channel(
    history: HistoryService, ratings: RatingService, variant: str, current: str | None = None
) -> dict:
    """One variant's channel: the game it shows now (None: no game of that variant is being played)."""
    key = variant_key(variant)
    return {"variant": key, "game": best(await rated_games(history, ratings, key, current), current)}


async def channels(history: HistoryService, ratings: RatingService) -> list[dict]:
    """Every variant with a game in play, each with its best game, the best-rated channel first."""
    groups: dict[str, list[dict]] = defaultdict(list)
    for game in await rated_games(history, ratings, None):
        groups[game["variant"]].append(game)
    shown = [{"variant": key, "game": best(games)} for key, games in groups.items()]
    return sorted(shown, key=lambda c: (-c["game"]["rating"], c["variant"]))
